"""DLPack capsules and __cuda_array_interface__ bounds, without a GPU (the GPU tests exchange
real device memory)."""

from __future__ import annotations

import gc

import numpy as np

from cuabi import buffer, dlpack


def test_an_exported_capsule_is_read_back_and_deleted_once() -> None:
    owner = object()
    before = dlpack.exported_count()
    capsule = dlpack.export(owner, 0x7F0000001000, 0, (4, 8), "<f4")
    assert dlpack.exported_count() == before + 1
    imported = dlpack.Imported(capsule)
    assert imported.device_type == dlpack.K_DL_CUDA and imported.device_id == 0
    assert imported.address == 0x7F0000001000 and imported.nbytes == 4 * 8 * 4
    imported.delete()
    imported.delete()
    assert dlpack.exported_count() == before
    del capsule
    gc.collect()  # taken: the capsule must not delete the tensor a second time
    assert dlpack.exported_count() == before


def test_an_untaken_capsule_deletes_its_tensor_when_collected() -> None:
    before = dlpack.exported_count()
    capsule = dlpack.export(object(), 0x1000, 0, (3,), "<i8")
    assert dlpack.exported_count() == before + 1
    del capsule
    gc.collect()
    assert dlpack.exported_count() == before


def test_a_capsule_is_taken_only_once() -> None:
    capsule = dlpack.export(object(), 0x1000, 0, (3,), "<u1")
    first = dlpack.Imported(capsule)
    try:
        dlpack.Imported(capsule)
    except ValueError:
        pass
    else:
        raise AssertionError("a used capsule was taken again")
    first.delete()


def test_numpys_capsule_is_read_with_its_extent() -> None:
    array = np.arange(12, dtype=np.float64).reshape(3, 4)[:, ::2]
    imported = dlpack.Imported(array.__dlpack__())
    assert imported.device_type == 1  # kDLCPU: wrap_foreign refuses it for a cuabi Buffer
    assert imported.address == array.__array_interface__["data"][0]
    assert imported.nbytes == ((3 - 1) * 4 + (2 - 1) * 2 + 1) * 8
    imported.delete()


def test_interface_extent_counts_strides() -> None:
    compact = {"data": (0x1000, False), "shape": (3, 4), "typestr": "<f4", "strides": None}
    assert buffer.interface_extent(compact) == (0x1000, 48)
    strided = {"data": (0x1000, False), "shape": (3, 2), "typestr": "<f4", "strides": (16, 8)}
    assert buffer.interface_extent(strided) == (0x1000, ((3 - 1) * 4 + (2 - 1) * 2 + 1) * 4)
    empty = {"data": (0x1000, False), "shape": (0, 4), "typestr": "<f4", "strides": None}
    assert buffer.interface_extent(empty) == (0x1000, 0)
