"""Errors carry what cuabi said, read right after the failing call, in the right family."""

from __future__ import annotations

import threading

import pytest

import cuabi
from cuabi import errors

BROKEN = "__global__ void broken( { }\n"


def test_compile_error_carries_status_message_nvrtc_result_and_log() -> None:
    with pytest.raises(cuabi.CompileError) as raised:
        cuabi.compile(BROKEN, target="sm_90")
    error = raised.value
    assert error.status == errors.COMPILE and error.name == "CUABI_ERROR_COMPILE"
    assert "Fix:" in error.message
    assert "broken" in error.compile_log or "error" in error.compile_log
    assert error.nvrtc_result != 0
    assert str(error).startswith("CUABI_ERROR_COMPILE: ")


def test_each_status_raises_its_family() -> None:
    assert errors.family_of(errors.INVALID_HANDLE) is cuabi.GeneralError
    assert errors.family_of(errors.DRIVER_NOT_FOUND) is cuabi.DriverError
    assert errors.family_of(errors.OUT_OF_BOUNDS) is cuabi.CudaError
    assert errors.family_of(errors.KERNEL_NOT_FOUND) is cuabi.CompileError
    assert errors.family_of(errors.ARGUMENT_SIZE) is cuabi.LaunchError
    assert errors.family_of(errors.CAPTURE) is cuabi.GraphError
    assert errors.family_of(errors.RANGE) is cuabi.RangeError
    assert errors.family_of(0) is None
    assert errors.family_of(9999) is cuabi.CuabiError


def test_status_names_are_the_librarys() -> None:
    assert cuabi.status_name(0) == "CUABI_SUCCESS"
    assert cuabi.status_name(67) == "CUABI_ERROR_ARGUMENT_SIZE"
    assert cuabi.status_name(9999) == "CUABI_UNKNOWN_STATUS"
    for status, name in errors.STATUS_NAMES.items():
        assert cuabi.status_name(status) == name


def test_message_belongs_to_the_thread_that_failed() -> None:
    # Another thread's later failure must not replace this one's message.
    with pytest.raises(cuabi.RangeError) as raised:
        cuabi.pop()

    def other() -> None:
        with pytest.raises(cuabi.CompileError):
            cuabi.compile(BROKEN, target="sm_90")

    thread = threading.Thread(target=other)
    thread.start()
    thread.join()
    assert raised.value.status == errors.RANGE
    assert "Fix:" in raised.value.message and "compile" not in raised.value.message.lower()


def test_no_gpu_is_a_driver_error_with_a_fix() -> None:
    try:
        cuabi.Context().close()
    except cuabi.DriverError as error:
        assert error.status in (errors.DRIVER_NOT_FOUND, errors.NO_DEVICE)
        assert "Fix:" in error.message
    else:
        pytest.skip("a GPU is present: there is no missing-driver error to check")
