"""The extension cuabi._native against the Python packer: the same bytes for every argument it
packs itself, and every other argument left to Python (whose messages and statuses then apply)."""

from __future__ import annotations

import struct
from typing import Any, List

import numpy as np
import pytest

import cuabi
from cuabi import errors
from cuabi.kernel import _NATIVE_SCALARS, ParamLayout

native = cuabi._library.native
pytestmark = pytest.mark.skipif(native is None, reason="cuabi._native is not built (CUABI_PYTHON_EXTENSION_DIR)")

PARAMS = [(0, 1), (2, 2), (4, 4), (8, 8), (16, 4), (24, 8)]


class FakeBuffer:
    """Stands for cuabi.Buffer here (no GPU): the Layout packs objects of exactly this type."""

    def __init__(self, address: Any) -> None:
        self.address = address


class SubBuffer(FakeBuffer):
    pass


def error(status: int) -> BaseException:
    return RuntimeError(status)


def ignore(*args: Any) -> None:
    pass


def layouts() -> Any:
    return native.Layout(PARAMS, FakeBuffer, _NATIVE_SCALARS), ParamLayout("k", PARAMS)


def edges(size: int) -> List[int]:
    bits = 8 * size
    return [0, 1, (1 << bits) - 1, -1, -(1 << (bits - 1)), (1 << (bits - 1)) - 1]


@pytest.mark.parametrize("index", range(len(PARAMS)))
def test_ints_at_the_edges_of_each_size_pack_as_python_packs_them(index: int) -> None:
    fast, slow = layouts()
    size = PARAMS[index][1]
    for value in edges(size):
        args = tuple(value if i == index else 0 for i in range(len(PARAMS)))
        assert fast.pack(args) == slow.pack(args), (index, value)


@pytest.mark.parametrize("index, value", [(0, 1 << 8), (0, -(1 << 7) - 1), (2, 1 << 32), (2, -(1 << 31) - 1),
                                          (3, 1 << 64), (3, -(1 << 63) - 1), (3, 1 << 200), (3, -(1 << 200))])
def test_an_int_out_of_range_is_left_to_python_which_refuses_it(index: int, value: int) -> None:
    fast, slow = layouts()
    args = tuple(value if i == index else 0 for i in range(len(PARAMS)))
    assert fast.pack(args) is None
    with pytest.raises(cuabi.GeneralError, match=f"parameter {index} .*cannot hold.*Fix:"):
        slow.pack(args)


def test_floats_pack_as_float32_or_float64_by_size() -> None:
    fast, slow = layouts()
    for value in (1.5, -0.0, float("inf"), float("nan"), 3.4e38, 1e-45, 1e300):
        args = (0, 0, value, value, 0, 0) if value != 1e300 else (0, 0, 0, value, 0, 0)
        assert fast.pack(args) == slow.pack(args), value
    assert struct.unpack_from("<f", fast.pack((0, 0, 2.5, 0, 0, 0)), 4) == (2.5,)


def test_a_float_too_large_for_float32_is_left_to_python() -> None:
    fast, slow = layouts()
    assert fast.pack((0, 0, 1e300, 0, 0, 0)) is None
    with pytest.raises(OverflowError):
        slow.pack((0, 0, 1e300, 0, 0, 0))


def test_a_buffer_packs_its_address_and_only_an_exact_buffer_does() -> None:
    fast, _ = layouts()
    packed = fast.pack((0, 0, 0, FakeBuffer(0xDEAD0000), 0, 0))
    assert packed is not None and struct.unpack_from("<Q", packed, 8) == (0xDEAD0000,)
    for impostor in (SubBuffer(0x1000), FakeBuffer("0x1000"), FakeBuffer(-1), FakeBuffer(1 << 64), object()):
        assert fast.pack((0, 0, 0, impostor, 0, 0)) is None
    assert fast.pack((0, 0, FakeBuffer(0x1000), 0, 0, 0)) is None  # a 4-byte parameter: a size error in Python


@pytest.mark.parametrize("value", [True, np.float32(1.0), np.uint32(1), np.float16(1), b"\0" * 8, bytearray(8), "1"])
def test_other_types_and_sizes_are_left_to_python(value: Any) -> None:
    fast, slow = layouts()
    args = (0, 0, 0, value, 0, 0)
    try:
        slow.pack(args)  # teaches the extension a NumPy type, as a first launch would
    except cuabi.CuabiError:
        pass
    assert fast.pack(args) is None


@pytest.mark.parametrize("index, values", [
    (0, [np.int8(-128), np.int8(127), np.uint8(255), np.bool_(True), np.bool_(False)]),
    (1, [np.int16(-2), np.uint16(65535)]),
    (2, [np.float32(1.5), np.float32(-np.inf), np.int32(-(1 << 31)), np.uint32((1 << 32) - 1)]),
    (3, [np.float64(2.25), np.int64(-(1 << 63)), np.uint64((1 << 64) - 1), np.uint64(1 << 63)])])
def test_numpy_scalars_of_the_parameter_size_pack_as_python_packs_them(index: int, values: List[Any]) -> None:
    fast, slow = layouts()
    for value in values:
        args = tuple(value if i == index else 0 for i in range(len(PARAMS)))
        want = slow.pack(args)  # teaches the extension the type, as a first launch would
        assert type(value) in _NATIVE_SCALARS
        assert fast.pack(args) == want, value


def test_a_forged_scalar_code_is_left_to_python() -> None:
    class Scalar(float):
        pass

    forged: Any = {Scalar: "f4", float: 0}
    fast = native.Layout(PARAMS, FakeBuffer, forged)
    assert fast.pack((0, 0, Scalar(1.0), 0, 0, 0)) is None
    fast = native.Layout(PARAMS, FakeBuffer, {Scalar: 7 << 8 | 4})  # no such kind
    assert fast.pack((0, 0, Scalar(1.0), 0, 0, 0)) is None


def test_a_wrong_count_is_left_to_python() -> None:
    fast, slow = layouts()
    assert fast.pack((0,) * 5) is None and fast.pack((0,) * 7) is None
    with pytest.raises(cuabi.LaunchError) as raised:
        slow.pack((0,) * 5)
    assert raised.value.status == errors.ARGUMENT_COUNT


def test_padding_is_zeroed_and_no_parameters_pack_to_nothing() -> None:
    assert native.Layout([(0, 1), (8, 8)], FakeBuffer, {}).pack((0xFF, 1)) == b"\xff" + b"\0" * 7 + b"\1" + b"\0" * 7
    assert native.Layout([], FakeBuffer, {}).pack(()) == b""


@pytest.mark.parametrize("params", [[(0, 8), (4, 4)], [(0, 0)], [(0, native.MAX_PACKED + 1 if native else 0)],
                                    [(-1, 4)], [(0, 4, 4)], ["x"]])
def test_a_forged_layout_is_refused(params: Any) -> None:
    with pytest.raises((ValueError, TypeError, OverflowError)):
        native.Layout(params, FakeBuffer, {})


def test_a_launcher_needs_addresses_and_callables() -> None:
    layout, _ = layouts()
    launch: Any
    for launch, kernel, config in ((0, 1, 1), (1, 0, 1), (1, 1, 0), ("1", 1, 1)):
        with pytest.raises((ValueError, TypeError)):
            native.Launcher(layout, launch, kernel, config, None, ignore, error)
    not_callable: Any = None
    with pytest.raises(TypeError):
        native.Launcher(layout, 1, 1, 1, None, not_callable, error)


def test_a_launcher_hands_what_it_does_not_pack_to_its_fallback_with_the_arguments() -> None:
    calls: List[Any] = []
    layout, _ = layouts()
    # The function address is never called: every call below goes to the fallback.
    launcher = native.Launcher(layout, 1, 1, 1, None, lambda *args: calls.append(args), error)
    launcher(1, 2)
    launcher(0, 0, 0, np.uint32(5), 0, 0)
    launcher(0, 0, 0, 1 << 64, 0, 0)
    assert calls == [(1, 2), (0, 0, 0, np.uint32(5), 0, 0), (0, 0, 0, 1 << 64, 0, 0)]
    with pytest.raises(TypeError):
        launcher(0, 0, 0, 0, 0, 0, extra=1)  # type: ignore[call-arg]  # keywords too go to the fallback, which takes none


def test_a_batch_refuses_a_forged_capacity_or_item() -> None:
    for capacity in (0, -1, cuabi.LAUNCH_BATCH_MAX_ITEMS + 1):
        with pytest.raises(ValueError):
            native.Batch(capacity, 1, error)
    batch = native.Batch(1, 1, error)
    layout, _ = layouts()
    with pytest.raises(ValueError):
        batch.add(layout, 0, 1, None, (0,) * 6)
    assert batch.add(layout, 1, 1, None, (0, 0, 0, object(), 0, 0)) is False and len(batch) == 0
    assert batch.add(layout, 1, 1, None, (0,) * 6) is True and len(batch) == 1
    with pytest.raises(IndexError):
        batch.add_packed(1, 1, None, b"")
    batch.clear()
    assert len(batch) == 0


def test_a_memory_hit_through_either_path(launch_path: str) -> None:
    source = f'extern "C" __global__ void k_{launch_path}() {{}}\n'
    cuabi.compile(source, target="sm_90").close()
    with cuabi.compile(source, target="sm_90") as module:
        assert module.info().origin == cuabi.ORIGIN_MEMORY_CACHE
    with pytest.raises(cuabi.CompileError) as failed:
        cuabi.compile("this is not C++", target="sm_90")
    assert failed.value.status == errors.COMPILE and failed.value.compile_log


def test_kernels_on_a_gpu_launch_through_the_extension(context: cuabi.Context) -> None:
    module = context.compile('extern "C" __global__ void store(unsigned* out, unsigned v) { *out = v; }\n')
    kernel = module.kernel("store")
    out = context.alloc(4, zero=True)
    launcher = kernel[1, 1]
    assert type(launcher) is native.Launcher
    launcher(out, 7)
    assert out.read(np.empty(1, dtype=np.uint32))[0] == 7
    launcher(out, np.uint32(9))
    assert out.read(np.empty(1, dtype=np.uint32))[0] == 9
    launcher(out, np.uint32(11))  # np.uint32 taught by the launch before: packed in C
    assert out.read(np.empty(1, dtype=np.uint32))[0] == 11
    with pytest.raises(cuabi.LaunchError) as size:
        launcher(out, np.uint64(1))
    assert size.value.status == errors.ARGUMENT_SIZE
    with pytest.raises(cuabi.GeneralError, match="cannot hold.*Fix:"):
        launcher(out, 1 << 32)
    with pytest.raises(cuabi.LaunchError) as count:
        launcher(out)
    assert count.value.status == errors.ARGUMENT_COUNT
    kernel.close()
    with pytest.raises(cuabi.GeneralError) as stale:
        launcher(out, 1)
    assert stale.value.status == errors.INVALID_HANDLE


def test_a_module_the_extension_made_closes_through_it_with_the_extension_switched_off(
        monkeypatch: pytest.MonkeyPatch) -> None:
    module = cuabi.compile('extern "C" __global__ void k_switched() {}\n', target="sm_90")
    assert type(module._owned[0]) is int  # owned as the extension made it
    monkeypatch.setattr(cuabi._library, "native", None)
    module.close()
    assert module.closed
    with pytest.raises(cuabi.GeneralError) as raised:
        module.info()  # its cffi pointer made now, from the address: a closed handle
    assert raised.value.status == errors.INVALID_HANDLE


def test_an_empty_launch_batch_through_either_path(launch_path: str) -> None:
    batch = cuabi.LaunchBatch(2)
    batch.launch()  # count 0: cuabi_launch_batch succeeds and writes 0
    assert batch.submitted == 0 and len(batch) == 0
    assert (batch._native is not None) == (launch_path == "native")
    batch.clear()
    assert len(batch) == 0
