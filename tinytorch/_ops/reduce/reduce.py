"""Reductions over dims (PyTorch's ReduceOps): sum, mean, var, std, all, any. The extremes (max,
min, amax, amin, argmax, argmin) are in ``minmax.py``, logsumexp and the softmaxes in ``softmax.py``.

Every reduction takes PyTorch's ``keepdims=`` keyword alias of ``keepdim`` in its own signature (a
wrapper would cost the hot path a call)."""
from __future__ import annotations

import numpy as np

from ...autograd.grad_mode import _State
from ...autograd.node import Node
from ...tensor import Tensor, _make, _wrap_dim
from .._core.batching import logical_dims
from .._core.record import OUT, record
from .._core.registry import op
from .._core.util import as_array, c_order, lowp_round, normalize_dims, numel_of, opmath, saved_correction, saved_dims
from ..._dtype import FLOATING_NP, INEXACT_NP, LOWP_NP, NARROW_NP, FROM_NP, to_np
from .._core import narrow_dtypes
from ... import _dtype
from ..._quiet_fp import loud, quiet
from ..pointwise.compare import where
from ..pointwise.division import div_scalar

_REDUCTION = "function method out"


def _keepdim(keepdim: bool, keepdims, name: str) -> bool:
    """``keepdims=`` is PyTorch's keyword alias of ``keepdim=`` (refused beside a true ``keepdim``)."""
    if keepdims is None:
        return keepdim
    if keepdim is not False:
        raise TypeError(f"{name}() got an unexpected keyword argument 'keepdims'")
    return keepdims


def batch_reduction(op, input, dim=None, keepdim=False, *args, keepdims=None, **kwargs):
    """vmap's rule for a reduction over ``dim`` (None or () meaning every dim): the logical dims
    shifted past the batch dim, one call on the whole batch."""
    keepdim = _keepdim(keepdim, keepdims, op.__name__)
    dims = logical_dims(input, dim)
    if dims == ():  # 0-d samples: reduce a size-1 dim after the batch instead (the result keeps op's dtype)
        return input._wrap(op(input._phys.unsqueeze(1), 1, False, *args, **kwargs))
    return input._wrap(op(input._phys, dims, keepdim, *args, **kwargs))


def _grad_back(g: Tensor, in_shape: tuple, dims: tuple, keepdim: bool) -> Tensor:
    """Broadcast a reduced gradient back over the reduced dims (differentiable). A gradient of every dim is
    0-d and expands as it is (PyTorch's ``sum()`` formula, ``grad.expand(self.sizes())``)."""
    if not keepdim and dims and len(dims) < len(in_shape):
        for d in sorted(dims):  # PyTorch's unsqueeze_multiple
            g = g.unsqueeze(d)
    return g.expand(in_shape)


class _ReduceNode(Node):
    """A reduction's node: the input's shape ``in_shape``, the reduced ``dims``, ``keepdim``, and the dim
    argument as given (``dim_arg``: PyTorch's _saved_dim shows it so)."""
    dim_arg = None


_SIZES = ("self_sym_sizes", lambda n: tuple(n.in_shape))
_NUMEL = ("self_sym_numel", lambda n: numel_of(n.in_shape))
_DIM = ("dim", lambda n: saved_dims(n.dim_arg))


class SumBackward0(_ReduceNode):
    saved_fields = (_SIZES,)

    def backward(self, g):
        return (_grad_back(g, self.in_shape, self.dims, self.keepdim),)

    def jvp(self, t):
        # the op itself on the tangent (PyTorch's auto_linear), so the tangent's node is this one's overload
        return t.sum()


class SumBackward1(SumBackward0):
    saved_fields = (_DIM, ("keepdim", "keepdim"), _SIZES)

    def jvp(self, t):
        return t.sum(self.dims, keepdim=self.keepdim) if self.dims else t


_MEAN_DTYPES = INEXACT_NP - NARROW_NP


def _sum_dtype(x: np.ndarray, dtype):
    if dtype is not None:
        return to_np(dtype)
    return np.dtype(np.int64) if x.dtype.kind in "biu" else x.dtype


def _sum_array(x: np.ndarray, dims: tuple, keepdim: bool, sdt) -> np.ndarray:
    """``x`` summed over ``dims`` in ``sdt`` by numpy (the step a CPU path registers onto): half and bfloat16 in
    float32, rounded once."""
    if sdt == x.dtype and x.dtype in LOWP_NP:  # float32 accumulation, one rounding
        return lowp_round(np.asarray(x.astype(np.float32).sum(axis=dims, keepdims=keepdim)), x.dtype)
    return x.sum(axis=dims, keepdims=keepdim, dtype=sdt)


def _sum_result(x: np.ndarray, dims: tuple, keepdim: bool, sdt) -> np.ndarray:
    """``_sum_array``'s sum laid out as PyTorch's reductions lay out their results: in C order (size-1 dims' strides
    too) whatever ``x``'s layout, where numpy's reduce follows the input's order (a copy only then)."""
    return c_order(as_array(_sum_array(x, dims, keepdim, sdt)))


@op(variants=_REDUCTION, batch=batch_reduction)
def sum(input: Tensor, dim=None, keepdim: bool = False, *, dtype=None, keepdims=None) -> Tensor:
    """Sum over ``dim`` (all dims when None); ints and bools sum to int64."""
    if keepdims is not None:
        keepdim = _keepdim(keepdim, keepdims, "sum")
    x = input._data
    dims = normalize_dims(dim, x.ndim)
    sdt = _sum_dtype(x, dtype)
    if x.dtype in NARROW_NP and sdt == x.dtype:
        narrow_dtypes.refuse("sum_cpu", x.dtype)  # PyTorch's CPU sum has no float8 / complex32 kernel
    fp = quiet()  # inf + -inf is NaN without a numpy warning, as PyTorch's sum gives it
    try:
        out = _sum_result(x, dims, keepdim, sdt)
    finally:
        loud(fp)
    if _State.enabled and input._requires_grad:
        if dim is None:
            return record(out, SumBackward0, (input,), in_shape=x.shape, dims=dims, keepdim=keepdim)
        return record(out, SumBackward1, (input,), in_shape=x.shape, dims=dims, keepdim=keepdim, dim_arg=dim)
    return _make(out)


class MeanBackward0(_ReduceNode):
    saved_fields = (_NUMEL, _SIZES)

    def backward(self, g):
        return (div_scalar(_grad_back(g, self.in_shape, self.dims, self.keepdim), self.count),)

    def jvp(self, t):
        return t.mean()  # (as sum's: the op itself on the tangent)


class MeanBackward1(MeanBackward0):
    saved_fields = (_DIM, ("keepdim", "keepdim"), _NUMEL, _SIZES)

    def jvp(self, t):
        return div_scalar(t.sum(self.dims, keepdim=self.keepdim) if self.dims else t, self.count)


def _require_float(x: np.ndarray, what: str) -> None:
    if x.dtype not in INEXACT_NP:
        name = FROM_NP[x.dtype]._scalar
        raise RuntimeError(f"{what}(): could not infer output dtype. Input dtype must be either a floating "
                           f"point or complex dtype. Got: {name}")


_VAR_FLOATS = FLOATING_NP - NARROW_NP  # PyTorch's std/var kernels have no float8


def _require_var_float(x: np.ndarray) -> None:
    if x.dtype not in _VAR_FLOATS:
        if x.dtype in NARROW_NP and x.dtype != _dtype.C32_NP:
            raise RuntimeError(f"std_var_all: Unsupported dtype {FROM_NP[x.dtype]._scalar}")
        raise RuntimeError("std and var only support floating point and complex dtypes")


@op(variants=_REDUCTION, batch=batch_reduction)
def mean(input: Tensor, dim=None, keepdim: bool = False, *, dtype=None, keepdims=None) -> Tensor:
    """Mean over ``dim`` (all dims when None); floating inputs only, as PyTorch."""
    if keepdims is not None:
        keepdim = _keepdim(keepdim, keepdims, "mean")
    x = input._data
    if dtype is not None:
        x = x.astype(_sum_dtype(x, dtype))
    if x.dtype not in _MEAN_DTYPES:  # one lookup: float8 / complex32 refused as PyTorch's sum kernel refuses
        if x.dtype in NARROW_NP:
            narrow_dtypes.refuse("sum_cpu", x.dtype)
        _require_float(x, "mean")
    dims = normalize_dims(dim, x.ndim)
    fp = quiet()
    try:
        out = c_order(as_array(_mean_array(x, dims, keepdim)))
    finally:
        loud(fp)
    if _State.enabled and input._requires_grad:
        count = 1
        for d in dims:
            count *= x.shape[d]
        if dim is None:
            return record(out, MeanBackward0, (input,), in_shape=x.shape, dims=dims, keepdim=keepdim, count=count)
        return record(out, MeanBackward1, (input,), in_shape=x.shape, dims=dims, keepdim=keepdim, dim_arg=dim,
                      count=count)
    return _make(out)


def _mean_array(x: np.ndarray, dims: tuple, keepdim: bool) -> np.ndarray:
    """The mean of a floating ``x`` over ``dims`` (half and bfloat16 in float32, rounded once): the step a CPU
    path registers onto."""
    return lowp_round(as_array(mean_of(opmath(x), dims, keepdim)), x.dtype)


def mean_of(x: np.ndarray, dims, keepdim: bool) -> np.ndarray:
    """numpy's mean; NaN for an empty reduction as PyTorch's, without numpy's "Mean of empty slice" warning
    (a ``warnings.warn``, which the error state does not silence)."""
    if x.size:
        return x.mean(axis=dims, keepdims=keepdim)
    r = np.add.reduce(x, axis=dims, keepdims=keepdim)
    return r * np.asarray(np.nan, dtype=r.dtype)  # (numpy 1.x takes a 0-d float32 times nan to float64)


def warn_dof(name: str, x: np.ndarray, n: int, c, stacklevel: int) -> None:
    """PyTorch's warning where the degrees of freedom are not positive: its reduction factor (the input's numel
    divided by the output's, 0 for an empty input) less the correction."""
    if (n if x.size else 0) - c <= 0:
        import warnings
        warnings.warn(f"{name}(): degrees of freedom is <= 0. Correction should be strictly less than the "
                      "reduction factor (input numel divided by output numel).", UserWarning, stacklevel=stacklevel + 1)


def _correction(unbiased, correction) -> float:
    if correction is not None:
        return correction
    return 1 if unbiased is None or unbiased else 0


class VarBackward0(_ReduceNode):
    saved_fields = (("correction", "correction"), _DIM, ("keepdim", "keepdim"), ("self", 0))

    def backward(self, g):
        (x,) = self._unpacked_saved
        centred = x - x.mean(dim=self.dims, keepdim=True)
        factor = 2.0 / self.denom if self.denom else float("inf")  # no degrees of freedom: NaN, as PyTorch
        return (_grad_back(g, self.in_shape, self.dims, self.keepdim) * centred * factor,)

    def jvp(self, t):
        (x,) = self._unpacked_saved
        centred = x - x.mean(dim=self.dims, keepdim=True)
        factor = 2.0 / self.denom if self.denom else float("inf")
        return (centred * t).sum(self.dims, keepdim=self.keepdim) * factor


class StdBackward0(_ReduceNode):
    saved_fields = (("correction", "correction"), _DIM, ("keepdim", "keepdim"), ("self", 0), ("result", 1))

    def backward(self, g):
        x, y = self._unpacked_saved
        centred = x - x.mean(dim=self.dims, keepdim=True)
        # where the deviation is 0 PyTorch defines the gradient as 0 rather than 0/0
        share = where(y == 0, 0.0, g / (y * self.denom))
        return (_grad_back(share, self.in_shape, self.dims, self.keepdim) * centred,)

    def jvp(self, t):
        x, y = self._unpacked_saved
        centred = x - x.mean(dim=self.dims, keepdim=True)
        return where(y == 0, 0.0, (centred * t).sum(self.dims, keepdim=self.keepdim) / (y * self.denom))


def _var_args(dim, unbiased, keepdim):
    # var(x, 0) and var(x, True) are both legal: a bool second argument is ``unbiased``
    if isinstance(dim, bool):
        return None, dim, keepdim
    return dim, unbiased, keepdim


def _batch_var(op, input, dim=None, unbiased=None, keepdim=False, *, correction=None, keepdims=None):
    dim, unbiased, keepdim = _var_args(dim, unbiased, _keepdim(keepdim, keepdims, op.__name__))
    dims = logical_dims(input, dim)
    if dims == ():  # 0-d samples
        return input._wrap(op(input._phys.unsqueeze(1), 1, unbiased, False, correction=correction))
    return input._wrap(op(input._phys, dims, unbiased, keepdim, correction=correction))


def _variance(input: Tensor, dim, unbiased, keepdim, correction, name: str):
    """The corrected variance in float64 (PyTorch accumulates in double), with what backward needs."""
    dim, unbiased, keepdim = _var_args(dim, unbiased, keepdim)
    x = input._data
    _require_var_float(x)
    dims = normalize_dims(dim, x.ndim)
    c = _correction(unbiased, correction)
    n = 1
    for d in dims:
        n *= x.shape[d]
    warn_dof(name, x, n, c, 3)
    x64 = x.astype(np.float64, copy=False)
    with np.errstate(divide="ignore", invalid="ignore"):
        v = (x64.var(axis=dims, keepdims=keepdim, ddof=0) if x.size else mean_of(x64, dims, keepdim)) * (
            n / (n - c) if n != c else np.inf)
    return v, dims, keepdim, n - c


def _complex_variance(input: Tensor, dim, unbiased, keepdim, correction) -> Tensor:
    """A complex tensor's variance, E|z - E z|^2: the real part's plus the imaginary part's (real)."""
    return (var(input.real, dim, unbiased, keepdim, correction=correction)
            + var(input.imag, dim, unbiased, keepdim, correction=correction))


def _moment_attrs(x: np.ndarray, dims, keepdim, dim, unbiased, correction, denom) -> dict:
    """What var's and std's nodes know: the arguments as given (PyTorch's saved values show them)."""
    return {"in_shape": x.shape, "dims": dims, "keepdim": keepdim, "dim_arg": None if isinstance(dim, bool) else dim,
            "correction": saved_correction(correction, unbiased, dim), "denom": denom}


@op(variants=_REDUCTION, batch=_batch_var)
def var(input: Tensor, dim=None, unbiased=None, keepdim: bool = False, *, correction=None, keepdims=None) -> Tensor:
    """Variance over ``dim`` with Bessel's correction by default."""
    if keepdims is not None:
        keepdim = _keepdim(keepdim, keepdims, "var")
    if input._data.dtype.kind == "c":
        return _complex_variance(input, dim, unbiased, keepdim, correction)
    v, dims, keepdim, denom = _variance(input, dim, unbiased, keepdim, correction, "var")
    x = input._data
    out = c_order(as_array(as_array(v).astype(x.dtype, copy=False)))  # one rounding, to PyTorch's value
    return record(out, VarBackward0, (input,), (input,), **_moment_attrs(x, dims, keepdim, dim, unbiased, correction,
                                                                         denom))


@op(variants=_REDUCTION, batch=_batch_var)
def std(input: Tensor, dim=None, unbiased=None, keepdim: bool = False, *, correction=None, keepdims=None) -> Tensor:
    """Standard deviation over ``dim`` with Bessel's correction by default."""
    if keepdims is not None:
        keepdim = _keepdim(keepdim, keepdims, "std")
    if input._data.dtype.kind == "c":
        return _complex_variance(input, dim, unbiased, keepdim, correction).sqrt()
    v, dims, keepdim, denom = _variance(input, dim, unbiased, keepdim, correction, "std")
    x = input._data
    out = c_order(as_array(np.sqrt(v).astype(x.dtype, copy=False)))  # sqrt in double too, as PyTorch
    return record(out, StdBackward0, (input,), (input, OUT), **_moment_attrs(x, dims, keepdim, dim, unbiased,
                                                                              correction, denom))




def _all_any(input: Tensor, dim, keepdim: bool, fn) -> Tensor:
    x = input._data
    if isinstance(dim, (tuple, list)):
        dims = tuple(_wrap_dim(d, x.ndim) for d in dim)
        # an empty dim list reduces nothing (unlike sum's): each element is tested alone
        out = (x != 0) if not dims else fn(x, axis=dims if x.ndim else None, keepdims=keepdim)
    else:
        out = fn(x, axis=None if dim is None or not x.ndim else _wrap_dim(dim, x.ndim), keepdims=keepdim)
    out = as_array(out)
    if type(out) is np.ndarray:  # C order, as PyTorch's CPU kernel gives even the test of each element alone
        out = c_order(out)  # (its meta kernel keeps the input's layout there, as the comparison's meta result)
    # uint8 in, uint8 out, as PyTorch keeps for the old byte masks
    return _make(out.astype(np.uint8) if x.dtype == np.uint8 else out)


def _batch_all_any(op, input, dim=None, keepdim=False, *, keepdims=None):
    if isinstance(dim, (tuple, list)) and not dim:  # an empty dim list tests each element alone
        return input._wrap(op(input._phys, dim=()))
    return batch_reduction(op, input, dim, keepdim, keepdims=keepdims)


@op(variants=_REDUCTION, batch=_batch_all_any)
def all(input: Tensor, dim=None, keepdim: bool = False, *, keepdims=None) -> Tensor:
    """True where every element over ``dim`` is nonzero."""
    if keepdims is not None:
        keepdim = _keepdim(keepdim, keepdims, "all")
    return _all_any(input, dim, keepdim, np.all)


@op(variants=_REDUCTION, batch=_batch_all_any)
def any(input: Tensor, dim=None, keepdim: bool = False, *, keepdims=None) -> Tensor:
    """True where some element over ``dim`` is nonzero."""
    if keepdims is not None:
        keepdim = _keepdim(keepdim, keepdims, "any")
    return _all_any(input, dim, keepdim, np.any)
