"""Compiling offline (NVRTC runs on the CPU): modules, name expressions, the cache."""

from __future__ import annotations

import gc
import json
import os
import subprocess
import sys
from pathlib import Path

import pytest

import cuabi
from conformance import SOURCE  # the conformance scenario's kernels: saxpy and scale<T>
from cuabi import errors


def test_offline_compile_resolves_name_expressions() -> None:
    with cuabi.compile(SOURCE, ["scale<float>", "scale<double>"], target="sm_90") as module:
        info = module.info()
        assert info.image_kind == cuabi.IMAGE_CUBIN and info.image_size > 0 and info.target == "sm_90"
        assert module.lowered_name("scale<float>") == "_Z5scaleIfEvPT_S0_j"
        assert module.lowered_name("scale<double>") == "_Z5scaleIdEvPT_S0_j"
        assert len(module.image()) == info.image_size
        with pytest.raises(cuabi.CompileError) as raised:
            module.lowered_name("scale<int>")
        assert raised.value.status == errors.KERNEL_NOT_FOUND


def test_a_repeated_request_is_a_memory_cache_hit() -> None:
    source = SOURCE + "// memory-cache test\n"
    cuabi.compile(source, target="sm_90", defines=["A=1"]).close()
    hits = cuabi.cache.stats()["memory_hits"]
    with cuabi.compile(source, target="sm_90", defines=["A=1"]) as module:
        assert module.info().origin == cuabi.ORIGIN_MEMORY_CACHE
    assert cuabi.cache.stats()["memory_hits"] == hits + 1


def test_option_strings_outlive_the_call_that_made_them() -> None:
    # Every string of a request is built here and dropped by the caller at once: cuabi must still
    # read the right ones (the dangling ffi.new string mistake would compile garbage or fail).
    define = "".join(["SC", "ALE=", "3"])
    first = cuabi.compile('extern "C" __global__ void k(int* p) { *p = SCALE; }', target="sm_90",
                          defines=[define], headers={"h.h": "#define X 1\n"})
    del define
    gc.collect()
    again = cuabi.compile('extern "C" __global__ void k(int* p) { *p = SCALE; }', target="sm_90",
                          defines=["SCALE=3"], headers={"h.h": "#define X 1\n"})
    assert again.info().cache_key == first.info().cache_key
    other = cuabi.compile('extern "C" __global__ void k(int* p) { *p = SCALE; }', target="sm_90",
                          defines=["SCALE=4"], headers={"h.h": "#define X 1\n"})
    assert other.info().cache_key != first.info().cache_key


def test_headers_and_flags_reach_nvrtc() -> None:
    source = '#include "value.h"\nextern "C" __global__ void k(int* p) { *p = VALUE; }\n'
    with cuabi.compile(source, options=["-default-device"], target="sm_90",
                       headers={"value.h": "#define VALUE 7\n"}) as module:
        assert module.info().image_size > 0
    with pytest.raises(cuabi.CompileError) as raised:
        cuabi.compile(source, target="sm_90")
    assert "value.h" in raised.value.compile_log


def test_ptx_output() -> None:
    with cuabi.compile(SOURCE, target="compute_90", ptx=True) as module:
        assert module.info().image_kind == cuabi.IMAGE_PTX
        assert b".entry saxpy" in module.image()


def test_cache_stats_have_every_field() -> None:
    stats = cuabi.cache.stats()
    for field in ("memory_hits", "memory_misses", "disk_hits", "disk_misses", "compiles"):
        assert isinstance(stats[field], int)
    assert cuabi.cache.directory()


# A process whose remote's every operation is skipped (TLS is refused at configuration, no
# network needed) compiles locally and says so; the remote tier is configured once per process,
# from the environment it starts with, hence the child.
REMOTE_CHILD = """
import json, os, cuabi
from conformance import SOURCE
cuabi.compile(SOURCE, target="sm_90", defines=[f"PY_REMOTE_CHILD={os.getpid()}"]).close()
print(json.dumps(cuabi.cache.stats()))
"""


def test_cache_stats_show_the_remote_tier() -> None:
    stats = cuabi.cache.stats()
    assert (stats["remote_configured"], stats["remote_breaker_open"], stats["remote_errors"]) == (0, 0, 0)
    package = Path(__file__).resolve().parents[1]
    environment = dict(os.environ, CUABI_CACHE_REMOTE="rediss://127.0.0.1:1",
                       PYTHONPATH=os.pathsep.join([str(package), os.environ.get("PYTHONPATH", "")]))
    child = subprocess.run([sys.executable, "-c", REMOTE_CHILD], env=environment, capture_output=True, text=True,
                           timeout=120, check=False)
    assert child.returncode == 0, child.stderr
    remote = json.loads(child.stdout.splitlines()[-1])
    assert remote["remote_configured"] == 1 and remote["remote_errors"] >= 1, remote
    assert remote["remote_hits"] == 0 and remote["remote_publishes"] == 0 and remote["remote_breaker_open"] == 0, remote


def test_a_nul_inside_a_compile_input_is_refused() -> None:
    with pytest.raises(cuabi.GeneralError) as raised:
        cuabi.compile('extern "C" __global__ void k() {}\0 garbage', target="sm_90")
    assert raised.value.status == errors.INVALID_ARGUMENT and "Fix:" in raised.value.message
