"""The dense ops PyTorch's sparse backend runs: arithmetic (PyTorch's merge of two index lists for ``+``, its
patterns for ``*``), the pointwise functions that keep zero at zero (on the coalesced values; their backward
refused where PyTorch's formula calls an op its sparse backend lacks), transposes, copies, casts and in-place
forms; and the table that routes every Tensor method and ``torch.X`` given a sparse tensor to these kernels
(or to PyTorch's refusal)."""
from __future__ import annotations

import numbers

import numpy as np

from ... import _dtype
from .._core.members import strided
from ...autograd.grad_mode import _State, no_grad
from ...autograd.node import Node
from ...tensor import Tensor, _make, _wrap_dim
from ..shape.conversions import _to_args
from ..pointwise.arith import check_bool_sub
from .._core.pointwise import SPARSE_UNARY, zero_grad
from .._core.record import record
from ..creation.factory import ones_like
from ..pointwise import trig as _trig, unary as _unary_ops  # noqa: F401  (the declarations read below)
from ..pointwise.power import _pow_slope
from ..special import erf_gamma as _erf_gamma  # noqa: F401
from . import arrays as _arrays
from .arrays import _I64, _coalesced_parts, _coo_of, _linear, _lookup, _masked_like, _plain, coalesce_arrays, \
    grad_values_at
from .construct import (_coalesced_, _coo_to_csr, _indices, _nnz, _values, coalesce, col_indices, crow_indices,
                        dense_dim, indices, is_coalesced, sparse_dim, sparse_mask, to_dense, to_sparse, to_sparse_coo,
                        to_sparse_csr, values)
from .products import handle_addmm, handle_matmul, handle_mm, sampled_addmm, smm, sparse_addmm, sparse_mm
from .reduce import handle_sum, sparse_sum
from .tensor import is_coo, is_csr, is_sparse_tensor, make_coo, make_csr, not_implemented, register_handler
from .._core.registry import REGISTRY, bind_rule


class CloneBackward0(Node):
    def backward(self, g):
        return (g,)

class _ScaleGrad(Node):
    """mul/div of a sparse tensor by a number: the gradient scaled the same way."""

    def backward(self, g):
        return (g * self.factor if self.kind == "mul" else g / self.factor,)

class MulBackward0(_ScaleGrad):
    pass

class DivBackward0(_ScaleGrad):
    pass

class DivBackward2(Node):
    """div with a rounding mode: a zero gradient."""

    def backward(self, g):
        return (g * 0,)

class NegBackward0(Node):
    def backward(self, g):
        return (-g,)

class AddBackward0(Node):
    def backward(self, g):
        ga = g if self.need[0] else None
        gb = (g if self.alpha == 1 else g * self.alpha) if self.need[1] else None
        return ga, gb

class SubBackward0(AddBackward0):
    pass

class TBackward0(Node):
    def backward(self, g):
        return (g.t(),)

class TransposeBackward0(Node):
    def backward(self, g):
        return (g.transpose(self.dim0, self.dim1),)

class ToCopyBackward0(Node):
    def backward(self, g):
        return (g.to(self.src_dtype),)

class _MulSparseDense(Node):
    """sparse * dense (or dense * sparse): each operand's gradient is the output's times the other (the
    sparse one's masked to its pattern)."""

    def backward(self, g):
        s, d = self._unpacked_saved
        gd_ = g.to_dense()._data if is_sparse_tensor(g) else g._data
        gs = _masked_like(s, _make(gd_ * d._data)) if self.need[0] else None
        gd = _make(gd_ * s._data) if self.need[1] else None
        return gs, gd

MulSparseBackward = type("MulBackward0", (_MulSparseDense,), {})

class _MulSparseSparse(Node):
    """sparse * sparse: each operand's gradient is the output's times the other."""

    def backward(self, g):
        a, b = self._unpacked_saved
        return (handle_mul(g, b) if self.need[0] else None, handle_mul(g, a) if self.need[1] else None)

MulSparseSparseBackward = type("MulBackward0", (_MulSparseSparse,), {})

def _unary_node(name: str, deriv, fails=None):
    """The node of a pointwise op applied to a coalesced sparse tensor's values: ``deriv(x, y)`` (tinytorch
    ops on the values tensors) is the derivative; ``fails(size)``: the error PyTorch's backward raises
    instead (its formula calls an op its sparse backend lacks)."""
    def backward(self, g):
        if fails is not None:
            raise fails(self.size)
        x, y = self.x, self.y
        gv = grad_values_at(g, self.idx, self.size[:self.idx.shape[0]], tuple(self.size[self.idx.shape[0]:]),
                            _dtype.to_np(y.dtype))
        d = deriv(x, y)
        vals = (_plain(gv) * d)._data if d is not None else np.zeros_like(gv)
        return (make_coo(_plain(self.idx), _plain(vals), self.size, coalesced=True),)
    return type(name, (Node,), {"backward": backward})

def _is_number_like(x) -> bool:
    return isinstance(x, numbers.Number) or (isinstance(x, Tensor) and not is_sparse_tensor(x) and x.dim() == 0)

def _like(t, vals: Tensor, coalesced=None, idx=None):
    """A sparse tensor with ``t``'s pattern (or ``idx``) and new values."""
    if is_csr(t):
        return make_csr(_plain(t._crow._data), _plain(t._col._data), vals, t._sz)
    return make_coo(t._it if idx is None else _plain(idx), vals, t._sz,
                    coalesced=t._coal if coalesced is None else coalesced)

def handle_mul(a, b):
    if is_sparse_tensor(a) and _is_number_like(b):
        s, c = a, b
    elif is_sparse_tensor(b) and _is_number_like(a):
        s, c = b, a
    else:
        return _mul_sparse_tensor(a, b)
    with no_grad():
        vals = s._vt * (c.detach() if isinstance(c, Tensor) else c)
    return record(_like(s, vals), MulBackward0, (s,), factor=c.detach() if isinstance(c, Tensor) else c, kind="mul")

def _mul_sparse_tensor(a, b):
    if is_sparse_tensor(a) and is_sparse_tensor(b):
        if tuple(a.shape) != tuple(b.shape):
            raise RuntimeError(f"mul: expected 'self' and 'other' to have same sizes when both are sparse, but "
                               f"{list(a.shape)} != {list(b.shape)}")
        if is_csr(a) or is_csr(b):
            with no_grad():
                return _coo_to_csr(_mul_sparse_tensor(a.to_sparse(), b.to_sparse()))
        ai, av, size = _coo_of(a)
        bi, bv, _ = _coo_of(b)
        sd = ai.shape[0]
        if a._coal and b._coal:  # the intersection of the two patterns: coalesced
            la, lb = _linear(ai, size[:sd]), _linear(bi, size[:sd])
            common, ia, ib = np.intersect1d(la, lb, assume_unique=True, return_indices=True)
            with no_grad():
                vals = _make(av[ia]) * _make(bv[ib])
            out = make_coo(_plain(ai[:, ia]), vals, size, coalesced=True)
        else:
            # PyTorch's: the pattern of the uncoalesced operand (of both, the one storing fewer), each stored
            # value times the other's (coalesced) value at its position, zero where it stores none
            use_b = a._coal or (not b._coal and bi.shape[1] < ai.shape[1])
            (pi, pv), (qi, qv) = ((bi, bv), coalesce_arrays(ai, av)) if use_b else ((ai, av), coalesce_arrays(bi, bv))
            other = _lookup(qi, qv, pi, size[:sd], tuple(size[sd:]), qv.dtype)
            with no_grad():
                vals = _make(pv) * _make(other) if not use_b else _make(other) * _make(pv)
            out = make_coo(_plain(pi), vals, size, coalesced=False)
        return record(out, MulSparseSparseBackward, (a, b), (a, b), need=(a._requires_grad, b._requires_grad))
    s, d = (a, b) if is_sparse_tensor(a) else (b, a)
    if tuple(d.shape) != tuple(s.shape):
        raise RuntimeError("tinytorch: sparse * dense needs operands of one shape (or a scalar)")
    idx, sv, size = _coo_of(s)
    with no_grad():
        dv = _make(np.ascontiguousarray(d._data[tuple(idx)]))
        vals = _make(sv) * dv if s is a else dv * _make(sv)
    return record(_like(s, vals), MulSparseBackward, (s, d), (s, d), need=(s._requires_grad, d._requires_grad))

def handle_div(a, b, *, rounding_mode=None):
    if not is_sparse_tensor(a):
        raise not_implemented("reciprocal", b._backend)
    if is_sparse_tensor(b):
        raise RuntimeError("Sparse division requires a scalar or zero-dim dense tensor divisor (got a sparse divisor)")
    if isinstance(b, Tensor) and b.dim() != 0:
        raise RuntimeError(f"Sparse division requires a scalar or zero-dim dense tensor divisor (got shape "
                           f"{list(b.shape)} for divisor)")
    s = a.coalesce() if rounding_mode is not None and is_coo(a) else a
    with no_grad():
        vals = s._vt.div(b.detach() if isinstance(b, Tensor) else b, rounding_mode=rounding_mode)
    if not vals.is_floating_point() and not vals.is_complex() and rounding_mode is None:
        vals = vals.to(_dtype.get_default_dtype())
    out = _like(s, vals)
    if rounding_mode is not None:
        return record(out, DivBackward2, (s,))
    return record(out, DivBackward0, (s,), factor=b.detach() if isinstance(b, Tensor) else b, kind="div")

def handle_neg(a):
    with no_grad():
        vals = -a._vt
    return record(_like(a, vals), NegBackward0, (a,))

def _add_sparse(a, b, alpha):
    """PyTorch's sparse + sparse: a merge of the two index lists in storage order (coalesced when both are)."""
    if tuple(a.shape) != tuple(b.shape):
        raise RuntimeError(f"add: expected sizes of 'self' and 'other' to match, but {list(a.shape)} != "
                           f"{list(b.shape)}")
    ai, av, size = a._it._data, a._vt._data, a._sz
    bi, bv = b._it._data, b._vt._data
    dt = _dtype.PROMOTE[av.dtype, bv.dtype]
    if dt == np.float16 or dt == np.bool_:  # PyTorch's sparse add kernel has no half or bool case
        raise NotImplementedError(f"\"cadd_sparse\" not implemented for '{_dtype.FROM_NP[dt]._scalar}'")
    if bi.shape[1] == 0:
        return make_coo(_plain(ai.copy()), _plain(av.astype(dt)), size, a._coal)
    scale = _alpha_in(alpha, dt)
    if ai.shape[1] == 0:
        return make_coo(_plain(bi.copy()), _plain(np.asarray(bv * scale, dtype=dt)), size, b._coal)
    if ai.shape[0] != bi.shape[0]:
        raise RuntimeError(f"add: expected 'self' and 'other' to have same density, but 'self' has {ai.shape[0]} "
                           f"sparse dimensions while 'other' has {bi.shape[0]} sparse dimensions")
    if not (av.flags.c_contiguous and bv.flags.c_contiguous):
        # PyTorch's path for values that are not contiguous (an expanded gradient): the two concatenated,
        # coalesced only once they hold more elements than the dense tensor
        bvals = bv.astype(dt) if alpha == 1 else (bv * scale).astype(dt)
        idx = np.concatenate([ai, bi], axis=1)
        vals = np.concatenate([av.astype(dt), bvals])
        if idx.shape[1] > int(np.prod(size)):
            idx, vals = coalesce_arrays(idx, vals)
            return make_coo(_plain(idx), _plain(vals), size, True)
        return make_coo(_plain(idx), _plain(vals), size, False)
    ta, tb = _merge_order(ai, bi)
    n = len(ta)
    idx = np.empty((ai.shape[0], n), dtype=_I64)
    has_a, has_b = ta >= 0, tb >= 0
    idx[:, has_a] = ai[:, ta[has_a]]
    idx[:, has_b] = bi[:, tb[has_b]]
    vals = np.zeros((n,) + av.shape[1:], dtype=dt)
    vals[has_a] = av[ta[has_a]]
    if has_b.any():
        vals[has_b] = _arrays._fma(scale, bv[tb[has_b]].astype(dt), vals[has_b], dt)  # read through arrays: its path
    return make_coo(_plain(idx), _plain(vals), size, a._coal and b._coal)

def _alpha_in(alpha, dt: np.dtype) -> np.ndarray:
    """``alpha`` in dtype ``dt``; -1 (a subtraction) in an unsigned dtype wraps as PyTorch's C cast does."""
    if dt.kind == "u" and isinstance(alpha, int) and alpha < 0:
        return np.asarray(alpha % (int(np.iinfo(dt).max) + 1), dt)
    return np.asarray(alpha, dt)


def _merge_order(ai, bi):
    """PyTorch's merge loop: for each result element, the element of a and of b it takes (-1: none)."""
    na, nb = ai.shape[1], bi.shape[1]
    ta, tb = [], []
    i = j = 0
    A, B = ai.T.tolist(), bi.T.tolist()
    while i < na or j < nb:
        if i >= na:
            cmp = -1
        elif j >= nb:
            cmp = 1
        else:
            x, y = A[i], B[j]
            cmp = 0 if x == y else (1 if x < y else -1)
        ta.append(i if cmp >= 0 else -1)
        tb.append(j if cmp <= 0 else -1)
        if cmp >= 0:
            i += 1
        if cmp <= 0:
            j += 1
    return np.array(ta, dtype=_I64), np.array(tb, dtype=_I64)

def handle_add(a, b, *, alpha=1):
    return _add(a, b, alpha, AddBackward0)

def _add(a, b, alpha, node_cls):
    """a + alpha * b with a sparse ``b`` (add, and sub with -alpha), recorded by ``node_cls``."""
    sa, sb = is_sparse_tensor(a), is_sparse_tensor(b)
    if sa and not sb:
        raise RuntimeError("add(sparse, dense) is not supported. Use add(dense, sparse) instead.")
    if sa and sb:
        if is_csr(a) or is_csr(b):
            out = _add_sparse(a.to_sparse(), b.to_sparse(), alpha)
            out = _coo_to_csr(out)
        else:
            out = _add_sparse(a, b, alpha)
        return record(out, node_cls, (a, b), need=(a._requires_grad, b._requires_grad), alpha=alpha)
    # dense + sparse: a dense result
    if tuple(a.shape) != tuple(b.shape):
        raise RuntimeError(f"add: expected 'self' and 'other' to have same size, but self has size {list(a.shape)} "
                           f"while other has size {list(b.shape)} (FYI: dense-sparse addition does not currently "
                           f"support broadcasting)")
    ci, cv = _coalesced_parts(b) if is_coo(b) else coalesce_arrays(*_coo_of(b)[:2])
    dt = _dtype.PROMOTE[a._data.dtype, cv.dtype]  # PyTorch's promotion (numpy's makes int64 + float32 float64)
    out = a._data.astype(dt, copy=True)
    if ci.shape[1]:
        add = cv.astype(dt) if alpha == 1 else cv.astype(dt) * _alpha_in(alpha, dt)
        out[tuple(ci)] += add
    return record(out, node_cls, (a, b), need=(a._requires_grad, b._requires_grad), alpha=alpha)

def handle_sub(a, b, *, alpha=1):
    check_bool_sub(isinstance(a, Tensor) and a.dtype == _dtype.bool_, isinstance(b, Tensor) and b.dtype == _dtype.bool_)
    return _add(a, b, -alpha, SubBackward0)

def handle_pow(a, exponent):
    if not is_sparse_tensor(a) or not _is_number_like(exponent):
        raise not_implemented("pow.Tensor_Tensor", "SparseCPU")
    e = exponent.item() if isinstance(exponent, Tensor) else exponent
    if e == 0:
        raise RuntimeError("pow: cannot raise to zeroth power on sparse tensor; it would make the result tensor dense")
    return _unary(a, lambda v: v.pow(e), _pow_node(e))

# the derivative PyTorch's sparse backward multiplies the gradient's values by: the declared formula at g = 1
# (a step function's zero_grad: no derivative, zero values)
def _declared_derivative(node_cls):
    if node_cls.formula is zero_grad:
        return lambda x, y: None
    return lambda x, y: node_cls.formula(ones_like(y), x, y)


def _pow_deriv(x, y, e):
    return _pow_slope(x, e) if e != 1 else None


_ADD_SPARSE_DENSE = "add(sparse, dense) is not supported. Use add(dense, sparse) instead."


def _refused_at(op: str):
    """The error of PyTorch's sparse backward that calls ``op``, which its sparse backend refuses: ``size`` ->
    the exception."""
    if op == "div":  # by the dense values of the same shape
        return lambda size: RuntimeError(f"Sparse division requires a scalar or zero-dim dense tensor divisor (got "
                                         f"shape {list(size)} for divisor)")
    if op == "add":  # 1 + x: sparse plus a dense number tensor
        return lambda size: RuntimeError(_ADD_SPARSE_DENSE)
    if op == "rsub":
        return lambda size: RuntimeError("memory format option is only supported by strided tensors")
    return lambda size: not_implemented(op)


# the ops PyTorch's sparse backend runs on the values of the coalesced tensor (zero stays zero): the declared unary
# ops (``unary(sparse=SparseValues(...))``), and four declared otherwise: name -> node class
_UNARY_NODES = {name: _unary_node(cls.__name__, _declared_derivative(cls),
                                  None if cls.sparse.backward_refused_at is None
                                  else _refused_at(cls.sparse.backward_refused_at))
                for name, cls in SPARSE_UNARY.items()}
_UNARY_NODES.update({
    "sgn": _unary_node("SgnBackward0", lambda x, y: None, _refused_at("_efficientzerotensor")),
    "round": _unary_node("RoundBackward0", lambda x, y: None),
    "relu": _unary_node("ReluBackward0", lambda x, y: (y > 0).to(y.dtype)),
    "nan_to_num": _unary_node("NanToNumBackward0", lambda x, y: None, _refused_at("ne.Scalar")),
})

def _unary(a, fn, node_cls=None):
    """``fn`` on the values of ``a`` coalesced (a coalesced result with ``a``'s pattern)."""
    if is_csr(a):
        with no_grad():
            vals = fn(a._vt)
        return _like(a, vals)
    ci, cv = _coalesced_parts(a)
    x = _make(cv)
    with no_grad():
        y = fn(x)
    out = make_coo(a._it if a._coal else _plain(ci), y, a._sz, coalesced=True)
    if node_cls is None or not y.is_floating_point():
        return out
    return record(out, node_cls, (a,), x=x, y=y, idx=ci, size=a._sz)

_POW_NODES = {}

def _pow_node(e):
    cls = _POW_NODES.get(e)
    if cls is None:
        cls = _POW_NODES[e] = _unary_node("PowBackward0", lambda x, y: _pow_deriv(x, y, e))
    return cls

def _unary_handler(name):
    def handler(a, *args, **kwargs):
        if name == "round" and (args or kwargs.get("decimals")):
            raise not_implemented("round.decimals", a._backend)
        return _unary(a, lambda v: getattr(v, name)(*args, **kwargs), _UNARY_NODES[name])
    handler.__name__ = name
    return handler

def _bool_unary(name):
    def handler(a):
        return _unary(a, lambda v: getattr(v, name)())
    return handler

def handle_square(a):
    return handle_pow(a, 2)

def handle_transpose(a, dim0, dim1):
    return record(_transposed(a, dim0, dim1), TransposeBackward0, (a,), dim0=dim0, dim1=dim1)

def _transposed(a, dim0, dim1):
    """The COO tensor with sparse dims ``dim0`` and ``dim1`` swapped (its values ``a``'s)."""
    if is_csr(a):
        raise RuntimeError("tinytorch: transpose of a CSR matrix is not supported; convert it with to_sparse()")
    n = len(a._sz)
    d0, d1 = _wrap_dim(dim0, n), _wrap_dim(dim1, n)
    sd = a._it._data.shape[0]
    if d0 >= sd or d1 >= sd:
        raise RuntimeError("transpose: dense dimensions of a sparse tensor are not supported by tinytorch")
    idx = a._it._data.copy()
    idx[[d0, d1]] = idx[[d1, d0]]
    size = list(a._sz)
    size[d0], size[d1] = size[d1], size[d0]
    return make_coo(_plain(idx), a._vt, size, coalesced=a._coal and d0 == d1)

def handle_t(a):
    if len(a._sz) > 2:
        raise RuntimeError(f"t() expects a tensor with <= 2 sparse and 0 dense dimensions, but got "
                           f"{a._it._data.shape[0]} sparse and {a._vt._data.ndim - 1} dense dimensions")
    if len(a._sz) < 2:
        return a
    return record(_transposed(a, 0, 1), TBackward0, (a,))

def handle_clone(a, *, memory_format=None):
    return record(a._alias(a, copy=True), CloneBackward0, (a,))

def handle_detach(a):
    return a._alias(a)

def handle_detach_(a):
    a.grad_fn = None
    a._requires_grad = False
    return a

def handle_to(a, *args, **kwargs):
    device, dtype, copy, _fmt = _to_args(args, kwargs)
    if device is not None and str(device).split(":")[0] not in ("cpu",):
        raise RuntimeError(f"tinytorch runs on the CPU only (asked for {device})")
    if dtype is None or _dtype.to_np(dtype) == a._vt._data.dtype:
        return handle_clone(a) if copy else a
    with no_grad():
        vals = a._vt.to(dtype)
    out = _like(a, vals)
    if vals.is_floating_point() or vals.is_complex():
        return record(out, ToCopyBackward0, (a,), src_dtype=a.dtype)
    return out

def _cast_handler(dt):
    def handler(a, memory_format=None):
        return handle_to(a, dt)
    return handler

def handle_cpu(a, *args, **kwargs):
    return a

def handle_contiguous(a, memory_format=None):
    raise RuntimeError("unsupported memory format option Contiguous")

def handle_zero_(a):
    if is_csr(a):
        a._vt = _make(np.zeros_like(a._vt._data))
        return a
    a._it = _make(np.zeros((a._it._data.shape[0], 0), dtype=_I64))
    a._vt = _make(np.zeros((0,) + a._vt._data.shape[1:], dtype=a._vt._data.dtype))
    a._coal = True
    _bump(a)
    return a

def _bump(a) -> None:
    if type(a._vc) is list:
        a._vc[0] += 1

def _refuse_fill(a, *args, **kwargs):
    raise not_implemented("fill_.Scalar", a._backend)

def handle_zeros_like(a, *, dtype=None, layout=None, device=None, pin_memory=False, requires_grad=False,
                      memory_format=None):
    if layout is strided:
        return _make(np.zeros(a._sz, dtype=_dtype.to_np(dtype or a.dtype)))
    dt = _dtype.to_np(dtype or a.dtype)
    if is_csr(a):
        out = make_csr(_plain(np.zeros(a._sz[0] + 1, _I64)), _plain(np.zeros(0, _I64)), _plain(np.zeros(0, dt)), a._sz)
    else:
        sd = a._it._data.shape[0]
        out = make_coo(_plain(np.zeros((sd, 0), _I64)), _plain(np.zeros((0,) + a._sz[sd:], dt)), a._sz, True)
    if requires_grad:
        out.requires_grad_(True)
    return out

def _inplace(fn_name, kernel):
    """``a.X_(...)``: the out-of-place result of ``kernel`` (op ``fn_name``'s sparse kernel) moved into ``a`` (its
    history when it records one)."""
    def handler(a, *args, **kwargs):
        if _State.enabled and a._requires_grad and a.grad_fn is None:
            raise RuntimeError("a leaf Variable that requires grad is being used in an in-place operation.")
        sparse_other = any(is_sparse_tensor(x) for x in args)
        if fn_name in ("add", "sub") and sparse_other:  # the output's dtype is checked before the kernel runs
            _into_dtype(fn_name, a, _dtype.FROM_NP[_dtype.PROMOTE[a._vt._data.dtype, args[0]._vt._data.dtype]], True)
        res = kernel(a, *args, **kwargs)
        if is_sparse_tensor(res) and res.dtype is not a.dtype:
            res = res.to(_into_dtype(fn_name, a, res.dtype, sparse_other))
        if is_sparse_tensor(res) and type(res) is type(a):
            for k in type(a)._state:
                setattr(a, k, getattr(res, k))
            if res.grad_fn is not None:
                a.grad_fn, a._requires_grad = res.grad_fn, True
        else:
            raise RuntimeError(f"{fn_name}_: the result of this in-place op on a sparse tensor is not sparse")
        _bump(a)
        return a
    return handler

def _into_dtype(fn_name: str, a, src, sparse_other: bool):
    """``a``'s dtype, into which PyTorch's sparse kernels write an in-place op's result of dtype ``src``: cast
    where its kind allows (float64 into float32), else their errors; mul_ by a dense tensor or a number must
    keep the dtype."""
    dst = a.dtype
    if fn_name == "mul" and not sparse_other:
        raise RuntimeError(f"dtype of values ({src._scalar}) must match dtype of sparse tensor ({dst._scalar})")
    if src._category > dst._category:
        if fn_name in ("add", "sub") and sparse_other:
            raise RuntimeError(f"Can't convert result type {src._scalar} to output {dst._scalar} in add operation")
        if fn_name == "mul":
            raise RuntimeError(f"Can't convert result type {src._scalar} to output {dst._scalar}")
        raise RuntimeError(f"result type {src._scalar} can't be cast to the desired output type {dst._scalar}")
    return dst


def handle_norm(a, p="fro", dim=None, keepdim=False, dtype=None):
    if dim is not None or keepdim or dtype is not None:
        raise RuntimeError("norm_sparse currently only supports full reductions, so 'dim' must either be empty or "
                           "contain all dimensions of the input")
    _, cv = _coalesced_parts(a) if is_coo(a) else (None, a._vt._data)
    return _make(cv).norm(2 if p == "fro" or p is None else p)

def sparse_kernel(handler, *keys: str, inplace: bool = False, csr: bool = True) -> None:
    """``handler`` is the sparse kernel of the ops ``keys`` (``REGISTRY`` keys; ``inplace``: of their in-place
    ``Tensor.X_``), kept on their declarations (``decl.rules["sparse"]`` / ``["sparse_"]``); ``csr=False``: PyTorch's
    CSR backend refuses them with "unsupported tensor layout" (COO runs them)."""
    for key in keys:
        rule = handler if csr else _csr_refusing(REGISTRY[key].name + ("_" if inplace else ""), handler)
        bind_rule("sparse_" if inplace else "sparse", key, rule)


def _csr_refusing(name, fn):
    def handler(*args, **kwargs):
        if any(is_csr(a) for a in args):
            raise RuntimeError("unsupported tensor layout: SparseCsr")
        return fn(*args, **kwargs)
    handler.__name__ = name
    return handler


def _refusal(name):
    """An op neither sparse backend has: PyTorch's CSR and COO refusals."""
    def handler(a, *args, **kwargs):
        if is_csr(a):
            raise RuntimeError("unsupported tensor layout: SparseCsr")
        raise not_implemented(name, getattr(a, "_backend", "CPU"))
    handler.__name__ = name
    return handler


def sparse_refused(*keys: str, inplace: bool = False) -> None:
    """The ops ``keys`` (``REGISTRY`` keys; ``inplace``: their ``Tensor.X_``) that neither sparse backend has, where
    PyTorch's CSR refusal is its layout's (COO: "Could not run 'aten::X'")."""
    for key in keys:
        name = REGISTRY[key].name + ("_" if inplace else "")
        bind_rule("sparse_" if inplace else "sparse", key, _refusal(name))


register_handler("cpu", handle_cpu)  # (no op: Tensor.cpu)
sparse_kernel(handle_add, "add")
sparse_kernel(handle_sub, "sub", csr=False)
sparse_kernel(handle_mul, "mul")
sparse_kernel(handle_div, "div", csr=False)
sparse_kernel(handle_neg, "neg")
sparse_kernel(handle_pow, "pow", csr=False)
sparse_kernel(handle_square, "square", csr=False)
sparse_kernel(handle_mm, "mm")
sparse_kernel(handle_matmul, "matmul")
sparse_kernel(handle_addmm, "addmm")
sparse_kernel(handle_mm, "spmm")
sparse_kernel(smm, "smm")
sparse_kernel(handle_sum, "sum")
sparse_kernel(_refuse_fill, "ones_like", "full_like")
sparse_kernel(handle_t, "t")
sparse_kernel(handle_transpose, "transpose")
sparse_kernel(handle_clone, "clone")
sparse_kernel(handle_detach, "detach")
sparse_kernel(handle_detach_, "detach", inplace=True)
sparse_kernel(handle_to, "Tensor.to")
sparse_kernel(handle_contiguous, "Tensor.contiguous")
sparse_kernel(handle_zero_, "zero_")
sparse_kernel(handle_zeros_like, "zeros_like")
sparse_kernel(handle_norm, "norm")
sparse_kernel(_cast_handler(_dtype.float32), "Tensor.float")
sparse_kernel(_cast_handler(_dtype.float64), "Tensor.double")
sparse_kernel(_cast_handler(_dtype.float16), "Tensor.half")
sparse_kernel(_cast_handler(_dtype.int64), "Tensor.long")
sparse_kernel(_cast_handler(_dtype.int32), "Tensor.int")
sparse_kernel(_cast_handler(_dtype.bool_), "Tensor.bool")
sparse_kernel(_cast_handler(_dtype.int16), "Tensor.short")
sparse_kernel(_cast_handler(_dtype.int8), "Tensor.char")
sparse_kernel(_cast_handler(_dtype.uint8), "Tensor.byte")
sparse_kernel(_bool_unary("isnan"), "isnan")
sparse_kernel(_bool_unary("isinf"), "isinf")
sparse_kernel(_bool_unary("signbit"), "signbit")
sparse_kernel(lambda a: a, "positive", "conj", "resolve_conj", "resolve_neg")
# the declared unary ops the sparse backends run on the values (``unary(sparse=SparseValues(...))``), and four more
for _n, _cls in SPARSE_UNARY.items():
    sparse_kernel(_unary_handler(_n), _n, csr=_cls.sparse.csr)
    sparse_kernel(_inplace(_n, _unary_handler(_n)), _n, inplace=True)
sparse_kernel(_unary_handler("sgn"), "sgn", csr=False)
sparse_kernel(_inplace("sgn", _unary_handler("sgn")), "sgn", inplace=True)
sparse_kernel(_unary_handler("round"), "round")
sparse_kernel(_inplace("round", _unary_handler("round")), "round", inplace=True)
sparse_kernel(_unary_handler("relu"), "relu")
sparse_kernel(_inplace("relu", _unary_handler("relu")), "relu_")
sparse_kernel(_unary_handler("nan_to_num"), "nan_to_num", csr=False)
sparse_kernel(_inplace("nan_to_num", _unary_handler("nan_to_num")), "nan_to_num", inplace=True)
sparse_kernel(_inplace("add", handle_add), "add", inplace=True)
sparse_kernel(_inplace("sub", handle_sub), "sub", inplace=True, csr=False)
sparse_kernel(_inplace("mul", handle_mul), "mul", inplace=True)
sparse_kernel(_inplace("div", handle_div), "div", inplace=True, csr=False)
sparse_kernel(_inplace("neg", handle_neg), "neg", inplace=True)
sparse_kernel(_inplace("t", handle_t), "t", inplace=True)
sparse_kernel(_inplace("transpose", handle_transpose), "transpose", inplace=True)
sparse_kernel(_inplace("pow", handle_pow), "pow", inplace=True, csr=False)
sparse_kernel(_inplace("square", handle_square), "square", inplace=True, csr=False)
sparse_refused("exp", "cos", "log", "sigmoid", "rsqrt", "reciprocal", "log2", "log10", "exp2", "cosh", "acos", "sinc",
               "logit")
sparse_refused("exp", "cos", "log", "sigmoid", inplace=True)
# two aliases' in-place spellings, which own_name does not lead back to their op's
register_handler("true_divide_", _inplace("true_divide", handle_div))
register_handler("negative_", _inplace("negative", handle_neg))
# torch.special.round is aten's round.decimals, which neither sparse backend has (torch.round is round.default)
register_handler("special_round", _refusal("round.decimals"))

# the index by name that __torch_function__ reads: every declaration's sparse kernels, under its own name
for _decl in list(REGISTRY.values()):
    for _kind, _suffix in (("sparse", ""), ("sparse_", "_")):
        if _kind in _decl.rules:
            register_handler(_decl.name + _suffix, _decl.rules[_kind])

# the sparse ops declared above handle sparse inputs themselves
for _fn in (to_sparse, to_sparse_coo, to_sparse_csr, to_dense, coalesce, is_coalesced, _coalesced_, indices, values,
            _indices, _values, _nnz, sparse_dim, dense_dim, crow_indices, col_indices, sparse_mask, sparse_mm,
            sparse_addmm, sampled_addmm, sparse_sum):
    register_handler(_fn.__name__, _fn)
