"""Options and info structs, filled with defaults by the library's own _init functions (the
CUABI_*_INIT macros are C only), and two-call strings."""

from __future__ import annotations

from typing import Any, Callable, List, Optional

from . import _library
from .errors import INVALID_ARGUMENT, binding_error, check

ffi = _library.ffi


def new(struct: str) -> Any:
    """A fresh `struct` (e.g. "cuabi_stream_options") with struct_size and defaults set."""
    value = ffi.new(struct + "*")
    check(getattr(_library.F, struct + "_init")(ffi.sizeof(struct), value))
    return value


def text(call: Callable[..., int], *args: Any) -> str:
    """A string from a two-call function (`call(*args, buf, capacity, out_size)`): asks for the size,
    then reads it."""
    size = ffi.new("size_t*")
    check(call(*args, ffi.NULL, 0, size))
    buffer = ffi.new("char[]", max(size[0], 1))
    check(call(*args, buffer, size[0], size))
    return ffi.string(buffer).decode("utf-8", "replace")  # type: ignore[no-any-return]


def chars(field: Any) -> str:
    """A char[N] field of a struct as text."""
    return ffi.string(field).decode("utf-8", "replace")  # type: ignore[no-any-return]


def c_string(text: Optional[str], keep: List[Any], what: str) -> Any:
    """`text` as a C string that lives as long as `keep` (NULL for None). A NUL inside would cut
    it short in C, so it is refused, naming `what` ("a compile input")."""
    if text is None:
        return ffi.NULL
    if "\0" in text:
        raise binding_error(INVALID_ARGUMENT, f"{what} holds a NUL character: {text[:60]!r}. "
                            "Fix: remove it (C strings end at the first NUL).")
    value = ffi.new("char[]", text.encode())
    keep.append(value)
    return value
