#!/usr/bin/env bash
# Regenerates every file generated from include/cuabi/cuabi.h through the ABI model, in order:
# first the model (abi/cuabi_model.json, read from the header with libclang), then each file
# generated from it. Commit the results with the header change.
#
#   scripts/regenerate.sh            rewrite the files
#   scripts/regenerate.sh --check    rewrite nothing; exit 1 naming each stale file (and any
#                                    problem the model's checks find in the header)
#
# To add a generated file: one line in GENERATED below, "path|command", where the command writes
# the file's complete text to standard output, reading the model (abi/cuabi_model.json).
set -euo pipefail
root=$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)
cd "$root"
py=${PYTHON:-python3}

GENERATED=(
  "src/api/abi_structs.inc|$py abi/generate.py abi-structs"
  "docs/api.md|$py abi/generate.py api-index"
  "bindings/go/zcalls.h|bash scripts/binding-file.sh bindings/go/zcalls.h"
  "bindings/go/zcalls.c|bash scripts/binding-file.sh bindings/go/zcalls.c"
  "bindings/go/zstatus.go|bash scripts/binding-file.sh bindings/go/zstatus.go"
  "bindings/go/zconstants.go|bash scripts/binding-file.sh bindings/go/zconstants.go"
  "bindings/rust/cuabi-sys/src/bindings.rs|bash scripts/binding-file.sh bindings/rust/cuabi-sys/src/bindings.rs"
  "bindings/zig/src/types.zig|bash scripts/binding-file.sh bindings/zig/src/types.zig"
  "bindings/python/cuabi/_cdef.h|bash bindings/python/tools/generate_cdef.sh --stdout"
)
# Checks of generated output that is not committed (run in both modes).
VERIFIED=(
  "$py abi/generate.py cffi-check"
)

check=0
case "${1:-}" in
  --check) check=1 ;;
  "") ;;
  *) echo "usage: scripts/regenerate.sh [--check]" >&2; exit 2 ;;
esac

tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT
stale=()

# The model first: everything else reads it.
status=0
"$py" abi/model.py generate --out "$tmp/cuabi_model.json" >"$tmp/model.log" || status=$?
if ((status)); then
  cat "$tmp/model.log"
  ((status == 77)) && exit 77  # libclang missing and CUABI_ABI_TOOLS_OPTIONAL=1: a skip
  echo "regenerate: the header's annotations have problems (above). Fix them in include/cuabi/cuabi.h" >&2
  exit 1
fi
if ! cmp -s "$tmp/cuabi_model.json" abi/cuabi_model.json; then
  stale+=(abi/cuabi_model.json)
  ((check)) || cp "$tmp/cuabi_model.json" abi/cuabi_model.json
fi
# In --check mode the generated files are compared with what the CURRENT header's model gives.
model_for_generators=abi/cuabi_model.json
((check)) && model_for_generators="$tmp/cuabi_model.json"

for entry in "${GENERATED[@]}"; do
  path=${entry%%|*}
  command=${entry#*|}
  out="$tmp/$(echo "$path" | tr / _)"
  if ! CUABI_MODEL="$model_for_generators" bash -c "$command --model \"\$CUABI_MODEL\"" >"$out"; then
    echo "regenerate: '$command' failed for $path" >&2
    exit 1
  fi
  if ! cmp -s "$out" "$path"; then
    stale+=("$path")
    ((check)) || cp "$out" "$path"
  fi
done

failed=0
for command in "${VERIFIED[@]}"; do
  CUABI_MODEL="$model_for_generators" bash -c "$command --model \"\$CUABI_MODEL\"" || failed=1
done

if ((check)); then
  if ((${#stale[@]})); then
    for path in "${stale[@]}"; do
      echo "FAIL: $path is stale: it differs from what include/cuabi/cuabi.h generates. Fix: scripts/regenerate.sh and commit the result"
    done
    exit 1
  fi
  ((failed)) && exit 1
  echo "PASS: abi/cuabi_model.json and ${#GENERATED[@]} generated files are current"
  exit 0
fi
((failed)) && exit 1
if ((${#stale[@]})); then
  printf 'regenerate: rewrote %s\n' "${stale[@]}"
else
  echo "regenerate: every generated file was current"
fi
