"""Loading libcuabi.so.1 and resolving its functions.

The declarations come from _cdef.h, generated from the C header (tools/generate_cdef.sh); cffi
reads them in ABI mode, so nothing is compiled at install time. Only cuabi_get_proc_address is
looked up with dlsym; every other function is resolved through it and cast to its PFN_ type, so
a function the loaded library lacks (added in a later 1.x) is reported when called, naming it,
rather than failing the import.
"""

from __future__ import annotations

import functools
import os
import re
import threading
from pathlib import Path
from typing import Any, Callable, Optional

import cffi  # type: ignore[import-untyped]  # cffi ships no type hints: its objects are Any here

try:
    from . import _native
except ImportError:  # a source checkout without a build: everything goes through cffi
    _native = None  # type: ignore[assignment]
# The extension the package uses (launches, batches, the compile hit and the handles' owner cells
# in C); the tests set None to run the pure-Python paths. A handle made through it keeps its
# extension-made owner cell either way.
native = _native

_CDEF = (Path(__file__).with_name("_cdef.h")).read_text(encoding="utf-8")
ffi: Any = cffi.FFI()
ffi.cdef(_CDEF)
# The header's integer constants by name, as the generated declarations spell them (cffi in ABI
# mode gives them only through an opened library), so the package copies none of their values.
CONSTANTS = {name: int(value, 0) for name, value in
             re.findall(r"^#define (CUABI_\w+) (-?(?:0x[0-9a-fA-F]+|\d+))u?$", _CDEF, re.MULTILINE)}

_PACKAGE_LIBRARY = Path(__file__).with_name("lib") / "libcuabi.so.1"
ABI_MAJOR = 1


class LoadError(OSError):
    """The library could not be opened, or is not an ABI 1 cuabi."""


class _Missing:
    """Stands for a function the loaded library does not export."""

    def __init__(self, name: str) -> None:
        self.name = name

    def __call__(self, *args: Any) -> Any:
        from .errors import CuabiError, UNSUPPORTED

        raise CuabiError._binding(
            UNSUPPORTED,
            f"the loaded libcuabi has no function {self.name} (it is older than this package). "
            "Fix: install a newer libcuabi, or point CUABI_LIBRARY at one.",
        )


class Library:
    """The opened library: `fn.<name>` is each cuabi function, resolved on first use."""

    def __init__(self, path: str) -> None:
        self.path = path
        try:
            self._dl = ffi.dlopen(path)
        except OSError as exc:
            raise LoadError(
                f"cannot open {path!r}: {exc}. Fix: install libcuabi.so.1 where the loader finds it, "
                "set CUABI_LIBRARY to its path, or call cuabi.load(path)."
            ) from exc
        try:
            self._proc = self._dl.cuabi_get_proc_address
        except AttributeError as exc:
            raise LoadError(
                f"{path!r} has no cuabi_get_proc_address: it is not libcuabi. "
                "Fix: point CUABI_LIBRARY at libcuabi.so.1."
            ) from exc
        self._resolved: dict[str, Any] = {}
        abi = self.fn("cuabi_abi_version")()
        if abi != ABI_MAJOR:
            raise LoadError(
                f"{path!r} has ABI version {abi}; this package needs {ABI_MAJOR}. "
                "Fix: install a libcuabi.so.1 of ABI 1."
            )

    def fn(self, name: str) -> Any:
        """The function `name` as a callable cdata, or a stand-in that raises when called."""
        found = self._resolved.get(name)
        if found is None:
            pointer = self._proc(name.encode())
            found = _Missing(name) if pointer == ffi.NULL else ffi.cast("PFN_" + name, pointer)
            self._resolved[name] = found
        return found

    def address(self, name: str) -> int:
        """The address of the function `name` (for the package's extension), 0 where the loaded
        library does not export it."""
        return address_of(self._proc(name.encode()))

    def cast(self, name: str, signature: str) -> Any:
        """`name` cast to another C signature of the same ABI (e.g. const char* for const void*)."""
        pointer = self._proc(name.encode())
        if pointer == ffi.NULL:
            return _Missing(name)
        return ffi.cast(signature, pointer)


_UINTPTR = ffi.typeof("uintptr_t")  # parsed once: a cast by name looks the type up every time


def address_of(pointer: Any) -> int:
    """A cffi pointer's value as an int (what the extension takes; 0 for NULL)."""
    return int(ffi.cast(_UINTPTR, pointer))


@functools.lru_cache(maxsize=None)
def returns_status(name: str) -> bool:
    """Whether the function `name` returns a cuabi_status (cuabi_range_end) rather than nothing
    (the cuabi_*_destroy functions), as the header declares it."""
    return bool(ffi.typeof("PFN_" + name).result.cname != "void")


_lock = threading.Lock()
_library: Optional[Library] = None


def _default_path() -> str:
    explicit = os.environ.get("CUABI_LIBRARY")
    if explicit:
        return explicit
    if _PACKAGE_LIBRARY.is_file():
        return str(_PACKAGE_LIBRARY)
    return "libcuabi.so.1"


def load(path: Optional[str] = None) -> Library:
    """Opens the library once: `path`, else $CUABI_LIBRARY, else the copy inside this package
    (a wheel carries one), else libcuabi.so.1 through the loader's search path. Later calls return
    the library already open; a different `path` after that is an error."""
    global _library
    with _lock:
        if _library is not None:
            if path is not None and os.path.realpath(path) != os.path.realpath(_library.path):
                raise LoadError(
                    f"cuabi is already loaded from {_library.path!r}; cannot load {path!r} too. "
                    "Fix: call cuabi.load(path) before any other cuabi call."
                )
            return _library
        _library = Library(path if path is not None else _default_path())
        return _library


def lib() -> Library:
    found = _library
    return found if found is not None else load()


def function(name: str) -> Callable[..., Any]:
    return lib().fn(name)  # type: ignore[no-any-return]


class _Functions:
    """`F.cuabi_launch` is the function, resolved on first use and then an attribute: the hot
    paths pay one attribute lookup per call, not a dictionary search."""

    def __getattr__(self, name: str) -> Any:
        found = lib().fn(name)
        setattr(self, name, found)
        return found


F: Any = _Functions()


class _Addresses:
    """`A.cuabi_launch_packed` is the function's address (an int, 0 where the library lacks it),
    for the extension; looked up once, then an attribute."""

    def __getattr__(self, name: str) -> int:
        found = lib().address(name)
        setattr(self, name, found)
        return found


A: Any = _Addresses()
