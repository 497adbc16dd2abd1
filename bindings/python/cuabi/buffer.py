"""Device buffers: allocated by cuabi or wrapped over another library's memory, exported as
__cuda_array_interface__ (v3) and DLPack, filled from and read into NumPy arrays or bytes."""

from __future__ import annotations

from typing import Any, Optional, Tuple

from . import _library, _structs, dlpack
from ._handle import Handle
from .context import Context, Stream
from .errors import INVALID_ARGUMENT, binding_error, check

ffi = _library.ffi


def _stream_ptr(stream: Optional[Stream]) -> Any:
    return ffi.NULL if stream is None else stream._ptr


def _host_view(data: Any) -> memoryview:
    """`data` as contiguous bytes (a NumPy array, bytes, bytearray, array.array, memoryview)."""
    view = memoryview(data)
    if not view.c_contiguous:
        raise binding_error(INVALID_ARGUMENT, "the host data is not C-contiguous. Fix: pass a contiguous "
                            "array (numpy.ascontiguousarray).")
    return view.cast("B") if view.ndim != 1 or view.format != "B" else view


class Buffer(Handle):
    """Device memory with its size known to cuabi, so copies and kernels are bounds-checked.

    `dtype`/`shape` (a typestr like "<f4" and a tuple) describe the contents to other libraries;
    a buffer made from a NumPy array keeps the array's, else it is bytes ("|u1", (size,)).
    int(buffer) and its use as a pointer kernel argument give its device address."""

    __slots__ = ("context", "size", "address", "typestr", "shape")
    _destroy_name = "cuabi_buffer_destroy"

    def __init__(self, context: Context, ptr: Any, keep: Optional[object] = None,
                 typestr: str = "|u1", shape: Optional[Tuple[int, ...]] = None) -> None:
        super().__init__(ptr, keep)
        self.context = context
        size = ffi.new("size_t*")
        address = ffi.new("uint64_t*")
        check(_library.F.cuabi_buffer_get_size(ptr, size))
        check(_library.F.cuabi_buffer_get_device_address(ptr, address))
        self.size = int(size[0])
        self.address = int(address[0])
        self.typestr = typestr
        self.shape = shape if shape is not None else (self.size // int(typestr[2:]),)

    @staticmethod
    def allocate(context: Context, size: int, zero: bool = False) -> "Buffer":
        options = _structs.new("cuabi_buffer_options")
        options.flags = 1 if zero else 0  # CUABI_BUFFER_ZERO
        out = ffi.new("cuabi_buffer**")
        check(_library.F.cuabi_buffer_create(context._ptr, size, options, out))
        return Buffer(context, out[0])

    @staticmethod
    def from_host(context: Context, data: Any, stream: Optional[Stream] = None) -> "Buffer":
        view = _host_view(data)
        buffer = Buffer.allocate(context, view.nbytes)
        typestr, shape = _array_layout(data)
        if typestr is not None:
            buffer.typestr, buffer.shape = typestr, shape
        buffer.write(view, 0, stream)
        return buffer

    @staticmethod
    def wrap(context: Context, address: int, size: int, keep: Optional[object] = None) -> "Buffer":
        """`size` bytes at `address`, another library's memory (not owned; `keep` stays alive as
        long as the Buffer). cuabi checks the address is CUDA memory of this context and, where the
        driver knows the allocation, that the range fits in it."""
        out = ffi.new("cuabi_buffer**")
        check(_library.F.cuabi_buffer_wrap(context._ptr, address, size, out))
        return Buffer(context, out[0], keep)

    @staticmethod
    def wrap_foreign(context: Context, obj: Any) -> "Buffer":
        """A Buffer over an object exposing __cuda_array_interface__ or __dlpack__, bounds from its
        shape and strides; the object (or its DLPack tensor) stays alive while the Buffer does."""
        if isinstance(obj, Buffer):
            return obj
        interface = getattr(obj, "__cuda_array_interface__", None)
        if interface is not None:
            address, nbytes = interface_extent(interface)
            typestr, shape = interface["typestr"], tuple(interface["shape"])
            wrapped = Buffer.wrap(context, address, nbytes, obj)
        elif hasattr(obj, "__dlpack__"):
            imported = dlpack.Imported(obj.__dlpack__())
            if imported.device_type != dlpack.K_DL_CUDA:
                imported.delete()
                raise binding_error(INVALID_ARGUMENT, f"the DLPack tensor is on device type "
                                    f"{imported.device_type}, not CUDA ({dlpack.K_DL_CUDA}). Fix: pass GPU memory.")
            try:
                wrapped = Buffer.wrap(context, imported.address, imported.nbytes, _Deleting(imported))
            except BaseException:
                imported.delete()
                raise
            return wrapped
        else:
            raise binding_error(INVALID_ARGUMENT, f"a {type(obj).__name__} has neither __cuda_array_interface__ "
                                "nor __dlpack__. Fix: pass device memory (a cuabi Buffer, CuPy array, "
                                "PyTorch CUDA tensor, ...).")
        wrapped.typestr, wrapped.shape = typestr, shape
        return wrapped

    def __index__(self) -> int:
        return self.address

    def __int__(self) -> int:
        return self.address

    def __len__(self) -> int:
        return self.size

    def __repr__(self) -> str:
        return f"<cuabi.Buffer {self.size} bytes at 0x{self.address:x}{' closed' if self.closed else ''}>"

    def write(self, data: Any, offset: int = 0, stream: Optional[Stream] = None) -> None:
        """Copies host `data` to offset `offset`. Without a stream it returns when the copy is done;
        on one, once `data` has been read (Python memory is pageable: the driver stages it)."""
        view = _host_view(data)
        pointer = ffi.from_buffer(view)
        check(_library.F.cuabi_buffer_write(self._ptr, offset, pointer, view.nbytes, _stream_ptr(stream)))

    def read(self, out: Any = None, offset: int = 0, size: Optional[int] = None,
             stream: Optional[Stream] = None) -> Any:
        """Copies device bytes into `out` (a writable NumPy array or bytearray; its size is the
        count) and returns it; without `out`, `size` bytes (default: to the end) into a new
        bytearray. Synchronous without a stream."""
        if out is None:
            out = bytearray(self.size - offset if size is None else size)
        view = _host_view(out)
        if view.readonly:
            raise binding_error(INVALID_ARGUMENT, "the output is read-only. Fix: pass a writable array or bytearray.")
        pointer = ffi.from_buffer(view, require_writable=True)
        check(_library.F.cuabi_buffer_read(self._ptr, offset, pointer, view.nbytes, _stream_ptr(stream)))
        return out

    def copy_from(self, source: "Buffer", size: Optional[int] = None, offset: int = 0,
                  source_offset: int = 0, stream: Optional[Stream] = None) -> None:
        count = source.size - source_offset if size is None else size
        check(_library.F.cuabi_buffer_copy(self._ptr, offset, source._ptr, source_offset, count,
                                                      _stream_ptr(stream)))

    def copy_from_peer(self, source: "Buffer", size: Optional[int] = None, offset: int = 0,
                       source_offset: int = 0, staged: bool = False, stream: Optional[Stream] = None) -> None:
        """Copies from `source` on any device. The stream's device (this buffer's without a stream)
        needs peer access to the other (Context.enable_peer_access) unless `staged`, which lets the
        driver copy through host memory; otherwise GeneralError CUABI_ERROR_CONTEXT_MISMATCH names
        both devices."""
        count = source.size - source_offset if size is None else size
        flags = _library.CONSTANTS["CUABI_PEER_COPY_STAGED" if staged else "CUABI_PEER_COPY_DEFAULT"]
        check(_library.F.cuabi_buffer_copy_peer(self._ptr, offset, source._ptr, source_offset, count, flags,
                                                _stream_ptr(stream)))

    def fill(self, value: int, element_size: int = 4, count: Optional[int] = None, offset: int = 0,
             stream: Optional[Stream] = None) -> None:
        """Sets `count` elements of `element_size` bytes (1, 2 or 4) to the bit pattern `value`."""
        n = (self.size - offset) // element_size if count is None else count
        check(_library.F.cuabi_buffer_fill(self._ptr, offset, value, element_size, n, _stream_ptr(stream)))

    def view(self, typestr: str, shape: Optional[Tuple[int, ...]] = None) -> "Buffer":
        """Describes the contents as `typestr` ("<f4") and `shape` for export (same buffer)."""
        self.typestr, self.shape = typestr, shape if shape is not None else (self.size // int(typestr[2:]),)
        return self

    @property
    def __cuda_array_interface__(self) -> dict[str, Any]:
        return {"shape": self.shape, "typestr": self.typestr, "data": (self.address, False),
                "version": 3, "strides": None, "stream": None}

    def __dlpack__(self, stream: Any = None, max_version: Any = None, dl_device: Any = None,
                   copy: Any = None) -> Any:
        # cuabi does not know which stream last wrote the buffer, so it cannot order `stream` after
        # it: the caller synchronizes that stream before exporting (README "Interop").
        return dlpack.export(self, self.address, self.context.device, self.shape, self.typestr)

    def __dlpack_device__(self) -> Tuple[int, int]:
        return (dlpack.K_DL_CUDA, self.context.device)

    # --- stream-ordered and managed memory ---

    @staticmethod
    def allocate_async(context: Context, size: int, pool: Any = None, stream: Optional[Stream] = None,
                       zero: bool = False) -> "Buffer":
        """`size` bytes allocated in stream order on `stream` (None: done before returning) from
        `pool` (a MemoryPool; None: the device's default pool). On a capturing stream it becomes a
        graph memory node. Free it with free_async; close() frees it at once without waiting."""
        options = _structs.new("cuabi_buffer_options")
        options.flags = 1 if zero else 0  # CUABI_BUFFER_ZERO
        out = ffi.new("cuabi_buffer**")
        check(_library.F.cuabi_buffer_create_async(context._ptr, size, ffi.NULL if pool is None else pool._ptr,
                                                   options, _stream_ptr(stream), out))
        return Buffer(context, out[0], pool)

    def free_async(self, stream: Optional[Stream] = None) -> None:
        """Frees a stream-ordered buffer when `stream` (None: waited for) reaches this point; the
        Buffer is closed at once. On error it stays open."""
        check(_library.F.cuabi_buffer_free_async(self._ptr, _stream_ptr(stream)))
        # The handle died with the free: forget it without destroying it again.
        self._owner.forget()

    @staticmethod
    def allocate_managed(context: Context, size: int, attach_host: bool = False) -> "Buffer":
        """`size` bytes of managed memory: one address for the host (host_view) and the device."""
        out = ffi.new("cuabi_buffer**")
        flags = _library.CONSTANTS["CUABI_MANAGED_ATTACH_HOST" if attach_host else "CUABI_MANAGED_DEFAULT"]
        check(_library.F.cuabi_buffer_create_managed(context._ptr, size, flags, out))
        return Buffer(context, out[0])

    def host_view(self) -> memoryview:
        """A managed buffer's bytes at their host address (numpy.frombuffer takes it), valid while
        the Buffer is open; touching them races with kernels that use it."""
        pointer = ffi.new("void**")
        check(_library.F.cuabi_buffer_get_host_pointer(self._ptr, pointer))
        return memoryview(ffi.buffer(ffi.cast("char*", pointer[0]), self.size))

    def prefetch(self, location: int, offset: int = 0, size: Optional[int] = None,
                 stream: Optional[Stream] = None) -> None:
        """Migrates managed bytes to `location` (a device ordinal or LOCATION_HOST) on `stream`
        (None: done before returning)."""
        count = self.size - offset if size is None else size
        check(_library.F.cuabi_buffer_prefetch(self._ptr, offset, count, location, _stream_ptr(stream)))

    def advise(self, advice: int, location: int = 0, offset: int = 0, size: Optional[int] = None) -> None:
        """Tells the driver how managed bytes are used (an ADVICE_* constant; the location is a
        device ordinal or LOCATION_HOST, ignored by the read-mostly advice)."""
        count = self.size - offset if size is None else size
        check(_library.F.cuabi_buffer_advise(self._ptr, offset, count, advice, location))


class _Deleting:
    """Hands an imported DLPack tensor back to its producer when the wrapping Buffer is destroyed."""

    def __init__(self, imported: dlpack.Imported) -> None:
        self.imported = imported

    def __del__(self) -> None:
        self.imported.delete()


def interface_extent(interface: dict[str, Any]) -> Tuple[int, int]:
    """(address, bytes spanned) of a __cuda_array_interface__ dict; strides are in bytes there."""
    address = int(interface["data"][0])
    itemsize = int(interface["typestr"][2:])
    strides = interface.get("strides")
    elements = None if strides is None else [s // itemsize for s in strides]
    return address, dlpack.extent(list(interface["shape"]), elements, itemsize)


def _array_layout(data: Any) -> Tuple[Optional[str], Tuple[int, ...]]:
    """A NumPy array's typestr and shape; (None, ()) for plain bytes."""
    interface = getattr(data, "__array_interface__", None)
    if interface is None:
        return None, ()
    return str(interface["typestr"]), tuple(interface["shape"])
