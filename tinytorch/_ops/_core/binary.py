"""What the binary arithmetic families (arith.py, division.py, power.py, compare.py) share: the node
base that remembers each input's shape and dtype, the spellings they are declared under, and the
half/bfloat16 operand check. A module of its own so that those families need not import each other.
Also add/sub/mul's one fast forward (``fast_forward``: the common cases, where nothing is promoted,
broadcast or fitted) and alpha's check and fused product."""
from __future__ import annotations

import numpy as np

from ..._dtype import FLOATING_NP, LOWP_NP, NARROW_NP
from ..._numpy_compat import SCALARS_BY_VALUE
from ..._quiet_fp import ARRAY_OUT, F32 as _F32, F32_MAX as _F32_MAX, F64 as _F64, loud, quiet
from ...autograd.node import Node
from ...tensor import Tensor
from .._kernels import parallel
from .._kernels.muladd import muladd
from .._kernels.parallel import SPLIT_FROM as _SPLIT_FROM
from .util import as_array

_ARITH = "function method inplace out"  # the spellings of PyTorch's binary arithmetic
# the operand dtypes fast_forward leaves to the general path (bool; float8 and complex32, numpy computing
# nothing as PyTorch does on them), and those a Python number beside them sends there: one lookup each
_NOT_FAST = frozenset({np.dtype(np.bool_)}) | NARROW_NP
_SCALAR_SLOW = LOWP_NP | NARROW_NP


class _BinaryNode(Node):
    """Remembers each input's shape/dtype only when it differs from the result's (``a_meta``/``b_meta``,
    ``util.meta``'s, given to ``record``)."""

    a_meta = None
    b_meta = None
    _instance_attrs = ("a_meta", "b_meta", "alpha")


def _lowp(ad, bd):
    """The half/bfloat16 dtype of an operand array (after binary_operands), else None."""
    for x in (ad, bd):
        if type(x) is np.ndarray and x.itemsize == 2 and x.dtype in LOWP_NP:  # itemsize first: cheap
            return x.dtype
    return None


# -- add / sub / mul's operands (0-d floats as Python floats: _quiet_fp.F32_MAX says why) ---------
_INT64 = np.dtype(np.int64)


def _float_and_scalar(a, b):
    """The array of a floating tensor ``a`` with a Python float or int ``b`` (or an int64 tensor with a
    Python int): the result keeps ``a``'s dtype and shape, so nothing is promoted or fitted (the common
    ``x * 0.5``, ``x + 1``), else None."""
    if isinstance(a, Tensor) and (type(b) is float or type(b) is int):
        ad = a._data
        if ad.dtype in FLOATING_NP and ad.dtype not in _SCALAR_SLOW:  # half/bfloat16/float8: binary_operands' scalars
            if SCALARS_BY_VALUE and ad.dtype is _F32 and not -_F32_MAX <= b <= _F32_MAX:
                return None  # numpy 1.x: float64 by b's value (binary_operands casts b first)
            return ad
        if type(b) is int and ad.dtype == _INT64:  # a counter's ``add_(1)``: binary_operands leaves both as they are
            return ad
    return None


def _checked_alpha(ad, bd, alpha):
    """alpha as PyTorch's alpha_check admits it for the result dtype (its errors otherwise); a bool
    result reads alpha as a bool (a + b or a, PyTorch's bool kernel)."""
    if isinstance(alpha, (Tensor, np.generic)):  # a Python number, as PyTorch's Scalar reads it
        alpha = alpha.item()
    dt = ad.dtype if type(ad) is np.ndarray else np.asarray(bd).dtype
    kind = dt.kind
    if kind == "b":
        return bool(alpha)
    if isinstance(alpha, bool):
        raise RuntimeError("Boolean alpha only supported for Boolean results.")
    if kind in "iu" and isinstance(alpha, (float, complex)):
        raise RuntimeError("For integral input tensors, argument alpha must not be a floating point number.")
    if kind != "c" and isinstance(alpha, complex):
        raise RuntimeError("For non-complex input tensors, argument alpha must not be a complex number.")
    return alpha


def _plus_scaled(ad, bd, alpha):
    """ad + alpha * bd (operands already in the result dtype): PyTorch's CPU kernel fuses it into one
    rounding (FMA) for float32 and float64, which ``muladd`` reproduces; other dtypes round as numpy does."""
    if type(alpha) is float or type(alpha) is int:
        dt = ad.dtype if type(ad) is np.ndarray else getattr(bd, "dtype", None)
        if dt is not None and (dt == _F32 or dt == _F64):
            return muladd(ad, bd, alpha, dt)
        if dt is not None and dt in LOWP_NP:
            # half/bfloat16: PyTorch's vector kernel rounds alpha to the dtype, computes in float32
            # (the product of two such values is exact there) and rounds the sum to the dtype once
            al = np.float32(dt.type(alpha))
            out = np.asarray(ad, dtype=_F32) + np.asarray(bd, dtype=_F32) * al
            return out.astype(dt)
    return ad + bd * alpha_in(bd, alpha)


def alpha_in(bd, alpha):
    """alpha as a 0-d array of ``bd``'s dtype where ``bd`` is 0-d or a numpy scalar (numpy 1.x promoted
    those times a Python int by value: int32 to int64), else alpha itself."""
    if isinstance(bd, np.generic) or (type(bd) is np.ndarray and not bd.ndim):
        return np.asarray(alpha).astype(bd.dtype)
    return alpha


def _split(fn, arr: np.ndarray, other, swap: bool = False) -> np.ndarray:
    """``fn(arr, other)`` (``fn(other, arr)`` with ``swap``) for a large ``arr`` whose result has its shape
    and dtype, cut across threads: the same floats, element by element."""
    out = np.empty_like(arr, order="C")  # (empty_like: a meta tensor's array makes a data-less one)
    if swap:
        return parallel.elementwise(lambda o, a, out: fn(o, a, out=out), out, other, arr)
    return parallel.elementwise(fn, out, arr, other)


def fast_forward(fn, py_fn, a, b):
    """add, sub and mul's forward in the common cases, straight on the arrays: two tensors of one shape
    and dtype (not bool), or a tensor with a Python number its dtype keeps (``_float_and_scalar``:
    ``x * 0.5``, ``1 - x``, a counter's ``+ 1``). Returns ``(out, which)``, ``which`` saying which
    operands were tensors (1: ``a``, 2: ``b``, 3: both), or None: the op's general path (promotion,
    broadcasting, alpha). ``fn`` is the numpy ufunc; ``py_fn`` the same operation on Python floats,
    which 0-d float tensors take (numpy's per-call cost dwarfs the arithmetic; _quiet_fp.F32_MAX says
    when float32 keeps the value). Large arrays are cut across threads (the same floats)."""
    if isinstance(a, Tensor):
        ad = a._data
        if isinstance(b, Tensor):
            bd = b._data
            if ad.dtype != bd.dtype or ad.shape != bd.shape or ad.dtype in _NOT_FAST:
                return None
            if not ad.ndim:
                dt = ad.dtype
                if dt is _F32 or dt is _F64:
                    r = py_fn(float(ad), float(bd))
                    if dt is _F64 or -_F32_MAX <= r <= _F32_MAX:
                        out = ad.copy()
                        out[()] = r
                        return out, 3
            which, arr, other = 3, ad, bd
        elif _float_and_scalar(a, b) is not None:
            which, arr, other = 1, ad, b
        else:
            return None
    elif _float_and_scalar(b, a) is not None:
        which, arr, other = 2, b._data, a
    else:
        return None
    fp = quiet()
    try:
        if not arr.ndim:  # out= keeps a 0-d result an array; dtype= keeps a Python number from promoting
            out = (fn(arr, other, out=ARRAY_OUT, dtype=arr.dtype) if which != 2
                   else fn(other, arr, out=ARRAY_OUT, dtype=arr.dtype))
        elif arr.size < _SPLIT_FROM:
            out = fn(arr, other) if which != 2 else fn(other, arr)
        else:
            out = _split(fn, arr, other, which == 2)
    finally:
        loud(fp)
    return as_array(out), which
