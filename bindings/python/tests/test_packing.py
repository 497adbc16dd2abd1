"""Arguments packed at the offsets of a kernel's parameter layout. The layouts here are what
cuabi_kernel_get_param_info reports for the kernels named (the GPU tests read the real ones)."""

from __future__ import annotations

import ctypes
import struct
from typing import Any

import numpy as np
import pytest

import cuabi
from cuabi import errors
from cuabi.kernel import ParamLayout

# saxpy(float a, const float* x, float* y, unsigned n)
SAXPY = ParamLayout("saxpy", [(0, 4), (8, 8), (16, 8), (24, 4)])


class DeviceArray:
    """Another library's device array, as it shows itself (CuPy, PyTorch and Numba do the same)."""

    def __init__(self, address: int, count: int) -> None:
        self.__cuda_array_interface__ = {"data": (address, False), "shape": (count,), "typestr": "<f4",
                                         "version": 3, "strides": None}


def test_python_values_take_the_parameter_size_with_padding_zeroed() -> None:
    packed = SAXPY.pack((2.0, 0x1000, 0x2000, 5))
    assert packed == struct.pack("<f4xQQI", 2.0, 0x1000, 0x2000, 5)
    assert len(packed) == SAXPY.size == 28


def test_typed_values_pack_as_themselves() -> None:
    want = struct.pack("<f4xQQI", 1.5, 0x10, 0x20, 7)
    assert SAXPY.pack((np.float32(1.5), np.uint64(0x10), DeviceArray(0x20, 4), np.uint32(7))) == want
    assert SAXPY.pack((ctypes.c_float(1.5), 0x10, 0x20, ctypes.c_uint32(7))) == want
    assert SAXPY.pack((struct.pack("<f", 1.5), 0x10, 0x20, b"\x07\0\0\0")) == want


def test_negative_ints_pack_signed_and_out_of_range_ones_are_refused() -> None:
    assert SAXPY.pack((1.0, 0, 0, -1))[24:] == b"\xff\xff\xff\xff"
    with pytest.raises(cuabi.GeneralError, match="parameter 3 of kernel 'saxpy'.*Fix:"):
        SAXPY.pack((1.0, 0, 0, 1 << 32))


@pytest.mark.parametrize("value", [np.float64(2.0), ctypes.c_double(2.0), b"\0" * 8, np.int64(2)])
def test_a_value_of_another_size_is_an_argument_size_error(value: Any) -> None:
    with pytest.raises(cuabi.LaunchError) as raised:
        SAXPY.pack((value, 0, 0, 1))
    assert raised.value.status == errors.ARGUMENT_SIZE
    assert "parameter 0" in raised.value.message and "Fix:" in raised.value.message


def test_bytes_of_the_wrong_length_are_refused_even_after_the_right_length() -> None:
    SAXPY.pack((b"\0" * 4, 0, 0, 1))
    with pytest.raises(cuabi.LaunchError) as raised:
        SAXPY.pack((b"\0" * 3, 0, 0, 1))
    assert raised.value.status == errors.ARGUMENT_SIZE


def test_a_wrong_count_is_an_argument_count_error() -> None:
    with pytest.raises(cuabi.LaunchError) as raised:
        SAXPY.pack((1.0, 0, 0))
    assert raised.value.status == errors.ARGUMENT_COUNT and "4 parameters; 3 arguments" in raised.value.message


def test_a_value_of_no_known_kind_is_refused() -> None:
    with pytest.raises(cuabi.GeneralError, match="cannot take a object"):
        SAXPY.pack((1.0, object(), 0, 1))


def test_packing_is_remembered_per_tuple_of_types() -> None:
    layout = ParamLayout("k", [(0, 8), (8, 2), (12, 4)])
    assert layout.pack((1.0, 2, 3.0)) == struct.pack("<dH2xf", 1.0, 2, 3.0)
    assert len(layout.packers) == 1
    layout.pack((4.0, 5, 6.0))
    assert len(layout.packers) == 1
    layout.pack((np.float64(4.0), 5, 6.0))
    assert len(layout.packers) == 2


def test_a_struct_parameter_takes_its_bytes() -> None:
    class Pair(ctypes.Structure):
        _fields_ = [("a", ctypes.c_int32), ("b", ctypes.c_float)]

    layout = ParamLayout("k", [(0, 8), (8, 8)])
    assert layout.pack((Pair(3, 0.5), 9)) == struct.pack("<ifQ", 3, 0.5, 9)


@pytest.mark.parametrize("grid", [-1, 1 << 32, 2.0, (1, 2, 3, 4), ()])
def test_a_geometry_that_is_not_three_unsigned_ints_is_refused(grid: Any) -> None:
    from cuabi.kernel import LaunchConfig

    with pytest.raises(cuabi.GeneralError) as raised:
        LaunchConfig(grid, 256)
    assert raised.value.status == errors.INVALID_ARGUMENT and "Fix:" in raised.value.message
