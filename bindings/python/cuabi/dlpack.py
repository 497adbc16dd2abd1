"""DLPack: a cuabi Buffer as a PyCapsule holding a DLManagedTensor (export), and another
library's capsule read back as a device address and an extent (import).

The capsule protocol: a producer names its capsule "dltensor"; a consumer that takes the tensor
renames it "used_dltensor" and calls the tensor's deleter when done. A capsule nobody took calls
the deleter itself when collected. Everything here is ctypes, so no compiler is needed.
"""

from __future__ import annotations

import ctypes
import threading
from typing import Any, Dict, Tuple

K_DL_CUDA = 2
_TYPE_CODES = {"i": 0, "u": 1, "f": 2, "b": 6, "c": 5}  # DLDataTypeCode by typestr kind


class DLDevice(ctypes.Structure):
    _fields_ = [("device_type", ctypes.c_int32), ("device_id", ctypes.c_int32)]


class DLDataType(ctypes.Structure):
    _fields_ = [("code", ctypes.c_uint8), ("bits", ctypes.c_uint8), ("lanes", ctypes.c_uint16)]


class DLTensor(ctypes.Structure):
    _fields_ = [
        ("data", ctypes.c_void_p),
        ("device", DLDevice),
        ("ndim", ctypes.c_int32),
        ("dtype", DLDataType),
        ("shape", ctypes.POINTER(ctypes.c_int64)),
        ("strides", ctypes.POINTER(ctypes.c_int64)),
        ("byte_offset", ctypes.c_uint64),
    ]


class DLManagedTensor(ctypes.Structure):
    pass


_Deleter = ctypes.CFUNCTYPE(None, ctypes.POINTER(DLManagedTensor))
DLManagedTensor._fields_ = [("dl_tensor", DLTensor), ("manager_ctx", ctypes.c_void_p), ("deleter", _Deleter)]

_api = ctypes.pythonapi
_api.PyCapsule_New.restype = ctypes.py_object
_api.PyCapsule_New.argtypes = [ctypes.c_void_p, ctypes.c_char_p, ctypes.c_void_p]
_api.PyCapsule_IsValid.restype = ctypes.c_int
_api.PyCapsule_IsValid.argtypes = [ctypes.c_void_p, ctypes.c_char_p]
_api.PyCapsule_GetPointer.restype = ctypes.c_void_p
_api.PyCapsule_GetPointer.argtypes = [ctypes.c_void_p, ctypes.c_char_p]
_api.PyCapsule_SetName.restype = ctypes.c_int
_api.PyCapsule_SetName.argtypes = [ctypes.c_void_p, ctypes.c_char_p]

# Exported tensors not yet deleted: their ctypes memory and the Buffer they keep alive.
_live: Dict[int, Tuple[Any, ...]] = {}
_live_lock = threading.Lock()


def _delete_exported_tensor(managed: Any) -> None:
    with _live_lock:
        _live.pop(ctypes.addressof(managed.contents), None)


_delete_exported = _Deleter(_delete_exported_tensor)


def _destroy_capsule(capsule: int) -> None:
    # Only a capsule nobody took still has its "dltensor" name; its tensor is deleted here.
    if _api.PyCapsule_IsValid(capsule, b"dltensor"):
        managed = ctypes.cast(_api.PyCapsule_GetPointer(capsule, b"dltensor"), ctypes.POINTER(DLManagedTensor))
        managed.contents.deleter(managed)


_capsule_destructor = ctypes.CFUNCTYPE(None, ctypes.c_void_p)(_destroy_capsule)
_DESTRUCTOR_ADDRESS = ctypes.cast(_capsule_destructor, ctypes.c_void_p).value


def export(owner: Any, address: int, device_id: int, shape: Tuple[int, ...], typestr: str) -> Any:
    """A "dltensor" capsule for C-contiguous memory at `address` that keeps `owner` alive until the
    consumer deletes the tensor (or the capsule is collected untaken)."""
    kind, size = typestr[1], int(typestr[2:])
    managed = DLManagedTensor()
    shape_array = (ctypes.c_int64 * max(len(shape), 1))(*shape)
    tensor = managed.dl_tensor
    tensor.data = address
    tensor.device = DLDevice(K_DL_CUDA, device_id)
    tensor.ndim = len(shape)
    tensor.dtype = DLDataType(_TYPE_CODES[kind], size * 8, 1)
    tensor.shape = ctypes.cast(shape_array, ctypes.POINTER(ctypes.c_int64))
    tensor.strides = None  # NULL: compact, row-major
    tensor.byte_offset = 0
    managed.deleter = _delete_exported
    with _live_lock:
        _live[ctypes.addressof(managed)] = (managed, shape_array, owner)
    return _api.PyCapsule_New(ctypes.addressof(managed), b"dltensor", _DESTRUCTOR_ADDRESS)


def exported_count() -> int:
    """How many exported tensors have not been deleted yet (tests check none leak)."""
    with _live_lock:
        return len(_live)


class Imported:
    """A tensor taken from another library's capsule: its address and extent. delete() (once)
    hands the tensor back to its producer."""

    def __init__(self, capsule: Any) -> None:
        pointer = ctypes.c_void_p(id(capsule))
        if not _api.PyCapsule_IsValid(pointer, b"dltensor"):
            raise ValueError("not an untaken 'dltensor' capsule")
        self._managed = ctypes.cast(_api.PyCapsule_GetPointer(pointer, b"dltensor"), ctypes.POINTER(DLManagedTensor))
        _api.PyCapsule_SetName(pointer, b"used_dltensor")
        tensor = self._managed.contents.dl_tensor
        self.device_type = int(tensor.device.device_type)
        self.device_id = int(tensor.device.device_id)
        self.address = int(tensor.data or 0) + int(tensor.byte_offset)
        itemsize = (tensor.dtype.bits * tensor.dtype.lanes + 7) // 8
        shape = [tensor.shape[i] for i in range(tensor.ndim)]
        strides = [tensor.strides[i] for i in range(tensor.ndim)] if tensor.strides else None
        self.nbytes = extent(shape, strides, itemsize)
        self._deleted = False

    def delete(self) -> None:
        if not self._deleted and self._managed.contents.deleter:
            self._deleted = True
            self._managed.contents.deleter(self._managed)


def extent(shape: Any, strides: Any, itemsize: int) -> int:
    """Bytes from the first element to the end of the last; `strides` in elements (None:
    compact). Negative strides are refused by the callers' producers in practice; an empty
    tensor spans 0 bytes."""
    if any(n == 0 for n in shape):
        return 0
    if strides is None:
        count = 1
        for n in shape:
            count *= n
        return count * itemsize
    return int((sum((n - 1) * s for n, s in zip(shape, strides)) + 1) * itemsize)
