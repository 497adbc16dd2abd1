#!/usr/bin/env bash
# Runs the conformance scenario (tests/conformance/README.md) in every language that is built and
# diffs each transcript against the C reference's, line for line.
#
#   scripts/conformance.sh [BUILD_DIR]          (default: $CUABI_BUILD_DIR, else build/)
#
# Implementations are the executables in BUILD_DIR/conformance/bin/, named for their language:
# c (the CMake target cuabi_conformance_c), rust, go, zig (placed there by scripts/test.d parts).
# Each runs with CUABI_LIBRARY set to BUILD_DIR's libcuabi.so.1; its transcript goes to
# BUILD_DIR/conformance/transcripts/<lang>.txt, its stderr to <lang>.err.
#
# Prints one line per implementation and a closing "N passed, M failed". Exits 1 when a transcript
# differs from c.txt (the diff is printed), when the C transcript has a FAIL line or no closing
# summary, when an implementation exits non-zero, or when a language named in
# CUABI_CONFORMANCE_REQUIRE (space-separated; default "c") has no binary.
set -uo pipefail
root="$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)"
build="$(cd "${1:-${CUABI_BUILD_DIR:-$root/build}}" 2>/dev/null && pwd)" \
  || { echo "conformance: no build directory ${1:-${CUABI_BUILD_DIR:-$root/build}}. Fix: build first (scripts/test.d/10-build.sh)" >&2; exit 1; }
bin="$build/conformance/bin"
transcripts="$build/conformance/transcripts"
library="$build/libcuabi.so.1"
require="${CUABI_CONFORMANCE_REQUIRE:-c}"
limit="${CUABI_CONFORMANCE_TIMEOUT:-600}"

[[ -f "$library" ]] || { echo "conformance: no $library. Fix: build the library (cmake --build $build)" >&2; exit 1; }
export CUABI_LIBRARY="$library"
export LD_LIBRARY_PATH="$build${LD_LIBRARY_PATH:+:$LD_LIBRARY_PATH}"
mkdir -p "$transcripts"
rm -f "$transcripts"/*.txt "$transcripts"/*.err "$transcripts"/*.diff

passed=0
failed=0
report() { printf '%-6s %s\n' "$1" "$2"; }

# Runs one implementation; leaves its transcript and returns its exit status.
run() {
  local lang="$1"
  timeout "$limit" "$bin/$lang" >"$transcripts/$lang.txt" 2>"$transcripts/$lang.err"
}

# The languages to run: c first, then every other executable in bin/, then the required ones
# missing from it (reported as such).
langs=(c)
for exe in "$bin"/*; do
  name="$(basename "$exe")"
  [[ -f "$exe" && -x "$exe" && "$name" != c ]] && langs+=("$name")
done
for lang in $require; do
  [[ " ${langs[*]} " == *" $lang "* ]] || langs+=("$lang")
done

reference_ok=0
for lang in "${langs[@]}"; do
  if [[ ! -x "$bin/$lang" ]]; then
    if [[ " $require " == *" $lang "* ]]; then
      report "$lang" "MISSING: no $bin/$lang (required by CUABI_CONFORMANCE_REQUIRE)"
      failed=$((failed + 1))
    fi
    continue
  fi
  run "$lang"
  status=$?
  transcript="$transcripts/$lang.txt"
  summary="$(tail -n 1 "$transcript")"
  if [[ "$lang" == c ]]; then
    if ((status != 0)) || grep -q '^FAIL ' "$transcript" \
       || ! [[ "$summary" =~ ^[0-9]+\ passed,\ [0-9]+\ failed,\ [0-9]+\ skipped$ ]]; then
      report c "FAIL (exit $status): the reference itself did not pass"
      grep '^FAIL ' "$transcript"
      cat "$transcripts/c.err"
      failed=$((failed + 1))
    else
      report c "ok    $summary (reference)"
      passed=$((passed + 1))
      reference_ok=1
    fi
  elif ((reference_ok == 0)); then
    report "$lang" "FAIL: no passing C transcript to compare with"
    failed=$((failed + 1))
  elif ! diff -u --label c.txt --label "$lang.txt" "$transcripts/c.txt" "$transcript" >"$transcripts/$lang.diff"; then
    report "$lang" "FAIL (exit $status): the transcript differs from c.txt"
    cat "$transcripts/$lang.diff"
    cat "$transcripts/$lang.err"
    failed=$((failed + 1))
  elif ((status != 0)); then
    report "$lang" "FAIL (exit $status): same transcript, but a non-zero exit"
    cat "$transcripts/$lang.err"
    failed=$((failed + 1))
  else
    report "$lang" "ok    identical to c.txt"
    passed=$((passed + 1))
  fi
done

echo "$passed passed, $failed failed"
((failed == 0))
