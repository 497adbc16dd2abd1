#!/usr/bin/env bash
# The unit suite again, built with ThreadSanitizer (build-tsan/, Debug, ccache), against the real
# NVRTC and real files.
#
# Selection: every test labelled `unit` except those listed in `excluded` below. The whole label
# rather than a name regex, because a concurrency test is not reliably named after it: among
# them are the handle table under threads and destroy racing a pin (HandleTable.*,
# HandleLifetime.*), the thread-local last error (ErrorMessages.*, StatusNames.*), the memory cache
# under readers and writers (CacheMemory.*), processes and threads sharing one disk cache
# (CacheProcess.*, through the instrumented helper program), the graph exclusion guard and cache
# (GraphExclusive.*, GraphCache.*), the occupancy cache (OccupancyCache.*), ranges started and
# ended across threads (RangeUser.*, RangeInjection.*) and fork() while other threads hold a pin
# and the cache lock (Fork.*: they pass under TSan, since the child starts no thread). The rest
# costs about a minute on 2 cores and still checks lock order and any thread a test starts.
#
# No suppressions: NVRTC (the one uninstrumented library these tests load) has produced no report.
# A report is a race in cuabi or its tests: fix it, never suppress it here.
set -euo pipefail
cd "$CUABI_ROOT"
launcher=()  # ccache where a developer has it; CI builds without
command -v ccache >/dev/null && launcher=(-DCMAKE_C_COMPILER_LAUNCHER=ccache -DCMAKE_CXX_COMPILER_LAUNCHER=ccache)
cmake -S . -B build-tsan -G Ninja -DCMAKE_BUILD_TYPE=Debug -DCUABI_SANITIZE=thread \
  -DCUABI_BUILD_BENCH=OFF -DCUDAToolkit_ROOT="$CUDA_HOME" "${launcher[@]}"
cmake --build build-tsan -j "$CUABI_JOBS" --target cuabi_unit_tests

excluded=(
  # Fails every allocation of a compile (or a cache store) in turn: thousands of NVRTC compiles,
  # more than 5 minutes each under TSan. Single-threaded; the ASan part runs them.
  '^AllocationFailure\.'
)
exclude_regex="$(IFS='|'; echo "${excluded[*]}")"

# The TSan runtime of GCC 13 and older aborts ("unexpected memory mapping") under the 32 bits of
# mmap randomization that newer kernels default to; without address randomization it maps its
# shadow memory reliably. Kept only where the container lets the personality be changed.
no_aslr=(setarch "$(uname -m)" --addr-no-randomize)
"${no_aslr[@]}" true 2>/dev/null || no_aslr=()

# halt_on_error: the first report fails its test at once (a report at exit would only change the
# exit status to 66). second_deadlock_stack: lock-order reports show where both locks were taken.
# handle_segv=0: a process that crashes dies by its signal, as it would without TSan, whose own
# handler would exit with status 66 instead; tests that crash NVRTC in a child process on purpose
# check that the child was killed by a signal. A crash still fails its test, only without TSan's
# stack trace.
TSAN_OPTIONS=halt_on_error=1:second_deadlock_stack=1:handle_segv=0 \
  "${no_aslr[@]}" ctest --test-dir build-tsan -L unit -E "$exclude_regex" --timeout 300 \
  --output-on-failure -j "$CUABI_JOBS"
