"""cuabi's failures as exceptions: one class per status family, each carrying what the library
said about the failure, read on the same thread right after the failing call."""

from __future__ import annotations

from typing import Dict, Optional, Type

from . import _library


def _status_table() -> Dict[int, str]:
    """CUABI_SUCCESS and every CUABI_ERROR_* from the generated declarations."""
    return {value: name for name, value in _library.CONSTANTS.items()
            if name == "CUABI_SUCCESS" or name.startswith("CUABI_ERROR_")}


STATUS_NAMES: Dict[int, str] = _status_table()
_BY_NAME = {name: value for value, name in STATUS_NAMES.items()}

SUCCESS = _BY_NAME["CUABI_SUCCESS"]
INVALID_ARGUMENT = _BY_NAME["CUABI_ERROR_INVALID_ARGUMENT"]
INVALID_HANDLE = _BY_NAME["CUABI_ERROR_INVALID_HANDLE"]
INVALID_DEVICE = _BY_NAME["CUABI_ERROR_INVALID_DEVICE"]
UNSUPPORTED = _BY_NAME["CUABI_ERROR_UNSUPPORTED"]
DRIVER_NOT_FOUND = _BY_NAME["CUABI_ERROR_DRIVER_NOT_FOUND"]
NO_DEVICE = _BY_NAME["CUABI_ERROR_NO_DEVICE"]
OUT_OF_BOUNDS = _BY_NAME["CUABI_ERROR_OUT_OF_BOUNDS"]
CONTEXT_MISMATCH = _BY_NAME["CUABI_ERROR_CONTEXT_MISMATCH"]
COMPILE = _BY_NAME["CUABI_ERROR_COMPILE"]
LINK = _BY_NAME["CUABI_ERROR_LINK"]
NVJITLINK_NOT_FOUND = _BY_NAME["CUABI_ERROR_NVJITLINK_NOT_FOUND"]
KERNEL_NOT_FOUND = _BY_NAME["CUABI_ERROR_KERNEL_NOT_FOUND"]
LAUNCH_BLOCK = _BY_NAME["CUABI_ERROR_LAUNCH_BLOCK"]
ARGUMENT_COUNT = _BY_NAME["CUABI_ERROR_ARGUMENT_COUNT"]
ARGUMENT_SIZE = _BY_NAME["CUABI_ERROR_ARGUMENT_SIZE"]
CAPTURE = _BY_NAME["CUABI_ERROR_CAPTURE"]
RANGE = _BY_NAME["CUABI_ERROR_RANGE"]


def status_name(status: int) -> str:
    """The loaded library's name for `status` (cuabi_status_name): "CUABI_ERROR_COMPILE", or
    "CUABI_UNKNOWN_STATUS"."""
    name = _library.F.cuabi_status_name(status)
    return "CUABI_UNKNOWN_STATUS" if name == _library.ffi.NULL else str(_library.ffi.string(name).decode())


class CuabiError(Exception):
    """A failed cuabi call.

    status       the cuabi_status (int); the subclass names its family
    name         its C name, "CUABI_ERROR_LAUNCH_BLOCK"
    message      what was wrong, with the values involved, ending in "Fix: ..."
    cu_result    the CUresult behind a driver-caused failure, else 0
    nvrtc_result the nvrtcResult behind an NVRTC-caused failure, else 0
    compile_log  NVRTC's log of a failed compile, else ""
    """

    def __init__(self, status: int, message: str, cu_result: int = 0, nvrtc_result: int = 0,
                 compile_log: str = "") -> None:
        self.status = status
        self.name = STATUS_NAMES.get(status, "CUABI_UNKNOWN_STATUS")
        self.message = message
        self.cu_result = cu_result
        self.nvrtc_result = nvrtc_result
        self.compile_log = compile_log
        super().__init__(f"{self.name}: {message}")

    @staticmethod
    def _binding(status: int, message: str) -> "CuabiError":
        """A failure this package finds itself (no cuabi call failed), shaped like the library's."""
        return _family(status)(status, message)


class GeneralError(CuabiError):
    """Statuses 1-19: arguments, handles, struct sizes, host memory, unsupported, timeouts."""


class DriverError(CuabiError):
    """Statuses 20-29: no driver, too old a driver, no device, no NVRTC."""


class CudaError(CuabiError):
    """Statuses 30-39: a CUDA driver call failed, device memory ran out, an access out of bounds."""


class CompileError(CuabiError):
    """Statuses 40-59: compile errors (with compile_log), kernels not found, images, the cache."""


class LaunchError(CuabiError):
    """Statuses 60-79: geometry, shared memory, argument count and size, failed launches."""


class GraphError(CuabiError):
    """Statuses 80-99: capture, graph nodes, graph updates."""


class RangeError(CuabiError):
    """Statuses 100-119: profiler ranges."""


# Each family's statuses run up to (not including) its number.
_FAMILIES = ((20, GeneralError), (30, DriverError), (40, CudaError), (60, CompileError),
             (80, LaunchError), (100, GraphError), (120, RangeError))


def _family(status: int) -> Type[CuabiError]:
    for end, family in _FAMILIES:
        if 0 < status < end:
            return family
    return CuabiError


def _read_compile_log() -> str:
    log_fn = _library.F.cuabi_last_compile_log
    size = _library.ffi.new("size_t*")
    if log_fn(_library.ffi.NULL, 0, size) != 0 or size[0] <= 1:
        return ""
    text = _library.ffi.new("char[]", size[0])
    if log_fn(text, size[0], size) != 0:
        return ""
    return str(_library.ffi.string(text).decode("utf-8", "replace"))


def last_error(status: int) -> CuabiError:
    """The exception for `status`, with the thread's last message, results and compile log. Call
    it right after the failing call, on the same thread (cuabi keeps them per thread)."""
    ffi = _library.ffi
    message = ffi.string(_library.F.cuabi_last_error_message()).decode("utf-8", "replace")
    cu_result = int(_library.F.cuabi_last_cu_result())
    nvrtc_result = int(_library.F.cuabi_last_nvrtc_result())
    log = _read_compile_log() if status in (COMPILE, LINK) else ""
    return _family(status)(status, message, cu_result, nvrtc_result, log)


def check(status: int) -> None:
    """Raises the exception for a non-zero status (see last_error)."""
    if status != 0:
        raise last_error(status)


def binding_error(status: int, message: str) -> CuabiError:
    return CuabiError._binding(status, message)


def family_of(status: int) -> Optional[Type[CuabiError]]:
    """The exception class a status raises (None for success)."""
    return None if status == 0 else _family(status)
