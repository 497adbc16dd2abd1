"""Loads the library under test: $CUABI_LIBRARY, else the repository's build/libcuabi.so.1.
GPU tests take the `context` fixture, which skips with cuabi's own reason where there is none.
$CUABI_PYTHON_EXTENSION_DIR names the build's extension (cuabi._native); when it is set, the
extension must import. Tests taking `launch_path` run once through it and once through the
pure-Python paths (the package without its extension)."""

from __future__ import annotations

import os
import sys
from pathlib import Path
from typing import Iterator

import pytest

PACKAGE = Path(__file__).resolve().parents[1]
ROOT = PACKAGE.parents[1]
sys.path.insert(0, str(PACKAGE))
os.environ.setdefault("CUABI_LIBRARY", str(ROOT / "build" / "libcuabi.so.1"))

import cuabi  # noqa: E402

if os.environ.get("CUABI_PYTHON_EXTENSION_DIR") and cuabi._library.native is None:
    raise RuntimeError(f"CUABI_PYTHON_EXTENSION_DIR={os.environ['CUABI_PYTHON_EXTENSION_DIR']} holds no importable "
                       "cuabi._native. Fix: build the target cuabi_python_native.")


@pytest.fixture(scope="session")
def gpu_context() -> Iterator[cuabi.Context]:
    try:
        context = cuabi.Context()
    except cuabi.DriverError as error:
        if os.environ.get("CUABI_PYTHON_REQUIRE_GPU") == "1":
            raise
        pytest.skip(f"no GPU: {error.name}: {error.message}")
    yield context
    context.close()


@pytest.fixture
def context(gpu_context: cuabi.Context) -> cuabi.Context:
    return gpu_context


@pytest.fixture(params=["native", "python"])
def launch_path(request: pytest.FixtureRequest, monkeypatch: pytest.MonkeyPatch) -> Iterator[str]:
    """"native": launches, batches, compiles and handle owners through the extension; "python":
    through the package's Python code and cffi."""
    if request.param == "native" and cuabi._library.native is None:
        pytest.skip("cuabi._native is not built (set CUABI_PYTHON_EXTENSION_DIR to <build>/python/cuabi)")
    if request.param == "native":
        yield "native"
        return
    monkeypatch.setattr(cuabi._library, "native", None)
    # Compile requests prepared before have the extension's form, those prepared during the test
    # have none: both forgotten.
    forget_requests = sys.modules["cuabi.compile"]._forget_requests
    forget_requests()
    yield "python"
    forget_requests()
