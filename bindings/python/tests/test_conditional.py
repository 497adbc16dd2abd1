"""Conditional graph nodes without a GPU: a node whose type or body count no driver runs is refused
before cuabi looks at the stream, so a NULL stream shows it; a bad stream is refused as a handle."""

from __future__ import annotations

from types import SimpleNamespace

import pytest

import cuabi
from cuabi import _library, errors
from cuabi.graph import Capture, Conditional


@pytest.fixture
def no_stream() -> SimpleNamespace:
    return SimpleNamespace(_ptr=_library.ffi.NULL)


@pytest.mark.parametrize("kind, bodies, said", [
    (0, 1, "conditional type 0 is not"),
    (4, 1, "conditional type 4 is not"),
    (cuabi.CONDITIONAL_WHILE, 2, "a while node cannot have 2 bodies"),
    (cuabi.CONDITIONAL_IF, 3, "an if node cannot have 3 bodies"),
    (cuabi.CONDITIONAL_SWITCH, 0, "a switch node cannot have 0 bodies"),
])
def test_a_shape_no_driver_runs_is_refused_first(no_stream: SimpleNamespace, kind: int, bodies: int,
                                                 said: str) -> None:
    with pytest.raises(cuabi.CuabiError) as raised:
        with Conditional(no_stream, 1, kind, bodies):
            pytest.fail("the block ran although the node was refused")
    assert raised.value.status == errors.INVALID_ARGUMENT
    assert said in raised.value.message and "Fix:" in raised.value.message


def test_a_missing_stream_is_refused_as_a_handle(no_stream: SimpleNamespace) -> None:
    capture = Capture(no_stream)
    for call in (lambda: capture.condition(1), lambda: Conditional(no_stream, 1, cuabi.CONDITIONAL_WHILE, 1).__enter__(),
                 lambda: Conditional(no_stream, 1, cuabi.CONDITIONAL_IF, 2).next_body()):
        with pytest.raises(cuabi.CuabiError) as raised:
            call()
        assert raised.value.status == errors.INVALID_HANDLE
