"""Nsight (NVTX) ranges as context managers, and cuabi's catalog of its own range names."""

from __future__ import annotations

import builtins
from types import TracebackType
from typing import List, Optional, Tuple, Type

from . import _library
from ._handle import Handle
from .errors import check

ffi = _library.ffi


def push(name: str, domain: Optional[str] = None) -> None:
    """Opens a range on this thread; pop() on the same thread closes it."""
    check(_library.F.cuabi_range_push(name.encode(), ffi.NULL if domain is None else domain.encode()))


def pop() -> None:
    """Closes this thread's innermost range (RangeError when none is open)."""
    check(_library.F.cuabi_range_pop())


class range:  # noqa: N801 -- used as `with cuabi.range("step"):`
    """`with cuabi.range("name"):` pushes a range on entry and pops it on exit (same thread)."""

    def __init__(self, name: str, domain: Optional[str] = None) -> None:
        self.name, self.domain = name, domain

    def __enter__(self) -> "range":
        push(self.name, self.domain)
        return self

    def __exit__(self, kind: Optional[Type[BaseException]], value: Optional[BaseException],
                 trace: Optional[TracebackType]) -> None:
        pop()


class Range(Handle):
    """A started range that any thread may end (end() or close(); a second end does nothing)."""

    __slots__ = ()
    _destroy_name = "cuabi_range_end"

    def __init__(self, name: str, domain: Optional[str] = None) -> None:
        out = ffi.new("cuabi_range**")
        check(_library.F.cuabi_range_start(name.encode(), ffi.NULL if domain is None else domain.encode(),
                                                      out))
        super().__init__(out[0])

    def end(self) -> None:
        self.close()


def start(name: str, domain: Optional[str] = None) -> Range:
    return Range(name, domain)


def catalog() -> List[Tuple[str, str]]:
    """(name, description) of every range cuabi itself marks."""
    count = ffi.new("size_t*")
    check(_library.F.cuabi_range_get_catalog_count(count))
    name, description = ffi.new("const char**"), ffi.new("const char**")
    entries = []
    for index in builtins.range(count[0]):  # `range` here is the context manager below
        check(_library.F.cuabi_range_get_catalog_entry(index, name, description))
        entries.append((ffi.string(name[0]).decode(), ffi.string(description[0]).decode()))
    return entries

