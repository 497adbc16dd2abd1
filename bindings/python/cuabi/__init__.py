"""cuabi for Python: compile CUDA C++ at run time, cache it, launch kernels with every limit and
argument checked, capture graphs and mark Nsight ranges, through libcuabi.so.1 (loaded with cffi
in ABI mode: no compiler needed).

    import cuabi
    with cuabi.Context() as ctx:
        module = ctx.compile(SOURCE)
        saxpy = module.kernel("saxpy")
        saxpy[n // 256, 256](2.0, x, y, n)
"""

from __future__ import annotations

import os as _os

# A build directory's extension (CMake builds it into <build>/python/cuabi/) for a source checkout:
# the tests and benchmarks name it, since nothing installs it beside these files there.
if _os.environ.get("CUABI_PYTHON_EXTENSION_DIR"):
    __path__.append(_os.environ["CUABI_PYTHON_EXTENSION_DIR"])

from . import cache, dlpack  # noqa: E402
from ._library import LoadError, load
from .batch import LAUNCH_BATCH_MAX_ITEMS, LaunchBatch
from .buffer import Buffer
from .compile import (IMAGE_CUBIN, IMAGE_FATBIN, IMAGE_LTOIR, IMAGE_PTX, ORIGIN_COMPILED, ORIGIN_DISK_CACHE,
                      ORIGIN_IMAGE, ORIGIN_MEMORY_CACHE, ORIGIN_READONLY_CACHE, Module, ModuleInfo, compile, load_image,
                      nvrtc_path, nvrtc_version)
from .compile_batch import (COMPILE_BATCH_MAX_REQUESTS, REQUEST_COMPILING, REQUEST_DONE, REQUEST_QUEUED, CompileBatch,
                            CompileRequest, compile_many)
from .link import (LINK_INPUT_CUBIN, LINK_INPUT_FATBIN, LINK_INPUT_LIBRARY, LINK_INPUT_LTOIR, LINK_INPUT_OBJECT,
                   LINK_INPUT_PTX, LINK_MAX_INPUTS, LinkInput, link, nvjitlink_path, nvjitlink_version)
from .context import Context, DeviceInfo, Event, ImageVerification, Stream, device_count
from .errors import (CompileError, CudaError, CuabiError, DriverError, GeneralError, GraphError, LaunchError,
                     RangeError, status_name)
from .graph import (CAPTURE_MODE_GLOBAL, CAPTURE_MODE_RELAXED, CAPTURE_MODE_THREAD_LOCAL, CONDITIONAL_IF,
                    CONDITIONAL_SWITCH, CONDITIONAL_WHILE, NODE_CONDITIONAL, Capture, Conditional, ConditionalNode, Graph)
from .memory import (ADVICE_SET_ACCESSED_BY, ADVICE_SET_PREFERRED_LOCATION, ADVICE_SET_READ_MOSTLY,
                     ADVICE_UNSET_ACCESSED_BY, ADVICE_UNSET_PREFERRED_LOCATION, ADVICE_UNSET_READ_MOSTLY,
                     LOCATION_HOST, MemoryPool)
from .kernel import (LAUNCH_COOPERATIVE, LAUNCH_PRIORITY, LAUNCH_PROGRAMMATIC_DEPENDENT, LAUNCH_SYNCHRONIZE, Kernel,
                     LaunchConfig, Launcher)
from .ranges import Range, pop, push, range
from .tensor_map import TensorDataType, TensorInterleave, TensorL2Promotion, TensorMap, TensorOobFill, TensorSwizzle

__version__ = "1.2.0"


def version_number() -> int:
    """The loaded library's version, 10000 * major + 100 * minor + patch."""
    from . import _library

    return int(_library.F.cuabi_version_number())


def abi_version() -> int:
    from . import _library

    return int(_library.F.cuabi_abi_version())


def from_dlpack(obj: object, context: Context) -> Buffer:
    """A Buffer over another library's tensor (its __dlpack__ or __cuda_array_interface__)."""
    return Buffer.wrap_foreign(context, obj)


__all__ = [
    "ADVICE_SET_ACCESSED_BY", "ADVICE_SET_PREFERRED_LOCATION", "ADVICE_SET_READ_MOSTLY", "ADVICE_UNSET_ACCESSED_BY",
    "ADVICE_UNSET_PREFERRED_LOCATION", "ADVICE_UNSET_READ_MOSTLY", "LOCATION_HOST", "MemoryPool",
    "Buffer", "COMPILE_BATCH_MAX_REQUESTS", "CompileBatch", "CompileRequest", "REQUEST_COMPILING", "REQUEST_DONE",
    "REQUEST_QUEUED", "compile_many", "CAPTURE_MODE_GLOBAL", "CAPTURE_MODE_RELAXED", "CAPTURE_MODE_THREAD_LOCAL",
    "CONDITIONAL_IF", "CONDITIONAL_SWITCH", "CONDITIONAL_WHILE", "Capture", "CompileError", "Conditional",
    "ConditionalNode",
    "Context", "CudaError", "CuabiError", "DeviceInfo", "DriverError", "Event", "GeneralError", "Graph", "GraphError",
    "IMAGE_CUBIN", "IMAGE_FATBIN", "IMAGE_LTOIR", "IMAGE_PTX", "ImageVerification", "Kernel", "LAUNCH_BATCH_MAX_ITEMS",
    "LAUNCH_COOPERATIVE", "LAUNCH_PRIORITY", "LAUNCH_PROGRAMMATIC_DEPENDENT", "LAUNCH_SYNCHRONIZE", "LaunchBatch",
    "LINK_INPUT_CUBIN", "LINK_INPUT_FATBIN", "LINK_INPUT_LIBRARY", "LINK_INPUT_LTOIR", "LINK_INPUT_OBJECT",
    "LINK_INPUT_PTX", "LINK_MAX_INPUTS", "LaunchConfig", "LaunchError", "Launcher", "LinkInput", "LoadError", "Module",
    "ModuleInfo", "ORIGIN_COMPILED", "NODE_CONDITIONAL", "ORIGIN_DISK_CACHE", "ORIGIN_IMAGE", "ORIGIN_MEMORY_CACHE",
    "ORIGIN_READONLY_CACHE",
    "Range", "RangeError", "Stream", "abi_version",
    "TensorDataType", "TensorInterleave", "TensorL2Promotion", "TensorMap", "TensorOobFill", "TensorSwizzle",
    "cache", "compile", "device_count", "dlpack", "from_dlpack", "link", "load", "load_image", "nvjitlink_path",
    "nvjitlink_version", "nvrtc_path", "nvrtc_version",
    "pop", "push", "range", "status_name", "version_number",
]
