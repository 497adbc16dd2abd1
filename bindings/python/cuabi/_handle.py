"""Owned handles: destroyed exactly once, by close(), the end of a `with` block, or the garbage
collector, whichever comes first."""

from __future__ import annotations

import weakref
from typing import Any, Optional, TypeVar

from . import _library

H = TypeVar("H", bound="Handle")


class Handle:
    """Owns one cuabi handle. weakref.finalize runs its destroy at most once, so close() twice, a
    `with` block followed by collection, or interpreter exit never destroys a handle twice. The
    library keeps what each handle needs alive (a kernel its module, a module its context), so
    handles may be closed or collected in any order.

    After close() the handle's value is kept: a later call passes it to cuabi, which answers
    CUABI_ERROR_INVALID_HANDLE (handles are generation-checked and never valid twice)."""

    __slots__ = ("_ptr", "_finalizer", "__weakref__")
    _destroy_name = ""

    def __init__(self, ptr: Any, keep: Optional[object] = None) -> None:
        self._ptr = ptr
        destroy = _library.function(self._destroy_name)
        # `keep` (something the C handle points into, e.g. foreign memory's owner) lives until the
        # handle is destroyed.
        self._finalizer = weakref.finalize(self, _destroy, destroy, ptr, keep)

    def close(self) -> None:
        """Destroys the handle now; harmless to repeat."""
        self._finalizer()

    @property
    def closed(self) -> bool:
        return not self._finalizer.alive

    def __enter__(self: H) -> H:
        return self

    def __exit__(self, *exc: object) -> None:
        self.close()


def _destroy(destroy: Any, ptr: Any, keep: Optional[object]) -> None:
    destroy(ptr)
    del keep
