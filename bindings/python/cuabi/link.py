"""Linking device code with nvJitLink (cuabi 1.2): modules compiled with lto_ir=True or
relocatable=True, and device libraries and objects as bytes or files, joined into one module."""

from __future__ import annotations

from dataclasses import dataclass
from typing import Any, Optional, Sequence, Tuple, Union

from . import _library, _structs
from .compile import Module
from .errors import INVALID_ARGUMENT, binding_error, check

ffi = _library.ffi

_C = _library.CONSTANTS
LINK_INPUT_CUBIN, LINK_INPUT_PTX, LINK_INPUT_LTOIR, LINK_INPUT_FATBIN, LINK_INPUT_OBJECT, LINK_INPUT_LIBRARY = (
    _C["CUABI_LINK_INPUT_" + name] for name in ("CUBIN", "PTX", "LTOIR", "FATBIN", "OBJECT", "LIBRARY"))
LINK_LTO, LINK_NO_CACHE, LINK_PTX, LINK_IN_PROCESS = (
    _C["CUABI_LINK_" + name] for name in ("LTO", "NO_CACHE", "PTX", "IN_PROCESS"))
LINK_MAX_INPUTS = _C["CUABI_LINK_MAX_INPUTS"]


@dataclass(frozen=True)
class LinkInput:
    """The caller's bytes (`data`) or a file (`path`) of a LINK_INPUT_* kind; `name` is its name in
    nvJitLink's log (None: derived)."""

    kind: int
    data: Optional[bytes] = None
    path: Optional[str] = None
    name: Optional[str] = None


def link(inputs: Sequence[Union[Module, LinkInput]], *, context: Any = None, target: Optional[str] = None,
         lto: bool = False, ptx: bool = False, no_cache: bool = False, in_process: bool = False,
         optimization_level: Optional[int] = None, max_registers: int = 0, options: Sequence[str] = (),
         timeout_ms: int = 0) -> Module:
    """Links `inputs` (Modules and LinkInputs, in order) with nvJitLink into a Module.

    context   link for this context's device and load the module there; without one the link is
              offline (no GPU needed, `target` required, e.g. "sm_90")
    lto       link-time optimization: required when an input is LTO-IR
    options   further nvJitLink options, as given: ["-lineinfo"]

    A repeated link is served from cuabi's kernel cache, without NVRTC or nvJitLink. nvJitLink's
    refusals raise CompileError (status LINK) with its log in .compile_log."""
    if len(inputs) > LINK_MAX_INPUTS:
        raise binding_error(INVALID_ARGUMENT, f"{len(inputs)} link inputs are more than the {LINK_MAX_INPUTS} "
                            "one link takes. Fix: link fewer at once.")
    keep: list[Any] = []

    def cstr(text: Optional[str]) -> Any:
        return _structs.c_string(text, keep, "a link input")

    table = ffi.new("cuabi_link_input[]", max(len(inputs), 1))
    for entry, given in zip(table, inputs):
        if isinstance(given, Module):
            entry.module = given._ptr
        elif isinstance(given, LinkInput):
            entry.kind = given.kind
            if given.data is not None:
                data = ffi.from_buffer(given.data)
                keep.append(data)
                entry.data, entry.size = data, len(given.data)
            entry.path, entry.name = cstr(given.path), cstr(given.name)
        else:
            raise binding_error(INVALID_ARGUMENT, f"a link input is a {type(given).__name__}. "
                                "Fix: pass cuabi.Module or cuabi.LinkInput values.")
    raw = _structs.new("cuabi_link_options")
    raw.flags = ((LINK_LTO if lto else 0) | (LINK_PTX if ptx else 0) | (LINK_NO_CACHE if no_cache else 0) |
                 (LINK_IN_PROCESS if in_process else 0))
    raw.target = cstr(target)
    raw.optimization_level = -1 if optimization_level is None else optimization_level
    raw.max_registers, raw.timeout_ms = max_registers, timeout_ms
    extra = [cstr(option) for option in options]
    if extra:
        array = ffi.new("const char*[]", extra)
        keep.append(array)
        raw.extra_options, raw.extra_option_count = array, len(extra)
    out = ffi.new("cuabi_module**")
    if context is None:
        check(_library.F.cuabi_module_link_offline(table, len(inputs), raw, out))
    else:
        check(_library.F.cuabi_module_link(context._ptr, table, len(inputs), raw, out))
    return Module(out[0], context)


def nvjitlink_version() -> Tuple[int, int]:
    """(major, minor) of the nvJitLink cuabi links with, loading it when it is not loaded yet;
    GeneralError NVJITLINK_NOT_FOUND (saying where cuabi looked) when there is none."""
    major, minor = ffi.new("int32_t*"), ffi.new("int32_t*")
    check(_library.F.cuabi_nvjitlink_get_version(major, minor))
    return int(major[0]), int(minor[0])


def nvjitlink_path() -> str:
    """The nvJitLink file cuabi links with, located without loading it."""
    return _structs.text(_library.F.cuabi_nvjitlink_get_path)
