#!/bin/sh
# Refreshes the committed ABI baseline ON PURPOSE (docs/abi-policy.md): abi/cuabi.abi (abidw
# dump of the built library) and abi/layout.golden (struct layouts and constant values). Run it
# when a release adds functions, or when an intended change has been reviewed; then review
# `git diff abi/` and commit both files together with the change.
#
# usage: scripts/abi-baseline.sh [build-dir]     (default: build/; configured if missing)
# Needs abigail-tools (scripts/setup.sh installs it) and a build with debug info
# (CMAKE_BUILD_TYPE RelWithDebInfo, the default, or Debug), made with the project's usual
# toolchain (gcc on Linux x86-64), so that the committed files are the ones CI reproduces.
set -eu

root=$(cd "$(dirname "$0")/.." && pwd)
build=${1:-$root/build}

if [ ! -f "$build/CMakeCache.txt" ]; then
    cmake -S "$root" -B "$build" -DCMAKE_BUILD_TYPE=RelWithDebInfo
fi
cmake --build "$build" --target cuabi

library=$(ls "$build"/libcuabi.so.*.*.* 2>/dev/null | head -n 1)
if [ -z "$library" ]; then
    echo "abi-baseline: no libcuabi.so.X.Y.Z in $build" >&2
    exit 1
fi
cc=$(sed -n 's/^CMAKE_C_COMPILER:[A-Z]*=//p' "$build/CMakeCache.txt")

python3 "$root/abi/abi_check.py" dump --library "$library" --headers-dir "$root/include/cuabi" \
    --source-root "$root" --out "$root/abi/cuabi.abi"
python3 "$root/abi/layout.py" generate --header "$root/include/cuabi/cuabi.h" --cc "${cc:-cc}" \
    --out "$root/abi/layout.golden"
echo "abi-baseline: review with 'git diff abi/' and commit abi/cuabi.abi and abi/layout.golden"
