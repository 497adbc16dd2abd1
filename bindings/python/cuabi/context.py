"""Contexts, streams and events."""

from __future__ import annotations

import enum
from dataclasses import dataclass
from typing import TYPE_CHECKING, Any, Optional

from . import _library, _structs
from ._handle import Handle
from .errors import check

if TYPE_CHECKING:
    from .buffer import Buffer
    from .compile import Module
    from .graph import Capture

ffi = _library.ffi


@dataclass(frozen=True)
class DeviceInfo:
    """A device's name and the limits cuabi checks launches against (cuabi_device_info)."""

    ordinal: int
    name: str
    compute_capability: tuple[int, int]
    multiprocessor_count: int
    total_memory_bytes: int
    max_threads_per_block: int
    max_shared_memory_per_block: int

    @staticmethod
    def _of(info: Any) -> "DeviceInfo":
        return DeviceInfo(
            ordinal=info.ordinal,
            name=_structs.chars(info.name),
            compute_capability=(info.compute_capability_major, info.compute_capability_minor),
            multiprocessor_count=info.multiprocessor_count,
            total_memory_bytes=info.total_memory_bytes,
            max_threads_per_block=info.max_threads_per_block,
            max_shared_memory_per_block=info.max_shared_memory_per_block,
        )


def device_count() -> int:
    """How many CUDA devices the driver sees (raises DriverError without a driver)."""
    count = ffi.new("int32_t*")
    check(_library.F.cuabi_device_get_count(count))
    return int(count[0])


class ImageVerification(enum.IntEnum):
    """Which images a context first trial-loads in cuabi's image verifier process, where a damaged
    image that crashes or hangs the CUDA driver's loader costs CUABI_ERROR_INVALID_IMAGE instead
    of this process (cuabi_context_options.image_verification)."""

    DEFAULT = _library.CONSTANTS["CUABI_IMAGE_VERIFY_DEFAULT"]  # $CUABI_IMAGE_VERIFY, else UNTRUSTED
    UNTRUSTED = _library.CONSTANTS["CUABI_IMAGE_VERIFY_UNTRUSTED"]  # images cuabi did not compile
    ALL = _library.CONSTANTS["CUABI_IMAGE_VERIFY_ALL"]  # also cuabi's own compiles and cache entries
    NONE = _library.CONSTANTS["CUABI_IMAGE_VERIFY_NONE"]  # trusts every image's source with the process


class Context(Handle):
    """A CUDA context on one device: `with cuabi.Context() as ctx:` (device 0). Without a driver or
    device, creating one raises DriverError whose message says what is missing and how to fix it.
    An image_verification that is no ImageVerification raises GeneralError
    CUABI_ERROR_INVALID_ARGUMENT."""

    __slots__ = ("device", "_address")
    _destroy_name = "cuabi_context_destroy"

    def __init__(self, device: int = 0, flags: int = 0,
                 image_verification: int = ImageVerification.DEFAULT) -> None:
        options = _structs.new("cuabi_context_options")
        options.device_ordinal = device
        options.flags = flags
        options.image_verification = image_verification
        out = ffi.new("cuabi_context**")
        check(_library.F.cuabi_context_create(options, out))
        address = _library.address_of(out[0])  # what the extension's compile takes
        super().__init__(out[0], address=address)
        self.device = device
        self._address = address

    def device_info(self) -> DeviceInfo:
        info = _structs.new("cuabi_device_info")
        check(_library.F.cuabi_context_get_device_info(self._ptr, info))
        return DeviceInfo._of(info)

    def synchronize(self) -> None:
        check(_library.F.cuabi_context_synchronize(self._ptr))

    # Several GPUs: peer access goes one way, from this context to `peer`'s device memory.
    def can_access_peer(self, peer: "Context") -> bool:
        """Whether this device can be given access to `peer`'s device memory (True for one device)."""
        out = ffi.new("uint32_t*")
        check(_library.F.cuabi_context_can_access_peer(self._ptr, peer._ptr, out))
        return bool(out[0])

    def enable_peer_access(self, peer: "Context") -> None:
        """Lets this context's kernels and copies reach `peer`'s device memory; enabling twice is
        harmless. GeneralError CUABI_ERROR_UNSUPPORTED, naming both devices, when they cannot be peers."""
        check(_library.F.cuabi_context_enable_peer_access(self._ptr, peer._ptr))

    def disable_peer_access(self, peer: "Context") -> None:
        """Undoes enable_peer_access (harmless when not enabled); work using the peer must be done."""
        check(_library.F.cuabi_context_disable_peer_access(self._ptr, peer._ptr))

    def peer_access_enabled(self, peer: "Context") -> bool:
        """Whether peer access from this context to `peer`'s device is enabled through cuabi."""
        out = ffi.new("uint32_t*")
        check(_library.F.cuabi_context_get_peer_access(self._ptr, peer._ptr, out))
        return bool(out[0])

    def stream(self, priority: int = 0) -> "Stream":
        """A new non-blocking stream (lower priority runs first; clamped to the device's range)."""
        return Stream(self, priority)

    def event(self, flags: int = 0) -> "Event":
        return Event(self, flags)

    # Buffers, compiles and graphs live in their own modules; these are shortcuts to them.
    def alloc(self, size: int, zero: bool = False) -> "Buffer":
        """`size` bytes of device memory (a Buffer)."""
        from .buffer import Buffer

        return Buffer.allocate(self, size, zero)

    def to_device(self, data: Any, stream: Optional["Stream"] = None) -> "Buffer":
        """A Buffer holding a copy of `data` (a NumPy array or any bytes-like object)."""
        from .buffer import Buffer

        return Buffer.from_host(self, data, stream)

    def as_buffer(self, obj: Any) -> "Buffer":
        """A Buffer over another library's device memory (an object with __cuda_array_interface__
        or __dlpack__), without a copy; cuabi checks the memory is this context's and in bounds."""
        from .buffer import Buffer

        return Buffer.wrap_foreign(self, obj)

    def compile(self, source: str, name_expressions: Any = (), options: Any = (), **settings: Any) -> "Module":
        """Compiles `source` for this context's device (see cuabi.compile)."""
        from .compile import compile

        if name_expressions or options or settings:
            return compile(source, name_expressions, options, context=self, **settings)
        return compile(source, context=self)  # the form compile() serves from C on a repeat


class Stream(Handle):
    """A stream of work on a context. `Stream.wrap(ctx, cu_stream)` borrows another library's."""

    __slots__ = ("context",)
    _destroy_name = "cuabi_stream_destroy"

    def __init__(self, context: Context, priority: int = 0, *, _ptr: Any = None) -> None:
        if _ptr is None:
            options = _structs.new("cuabi_stream_options")
            options.priority = priority
            out = ffi.new("cuabi_stream**")
            check(_library.F.cuabi_stream_create(context._ptr, options, out))
            _ptr = out[0]
        super().__init__(_ptr)
        self.context = context

    @staticmethod
    def wrap(context: Context, cu_stream: int) -> "Stream":
        """A handle on a CUstream made by another library (not owned: closing it leaves the stream)."""
        out = ffi.new("cuabi_stream**")
        check(_library.F.cuabi_stream_wrap(context._ptr, ffi.cast("void*", cu_stream), out))
        return Stream(context, _ptr=out[0])

    @property
    def native(self) -> int:
        """The CUstream, as an int."""
        out = ffi.new("void**")
        check(_library.F.cuabi_stream_get_native(self._ptr, out))
        return int(ffi.cast("uintptr_t", out[0]))

    def synchronize(self) -> None:
        check(_library.F.cuabi_stream_synchronize(self._ptr))

    def wait(self, event: "Event") -> None:
        check(_library.F.cuabi_stream_wait_event(self._ptr, event._ptr))

    def capture(self, mode: Optional[int] = None) -> "Capture":
        """`with stream.capture() as capture:` records the launches in the block; `capture.graph`
        is the graph afterwards (see cuabi.graph.Capture)."""
        from .graph import Capture

        return Capture(self, mode)


class Event(Handle):
    """A point in a stream, for ordering and timing."""

    __slots__ = ()
    _destroy_name = "cuabi_event_destroy"

    def __init__(self, context: Context, flags: int = 0) -> None:
        options = _structs.new("cuabi_event_options")
        options.flags = flags
        out = ffi.new("cuabi_event**")
        check(_library.F.cuabi_event_create(context._ptr, options, out))
        super().__init__(out[0])

    def record(self, stream: Optional[Stream] = None) -> None:
        check(_library.F.cuabi_event_record(self._ptr, stream._ptr if stream else ffi.NULL))

    def synchronize(self) -> None:
        check(_library.F.cuabi_event_synchronize(self._ptr))

    def elapsed_ms(self, end: "Event") -> float:
        """Milliseconds from this event to `end` (both recorded and complete)."""
        out = ffi.new("float*")
        check(_library.F.cuabi_event_get_elapsed_ms(self._ptr, end._ptr, out))
        return float(out[0])
