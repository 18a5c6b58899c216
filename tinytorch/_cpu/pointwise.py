"""add, sub and mul's CPU paths: the common cases straight on the arrays (two tensors of one shape and dtype,
a floating tensor and a Python number: nothing to promote, broadcast or fit), mul's gradient on the arrays,
and ``a + alpha * b`` in one rounding as PyTorch's vectorised CPU kernels fuse it."""
from __future__ import annotations

import operator

import numpy as np

from .._dtype import FLOATING_NP, LOWP_NP, NARROW_NP
from .._numpy_compat import SCALARS_BY_VALUE
from .._quiet_fp import ARRAY_OUT, F32 as _F32, F32_MAX as _F32_MAX, F64 as _F64, loud, quiet
from ..autograd.grad_mode import _Active, _State
from ..tensor import Tensor, _make
from .._ops._core import paths
from .._ops._core.binary import alpha_in
from .._ops._core.tensor_iterator import elementwise_empty, elementwise_layout
from .._ops._core.registry import bind_rule
from .._ops._core.record import record, record_pair
from .._ops._core.util import as_array
from .._ops._kernels import parallel
from .._ops._kernels.muladd import addcmul_into, muladd, round_twice_at, twice_rounded
from .._ops._kernels.parallel import SPLIT_FROM as _SPLIT_FROM
from .._ops._kernels.mul_arrays import times as _times
from .._ops.pointwise import arith, power
from .._ops.pointwise.arith import AddBackward0, MulBackward0, RsubBackward1, SubBackward0

# the operand dtypes fast_forward leaves to the general path (bool; float8 and complex32, numpy computing
# nothing as PyTorch does on them), and those a Python number beside them sends there: one lookup each
_NOT_FAST = frozenset({np.dtype(np.bool_)}) | NARROW_NP
_SCALAR_SLOW = LOWP_NP | NARROW_NP

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


def _split(fn, arr: np.ndarray, other, swap: bool = False) -> np.ndarray:
    """``fn(arr, other)`` (``fn(other, arr)`` with ``swap``) for a large ``arr`` whose result has its shape
    and dtype, cut across threads: the same floats, element by element, written into a result laid out in
    PyTorch's order from the start (a meta tensor's array makes a data-less one)."""
    if swap:
        return parallel.elementwise(lambda o, a, out: fn(o, a, out=out), elementwise_empty(arr, other, arr),
                                    other, arr)
    return parallel.elementwise(fn, elementwise_empty(arr, arr, other), arr, other)


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
            return _split(fn, arr, other, which == 2), which  # (laid out in PyTorch's order already)
    finally:
        loud(fp)
    out = as_array(out)
    return (elementwise_layout(out, arr, other) if which != 2 else elementwise_layout(out, other, arr)), which


# -- add / sub / mul: the common cases ------------------------------------------------------------
_add, _subtract, _multiply = np.add, np.subtract, np.multiply
_py_add, _py_sub, _py_mul = operator.add, operator.sub, operator.mul
_add_ref, _sub_ref, _mul_ref = paths.reference("add"), paths.reference("sub"), paths.reference("mul")
_COMMON = ("two tensors of one shape and dtype (not bool), or a floating tensor and a Python number its dtype "
           "keeps, with alpha 1")
_SPEED = "speed: no promotion, broadcasting or fitting; 0-d floats as Python floats; large arrays across threads"


# -- pow's special exponents -----------------------------------------------------------------------
_power_ref = paths.reference_kernel(power, "_power")
# PyTorch's CPU pow of a float tensor to a Python number computes these exponents by their own formulas
# (pow_tensor_scalar_kernel: sqrt, rsqrt; pow_tensor_scalar_optimized_kernel: the products), the others by pow
# (the 1 in the array's dtype: numpy 1.x would widen a 0-d float32 divided from a Python number)
_POW_FORMULAS = {0.0: np.ones_like, 1.0: np.copy, 2.0: lambda x: x * x, 3.0: lambda x: x * x * x,
                 -1.0: lambda x: x.dtype.type(1) / x, -2.0: lambda x: x.dtype.type(1) / (x * x), 0.5: np.sqrt,
                 -0.5: lambda x: x.dtype.type(1) / np.sqrt(x)}
# a Python number exponent as pow's operands hold it (numpy 1.x: cast to a numpy scalar); a tensor's is an array
_NUMBER = (int, float, np.float32, np.float64, np.int64)


@paths.kernel(power, "_power", ulps=2, when="a float32/float64 array to a Python int or float exponent 0, 1, 2, 3, -1, "
              "-2, 0.5 or -0.5", why="PyTorch's bits: its CPU kernel computes those powers as 1, x, x * x, x * x * x, "
              "1 / x, 1 / (x * x), sqrt and 1 / sqrt (numpy's power rounds once, or within a few ulps on numpy "
              "1.x's SVML)")
def power_formulas(ad, bd):
    if type(bd) in _NUMBER and type(ad) is np.ndarray and (ad.dtype is _F32 or ad.dtype is _F64):
        formula = _POW_FORMULAS.get(float(bd))
        if formula is not None:
            return formula(ad)
    return _power_ref(ad, bd)


def power_scalar(x, exponent):
    """pow's formula on one element (``registry.scalar_formula``: a fused loop's line) while this path is bound:
    the formula of a special exponent; None for another exponent, which numpy's power computes, whose floats a
    compiler's pow need not give."""
    if type(exponent) in (int, float) and power._power is power_formulas:
        formula = _POW_FORMULAS.get(float(exponent))
        if formula is not None:
            return formula(x)
    return None


bind_rule("scalar", "pow", power_scalar)


@paths.forward("add", when=_COMMON, why=_SPEED)
def add(a, b, *legacy, alpha=1):
    if alpha == 1 and alpha is not True and not legacy:
        fast = fast_forward(_add, _py_add, a, b)
        if fast is not None:
            out, which = fast
            if _State.enabled:
                ta, tb = (a if which & 1 else None), (b if which & 2 else None)
                if (ta is not None and ta._requires_grad) or (tb is not None and tb._requires_grad):
                    if _Active.fw and _State.fw_level is not None:
                        return _add_ref(a, b)  # in a dual level: the declaration's path, which keeps add's operands
                    return record_pair(out, AddBackward0, ta, tb)
            return _make(out)
    return _add_ref(a, b, *legacy, alpha=alpha)


@paths.forward("sub", when=_COMMON, why=_SPEED)
def sub(a, b, *legacy, alpha=1):
    if alpha == 1 and alpha is not True and not legacy:
        fast = fast_forward(_subtract, _py_sub, a, b)
        if fast is not None:
            out, which = fast
            if _State.enabled:
                if which == 2:  # number - tensor: PyTorch's RsubBackward1, one input edge
                    if b._requires_grad:
                        return record(out, RsubBackward1, (b,))
                else:
                    tb = b if which == 3 else None
                    if a._requires_grad or (tb is not None and tb._requires_grad):
                        if _Active.fw and _State.fw_level is not None:
                            return _sub_ref(a, b)  # in a dual level: the declaration's path (sub's operands kept)
                        return record_pair(out, SubBackward0, a, tb)
            return _make(out)
    return _sub_ref(a, b, *legacy, alpha=alpha)


@paths.forward("mul", when=_COMMON.replace(", with alpha 1", ""), why=_SPEED)
def mul(a, b):
    fast = fast_forward(_multiply, _py_mul, a, b)
    if fast is None:
        return _mul_ref(a, b)
    out, which = fast
    if _State.enabled:
        need_a = which & 1 and a._requires_grad
        need_b = which & 2 and b._requires_grad
        if need_a or need_b:
            if _Active.fw and _State.fw_level is not None:
                return _mul_ref(a, b)  # in a dual level: the declaration's path, which keeps what mul's jvp reads
            # only what the other side's gradient needs is saved; a number is kept as a number
            if which == 3:
                if need_a and need_b:
                    return record_pair(out, MulBackward0, a, b, a, b)
                if need_a:
                    return record(out, MulBackward0, (a, b), (None, b), need_b=False)
                return record(out, MulBackward0, (a, b), (a, None), need_a=False)
            if which == 1:
                return record(out, MulBackward0, (a, None), b_scalar=b, need_b=False)
            return record(out, MulBackward0, (None, b), a_scalar=a, need_a=False)
    return _make(out)


@paths.backward(MulBackward0, when="no graph of the gradient wanted, nothing to fit (inputs of the result's shape "
                "and dtype), real dtypes", why="speed: the products on the arrays, as mul's fast forward")
def mul_backward(self, g):
    gd = g._data
    if (not _State.enabled and self.a_meta is None and self.b_meta is None and not self._packed
            and not self._freed and gd.dtype.kind != "c"):
        # the versions of the saved inputs checked (_unpacked_saved raises the error otherwise)
        sa, sb = self._sa, self._sb
        if (sa is None or sa._vc[0] == self._va) and (sb is None or sb._vc[0] == self._vb):
            ga = gb = None
            if self.need_a:
                ga = _times(gd, self.b_scalar if sb is None else sb._data)
                if ga is None:
                    return MulBackward0.formula(self, g)
                ga = _make(ga)
            if self.need_b:
                gb = _times(gd, self.a_scalar if sa is None else sa._data)
                if gb is None:
                    return MulBackward0.formula(self, g)
                gb = _make(gb)
            return ga, gb
    return MulBackward0.formula(self, g)


@paths.kernel(arith, "_scaled_sum", ulps=None, when="alpha a Python number; float32/float64 (one rounding, as PyTorch's FMA "
              "builds, AVX2 and AVX512, round all but the elements of a stride-0 other that their loop's scalar "
              "tail rounds twice) and half/bfloat16 (computed in float32, rounded once)",
              why="PyTorch's bits on its vectorised CPU paths")
def scaled_sum(ad, bd, alpha):
    if type(alpha) is float or type(alpha) is int:
        dt = ad.dtype if type(ad) is np.ndarray else getattr(bd, "dtype", None)
        if dt is not None and (dt == _F32 or dt == _F64):
            out = muladd(ad, bd, alpha, dt)
            if np.size(bd) != out.size:  # other broadcast: the loop's tail may round some elements twice
                idx = twice_rounded(out.shape, ad, bd, dt.itemsize, parallel.get_num_threads())
                if idx is not None:
                    round_twice_at(out, ad, bd, alpha, idx)
            return out
        if dt is not None and dt in LOWP_NP:
            # half/bfloat16: PyTorch's vector kernel rounds alpha to the dtype, computes in float32
            # (the product of two such values is exact there) and rounds the sum to the dtype once
            al = np.float32(dt.type(alpha))
            out = np.asarray(ad, dtype=_F32) + np.asarray(bd, dtype=_F32) * al
            return out.astype(dt)
    return ad + bd * alpha_in(bd, alpha)


@paths.kernel(arith, "_muladd_into", ulps=4, scale="program", when="float32/float64 arrays of out's dtype (value * b "
              "rounded, then one fused multiply-add, as PyTorch's FMA builds: AVX2, AVX512); others as the reference",
              why="PyTorch's bits on its vectorised CPU paths (addcmul, lerp)")
def muladd_into(out, a, b, c, value):
    addcmul_into(out, a, b, c, value)
