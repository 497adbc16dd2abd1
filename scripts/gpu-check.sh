#!/usr/bin/env bash
# What the lead runs on the lent H100 (no package archive there). Phases, in order, each logged
# under $OUT (or ./gpu-out):  build  tests  sanitizer  demo  bench  profile  bindings
# (default: build tests). "bindings" runs the binding binaries the test parts built on a machine
# with the toolchains (the H100 has none) -- build/{rust,go,zig}/bin and build/conformance/bin,
# carried to the GPU machine -- against this build's library.
set -uo pipefail
out="${OUT:-$PWD/gpu-out}"
mkdir -p "$out"
phases="${*:-build tests}"
export CUABI_ABI_TOOLS_OPTIONAL=1
b=/tmp/b
has() { [[ " $phases " == *" $1 "* ]]; }
nvidia-smi --query-gpu=name,driver_version --format=csv,noheader | tee "$out/gpu.txt"
if has build; then
  { cmake -S . -B $b -G Ninja -DCMAKE_BUILD_TYPE=Release -DCUABI_BUILD_TESTS=ON -DCUABI_BUILD_BENCH=ON && cmake --build $b -j 16; } >"$out/build.log" 2>&1 \
    || { tail -50 "$out/build.log"; exit 1; }
  echo "build ok"
fi
if has tests; then
  CUABI_CACHE_DIR=/tmp/cuabi-test-cache timeout 400 ctest --test-dir $b -L 'unit|gpu|docs' -j 8 --timeout 120 \
    --output-on-failure >"$out/ctest.log" 2>&1
  grep -E "tests passed|tests failed" "$out/ctest.log"
  grep -E "\*\*\*(Failed|Timeout|Exception)|SEGFAULT|Subprocess aborted" "$out/ctest.log" | head -40
fi
if has mutation; then
  # Issue 25's campaign: four copies of the mutation test at once, each its own seed and cache;
  # a copy that dies leaves the mutant it was loading in its directory (loading_<seed>_<m>).
  for seed in 25 31 32 33; do
    mkdir -p /tmp/mut/$seed
    ( CUABI_CACHE_DIR=/tmp/mut/$seed/cache CUABI_MUTATION_SEED=$seed CUABI_MUTANT_DIR=/tmp/mut/$seed \
        timeout 300 $b/tests/cuabi_gpu_tests --gtest_filter='ImageMutation.*' >"$out/mutation-$seed.log" 2>&1
      echo "seed $seed exit $? $(grep -h '\[ mutation \]' "$out/mutation-$seed.log")" ) &
  done
  wait
  mkdir -p "$out/mutants"; cp /tmp/mut/*/loading_* /tmp/mut/*/mutant_* "$out/mutants/" 2>/dev/null
  grep -h -A3 'Failure' "$out"/mutation-*.log | head -30
fi
if has sanitizer; then
  # Left out: the tests that fault a context on purpose (memcheck reports the deliberate illegal
  # address and stops their death-test children), and those that run child processes of their own.
  CUABI_CACHE_DIR=/tmp/cuabi-san-cache timeout 420 compute-sanitizer --tool memcheck --leak-check full --report-api-errors no \
    --error-exitcode 9 $b/tests/cuabi_gpu_tests --gtest_filter='-LaunchFailure.*:*DriverRefusal*:ModuleJit.*:ModuleTest.ChildWithPtxJitDisabled:RangeGpu.*' \
    >"$out/sanitizer.log" 2>&1
  echo "compute-sanitizer exit $?"
  grep -E "ERROR SUMMARY|\[  PASSED  \]|\[  FAILED  \]|tests ran" "$out/sanitizer.log" | head -20
fi
if has demo; then
  rm -rf /tmp/cuabi-demo-cache
  for run in 1 2; do
    echo "--- demo run $run" ; CUABI_CACHE_DIR=/tmp/cuabi-demo-cache $b/src/cli/cuabi demo 2>&1 | tee -a "$out/demo.log"
  done
  $b/src/cli/cuabi info >"$out/info.txt" 2>&1; head -60 "$out/info.txt"
fi
if has bench; then
  # One core for the whole run (docs/performance.md): the host's scheduler moving the thread
  # between cores is noise the paired ratios need not carry.
  for x in $b/bench/bench_*; do
    extra=""; [ "$(basename $x)" = bench_graph ] && extra="--reps 100"
    echo "--- $(basename $x)"; CUABI_CACHE_DIR=/tmp/cuabi-bench-cache timeout 240 taskset -c 2 $x $extra 2>&1 \
      | tee "$out/$(basename $x).txt" | tail -30
  done
fi
if has profile; then
  # A real profiler sees cuabi's ranges: ncu profiles a kernel only when the launch sits inside the
  # NVTX range named by --nvtx-include (push/pop ranges end in '/'), and none for a missing range.
  ncu --help 2>&1 | grep -i nvtx >"$out/ncu-help.txt"
  demo_env="CUABI_CACHE_DIR=/tmp/cuabi-prof-cache"
  for include in "cuabi@cuabi.launch/" "regex:cuabi@cuabi\\.graph\\.launch.*/" "cuabi@no.such.range/"; do
    echo "--- ncu --nvtx --nvtx-include $include" | tee -a "$out/ncu.log"
    env $demo_env timeout 150 ncu --nvtx --nvtx-include "$include" -c 3 --section LaunchStats \
      $b/src/cli/cuabi demo >>"$out/ncu.log" 2>&1
    echo "exit $?" >>"$out/ncu.log"
  done
  grep -E "^---|==PROF==|==WARNING==|exit |NVTX|nvtx" "$out/ncu.log" | head -40
fi
if has bindings; then
  export CUABI_LIBRARY=$b/libcuabi.so.1 CUABI_CACHE_DIR=/tmp/cuabi-bind-cache
  mkdir -p $b/conformance/bin
  for lang in rust go zig; do cp -f build/conformance/bin/$lang $b/conformance/bin/ 2>/dev/null || echo "no $lang conformance binary"; done
  # Python's scenario too where an interpreter with cffi and numpy is named ($CUABI_PYTHON).
  require="c rust go zig"
  if [[ -n "${CUABI_PYTHON:-}" && -x build/conformance/bin/python ]]; then
    cp -f build/conformance/bin/python $b/conformance/bin/ && rm -rf $b/conformance/python &&
      cp -r build/conformance/python $b/conformance/python && require+=" python"
  fi
  CUABI_CONFORMANCE_REQUIRE="$require" bash scripts/conformance.sh $b 2>&1 | tee "$out/conformance.log" | tail -8
  cp -r $b/conformance/transcripts "$out/" 2>/dev/null
  echo "--- rust"; timeout 300 build/rust/bin/cuabi-tests-gpu >"$out/rust-gpu.log" 2>&1; echo "rust gpu exit $?"
  grep -E "^test result|FAILED|panicked" "$out/rust-gpu.log" | head -20
  echo "--- go"; (cd bindings/go && timeout 300 ../../build/go/bin/cuabi.test -test.v -test.count=1) >"$out/go-gpu.log" 2>&1; echo "go gpu exit $?"
  grep -E "^(--- FAIL|FAIL|ok|PASS)|SKIP" "$out/go-gpu.log" | head -20
  echo "--- zig"; timeout 300 build/zig/bin/cuabi-tests >"$out/zig-gpu.log" 2>&1; echo "zig gpu exit $?"
  tail -5 "$out/zig-gpu.log"
  echo "--- binding launch overhead (one core)"
  timeout 120 taskset -c 2 build/rust/bin/launch_overhead >"$out/rust-overhead.txt" 2>&1; tail -6 "$out/rust-overhead.txt"
  timeout 120 taskset -c 2 build/go/bin/overhead >"$out/go-overhead.txt" 2>&1; tail -6 "$out/go-overhead.txt"
  # Go again on two cores: the Go runtime's own threads ("other threads ns") then run beside the
  # launching thread instead of taking its core; the difference between the two runs is theirs.
  timeout 120 taskset -c 2,3 build/go/bin/overhead >"$out/go-overhead-2cores.txt" 2>&1; tail -6 "$out/go-overhead-2cores.txt"
  timeout 120 taskset -c 2 build/zig/bin/cuabi-bench-overhead --json "$out/zig-overhead.json" >"$out/zig-overhead.txt" 2>&1; tail -6 "$out/zig-overhead.txt"
fi
if has python; then
  # The Python package from source against this build, on a venv from the carried wheelhouse
  # ($CUABI_WHEELHOUSE: cffi, pycparser, numpy, pytest).
  python3 -m venv /tmp/pyv >/dev/null && /tmp/pyv/bin/pip install -q --no-index --find-links "${CUABI_WHEELHOUSE:-.device/c/wheels}" \
    numpy pytest cffi >/dev/null 2>&1
  # The build's extension (cuabi._native, stable ABI: any CPython >= 3.9): the launch, batch and
  # compile tests run through it and through the pure-Python paths.
  (cd bindings/python && CUABI_LIBRARY=$b/libcuabi.so.1 CUABI_PYTHON_EXTENSION_DIR=$b/python/cuabi \
    CUABI_PYTHON_REQUIRE_GPU=1 CUABI_CACHE_DIR=/tmp/cuabi-py-cache \
    timeout -s ABRT 300 /tmp/pyv/bin/python -X faulthandler -m pytest -q -rs -p no:cacheprovider tests) >"$out/python.log" 2>&1
  echo "python exit $?"; tail -3 "$out/python.log"
  echo "--- python launch overhead (one core)"
  CUABI_LIBRARY=$b/libcuabi.so.1 CUABI_PYTHON_EXTENSION_DIR=$b/python/cuabi timeout 300 taskset -c 2 \
    /tmp/pyv/bin/python bindings/python/bench/launch_overhead.py --reps 20 >"$out/python-overhead.txt" 2>&1
  tail -25 "$out/python-overhead.txt"
  # The GPU tests again under memcheck. --show-backtrace device: host backtraces make the sanitizer
  # capture the Python frames of each allocation and keep them alive, so every buffer a test drops
  # at the end of a function would be reported as leaked (a probe showed its handle still valid
  # after the function returned, and destroyed without the host backtraces).
  (cd bindings/python && CUABI_LIBRARY=$b/libcuabi.so.1 CUABI_PYTHON_EXTENSION_DIR=$b/python/cuabi \
    CUABI_PYTHON_REQUIRE_GPU=1 CUABI_CACHE_DIR=/tmp/cuabi-py-san-cache timeout 400 compute-sanitizer --tool memcheck \
    --leak-check full --show-backtrace device --report-api-errors no --error-exitcode 9 \
    /tmp/pyv/bin/python -m pytest -q -p no:cacheprovider tests/test_gpu.py tests/test_native.py tests/test_memory.py \
    tests/test_handles.py tests/test_interop.py tests/test_conditional.py tests/test_link.py tests/test_devices.py) \
    >"$out/python-sanitizer.log" 2>&1
  echo "python compute-sanitizer exit $?"; grep -E "ERROR SUMMARY|LEAK SUMMARY|passed|failed" "$out/python-sanitizer.log" | tail -3
fi
