"""cuabi's kernel cache: statistics and upkeep."""

from __future__ import annotations

from typing import Dict, Tuple

from . import _library, _structs
from .errors import check

ffi = _library.ffi


def stats() -> Dict[str, int]:
    """Every field of cuabi_cache_stats: memory_hits, memory_misses, disk_hits, compiles, ..."""
    value = _structs.new("cuabi_cache_stats")
    check(_library.F.cuabi_cache_get_stats(value))
    return {name: int(getattr(value, name)) for name, _ in ffi.typeof(value[0]).fields if name != "struct_size"}


def directory() -> str:
    """The on-disk cache directory in use."""
    return _structs.text(_library.F.cuabi_cache_get_directory)


def clear() -> Tuple[int, int]:
    """Removes every on-disk entry: (entries, bytes) removed."""
    entries, size = ffi.new("uint64_t*"), ffi.new("uint64_t*")
    check(_library.F.cuabi_cache_clear(entries, size))
    return int(entries[0]), int(size[0])


def prune(max_bytes: int) -> Tuple[int, int]:
    """Evicts least recently used entries until the disk cache holds at most `max_bytes`."""
    entries, size = ffi.new("uint64_t*"), ffi.new("uint64_t*")
    check(_library.F.cuabi_cache_prune(max_bytes, entries, size))
    return int(entries[0]), int(size[0])
