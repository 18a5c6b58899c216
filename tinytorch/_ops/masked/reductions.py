"""``torch.masked``: reductions and normalizations that see only the elements where ``mask`` is True
(strided tensors). Each replaces the masked-out elements by its reduction's identity (0 for sums, 1
for products, -inf for maxima and log-sum-exp, +inf for minima, NaN for the median) and then runs the
ordinary op, as PyTorch's definitions do; mean, var and std divide by the number of masked-in
elements. The gradients are those of ``where`` and the ordinary ops."""
from __future__ import annotations

import numpy as np

from ... import _dtype
from ...tensor import Tensor, _make
from .._core.registry import op
from .._core.util import as_array
from ..pointwise.compare import where
from ..linalg.norms import vector_norm

_SMALL_INTS = ("uint8", "bool", "int8", "int16", "int32")


def _dims(dim, ndim: int) -> tuple:
    """``dim`` as a sorted tuple of non-negative dims (None or () is every dim)."""
    if dim is None or dim == ():
        return tuple(range(ndim))
    n = max(ndim, 1)
    out = []
    for d in ((dim,) if isinstance(dim, int) else dim):
        if d in out:
            raise RuntimeError(f"dim={d} appears multiple times in the list of dims")
        if d >= n or d < -n:
            raise IndexError(f"Dimension out of range (expected to be in range of [{-n}, {n - 1}], but got {d})")
        out.append(d % n)
    return tuple(sorted(out))


def _mask_of(input: Tensor, mask) -> Tensor:
    if mask.shape != input.shape:
        if mask.dim() > input.dim():
            raise IndexError("_input_mask expected broadcastable mask (got mask dimensionality higher than of the "
                             "input)")
        mask = mask.broadcast_to(tuple(input.shape))
    return mask if mask.dtype == _dtype.bool_ else mask.to(_dtype.bool_)


def _identity(kind: str, input: Tensor, ord=None):
    dt = input._data.dtype
    if kind == "sum":
        return 0
    if kind == "prod":
        return 1
    if kind == "median":
        return float("nan")
    if kind == "norm":
        return float("inf") if ord == float("-inf") else 0
    if dt in _dtype.FLOATING_NP:
        return float("-inf") if kind == "max" else float("inf")
    if dt.kind == "c":  # logsumexp's identity (its shift takes the largest real part)
        return complex(float("-inf"), 0.0)
    if dt.kind == "b":
        return kind != "max"
    info = np.iinfo(dt)
    return int(info.min) if kind == "max" else int(info.max)


def _filled(input: Tensor, mask, kind: str, ord=None) -> Tensor:
    if mask is None:
        return input
    fill = _make(as_array(_identity(kind, input, ord), dtype=input._data.dtype))
    return where(_mask_of(input, mask), input, fill)


def _sum_dtype(input: Tensor, dtype):
    if dtype is not None:
        return dtype
    return _dtype.int64 if input.dtype.name in _SMALL_INTS else input.dtype


@op("masked.sum")
def sum(input: Tensor, dim=None, *, keepdim: bool = False, dtype=None, mask: Tensor | None = None) -> Tensor:
    return _filled(input, mask, "sum").sum(_dims(dim, input.dim()), keepdim=bool(keepdim),
                                           dtype=_sum_dtype(input, dtype))


@op("masked.prod")
def prod(input: Tensor, dim=None, *, keepdim: bool = False, dtype=None, mask: Tensor | None = None) -> Tensor:
    result = _filled(input, mask, "prod").to(_sum_dtype(input, dtype))
    for d in reversed(_dims(dim, input.dim())):
        result = result.prod(d, keepdim=bool(keepdim))
    return result


@op("masked.amax")
def amax(input: Tensor, dim=None, *, keepdim: bool = False, dtype=None, mask: Tensor | None = None) -> Tensor:
    x = _filled(input, mask, "max")
    return x.amax(_dims(dim, x.dim()), bool(keepdim)).to(dtype or input.dtype)


@op("masked.amin")
def amin(input: Tensor, dim=None, *, keepdim: bool = False, dtype=None, mask: Tensor | None = None) -> Tensor:
    x = _filled(input, mask, "min")
    return x.amin(_dims(dim, x.dim()), bool(keepdim)).to(dtype or input.dtype)


@op("masked.argmax")
def argmax(input: Tensor, dim: int | None = None, *, keepdim: bool = False, dtype=None,
           mask: Tensor | None = None) -> Tensor:
    return _filled(input, mask, "max").argmax(dim, bool(keepdim)).to(dtype or input.dtype)


@op("masked.argmin")
def argmin(input: Tensor, dim: int | None = None, *, keepdim: bool = False, dtype=None,
           mask: Tensor | None = None) -> Tensor:
    return _filled(input, mask, "min").argmin(dim, bool(keepdim)).to(dtype or input.dtype)


def _count(input: Tensor, dim, keepdim: bool, mask) -> Tensor:
    if mask is None:
        ones = _make(np.ones_like(input._data, dtype=np.int64, order="C"))  # (a meta input: meta)
        return ones.sum(_dims(dim, input.dim()), keepdim=keepdim)
    return _mask_of(input, mask).sum(_dims(dim, input.dim()), keepdim=keepdim)


@op("masked.mean")
def mean(input: Tensor, dim=None, *, keepdim: bool = False, dtype=None, mask: Tensor | None = None) -> Tensor:
    """The mean of the masked-in elements (NaN where there are none)."""
    source = "Optional" if dtype is not None else "Input"
    dtype = dtype or input.dtype
    if not (dtype.is_floating_point or dtype.is_complex):
        raise ValueError(f"mean(): Could not infer output dtype. {source} dtype must be either a floating point or "
                         f"complex dtype. Got: torch.{dtype.name}")
    total = sum(input, dim, keepdim=keepdim, dtype=dtype, mask=mask)
    return total / _count(input, dim, bool(keepdim), mask)


@op("masked.median")
def median(input: Tensor, dim: int = -1, *, keepdim: bool = False, dtype=None, mask: Tensor | None = None) -> Tensor:
    """The median of the masked-in elements along ``dim`` (NaN where there are none)."""
    dtype = dtype or input.dtype
    d = _dims(dim, input.dim())[0]
    is_float = input.is_floating_point()
    x = input if is_float else input.to(_dtype.float32)
    out = _filled(x, mask, "median").nanmedian(d, keepdim).values
    if is_float:
        return out
    if bool(out.isnan().any()):
        raise ValueError("masked median expects no fully masked out rows if dtype is not floating point")
    return out.to(dtype)


@op("masked.norm")
def norm(input: Tensor, ord=2.0, dim=None, *, keepdim: bool = False, dtype=None, mask: Tensor | None = None) -> Tensor:
    x = _filled(input, mask, "norm", ord)
    return vector_norm(x, ord, _dims(dim, input.dim()), bool(keepdim), dtype=dtype or input.dtype)


def _std_var(input: Tensor, dim, unbiased, correction, keepdim, dtype, mask, take_sqrt: bool) -> Tensor:
    c = 1.0
    if unbiased is not None:
        c = 1.0 if unbiased else 0.0
    if correction is not None:
        c = float(correction)
    if dtype is None:
        dtype = input.dtype if input.is_floating_point() or input.is_complex() else _dtype.float32
    compute = dtype if dtype.is_floating_point or dtype.is_complex else _dtype.float32
    count = _count(input, dim, True, mask)
    sample_mean = sum(input, dim, keepdim=True, dtype=dtype, mask=mask) / count
    x = input - sample_mean
    total = sum(x * x.conj(), dim, keepdim=bool(keepdim), dtype=compute, mask=mask)
    if not keepdim:
        count = count.reshape(tuple(total.shape))
    if c != 0:
        real = _dtype.FROM_NP[_dtype.TO_REAL[compute.np]] if compute.is_complex else compute
        count = (count.to(real) - c).clamp(min=0)
    out = (total / count).to(dtype)
    return out.sqrt() if take_sqrt else out


@op("masked.var")
def var(input: Tensor, dim=None, unbiased: bool | None = None, *, correction=None, keepdim: bool = False,
        dtype=None, mask: Tensor | None = None) -> Tensor:
    return _std_var(input, dim, unbiased, correction, keepdim, dtype, mask, False)


@op("masked.std")
def std(input: Tensor, dim=None, unbiased: bool | None = None, *, correction=None, keepdim: bool = False,
        dtype=None, mask: Tensor | None = None) -> Tensor:
    return _std_var(input, dim, unbiased, correction, keepdim, dtype, mask, True)


@op("masked.logsumexp")
def logsumexp(input: Tensor, dim=None, *, keepdim: bool = False, dtype=None, mask: Tensor | None = None) -> Tensor:
    x = _filled(input, mask, "max")
    return x.logsumexp(_dims(dim, input.dim()), keepdim=keepdim).to(dtype or input.dtype)


@op("masked.cumsum")
def cumsum(input: Tensor, dim: int, *, dtype=None, mask: Tensor | None = None) -> Tensor:
    dtype = dtype or input.dtype
    return _filled(input, mask, "sum").cumsum(_dims(dim, input.dim())[0], dtype=dtype).to(dtype)


@op("masked.cumprod")
def cumprod(input: Tensor, dim: int, *, dtype=None, mask: Tensor | None = None) -> Tensor:
    dtype = dtype or input.dtype
    return _filled(input, mask, "prod").cumprod(_dims(dim, input.dim())[0], dtype=dtype).to(dtype)


@op("masked.softmax")
def softmax(input: Tensor, dim: int, *, dtype=None, mask: Tensor | None = None) -> Tensor:
    return _filled(input, mask, "max").softmax(_dims(dim, input.dim())[0], dtype=dtype or input.dtype)


@op("masked.log_softmax")
def log_softmax(input: Tensor, dim: int, *, dtype=None, mask: Tensor | None = None) -> Tensor:
    return _filled(input, mask, "max").log_softmax(_dims(dim, input.dim())[0], dtype=dtype or input.dtype)


@op("masked.softmin")
def softmin(input: Tensor, dim: int, *, dtype=None, mask: Tensor | None = None) -> Tensor:
    x = _filled(input, mask, "min")
    return (-x).softmax(_dims(dim, input.dim())[0], dtype=dtype or input.dtype)


@op("masked.normalize")
def normalize(input: Tensor, ord, dim: int, *, eps: float = 1e-12, dtype=None, mask: Tensor | None = None) -> Tensor:
    dtype = dtype or input.dtype
    nrm = norm(input, ord, dim, keepdim=True, dtype=dtype, mask=mask)
    return _filled(input, mask, "sum") / nrm.clamp(min=eps)


@op("masked.logaddexp")
def logaddexp(input: Tensor, other: Tensor, *, dtype=None, input_mask: Tensor | None = None,
              other_mask: Tensor | None = None) -> Tensor:
    a, b = _filled(input, input_mask, "max"), _filled(other, other_mask, "max")
    return a.logaddexp(b).to(dtype or input.dtype)
