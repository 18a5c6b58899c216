"""Tensor methods about where a tensor lives and how it is copied: the device and memory queries
(CPU only: ``cuda()`` and pinning refuse as PyTorch does on a machine without an accelerator), the
legacy ``type()``, and ``copy.deepcopy`` of leaves. Tensor (tensor.py) inherits them."""
from __future__ import annotations

import copy
from typing import TypeVar

from .. import _dtype
from .._meta_data import dataless
from . import parsed

# the Tensor itself (its class inherits these methods): tensor.py imports this module, not the other way round
_T = TypeVar("_T", bound="_TensorPlacement")


class _TensorPlacement:
    def __deepcopy__(self, memo):
        if self.grad_fn is not None:
            raise RuntimeError("Only Tensors created explicitly by the user (graph leaves) support the "
                               "deepcopy protocol at the moment.  If you were attempting to deepcopy a "
                               "module, this may be because of a torch.nn.utils.weight_norm usage, see "
                               "https://github.com/pytorch/pytorch/pull/103001")
        if id(self) in memo:
            return memo[id(self)]
        new = type(self).__new__(type(self))
        new._data = dataless(self._data) if self._meta else self._data.copy()
        new._vc = [0]
        new._requires_grad = self._requires_grad
        if self._grad is not None:
            new._grad = self._grad.__deepcopy__(memo)
        for k, v in self.__dict__.items():
            if k not in ("_data", "_vc", "_requires_grad", "_grad", "_accumulator", "_hooks"):
                setattr(new, k, copy.deepcopy(v, memo))
        memo[id(self)] = new
        return new

    @parsed
    def cpu(self: _T) -> _T:
        if self._meta:
            raise NotImplementedError("Cannot copy out of meta tensor; no data!")
        return self

    @parsed
    def cuda(self, *args, **kwargs):
        raise AssertionError("Torch not compiled with CUDA enabled")

    @parsed
    def pin_memory(self: _T, device=None) -> _T:
        raise RuntimeError("Cannot access accelerator device when none is available.")

    @parsed
    def is_pinned(self, device=None) -> bool:
        return False

    def share_memory_(self: _T) -> _T:
        return self

    def is_shared(self) -> bool:
        return False

    @parsed
    def type(self, dtype=None, non_blocking: bool = False):
        """With no argument the legacy type name (``'tinytorch.FloatTensor'``); else a cast."""
        if dtype is None:
            return f"{_dtype.SHOWN_AS[0]}.{self.dtype._legacy}"
        if isinstance(dtype, str):
            module, _, name = dtype.rpartition(".")
            match = [d for d in _dtype.ALL if d._legacy == name and module in ("torch", "tinytorch")]
            if not match:
                raise ValueError(f"invalid type: {dtype!r}")
            return self.to(self.device, match[0])  # (a type names a device too: PyTorch's to(device, dtype))
        if type(dtype) is not _dtype.dtype:
            return self.to(self.device, dtype.dtype)  # a legacy type (tinytorch.DoubleTensor) carries its dtype
        return self.to(dtype)
