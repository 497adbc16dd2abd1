"""Memory pools, stream-ordered buffers and managed buffers: refusals checked by the library
without a GPU, and the real thing on one (the `context` fixture skips without)."""

from __future__ import annotations

import numpy as np
import pytest

import cuabi
from cuabi import _library, errors
from cuabi._handle import PythonOwner

ffi = _library.ffi
FORGED = 0x5EED00000BADF00D


def forged_buffer() -> cuabi.Buffer:
    buffer = object.__new__(cuabi.Buffer)
    buffer._ptr = ffi.cast("cuabi_buffer*", FORGED)
    buffer._owner = PythonOwner(None, None, None)
    buffer._owner.forget()  # owns nothing: a forged handle is never destroyed
    buffer.size = 64
    return buffer


def test_forged_handles_and_unknown_values_are_refused() -> None:
    buffer = forged_buffer()
    with pytest.raises(cuabi.GeneralError) as raised:
        buffer.free_async()
    assert raised.value.status == errors.INVALID_HANDLE
    with pytest.raises(cuabi.GeneralError) as raised:
        buffer.advise(9)
    assert raised.value.status == errors.INVALID_ARGUMENT and "advice 9" in raised.value.message
    with pytest.raises(cuabi.GeneralError) as raised:
        buffer.prefetch(-2)
    assert raised.value.status == errors.INVALID_ARGUMENT and "location -2" in raised.value.message
    with pytest.raises(cuabi.GeneralError) as raised:
        buffer.host_view()
    assert raised.value.status == errors.INVALID_HANDLE
    pool = object.__new__(cuabi.MemoryPool)
    pool._ptr = ffi.cast("cuabi_memory_pool*", FORGED)
    pool._owner = buffer._owner
    with pytest.raises(cuabi.GeneralError) as raised:
        pool.trim()
    assert raised.value.status == errors.INVALID_HANDLE
    assert "Fix:" in raised.value.message


SOURCE = r'''
extern "C" __global__ void scale_add(float* out, const float* in, float a, float b, unsigned n) {
    unsigned i = blockIdx.x * blockDim.x + threadIdx.x;
    if (i < n) out[i] = a * in[i] + b;
}'''
N = 4096


def test_stream_ordered_buffer_in_a_replayed_graph(context: cuabi.Context) -> None:
    kernel = context.compile(SOURCE).kernel("scale_add")
    stream = context.stream()
    values = np.arange(N, dtype=np.float32) % 97
    source = cuabi.Buffer.from_host(context, values)
    out = cuabi.Buffer.allocate(context, N * 4)
    with cuabi.Capture(stream) as capture:
        scratch = cuabi.Buffer.allocate_async(context, N * 4, stream=stream)
        kernel.launch(cuabi.LaunchConfig(N // 256, 256, stream), scratch, source, np.float32(2), np.float32(1),
                      np.uint32(N))
        kernel.launch(cuabi.LaunchConfig(N // 256, 256, stream), out, scratch, np.float32(1), np.float32(3),
                      np.uint32(N))
        scratch.free_async(stream)
    graph = capture.graph
    for _ in range(3):
        out.fill(0)
        graph.launch(stream)
        stream.synchronize()
        assert np.array_equal(out.read(np.empty(N, dtype=np.float32)), 2 * values + 4)
    assert scratch.closed


def test_pool_trim_and_managed_prefetch(context: cuabi.Context) -> None:
    pool = cuabi.MemoryPool(context, release_threshold=64 << 20)
    assert pool.release_threshold == 64 << 20
    stream = context.stream()
    held = cuabi.Buffer.allocate_async(context, 32 << 20, pool, stream)
    held.free_async(stream)
    stream.synchronize()
    assert pool.reserved >= 32 << 20
    pool.trim(0)
    assert pool.reserved == 0

    kernel = context.compile(SOURCE).kernel("scale_add")
    data = cuabi.Buffer.allocate_managed(context, N * 4)
    host = np.frombuffer(data.host_view(), dtype=np.float32)
    host[:] = np.arange(N, dtype=np.float32)
    data.advise(cuabi.ADVICE_SET_PREFERRED_LOCATION, 0)
    data.prefetch(0, stream=stream)
    kernel.launch(cuabi.LaunchConfig(N // 256, 256, stream), data, data, np.float32(3), np.float32(1), np.uint32(N))
    data.prefetch(cuabi.LOCATION_HOST, stream=stream)
    stream.synchronize()
    assert np.array_equal(host, 3 * np.arange(N, dtype=np.float32) + 1)
