"""Memory pools for stream-ordered buffers (Buffer.allocate_async / Buffer.free_async), and the
constants of managed memory (Buffer.allocate_managed, Buffer.prefetch, Buffer.advise)."""

from __future__ import annotations

from typing import Any

from . import _library, _structs
from ._handle import Handle
from .context import Context
from .errors import check

ffi = _library.ffi
_C = _library.CONSTANTS

LOCATION_HOST = _C["CUABI_LOCATION_HOST"]  # a device is its ordinal (0, 1, ...)
ADVICE_SET_READ_MOSTLY = _C["CUABI_ADVICE_SET_READ_MOSTLY"]
ADVICE_UNSET_READ_MOSTLY = _C["CUABI_ADVICE_UNSET_READ_MOSTLY"]
ADVICE_SET_PREFERRED_LOCATION = _C["CUABI_ADVICE_SET_PREFERRED_LOCATION"]
ADVICE_UNSET_PREFERRED_LOCATION = _C["CUABI_ADVICE_UNSET_PREFERRED_LOCATION"]
ADVICE_SET_ACCESSED_BY = _C["CUABI_ADVICE_SET_ACCESSED_BY"]
ADVICE_UNSET_ACCESSED_BY = _C["CUABI_ADVICE_UNSET_ACCESSED_BY"]
MANAGED_DEFAULT = _C["CUABI_MANAGED_DEFAULT"]
MANAGED_ATTACH_HOST = _C["CUABI_MANAGED_ATTACH_HOST"]


class MemoryPool(Handle):
    """A pool of device memory for stream-ordered buffers: MemoryPool(context, ...) creates one,
    MemoryPool.default(context) is the device's default pool (closing it leaves the driver's pool
    as it is). Buffers allocated from a pool keep it alive."""

    __slots__ = ("context",)
    _destroy_name = "cuabi_memory_pool_destroy"

    def __init__(self, context: Context, max_size: int = 0, release_threshold: int = 0, *,
                 _ptr: Any = None) -> None:
        if _ptr is None:
            options = _structs.new("cuabi_memory_pool_options")
            options.max_size = max_size
            options.release_threshold = release_threshold
            out = ffi.new("cuabi_memory_pool**")
            check(_library.F.cuabi_memory_pool_create(context._ptr, options, out))
            _ptr = out[0]
        super().__init__(_ptr)
        self.context = context

    @staticmethod
    def default(context: Context) -> "MemoryPool":
        out = ffi.new("cuabi_memory_pool**")
        check(_library.F.cuabi_memory_pool_get_default(context._ptr, out))
        return MemoryPool(context, _ptr=out[0])

    def _attribute(self, name: str) -> int:
        value = ffi.new("uint64_t*")
        check(_library.F.cuabi_memory_pool_get_attribute(self._ptr, _C["CUABI_MEMORY_POOL_" + name], value))
        return int(value[0])

    @property
    def release_threshold(self) -> int:
        """Bytes kept when a synchronization finds them unused (settable)."""
        return self._attribute("RELEASE_THRESHOLD")

    @release_threshold.setter
    def release_threshold(self, value: int) -> None:
        check(_library.F.cuabi_memory_pool_set_release_threshold(self._ptr, value))

    @property
    def reserved(self) -> int:
        """Bytes the pool holds from the system now."""
        return self._attribute("RESERVED_CURRENT")

    @property
    def reserved_high(self) -> int:
        return self._attribute("RESERVED_HIGH")

    @property
    def used(self) -> int:
        """Bytes allocated to buffers now."""
        return self._attribute("USED_CURRENT")

    @property
    def used_high(self) -> int:
        return self._attribute("USED_HIGH")

    def trim(self, min_bytes_to_keep: int = 0) -> None:
        """Gives unused memory back to the system until at most min_bytes_to_keep stay reserved."""
        check(_library.F.cuabi_memory_pool_trim(self._ptr, min_bytes_to_keep))
