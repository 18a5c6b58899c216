"""The x·log(y) family and the reductions aliased in ``torch.special``: entr, xlogy, xlog1py, sinc,
softmax, log_softmax, logsumexp. numpy-only (no SciPy needed).

xlogy(x, y) is 0 where x == 0 (unless y is nan), as PyTorch and SciPy define it; the nodes are named
as PyTorch names them: ``XlogyBackward0`` for two tensors, ``...1`` when ``self`` is a number and
``...2`` when ``other`` is."""
from __future__ import annotations

import math

import numpy as np

from ...autograd.node import Node
from ...tensor import Tensor
from .._core.batching import pointwise
from .._core.pointwise import unary
from .._core.record import record, wants_grad
from .._core.registry import op
from .._core.util import as_array, binary_operands, fit_grad, meta
from ..pointwise.compare import where
from ..reduce.softmax import log_softmax as _log_softmax, logsumexp as _logsumexp, softmax as _softmax
from ..._dtype import FLOATING_NP, get_default_dtype
from ...tensor import _make

_MATH = "function method inplace torch_inplace out"


def _entr_np(x: np.ndarray) -> np.ndarray:
    out = -x * np.log(np.where(x > 0, x, 1.0))
    out = np.where(x < 0, -np.inf, out)
    return np.where(np.isnan(x), np.nan, out).astype(x.dtype)


entr = unary("special.entr", _entr_np, lambda g, x, y: g * -(1 + x.log()), node="SpecialEntrBackward0",
             variants="function out")


def _sinc_grad(g, x, y):
    px = math.pi * x
    d = ((px * px.cos() - px.sin()) / (px * x))
    return g * where(x == 0, 0.0, d)


sinc = unary("sinc", lambda x: np.sinc(x).astype(x.dtype), _sinc_grad, variants=_MATH, extra=("special.sinc",))


def _float_pair(input, other):
    ta, tb, a, b = binary_operands(input, other)
    dt = (a if isinstance(a, np.ndarray) else b).dtype
    a, b = as_array(a, dtype=dt), as_array(b, dtype=dt)
    if a.dtype not in FLOATING_NP:
        a, b = a.astype(get_default_dtype().np), b.astype(get_default_dtype().np)
    return ta, tb, a, b


def _suffix(ta, tb) -> str:
    return "1" if ta is None else "2" if tb is None else "0"


def _grads(self, ga_fn, gb_fn):
    a, b = self._unpacked_saved
    ga = fit_grad(ga_fn(a, b), self.a_meta) if self.need_a else None
    gb = fit_grad(gb_fn(a, b), self.b_meta) if self.need_b else None
    return ga, gb


def _saved(t, v, dt):
    return t if t is not None else _make(as_array(v, dtype=dt))


def _binary_args(out, ta, tb, a, b) -> dict:
    """``record``'s arguments: both operands are inputs (None for a number) and are saved, a number as a
    tensor of the result's dtype (both formulas need both values)."""
    if not wants_grad((ta, tb)):
        return {"inputs": (ta, tb)}
    return {"inputs": (ta, tb), "saved": (_saved(ta, a, out.dtype), _saved(tb, b, out.dtype)),
            "a_meta": meta(ta, out), "b_meta": meta(tb, out), "need_a": ta is not None and ta._requires_grad,
            "need_b": tb is not None and tb._requires_grad}


class _Xlog1pyNode(Node):
    def backward(self, g):
        return _grads(self, lambda a, b: where((a == 0) & (b <= -1), 0.0, xlog1py(g, b)),
                      lambda a, b: g * a / (b + 1))


def _number(i: int):
    return lambda node: node._slot_value(i).item()  # a Python number, as PyTorch's node keeps it


# PyTorch's _saved_<name> of the three nodes: both tensors, or one a number
_FIELDS = {"0": (("self", 0), ("other", 1)), "1": (("self", _number(0)), ("other", 1)),
           "2": (("self", 0), ("other", _number(1)))}


def _classes(base, stem):
    return {k: type(f"{stem}Backward{k}", (base,), {"__module__": base.__module__, "saved_fields": _FIELDS[k]})
            for k in "012"}


_XLOG1PY = _classes(_Xlog1pyNode, "SpecialXlog1Py")


@op("special.xlog1py", variants="function out", batch=pointwise)
def xlog1py(input, other) -> Tensor:
    """input * log1p(other), 0 where input == 0 (and other is not nan)."""
    ta, tb, a, b = _float_pair(input, other)
    with np.errstate(all="ignore"):
        out = np.where((a == 0) & ~np.isnan(b), 0.0, a * np.log1p(b)).astype(np.result_type(a, b))
    return record(out, _XLOG1PY[_suffix(ta, tb)], **_binary_args(out, ta, tb, a, b))


@op("special.softmax")
def special_softmax(input: Tensor, dim: int, *, dtype=None) -> Tensor:
    return _softmax(input, dim, dtype)


@op("special.log_softmax")
def special_log_softmax(input: Tensor, dim: int, *, dtype=None) -> Tensor:
    return _log_softmax(input, dim, dtype)


@op("special.logsumexp", variants="function out")
def special_logsumexp(input: Tensor, dim, keepdim: bool = False) -> Tensor:
    return _logsumexp(input, dim, keepdim)
