#!/usr/bin/env bash
# The unit suite again, built with AddressSanitizer + UBSan.
set -euo pipefail
cd "$CUABI_ROOT"
bash scripts/asan-build.sh cuabi_unit_tests
# intercept_tls_get_addr=0: NVRTC, loaded with dlopen, keeps dynamic TLS that GCC 12's sanitizer
# runtime mis-tracks under glibc 2.36 (a DTLS block at address 0x13c8 spanning 32 MiB); the leak
# checker's tracer then faults at exit ("Tracer caught signal 11") after the test passed. Without
# the interception, dynamic TLS is simply not scanned: leaks are still reported, none are hidden
# beyond what DTLS alone would reference.
ASAN_OPTIONS=detect_leaks=1:abort_on_error=1:intercept_tls_get_addr=0 UBSAN_OPTIONS=print_stacktrace=1:halt_on_error=1 \
  ctest --test-dir build-asan -L unit --output-on-failure -j "$CUABI_JOBS"
