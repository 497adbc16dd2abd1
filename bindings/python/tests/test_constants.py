"""Every integer constant the package exports has the value of its #define in the C header (read
here from include/cuabi/cuabi.h itself, not from the generated declarations the package uses)."""

from __future__ import annotations

import re
from typing import Dict

import pytest

import cuabi
from conftest import ROOT

HEADER = (ROOT / "include" / "cuabi" / "cuabi.h").read_text(encoding="utf-8")
DEFINES: Dict[str, int] = {name: int(value, 0) for name, value in
                           re.findall(r"^#define (CUABI_\w+) (-?(?:0x[0-9a-fA-F]+|\d+))u?\b", HEADER, re.MULTILINE)}
# The package's short names drop a family prefix the header spells out.
PREFIXES = ("CUABI_", "CUABI_MODULE_", "CUABI_GRAPH_", "CUABI_COMPILE_")


def header_name(name: str) -> str:
    found = [prefix + name for prefix in PREFIXES if prefix + name in DEFINES]
    assert len(found) == 1, f"cuabi.{name} matches {found or 'no'} #define of the header"
    return found[0]


EXPORTED = sorted(name for name in cuabi.__all__ if name.isupper() and type(getattr(cuabi, name)) is int)


def test_the_package_exports_the_header_families() -> None:
    assert {"LAUNCH_COOPERATIVE", "IMAGE_PTX", "ORIGIN_MEMORY_CACHE", "LINK_INPUT_PTX", "CAPTURE_MODE_RELAXED",
            "CONDITIONAL_WHILE", "NODE_CONDITIONAL", "LAUNCH_BATCH_MAX_ITEMS"} <= set(EXPORTED)


@pytest.mark.parametrize("name", EXPORTED)
def test_an_exported_constant_has_the_header_value(name: str) -> None:
    assert getattr(cuabi, name) == DEFINES[header_name(name)]


def test_a_wrong_value_is_caught(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setattr(cuabi, "IMAGE_CUBIN", cuabi.IMAGE_CUBIN + 1)
    with pytest.raises(AssertionError):
        test_an_exported_constant_has_the_header_value("IMAGE_CUBIN")
