"""Tensor maps: tiled TMA descriptors over buffers, passed to kernels' `const __grid_constant__
CUtensorMap` parameters like any other argument (a TensorMap is a 128-byte ctypes structure)."""

from __future__ import annotations

import ctypes
import enum
from typing import Any, Optional, Sequence

from . import _library, _structs
from .buffer import Buffer
from .errors import check

ffi = _library.ffi
_C = _library.CONSTANTS


class TensorDataType(enum.IntEnum):
    """The element type of a tensor map (CUABI_TENSOR_DATA_*)."""

    UINT8 = _C["CUABI_TENSOR_DATA_UINT8"]
    UINT16 = _C["CUABI_TENSOR_DATA_UINT16"]
    UINT32 = _C["CUABI_TENSOR_DATA_UINT32"]
    INT32 = _C["CUABI_TENSOR_DATA_INT32"]
    UINT64 = _C["CUABI_TENSOR_DATA_UINT64"]
    INT64 = _C["CUABI_TENSOR_DATA_INT64"]
    FLOAT16 = _C["CUABI_TENSOR_DATA_FLOAT16"]
    FLOAT32 = _C["CUABI_TENSOR_DATA_FLOAT32"]
    FLOAT64 = _C["CUABI_TENSOR_DATA_FLOAT64"]
    BFLOAT16 = _C["CUABI_TENSOR_DATA_BFLOAT16"]
    FLOAT32_FTZ = _C["CUABI_TENSOR_DATA_FLOAT32_FTZ"]
    TFLOAT32 = _C["CUABI_TENSOR_DATA_TFLOAT32"]
    TFLOAT32_FTZ = _C["CUABI_TENSOR_DATA_TFLOAT32_FTZ"]


class TensorInterleave(enum.IntEnum):
    NONE = _C["CUABI_TENSOR_INTERLEAVE_NONE"]
    BYTES_16 = _C["CUABI_TENSOR_INTERLEAVE_16B"]
    BYTES_32 = _C["CUABI_TENSOR_INTERLEAVE_32B"]


class TensorSwizzle(enum.IntEnum):
    NONE = _C["CUABI_TENSOR_SWIZZLE_NONE"]
    BYTES_32 = _C["CUABI_TENSOR_SWIZZLE_32B"]
    BYTES_64 = _C["CUABI_TENSOR_SWIZZLE_64B"]
    BYTES_128 = _C["CUABI_TENSOR_SWIZZLE_128B"]
    BYTES_128_ATOM_32 = _C["CUABI_TENSOR_SWIZZLE_128B_ATOM_32B"]
    BYTES_128_ATOM_32_FLIP_8 = _C["CUABI_TENSOR_SWIZZLE_128B_ATOM_32B_FLIP_8B"]
    BYTES_128_ATOM_64 = _C["CUABI_TENSOR_SWIZZLE_128B_ATOM_64B"]


class TensorL2Promotion(enum.IntEnum):
    NONE = _C["CUABI_TENSOR_L2_PROMOTION_NONE"]
    BYTES_64 = _C["CUABI_TENSOR_L2_PROMOTION_64B"]
    BYTES_128 = _C["CUABI_TENSOR_L2_PROMOTION_128B"]
    BYTES_256 = _C["CUABI_TENSOR_L2_PROMOTION_256B"]


class TensorOobFill(enum.IntEnum):
    ZERO = _C["CUABI_TENSOR_OOB_FILL_ZERO"]
    NAN_REQUEST_ZERO_FMA = _C["CUABI_TENSOR_OOB_FILL_NAN_REQUEST_ZERO_FMA"]


def _fill(array: Any, values: Sequence[int]) -> None:
    # Entries past the array's capacity stay out; the rank, which counts them all, gets them refused.
    for i, value in enumerate(values[:len(array)]):
        array[i] = value


class TensorMap(ctypes.Structure):
    """An encoded tensor map (the driver's CUtensorMap). It holds the buffer's address, not the
    buffer: keep the buffer alive while kernels use the map."""

    _fields_ = [("opaque", ctypes.c_uint64 * 16)]
    opaque: "ctypes.Array[ctypes.c_uint64]"

    @classmethod
    def tiled(cls, buffer: Buffer, data_type: int, global_dims: Sequence[int], global_strides: Sequence[int],
              box_dims: Sequence[int], element_strides: Optional[Sequence[int]] = None, *,
              interleave: int = TensorInterleave.NONE, swizzle: int = TensorSwizzle.NONE,
              l2_promotion: int = TensorL2Promotion.NONE, oob_fill: int = TensorOobFill.ZERO,
              offset: int = 0) -> "TensorMap":
        """A tiled map over `buffer`: `global_dims` elements (innermost first), `global_strides`
        bytes between indices of each dimension after the first, boxes of `box_dims` elements.
        cuabi checks every rule of the driver first and names a broken one with its values:
        GeneralError CUABI_ERROR_INVALID_ARGUMENT, or CudaError CUABI_ERROR_OUT_OF_BOUNDS for a
        tensor larger than the buffer."""
        params = _structs.new("cuabi_tensor_map_params")
        params.data_type = data_type
        params.rank = len(global_dims)
        params.interleave, params.swizzle = interleave, swizzle
        params.l2_promotion, params.oob_fill, params.offset = l2_promotion, oob_fill, offset
        _fill(params.global_dims, global_dims)
        _fill(params.global_strides, global_strides)
        _fill(params.box_dims, box_dims)
        if element_strides is not None:
            _fill(params.element_strides, element_strides)
        encoded = ffi.new("cuabi_tensor_map*")
        check(_library.F.cuabi_tensor_map_encode_tiled(buffer._ptr, params, encoded))
        made = cls()
        for i in range(16):
            made.opaque[i] = encoded.opaque[i]
        return made
