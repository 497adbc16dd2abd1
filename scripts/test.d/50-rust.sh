#!/usr/bin/env bash
# The Rust binding (bindings/rust): tests offline (unit, integration and doc tests; GPU tests skip
# with the driver's reason), rustfmt, clippy and rustdoc without warnings, then the binaries a GPU machine
# without a Rust toolchain can run, built once here:
#   $CUABI_BUILD_DIR/rust/bin/      cuabi-tests-gpu, cuabi-tests-cpu (cargo test executables),
#                                   conformance, launch_overhead, saxpy, graph, pinned
#   $CUABI_BUILD_DIR/conformance/bin/rust   the conformance scenario, for scripts/conformance.sh
# Run each with CUABI_LIBRARY=$CUABI_BUILD_DIR/libcuabi.so.1 (bindings/rust/README.md, "On a GPU").
set -euo pipefail
cd "$CUABI_ROOT/bindings/rust"
command -v cargo >/dev/null || { echo "50-rust: cargo not found. Fix: run scripts/setup.sh (Debian package cargo)" >&2; exit 1; }
export CUABI_LIBRARY="$CUABI_BUILD_DIR/libcuabi.so.1"
export CARGO_TARGET_DIR="$CUABI_BUILD_DIR/rust/target"
jobs=(-j "$CUABI_JOBS")

cargo test --offline "${jobs[@]}" --workspace
if cargo fmt --version >/dev/null 2>&1; then
  cargo fmt --all --check
fi
if cargo clippy --version >/dev/null 2>&1; then
  cargo clippy --offline "${jobs[@]}" --workspace --all-targets -- -D warnings
else
  echo "50-rust: clippy not installed; skipping the lint (rustup component add clippy)"
fi
RUSTDOCFLAGS="-D warnings" cargo doc --offline "${jobs[@]}" --workspace --no-deps

# Release builds of what runs on a GPU machine, copied under stable names.
bin="$CUABI_BUILD_DIR/rust/bin"
mkdir -p "$bin" "$CUABI_BUILD_DIR/conformance/bin"
cargo build --offline "${jobs[@]}" --release -p cuabi --examples
for example in conformance launch_overhead saxpy graph pinned; do
  cp "$CARGO_TARGET_DIR/release/examples/$example" "$bin/$example"
done
cargo test --offline "${jobs[@]}" --release -p cuabi --test gpu --test cpu --no-run --message-format=json \
  | python3 -c '
import json, shutil, sys
for line in sys.stdin:
    message = json.loads(line)
    if message.get("reason") == "compiler-artifact" and message.get("executable") and "test" in message["target"]["kind"]:
        shutil.copy(message["executable"], sys.argv[1] + "/cuabi-tests-" + message["target"]["name"])
' "$bin"
cp "$bin/conformance" "$CUABI_BUILD_DIR/conformance/bin/rust"
ls -l "$bin"
