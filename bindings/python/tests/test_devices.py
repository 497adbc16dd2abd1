"""Several GPUs and tensor maps (cuabi 1.2). Without a GPU: a tensor map's description reaches
cuabi's rule checks whole (they come before the buffer, so a made-up handle does) and each broken
rule comes back named; a TensorMap is a 128-byte kernel argument. On a Hopper GPU a TMA copy kernel
reads the tile a map describes; on two GPUs a copy between them is refused without peer access,
naming both devices, staged on request and direct once enabled."""

from __future__ import annotations

import ctypes
from pathlib import Path
from types import SimpleNamespace
from typing import Any, cast

import numpy as np
import pytest

import cuabi
from cuabi import _library, errors
from cuabi.kernel import _encoding
from cuabi.tensor_map import TensorDataType, TensorInterleave, TensorMap, TensorOobFill, TensorSwizzle

MADE_UP_BUFFER = _library.ffi.cast("cuabi_buffer*", (4 << 56) | 4000005)
# A buffer as TensorMap.tiled sees one, with a handle cuabi never issued: refused after the rules.
UNISSUED = cast(cuabi.Buffer, SimpleNamespace(_ptr=MADE_UP_BUFFER))


def refusal(**change: Any) -> cuabi.CuabiError:
    params: dict[str, Any] = dict(data_type=TensorDataType.FLOAT32, global_dims=[64, 32], global_strides=[256],
                                  box_dims=[32, 8])
    params.update(change)
    with pytest.raises(cuabi.CuabiError) as raised:
        TensorMap.tiled(UNISSUED, **params)
    assert "Fix:" in raised.value.message
    return raised.value


def test_a_valid_description_passes_the_rules_and_reaches_the_buffer_handle() -> None:
    assert refusal().status == errors.INVALID_HANDLE


@pytest.mark.parametrize("change, fragment", [
    ({"box_dims": [3, 8]}, "box_dims[0] 3 x 4-byte FLOAT32 = 12 bytes"),
    ({"global_dims": [64, 32, 1, 1, 1, 1]}, "rank is 6"),
    ({"element_strides": [1, 9]}, "element_strides[1] is 9"),
    ({"global_strides": [250]}, "global_strides[0]"),
    ({"swizzle": TensorSwizzle.BYTES_32, "box_dims": [16, 8]}, "exceeds the 32-byte span of swizzle 1"),
    ({"interleave": TensorInterleave.BYTES_16}, "needs rank 3 or more"),
    ({"data_type": TensorDataType.INT32, "oob_fill": TensorOobFill.NAN_REQUEST_ZERO_FMA}, "data_type is INT32"),
    ({"l2_promotion": 9}, "l2_promotion is 9"),
])
def test_each_broken_rule_is_refused_naming_it(change: dict[str, Any], fragment: str) -> None:
    error = refusal(**change)
    assert error.status == errors.INVALID_ARGUMENT and fragment in error.message, error


def test_a_tensor_map_is_a_128_byte_kernel_argument() -> None:
    assert ctypes.sizeof(TensorMap) == 128
    made = TensorMap()
    made.opaque[3] = 0x0102030405060708
    code, convert, size = _encoding(made, 128)
    assert (code, size) == ("128s", 128)
    assert convert is not None and convert(made)[24:32] == (0x0102030405060708).to_bytes(8, "little")


def test_a_copy_between_devices_refuses_unknown_flags() -> None:
    with pytest.raises(cuabi.GeneralError) as raised:
        errors.check(_library.F.cuabi_buffer_copy_peer(MADE_UP_BUFFER, 0, MADE_UP_BUFFER, 0, 16, 6,
                                                       _library.ffi.NULL))
    assert raised.value.status == errors.INVALID_ARGUMENT and "flags is 0x6" in raised.value.message


# The tensor-map kernels that the C suite and every binding compile alike.
TMA_SOURCE = Path(__file__).resolve().parents[3] / "tests" / "gpu" / "kernels" / "tma_copy.cu"


def test_a_tma_kernel_reads_the_tile_a_tensor_map_describes(context: cuabi.Context) -> None:
    if context.device_info().compute_capability < (9, 0):
        pytest.skip(f"tensor maps need compute capability 9.0, not {context.device_info().compute_capability}")
    values = np.fromfunction(lambda y, x: y * 1000 + x, (32, 64), dtype=np.float32)
    tensor = context.to_device(values)
    tensor_map = TensorMap.tiled(tensor, TensorDataType.FLOAT32, [64, 32], [256], [32, 8])
    kernel = context.compile(TMA_SOURCE.read_text()).kernel("copy_tile")
    out = context.alloc(8 * 32 * 4)
    for x0, y0 in [(32, 16), (48, 28)]:
        kernel[1, 128](tensor_map, out, np.int32(x0), np.int32(y0))
        tile = out.read(np.empty((8, 32), dtype=np.float32))
        padded = np.zeros((40, 96), dtype=np.float32)
        padded[:32, :64] = values
        assert np.array_equal(tile, padded[y0:y0 + 8, x0:x0 + 32]), (x0, y0)
    with pytest.raises(cuabi.CuabiError) as raised:
        TensorMap.tiled(tensor, TensorDataType.FLOAT32, [64, 33], [256], [32, 8])
    assert raised.value.status == errors.OUT_OF_BOUNDS and "spans 8448 bytes" in raised.value.message


def test_copies_between_two_devices_need_peer_access_or_staging(context: cuabi.Context) -> None:
    if cuabi.device_count() < 2:
        pytest.skip(f"needs two devices; this machine has {cuabi.device_count()}")
    with cuabi.Context(device=1) as second:
        data = np.arange(4096, dtype=np.uint32) * np.uint32(2654435761)
        source = context.to_device(data)
        target = second.alloc(data.nbytes, zero=True)
        second.disable_peer_access(context)
        with pytest.raises(cuabi.GeneralError) as raised:
            target.copy_from_peer(source)
        assert raised.value.status == errors.CONTEXT_MISMATCH
        assert "device 0 (" in raised.value.message and "device 1 (" in raised.value.message
        target.copy_from_peer(source, staged=True)
        assert np.array_equal(target.read(np.empty_like(data)), data)
        if second.can_access_peer(context):
            target.fill(0)
            second.enable_peer_access(context)
            second.enable_peer_access(context)
            assert second.peer_access_enabled(context)
            target.copy_from_peer(source)
            assert np.array_equal(target.read(np.empty_like(data)), data)
            second.disable_peer_access(context)
            assert not second.peer_access_enabled(context)
