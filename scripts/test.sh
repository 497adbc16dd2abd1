#!/usr/bin/env bash
# The whole test suite: sets up, builds, runs every ctest label (unit, gpu, abi, packaging), then
# builds the unit suite again under AddressSanitizer + UBSan and runs it. GPU tests skip with a
# reason on a machine without a GPU.
set -euo pipefail
root="$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)"
cd "$root"
bash scripts/setup.sh

export CUDA_HOME="${CUDA_HOME:-/usr/local/cuda}"
jobs="$(nproc)"

echo "== build (RelWithDebInfo) =="
cmake -S . -B build -G Ninja -DCMAKE_BUILD_TYPE=RelWithDebInfo -DCUDAToolkit_ROOT="$CUDA_HOME"
cmake --build build -j "$jobs"
echo "== test: all labels =="
ctest --test-dir build --output-on-failure -j "$jobs"

echo "== build (AddressSanitizer + UBSan) =="
cmake -S . -B build-asan -G Ninja -DCMAKE_BUILD_TYPE=Debug -DCUABI_SANITIZE=address,undefined \
  -DCUABI_BUILD_BENCH=OFF -DCUDAToolkit_ROOT="$CUDA_HOME"
cmake --build build-asan -j "$jobs" --target cuabi_unit_tests
echo "== test: unit suite under ASan + UBSan =="
ASAN_OPTIONS=detect_leaks=1:abort_on_error=1 UBSAN_OPTIONS=print_stacktrace=1:halt_on_error=1 \
  ctest --test-dir build-asan -L unit --output-on-failure -j "$jobs"
