"""Loading: the path, checks of what was loaded, and functions the library lacks."""

from __future__ import annotations

import ctypes.util
import os
import subprocess
import sys
from pathlib import Path

import pytest

import cuabi
from cuabi import _library, errors

PACKAGE = Path(__file__).resolve().parents[1]


def test_a_missing_function_is_reported_when_called_naming_it() -> None:
    missing = _library.lib().fn("cuabi_function_of_a_later_release")
    with pytest.raises(cuabi.GeneralError) as raised:
        missing(1, 2)
    assert raised.value.status == errors.UNSUPPORTED
    assert "cuabi_function_of_a_later_release" in raised.value.message and "Fix:" in raised.value.message


def test_a_missing_file_is_a_load_error_with_a_fix() -> None:
    with pytest.raises(cuabi.LoadError, match="Fix:"):
        _library.Library("/nonexistent/libcuabi.so.1")


def test_a_library_that_is_not_cuabi_is_refused() -> None:
    libc = ctypes.util.find_library("c")
    assert libc is not None
    with pytest.raises(cuabi.LoadError, match="not libcuabi"):
        _library.Library(libc)


def test_a_second_path_after_loading_is_refused() -> None:
    cuabi.version_number()
    with pytest.raises(cuabi.LoadError, match="already loaded"):
        cuabi.load("/elsewhere/libcuabi.so.1")


def test_cuabi_library_names_the_file() -> None:
    code = "import cuabi; print(cuabi.version_number())"
    env = dict(os.environ, CUABI_LIBRARY="/nonexistent/libcuabi.so.1", PYTHONPATH=str(PACKAGE))
    result = subprocess.run([sys.executable, "-c", code], env=env, capture_output=True, text=True, timeout=60)
    assert result.returncode != 0 and "/nonexistent/libcuabi.so.1" in result.stderr


def test_the_generated_declarations_are_fresh() -> None:
    script = PACKAGE / "tools" / "generate_cdef.sh"
    result = subprocess.run(["bash", str(script), "--check"], capture_output=True, text=True, timeout=60)
    assert result.returncode == 0, result.stdout + result.stderr


def test_the_freshness_check_catches_a_stale_file(tmp_path: Path) -> None:
    stale = tmp_path / "_cdef.h"
    text = (PACKAGE / "cuabi" / "_cdef.h").read_text()
    stale.write_text(text.replace("cuabi_status cuabi_launch_packed(", "cuabi_status cuabi_launch_packed_old("))
    script = PACKAGE / "tools" / "generate_cdef.sh"
    result = subprocess.run(["bash", str(script), "--check", str(stale)], capture_output=True, text=True, timeout=60)
    assert result.returncode == 1 and "stale" in result.stderr
