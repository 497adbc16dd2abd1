"""Kernels and launches.

A launch packs the Python arguments at the offsets of the kernel's real parameter layout (read
once from cuabi_kernel_get_param_info) and calls cuabi_launch_packed, which checks the geometry,
shared memory and the packed size.

Where the package's extension (cuabi._native, built for CPython's stable ABI) is importable, a
launcher is a C object: it packs exact Python ints, floats and cuabi Buffers on the stack and calls
cuabi_launch_packed with the GIL released, so a launch costs one C call from Python; NumPy
scalars too, once the Python packer has encoded one of their type (_NATIVE_SCALARS). Any other
argument (ctypes values, bytes, other libraries' arrays), a wrong count, a value out of range or
of another size goes to the Python launcher below, which packs, launches and refuses exactly as
it does without the extension. The Python packing is decided once per kernel and per tuple of
argument types, as one struct.Struct.
"""

from __future__ import annotations

import ctypes
import struct
from typing import TYPE_CHECKING, Any, Callable, Dict, Optional, Sequence, Tuple, Union

from . import _library, _structs
from ._handle import Handle
from .buffer import Buffer, interface_extent
from .context import Stream
from .errors import ARGUMENT_COUNT, ARGUMENT_SIZE, INVALID_ARGUMENT, binding_error, check, last_error

if TYPE_CHECKING:
    from . import _native

ffi = _library.ffi

LAUNCH_COOPERATIVE, LAUNCH_SYNCHRONIZE, LAUNCH_PRIORITY, LAUNCH_PROGRAMMATIC_DEPENDENT = (
    _library.CONSTANTS["CUABI_LAUNCH_" + name] for name in ("COOPERATIVE", "SYNCHRONIZE", "PRIORITY",
                                                            "PROGRAMMATIC_DEPENDENT"))

Dim = Union[int, Tuple[int, ...]]
_PACKED_SIGNATURE = "cuabi_status(*)(cuabi_kernel*, const cuabi_launch_config*, const char*, size_t)"

# Scalar types (NumPy's) the extension packs itself, by type: (kind << 8) | size, the kind one of
# native/native.h's NATIVE_SCALAR_*. Each is added when the Python packer first encodes one, so the
# package never imports NumPy; every Layout shares this dict.
_NATIVE_SCALARS: Dict[type, int] = {}
_NATIVE_KINDS = {"f": 1, "i": 2, "u": 3, "b": 4}

_UNSIGNED = {1: "B", 2: "H", 4: "I", 8: "Q"}
_SIGNED = {1: "b", 2: "h", 4: "i", 8: "q"}
_FLOAT = {2: "e", 4: "f", 8: "d"}


def _dim3(value: Dim) -> Tuple[int, int, int]:
    parts = (value,) if isinstance(value, int) else tuple(value) if isinstance(value, (tuple, list)) else ()
    if not 1 <= len(parts) <= 3:
        raise binding_error(INVALID_ARGUMENT, f"a grid, block or cluster has 1 to 3 dimensions; got {value!r}. "
                            "Fix: pass an int or a tuple (x, y, z).")
    if not all(isinstance(p, int) and 0 <= p <= 0xFFFFFFFF for p in parts):
        raise binding_error(INVALID_ARGUMENT, f"a grid, block or cluster dimension is not an unsigned 32-bit "
                            f"integer: {value!r}. Fix: pass ints from 1 to 2**32 - 1.")
    return (tuple(parts) + (1, 1))[:3]  # type: ignore[return-value]


class LaunchConfig:
    """Grid, block, stream and the rest of a launch, built into C once and reused by every launch
    that names it. Without a stream the launch is synchronous."""

    __slots__ = ("grid", "block", "stream", "shared_memory_bytes", "flags", "_c", "_address")

    def __init__(self, grid: Dim, block: Dim, stream: Optional[Stream] = None, shared_memory_bytes: int = 0,
                 flags: int = 0, cluster: Optional[Dim] = None, priority: int = 0) -> None:
        self.grid, self.block, self.stream = _dim3(grid), _dim3(block), stream
        self.shared_memory_bytes, self.flags = shared_memory_bytes, flags
        config = _structs.new("cuabi_launch_config")
        config.flags = flags
        config.grid, config.block = list(self.grid), list(self.block)
        if cluster is not None:
            config.cluster = list(_dim3(cluster))
        config.shared_memory_bytes = shared_memory_bytes
        config.stream = ffi.NULL if stream is None else stream._ptr
        config.priority = priority
        self._c = config
        self._address = _library.address_of(config)


def _foreign_address(value: Any) -> int:
    """The device address of another library's array (a kernel's T* argument)."""
    interface = getattr(value, "__cuda_array_interface__", None)
    if interface is not None:
        return interface_extent(interface)[0]
    raise TypeError(type(value).__name__)


def _exact_bytes(size: int) -> Callable[[Any], bytes]:
    def convert(value: Any) -> bytes:
        data = bytes(value)
        if len(data) != size:
            raise _SizeMismatch(len(data))
        return data

    return convert


class _SizeMismatch(Exception):
    def __init__(self, size: int) -> None:
        self.size = size


def _encoding(value: Any, size: int) -> Tuple[str, Optional[Callable[[Any], Any]], int]:
    """(struct format, converter or None, the value's own size) of one argument for a parameter
    of `size` bytes. Python ints and floats have no size of their own and take the parameter's."""
    kind = type(value)
    if kind is bool and size == 1:
        return "?", None, 1
    if issubclass(kind, int):  # int, bool, IntEnum, and Buffer through __index__ is below
        return _UNSIGNED.get(size, ""), None, size
    if kind is float:
        return _FLOAT.get(size, ""), None, size
    if isinstance(value, Buffer):
        return "Q", None, 8
    if kind.__module__ == "numpy" and hasattr(value, "dtype"):
        own = int(value.dtype.itemsize)
        code = {"i": _SIGNED, "u": _UNSIGNED, "f": _FLOAT}.get(value.dtype.kind, {}).get(own)
        if value.dtype.kind == "b":
            code = "?"
        if code and code != "e":  # the extension packs float32/64, integers and bools, not float16
            _NATIVE_SCALARS[kind] = _NATIVE_KINDS[value.dtype.kind] << 8 | own
        return (code, None, own) if code else (f"{own}s", lambda v: v.tobytes(), own)
    if isinstance(value, (ctypes._SimpleCData, ctypes.Structure, ctypes.Array)):
        own = ctypes.sizeof(value)
        return f"{own}s", bytes, own
    if isinstance(value, (bytes, bytearray, memoryview)):
        own = memoryview(value).nbytes
        return f"{size}s", _exact_bytes(size), own
    if hasattr(value, "__cuda_array_interface__"):
        return "Q", _foreign_address, 8
    raise TypeError(kind.__name__)


def _converting(pack: Callable[..., bytes], convert: Sequence[Optional[Callable[[Any], Any]]]) -> Callable[..., bytes]:
    """`pack` after converting the arguments that need it (foreign arrays, ctypes values, bytes)."""

    def packer(*args: Any) -> bytes:
        return pack(*[c(a) if c is not None else a for c, a in zip(convert, args)])

    return packer


class ParamLayout:
    """A kernel's parameters, (offset, size) each as cuabi reports them, and how Python arguments
    pack into them: decided once per tuple of argument types and remembered."""

    __slots__ = ("name", "params", "size", "packers")

    def __init__(self, name: str, params: Sequence[Tuple[int, int]]) -> None:
        self.name = name
        self.params: Tuple[Tuple[int, int], ...] = tuple(params)
        self.size = self.params[-1][0] + self.params[-1][1] if self.params else 0
        # By tuple of argument types: a function of the arguments giving the packed bytes (for
        # plain numbers and Buffers, struct.Struct.pack itself: no Python frame per launch).
        self.packers: Dict[Tuple[type, ...], Callable[..., bytes]] = {}

    def packer(self, args: Tuple[Any, ...]) -> Callable[..., bytes]:
        """The packing of arguments of these types (built and remembered on first use)."""
        key = tuple(map(type, args))
        found = self.packers.get(key)
        if found is not None:
            return found
        self._check_count(len(args))
        layout, convert, cursor = ["<"], [], 0
        for index, ((offset, size), value) in enumerate(zip(self.params, args)):
            try:
                code, converter, own = _encoding(value, size)
            except TypeError:
                raise binding_error(INVALID_ARGUMENT, self._describe(index, size) +
                                    f" cannot take a {type(value).__name__}. Fix: pass an int, float, NumPy "
                                    "scalar, ctypes value, bytes, Buffer or device array.") from None
            if not code or own != size:
                raise self._size_error(index, size, own if code else None, value)
            if offset > cursor:
                layout.append(f"{offset - cursor}x")
            layout.append(code)
            convert.append(converter)
            cursor = offset + size
        pack = struct.Struct("".join(layout)).pack
        found = _converting(pack, convert) if any(c is not None for c in convert) else pack
        if len(self.packers) < 256:
            self.packers[key] = found
        return found

    def pack(self, args: Tuple[Any, ...]) -> bytes:
        """The arguments as cuabi_launch_packed takes them (also what a batch launch needs)."""
        try:
            return self.packer(args)(*args)
        except struct.error:
            return self._pack_signed(args)
        except _SizeMismatch as mismatch:
            index = next(i for i, a in enumerate(args) if isinstance(a, (bytes, bytearray, memoryview))
                         and memoryview(a).nbytes == mismatch.size)
            raise self._size_error(index, self.params[index][1], mismatch.size, args[index]) from None

    def _pack_signed(self, args: Tuple[Any, ...]) -> bytes:
        """The slow path of a Python int the unsigned encoding refused: negative ones go signed,
        and one that fits neither is reported with its parameter."""
        data = bytearray(self.size)
        for index, ((offset, size), value) in enumerate(zip(self.params, args)):
            data[offset:offset + size] = self.pack_one(index, value, size)
        return bytes(data)

    def pack_one(self, index: int, value: Any, size: int) -> bytes:
        if isinstance(value, (bytes, bytearray, memoryview)):
            return bytes(value)
        if type(value) is int and value < 0 and size in _SIGNED:
            encoding = _SIGNED[size]
        else:
            encoding, converter, _ = _encoding(value, size)
            value = converter(value) if converter is not None else value
        try:
            return struct.pack("<" + encoding, value)
        except (struct.error, OverflowError):
            raise binding_error(INVALID_ARGUMENT, self._describe(index, size) +
                                f" cannot hold {value!r}. Fix: pass a value in the parameter's range.") from None

    def own_size(self, index: int, value: Any) -> int:
        """The size an argument travels at in cuabi's argument table: its own, or for a Python int
        or float (which have none) the parameter's."""
        size = self.params[index][1] if index < len(self.params) else 8
        # Exactly int or float: NumPy's float64 is a float subclass, yet has a size of its own.
        if type(value) in (int, float):
            return size
        try:
            return _encoding(value, size)[2]
        except TypeError:
            raise binding_error(INVALID_ARGUMENT, self._describe(index, size) +
                                f" cannot take a {type(value).__name__}.") from None

    def _check_count(self, given: int) -> None:
        if given != len(self.params):
            raise binding_error(ARGUMENT_COUNT, f"kernel '{self.name}' has {len(self.params)} parameters; "
                                f"{given} arguments were given. Fix: pass one argument per parameter.")

    def _describe(self, index: int, size: int) -> str:
        return f"parameter {index} of kernel '{self.name}' ({size} bytes)"

    def _size_error(self, index: int, size: int, own: Optional[int], value: Any) -> Exception:
        what = f"a {type(value).__name__}" + (f" of {own} bytes" if own is not None else " that has no "
                                              f"{size}-byte encoding")
        return binding_error(ARGUMENT_SIZE, f"{self._describe(index, size)} got {what}. Fix: pass a value of "
                             f"the parameter's C size (e.g. numpy.float32 for float, numpy.uint32 for unsigned).")


class Kernel(Handle):
    """A kernel of a module. `kernel[grid, block, stream](*args)` launches it; so does
    `kernel.launch(config, *args)` with a LaunchConfig built once.

    Arguments, one per parameter in order: a Python int or float takes the parameter's size
    (a float parameter gets a float32, a double one a float64); NumPy scalars, ctypes values and
    bytes have their own size, which must equal the parameter's (else LaunchError
    CUABI_ERROR_ARGUMENT_SIZE before anything runs); a Buffer, or any object with
    __cuda_array_interface__ (CuPy, PyTorch, Numba), is its device address."""

    __slots__ = ("name", "layout", "_launchers", "_launch_packed", "_address", "_native_layout")
    _destroy_name = "cuabi_kernel_destroy"

    def __init__(self, ptr: Any, name: str) -> None:
        self._address = _library.address_of(ptr)
        super().__init__(ptr, address=self._address)
        self.name = name
        count = ffi.new("size_t*")
        check(_library.F.cuabi_kernel_get_param_count(ptr, count))
        offset, size = ffi.new("size_t*"), ffi.new("size_t*")
        params = []
        for index in range(count[0]):
            check(_library.F.cuabi_kernel_get_param_info(ptr, index, offset, size))
            params.append((int(offset[0]), int(size[0])))
        self.layout = ParamLayout(name, params)
        self._launchers: Dict[Any, Callable[..., None]] = {}
        self._launch_packed = _library.lib().cast("cuabi_launch_packed", _PACKED_SIGNATURE)
        # The layout the extension packs into; None where a kernel's parameters are larger than it
        # packs on the stack (those launch through the Python packer).
        self._native_layout: Optional["_native.Layout"] = None
        native = _library.native
        if native is not None and self.layout.size <= native.MAX_PACKED:
            try:
                self._native_layout = native.Layout(self.layout.params, Buffer, _NATIVE_SCALARS)
            except ValueError:  # parameters out of order or overlapping: the Python packer's to judge
                pass

    @property
    def params(self) -> Tuple[Tuple[int, int], ...]:
        """(offset, size) of each parameter, as cuabi_kernel_get_param_info reports them."""
        return self.layout.params

    def __getitem__(self, key: Tuple[Any, ...]) -> Callable[..., None]:
        """kernel[grid, block], kernel[grid, block, stream] or kernel[grid, block, stream,
        shared_memory_bytes]: a launcher for that geometry (remembered, so use in a loop is cheap)."""
        found = self._launchers.get(key)
        if found is None:
            found = self._remember(key, LaunchConfig(*key))
        return found

    def launch(self, config: LaunchConfig, *args: Any) -> None:
        """Launches with `config` (its launcher is remembered, as kernel[...]'s are)."""
        found = self._launchers.get(config)
        if found is None:
            found = self._remember(config, config)
        found(*args)

    def launcher(self, config: LaunchConfig) -> Callable[..., None]:
        """A callable that launches this kernel with `config`: the extension's C launcher where it
        is importable, else the Python Launcher."""
        python = Launcher(self, config)
        native, launch = _library.native, _library.A.cuabi_launch_packed
        if native is None or self._native_layout is None or not launch:
            return python
        return native.Launcher(self._native_layout, launch, self._address, config._address, (self, config), python,
                               last_error)

    def _remember(self, key: Any, config: LaunchConfig) -> Callable[..., None]:
        if len(self._launchers) >= 64:
            self._launchers.clear()
        found = self.launcher(config)
        self._launchers[key] = found
        return found

    def pack(self, args: Tuple[Any, ...]) -> bytes:
        return self.layout.pack(args)

    def launch_table(self, config: LaunchConfig, *args: Any) -> None:
        """The same launch through cuabi's argument table (cuabi_launch): every argument travels at
        its own size and cuabi checks each against the parameter's, so a mismatch is the library's
        own CUABI_ERROR_ARGUMENT_SIZE. Python ints and floats take the parameter's size."""
        sizes = [self.layout.own_size(i, a) for i, a in enumerate(args)]
        values = [self.layout.pack_one(i, a, s) for i, (a, s) in enumerate(zip(args, sizes))]
        keep = [ffi.from_buffer(v) for v in values]
        table = ffi.new("cuabi_kernel_arg[]", max(len(args), 1))
        for slot, pointer, size in zip(table, keep, sizes):
            slot.value, slot.size = pointer, size
        check(_library.F.cuabi_launch(self._ptr, config._c, table, len(args)))

    def attributes(self) -> Dict[str, int]:
        attributes = _structs.new("cuabi_kernel_attributes")
        check(_library.F.cuabi_kernel_get_attributes(self._ptr, attributes))
        return {name: int(getattr(attributes, name)) for name, _ in ffi.typeof(attributes[0]).fields
                if name not in ("struct_size", "reserved")}

    def suggest_block_size(self, shared_memory_bytes: int = 0) -> Tuple[int, int]:
        """(block threads, minimum grid blocks) for full occupancy."""
        block, grid = ffi.new("uint32_t*"), ffi.new("uint32_t*")
        check(_library.F.cuabi_kernel_suggest_block_size(self._ptr, shared_memory_bytes, block, grid))
        return int(block[0]), int(grid[0])


class Launcher:
    """A kernel bound to a LaunchConfig: calling it launches. Without the extension, and for the
    arguments it leaves to Python, this is the launch: one dict lookup for the packing, one
    struct.pack, one C call."""

    __slots__ = ("kernel", "config", "_packers", "_call", "_ptr", "_c", "_size")

    def __init__(self, kernel: Kernel, config: LaunchConfig) -> None:
        self.kernel, self.config = kernel, config
        self._packers = kernel.layout.packers
        self._call = kernel._launch_packed
        self._ptr, self._c, self._size = kernel._ptr, config._c, kernel.layout.size

    def __call__(self, *args: Any) -> None:
        packer = self._packers.get(tuple(map(type, args)))
        try:
            data = packer(*args) if packer is not None else self.kernel.pack(args)
        except (struct.error, _SizeMismatch):
            data = self.kernel.pack(args)
        status = self._call(self._ptr, self._c, data, self._size)
        if status:
            raise last_error(status)
