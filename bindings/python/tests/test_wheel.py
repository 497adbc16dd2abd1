"""The built wheel, installed into a fresh virtual environment with nothing but its dependency
(cffi), works on its own: it loads the libcuabi.so.1 it carries, which finds the compile worker it
carries, and compiles offline, with its extension (cuabi._native, one abi3 build for every
CPython >= 3.9) imported. Runs on the wheel that CUABI_PYTHON_WHEEL names, with cffi's wheels
from CUABI_PYTHON_WHEELHOUSE (scripts/test.d/65-python.sh builds both)."""

from __future__ import annotations

import os
import subprocess
import sys
import zipfile
from pathlib import Path

import pytest

WHEEL = os.environ.get("CUABI_PYTHON_WHEEL", "")
WHEELHOUSE = os.environ.get("CUABI_PYTHON_WHEELHOUSE", "")

pytestmark = pytest.mark.skipif(not WHEEL, reason="no wheel to test: set CUABI_PYTHON_WHEEL "
                                "(scripts/test.d/65-python.sh builds one)")

CHECK = r"""
import os, sys, cuabi, cuabi._native
from pathlib import Path
package = Path(cuabi.__file__).parent
assert cuabi._library.native is cuabi._native and Path(cuabi._native.__file__).parent == package
assert cuabi._library.lib().path == str(package / "lib" / "libcuabi.so.1"), cuabi._library.lib().path
module = cuabi.compile('extern "C" __global__ void k(float* p) { *p = 1.0f; }', target="sm_90",
                       no_cache=True)
info = module.info()
assert info.image_kind == cuabi.IMAGE_CUBIN and info.image_size > 0 and info.origin == cuabi.ORIGIN_COMPILED
try:
    cuabi.compile("__global__ void broken( { }", target="sm_90")
except cuabi.CompileError as error:
    assert error.compile_log and "Fix:" in error.message
print("wheel ok", cuabi.version_number(), cuabi.nvrtc_path())
"""


def test_the_wheel_carries_the_library_and_worker_and_nothing_for_c_users() -> None:
    names = zipfile.ZipFile(WHEEL).namelist()
    assert "cuabi/lib/libcuabi.so.1" in names
    assert "cuabi/lib/cuabi/cuabi-compile-worker" in names
    assert "cuabi/_cdef.h" in names and "cuabi/py.typed" in names
    assert not [n for n in names if n.startswith(("cuabi/include/", "cuabi/bin/", "cuabi/lib/cmake/"))]
    assert not [n for n in names if n.startswith("cuabi/lib/libcuabi.so.1.") or n == "cuabi/lib/libcuabi.so"]
    assert "cuabi/_native.abi3.so" in names
    assert "manylinux" in Path(WHEEL).name and "-cp39-abi3-" in Path(WHEEL).name


def test_a_fresh_venv_installs_imports_and_compiles_offline(tmp_path: Path) -> None:
    venv = tmp_path / "venv"
    subprocess.run([sys.executable, "-m", "venv", str(venv)], check=True, timeout=120)
    python = venv / "bin" / "python"
    install = [str(python), "-m", "pip", "install", "--quiet", "--no-index", "--find-links", WHEELHOUSE, WHEEL]
    subprocess.run(install, check=True, timeout=300)
    env = {k: v for k, v in os.environ.items() if not k.startswith(("CUABI_", "PYTHON", "VIRTUAL_ENV"))}
    env["CUABI_CACHE_DIR"] = str(tmp_path / "cache")
    result = subprocess.run([str(python), "-c", CHECK], cwd=tmp_path, env=env, capture_output=True, text=True,
                            timeout=300)
    assert result.returncode == 0, result.stdout + result.stderr
    assert "wheel ok" in result.stdout
    site = Path(subprocess.run([str(python), "-c", "import cuabi; print(cuabi.__file__)"], cwd=tmp_path, env=env,
                               capture_output=True, text=True, check=True).stdout.strip()).parent
    worker = site / "lib" / "cuabi" / "cuabi-compile-worker"
    assert os.access(worker, os.X_OK)
    ldd = subprocess.run(["ldd", str(site / "lib" / "libcuabi.so.1")], capture_output=True, text=True, check=True)
    needed = [line.split()[0] for line in ldd.stdout.splitlines() if line.strip()]
    for name in needed:
        assert not name.startswith(("libcuda", "libnvrtc", "libcudart")), ldd.stdout
    assert "not found" not in ldd.stdout
    # The extension takes libcuabi's functions from the package and the interpreter's symbols from
    # the process: it links neither.
    ldd = subprocess.run(["ldd", str(site / "_native.abi3.so")], capture_output=True, text=True, check=True)
    assert "libcuabi" not in ldd.stdout and "libpython" not in ldd.stdout, ldd.stdout
