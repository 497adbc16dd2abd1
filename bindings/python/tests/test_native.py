"""The extension cuabi._native against the Python packer: the same bytes for every argument it
packs itself, and every other argument left to Python (whose messages and statuses then apply)."""

from __future__ import annotations

import gc
import struct
import sys
import threading
import weakref
from typing import Any, Callable, List, cast

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
    assert type(module._owner) is native.Owner  # owned as the extension made it
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


class Kept:
    """Something a handle points into: alive until the handle is destroyed."""


def counting_destroy(calls: List[Any], result: str = "void") -> Any:
    def record(handle: Any) -> Any:
        calls.append(int(cuabi._library.ffi.cast("uintptr_t", handle)))
        return 0 if result != "void" else None

    return cuabi._library.ffi.callback(f"{result}(void*)", record)


def test_an_owner_destroys_once_keeps_its_address_and_drops_what_it_kept_after() -> None:
    calls: List[Any] = []
    destroy = counting_destroy(calls)
    kept = Kept()
    kept_ref = weakref.ref(kept)
    owner = native.Owner(cuabi._library.address_of(destroy), 0x1000, False, kept)
    del kept
    assert owner and owner.address == 0x1000 and kept_ref() is not None
    owner.close()
    owner.close()
    assert not owner and calls == [0x1000] and owner.address == 0x1000 and kept_ref() is None
    del owner
    gc.collect()
    assert calls == [0x1000]


def test_an_owner_dropped_or_collected_in_a_cycle_destroys_and_forget_does_not() -> None:
    calls: List[Any] = []
    destroy = cuabi._library.address_of(keep_alive := counting_destroy(calls))
    native.Owner(destroy, 0x2000)  # dropped at once
    assert calls == [0x2000]
    cycle: List[Any] = []
    cycle.append(native.Owner(destroy, 0x3000, False, cycle))  # reachable only from itself
    del cycle
    gc.collect()
    assert calls == [0x2000, 0x3000]
    forgotten = native.Owner(destroy, 0x4000, False, Kept())
    forgotten.forget()
    assert not forgotten
    forgotten.close()
    del forgotten
    assert calls == [0x2000, 0x3000]
    status_destroy = counting_destroy(calls, "int")  # cuabi_range_end's shape: a status, ignored
    native.Owner(cuabi._library.address_of(status_destroy), 0x5000, True).close()
    assert calls[-1] == 0x5000
    del keep_alive


@pytest.mark.parametrize("destroy, handle", [(0, 0x1000), (0x1000, 0), ("0x1000", 0x1000), (0x1000, None)])
def test_an_owner_needs_two_nonzero_addresses(destroy: Any, handle: Any) -> None:
    with pytest.raises((ValueError, OverflowError, TypeError)):
        native.Owner(destroy, handle)


def test_an_owner_takes_its_arguments_by_position_only() -> None:
    with pytest.raises(TypeError, match="by position"):
        native.Owner(0x1000, 0x1000, keep=None)  # type: ignore[call-arg]
    with pytest.raises(TypeError):
        native.Owner(0x1000)  # type: ignore[call-arg]


def test_a_compile_request_refuses_what_it_cannot_call() -> None:
    functions = (0x1000, 0x1000, 0x1000, 0x1000, 0x1000)
    with pytest.raises(TypeError, match="module_type a class"):
        native.CompileRequest(*functions, (), error, cast(Any, "not a class"))
    with pytest.raises(TypeError, match="error must be callable"):
        native.CompileRequest(*functions, (), cast(Any, 5), cuabi.Module)
    with pytest.raises(ValueError, match="nonzero address"):
        native.CompileRequest(0x1000, 0, 0x1000, 0x1000, 0x1000, (), error, cuabi.Module)


def test_a_compile_through_the_extension_takes_a_context_only() -> None:
    with pytest.raises(AttributeError):
        cuabi.compile('extern "C" __global__ void k_context() {}\n', context=object())
    failed = None
    try:
        cuabi.compile('extern "C" __global__ void k_broken() { undeclared(); }\n', target="sm_90")
    except cuabi.CompileError as raised:
        failed = raised
    assert failed is not None and "undeclared" in failed.compile_log


def python_frames_of(call: Any) -> List[str]:
    """The Python functions of the package's compile.py that run during call()."""
    names: List[str] = []

    def profile(frame: Any, event: str, arg: Any) -> None:
        if event == "call" and frame.f_code.co_filename.endswith("/cuabi/compile.py"):
            names.append(frame.f_code.co_name)

    sys.setprofile(profile)
    try:
        call()
    finally:
        sys.setprofile(None)
    return names


def test_the_front_serves_a_prepared_plain_call_in_c_and_passes_every_other_call_on() -> None:
    source = 'extern "C" __global__ void k_front() {}\n'
    assert type(cuabi.compile) is native.CompileFront
    assert "compile" in python_frames_of(lambda: cuabi.compile(source, target="sm_90").close())  # prepares
    served: List[Any] = []
    assert python_frames_of(lambda: served.append(cuabi.compile(source, target="sm_90"))) == []
    assert served[0].info().origin == cuabi.ORIGIN_MEMORY_CACHE and type(served[0]._owner) is native.Owner
    served[0].close()
    for other in ({"target": "sm_90", "program_name": "front.cu"}, {"target": "sm_90", "name_expressions": ()}):
        assert "compile" in python_frames_of(lambda: cuabi.compile(source, **other).close())
    assert "compile" in python_frames_of(lambda: cuabi.compile(source, (), target="sm_90").close())


def test_the_front_serves_a_repeat_for_a_context_from_either_spelling(context: cuabi.Context) -> None:
    source = 'extern "C" __global__ void k_front_context() {}\n'
    kept = context.compile(source)  # prepares; kept open, as a running program would
    calls: List[Callable[[], cuabi.Module]] = [lambda: context.compile(source),
                                               lambda: cuabi.compile(source, context=context)]
    for call in calls:
        served: List[Any] = []
        assert python_frames_of(lambda: served.append(call())) == []
        assert served[0].info().origin == cuabi.ORIGIN_MEMORY_CACHE and served[0].context is context
        served[0].kernel("k_front_context").close()
        served[0].close()
    kept.close()


def test_the_front_has_the_python_functions_signature_and_documentation() -> None:
    import inspect

    wrapped = getattr(cuabi.compile, "__wrapped__")
    assert inspect.signature(cuabi.compile) == inspect.signature(wrapped)
    assert cuabi.compile.__doc__ == wrapped.__doc__ and cuabi.compile.__name__ == "compile"


@pytest.mark.parametrize("args, kwargs", [
    (('extern "C" __global__ void k() {}\n',), {"target": 5}),
    ((b'extern "C" __global__ void k() {}\n',), {"target": "sm_90"}),
    (('extern "C" __global__ void k() {}\n',), {"target": "sm_90", "unknown": 1}),
    (('extern "C" __global__ void k() {}\n', (), (), 4), {}),
    ((), {"target": "sm_90"}),
    (('extern "C" __global__ void k() {}\n',), {"target": ["sm_90"]}),
    (('extern "C" __global__ void k() {}\n',), {"context": 7}),
])
def test_odd_calls_get_what_the_python_function_says(args: Any, kwargs: Any) -> None:
    def outcome(function: Any) -> Any:
        try:
            result = function(*args, **kwargs)
        except Exception as raised:  # the outcome compared is the exception itself
            return type(raised), str(raised)
        result.close()
        return "module"

    assert outcome(cuabi.compile) == outcome(getattr(cuabi.compile, "__wrapped__"))


def test_plain_compiles_from_many_threads_each_get_their_own_module() -> None:
    source = 'extern "C" __global__ void k_threads() {}\n'
    cuabi.compile(source, target="sm_90").close()
    modules: List[Any] = []

    def compile_some() -> None:
        for _ in range(200):
            modules.append(cuabi.compile(source, target="sm_90"))

    threads = [threading.Thread(target=compile_some) for _ in range(4)]
    for thread in threads:
        thread.start()
    for thread in threads:
        thread.join()
    assert len({module._owner.address for module in modules}) == len(modules) == 800
    assert all(module.info().origin == cuabi.ORIGIN_MEMORY_CACHE for module in modules)
    for module in modules:
        module.close()
