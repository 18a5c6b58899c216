"""Reductions and normalisations along dims: sum, mean, var, std, max, min, logsumexp, softmax."""
from __future__ import annotations

import numpy as np

from ..autograd.grad_mode import _State
from ..autograd.node import Node
from ..tensor import Tensor, _make, _wrap_dim
from ._util import as_array, normalize_dims


def _grad_back(g: Tensor, in_shape: tuple, dims: tuple, keepdim: bool) -> Tensor:
    """Broadcast a reduced gradient back over the reduced dims (differentiable)."""
    if not keepdim and dims:
        kept = tuple(1 if i in dims else s for i, s in enumerate(in_shape))
        g = g.reshape(kept)
    return g.expand(in_shape)


class _ReduceNode(Node):
    def _setup(self, shape, dims, keepdim):
        self.in_shape, self.dims, self.keepdim = shape, dims, keepdim


class SumBackward0(_ReduceNode):
    def backward(self, g):
        return (_grad_back(g, self.in_shape, self.dims, self.keepdim),)

    def jvp(self, t):
        return t.sum(self.dims, keepdim=self.keepdim) if self.dims else t


class SumBackward1(SumBackward0):
    pass


def _sum_dtype(x: np.ndarray, dtype):
    if dtype is not None:
        from .._dtype import to_np
        return to_np(dtype)
    return np.dtype(np.int64) if x.dtype.kind in "biu" else x.dtype


def sum(input: Tensor, dim=None, keepdim: bool = False, *, dtype=None, keepdims=None) -> Tensor:
    """Sum over ``dim`` (all dims when None); ints and bools sum to int64."""
    if keepdims is not None:  # PyTorch's alias, taken here: sum is on the hot path, a wrapper would cost a call
        keepdim = keepdims
    x = input._data
    dims = normalize_dims(dim, x.ndim)
    out = as_array(x.sum(axis=dims, keepdims=keepdim, dtype=_sum_dtype(x, dtype)))
    if _State.enabled and input._requires_grad:
        node = (SumBackward0 if dim is None else SumBackward1)((input._edge(),))
        node._setup(x.shape, dims, keepdim)
        return _make(out, node)
    return _make(out)


class MeanBackward0(_ReduceNode):
    def backward(self, g):
        return (_grad_back(g, self.in_shape, self.dims, self.keepdim) / self.count,)

    def jvp(self, t):
        return (t.sum(self.dims, keepdim=self.keepdim) if self.dims else t) / self.count


class MeanBackward1(MeanBackward0):
    pass


def _require_float(x: np.ndarray, what: str) -> None:
    if x.dtype.kind != "f":
        from .._dtype import FROM_NP
        name = FROM_NP[x.dtype]._legacy[:-len("Tensor")]
        raise RuntimeError(f"{what}(): could not infer output dtype. Input dtype must be either a floating "
                           f"point or complex dtype. Got: {name}")


def _require_var_float(x: np.ndarray) -> None:
    if x.dtype.kind != "f":
        raise RuntimeError("std and var only support floating point and complex dtypes")


def mean(input: Tensor, dim=None, keepdim: bool = False, *, dtype=None, keepdims=None) -> Tensor:
    """Mean over ``dim`` (all dims when None); floating inputs only, as PyTorch."""
    if keepdims is not None:
        keepdim = keepdims
    x = input._data
    if dtype is not None:
        x = x.astype(_sum_dtype(x, dtype))
    _require_float(x, "mean")
    dims = normalize_dims(dim, x.ndim)
    out = as_array(x.mean(axis=dims, keepdims=keepdim))
    if _State.enabled and input._requires_grad:
        node = (MeanBackward0 if dim is None else MeanBackward1)((input._edge(),))
        node._setup(x.shape, dims, keepdim)
        count = 1
        for d in dims:
            count *= x.shape[d]
        node.count = count
        return _make(out, node)
    return _make(out)


def _correction(unbiased, correction) -> float:
    if correction is not None:
        return correction
    return 1 if unbiased is None or unbiased else 0


class VarBackward0(_ReduceNode):
    def backward(self, g):
        (x,) = self.saved_tensors
        centred = x - x.mean(dim=self.dims, keepdim=True)
        factor = 2.0 / self.denom if self.denom else float("inf")  # no degrees of freedom: NaN, as PyTorch
        return (_grad_back(g, self.in_shape, self.dims, self.keepdim) * centred * factor,)

    def jvp(self, t):
        (x,) = self.saved_tensors
        centred = x - x.mean(dim=self.dims, keepdim=True)
        factor = 2.0 / self.denom if self.denom else float("inf")
        return (centred * t).sum(self.dims, keepdim=self.keepdim) * factor


class StdBackward0(_ReduceNode):
    def backward(self, g):
        x, y = self.saved_tensors
        from .arith import where
        centred = x - x.mean(dim=self.dims, keepdim=True)
        # where the deviation is 0 PyTorch defines the gradient as 0 rather than 0/0
        share = where(y == 0, 0.0, g / (y * self.denom))
        return (_grad_back(share, self.in_shape, self.dims, self.keepdim) * centred,)

    def jvp(self, t):
        from .arith import where
        x, y = self.saved_tensors
        centred = x - x.mean(dim=self.dims, keepdim=True)
        return where(y == 0, 0.0, (centred * t).sum(self.dims, keepdim=self.keepdim) / (y * self.denom))


def _var_args(dim, unbiased, keepdim):
    # var(x, 0) and var(x, True) are both legal: a bool second argument is ``unbiased``
    if isinstance(dim, bool):
        return None, dim, keepdim
    return dim, unbiased, keepdim


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
    if n - c <= 0:
        import warnings
        warnings.warn(f"{name}(): degrees of freedom is <= 0. Correction should be strictly less than the "
                      "reduction factor (input numel divided by output numel).", UserWarning, stacklevel=3)
    with np.errstate(divide="ignore", invalid="ignore"):
        v = x.astype(np.float64, copy=False).var(axis=dims, keepdims=keepdim, ddof=0) * (
            n / (n - c) if n != c else np.inf)
    return v, dims, keepdim, n - c


def var(input: Tensor, dim=None, unbiased=None, keepdim: bool = False, *, correction=None, keepdims=None) -> Tensor:
    """Variance over ``dim`` with Bessel's correction by default."""
    if keepdims is not None:  # PyTorch's alias; taken here, not by a wrapper, so warnings point at the caller
        keepdim = keepdims
    v, dims, keepdim, denom = _variance(input, dim, unbiased, keepdim, correction, "var")
    x = input._data
    out = as_array(as_array(v).astype(x.dtype, copy=False))  # one rounding, to PyTorch's value
    if _State.enabled and input._requires_grad:
        node = VarBackward0((input._edge(),))
        node._setup(x.shape, dims, keepdim)
        node.denom = denom
        node.save_for_backward(input)
        return _make(out, node)
    return _make(out)


def std(input: Tensor, dim=None, unbiased=None, keepdim: bool = False, *, correction=None, keepdims=None) -> Tensor:
    """Standard deviation over ``dim`` with Bessel's correction by default."""
    if keepdims is not None:  # PyTorch's alias; taken here, not by a wrapper, so warnings point at the caller
        keepdim = keepdims
    v, dims, keepdim, denom = _variance(input, dim, unbiased, keepdim, correction, "std")
    x = input._data
    out = as_array(np.sqrt(v).astype(x.dtype, copy=False))  # sqrt in double too, as PyTorch
    if _State.enabled and input._requires_grad:
        node = StdBackward0((input._edge(),))
        node._setup(x.shape, dims, keepdim)
        node.denom = denom
        res = _make(out, node)
        node.save_for_backward(input, res)
        return res
    return _make(out)


# -- max / min ------------------------------------------------------------------------------------
class _ReturnTypes(tuple):
    """``(values, indices)`` with names, like ``torch.return_types.max``."""

    _name = "max"

    def __new__(cls, values, indices):
        return tuple.__new__(cls, (values, indices))

    @property
    def values(self):
        return self[0]

    @property
    def indices(self):
        return self[1]

    def __repr__(self) -> str:
        return f"tinytorch.return_types.{self._name}(\nvalues={self[0]!r},\nindices={self[1]!r})"


def _return_type(name):
    return type(name, (_ReturnTypes,), {"_name": name})


max_result = _return_type("max")
min_result = _return_type("min")


class MaxBackward1(Node):
    """Full reduction: the gradient is split evenly among the elements equal to the result."""

    def backward(self, g):
        from .arith import where
        x, y = self.saved_tensors
        mask = x.isnan() if y.isnan().item() else x == y  # a NaN result came from the NaN elements
        return (where(mask, g / mask.sum(), 0.0),)

    def jvp(self, t):
        # the tangent's mean over the elements that tie for the result, as the backward shares it
        from .arith import where
        x, y = self.saved_tensors
        mask = x.isnan() if y.isnan().item() else x == y
        return where(mask, t, 0.0).sum() / mask.sum()


class MinBackward1(MaxBackward1):
    pass


class MaxBackward0(Node):
    """Reduction along a dim: the gradient goes to the index that won."""

    def backward(self, g):
        (idx,) = self.saved_tensors
        if not self.keepdim:
            g = g.unsqueeze(self.dim)
            idx = idx.unsqueeze(self.dim)
        from .join import zeros_scatter
        return (zeros_scatter(self.in_shape, self.dim, idx, g),)

    def jvp(self, t):
        (idx,) = self.saved_tensors
        if self.keepdim:
            return t.gather(self.dim, idx)
        return t.gather(self.dim, idx.unsqueeze(self.dim)).squeeze(self.dim)


class MinBackward0(MaxBackward0):
    pass


def _extreme(input, dim, keepdim, np_fn, arg_fn, full_cls, dim_cls, result_cls):
    x = input._data
    if dim is None:
        if x.size == 0:
            raise RuntimeError(f"{np_fn.__name__}(): Expected reduction dim to be specified for input.numel() == 0. "
                               "Specify the reduction dim with the 'dim' argument.")
        out = as_array(np_fn(x))
        if _State.enabled and input._requires_grad:
            node = full_cls((input._edge(),))
            res = _make(out, node)
            node.save_for_backward(input, res)
            return res
        return _make(out)
    d = _wrap_dim(dim, x.ndim)
    _nonempty_dim(x, d, np_fn.__name__)
    if x.ndim == 0:
        values, idx = x.copy(), np.zeros((), dtype=np.int64)
    else:
        idx = as_array(arg_fn(x, axis=d, keepdims=True))
        values = np.take_along_axis(x, idx, axis=d)
        if not keepdim:
            values = values.squeeze(d)
            idx = idx.squeeze(d)
    values, idx = as_array(values), as_array(idx.astype(np.int64, copy=False))
    idx_t = _make(idx)
    if _State.enabled and input._requires_grad:
        node = dim_cls((input._edge(),))
        node.dim, node.keepdim, node.in_shape = d, keepdim, x.shape
        node.save_for_backward(idx_t)
        return result_cls(_make(values, node), idx_t)
    return result_cls(_make(values), idx_t)


def _nonempty_dim(x: np.ndarray, d: int, name: str) -> None:
    if x.ndim and x.shape[d] == 0:
        raise IndexError(f"{name}(): Expected reduction dim {d} to have non-zero size.")


def _arg_extreme(input: Tensor, dim, keepdim: bool, fn, name: str) -> Tensor:
    x = input._data
    if dim is None:
        if x.size == 0:
            raise IndexError(f"{name}(): Expected reduction dim to be specified for input.numel() == 0.")
        out = as_array(fn(x.reshape(-1), 0, False))
        return _make(out.reshape((1,) * x.ndim) if keepdim else out)
    d = _wrap_dim(dim, x.ndim)
    _nonempty_dim(x, d, name)
    if x.ndim == 0:
        return _make(np.zeros((), dtype=np.int64))
    return _make(as_array(fn(x, d, keepdim)).astype(np.int64, copy=False))


def _nan_aware(arg_fn):
    """np.argmax/np.argmin with PyTorch's NaN rule: the first NaN wins, as NaN propagates."""

    def arg(x, axis, keepdims):
        idx = arg_fn(x, axis=axis, keepdims=keepdims)
        if x.dtype.kind == "f":
            nan = np.isnan(x)
            if nan.any():
                idx = np.where(nan.any(axis=axis, keepdims=keepdims), np.argmax(nan, axis=axis, keepdims=keepdims),
                               idx)
        return idx
    return arg


_nan_argmax = _nan_aware(np.argmax)
_nan_argmin = _nan_aware(np.argmin)


def max(input: Tensor, dim=None, keepdim: bool = False, *, other=None):
    """Largest element, or ``(values, indices)`` along ``dim``; ``max(a, b)`` is ``maximum``."""
    if isinstance(dim, Tensor):
        from .arith import maximum
        return maximum(input, dim)
    return _extreme(input, dim, keepdim, np.max, _nan_argmax, MaxBackward1, MaxBackward0, max_result)


def min(input: Tensor, dim=None, keepdim: bool = False):
    """Smallest element, or ``(values, indices)`` along ``dim``; ``min(a, b)`` is ``minimum``."""
    if isinstance(dim, Tensor):
        from .arith import minimum
        return minimum(input, dim)
    return _extreme(input, dim, keepdim, np.min, _nan_argmin, MinBackward1, MinBackward0, min_result)


class AmaxBackward0(_ReduceNode):
    """The gradient is shared evenly among the elements equal to the extreme (unlike max(dim))."""

    def backward(self, g):
        x, y = self.saved_tensors
        hit = x == _grad_back(y, self.in_shape, self.dims, self.keepdim)
        share = _grad_back(g, self.in_shape, self.dims, self.keepdim) / hit.sum(self.dims, keepdim=True)
        return (hit * share,)

    def jvp(self, t):
        x, y = self.saved_tensors
        hit = x == _grad_back(y, self.in_shape, self.dims, self.keepdim)
        return (hit * t).sum(self.dims, keepdim=self.keepdim) / hit.sum(self.dims, keepdim=self.keepdim)


class AminBackward0(AmaxBackward0):
    pass


def _amax_amin(input: Tensor, dim, keepdim: bool, np_fn, node_cls, name: str) -> Tensor:
    x = input._data
    if x.size == 0 and (dim is None or dim == ()):
        raise RuntimeError(f"{name}(): Expected reduction dim to be specified for input.numel() == 0. "
                           "Specify the reduction dim with the 'dim' argument.")
    dims = normalize_dims(dim, x.ndim)
    for d in dims:
        _nonempty_dim(x, d, name)
    out = as_array(np_fn(x, axis=dims, keepdims=keepdim))
    if _State.enabled and input._requires_grad:
        node = node_cls((input._edge(),))
        node._setup(x.shape, dims, keepdim)
        res = _make(out, node)
        node.save_for_backward(input, res)
        return res
    return _make(out)


def amax(input: Tensor, dim=(), keepdim: bool = False) -> Tensor:
    """Largest value over ``dim`` (all dims by default); ties share the gradient."""
    return _amax_amin(input, dim, keepdim, np.max, AmaxBackward0, "amax")


def amin(input: Tensor, dim=(), keepdim: bool = False) -> Tensor:
    """Smallest value over ``dim`` (all dims by default); ties share the gradient."""
    return _amax_amin(input, dim, keepdim, np.min, AminBackward0, "amin")


def argmax(input: Tensor, dim=None, keepdim: bool = False) -> Tensor:
    """Index of the largest element (flattened when ``dim`` is None)."""
    return _arg_extreme(input, dim, keepdim, _nan_argmax, "argmax")


def argmin(input: Tensor, dim=None, keepdim: bool = False) -> Tensor:
    """Index of the smallest element (flattened when ``dim`` is None)."""
    return _arg_extreme(input, dim, keepdim, _nan_argmin, "argmin")


def all(input: Tensor, dim=None, keepdim: bool = False) -> Tensor:
    return _make(as_array(np.all(input._data, axis=None if dim is None else _wrap_dim(dim, input.ndim),
                                 keepdims=keepdim)))


def any(input: Tensor, dim=None, keepdim: bool = False) -> Tensor:
    return _make(as_array(np.any(input._data, axis=None if dim is None else _wrap_dim(dim, input.ndim),
                                 keepdims=keepdim)))


# -- logsumexp, softmax, log_softmax ---------------------------------------------------------------
def _stable_lse(x: np.ndarray, dims: tuple) -> np.ndarray:
    m = np.max(x, axis=dims, keepdims=True, initial=-np.inf)  # initial: empty dims give -inf
    m = np.where(np.isfinite(m), m, 0)  # all -inf rows give -inf, not NaN
    with np.errstate(divide="ignore"):
        return np.log(np.exp(x - m).sum(axis=dims, keepdims=True)) + m


class LogsumexpBackward0(_ReduceNode):
    def backward(self, g):
        x, y = self.saved_tensors
        y = _grad_back(y, self.in_shape, self.dims, self.keepdim)
        return (_grad_back(g, self.in_shape, self.dims, self.keepdim) * (x - y).exp(),)

    def jvp(self, t):
        x, y = self.saved_tensors
        w = (x - _grad_back(y, self.in_shape, self.dims, self.keepdim)).exp()
        return (w * t).sum(self.dims, keepdim=self.keepdim)


def logsumexp(input: Tensor, dim, keepdim: bool = False) -> Tensor:
    """log(sum(exp(x))) along ``dim``, computed without overflow."""
    x = input._data
    if x.dtype.kind != "f":
        x = x.astype(np.float32)
    dims = normalize_dims(dim, x.ndim)
    out = _stable_lse(x, dims)
    if not keepdim:
        out = out.squeeze(dims)
    out = as_array(out)
    if _State.enabled and input._requires_grad:
        node = LogsumexpBackward0((input._edge(),))
        node._setup(x.shape, dims, keepdim)
        res = _make(out, node)
        node.save_for_backward(input, res)
        return res
    return _make(out)


class SoftmaxBackward0(Node):
    def backward(self, g):
        (y,) = self.saved_tensors
        gy = g * y
        return (gy - y * gy.sum(dim=self.dim, keepdim=True),)

    def jvp(self, t):
        (y,) = self.saved_tensors
        return y * (t - (y * t).sum(dim=self.dim, keepdim=True))


class LogSoftmaxBackward0(Node):
    def backward(self, g):
        (y,) = self.saved_tensors
        return (g - y.exp() * g.sum(dim=self.dim, keepdim=True),)

    def jvp(self, t):
        (y,) = self.saved_tensors
        return t - (y.exp() * t).sum(dim=self.dim, keepdim=True)


def _softmax_input(input: Tensor, dtype, name: str) -> np.ndarray:
    x = input._data
    if dtype is not None:
        from .._dtype import to_np
        x = x.astype(to_np(dtype))
    if x.dtype.kind != "f":
        from .._dtype import FROM_NP
        kind = FROM_NP[x.dtype]._legacy[:-6]
        raise NotImplementedError(f'"{name}_lastdim_kernel_impl" not implemented for \'{kind}\'')
    return x


def softmax(input: Tensor, dim: int, dtype=None) -> Tensor:
    """exp(x) / sum(exp(x)) along ``dim``, shifted by the max for stability."""
    x = _softmax_input(input, dtype, "softmax")
    d = _wrap_dim(dim, x.ndim)
    e = np.exp(x - np.max(x, axis=d, keepdims=True, initial=-np.inf)) if x.ndim else np.ones_like(x)
    out = as_array(e / e.sum(axis=d, keepdims=True))
    if _State.enabled and input._requires_grad:
        node = SoftmaxBackward0((input._edge(),))
        node.dim = d
        res = _make(out, node)
        node.save_for_backward(res)
        return res
    return _make(out)


def log_softmax(input: Tensor, dim: int, dtype=None) -> Tensor:
    """x - logsumexp(x) along ``dim``."""
    x = _softmax_input(input, dtype, "log_softmax")
    d = _wrap_dim(dim, x.ndim)
    out = as_array(x - _stable_lse(x, (d,))) if x.ndim else np.zeros_like(x)
    if _State.enabled and input._requires_grad:
        node = LogSoftmaxBackward0((input._edge(),))
        node.dim = d
        res = _make(out, node)
        node.save_for_backward(res)
        return res
    return _make(out)
