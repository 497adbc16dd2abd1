"""Owned handles: destroyed exactly once, by close(), the end of a `with` block, or the garbage
collector, whichever comes first."""

from __future__ import annotations

from typing import Any, List, Optional, TypeVar

from . import _library

H = TypeVar("H", bound="Handle")


class Handle:
    """Owns one cuabi handle. The handle's value sits in a one-element list that close() pops:
    list.pop is a single operation under the GIL, so of close() from two threads, a `with` block
    followed by collection, or interpreter exit, exactly one destroys the handle. The library keeps
    what each handle needs alive (a kernel its module, a module its context), so handles may be
    closed or collected in any order.

    After close() the handle's value is kept in _ptr: a later call passes it to cuabi, which answers
    CUABI_ERROR_INVALID_HANDLE (handles are generation-checked and never valid twice)."""

    __slots__ = ("_ptr", "_owned", "_keep")
    _destroy_name = ""

    def __init__(self, ptr: Any, keep: Optional[object] = None) -> None:
        self._ptr = ptr
        # Resolved now, not in __del__: the collector can run a finalizer while cffi holds its
        # (non-reentrant) type-parser lock, and resolving a function there parses its type and
        # deadlocked the thread (a Python GPU test hung so on the H100).
        getattr(_library.F, self._destroy_name)
        self._owned: List[Any] = [ptr]
        # Something the C handle points into (foreign memory's owner) lives until it is destroyed.
        self._keep = keep

    def close(self) -> None:
        """Destroys the handle now; harmless to repeat."""
        try:
            ptr = self._owned.pop()
        except IndexError:
            return
        if type(ptr) is int:  # made by the extension (a compile's fast path): destroyed through it
            # (the module itself: _library.native may be switched off after the handle was made)
            _library.extension.destroy(getattr(_library.A, self._destroy_name), ptr)
        else:
            getattr(_library.F, self._destroy_name)(ptr)
        self._keep = None

    def __del__(self) -> None:
        try:
            owned = self._owned
        except AttributeError:  # __init__ failed before setting it
            return
        if owned:
            self.close()

    @property
    def closed(self) -> bool:
        return not self._owned

    def __enter__(self: H) -> H:
        return self

    def __exit__(self, *exc: object) -> None:
        self.close()
