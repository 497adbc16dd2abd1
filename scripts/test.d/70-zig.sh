#!/usr/bin/env bash
# The Zig package (bindings/zig): `zig build test` against the library just built, and the
# binaries a GPU machine runs without a Zig toolchain, built for baseline x86-64 / glibc, without
# debug information (10 MB together), into $CUABI_BUILD_DIR/zig/bin/:
#   cuabi-tests            the unit tests (GPU tests skip, saying why, without a GPU)
#   cuabi-conformance      the conformance scenario, also copied to conformance/bin/zig for the runner
#   cuabi-bench-overhead   Kernel.launch against cuabi_launch through its function pointer (GPU only)
# Without a GPU the tests print cuabi's reason once on stderr ("note: the GPU tests skip ...").
# `zig build` shows any stderr of a step, and in its default (verbose) error style follows it with
# a "failed command:" line even when every test passed; --error-style minimal leaves that line out
# and keeps everything else a real failure prints (the failing step, its stderr, the error return
# traces) and the non-zero exit. --summary line ends with the verdict: steps and tests passed,
# skipped and failed.
# Zig keeps its work in $CUABI_BUILD_DIR/zig/cache and its global cache (compiler_rt, libc stubs)
# in ~/.cache/zig. The header's translation is committed (bindings/zig/src/c.zig), so this builds
# no translate-C tool.
set -euo pipefail
pinned=0.17.1 # as scripts/setup.sh installs it and build.zig.zon's minimum_zig_version
zig=(python3 -m ziglang)
if ! version="$("${zig[@]}" version 2>/dev/null)"; then
  echo "70-zig: Zig is not installed. Fix: pip install ziglang==$pinned (scripts/setup.sh does it)." >&2
  exit 1
fi
if [[ "$version" != "$pinned" ]]; then
  echo "70-zig: Zig $version is installed; the package is pinned to $pinned. Fix: pip install ziglang==$pinned." >&2
  exit 1
fi

out="$CUABI_BUILD_DIR/zig"
cd "$CUABI_ROOT/bindings/zig"
"${zig[@]}" build test install -j"$CUABI_JOBS" --error-style minimal --summary line --prefix "$out" --cache-dir "$out/cache" \
  -Dtarget=x86_64-linux-gnu -Dcpu=baseline -Dstrip -Dlibrary="$CUABI_BUILD_DIR/libcuabi.so.1"
mkdir -p "$CUABI_BUILD_DIR/conformance/bin"
cp "$out/bin/cuabi-conformance" "$CUABI_BUILD_DIR/conformance/bin/zig"
echo "70-zig: tests passed; GPU binaries in $out/bin (cuabi-tests, cuabi-conformance, cuabi-bench-overhead)"
