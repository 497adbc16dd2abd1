#!/usr/bin/env bash
# What the lead runs on the lent H100 (no package archive there): build Release, run the unit and
# gpu suites, the gpu suite again under compute-sanitizer, the demo twice and the benchmarks.
# Logs go to $OUT (or ./gpu-out).
set -uo pipefail
out="${OUT:-$PWD/gpu-out}"
mkdir -p "$out"
export CUABI_ABI_TOOLS_OPTIONAL=1
export CUABI_CACHE_DIR=/tmp/cuabi-cache
nvidia-smi --query-gpu=name,driver_version --format=csv,noheader | tee "$out/gpu.txt"
{
  cmake -S . -B /tmp/b -G Ninja -DCMAKE_BUILD_TYPE=Release && cmake --build /tmp/b -j 16
} >"$out/build.log" 2>&1 || { tail -50 "$out/build.log"; exit 1; }
echo "build ok"
ctest --test-dir /tmp/b -L 'unit|gpu' -j 8 --output-on-failure >"$out/ctest.log" 2>&1
grep -E "tests passed|tests failed" "$out/ctest.log"
grep -E "^\s+[0-9]+ - .*\(Failed|Timeout|Exception|SEGFAULT|Subprocess" "$out/ctest.log" | head -40
