"""Handles are destroyed exactly once, whichever of close(), `with` and the collector comes first."""

from __future__ import annotations

import gc
import threading

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


def test_with_closes_and_the_collector_does_not_destroy_again() -> None:
    with cuabi.compile(SOURCE, target="sm_90") as module:
        finalizer = module._finalizer
        assert finalizer.alive
    assert not finalizer.alive
    del module
    gc.collect()  # a second destroy here would be a use of a freed handle (under ASan: a report)


def test_a_forgotten_handle_is_destroyed_by_the_collector() -> None:
    module = cuabi.compile(SOURCE, target="sm_90")
    finalizer = module._finalizer
    pointer = module._ptr
    del module
    gc.collect()
    assert not finalizer.alive
    info = cuabi._library.ffi.new("cuabi_module_info*")
    status = cuabi._library.function("cuabi_module_info_init")(cuabi._library.ffi.sizeof("cuabi_module_info"), info)
    assert status == 0
    assert cuabi._library.function("cuabi_module_get_info")(pointer, info) == errors.INVALID_HANDLE


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
