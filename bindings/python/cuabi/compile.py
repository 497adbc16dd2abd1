"""Compiling CUDA C++ (NVRTC, behind cuabi's kernel cache) and the modules it makes."""

from __future__ import annotations

import functools
import threading
from collections import OrderedDict
from dataclasses import dataclass
from typing import TYPE_CHECKING, Any, Dict, Iterable, Mapping, Optional, Sequence, Tuple

from . import _library, _structs
from ._handle import Handle
from .errors import check, last_error

if TYPE_CHECKING:
    from . import _native
    from .buffer import Buffer
    from .kernel import Kernel

ffi = _library.ffi

COMPILE_NO_CACHE, COMPILE_PTX, COMPILE_LTO_IR, COMPILE_RELOCATABLE = (
    _library.CONSTANTS["CUABI_COMPILE_" + name] for name in ("NO_CACHE", "PTX", "LTO_IR", "RELOCATABLE"))

IMAGE_PTX, IMAGE_CUBIN, IMAGE_FATBIN, IMAGE_LTOIR = (
    _library.CONSTANTS["CUABI_IMAGE_" + name] for name in ("PTX", "CUBIN", "FATBIN", "LTOIR"))
ORIGIN_COMPILED, ORIGIN_MEMORY_CACHE, ORIGIN_DISK_CACHE, ORIGIN_IMAGE, ORIGIN_READONLY_CACHE = (
    _library.CONSTANTS["CUABI_MODULE_ORIGIN_" + name]
    for name in ("COMPILED", "MEMORY_CACHE", "DISK_CACHE", "IMAGE", "READONLY_CACHE"))
_MODULE_POINTER = ffi.typeof("cuabi_module*")
_HANDLE_POINTER: Any = Handle.__dict__["_ptr"]  # the slot behind Module._ptr


@dataclass(frozen=True)
class ModuleInfo:
    image_kind: int  # IMAGE_PTX, IMAGE_CUBIN, IMAGE_FATBIN or IMAGE_LTOIR
    origin: int  # ORIGIN_COMPILED, ORIGIN_MEMORY_CACHE, ORIGIN_DISK_CACHE or ORIGIN_IMAGE
    loaded: bool
    image_size: int
    target: str
    cache_key: str


class Module(Handle):
    """Compiled code: its kernels by name or C++ expression, its image, log and globals."""

    __slots__ = ("context",)
    _destroy_name = "cuabi_module_destroy"

    def __init__(self, ptr: Any, context: Any) -> None:
        super().__init__(ptr)
        self.context = context

    @property
    def _ptr(self) -> Any:
        """The cffi pointer. A module compile() made through the extension has none at first: the
        extension sets _owner (an Owner of the module's address) and context, and the pointer is
        made here when a method first needs it, since making one costs more than the memory-cache
        hit that returned the module."""
        try:
            return _HANDLE_POINTER.__get__(self)
        except AttributeError:
            pointer = ffi.cast(_MODULE_POINTER, self._owner.address)
            _HANDLE_POINTER.__set__(self, pointer)
            return pointer

    @_ptr.setter
    def _ptr(self, pointer: Any) -> None:
        _HANDLE_POINTER.__set__(self, pointer)

    def kernel(self, name_or_expression: str) -> "Kernel":
        """The kernel "saxpy" (extern "C") or "scale<float>" (one of the name expressions)."""
        from .kernel import Kernel

        out = ffi.new("cuabi_kernel**")
        check(_library.F.cuabi_module_get_kernel(self._ptr, name_or_expression.encode(), out))
        return Kernel(out[0], name_or_expression)

    def global_buffer(self, name_or_expression: str) -> "Buffer":
        """A __device__ or __constant__ variable as a bounds-checked Buffer."""
        from .buffer import Buffer

        out = ffi.new("cuabi_buffer**")
        check(_library.F.cuabi_module_get_global(self._ptr, name_or_expression.encode(), out))
        return Buffer(self.context, out[0])

    def info(self) -> ModuleInfo:
        info = _structs.new("cuabi_module_info")
        check(_library.F.cuabi_module_get_info(self._ptr, info))
        return ModuleInfo(info.image_kind, info.origin, bool(info.loaded), int(info.image_size),
                          _structs.chars(info.target), _structs.chars(info.cache_key))

    def lowered_name(self, expression: str) -> str:
        return _structs.text(_library.F.cuabi_module_get_lowered_name, self._ptr, expression.encode())

    def log(self) -> str:
        return _structs.text(_library.F.cuabi_module_get_log, self._ptr)

    def kernel_names(self) -> list[str]:
        """The kernels of the module's CUBIN, read without a GPU (UNSUPPORTED for PTX, fatbin and
        LTO-IR modules)."""
        return _structs.text(_library.F.cuabi_module_get_kernel_names, self._ptr).splitlines()

    def image(self) -> bytes:
        call = _library.F.cuabi_module_get_image
        size = ffi.new("size_t*")
        check(call(self._ptr, ffi.NULL, 0, size))
        data = ffi.new("char[]", size[0])
        check(call(self._ptr, data, size[0], size))
        return bytes(ffi.buffer(data, size[0]))


class _Request:
    """One compile request as C memory: the options struct and every string it points to, alive
    together (a string freed while cuabi still reads it is the classic cffi mistake)."""

    __slots__ = ("source", "options", "native", "_keep")
    native: Optional["_native.CompileRequest[Module]"]

    def __init__(self, source: str, name_expressions: Sequence[str], flags: Sequence[str], target: Optional[str],
                 std: Optional[str], defines: Sequence[str], include_dirs: Sequence[str],
                 headers: Tuple[Tuple[str, str], ...], fast_math: bool, line_info: bool, no_cache: bool,
                 ptx: bool, program_name: Optional[str], timeout_ms: int, salt: bytes, lto_ir: bool,
                 relocatable: bool) -> None:
        keep: list[Any] = []

        def cstr(text: Optional[str]) -> Any:
            return _structs.c_string(text, keep, "a compile input")

        def array(texts: Iterable[str]) -> Tuple[Any, int]:
            items = [cstr(text) for text in texts]
            value = ffi.new("const char*[]", items) if items else ffi.NULL
            keep.append(value)
            return value, len(items)

        self.source = cstr(source)
        options = _structs.new("cuabi_compile_options")
        options.flags = ((COMPILE_NO_CACHE if no_cache else 0) | (COMPILE_PTX if ptx else 0) |
                         (COMPILE_LTO_IR if lto_ir else 0) | (COMPILE_RELOCATABLE if relocatable else 0))
        options.target, options.cpp_standard, options.program_name = cstr(target), cstr(std), cstr(program_name)
        options.fast_math, options.line_info, options.timeout_ms = int(fast_math), int(line_info), timeout_ms
        options.defines, options.define_count = array(defines)
        options.include_dirs, options.include_dir_count = array(include_dirs)
        options.header_names, options.header_count = array(name for name, _ in headers)
        options.header_sources, _ = array(text for _, text in headers)
        options.name_expressions, options.name_expression_count = array(name_expressions)
        options.extra_flags, options.extra_flag_count = array(flags)
        if salt:
            salt_data = ffi.new("char[]", salt)
            keep.append(salt_data)
            options.salt, options.salt_size = salt_data, len(salt)
        self.options = options
        self._keep = keep
        # The extension's form of the request: compile(context) in one C call. None without the
        # extension, or where the loaded library lacks a function (cffi's path then says which).
        native = _library.native
        functions = (_library.A.cuabi_module_compile, _library.A.cuabi_module_compile_offline,
                     _library.A.cuabi_module_destroy)
        self.native = None if native is None or not all(functions) else native.CompileRequest(
            *functions, _library.address_of(self.source), _library.address_of(options), (self.source, options, keep),
            last_error, Module)


# Prepared requests by everything that went into them, so that a repeated compile -- a memory
# cache hit in cuabi -- costs a dict lookup here and no conversion to C.
_REQUESTS_KEPT = 64
_requests: "OrderedDict[Tuple[Any, ...], _Request]" = OrderedDict()
_requests_lock = threading.Lock()


def _request(key: Tuple[Any, ...]) -> _Request:
    # A hit takes no lock (dict.get is one operation under the GIL); the oldest request made goes
    # first when the table is full.
    found = _requests.get(key)
    if found is not None:
        return found
    request = _Request(*key)
    with _requests_lock:
        _requests[key] = request
        while len(_requests) > _REQUESTS_KEPT:
            _requests.popitem(last=False)
    return request


# The requests of only a source and a target, by target, then source (no key tuple to build or hash
# on a hit): at most _REQUESTS_KEPT sources per target, the table emptied when it is full.
_plain_requests: Dict[Optional[str], Dict[str, _Request]] = {}


def _remember_plain(target: Optional[str], source: str, request: _Request) -> None:
    with _requests_lock:
        by_source = _plain_requests.setdefault(target, {})
        if len(by_source) >= _REQUESTS_KEPT:
            by_source.clear()
        by_source[source] = request


def _key(source: str, name_expressions: Sequence[str], options: Sequence[str], target: Optional[str],
         std: Optional[str], defines: Sequence[str], include_dirs: Sequence[str],
         headers: Optional[Mapping[str, str]], fast_math: bool, line_info: bool, no_cache: bool, ptx: bool,
         program_name: Optional[str], timeout_ms: int, salt: bytes, lto_ir: bool = False,
         relocatable: bool = False) -> Tuple[Any, ...]:
    """A compile request's arguments in _Request's order, hashable."""
    return (source, tuple(name_expressions), tuple(options), target, std, tuple(defines), tuple(include_dirs),
            tuple(sorted((headers or {}).items())), fast_math, line_info, no_cache, ptx, program_name, timeout_ms,
            bytes(salt), lto_ir, relocatable)


def compile(source: str, name_expressions: Sequence[str] = (), options: Sequence[str] = (), *,
            context: Any = None, target: Optional[str] = None, std: Optional[str] = None,
            defines: Sequence[str] = (), include_dirs: Sequence[str] = (),
            headers: Optional[Mapping[str, str]] = None, fast_math: bool = False, line_info: bool = False,
            no_cache: bool = False, ptx: bool = False, program_name: Optional[str] = None,
            timeout_ms: int = 0, salt: bytes = b"", lto_ir: bool = False, relocatable: bool = False) -> Module:
    """Compiles CUDA C++ `source` into a Module.

    name_expressions  C++ names of (template) kernels to find later: ["scale<float>"]
    options           further NVRTC flags, as given: ["-default-device"]
    context           compile for this context's device and load the module there; without one the
                      compile is offline (no GPU needed, `target` required, e.g. "sm_90")
    lto_ir            LTO-IR for cuabi.link(..., lto=True) instead of a CUBIN (not loaded)
    relocatable       relocatable device code (-rdc) for cuabi.link() (not loaded)
    the rest          cuabi_compile_options' fields (headers: {"name.h": "contents"})

    A repeated request is served from cuabi's memory cache, then its disk cache, without NVRTC.
    A failed compile raises CompileError with NVRTC's log in .compile_log."""
    # A request of only a source and a target (the common one) is also kept by target and source,
    # so that a repeated compile -- a memory-cache hit in cuabi -- builds no key of every argument.
    plain = not (name_expressions or options or std or defines or include_dirs or headers or fast_math or line_info
                 or no_cache or ptx or program_name or timeout_ms or salt or lto_ir or relocatable)
    by_source = _plain_requests.get(target) if plain else None
    request = by_source.get(source) if by_source is not None else None
    if request is None:
        request = _request(_key(source, name_expressions, options, target, std, defines, include_dirs, headers,
                                fast_math, line_info, no_cache, ptx, program_name, timeout_ms, salt, lto_ir,
                                relocatable))
        if plain:
            _remember_plain(target, source, request)
    if request.native is not None:
        return request.native.compile(context)  # a Module made in C: see Module._ptr
    out = ffi.new("cuabi_module**")
    if context is None:
        check(_library.F.cuabi_module_compile_offline(request.source, request.options, out))
    else:
        check(_library.F.cuabi_module_compile(context._ptr, request.source, request.options, out))
    return Module(out[0], context)


if _library.native is not None and not TYPE_CHECKING:
    # compile() as users call it: a plain call whose request was prepared before is served in C
    # (no Python frame of 17 parameters), every other call goes to the function above.
    compile = functools.update_wrapper(_library.native.CompileFront(compile, _plain_requests), compile)


def _forget_requests() -> None:
    """Empties the prepared requests (the tests' switch between the extension and cffi: a request
    prepared without the extension has no form of it)."""
    with _requests_lock:
        _requests.clear()
        _plain_requests.clear()


def load_image(context: Any, image: bytes) -> Module:
    """A module from a PTX, CUBIN or fatbin image."""
    out = ffi.new("cuabi_module**")
    check(_library.F.cuabi_module_load_image(context._ptr, image, len(image), out))
    return Module(out[0], context)


def nvrtc_version() -> Tuple[int, int]:
    major, minor = ffi.new("int32_t*"), ffi.new("int32_t*")
    check(_library.F.cuabi_nvrtc_get_version(major, minor))
    return int(major[0]), int(minor[0])


def nvrtc_path() -> str:
    """The NVRTC file cuabi loads (or would load), as it found it."""
    return _structs.text(_library.F.cuabi_nvrtc_get_path)
