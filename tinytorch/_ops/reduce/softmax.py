"""logsumexp, softmax and log_softmax (PyTorch's SoftMax and ReduceOps kernels): exp-normalisations
along a dim, each shifted by the max so that nothing overflows. The CPU paths (rows across threads, the
gradient on the saved arrays) are in ``tinytorch/_cpu/softmax.py``."""
from __future__ import annotations

import warnings

import numpy as np

from ...autograd.grad_mode import _State
from ...autograd.node import Node, raw_dim, u64
from ...tensor import Tensor, _wrap_dim
from .._core.batching import logical_dims, unsupported
from .._core.record import OUT, record
from .._core.registry import aten_only, op
from .._core.util import as_array, c_order, holomorphic_backward, lowp_round, normalize_dims, opmath, saved_dims
from .reduce import _ReduceNode, _grad_back, _keepdim
from ..._dtype import NARROW_NP, F8_NP, FLOATING_NP, FROM_NP, INEXACT_NP
from .._core import narrow_dtypes
from ..._quiet_fp import loud, quiet


def _stable_lse(x: np.ndarray, dims: tuple) -> np.ndarray:
    # complex: shifted by the largest real part (PyTorch's kernel), which bounds every |exp|
    m = np.max(x.real if x.dtype.kind == "c" else x, axis=dims, keepdims=True, initial=-np.inf)  # empty: -inf
    m = np.where(np.isfinite(m), m, m.dtype.type(0))  # all -inf rows give -inf, not NaN
    with np.errstate(divide="ignore"):
        return np.log(np.exp(x - m).sum(axis=dims, keepdims=True)) + m


class LogsumexpBackward0(_ReduceNode):
    saved_fields = (("dim", lambda n: saved_dims(n.dim_arg)), ("keepdim", "keepdim"), ("self", 0), ("result", 1))

    @holomorphic_backward
    def backward(self, g):
        x, y = self._unpacked_saved
        y = _grad_back(y, self.in_shape, self.dims, self.keepdim)
        return (_grad_back(g, self.in_shape, self.dims, self.keepdim) * (x - y).exp(),)

    def jvp(self, t):
        x, _ = self._unpacked_saved
        return logsumexp_jvp(x, t, self.dims, self.keepdim)


def logsumexp_jvp(x: Tensor, t: Tensor, dims, keepdim: bool) -> Tensor:
    """The tangent of logsumexp(x) along ``dims`` (PyTorch's formula, which softmax's and log_softmax's read too):
    the exps shifted by the max, sum(e * t) / sum(e); ``x`` the primal as the formula reads it."""
    e = (x - x.amax(dims, keepdim=True)).exp() if x.numel() else x.exp()
    return (e * t).sum(dims, keepdim=keepdim) / e.sum(dims, keepdim=keepdim)


def _batch_logsumexp(op, input, dim, keepdim=False, *, keepdims=None):
    return input._wrap(op(input._phys, logical_dims(input, dim), _keepdim(keepdim, keepdims, op.__name__)))


@op(variants="function method out", batch=_batch_logsumexp)
def logsumexp(input: Tensor, dim, keepdim: bool = False, *, keepdims=None) -> Tensor:
    """log(sum(exp(x))) along ``dim``, computed without overflow."""
    if input._data.dtype in NARROW_NP:  # float8 / complex32: PyTorch's refusal (narrow_dtypes.py)
        narrow_dtypes.guard(input._data.dtype, "max_values_cpu", "exp_vml_cpu")
    if keepdims is not None:
        keepdim = _keepdim(keepdim, keepdims, "logsumexp")
    x = input._data
    if x.dtype not in INEXACT_NP:
        x = x.astype(np.float32)
    dims = normalize_dims(dim, x.ndim)
    out = _stable_lse(x, dims)
    if not keepdim:
        out = out.squeeze(dims)
    return record(c_order(as_array(out)), LogsumexpBackward0, (input,), (input, OUT), in_shape=x.shape, dims=dims,
                  keepdim=keepdim, dim_arg=dim)


@aten_only("_softmax_backward_data", recorded=True)
def _softmax_backward_data(grad_output: Tensor, output: Tensor, dim: int, input_dtype) -> Tensor:
    """``torch.ops.aten._softmax_backward_data``: softmax's gradient from its result, in PyTorch's kernel's order,
    ``(g - sum(g * y)) * y``."""
    return _written_contiguous((grad_output - (grad_output * output).sum(dim=dim, keepdim=True)) * output)


def _written_contiguous(grad: Tensor) -> Tensor:
    """``grad`` (a fresh result) laid out contiguous, as PyTorch's CPU kernels of the softmaxes' backwards write their
    result whatever the layouts of the gradient and the saved result (the same numbers)."""
    d = grad._data
    laid = c_order(d)
    if laid is not d:
        grad._data = laid  # (nothing views the fresh result yet; its node, if any, stays)
    return grad


class SoftmaxBackward0(Node):
    saved_fields = (("dim", lambda n: u64(raw_dim(n))), ("result", 0))

    def backward(self, g):
        y = self._unpacked_saved[0]
        return (_softmax_backward_data(g, y, self.dim, y.dtype),)

    def jvp(self, t):
        # PyTorch's formula, result * (self_t - logsumexp_jvp(self_p, self_t)): the input is saved in a dual level
        y, x = self._unpacked_saved
        return y * (t - logsumexp_jvp(x, t, self.dim, True))


_RESULT = (OUT,)  # what the softmaxes' nodes save


def _saved(input: Tensor) -> tuple:
    """What softmax and log_softmax save: their result; in a dual level their input too, which their forward
    formulas read (PyTorch's run as the op runs; tinytorch's when the tangent is asked for)."""
    return _RESULT if _State.fw_level is None else (OUT, input)


def _log_softmax_grad(g, y, dim: int, exp, total):
    """d log_softmax / d x times ``g``: g - softmax * (the sum of g along ``dim``), on tensors with
    ``exp``/``total`` their ops (the formula), or on arrays with numpy's (a CPU path: the same ufuncs, the
    same floats)."""
    return g - exp(y) * total(g, dim)


def _sum_kept(t: Tensor, dim: int) -> Tensor:
    return t.sum(dim=dim, keepdim=True)


@aten_only("_log_softmax_backward_data", recorded=True)
def _log_softmax_backward_data(grad_output: Tensor, output: Tensor, dim: int, input_dtype) -> Tensor:
    """``torch.ops.aten._log_softmax_backward_data``: log_softmax's gradient from its result (``_log_softmax_grad``
    in tinytorch ops, so a graph of the gradient is recorded where one is wanted)."""
    return _written_contiguous(_log_softmax_grad(grad_output, output, dim, Tensor.exp, _sum_kept))


class LogSoftmaxBackward0(Node):
    saved_fields = (("dim", lambda n: u64(raw_dim(n))), ("result", 0))

    def backward(self, g):
        y = self._unpacked_saved[0]
        return (_log_softmax_backward_data(g, y, self.dim, y.dtype),)

    def jvp(self, t):
        # PyTorch's formula, self_t - logsumexp_jvp(self_p, self_t): the input is saved in a dual level
        _, x = self._unpacked_saved
        return t - logsumexp_jvp(x, t, self.dim, True)


def _refuse_non_floating(x: np.ndarray, dim: int, name: str) -> None:
    """PyTorch's refusal of an integer or bool softmax, named after the kernel its dim picks (the last dim's
    own kernel, or the general one)."""
    if x.dtype not in _SOFTMAX_FLOATS:
        kind = FROM_NP[x.dtype]._scalar
        try:
            dim = int(dim)
        except (TypeError, ValueError):
            dim = -1
        last = x.ndim == 0 or not -x.ndim <= dim < x.ndim or dim % x.ndim == x.ndim - 1
        raise NotImplementedError(f'"{name}{"_lastdim" if last else ""}_kernel_impl" not implemented for \'{kind}\'')


_SOFTMAX_FLOATS = FLOATING_NP - F8_NP  # PyTorch's softmax kernels have no float8


def _softmax_input(input: Tensor, dtype, name: str, dim: int):
    """(input, array): with ``dtype`` the input is cast first, a recorded op (the gradient comes back
    in the input's dtype through its ToCopyBackward0, as in PyTorch)."""
    if dtype is not None:
        input = input.to(dtype)
    x = input._data
    _refuse_non_floating(x, dim, name)
    return input, x


def _batch_softmax(op, input, dim=None, dtype=None, **kwargs):
    if dim is None:
        raise unsupported(f"{op.__name__} without an explicit dim")
    return input._wrap(op(input._phys, input._ld(dim), dtype))


def _implicit_dim(name: str, ndim: int, stacklevel: int) -> int:
    warnings.warn(f"Implicit dimension choice for {name} has been deprecated. Change the call to include dim=X "
                  "as an argument.", stacklevel=stacklevel)
    return 0 if ndim in (0, 1, 3) else 1


def _functional_softmax(input: Tensor, dim: int | None = None, _stacklevel: int = 3, dtype=None) -> Tensor:
    """exp(x) / sum(exp(x)) along ``dim`` (nn.functional's signature: the dim may be implied)."""
    if dim is None:
        dim = _implicit_dim("softmax", input.ndim, _stacklevel)
    return softmax(input, dim, dtype)


def _functional_log_softmax(input: Tensor, dim: int | None = None, _stacklevel: int = 3, dtype=None) -> Tensor:
    """log(softmax(x)) along ``dim``, computed stably (nn.functional's signature)."""
    if dim is None:
        dim = _implicit_dim("log_softmax", input.ndim, _stacklevel)
    return log_softmax(input, dim, dtype)


# nn.functional's names, the qualified ones too: Python's own argument errors read those (``F.softmax(x,
# axis=1)``: "softmax() got an unexpected keyword argument 'axis'", as PyTorch's)
_functional_softmax.__name__ = _functional_softmax.__qualname__ = "softmax"
_functional_log_softmax.__name__ = _functional_log_softmax.__qualname__ = "log_softmax"


def _softmax_array(x: np.ndarray, d: int) -> np.ndarray:
    if not x.ndim:  # one element: exp(x - x) / itself, so 1, or NaN for inf and NaN (PyTorch's kernel)
        return _softmax_array(x.reshape(1), 0).reshape(())
    e = np.exp(x - np.max(x, axis=d, keepdims=True, initial=-np.inf))
    return e / e.sum(axis=d, keepdims=True)


def _log_softmax_array(x: np.ndarray, d: int) -> np.ndarray:
    """(x - max) - log(sum(exp(x - max))) along ``d``, PyTorch's kernel's steps: a row holding +inf (max inf,
    so inf - inf), or NaN, or only -inf (-inf - -inf) is NaN throughout, as there (logsumexp's shift by 0
    for a non-finite max is its own, not log_softmax's). Warnings are the caller's to silence."""
    if not x.ndim:  # one element: 0, or NaN for inf and NaN
        return _log_softmax_array(x.reshape(1), 0).reshape(())
    shifted = x - np.max(x, axis=d, keepdims=True, initial=-np.inf)
    lse = np.log(np.add.reduce(np.exp(shifted), d, None, None, True))
    shifted -= lse
    return shifted


@op(variants="function method out functional", functional=_functional_softmax, batch=_batch_softmax)
def softmax(input: Tensor, dim: int, dtype=None) -> Tensor:
    """exp(x) / sum(exp(x)) along ``dim``, shifted by the max for stability."""
    input, x = _softmax_input(input, dtype, "softmax", dim)
    storage, x = x.dtype, opmath(x)
    d = _wrap_dim(dim, x.ndim)
    token = quiet()  # a row of -inf (fully masked) gives nan silently, as PyTorch's kernel does
    try:
        # contiguous whatever the input's layout, as PyTorch's kernel writes it
        out = c_order(lowp_round(as_array(_softmax_array(x, d)), storage))
    finally:
        loud(token)
    return record(out, SoftmaxBackward0, (input,), _saved(input), dim=d, dim_arg=dim)


@op(variants="function method out functional", functional=_functional_log_softmax, batch=_batch_softmax)
def log_softmax(input: Tensor, dim: int, dtype=None) -> Tensor:
    """x - logsumexp(x) along ``dim``."""
    input, x = _softmax_input(input, dtype, "log_softmax", dim)
    storage, x = x.dtype, opmath(x)
    d = _wrap_dim(dim, x.ndim)
    token = quiet()  # a row of -inf (fully masked) gives nan silently, as PyTorch's kernel does
    try:
        # contiguous whatever the input's layout, as PyTorch's kernel writes it
        out = c_order(lowp_round(as_array(_log_softmax_array(x, d)), storage))
    finally:
        loud(token)
    return record(out, LogSoftmaxBackward0, (input,), _saved(input), dim=d, dim_arg=dim)


class SafeSoftmaxBackward0(Node):
    """softmax's gradient on the saved result, returned in the input's dtype (PyTorch's formula is
    ``_softmax_backward_data(grad, result, dim, self.scalar_type())``: no ToCopyBackward0 of ``dtype=``)."""
    saved_fields = (("dim", lambda n: u64(raw_dim(n))), ("result", 0))

    def backward(self, g):
        (y,) = self._unpacked_saved
        gy = g * y
        grad = gy - y * gy.sum(dim=self.dim, keepdim=True)
        return (grad if grad.dtype is self.in_dtype else grad.to(self.in_dtype),)


@op("_safe_softmax")
def _safe_softmax(input: Tensor, dim: int, dtype=None) -> Tensor:
    """softmax along ``dim``, except that a row whose elements are all -inf gives zeros (softmax's 0/0 NaN
    there): what scaled_dot_product_attention uses for fully masked rows."""
    x = input._data
    if dtype is not None:
        x = x.astype(dtype.np, copy=False)
    _refuse_non_floating(x, dim, "softmax")
    storage, xo = x.dtype, opmath(x)
    d = _wrap_dim(dim, x.ndim)
    token = quiet()  # a row of -inf gives nan here, then zeros below
    try:
        out = lowp_round(as_array(_softmax_array(xo, d)), storage)
        dead = (input._data == -np.inf) if not x.ndim else np.all(input._data == -np.inf, axis=d, keepdims=True)
        out = c_order(np.where(dead, storage.type(0), out).astype(storage, copy=False))
    finally:
        loud(token)
    return record(out, SafeSoftmaxBackward0, (input,), _RESULT, dim=d, dim_arg=dim, in_dtype=input.dtype)
