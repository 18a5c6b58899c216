"""Scans along a dim (cumsum, cumprod, logcumsumexp, cummax, cummin) and the product reduction; vmap's
rule for ops along one dim (``batch_along_dim``, also used by the sorting ops)."""
from __future__ import annotations

import numpy as np

from ... import _dtype
from ..._meta_array import MetaArray
from ...autograd.grad_mode import _State
from ..creation.factory import ones_like
from ...autograd.node import Node, raw_dim, u64
from ...tensor import Tensor, _make, _wrap_dim
from .._core.batching import level_of, unsupported
from .._core.record import OUT, legacy_name, record
from .._core.registry import op
from .._core.util import c_order, holomorphic_backward, normalize_dims
from .minmax import _return_type
from .reduce import _keepdim
from ..pointwise.compare import where
from ..pointwise.binary import _complex_logaddexp
from ..shape.join import cat
from ..index.scatter_gather import zeros_scatter
from ..._dtype import NARROW_NP, BF16_NP, FLOATING_NP
from .._core import narrow_dtypes
from ..._dtype_info import finfo
from ..._quiet_fp import loud, quiet, silent

_SCAN = "function method out"
_ACC = {np.dtype(np.float32): np.dtype(np.float64), np.dtype(np.complex64): np.dtype(np.complex128),
        np.dtype(np.float16): np.dtype(np.float32)}
if BF16_NP is not None:
    _ACC[np.dtype(BF16_NP)] = np.dtype(np.float32)


def batch_along_dim(position: int, default=None):
    """vmap's rule for an op over one ``dim`` (argument ``position``, the input being 0; ``default``
    when not given): the dim shifted past the batch dim, one call on the whole batch. 0-d samples
    get a size-1 dim to work on. Results (one tensor or a tuple of them) are wrapped back."""
    def rule(op, input, *args, **kwargs):
        if level_of(args) is not None or level_of(tuple(kwargs.values())) is not None:
            raise unsupported(f"{op.__name__} with a batched argument other than the first")
        args = list(args)
        if len(args) >= position:
            dim = args[position - 1]
        else:
            dim = kwargs.get("dim", default)
        phys, scalar = input._phys, input.dim() == 0
        if scalar:
            _wrap_dim(dim, 0)  # PyTorch's error for a bad dim
            phys, d = phys.unsqueeze(1), 1
        else:
            d = input._ld(dim)
        if len(args) >= position:
            args[position - 1] = d
        else:
            kwargs["dim"] = d
        res = op(phys, *args, **kwargs)

        def wrap(t):
            return input._wrap(t.reshape(input._bsz) if scalar else t)
        return type(res)(*map(wrap, res)) if isinstance(res, tuple) else wrap(res)
    return rule


def _scan_dtype(x: np.ndarray, dtype) -> np.dtype:
    if dtype is not None:
        return _dtype.to_np(dtype)
    return np.dtype(np.int64) if x.dtype.kind in "biu" else x.dtype


def _accumulate(scan, x: np.ndarray, d: int, dt: np.dtype) -> np.ndarray:
    """``scan`` (np.cumsum or np.cumprod) along ``d`` as PyTorch's CPU scans run it: in the result dtype's
    accumulation type (float32 for float16/bfloat16, double for float32, complex128 for complex64), each
    running value rounded once to ``dt``. Scanning in ``dt`` itself would stop a float16 count at 2048."""
    if not x.ndim:
        return x.astype(dt)
    acc = _ACC.get(dt, dt)
    fp = quiet()  # inf + -inf, inf * 0: NaN without a numpy warning, as PyTorch
    try:
        r = scan(x.astype(acc, copy=False), axis=d, dtype=acc)
    finally:
        loud(fp)
    # numpy keeps a transposed input's layout; PyTorch's scans return contiguous results
    return c_order(r.astype(dt, copy=False))


def _flipcumsum(g: Tensor, d: int) -> Tensor:
    """sum over k >= i of g[k] (a reversed cumulative sum)."""
    return g.flip(d).cumsum(d).flip(d)


class CumsumBackward0(Node):
    saved_fields = (("dim", lambda n: u64(raw_dim(n))),)

    def backward(self, g):
        return (_flipcumsum(g, self.dim).to(self.in_dtype),)


@op(variants=_SCAN + " inplace", batch=batch_along_dim(1), overlap="partial")
def cumsum(input: Tensor, dim: int, *, dtype=None) -> Tensor:
    """Running sum along ``dim`` (ints and bools accumulate in int64)."""
    if input._data.dtype in NARROW_NP:  # float8 / complex32: PyTorch's refusal (narrow_dtypes.py)
        narrow_dtypes.guard(input._data.dtype, "cumsum_out_cpu", "cumsum_out_cpu")
    x = input._data
    d = _wrap_dim(dim, x.ndim)
    r = _accumulate(np.cumsum, x, d, _scan_dtype(x, dtype))
    return record(r, CumsumBackward0, (input,), dim=d, in_dtype=x.dtype, dim_arg=dim)


class CumprodBackward0(Node):
    saved_fields = (("dim", lambda n: u64(raw_dim(n))), ("self", 0), ("result", 1))

    @holomorphic_backward
    def backward(self, g):
        x, y = self._unpacked_saved
        d = self.dim
        if x._data.ndim == 0 or x._data.size <= 1 or x._data.shape[d] == 1:
            # PyTorch's shortcut: g itself, also where x is inf or NaN (g * y / x would be NaN)
            return (g.to(self.in_dtype),)
        zero = x._data == 0
        if type(x._data) is MetaArray or not zero.any():  # (a meta x: no values to find zeros in, the shapes alike)
            return ((_flipcumsum(g * y, d) / x).to(self.in_dtype),)
        if not _State.enabled:
            return (_cumprod_grad_at_zeros(g, x, y, d, zero).to(self.in_dtype),)
        # with zeros and a graph recorded, PyTorch's formula: d y_k / d x_i = prod_{j<i} x_j * prod_{i<j<=k} x_j,
        # built as an (i, k) table per line (quadratic in the length, only on this path)
        n = x._data.shape[d]
        xm = x.movedim(d, -1)
        gm = g.movedim(d, -1)
        i = np.arange(n)
        later = _make(i[None, :] > i[:, None])                       # [i, j]: j > i
        upper = _make(i[None, :] >= i[:, None])                      # [i, k]: k >= i
        ones = ones_like(xm[..., :1])  # not x * 0 + 1: NaN at an inf or NaN x
        left = _make_cat(ones, xm[..., :-1]).cumprod(-1)             # prod_{j<i} x_j
        seg = where(later, xm.unsqueeze(-2), 1.0).cumprod(-1)        # prod_{i<j<=k} x_j
        table = where(upper, left.unsqueeze(-1) * seg, 0.0)
        gx = (table * gm.unsqueeze(-2)).sum(-1)
        return (gx.movedim(-1, d).to(self.in_dtype),)


def _cumprod_grad_at_zeros(g: Tensor, x: Tensor, y: Tensor, d: int, zero: np.ndarray) -> Tensor:
    """PyTorch's cumprod gradient where x holds zeros and no graph is recorded (its linear path): before a
    line's first zero the reversed sum of g * y over x (the no-zero formula on that part), at the first zero
    prod(x before it) * sum_k g_k * prod(x between it and k) up to the second zero, 0 from there on. Each part
    reads only its own elements, so an inf or NaN elsewhere in the line stays out of it."""
    count = np.cumsum(zero, axis=d)
    before = count == 0
    head = _flipcumsum((y * g).masked_fill(_make(~before), 0), d) / x
    run = count == 1
    first = np.expand_dims(np.argmax(run, axis=d), d)  # the first zero's place (0 in a line without one)
    at_first = np.zeros(run.shape, bool)
    np.put_along_axis(at_first, first, True, axis=d)
    at_first &= run
    between = run & ~at_first
    tail = (x.masked_fill(_make(~between), 1).cumprod(d) * g.masked_fill(_make(~run), 0)).sum(d, keepdim=True)
    lead = y.gather(d, _make(np.maximum(first - 1, 0))).masked_fill(_make(first == 0), 1)
    return where(_make(at_first), tail * lead, where(_make(before), head, 0.0))


def _make_cat(a: Tensor, b: Tensor) -> Tensor:
    return cat([a, b], -1)


@op(variants=_SCAN + " inplace", batch=batch_along_dim(1), overlap="partial")
def cumprod(input: Tensor, dim: int, *, dtype=None) -> Tensor:
    """Running product along ``dim``."""
    x = input._data
    d = _wrap_dim(dim, x.ndim)
    dt = _scan_dtype(x, dtype)
    r = _accumulate(np.cumprod, x, d, dt)
    src = input if dt == x.dtype else input.to(_dtype.FROM_NP[dt])
    return record(r, CumprodBackward0, (input,), (src, OUT), dim=d, in_dtype=x.dtype, dim_arg=dim)


class LogcumsumexpBackward0(Node):
    saved_fields = (("dim", lambda n: u64(raw_dim(n))), ("self", 0), ("result", 1))

    @holomorphic_backward
    def backward(self, g):
        x, y = self._unpacked_saved
        if x._data.ndim == 0:
            return (g,)
        return (_lcse_grad(g, x, y, self.dim),)


def _lcse_grad(g: Tensor, x: Tensor, y: Tensor, d: int) -> Tensor:
    """sum_{k>=i} g_k exp(x_i - y_k), as PyTorch's logcumsumexp_backward computes it: in log space, a
    reversed logcumsumexp of log|g| - y, with the positive and the negative parts of a real ``g`` run
    apart and subtracted (``g`` arrives conjugated for complex input, where log(g) carries the sign).
    In float32 the subtraction loses digits where the two parts nearly cancel; PyTorch's values are
    the spec, so they are lost the same way."""
    if g.numel() == 0:
        return g

    def reversed_lcse(t):
        return logcumsumexp(t.flip(d), d).flip(d)

    if g._data.dtype.kind == "c":
        return (reversed_lcse(g.log() - y) + x).exp()
    lowest = finfo(g.dtype).min  # tinytorch's finfo: numpy's has no bfloat16
    log_abs = g.abs().log()
    positive = (reversed_lcse(where(g > 0, log_abs, lowest) - y) + x).exp()
    negative = (reversed_lcse(where(g < 0, log_abs, lowest) - y) + x).exp()
    return positive - negative


_logaddexp_scan = silent(np.logaddexp.accumulate)  # a NaN, or inf after -inf: PyTorch's NaN, no warning


@op(variants=_SCAN, batch=batch_along_dim(1), overlap="partial")
def logcumsumexp(input: Tensor, dim: int) -> Tensor:
    """log(cumsum(exp(input))) along ``dim``, computed stably."""
    x = input._data
    if x.dtype not in FLOATING_NP and x.dtype.kind != "c":
        raise NotImplementedError(f"\"logcumsumexp_out_cpu\" not implemented for '{legacy_name(x.dtype)}'")
    d = _wrap_dim(dim, x.ndim)
    # PyTorch's CPU scan accumulates in its accumulation type (double for float and complex<float>),
    # rounding each output to the input's dtype
    acc = _ACC.get(x.dtype, x.dtype)
    if x.dtype.kind == "c" and x.ndim:  # PyTorch's complex logaddexp, one step at a time
        r = np.moveaxis(x.astype(acc), d, 0)
        for k in range(1, r.shape[0]):
            r[k] = _complex_logaddexp(r[k - 1], r[k])
        r = c_order(np.moveaxis(r, 0, d).astype(x.dtype))
    else:
        r = c_order(_logaddexp_scan(x.astype(acc), axis=d).astype(x.dtype)) if x.ndim else x.copy()
    return record(r, LogcumsumexpBackward0, (input,), (input, OUT), dim=d, dim_arg=dim)


class _CumExtremeBackward(Node):
    saved_fields = (("dim", lambda n: u64(raw_dim(n))), ("self", 0), ("indices", 1))

    def backward(self, g):
        idx = self._unpacked_saved[1]
        return (zeros_scatter(self.in_shape, self.dim, idx, g),)


CummaxBackward0 = type("CummaxBackward0", (_CumExtremeBackward,), {})
CumminBackward0 = type("CumminBackward0", (_CumExtremeBackward,), {})


cummax_result, cummin_result = _return_type("cummax"), _return_type("cummin")


def _cum_extreme(input: Tensor, dim: int, is_max: bool, node_cls):
    x = input._data
    d = _wrap_dim(dim, x.ndim)
    if x.ndim == 0:
        vals, idx = x.copy(), np.zeros((), np.int64)
    elif type(x) is MetaArray:  # a meta tensor: the results' shapes only, no running comparison
        vals, idx = MetaArray(x.shape, x.dtype), MetaArray(x.shape, np.int64)
    else:
        xm = np.moveaxis(x, d, -1)
        n = xm.shape[-1]
        better = (lambda a, b: a >= b) if is_max else (lambda a, b: a <= b)
        vals = xm.copy()
        idx = np.zeros(xm.shape, np.int64)
        for k in range(1, n):
            # PyTorch takes the later index on ties and lets NaN win
            take = better(xm[..., k], vals[..., k - 1]) | np.isnan(xm[..., k])
            take &= ~np.isnan(vals[..., k - 1]) | np.isnan(xm[..., k])
            vals[..., k] = np.where(take, xm[..., k], vals[..., k - 1])
            idx[..., k] = np.where(take, k, idx[..., k - 1])
        vals, idx = np.moveaxis(vals, -1, d), np.moveaxis(idx, -1, d)
    it = _make(c_order(idx))
    v = record(c_order(vals), node_cls, (input,), (input, it), dim=d, in_shape=x.shape, dim_arg=dim)
    return (cummax_result if is_max else cummin_result)(v, it)


@op(variants=_SCAN, batch=batch_along_dim(1))
def cummax(input: Tensor, dim: int):
    """Running maximum and where it was found."""
    if input._data.dtype in NARROW_NP:  # float8 / complex32: PyTorch's refusal (narrow_dtypes.py)
        narrow_dtypes.guard(input._data.dtype, "cummax_cpu", "cummax_cpu")
    return _cum_extreme(input, dim, True, CummaxBackward0)


@op(variants=_SCAN, batch=batch_along_dim(1))
def cummin(input: Tensor, dim: int):
    """Running minimum and where it was found."""
    return _cum_extreme(input, dim, False, CumminBackward0)


class ProdBackward0(Node):
    saved_fields = (("self", 0), ("result", 1))

    @holomorphic_backward
    def backward(self, g):
        x, result = self._unpacked_saved
        return (_prod_grad(g, x, result, None),)


class ProdBackward1(Node):
    saved_fields = (("dim", lambda n: u64(raw_dim(n))), ("keepdim", "keepdim"), ("self", 0), ("result", 1))

    @holomorphic_backward
    def backward(self, g):
        x, result = self._unpacked_saved
        if not self.keepdim and x._data.ndim:
            g, result = g.unsqueeze(self.dim), result.unsqueeze(self.dim)
        return (_prod_grad(g, x, result, self.dim),)


def _prod_grad(g: Tensor, x: Tensor, result: Tensor, d: int | None) -> Tensor:
    """PyTorch's prod_backward: g * (result / x) where no element of x is 0 (so an inf or NaN factor gives
    inf / inf = NaN beside it, as PyTorch's), the product of the others (exact at zeros) where one is; with
    more than one zero of a full product and no graph recorded, zeros (PyTorch's shortcut). ``d``: the
    reduced dim, None for the full product."""
    if x._data.ndim == 0:
        return g
    if type(x._data) is MetaArray:  # a meta x: no values to count zeros in, the shapes alike
        return g * (result / x)
    zeros = int(np.count_nonzero(x._data == 0))
    if not zeros:
        return g * (result / x)
    if d is None:
        if zeros > 1 and not _State.enabled:
            return _make(np.zeros(x._data.shape, x._data.dtype))
        return (g * _others_product(x.reshape(-1), 0)).reshape(x._data.shape)
    return g * _others_product(x, d)


def _others_product(x: Tensor, d: int) -> Tensor:
    """prod_{j != i} x_j along ``d``, without dividing (exact when some x_j are 0)."""
    if x._data.ndim == 0:
        return ones_like(x)
    n = x._data.shape[d]
    if n == 0:  # no elements: an empty gradient
        return x * 0
    ones = ones_like(x.narrow(d, 0, 1))  # not x * 0 + 1: an inf or NaN first element would make it NaN
    left = cat([ones, x.narrow(d, 0, n - 1)], d).cumprod(d)
    xr = x.flip(d)
    right = cat([ones, xr.narrow(d, 0, n - 1)], d).cumprod(d).flip(d)
    return left * right


def _batch_prod(op, input, dim=None, keepdim=False, *, dtype=None, keepdims=None):
    if dim is None:  # over the flattened sample
        return input._wrap(op(input._phys.reshape(input._bsz, -1), 1, dtype=dtype))
    return batch_along_dim(1)(op, input, dim, _keepdim(keepdim, keepdims, op.__name__), dtype=dtype)


@op(variants=_SCAN, batch=_batch_prod, autocast="fp32")
def prod(input: Tensor, dim=None, keepdim: bool = False, *, dtype=None, keepdims=None) -> Tensor:
    """Product of all elements, or along ``dim``; ints and bools multiply in int64."""
    if input._data.dtype in NARROW_NP:  # float8 / complex32: PyTorch's refusal (narrow_dtypes.py)
        narrow_dtypes.guard(input._data.dtype, "prod_out_cpu", "prod_out_cpu")
    if keepdims is not None:
        keepdim = _keepdim(keepdim, keepdims, "prod")
    x = input._data
    dt = _scan_dtype(x, dtype)
    src = input if dt == x.dtype else input.to(_dtype.FROM_NP[dt])
    fp = quiet()  # inf * 0: NaN without a numpy warning, as PyTorch
    try:
        if dim is None:
            r = np.prod(x, dtype=dt)
        else:
            d = normalize_dims(dim, x.ndim)
            d = d[0] if d else 0
            r = c_order(np.prod(x, axis=d, keepdims=keepdim, dtype=dt)) if x.ndim else x.astype(dt)
    finally:
        loud(fp)
    if dim is None:  # the result saved too, as PyTorch's node keeps it
        return record(r, ProdBackward0, (input,), (src, OUT))
    return record(r, ProdBackward1, (input,), (src, OUT), dim=d, keepdim=keepdim, dim_arg=dim)
