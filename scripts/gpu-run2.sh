#!/usr/bin/env bash
set -uo pipefail
out="${OUT:-$PWD/gpu-out}"; mkdir -p "$out"
b=/tmp/b
true &
{ cmake -S . -B /tmp/basan -G Ninja -DCMAKE_BUILD_TYPE=Debug -DCUABI_SANITIZE=address,undefined -DCUABI_BUILD_BENCH=OFF -DCUABI_BUILD_TESTS=ON && cmake --build /tmp/basan -j 14 --target cuabi_gpu_tests cuabi_image_verifier cuabi_compile_worker; } >"$out/asan-build.log" 2>&1 || { tail -30 "$out/asan-build.log"; }
wait
mkdir -p /tmp/mutants2
ASAN_OPTIONS=protect_shadow_gap=0:detect_leaks=0:abort_on_error=0:alloc_dealloc_mismatch=0 UBSAN_OPTIONS=print_stacktrace=1 CUABI_CACHE_DIR=/tmp/cuabi-asan-cache CUABI_MUTANT_DIR=/tmp/mutants2 timeout 300 /tmp/basan/tests/cuabi_gpu_tests --gtest_filter='ImageMutation.MutantsNeverCrashOrHangTheHost' >"$out/mutation-asan.log" 2>&1; echo "asan mutation exit $?"
grep -nE "ERROR: AddressSanitizer|runtime error|#[0-9]+ 0x|SUMMARY|mutant [0-9]+ of|PASSED|FAILED|\[ mutation \]" "$out/mutation-asan.log" | head -60
