"""``Tensor.storage()`` / ``untyped_storage()``: the flat memory a tensor and its views share.

A tinytorch tensor is a numpy array; its storage is the array of its root base (the tensor views were
made from). When that array is C-contiguous the storage objects here alias it (writes through them are
seen by every view); otherwise they hold a C-order copy of the tensor's elements, and say so through
``_is_copy``."""
from __future__ import annotations

import os
import warnings

import numpy as np

from . import _dtype
from ._meta_array import MetaArray
from ._size import device

_warned = [False]


def _root_array(t) -> tuple[np.ndarray, bool]:
    """(the storage as a flat array of the tensor's dtype, whether it is a copy)."""
    root = t if t._base is None else t._base
    home = root.__dict__.get("_set_storage")  # the storage Tensor.set_ pointed it at, while it still holds it
    if home is not None and home.dtype == t._data.dtype and _inside(t._data, home):
        return home, False
    data = root._data
    if data.flags.c_contiguous and data.dtype == t._data.dtype:
        return data.reshape(-1), False
    return np.ascontiguousarray(t._data).reshape(-1), True


def _byte_bounds(a: np.ndarray) -> tuple[int, int]:
    start = a.__array_interface__["data"][0]
    if a.size == 0:
        return start, start
    low = sum(min(0, (n - 1) * st) for n, st in zip(a.shape, a.strides))
    high = sum(max(0, (n - 1) * st) for n, st in zip(a.shape, a.strides))
    return start + low, start + high + a.itemsize


def _inside(a: np.ndarray, home: np.ndarray) -> bool:
    """Do ``a``'s elements lie in ``home``'s memory?"""
    lo, hi = _byte_bounds(a)
    home_lo, home_hi = _byte_bounds(home)
    return home_lo <= lo and hi <= home_hi


def storage_offset(t) -> int:
    """Elements between the storage's start and the tensor's first element."""
    if isinstance(t._data, MetaArray):  # no memory: the offset its views recorded
        return t._data.offset // t._data.dtype.itemsize
    flat, copied = _root_array(t)
    if copied or flat.size == 0:
        return 0
    return (t._data.__array_interface__["data"][0] - flat.__array_interface__["data"][0]) // flat.itemsize


class UntypedStorage:
    """The storage's bytes: ``s[i]`` is the byte at offset ``i`` (an int), ``size()`` the byte count."""

    def __init__(self, array: np.ndarray, is_copy: bool = False):
        self._array, self._is_copy = array, is_copy
        self._bytes = array.view(np.uint8) if array.size else np.zeros(0, np.uint8)

    device = property(lambda self: _cpu())
    is_cuda = False

    def size(self) -> int:
        return self._bytes.size

    nbytes = size
    __len__ = size

    def element_size(self) -> int:
        return 1

    def data_ptr(self) -> int:
        return self._array.__array_interface__["data"][0]

    def __getitem__(self, idx):
        # a slice is a storage over the same bytes, as PyTorch's (safetensors cuts each tensor's bytes so)
        return int(self._bytes[idx]) if isinstance(idx, int) else UntypedStorage(self._bytes[idx])

    def __setitem__(self, idx, value) -> None:
        self._bytes[idx] = value

    def tolist(self) -> list:
        return self._bytes.tolist()

    @classmethod
    def from_file(cls, filename, shared: bool = False, nbytes: int = 0) -> UntypedStorage:
        """The first ``nbytes`` bytes of ``filename``: mapped (writes reach the file) when ``shared``, else read into
        memory. safetensors' loader opens every checkpoint through it."""
        have = os.path.getsize(filename)
        if have < nbytes:
            raise RuntimeError(f"file <{filename}> size <{have}> is smaller than the required mapping size <{nbytes}>")
        if nbytes == 0:
            return cls(np.empty(0, np.uint8))
        if shared:
            return cls(np.memmap(filename, dtype=np.uint8, mode="r+", shape=(nbytes,)))
        return cls(np.fromfile(filename, dtype=np.uint8, count=nbytes))

    def cpu(self):
        return self

    def untyped(self) -> UntypedStorage:
        return self

    def is_shared(self) -> bool:
        return False

    def __repr__(self) -> str:
        body = "\n".join(f" {v}" for v in self._bytes.tolist())
        return f"{body}\n[{_dtype.SHOWN_AS[0]}.storage.UntypedStorage(device=cpu) of size {self.size()}]".lstrip("\n")


class TypedStorage:
    """The storage as elements of the tensor's dtype (PyTorch's deprecated ``Tensor.storage()``)."""

    def __init__(self, array: np.ndarray, is_copy: bool = False):
        self._array, self._is_copy = array, is_copy

    dtype = property(lambda self: _dtype.FROM_NP[self._array.dtype])
    device = property(lambda self: _cpu())
    is_cuda = False

    def size(self) -> int:
        return self._array.size

    __len__ = size

    def nbytes(self) -> int:
        return self._array.nbytes

    def element_size(self) -> int:
        return self._array.itemsize

    def data_ptr(self) -> int:
        return self._array.__array_interface__["data"][0]

    def untyped(self) -> UntypedStorage:
        return UntypedStorage(self._array, self._is_copy)

    def __getitem__(self, idx):
        return self._array[idx].tolist()

    def __setitem__(self, idx, value) -> None:
        self._array[idx] = value

    def tolist(self) -> list:
        return self._array.tolist()

    def cpu(self):
        return self

    def is_shared(self) -> bool:
        return False

    def __repr__(self) -> str:
        body = "\n".join(f" {v}" for v in self._array.tolist())
        head = f"[{_dtype.SHOWN_AS[0]}.storage.TypedStorage(dtype={self.dtype}, device=cpu) of size {self.size()}]"
        return f"{body}\n{head}" if body else head


def _cpu():
    return device("cpu")


def typed_storage(t) -> TypedStorage:
    if not _warned[0]:  # PyTorch warns once per process
        _warned[0] = True
        warnings.warn("TypedStorage is deprecated. It will be removed in the future and UntypedStorage will be the "
                      "only storage class. This should only matter to you if you are using storages directly.  To "
                      "access UntypedStorage directly, use tensor.untyped_storage() instead of tensor.storage()",
                      UserWarning, stacklevel=2)
    return TypedStorage(*_root_array(t))


def untyped_storage(t) -> UntypedStorage:
    return UntypedStorage(*_root_array(t))
