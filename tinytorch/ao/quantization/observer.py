"""``tinytorch.ao.quantization.observer``: the observers dynamic quantization uses. ``MinMaxObserver`` tracks a
tensor's range and derives qparams from it as PyTorch does (in float32: ``max(|min|, max) / 127.5`` for a symmetric
qint8 weight, never below float32's eps); ``PlaceholderObserver`` only names the dtype a dynamic layer quantizes its
input to (the layer finds the qparams itself, at every call)."""
from __future__ import annotations

import functools

import numpy as np

from ... import _dtype
from ...nn.modules.module import Module
from ...tensor import Tensor, _make
from ..._quantized.tensor import quantize_per_tensor

__all__ = ["ObserverBase", "MinMaxObserver", "PlaceholderObserver", "default_weight_observer",
           "default_dynamic_quant_observer", "default_observer", "quantize_weight"]

_EPS = np.finfo(np.float32).eps


class _PartialWrapper:
    """``Observer.with_args(...)``: a factory of observers with those arguments, printed as PyTorch prints it."""

    def __init__(self, p: functools.partial):
        self.p = p

    def __call__(self, *args, **kwargs):
        return self.p(*args, **kwargs)

    def __repr__(self) -> str:
        return f"{self.p!r}{{}}"

    def with_args(self, **kwargs) -> "_PartialWrapper":
        return _PartialWrapper(functools.partial(self.p, **kwargs))


def _with_args(cls_or_self, **kwargs) -> _PartialWrapper:
    return _PartialWrapper(functools.partial(cls_or_self, **kwargs))


class ObserverBase(Module):
    def __init__(self, dtype, is_dynamic: bool = False):
        super().__init__()
        self.dtype = dtype
        self.is_dynamic = is_dynamic

    with_args = classmethod(_with_args)


def _qrange(dtype, reduce_range: bool, quant_min, quant_max) -> tuple:
    if quant_min is not None and quant_max is not None:
        return quant_min, quant_max
    lo, hi = {"qint8": (-128, 127), "quint8": (0, 255), "qint32": (-2 ** 31, 2 ** 31 - 1)}[dtype.name]
    if reduce_range and dtype.name != "qint32":
        lo, hi = lo // 2, hi // 2
    return lo, hi


class MinMaxObserver(ObserverBase):
    """The running min and max of the tensors seen; ``calculate_qparams`` turns them into (scale, zero_point)."""

    def __init__(self, dtype=_dtype.quint8, qscheme=_dtype.per_tensor_affine, reduce_range: bool = False,
                 quant_min=None, quant_max=None, factory_kwargs=None, eps=_EPS, is_dynamic: bool = False, **kwargs):
        super().__init__(dtype, is_dynamic)
        self.qscheme, self.reduce_range, self.eps = qscheme, reduce_range, np.float32(eps)
        self.quant_min, self.quant_max = _qrange(dtype, reduce_range, quant_min, quant_max)
        self.register_buffer("min_val", _make(np.array(np.inf, np.float32)))
        self.register_buffer("max_val", _make(np.array(-np.inf, np.float32)))

    def forward(self, x_orig):
        if x_orig.numel() == 0:
            return x_orig
        x = x_orig.detach()._data.astype(np.float32)
        self.min_val._data[()] = min(np.float32(x.min()), self.min_val._data[()])
        self.max_val._data[()] = max(np.float32(x.max()), self.max_val._data[()])
        return x_orig

    def calculate_qparams(self) -> tuple:
        lo, hi = self.min_val._data, self.max_val._data
        if not (np.isfinite(lo) and np.isfinite(hi)):
            return _make(np.ones(1, np.float32)), _make(np.zeros(1, np.int64))
        min_neg, max_pos = np.minimum(lo, np.float32(0)), np.maximum(hi, np.float32(0))
        qmin, qmax = self.quant_min, self.quant_max
        if self.qscheme in (_dtype.per_tensor_symmetric, _dtype.per_channel_symmetric):
            scale = np.maximum(np.maximum(-min_neg, max_pos) / np.float32((qmax - qmin) / 2), self.eps)
            zero_point = np.array(128 if self.dtype is _dtype.quint8 else 0, np.int64)
        else:
            scale = np.maximum((max_pos - min_neg) / np.float32(qmax - qmin), self.eps)
            zero_point = np.clip(qmin - np.rint(min_neg / scale).astype(np.int64), qmin, qmax)
        return _make(np.asarray(scale, np.float32)), _make(np.asarray(zero_point, np.int64))

    def extra_repr(self) -> str:
        return f"min_val={self.min_val}, max_val={self.max_val}"


class PlaceholderObserver(ObserverBase):
    """Observes nothing: names the dtype (and range) a layer quantizes to."""

    def __init__(self, dtype=_dtype.float32, custom_op_name: str = "", compute_dtype=None, quant_min=None,
                 quant_max=None, qscheme=None, eps=None, is_dynamic: bool = False):
        super().__init__(dtype, is_dynamic)
        self.quant_min, self.quant_max = quant_min, quant_max
        self.qscheme = _dtype.per_tensor_affine if qscheme is None else qscheme
        self.custom_op = custom_op_name

    def forward(self, x):
        return x

    def calculate_qparams(self):
        raise Exception("calculate_qparams should not be called for PlaceholderObserver")  # noqa: TRY002


def quantize_weight(weight: Tensor, observer) -> Tensor:
    """A float weight quantized to qint8 with the qparams ``observer`` found (PyTorch's ``_quantize_weight``)."""
    scale, zero_point = observer.calculate_qparams()
    if observer.qscheme not in (_dtype.per_tensor_symmetric, _dtype.per_tensor_affine):
        raise NotImplementedError(f"tinytorch quantizes weights per tensor, not {observer.qscheme}")
    return quantize_per_tensor(weight, float(scale._data.reshape(-1)[0]), int(zero_point._data.reshape(-1)[0]),
                               _dtype.qint8)


default_observer = MinMaxObserver.with_args(quant_min=0, quant_max=127)
default_weight_observer = MinMaxObserver.with_args(dtype=_dtype.qint8, qscheme=_dtype.per_tensor_symmetric)
default_dynamic_quant_observer = PlaceholderObserver.with_args(dtype=_dtype.quint8, quant_min=0, quant_max=255,
                                                               is_dynamic=True)
