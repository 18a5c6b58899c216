"""Gradient clipping: ``clip_grad_norm_`` (with ``get_total_norm`` / ``clip_grads_with_norm_``) and
``clip_grad_value_``. All of them modify ``.grad`` in place, under no_grad, with PyTorch's formulas."""
from __future__ import annotations

import math
import types
from fractions import Fraction
import warnings

import numpy as np

from ...autograd.grad_mode import no_grad
from ..._dtype import LOWP_NP
from ..._ops._core.util import lowp_round
from ..._ops._kernels.cpu_level import pytorch_level
from ..._ops.linalg.norms import vector_norm as linalg_vector_norm
from ...tensor import Tensor, _make


def _as_list(tensors) -> list:
    if isinstance(tensors, Tensor):
        return [tensors]
    return list(tensors)


_LANE_DTYPES = (np.dtype(np.float32), np.dtype(np.float64))


def _sum_of_squares_in_lanes(a: np.ndarray):
    """sum(a * a) in the order of PyTorch's CPU 2-norm kernel (each gradient's norm in ``_foreach_norm`` is
    ``linalg.vector_norm``'s), so that a clipped training follows PyTorch's floats: the elements in memory order
    are squared into the lanes of a 32-byte vector (8 float32 or 4 float64), each lane summed sequentially,
    the lanes then added one after another, the tail (fewer than a vector's worth) last. On PyTorch's AVX2 path
    (which its AVX512 path runs for this kernel) the compiler fuses the tail's scalar multiply-add, each square
    added with one rounding; its DEFAULT path does not. Held equal to PyTorch's bits on both paths
    (tests/nn/test_nn_utils_clip_norm_order.py); as elsewhere, ``ATEN_CPU_CAPABILITY`` or numpy's detection of
    the CPU tells which one PyTorch takes."""
    with np.errstate(over="ignore", invalid="ignore"):  # inf and NaN as PyTorch gives them, without warnings
        return _lane_sums(np.ravel(a, order="K"), pytorch_level() != "DEFAULT")


def _lane_sums(flat: np.ndarray, fused: bool):
    lanes = 32 // flat.itemsize
    whole = flat.size - flat.size % lanes
    acc = np.square(flat[:whole].reshape(-1, lanes)).sum(axis=0) if whole else np.zeros(lanes, flat.dtype)
    total = acc[0]
    for lane in acc[1:]:
        total = total + lane
    for x in flat[whole:]:
        total = _add_square_fused(total, x) if fused else total + x * x
    return total


def _add_square_fused(total, x):
    """total + x * x rounded once to their dtype (float32: the double in between is a second rounding, which
    made no difference in the tests)."""
    if not (np.isfinite(total) and np.isfinite(x)):
        return total + x * x
    try:
        exact = float(Fraction(float(total)) + Fraction(float(x)) ** 2)
    except OverflowError:
        exact = math.inf
    return total.dtype.type(exact)


def _vector_norm(a: np.ndarray, p: float) -> np.ndarray:
    """The p-norm of all elements of ``a`` (inf, -inf and 0 included), in a's dtype."""
    if a.dtype in LOWP_NP:  # half and bfloat16: the op's float32 accumulation, rounded once (PyTorch's kernel)
        return linalg_vector_norm(_make(a), p)._data
    a = np.abs(a)
    if p == np.inf:
        out = a.max() if a.size else np.zeros((), a.dtype)
    elif p == -np.inf:
        out = a.min() if a.size else np.full((), np.inf, a.dtype)
    elif p == 0:
        out = np.count_nonzero(a)
    elif p == 1:
        out = a.sum()
    elif p == 2:
        out = np.sqrt(_sum_of_squares_in_lanes(a)) if a.dtype in _LANE_DTYPES else np.sqrt(np.square(a).sum())
    else:
        t = a.dtype.type  # the exponents in a's dtype, as numpy 2 casts them (numpy 1.x: float64 for a 0-d a)
        out = np.power(np.power(a, t(p)).sum(), t(1.0 / p))
    return np.asarray(out, dtype=a.dtype)


def get_total_norm(tensors, norm_type: float = 2.0, error_if_nonfinite: bool = False, foreach=None) -> Tensor:
    """The p-norm of the per-tensor p-norms: the norm of all elements as if concatenated into one vector."""
    tensors = _as_list(tensors)
    norm_type = float(norm_type)
    if not tensors:
        return _make(np.asarray(0.0, dtype=np.float32))
    norms = [_vector_norm(t._data, norm_type) for t in tensors]
    dtype = np.result_type(*norms)
    total = _vector_norm(np.stack([n.astype(dtype) for n in norms]), norm_type)
    if error_if_nonfinite and not np.isfinite(total):
        raise RuntimeError(f"The total norm of order {norm_type} for gradients from `parameters` is non-finite, so it "
                           "cannot be clipped. To disable this error and scale the gradients by the non-finite norm "
                           "anyway, set `error_if_nonfinite=False`")
    return _make(total)


def clip_grads_with_norm_(parameters, max_norm: float, total_norm: Tensor, foreach=None) -> None:
    """Scale every gradient by min(max_norm / (total_norm + 1e-6), 1), in place."""
    grads = [p.grad for p in _as_list(parameters) if p.grad is not None]
    if not grads:
        return
    norm = total_norm._data
    t = norm.dtype
    work = np.dtype(np.float32).type if t in LOWP_NP else t.type  # the steps' compute type (PyTorch's opmath)
    with np.errstate(over="ignore", divide="ignore", invalid="ignore"):
        # PyTorch's steps, each rounded to the norm's dtype: total_norm + 1e-6, then max_norm / that, which its
        # Tensor.__rtruediv__ computes as that.reciprocal() * max_norm (two roundings, not one division)
        denom = lowp_round(np.asarray(norm.astype(work) + work(1e-6)), t)
        recip = lowp_round(np.asarray(work(1.0) / denom.astype(work)), t)
        coef = lowp_round(np.asarray(recip.astype(work) * work(max_norm)), t)
    # multiplying by a coefficient of exactly 1 changes nothing, and saves a branch (as PyTorch does)
    coef = np.minimum(coef, np.asarray(1.0, dtype=t))
    with no_grad():
        for g in grads:
            g.mul_(_make(np.asarray(coef, dtype=g._data.dtype)))


def clip_grad_norm_(parameters, max_norm: float, norm_type: float = 2.0, error_if_nonfinite: bool = False,
                    foreach=None) -> Tensor:
    """Rescale the gradients so their total p-norm is at most ``max_norm``; returns the norm before clipping."""
    if isinstance(parameters, Tensor):
        parameters = [parameters]
    else:
        was_generator = isinstance(parameters, types.GeneratorType)
        parameters = list(parameters)
        if was_generator and not parameters:
            warnings.warn("`parameters` is an empty generator, no gradient clipping will occur.", stacklevel=2)
    grads = [p.grad for p in parameters if p.grad is not None]
    total = get_total_norm(grads, norm_type, error_if_nonfinite, foreach)
    clip_grads_with_norm_(parameters, max_norm, total, foreach)
    return total


def clip_grad_norm(parameters, max_norm: float, norm_type: float = 2.0, error_if_nonfinite: bool = False,
                   foreach=None) -> Tensor:
    """Deprecated spelling of ``clip_grad_norm_``."""
    warnings.warn("`tinytorch.nn.utils.clip_grad_norm` is now deprecated in favor of "
                  "`tinytorch.nn.utils.clip_grad_norm_`.", FutureWarning, stacklevel=2)
    return clip_grad_norm_(parameters, max_norm, norm_type, error_if_nonfinite, foreach)


def clip_grad_value_(parameters, clip_value: float, foreach=None) -> None:
    """Clamp every gradient element into [-clip_value, clip_value], in place."""
    clip_value = float(clip_value)
    with no_grad():
        for p in _as_list(parameters):
            if p.grad is not None:
                p.grad.clamp_(min=-clip_value, max=clip_value)
