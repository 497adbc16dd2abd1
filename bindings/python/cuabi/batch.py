"""Batched launches: several launches submitted by one C call (cuabi_launch_batch)."""

from __future__ import annotations

from typing import Any, List

from . import _library
from .errors import INVALID_ARGUMENT, binding_error, last_error
from .kernel import Kernel, LaunchConfig

ffi = _library.ffi

LAUNCH_BATCH_MAX_ITEMS = _library.CONSTANTS["CUABI_LAUNCH_BATCH_MAX_ITEMS"]
_NO_BYTES = ffi.new("char[1]")  # the packed form of a kernel without parameters: a pointer, not NULL


class LaunchBatch:
    """Up to `capacity` launches, each a kernel, a LaunchConfig and its arguments (packed as
    Kernel.launch packs them, when added), submitted in order by one call of launch(). Its C items
    are allocated once, and clear() makes the batch reusable, so a batch refilled in a loop
    allocates only each launch's packed bytes.

    When item k is refused, launch() raises that item's error (its message begins
    "cuabi_launch_batch item k of n: "), items before k were submitted, none after k was, and
    `submitted` is k. Not safe for concurrent use."""

    __slots__ = ("capacity", "submitted", "_items", "_keep", "_count", "_out_submitted", "_launch", "_native")

    def __init__(self, capacity: int = 64) -> None:
        if type(capacity) is not int or not 1 <= capacity <= LAUNCH_BATCH_MAX_ITEMS:
            raise binding_error(INVALID_ARGUMENT, f"a LaunchBatch of capacity {capacity!r} was asked for; it holds "
                                f"1 to {LAUNCH_BATCH_MAX_ITEMS} launches (CUABI_LAUNCH_BATCH_MAX_ITEMS). "
                                "Fix: pass a capacity in that range.")
        self.capacity = capacity
        self.submitted = 0  # how many items the last launch() submitted
        self._count = 0
        # Where the extension is importable it holds the items, packs ints, floats, Buffers and
        # NumPy scalars itself (the rest through kernel.pack) and submits them; else cffi does.
        native, launch = _library.native, _library.A.cuabi_launch_batch
        self._native = native.Batch(capacity, launch, last_error) if native is not None and launch else None
        self._items: Any = ffi.new("cuabi_launch_item[]", capacity) if self._native is None else None
        # Per item what its C pointers point into (kernel, config, packed bytes), alive until clear().
        self._keep: List[Any] = [None] * capacity if self._native is None else []
        self._out_submitted = ffi.new("size_t*")
        self._launch = _library.F.cuabi_launch_batch

    def __len__(self) -> int:
        return self._count

    def add(self, kernel: Kernel, config: LaunchConfig, *args: Any) -> None:
        """Appends kernel(*args) with `config`. The arguments are checked against the kernel's
        parameters now (LaunchError as Kernel.launch raises); geometry and limits at launch()."""
        if self._count == self.capacity:
            raise binding_error(INVALID_ARGUMENT, f"the LaunchBatch already holds its {self.capacity} launches. "
                                "Fix: launch() and clear() it first, or make a LaunchBatch with a larger capacity.")
        native = self._native
        if native is not None:
            layout = kernel._native_layout
            if layout is None or not native.add(layout, kernel._address, config._address, (kernel, config), args):
                native.add_packed(kernel._address, config._address, (kernel, config), kernel.pack(args))
            self._count += 1
            return
        data = kernel.pack(args)
        packed = ffi.from_buffer(data) if data else _NO_BYTES
        item = self._items[self._count]
        item.kernel, item.config = kernel._ptr, config._c
        item.packed, item.packed_size = packed, len(data)
        self._keep[self._count] = (kernel, config, packed)
        self._count += 1

    def launch(self) -> None:
        """Submits every item added since the last clear(), in order (see the class for a refusal)."""
        native = self._native
        if native is not None:
            try:
                native.launch()
            finally:
                self.submitted = native.submitted
            return
        status = self._launch(self._items, self._count, self._out_submitted)
        self.submitted = int(self._out_submitted[0])
        if status:
            raise last_error(status)

    def clear(self) -> None:
        """Empties the batch, keeping its C items for the next launches."""
        if self._native is not None:
            self._native.clear()
        else:
            for index in range(self._count):
                self._keep[index] = None
        self._count = 0
