"""On a GPU: launches, buffers, interop, graphs. Each test skips with cuabi's reason without one
(CUABI_PYTHON_REQUIRE_GPU=1 makes that a failure)."""

from __future__ import annotations

import gc

import numpy as np
import pytest

import cuabi
from cuabi import dlpack, errors

SOURCE = """extern "C" __global__ void saxpy(float a, const float* x, float* y, unsigned n) {
    unsigned i = blockIdx.x * blockDim.x + threadIdx.x;
    if (i < n) y[i] = a * x[i] + y[i];
}
extern "C" __global__ void mixed(char c, double d, short s, long long* out) {
    out[0] = c; out[1] = (long long)d; out[2] = s;
}
extern "C" __global__ void empty() {}
"""
N = 1 << 16
# Every test here runs through the extension and through the pure-Python paths.
pytestmark = pytest.mark.usefixtures("launch_path")


@pytest.fixture
def module(context: cuabi.Context) -> cuabi.Module:
    return context.compile(SOURCE)


def test_saxpy_through_every_launch_form(context: cuabi.Context, module: cuabi.Module) -> None:
    saxpy = module.kernel("saxpy")
    assert saxpy.params == ((0, 4), (8, 8), (16, 8), (24, 4))
    x = context.to_device(np.arange(N, dtype=np.float32))
    y = context.to_device(np.ones(N, dtype=np.float32))
    with context.stream() as stream:
        saxpy[N // 256, 256, stream](2.0, x, y, N)
        saxpy.launch(cuabi.LaunchConfig(N // 256, 256, stream), np.float32(1.0), x, y, np.uint32(N))
        saxpy.launch_table(cuabi.LaunchConfig(N // 256, 256, stream), 1.0, x, y, N)
        stream.synchronize()
    got = y.read(np.empty(N, dtype=np.float32))
    assert np.array_equal(got, 1 + 4 * np.arange(N, dtype=np.float32))


def test_parameter_layout_with_padding_reaches_the_kernel(context: cuabi.Context, module: cuabi.Module) -> None:
    mixed = module.kernel("mixed")
    out = context.alloc(24, zero=True)
    mixed[1, 1](np.int8(-3), 2.0, -7, out)  # no stream: synchronous
    assert list(out.read(np.empty(3, dtype=np.int64))) == [-3, 2, -7]


def test_wrong_argument_size_launches_nothing(context: cuabi.Context, module: cuabi.Module) -> None:
    saxpy = module.kernel("saxpy")
    y = context.to_device(np.ones(N, dtype=np.float32))
    with pytest.raises(cuabi.LaunchError) as raised:
        saxpy[N // 256, 256](np.float64(2.0), y, y, N)
    assert raised.value.status == errors.ARGUMENT_SIZE
    with pytest.raises(cuabi.LaunchError) as table:
        saxpy.launch_table(cuabi.LaunchConfig(N // 256, 256), np.float64(2.0), y, y, N)
    assert table.value.status == errors.ARGUMENT_SIZE and "parameter 0" in table.value.message
    with pytest.raises(cuabi.LaunchError) as block:
        saxpy[1, (1024, 2, 1)](2.0, y, y, N)
    assert block.value.status == errors.LAUNCH_BLOCK and "2048" in block.value.message
    assert np.all(y.read(np.empty(N, dtype=np.float32)) == 1)


def test_a_batch_launches_in_order_and_stops_at_a_refused_item(context: cuabi.Context, module: cuabi.Module) -> None:
    saxpy, empty = module.kernel("saxpy"), module.kernel("empty")
    x = context.to_device(np.arange(N, dtype=np.float32))
    y = context.to_device(np.zeros(N, dtype=np.float32))
    with context.stream() as stream:
        config = cuabi.LaunchConfig(N // 256, 256, stream)
        batch = cuabi.LaunchBatch(3)
        batch.add(saxpy, config, 1.0, x, y, N)
        batch.add(empty, config)  # no parameters: still the packed form
        batch.add(saxpy, config, 2.0, x, y, N)
        with pytest.raises(cuabi.GeneralError) as full:
            batch.add(empty, config)
        assert full.value.status == errors.INVALID_ARGUMENT and "Fix:" in full.value.message
        batch.launch()
        assert batch.submitted == 3
        batch.clear()
        batch.add(saxpy, config, 1.0, x, y, N)
        batch.add(saxpy, cuabi.LaunchConfig(N // 256, (1024, 2, 1), stream), 1.0, x, y, N)
        batch.add(saxpy, config, 1.0, x, y, N)
        with pytest.raises(cuabi.LaunchError) as refused:
            batch.launch()
        assert refused.value.status == errors.LAUNCH_BLOCK
        assert refused.value.message.startswith("cuabi_launch_batch item 1 of 3: ") and batch.submitted == 1
        stream.synchronize()
    assert np.array_equal(y.read(np.empty(N, dtype=np.float32)), 4 * np.arange(N, dtype=np.float32))


def test_buffers_are_bounds_checked(context: cuabi.Context) -> None:
    buffer = context.alloc(16)
    with pytest.raises(cuabi.CudaError) as raised:
        buffer.write(b"\0" * 32)
    assert raised.value.status == errors.OUT_OF_BOUNDS


def test_cuda_array_interface_and_dlpack_round_trip(context: cuabi.Context) -> None:
    source = context.to_device(np.arange(64, dtype=np.float32))
    interface = source.__cuda_array_interface__
    assert interface["data"][0] == source.address and interface["shape"] == (64,) and interface["typestr"] == "<f4"
    assert source.__dlpack_device__() == (dlpack.K_DL_CUDA, 0)
    through_interface = context.as_buffer(_Foreign(interface))
    assert through_interface.address == source.address and through_interface.size == 256
    before = dlpack.exported_count()
    through_dlpack = cuabi.from_dlpack(source, context)
    assert through_dlpack is source  # a cuabi Buffer is taken as itself
    foreign = context.as_buffer(_DlpackOnly(source))
    assert foreign.address == source.address and foreign.size == 256
    assert dlpack.exported_count() == before + 1
    foreign.close()
    gc.collect()
    assert dlpack.exported_count() == before
    assert np.array_equal(through_interface.read(np.empty(64, dtype=np.float32)), np.arange(64, dtype=np.float32))


def test_foreign_memory_out_of_its_allocation_is_refused(context: cuabi.Context) -> None:
    source = context.alloc(256)
    too_long = {"data": (source.address, False), "shape": (1024,), "typestr": "<f4", "version": 3, "strides": None}
    with pytest.raises(cuabi.CuabiError) as raised:
        context.as_buffer(_Foreign(too_long))
    assert raised.value.status == errors.OUT_OF_BOUNDS


def test_foreign_arrays_are_kernel_arguments(context: cuabi.Context, module: cuabi.Module) -> None:
    x = context.to_device(np.ones(N, dtype=np.float32))
    y = context.to_device(np.zeros(N, dtype=np.float32))
    module.kernel("saxpy")[N // 256, 256](3.0, _Foreign(x.__cuda_array_interface__), y, N)
    assert np.all(y.read(np.empty(N, dtype=np.float32)) == 3)


def test_graph_captured_with_a_with_block(context: cuabi.Context, module: cuabi.Module) -> None:
    saxpy = module.kernel("saxpy")
    x = context.to_device(np.ones(N, dtype=np.float32))
    y = context.to_device(np.zeros(N, dtype=np.float32))
    stream = context.stream()
    launch = saxpy[N // 256, 256, stream]
    with stream.capture() as capture:
        for _ in range(3):
            launch(1.0, x, y, N)
    graph = capture.graph
    assert graph.node_count() == 3 and all(graph.node_kind(i) == 1 for i in range(3))
    graph.launch(stream)
    graph.update_kernel_args(0, saxpy, 10.0, x, y, N)
    graph.launch(stream)
    stream.synchronize()
    assert np.all(y.read(np.empty(N, dtype=np.float32)) == 3 + 12)


def test_an_exception_in_a_capture_discards_it(context: cuabi.Context, module: cuabi.Module) -> None:
    stream = context.stream()
    with pytest.raises(ZeroDivisionError):
        with stream.capture():
            module.kernel("empty")[1, 1, stream]()
            raise ZeroDivisionError
    module.kernel("empty")[1, 1, stream]()  # the stream captures no more: this runs
    stream.synchronize()


CONDITIONAL_SOURCE = """extern "C" __device__ __cudart_builtin__ void cudaGraphSetConditional(cudaGraphConditionalHandle handle, unsigned int value);
extern "C" __global__ void count_down(unsigned* counter, cudaGraphConditionalHandle condition) {
    if (--*counter == 0u) cudaGraphSetConditional(condition, 0u);
}
extern "C" __global__ void add_value(unsigned* out, unsigned value) { *out += value; }
"""


def test_a_while_node_runs_until_a_kernel_clears_the_condition(context: cuabi.Context, module: cuabi.Module) -> None:
    conditional = context.compile(CONDITIONAL_SOURCE)
    saxpy, count_down = module.kernel("saxpy"), conditional.kernel("count_down")
    x = context.to_device(np.ones(N, dtype=np.float32))
    y = context.to_device(np.zeros(N, dtype=np.float32))
    counter = context.to_device(np.array([4], dtype=np.uint32))
    stream = context.stream()
    with stream.capture() as capture:
        condition = capture.condition(default=1)
        with capture.while_loop(condition):
            saxpy[N // 256, 256, stream](1.0, x, y, N)
            count_down[1, 1, stream](counter, condition)
    graph = capture.graph
    assert graph.node_count() == 1 and graph.node_kind(0) == cuabi.NODE_CONDITIONAL
    assert graph.conditional_node(0) == cuabi.ConditionalNode(cuabi.CONDITIONAL_WHILE, 1, condition, 2)
    graph.launch(stream)
    stream.synchronize()
    assert np.all(y.read(np.empty(N, dtype=np.float32)) == 4)
    assert counter.read(np.empty(1, dtype=np.uint32))[0] == 0


def test_an_if_node_with_an_else_body_takes_the_branch_its_condition_names(context: cuabi.Context) -> None:
    from cuabi import _library

    version = _library.ffi.new("int32_t*")
    errors.check(_library.F.cuabi_driver_get_version(version))
    if version[0] < 12080:
        pytest.skip("an else body needs a CUDA 12.8 driver")
    add = context.compile(CONDITIONAL_SOURCE).kernel("add_value")
    out = context.to_device(np.zeros(1, dtype=np.uint32))
    stream = context.stream()
    with stream.capture() as capture:
        taken = capture.condition(default=1)
        with capture.if_then(taken, with_else=True) as node:
            add[1, 1, stream](out, 1)
            node.next_body()
            add[1, 1, stream](out, 10)
        not_taken = capture.condition(default=0)
        with capture.if_then(not_taken):
            add[1, 1, stream](out, 100)
    capture.graph.launch(stream)
    stream.synchronize()
    assert out.read(np.empty(1, dtype=np.uint32))[0] == 1


def test_a_forged_condition_ends_the_capture(context: cuabi.Context) -> None:
    stream = context.stream()
    with pytest.raises(cuabi.CuabiError) as raised:
        with stream.capture() as capture:
            with capture.while_loop(0x1234567):
                pass
    assert raised.value.status == errors.INVALID_ARGUMENT
    with pytest.raises(cuabi.CuabiError) as raised:
        cuabi.graph.Capture(stream).condition()
    assert raised.value.status == errors.CAPTURE  # the stream no longer captures


def test_handles_close_in_any_order(context: cuabi.Context) -> None:
    own = cuabi.Context()
    module = own.compile(SOURCE)
    kernel = module.kernel("empty")
    buffer = own.alloc(64)
    own.close()
    kernel[1, 1]()  # the kernel keeps its module and context alive
    module.close()
    kernel.close()
    buffer.close()
    own.close()


class _Foreign:
    """Another library's array as it presents itself through __cuda_array_interface__."""

    def __init__(self, interface: dict[str, object]) -> None:
        self.__cuda_array_interface__ = interface


class _DlpackOnly:
    def __init__(self, buffer: cuabi.Buffer) -> None:
        self._buffer = buffer

    def __dlpack__(self, stream: object = None) -> object:
        return self._buffer.__dlpack__(stream)


def test_the_readme_program_runs(context: cuabi.Context, capsys: pytest.CaptureFixture[str]) -> None:
    from pathlib import Path

    readme = (Path(__file__).resolve().parents[1] / "README.md").read_text()
    program = readme.split("## A complete program", 1)[1].split("```python\n", 1)[1].split("```", 1)[0]
    exec(compile(program, "README.md", "exec"), {})
    printed = capsys.readouterr().out.split("\n")
    assert printed[0] == "27.5"
    assert printed[1].startswith("CUABI_ERROR_LAUNCH_BLOCK") and "Fix:" in printed[1]
