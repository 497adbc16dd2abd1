"""Owned handles: destroyed exactly once, by close(), the end of a `with` block, or the garbage
collector, whichever comes first."""

from __future__ import annotations

from typing import Any, List, Optional, TypeVar

from . import _library

H = TypeVar("H", bound="Handle")


class PythonOwner:
    """The owner cell where the extension is not built (it has the same interface as
    cuabi._native.Owner, which the package uses otherwise). The handle sits in a one-element list
    that close() pops: list.pop is a single operation under the GIL, so of close() from two
    threads, a `with` block followed by collection, or interpreter exit, exactly one destroys it."""

    __slots__ = ("_destroy", "_owned", "_keep")

    def __init__(self, destroy: Any, handle: Any, keep: Optional[object]) -> None:
        self._destroy = destroy
        self._owned: List[Any] = [handle]
        self._keep = keep

    def close(self) -> None:
        try:
            handle = self._owned.pop()
        except IndexError:
            return
        self._destroy(handle)
        self._keep = None

    def forget(self) -> None:
        self._owned.clear()
        self._keep = None

    def __bool__(self) -> bool:
        return bool(self._owned)

    def __del__(self) -> None:
        try:
            owned = self._owned
        except AttributeError:  # __init__ failed before setting it
            return
        if owned:
            self.close()


def owner(destroy_name: str, ptr: Any, keep: Optional[object] = None, address: Optional[int] = None) -> Any:
    """A cell owning `ptr` (a cffi pointer; `address` its value where the caller has it, since
    converting costs a few hundred ns), destroyed once through `destroy_name`; `keep` lives until
    then. The extension's cell destroys in C when it is collected, running no Python
    code; both resolve the function now, not when collected: the collector can run a finalizer
    while cffi holds its (non-reentrant) type-parser lock, and resolving a function there parses
    its type and deadlocked the thread (a Python GPU test hung so on the H100)."""
    native = _library.native
    if native is None:
        return PythonOwner(getattr(_library.F, destroy_name), ptr, keep)
    return native.Owner(getattr(_library.A, destroy_name), _library.address_of(ptr) if address is None else address,
                        _library.returns_status(destroy_name), keep)


class Handle:
    """Owns one cuabi handle through an owner cell (`_owner`: see owner()). The library keeps what
    each handle needs alive (a kernel its module, a module its context), so handles may be closed
    or collected in any order.

    After close() the handle's value is kept in _ptr: a later call passes it to cuabi, which answers
    CUABI_ERROR_INVALID_HANDLE (handles are generation-checked and never valid twice)."""

    __slots__ = ("_ptr", "_owner")
    _destroy_name = ""

    def __init__(self, ptr: Any, keep: Optional[object] = None, address: Optional[int] = None) -> None:
        self._ptr = ptr
        # Something the C handle points into (foreign memory's owner) lives until it is destroyed.
        self._owner = owner(self._destroy_name, ptr, keep, address)

    def close(self) -> None:
        """Destroys the handle now; harmless to repeat."""
        self._owner.close()

    @property
    def closed(self) -> bool:
        return not self._owner

    def __enter__(self: H) -> H:
        return self

    def __exit__(self, *exc: object) -> None:
        self._owner.close()
