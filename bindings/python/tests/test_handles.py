"""Handles are destroyed exactly once, whichever of close(), `with` and the collector comes first."""

from __future__ import annotations

import gc
import os
import subprocess
import sys
import textwrap
import threading
from typing import Any, Iterator, List

import pytest

import cuabi
from cuabi import errors

SOURCE = 'extern "C" __global__ void k(int* p) { *p = 1; }\n'


def test_close_twice_is_harmless_and_a_closed_handle_is_invalid_in_cuabi() -> None:
    module = cuabi.compile(SOURCE, target="sm_90")
    module.close()
    module.close()
    assert module.closed
    with pytest.raises(cuabi.GeneralError) as raised:
        module.info()
    assert raised.value.status == errors.INVALID_HANDLE


@pytest.fixture
def destroys(monkeypatch: pytest.MonkeyPatch, launch_path: str) -> Iterator[List[Any]]:
    """Every cuabi_module_destroy call, counted on its way to the real function: the function the
    owner cells call (the extension's from C, or the package's own through cffi: `launch_path`) is
    a C callback that counts.
    Compile requests prepared meanwhile hold the callback's address: forgotten with it."""
    ffi = cuabi._library.ffi
    real = cuabi._library.lib().fn("cuabi_module_destroy")
    calls: List[Any] = []

    def counting(ptr: Any) -> None:
        calls.append(ptr)
        real(ptr)

    callback = ffi.callback("void(cuabi_module*)", counting)
    monkeypatch.setattr(cuabi._library.F, "cuabi_module_destroy", callback)
    monkeypatch.setattr(cuabi._library.A, "cuabi_module_destroy", cuabi._library.address_of(callback))
    forget_requests = sys.modules["cuabi.compile"]._forget_requests
    forget_requests()
    yield calls
    gc.collect()  # the modules of the test are destroyed while the callback lives
    forget_requests()


def test_with_then_collection_destroys_once(destroys: List[Any]) -> None:
    with cuabi.compile(SOURCE, target="sm_90") as module:
        assert not module.closed
    assert module.closed and len(destroys) == 1
    module.close()
    del module
    gc.collect()
    assert len(destroys) == 1


def test_close_from_many_threads_destroys_once(destroys: List[Any]) -> None:
    module = cuabi.compile(SOURCE, target="sm_90")
    threads = [threading.Thread(target=module.close) for _ in range(8)]
    for thread in threads:
        thread.start()
    for thread in threads:
        thread.join()
    del module
    gc.collect()
    assert len(destroys) == 1


def test_a_forgotten_handle_is_destroyed_by_the_collector(destroys: List[Any]) -> None:
    module = cuabi.compile(SOURCE, target="sm_90")
    pointer = module._ptr
    del module
    gc.collect()
    assert destroys == [pointer]
    info = cuabi._library.ffi.new("cuabi_module_info*")
    assert cuabi._library.F.cuabi_module_info_init(cuabi._library.ffi.sizeof("cuabi_module_info"), info) == 0
    assert cuabi._library.F.cuabi_module_get_info(pointer, info) == errors.INVALID_HANDLE


def test_a_range_started_on_one_thread_ends_on_another() -> None:
    started = cuabi.Range("python-test")
    thread = threading.Thread(target=started.end)
    thread.start()
    thread.join()
    assert started.closed
    started.end()  # ended already: nothing happens


def test_range_context_manager_pairs_push_and_pop() -> None:
    with cuabi.range("outer"):
        with cuabi.range("inner", "python-tests"):
            pass
    with pytest.raises(cuabi.RangeError):
        cuabi.pop()


def test_catalog_names_start_with_cuabi() -> None:
    catalog = cuabi.ranges.catalog()
    assert len(catalog) >= 13
    assert all(name.startswith("cuabi.") and description for name, description in catalog)


def test_handles_left_open_at_exit_end_quietly() -> None:
    import os
    import subprocess
    import sys
    from pathlib import Path

    code = ("import cuabi\n"
            "kept = [cuabi.compile('extern \"C\" __global__ void k() {}', target='sm_90') for _ in range(3)]\n"
            "started = cuabi.Range('left-open')\n"
            "print('made')\n")
    env = dict(os.environ, PYTHONPATH=str(Path(__file__).resolve().parents[1]))
    result = subprocess.run([sys.executable, "-c", code], env=env, capture_output=True, text=True, timeout=120)
    assert result.returncode == 0 and result.stdout == "made\n"
    assert result.stderr == ""


def test_a_finalizer_run_inside_cffis_type_parser_does_not_deadlock() -> None:
    # The collector may run a handle's finalizer while cffi holds its type-parser lock (it parses
    # a function type the first time one is used). Before the fix the finalizer resolved its
    # destroy function there, which parses a type and took the same lock: the thread hung. In a
    # fresh process, so that nothing resolved cuabi_module_destroy before.
    script = textwrap.dedent(f"""
        import gc, cuabi
        from cuabi._library import ffi
        module = cuabi.compile({SOURCE!r}, target="sm_90")
        cycle = [module]
        cycle.append(cycle)  # only the collector frees it
        del module
        with ffi._lock:  # what cffi holds while it parses a type
            del cycle
            gc.collect()
        print("collected")
        """)
    done = subprocess.run([sys.executable, "-c", script], capture_output=True, text=True, timeout=30,
                          env=dict(os.environ))
    assert done.returncode == 0 and done.stdout.strip() == "collected", done.stderr
