"""Array interchange: DLPack both ways (``from_dlpack``, ``Tensor.__dlpack__``), ``asarray`` and
``frombuffer``, all sharing memory where PyTorch's do: a tensor's storage is its numpy array, so numpy's
own DLPack support carries it to and from numpy, PyTorch, JAX, CuPy (CPU) and anything else that speaks it."""
from __future__ import annotations

import warnings

import numpy as np

from . import _dtype
from ._numpy_compat import array_dlpack, from_dlpack as _np_from_dlpack
from .tensor import Tensor, _make, register_attribute
from ._ops.creation.factory import tensor as _tensor
from .storage import UntypedStorage

__all__ = ["asarray", "from_dlpack", "frombuffer", "from_file", "to_dlpack"]


def _wrap(arr: np.ndarray) -> Tensor:
    if arr.dtype not in _dtype.FROM_NP:
        raise TypeError(f"tinytorch has no dtype for numpy.{arr.dtype} (supported: "
                        + ", ".join(str(d) for d in _dtype.FROM_NP) + ")")
    return _make(arr)


def _scalar_name(d) -> str:
    return d._scalar


class _Capsule:
    """A bare DLPack capsule (the old protocol) given the ``__dlpack__`` face numpy reads."""

    def __init__(self, capsule) -> None:
        self.capsule = capsule

    def __dlpack__(self, stream=None, **kwargs):
        return self.capsule

    def __dlpack_device__(self):
        return (1, 0)  # kDLCPU: the old protocol's capsules here are CPU ones


def from_dlpack(ext_tensor) -> Tensor:
    """A tensor sharing memory with ``ext_tensor`` (anything with ``__dlpack__``, or a DLPack capsule)."""
    if isinstance(ext_tensor, Tensor):
        return ext_tensor
    if not hasattr(ext_tensor, "__dlpack__"):
        ext_tensor = _Capsule(ext_tensor)
    device = ext_tensor.__dlpack_device__()
    if int(device[0]) != 1:
        raise BufferError(f"tinytorch computes on the CPU only; the tensor lives on DLPack device {tuple(device)}")
    return _wrap(_np_from_dlpack(ext_tensor))


def _dlpack(self, *, stream=-1, max_version=None, dl_device=None, copy=None):
    """This tensor's memory as a DLPack capsule (no copy), for ``torch.from_dlpack``, ``np.from_dlpack``, ..."""
    if self.requires_grad:
        raise BufferError("Can't export tensors that require gradient, use tensor.detach()")
    return array_dlpack(self._data, copy, dl_device, max_version)


def _dlpack_device(self):
    return self._data.__dlpack_device__()


register_attribute("__dlpack__", _dlpack)
register_attribute("__dlpack_device__", _dlpack_device)


def _cast(t: Tensor, dtype, copy) -> Tensor:
    if dtype is None or t.dtype == dtype:
        return t
    if copy is False:
        raise ValueError(f"can't alias tensor with dtype '{_scalar_name(t.dtype)}' into dtype '{_scalar_name(dtype)}'.")
    return _make(t._data.astype(dtype.np))


def asarray(obj, *, dtype=None, device=None, copy=None, requires_grad: bool = False) -> Tensor:
    """``obj`` as a tensor, sharing its memory when it is a tensor, an array, a DLPack tensor or a buffer
    (``copy=True`` always copies; ``copy=False`` refuses where sharing is impossible)."""

    if device is not None and str(device) != "cpu":
        raise RuntimeError(f"tinytorch computes on the CPU only, got device={device!r}")
    if isinstance(obj, Tensor):
        out = _cast(obj, dtype, copy)
        if copy and out is obj:
            out = _make(obj._data.copy())
    else:
        arr = None
        if isinstance(obj, np.ndarray):
            arr = obj
        elif isinstance(obj, UntypedStorage):  # its bytes, read as ``dtype`` (safetensors' loader)
            arr = obj._bytes if dtype is None else obj._bytes.view(_dtype.to_np(dtype))
        elif hasattr(obj, "__dlpack__") and not isinstance(obj, (np.generic, bool, int, float, complex)):
            arr = _np_from_dlpack(obj)
        elif not isinstance(obj, (list, tuple, bool, int, float, complex, np.generic)):
            try:
                arr = np.asarray(memoryview(obj))
            except TypeError:
                arr = None
        if arr is None:
            if copy is False:
                raise ValueError("can't alias arbitrary sequence into a tensor.")
            out = _tensor(obj, dtype=dtype)
        else:
            out = _cast(_wrap(arr if not copy else arr.copy()), dtype, copy)
    if requires_grad:
        out = out.detach() if out is obj else out
        out.requires_grad_(True)
    return out


_NOT_WRITABLE = ("The given buffer is not writable, and PyTorch does not support non-writable tensors. This means "
                 "you can write to the underlying (supposedly non-writable) buffer using the tensor. You may want "
                 "to copy the buffer to protect its data or make it writable before converting it to a tensor. "
                 "This type of warning will be suppressed for the rest of this program.")
_warned = [False]


def frombuffer(buffer, *, dtype, count: int = -1, offset: int = 0, requires_grad: bool = False) -> Tensor:
    """A 1-d tensor over the bytes of ``buffer`` (no copy), from ``offset`` on, ``count`` elements."""
    view = memoryview(buffer)
    length, size = view.nbytes, np.dtype(dtype.np).itemsize
    if length <= 0 or count == 0:
        raise ValueError(f"both buffer length ({length}) and count ({count}) must not be 0")
    if offset < 0 or offset >= length:
        raise ValueError(f"offset ({offset} bytes) must be non-negative and no greater than buffer length "
                         f"({length} bytes) minus 1")
    if count < 0:
        if (length - offset) % size:
            raise ValueError(f"buffer length ({length - offset} bytes) after offset ({offset} bytes) must be a "
                             f"multiple of element size ({size})")
        count = (length - offset) // size
    elif offset + count * size > length:
        raise ValueError(f"requested buffer length ({count} * {size} bytes) after offset ({offset} bytes) must "
                         f"not be greater than actual buffer length ({length} bytes)")
    if view.readonly and not _warned[0]:
        _warned[0] = True
        warnings.warn(_NOT_WRITABLE, UserWarning, stacklevel=2)
    out = _make(np.frombuffer(buffer, dtype=dtype.np, count=count, offset=offset))
    if requires_grad:
        out.requires_grad_(True)
    return out


def to_dlpack(tensor: Tensor):
    """A DLPack capsule sharing ``tensor``'s memory (numpy's exporter; a capsule can be consumed once)."""
    return tensor.__dlpack__()


def from_file(filename, shared=None, size: int = 0, *, dtype=None, layout=None, device=None,
              pin_memory: bool = False) -> Tensor:
    """``size`` elements of ``dtype`` (default dtype if None) read from the start of ``filename``.
    ``shared=True`` maps the file, so writes to the tensor reach it; otherwise a private copy."""
    dt = dtype or _dtype.get_default_dtype()
    return _make(UntypedStorage.from_file(filename, bool(shared), size * dt.itemsize)._bytes.view(dt.np))
