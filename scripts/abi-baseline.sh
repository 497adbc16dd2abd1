#!/bin/sh
# Refreshes the committed ABI baselines ON PURPOSE (docs/abi-policy.md): abi/layout.golden (struct
# layouts and constant values of the header now) and, with --release, the release's own pair under
# abi/baselines/ (cuabi-X.Y.abi, the abidw dump of the built library, and layout-X.Y.golden), which
# every later library is compared with and from which the ABI model takes each struct's released
# sizes. Run it when an intended change has been reviewed (layout.golden) or when a release is cut
# (--release); then review `git diff abi/` and commit the files together with the change.
#
# usage: scripts/abi-baseline.sh [--release] [build-dir]     (default: build/; configured if missing)
# Needs abigail-tools (scripts/setup.sh installs it) and a build with debug info
# (CMAKE_BUILD_TYPE RelWithDebInfo, the default, or Debug), made with the project's usual
# toolchain (gcc on Linux x86-64), so that the committed files are the ones CI reproduces.
set -eu

root=$(cd "$(dirname "$0")/.." && pwd)
release=0
if [ "${1:-}" = "--release" ]; then release=1; shift; fi
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

python3 "$root/abi/layout.py" generate --header "$root/include/cuabi/cuabi.h" --cc "${cc:-cc}" \
    --out "$root/abi/layout.golden"
if [ "$release" = 1 ]; then
    "$root/scripts/regenerate.sh"   # the model of the header being released
    version=$(python3 -c 'import json, sys; print(".".join(json.load(open(sys.argv[1]))["version"].split(".")[:2]))' \
        "$root/abi/cuabi_model.json")
    python3 "$root/abi/abi_check.py" dump --library "$library" --headers-dir "$root/include/cuabi" \
        --source-root "$root" --out "$root/abi/baselines/cuabi-$version.abi"
    cp "$root/abi/layout.golden" "$root/abi/baselines/layout-$version.golden"
    "$root/scripts/regenerate.sh"   # the model's released sizes now include this release
fi
echo "abi-baseline: review with 'git diff abi/' and commit what changed under abi/"
