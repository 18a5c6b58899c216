"""Shared machinery for ops: operand unpacking, dtype promotion, and gradient reduction.

Broadcasting is handled here, in one place: binary ops remember an input's shape only when it
differs from the result's, and ``fit_grad`` sums the gradient back to that shape (and casts it back
to the input's dtype when promotion changed it)."""
from __future__ import annotations

import functools
import os
import sys
import warnings

import numpy as np

from ..._dtype import ALL as _ALL_DTYPES, LOWP_NP, NARROW_NP, result_np_dtype
from ..._meta_array import MetaArray, NeedsData, _read_through, c_strides
from . import narrow_dtypes
from .layout import c_ordered
from ..._numpy_compat import SCALARS_BY_VALUE
from ..._quiet_fp import cast, loud, quiet
from ...autograd.grad_mode import _State
from ...autograd.node import sum_to, u64
from ...tensor import Tensor, _make, _wrap_dim

ndarray = np.ndarray
_NONE_EDGE = (None, 0)
_INT_OR_NARROW = frozenset(d.np for d in _ALL_DTYPES if d.np.kind in "iu") | NARROW_NP


def unpack(x):
    """(tensor or None, array or Python scalar) for an op operand."""
    if isinstance(x, Tensor):
        return x, x._data
    if isinstance(x, (bool, int, float, complex)):
        # numpy's float64/complex128 scalars are float/complex subclasses: PyTorch reads them as Python
        # numbers (t * np.float64(2) stays float32), so they must not carry their numpy dtype along
        return None, x if type(x) in (bool, int, float, complex) else x.item()
    if isinstance(x, np.ndarray):
        t = _make(x)
        return t, x
    if isinstance(x, np.generic):
        # PyTorch reads a numpy bool scalar as a floating number (int64 tensor * np.bool_(True) is float32)
        return None, float(x) if type(x) is np.bool_ else x.item()
    raise TypeError(f"unsupported operand type for a tinytorch op: '{type(x).__name__}'")


def _lowp_scalar(kind, v):
    """A Python number as a half or bfloat16 scalar; beyond half's range it may round to inf, silently as
    PyTorch's (numpy's cast would warn)."""
    if -65504.0 <= v <= 65504.0:
        return kind(v)
    token = quiet()
    try:
        return kind(v)
    finally:
        loud(token)


def binary_operands(a, b, scalar_in_float: bool = False):
    """Unpack two operands and cast their arrays to PyTorch's result dtype.

    A Python scalar beside a half or bfloat16 tensor is rounded to that dtype first (PyTorch's add and sub), or
    with ``scalar_in_float`` kept in float32, the op's compute type (mul and div; the caller rounds)."""
    ta, ad = unpack(a)
    tb, bd = unpack(b)
    # (a complex number beside half makes complex32: the general path's promotion)
    if type(ad) in _ARRAYS and ad.itemsize == 2 and ad.dtype in LOWP_NP and type(bd) not in _ARRAYS and \
            type(bd) is not complex:
        bd = np.float32(bd) if scalar_in_float else _lowp_scalar(ad.dtype.type, bd)
        return ta, tb, ad, bd
    if type(bd) in _ARRAYS and bd.itemsize == 2 and bd.dtype in LOWP_NP and type(ad) not in _ARRAYS and \
            type(ad) is not complex:
        ad = np.float32(ad) if scalar_in_float else _lowp_scalar(bd.dtype.type, ad)
        return ta, tb, ad, bd
    if type(ad) in _ARRAYS and type(bd) in _ARRAYS and ad.shape != bd.shape:
        broadcast_shapes(ad.shape, bd.shape)
    dt = result_np_dtype(ad, bd)
    if dt in _INT_OR_NARROW:  # one lookup: integers wrap Python ints; float8 / complex32 go to narrow_dtypes.py
        if dt in NARROW_NP:
            ad, bd = narrow_dtypes.operands(ad, bd, dt)
            return ta, tb, ad, bd
        # a Python int out of the integer dtype's range wraps into it, as PyTorch's scalar cast does
        # (uint8 & -32, uint8 + 300), where numpy 2 raises OverflowError
        if type(bd) is int and type(ad) in _ARRAYS:
            bd = _wrap_int(bd, dt)
        elif type(ad) is int and type(bd) in _ARRAYS:
            ad = _wrap_int(ad, dt)
    if type(ad) in _ARRAYS:
        if ad.dtype != dt:
            ad = cast(ad, dt)
    elif type(bd) not in _ARRAYS:
        ad = np.asarray(ad, dtype=dt)
    if type(bd) in _ARRAYS and bd.dtype != dt:
        bd = cast(bd, dt)
    if SCALARS_BY_VALUE:
        # numpy 1.x promotes a Python number by its value (a 0-d float32 array plus 0.5, or a float32 array
        # times 1e300, was float64): as a numpy scalar of the result dtype (cast as numpy 2 casts it, wrapping
        # integers) it keeps that dtype
        if type(bd) not in _ARRAYS and type(ad) in _ARRAYS:
            bd = cast(np.asarray(bd), dt)[()]
        elif type(ad) not in _ARRAYS and type(bd) in _ARRAYS:
            ad = cast(np.asarray(ad), dt)[()]
    return ta, tb, ad, bd


def _wrap_int(v: int, dt) -> int:
    info = np.iinfo(dt)
    if info.min <= v <= info.max:
        return v
    span = 1 << (8 * dt.itemsize)
    return (v - info.min) % span + info.min


def broadcast_shapes(a: tuple, b: tuple) -> tuple:
    """The broadcast of two shapes; PyTorch's error (naming the rightmost clash) when there is none."""
    n = max(len(a), len(b))
    out = []
    for i in range(n - 1, -1, -1):
        x = a[i - n + len(a)] if i - n + len(a) >= 0 else 1
        y = b[i - n + len(b)] if i - n + len(b) >= 0 else 1
        if x != y and x != 1 and y != 1:
            raise RuntimeError(f"The size of tensor a ({x}) must match the size of tensor b ({y}) at "
                               f"non-singleton dimension {i}")
        out.append(y if x == 1 else x)
    return tuple(reversed(out))


def needs_grad(ta, tb=None) -> bool:
    if not _State.enabled:
        return False
    return (ta is not None and ta._requires_grad) or (tb is not None and tb._requires_grad)


def edge(t):
    return _NONE_EDGE if t is None else t._edge()


def meta(t, out: ndarray):
    """What ``fit_grad`` needs to map an output-shaped gradient back to input ``t``; None if nothing."""
    if t is None or not t._requires_grad:
        return None
    d = t._data
    if d.shape == out.shape and d.dtype == out.dtype:
        return None
    return (d.shape, d.dtype)


def fit_grad(g: Tensor | None, m):
    """``g`` summed back to a broadcast operand's shape and cast to its dtype (``m``: (shape, dtype), or None for
    as it is); None stays None."""
    if m is None or g is None:
        return g
    shape, dt = m
    if g._data.shape != shape:
        g = sum_to(g, shape)
    if g._data.dtype != dt:
        if g._data.dtype.kind == "c" and dt.kind != "c":
            g = g.real  # a real input of a complex result: the real part of its gradient (PyTorch)
        g = g.to(dt)
    return g


def holomorphic_backward(backward):
    """A node's ``backward(self, g)`` written for real numbers, made right for a complex ``g`` too:
    conj(backward(conj(g))) turns each ``g * f'(z)`` into PyTorch's ``g * conj(f'(z))`` (see
    ``_ops/pointwise/complex.py``); a real ``g`` pays one dtype test."""
    @functools.wraps(backward)
    def complex_aware(self, g):
        if g._data.dtype.kind != "c":
            return backward(self, g)
        grads = backward(self, g.conj_physical())
        return tuple(None if x is None else x.conj_physical() for x in grads)
    return complex_aware


def complex_grad_error(name: str) -> RuntimeError:
    """PyTorch's refusal to record an op whose derivative it defines for real numbers only."""
    return RuntimeError(f"{name} does not support automatic differentiation for outputs with complex dtype.")


def add_terms(*terms):
    """The sum of the tangent (or gradient) terms that exist; None where every term is None."""
    total = None
    for t in terms:
        if t is not None:
            total = t if total is None else total + t
    return total


def opmath(x: ndarray) -> ndarray:
    """The array an op computes on: bfloat16 widened to float32 (PyTorch's CPU kernels compute reduced
    precision in float and round the result once per op; ``lowp_round`` rounds it back); half too."""
    return x.astype(np.float32) if x.dtype in LOWP_NP else x


def lowp_round(out: ndarray, storage: np.dtype) -> ndarray:
    """``out`` rounded to the half/bfloat16 ``storage`` it was widened from (unchanged otherwise)."""
    return cast(out, storage) if storage in LOWP_NP and out.dtype != storage else out


_ARRAYS = (ndarray, MetaArray)  # what an operand's data can be (a meta tensor's: data-less)


def as_array(x, dtype=None) -> ndarray:
    """``np.asarray(x, dtype)``, but a meta tensor's array stays data-less: numpy's own spreads its value over its
    shape with zero strides, and the numpy code that goes on with that array computes at full size."""
    if dtype is None:
        return x if type(x) is ndarray or type(x) is MetaArray else np.asarray(x)
    return x.astype(dtype, copy=False) if type(x) is MetaArray else np.asarray(x, dtype)


def loop_count(x) -> int:
    """``int(x)`` for a loop's length read from values (a polynomial's degree): a meta array gives the value it
    holds throughout, so the loop runs as it would on such an array (sizing a result by it still refuses)."""
    return int(x.value) if type(x) is MetaArray else int(x)


def normalize_dims(dim, ndim: int) -> tuple:
    """A tuple of non-negative dims from an int, a sequence, or None (all dims)."""
    if dim is None:
        return tuple(range(ndim))
    if isinstance(dim, (list, tuple)):
        if len(dim) == 0:
            return tuple(range(ndim))
        out = tuple(_wrap_dim(d, ndim) for d in dim)
        if len(set(out)) != len(out):
            raise RuntimeError(f"dim {out[0]} appears multiple times in the list of dims")
    else:
        out = (_wrap_dim(dim, ndim),)
    # a 0-d tensor accepts dim 0 / -1 (as PyTorch), but numpy has no axis to reduce
    return out if ndim else ()


def require_tensors(name: str, input, other, other_name: str = "other") -> None:
    """PyTorch's TypeError for the binary ops whose schema takes only tensors (atan2, hypot,
    logaddexp, maximum, ...): a Python number is refused, not wrapped."""
    if isinstance(input, Tensor) and isinstance(other, Tensor):
        return  # the common case, checked first: this runs on every call of those ops
    for pos, (arg, v) in enumerate((("input", input), (other_name, other)), 1):
        if not isinstance(v, Tensor):
            raise TypeError(f"{name}(): argument '{arg}' (position {pos}) must be Tensor, not {type(v).__name__}")


_ROW_STARTS: dict = {}


def row_starts(rows: int, width: int) -> ndarray:
    """The flat offsets ``arange(rows) * width`` of the rows of a C-contiguous (rows, width) array, kept
    per shape (read-only: a training loop asks for the same ones every step)."""
    starts = _ROW_STARTS.get((rows, width))
    if starts is None:
        if len(_ROW_STARTS) > 64:
            _ROW_STARTS.clear()
        starts = _ROW_STARTS[(rows, width)] = np.arange(rows) * width
        starts.flags.writeable = False
    return starts


def last_axis_max(x: ndarray) -> ndarray:
    """``np.max(x, axis=-1, keepdims=True)`` for a C-contiguous real array: the same values (a maximum
    does not depend on the order of its comparisons; NaN propagates alike), by ``maximum.reduceat``
    over the flat rows, about twice as fast for many rows of tens of elements (the softmax of attention
    and of cross_entropy). Empty rows (reduceat would return an element) take np.max; fewer than
    ``_REDUCEAT_FROM`` rows the plain reduction, whose fixed cost is lower (1 row: 2.5 against 4.1 us,
    32 rows of 10: 3.9 against 5.3; 1 thread, AMD EPYC Zen 3)."""
    n = x.shape[-1] if x.ndim else 0
    if not n or not x.size or type(x) is not ndarray or not x.flags.c_contiguous or x.dtype.kind != "f":
        return np.max(x, axis=-1, keepdims=True)
    rows = x.size // n
    if rows < _REDUCEAT_FROM:
        return np.maximum.reduce(x, -1, None, None, True)  # (np.max without its Python frames)
    return np.maximum.reduceat(x.reshape(-1), row_starts(rows, n)).reshape(x.shape[:-1] + (1,))


_REDUCEAT_FROM = 64


def c_order(a: ndarray) -> ndarray:
    """``a`` laid out as PyTorch lays out a contiguous result: C order, and the strides of size-1 dims
    those of the C layout too (numpy calls an array C-contiguous whatever those are, PyTorch's
    ``stride()`` shows them). Copies only an array that is not C-contiguous (a ``MetaArray``: a new one)."""
    if type(a) is MetaArray:
        return a if a.strides == c_strides(a.shape, a.itemsize) else a.copy()
    if c_ordered(a):  # the common case (a size-1 dim's C stride looked up in a cache)
        return a
    if not a.flags.c_contiguous:
        a = np.ascontiguousarray(a)
    strides = c_strides(a.shape, a.itemsize)
    if a.strides == strides or not a.size:
        return a
    return strided(a, strides=strides, writeable=True)


def lapack_order(a):
    """A LAPACK result laid out as PyTorch's CPU kernels make it and its meta kernels say: each matrix column-major
    (its transpose C-contiguous), the batch dims C-ordered over the matrices. numpy's LAPACK wrappers hand back C
    order, so a CPU result is copied once into that layout (a copy of the result, beside the factorization's n^3:
    strides are part of the spec); a ``MetaArray`` is laid out anew, a 0- or 1-d array is left as it is."""
    if a.ndim < 2:
        return a
    if type(a) is MetaArray:
        return MetaArray(a.shape[:-2] + a.shape[:-3:-1], a.dtype, value=a._value).swapaxes(-1, -2)
    t = np.swapaxes(a, -1, -2)
    if t.strides == c_strides(t.shape, t.itemsize):
        return a
    return np.swapaxes(np.ascontiguousarray(t), -1, -2)


def strided(x: np.ndarray, shape=None, strides=None, writeable: bool = True) -> np.ndarray:
    """numpy's ``as_strided`` for every storage: ml_dtypes' float8_e5m2 reports a type string numpy cannot read
    back, so its bytes are strided as a void type of the same size (only when numpy refuses: no cost else). A
    ``MetaArray`` gets a view of the same sizes and strides (no storage to look into)."""
    if type(x) is MetaArray:
        return x._view(x.shape if shape is None else shape, x.strides if strides is None else strides)
    if 0 in x.strides and strides is not None and _read_through(x) and any(
            st and n > 1 for st, n in zip(strides, x.shape if shape is None else shape)):
        raise NeedsData("strides into a meta array's one element")  # they would reach past it (a size-1 dim's
        # stride reads nothing: unsqueezing a broadcast scalar, a real gradient of a sum, is no such read)
    try:
        return np.lib.stride_tricks.as_strided(x, shape, strides, writeable=writeable)
    except TypeError:
        raw = x.view(np.dtype((np.void, x.itemsize)))
        return np.lib.stride_tricks.as_strided(raw, shape, strides, writeable=writeable).view(x.dtype)


def saved_dims(raw):
    """A ``dim`` argument as PyTorch's ``_saved_dim`` shows an IntArrayRef: the dims as given (a single
    int as a 1-tuple), each through the unsigned conversion (-1 reads 18446744073709551615); None stays None."""
    if raw is None:
        return None
    if isinstance(raw, (int, np.integer)):
        raw = (raw,)
    return u64(tuple(int(d) for d in raw))


def saved_correction(correction, unbiased, dim):
    """var/std's ``_saved_correction`` as PyTorch records it: the correction given, else the one an
    ``unbiased`` flag or a ``dim`` overload implies (1 or 0); None for the plain ``var(x)``."""
    if correction is not None:
        return correction
    if isinstance(dim, bool):
        unbiased, dim = dim, None
    if unbiased is None and dim is None:
        return None
    return 1 if unbiased is None or unbiased else 0


def numel_of(shape) -> int:
    n = 1
    for s in shape:
        n *= s
    return n


_REDUCTIONS = {"none": 0, "mean": 1, "sum": 2}


def reduction_enum(reduction) -> int:
    """A loss's ``reduction`` as PyTorch's nodes save it: the enum 0 (none), 1 (mean), 2 (sum)."""
    return _REDUCTIONS.get(reduction, reduction)


_PACKAGE = os.path.dirname(os.path.dirname(os.path.dirname(os.path.abspath(__file__))))  # tinytorch/


def warn_at_caller(message: str) -> None:
    """A UserWarning pointing at the first frame outside tinytorch (PyTorch's C++ warnings point there)."""
    f, level = sys._getframe(0), 1
    while f is not None and f.f_code.co_filename.startswith(_PACKAGE):
        f, level = f.f_back, level + 1
    warnings.warn(message, UserWarning, stacklevel=level)
