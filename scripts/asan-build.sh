#!/usr/bin/env bash
# Builds TARGETs in $CUABI_ROOT/build-asan: the project in Debug with AddressSanitizer + UBSan
# (configured on first use). The unit suite (test.d/30-asan.sh) and the Python package's suite
# through the extension (test.d/65-python.sh) run from there.
set -euo pipefail
cd "$CUABI_ROOT"
if [[ ! -f build-asan/build.ninja ]]; then
  cmake -S . -B build-asan -G Ninja -DCMAKE_BUILD_TYPE=Debug -DCUABI_SANITIZE=address,undefined \
    -DCUABI_BUILD_BENCH=OFF -DCUDAToolkit_ROOT="$CUDA_HOME"
fi
cmake --build build-asan -j "$CUABI_JOBS" --target "$@"
