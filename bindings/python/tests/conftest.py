"""Loads the library under test: $CUABI_LIBRARY, else the repository's build/libcuabi.so.1.
GPU tests take the `context` fixture, which skips with cuabi's own reason where there is none."""

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
