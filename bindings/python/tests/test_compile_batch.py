"""Compile batches offline (NVRTC on the CPU): each request's own Module or exception, progress,
and a cancel from another thread that ends a running heavy compile."""

from __future__ import annotations

import os
import threading
import time

import pytest

import cuabi
from cuabi import errors

GOOD = 'extern "C" __global__ void good(int* p) { p[0] = VALUE; }\n'
BROKEN = 'extern "C" __global__ void broken(int* p) { p[0] = not_declared_py; }\n'
HEAVY = """template <int D> struct Tree {
    __device__ __forceinline__ static float run(float x, const float* p) {
        return Tree<D - 1>::run(x * 1.0001f + p[D], p) * Tree<D - 1>::run(x - p[D + 1], p);
    }
};
template <> struct Tree<0> {
    __device__ __forceinline__ static float run(float x, const float* p) { return x + p[0]; }
};
extern "C" __global__ void heavy(float* p) { p[threadIdx.x] = Tree<12>::run(p[threadIdx.x], p); }
"""


def fresh(define: str) -> cuabi.CompileRequest:
    salt = f"{os.getpid()}:{time.monotonic_ns()}".encode()
    return cuabi.CompileRequest(GOOD, target="sm_90", defines=[define], salt=salt)


def test_a_batch_gives_each_request_its_module_or_exception() -> None:
    salt = f"{os.getpid()}:{time.monotonic_ns()}".encode()
    results = cuabi.compile_many([fresh("VALUE=1"), cuabi.CompileRequest(BROKEN, target="sm_90", salt=salt),
                                  cuabi.CompileRequest(GOOD, defines=["VALUE=2"], salt=salt)])
    assert isinstance(results[0], cuabi.Module) and len(results[0].image()) > 0
    assert isinstance(results[1], cuabi.CompileError) and results[1].status == errors.COMPILE
    assert "not_declared_py" in results[1].compile_log
    assert isinstance(results[2], cuabi.GeneralError) and results[2].status == errors.INVALID_ARGUMENT
    assert "cuabi_compile_options.target" in results[2].message


def test_a_cancel_from_another_thread_ends_a_running_heavy_compile() -> None:
    salt = f"{os.getpid()}:{time.monotonic_ns()}".encode()
    # NVRTC's own cache (12.9+) does not see cuabi's salt: a comment of its own makes NVRTC run.
    source = HEAVY + f"// {salt.decode()}\n"
    with cuabi.CompileBatch([cuabi.CompileRequest(source, target="sm_90", salt=salt)]) as batch:
        deadline = time.monotonic() + 10
        while batch.state(0)[0] == cuabi.REQUEST_QUEUED and time.monotonic() < deadline:
            time.sleep(0.001)
        time.sleep(0.1)
        assert batch.state(0) == (cuabi.REQUEST_COMPILING, None)
        ended: list[object] = []

        def wait() -> None:
            try:
                batch.module(0)
            except cuabi.CuabiError as error:
                ended.append(error)
            ended.append(time.monotonic())

        waiter = threading.Thread(target=wait)
        waiter.start()
        time.sleep(0.05)
        cancelled = time.monotonic()
        batch.cancel()
        waiter.join()
        error, returned = ended
        assert isinstance(error, cuabi.GeneralError) and error.name == "CUABI_ERROR_CANCELLED"
        assert isinstance(returned, float) and returned - cancelled < 0.25
        state, failure = batch.state(0)
        assert state == cuabi.REQUEST_DONE and failure is not None and failure.name == "CUABI_ERROR_CANCELLED"


def test_an_empty_batch_and_bad_indexes() -> None:
    with cuabi.CompileBatch([]) as batch:
        assert len(batch) == 0 and batch.results() == []
        with pytest.raises(cuabi.GeneralError) as raised:
            batch.module(0)
        assert raised.value.status == errors.INVALID_ARGUMENT
        with pytest.raises(cuabi.GeneralError):
            batch.state(-1)
    assert cuabi.COMPILE_BATCH_MAX_REQUESTS == 4096
