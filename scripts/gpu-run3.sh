#!/usr/bin/env bash
set -uo pipefail
out="${OUT:-$PWD/gpu-out}"; mkdir -p "$out"
b=/tmp/b
nvidia-smi --query-gpu=name,driver_version --format=csv,noheader | tee "$out/gpu.txt"
{ cmake -S . -B $b -G Ninja -DCMAKE_BUILD_TYPE=Release -DCUABI_BUILD_TESTS=ON -DCUABI_BUILD_BENCH=ON && cmake --build $b -j 16; } >"$out/build.log" 2>&1 || { tail -50 "$out/build.log"; exit 1; }
echo "build ok"
export CUABI_ABI_TOOLS_OPTIONAL=1
CUABI_CACHE_DIR=/tmp/cuabi-test-cache timeout 330 ctest --test-dir $b -L 'unit|gpu|docs' -j 12 --timeout 200 --output-on-failure >"$out/ctest.log" 2>&1
grep -E "tests passed|tests failed" "$out/ctest.log"; grep -E "\(Failed\)|\(Timeout\)|\(SEGFAULT\)|Exception" "$out/ctest.log" | head -30
CUABI_CACHE_DIR=/tmp/cuabi-mut-cache timeout 100 $b/tests/cuabi_gpu_tests --gtest_filter='ImageMutation.*' >"$out/mutation.log" 2>&1; echo "mutation exit $?"
grep -E "\[ mutation \]|PASSED|FAILED|malloc|Segm" "$out/mutation.log" | tail -6
CUABI_CACHE_DIR=/tmp/cuabi-san-cache timeout 120 compute-sanitizer --tool memcheck --error-exitcode 9 $b/tests/cuabi_gpu_tests --gtest_filter='GraphRetention.*:LaunchBatch*:StructSize*:KernelLookup.*' >"$out/san.log" 2>&1; echo "sanitizer exit $?"
grep -E "ERROR SUMMARY|\[  PASSED  \]|\[  FAILED  \]" "$out/san.log" | head
