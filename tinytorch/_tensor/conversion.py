"""Tensor methods that hand a tensor's values to Python and numpy: ``numpy()``, numpy's ``__array__``
protocol, ``item``/``tolist``, ``len``/``iter``/``bool`` and the number conversions (``float``, ``int``,
``index``, ``complex``, ``format``), with PyTorch's refusals. Tensor (tensor.py) inherits them."""
from __future__ import annotations

import warnings

import numpy as np

from .._dtype import C32_NP
from . import parsed
from .._dtype_casts import c32_to_c64

_META_ITEM = "Tensor.item() cannot be called on meta tensors"
# PyTorch warns once per process (a C++ TORCH_WARN_ONCE) when float() or complex() reads a tensor that requires grad
_GRAD_SCALAR = ("Converting a tensor with requires_grad=True to a scalar may lead to unexpected behavior.\n"
                "Consider using tensor.detach() first. (Triggered internally at /__w/pytorch/pytorch/torch/csrc/"
                "autograd/generated/python_variable_methods.cpp:822.)")
_grad_scalar_warned = [False]


def _warn_grad_scalar() -> None:
    if not _grad_scalar_warned[0]:
        _grad_scalar_warned[0] = True
        warnings.warn(_GRAD_SCALAR, UserWarning, stacklevel=3)
_META_NUMPY = ("can't convert meta device type tensor to numpy. Use Tensor.cpu() to copy the tensor to host memory "
               "first.")


class _TensorConversion:
    # -- leaving tinytorch ---------------------------------------------------------------------
    @parsed
    def numpy(self, *, force: bool = False) -> np.ndarray:
        """The array itself (shared memory); refuses while the tensor requires grad."""
        if self._meta:
            raise TypeError(_META_NUMPY)
        if self._requires_grad and not force:
            raise RuntimeError("Can't call numpy() on Tensor that requires grad. "
                               "Use tensor.detach().numpy() instead.")
        return self._data

    def __array__(self, dtype=None, copy=None):
        """numpy's view of the tensor: the same memory unless ``dtype`` or ``copy=True`` needs another."""
        if self._meta:
            raise TypeError(_META_NUMPY)
        if self._requires_grad:
            raise RuntimeError("Can't call numpy() on Tensor that requires grad. "
                               "Use tensor.detach().numpy() instead.")
        if copy or (dtype is not None and np.dtype(dtype) != self._data.dtype):
            if copy is False:  # numpy's own wording for a copy it was told not to make
                raise ValueError("Unable to avoid copy while creating an array as requested.")
            return np.array(self._data, dtype=dtype, copy=True)
        return self._data

    @parsed
    def item(self):
        """The single element as a Python number."""
        if self._meta:
            raise RuntimeError(_META_ITEM)
        if self._data.size != 1:
            raise RuntimeError(f"a Tensor with {self._data.size} elements cannot be converted to Scalar")
        v = self._data.item() if self._data.ndim == 0 else self._data.reshape(()).item()
        return v if type(v) is not tuple else complex(*v)  # a complex32 element: numpy's (real, imag) fields

    @parsed
    def tolist(self):
        if self._meta:
            raise NotImplementedError("Cannot copy out of meta tensor; no data!")
        if self._data.dtype == C32_NP:
            return c32_to_c64(self._data).tolist()
        return self._data.tolist()

    def __len__(self) -> int:
        if self._data.ndim == 0:
            raise TypeError("len() of a 0-d tensor")
        return self._data.shape[0]

    def __iter__(self):
        if self._data.ndim == 0:
            raise TypeError("iteration over a 0-d tensor")
        return iter(self.unbind(0))

    def __bool__(self) -> bool:
        if self._meta:
            raise RuntimeError(_META_ITEM)
        if self._data.size == 0:
            raise RuntimeError("Boolean value of Tensor with no values is ambiguous")
        if self._data.size != 1:
            raise RuntimeError("Boolean value of Tensor with more than one value is ambiguous")
        v = self._data.reshape(())
        return bool(v) if v.dtype != C32_NP else bool(complex(*v.item()))

    def _scalar(self):
        if self._meta:
            raise RuntimeError(_META_ITEM)
        if self._data.size != 1:
            raise ValueError("only one element tensors can be converted to Python scalars")
        v = self._data.reshape(()).item()
        return v if type(v) is not tuple else complex(*v)

    def __float__(self) -> float:
        if self._requires_grad:
            _warn_grad_scalar()
        return float(self._scalar())

    def __int__(self) -> int:
        return int(self._scalar())

    def __index__(self) -> int:
        if self._meta:
            raise RuntimeError(_META_ITEM)
        if self._data.dtype.kind not in "iub" or self._data.size != 1:
            raise TypeError("only integer tensors of a single element can be converted to an index")
        return int(self._data.reshape(()).item())

    def __complex__(self) -> complex:
        if self._requires_grad:
            _warn_grad_scalar()
        return complex(self.item())

    def __format__(self, spec: str) -> str:
        if self._meta:
            if spec:
                raise TypeError("unsupported format string passed to Tensor.__format__")
            return repr(self)
        if self._data.ndim == 0:
            return self.item().__format__(spec)
        return object.__format__(self, spec)
