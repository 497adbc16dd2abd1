#!/usr/bin/env bash
# The unit suite again, built with AddressSanitizer + UBSan.
set -euo pipefail
cd "$CUABI_ROOT"
cmake -S . -B build-asan -G Ninja -DCMAKE_BUILD_TYPE=Debug -DCUABI_SANITIZE=address,undefined \
  -DCUABI_BUILD_BENCH=OFF -DCUDAToolkit_ROOT="$CUDA_HOME"
cmake --build build-asan -j "$CUABI_JOBS" --target cuabi_unit_tests
ASAN_OPTIONS=detect_leaks=1:abort_on_error=1 UBSAN_OPTIONS=print_stacktrace=1:halt_on_error=1 \
  ctest --test-dir build-asan -L unit --output-on-failure -j "$CUABI_JOBS"
