#!/usr/bin/env bash
# Writes one generated file of the bindings to standard output, made from the ABI model: the
# command scripts/regenerate.sh runs for each of them (its GENERATED list).
#
#   scripts/binding-file.sh PATH [--model MODEL]
#
#   bindings/go/zcalls.h, zcalls.c, zstatus.go, zconstants.go   bindings/go/internal/gen
#   bindings/rust/cuabi-sys/src/bindings.rs                     scripts/bindgen.sh (bindgen + model)
#   bindings/zig/src/types.zig                                  bindings/zig/tools/constants_from_model.py
#
# MODEL defaults to abi/cuabi_model.json; a relative path is taken from the repository root.
set -euo pipefail
root=$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)
usage="usage: scripts/binding-file.sh PATH [--model MODEL]"
path=${1:?$usage}
model=abi/cuabi_model.json
if [[ $# -gt 1 ]]; then
  [[ $# -eq 3 && "$2" == --model ]] || { echo "$usage" >&2; exit 2; }
  model=$3
fi
[[ "$model" == /* ]] || model="$root/$model"
[[ -f "$model" ]] || { echo "binding-file.sh: no ABI model at $model. Fix: run scripts/regenerate.sh" >&2; exit 1; }

case "$path" in
  bindings/go/zcalls.h | bindings/go/zcalls.c | bindings/go/zstatus.go | bindings/go/zconstants.go)
    cd "$root/bindings/go" && exec go run ./internal/gen -model "$model" -print "${path#bindings/go/}" ;;
  bindings/rust/cuabi-sys/src/bindings.rs)
    # From the repository root: bindgen formats with the rustfmt.toml it finds from there.
    cd "$root" && exec bash scripts/bindgen.sh include/cuabi/cuabi.h "$model" ;;
  bindings/zig/src/types.zig)
    exec python3 "$root/bindings/zig/tools/constants_from_model.py" --stdout "$model" "$root/$path" ;;
  *)
    echo "binding-file.sh: $path is no generated binding file. Fix: name one this script lists" >&2
    exit 2 ;;
esac
