"""``assert_close``: PyTorch's comparison of tensors, numbers, booleans, None and nested sequences or
mappings of them, with PyTorch's default tolerances and its mismatch messages word for word."""
from __future__ import annotations

import cmath
import collections.abc
import contextlib
import warnings

import numpy as np

from .. import _dtype
from .._dtype_info import promote_types
from .._ops.creation.factory import as_tensor, tensor
from ..tensor import Tensor

# {dtype: (rtol, atol)}: PyTorch's defaults; every other dtype (integers, bool) compares exactly
_PRECISIONS = {
    _dtype.float16: (0.001, 1e-5),
    _dtype.bfloat16: (0.016, 1e-5),
    _dtype.float32: (1.3e-6, 1e-5),
    _dtype.float64: (1e-7, 1e-7),
    _dtype.complex64: (1.3e-6, 1e-5),
    _dtype.complex128: (1e-7, 1e-7),
}
_NUMBER_DTYPE = {int: _dtype.int64, float: _dtype.float64, complex: _dtype.complex128}


class _Failure(Exception):
    """An error to raise for the user (its type and message) and the item of the nesting it concerns."""

    def __init__(self, kind: type, msg: str, id: tuple = ()):
        super().__init__(msg)
        self.kind, self.msg, self.id = kind, msg, id

    def to_error(self, msg=None) -> Exception:
        if not isinstance(msg, str):
            text = self.msg
            if self.id:
                text += f"\n\nThe failure occurred for item {''.join(str([item]) for item in self.id)}"
            msg = msg(text) if callable(msg) else text
        return self.kind(msg)


class _Unsupported(Exception):
    """This pair type cannot handle the inputs: try the next."""


def default_tolerances(*inputs, dtype_precisions=None) -> tuple[float, float]:
    """The loosest (rtol, atol) of the inputs' dtypes."""
    dtypes = []
    for x in inputs:
        if isinstance(x, Tensor):
            dtypes.append(x.dtype)
        elif isinstance(x, _dtype.dtype):
            dtypes.append(x)
        else:
            raise TypeError(f"Expected a torch.Tensor or a torch.dtype, but got {type(x)} instead.")
    table = dtype_precisions or _PRECISIONS
    rtols, atols = zip(*[table.get(d, (0.0, 0.0)) for d in dtypes])
    return max(rtols), max(atols)


def _tolerances(*inputs, rtol, atol, id=()) -> tuple[float, float]:
    if (rtol is None) ^ (atol is None):
        raise _Failure(ValueError, "Both 'rtol' and 'atol' must be either specified or omitted, "
                                   f"but got no {'rtol' if rtol is None else 'atol'}.", id)
    if rtol is not None:
        return rtol, atol
    return default_tolerances(*inputs)


def _mismatch_msg(identifier, default, extra, abs_diff, abs_idx, atol, rel_diff, rel_idx, rtol) -> str:
    equality = rtol == 0 and atol == 0

    def line(kind, diff, idx, tol):
        text = f"{kind.title()} difference: {diff}" if idx is None else f"Greatest {kind} difference: {diff} at index {idx}"
        return text + ("" if equality else f" (up to {tol} allowed)") + "\n"

    if identifier is None:
        identifier = default
    elif callable(identifier):
        identifier = identifier(default)
    msg = f"{identifier} are not {'equal' if equality else 'close'}!\n\n"
    if extra:
        msg += f"{extra.strip()}\n"
    msg += line("absolute", abs_diff, abs_idx, atol) + line("relative", rel_diff, rel_idx, rtol)
    return msg.strip()


def _scalar_msg(actual, expected, *, rtol, atol, identifier=None) -> str:
    abs_diff = abs(actual - expected)
    rel_diff = float("inf") if expected == 0 else abs_diff / abs(expected)
    return _mismatch_msg(identifier, "Scalars", f"Expected {expected} but got {actual}.", abs_diff, None, atol,
                         rel_diff, None, rtol)


def _tensor_msg(actual: np.ndarray, expected: np.ndarray, matches: np.ndarray, *, rtol, atol) -> str:
    n = matches.size
    mismatched = n - int(matches.sum())
    extra = f"Mismatched elements: {mismatched} / {n} ({mismatched / n:.1%})"
    a, e, m = actual.ravel(), expected.ravel(), matches.ravel()
    if a.dtype.kind in "biu":  # PyTorch widens integers to int64 (no overflow in the difference)
        a, e = a.astype(np.int64), e.astype(np.int64)
    with np.errstate(all="ignore"):
        abs_diff = np.abs(a - e)
        abs_diff[m] = 0
        # int64 / int64 divides in the default float dtype, as PyTorch's true division does
        rel_type = _dtype.get_default_dtype().np if abs_diff.dtype.kind in "iu" else abs_diff.dtype
        rel_diff = abs_diff.astype(rel_type) / np.abs(e).astype(rel_type)
        rel_diff[m] = 0
    ai, ri = int(np.argmax(abs_diff)), int(np.argmax(rel_diff))  # a NaN counts as the greatest, as torch.max's
    def index(flat):
        return tuple(int(i) for i in np.unravel_index(flat, matches.shape))

    return _mismatch_msg(None, "Tensor-likes", extra, abs_diff[ai].item(), index(ai), atol, rel_diff[ri].item(),
                         index(ri), rtol)


class _Pair:
    def __init__(self, actual, expected, *, id=(), **unused):
        self.actual, self.expected, self.id = actual, expected, id

    def fail(self, kind, msg):
        raise _Failure(kind, msg, self.id)


class _NonePair(_Pair):
    def __init__(self, actual, expected, **options):
        if not (actual is None or expected is None):
            raise _Unsupported
        super().__init__(actual, expected, **options)

    def compare(self):
        if not (self.actual is None and self.expected is None):
            self.fail(AssertionError, f"None mismatch: {self.actual} is not {self.expected}")


class _BooleanPair(_Pair):
    def __init__(self, actual, expected, **options):
        if not all(isinstance(x, (bool, np.bool_)) for x in (actual, expected)):
            raise _Unsupported
        super().__init__(bool(actual), bool(expected), **options)

    def compare(self):
        if self.actual is not self.expected:
            self.fail(AssertionError, f"Booleans mismatch: {self.actual} is not {self.expected}")


class _NumberPair(_Pair):
    def __init__(self, actual, expected, *, id=(), rtol=None, atol=None, equal_nan=False, check_dtype=False, **_):
        if not all(isinstance(x, (int, float, complex, np.number)) for x in (actual, expected)):
            raise _Unsupported
        actual, expected = (x.item() if isinstance(x, np.number) else x for x in (actual, expected))
        super().__init__(actual, expected, id=id)
        self.rtol, self.atol = _tolerances(*(_NUMBER_DTYPE[type(x)] for x in (actual, expected)), rtol=rtol,
                                           atol=atol, id=id)
        self.equal_nan, self.check_dtype = equal_nan, check_dtype

    def compare(self):
        a, e = self.actual, self.expected
        if self.check_dtype and type(a) is not type(e):
            self.fail(AssertionError, f"The (d)types do not match: {type(a)} != {type(e)}.")
        if a == e or (self.equal_nan and cmath.isnan(a) and cmath.isnan(e)):
            return
        diff = abs(a - e)
        if cmath.isfinite(diff) and diff <= self.atol + self.rtol * abs(e):
            return
        self.fail(AssertionError, _scalar_msg(a, e, rtol=self.rtol, atol=self.atol))


class _TensorLikePair(_Pair):
    def __init__(self, actual, expected, *, id=(), allow_subclasses=True, rtol=None, atol=None, equal_nan=False,
                 check_device=True, check_dtype=True, check_layout=True, check_stride=False, **_):
        if not (isinstance(actual, type(expected)) or isinstance(expected, type(actual))):
            raise _Unsupported
        if not allow_subclasses and type(actual) is not type(expected):
            raise _Unsupported
        actual, expected = (self._to_tensor(x) for x in (actual, expected))
        super().__init__(actual, expected, id=id)
        self.rtol, self.atol = _tolerances(actual, expected, rtol=rtol, atol=atol, id=id)
        self.equal_nan, self.check_device, self.check_dtype = equal_nan, check_device, check_dtype
        self.check_layout, self.check_stride = check_layout, check_stride

    @staticmethod
    def _to_tensor(x) -> Tensor:
        if isinstance(x, Tensor):
            return x
        try:
            return as_tensor(x)
        except Exception:
            raise _Unsupported from None

    def _attribute_mismatch(self, name, a, e):
        self.fail(AssertionError, f"The values for attribute '{name}' do not match: {a} != {e}.")

    def compare(self):
        a, e = self.actual, self.expected
        if a.shape != e.shape:
            self._attribute_mismatch("shape", a.shape, e.shape)
        if self.check_stride and a.stride() != e.stride():  # every tinytorch tensor is strided
            self._attribute_mismatch("stride()", a.stride(), e.stride())
        if self.check_dtype and a.dtype != e.dtype:
            self._attribute_mismatch("dtype", a.dtype, e.dtype)
        x, y = a.detach()._data, e.detach()._data
        if a.dtype != e.dtype:  # compared in the promoted dtype, as PyTorch
            common = promote_types(a.dtype, e.dtype).np
            x, y = x.astype(common), y.astype(common)
        self._compare_values(x, y)

    def _compare_values(self, x: np.ndarray, y: np.ndarray):
        matches = _isclose(x, y, self.rtol, self.atol, self.equal_nan)
        if matches.all():
            return
        if x.ndim == 0:
            msg = _scalar_msg(x.item(), y.item(), rtol=self.rtol, atol=self.atol)
        else:
            msg = _tensor_msg(x, y, matches, rtol=self.rtol, atol=self.atol)
        self.fail(AssertionError, msg)


def _isclose(x: np.ndarray, y: np.ndarray, rtol: float, atol: float, equal_nan: bool) -> np.ndarray:
    """torch.isclose on two arrays of one dtype: equal, or both NaN (equal_nan), or a finite difference within
    ``atol + |rtol * y|`` computed in the dtype (integers and bool in the default float dtype)."""
    close = x == y
    if equal_nan and x.dtype.kind in "fc":
        close |= np.isnan(x) & np.isnan(y)
    if rtol == 0 and atol == 0:
        return close
    if x.dtype.kind in "biu":
        x, y = x.astype(_dtype.get_default_dtype().np), y.astype(_dtype.get_default_dtype().np)
    real = x.real.dtype.type
    with np.errstate(all="ignore"):
        allowed = real(atol) + np.abs(real(rtol) * y)
        error = np.abs(x - y)
    return close | (np.isfinite(error) & (error <= allowed))


def _originate(actual, expected, pair_types, id=(), **options) -> list:
    seq, mapping = collections.abc.Sequence, collections.abc.Mapping
    if isinstance(actual, seq) and not isinstance(actual, str) and isinstance(expected, seq) \
            and not isinstance(expected, str):
        if len(actual) != len(expected):
            raise _Failure(AssertionError, f"The length of the sequences mismatch: {len(actual)} != {len(expected)}",
                           id)
        return [p for i in range(len(actual))
                for p in _originate(actual[i], expected[i], pair_types, (*id, i), **options)]
    if isinstance(actual, mapping) and isinstance(expected, mapping):
        akeys, ekeys = set(actual.keys()), set(expected.keys())
        if akeys != ekeys:
            raise _Failure(AssertionError, "The keys of the mappings do not match:\n"
                                           f"Missing keys in the actual mapping: {sorted(ekeys - akeys)}\n"
                                           f"Additional keys in the actual mapping: {sorted(akeys - ekeys)}", id)
        keys = akeys
        with contextlib.suppress(Exception):
            keys = sorted(keys)
        return [p for k in keys for p in _originate(actual[k], expected[k], pair_types, (*id, k), **options)]
    for pair_type in pair_types:
        try:
            return [pair_type(actual, expected, id=id, **options)]
        except _Unsupported:
            continue
    raise _Failure(TypeError, f"No comparison pair was able to handle inputs of type {type(actual)} and "
                              f"{type(expected)}.", id)


def assert_close(actual, expected, *, allow_subclasses: bool = True, rtol=None, atol=None, equal_nan: bool = False,
                 check_device: bool = True, check_dtype: bool = True, check_layout: bool = True,
                 check_stride: bool = False, msg=None) -> None:
    """Raise ``AssertionError`` unless ``actual`` and ``expected`` are close: ``|a - e| <= atol + rtol * |e|``
    elementwise, with PyTorch's per-dtype defaults (float32: rtol 1.3e-6, atol 1e-5; float64: 1e-7, 1e-7;
    integers and bool exactly), shapes and (by default) dtypes equal. Nested sequences and mappings are
    compared item by item; ``msg`` (a string, or a function of the generated message) replaces the message."""
    __tracebackhide__ = True
    try:
        pairs = _originate(actual, expected, (_NonePair, _BooleanPair, _NumberPair, _TensorLikePair),
                           allow_subclasses=allow_subclasses, rtol=rtol, atol=atol, equal_nan=equal_nan,
                           check_device=check_device, check_dtype=check_dtype, check_layout=check_layout,
                           check_stride=check_stride)
    except _Failure as failure:
        raise failure.to_error() from None
    for pair in pairs:
        try:
            pair.compare()
        except _Failure as failure:
            raise failure.to_error(msg) from None


def assert_allclose(actual, expected, rtol=None, atol=None, equal_nan: bool = True, msg: str = "") -> None:
    """Deprecated since PyTorch 1.12 (FutureWarning): ``assert_close`` with looser defaults (float32:
    rtol 1e-4, atol 1e-5; float64: 1e-5, 1e-8), NaNs equal and dtypes not checked."""
    warnings.warn("`torch.testing.assert_allclose()` is deprecated since 1.12 and will be removed in a future "
                  "release. Please use `torch.testing.assert_close()` instead. You can find detailed upgrade "
                  "instructions in https://github.com/pytorch/pytorch/issues/61844.", FutureWarning, stacklevel=2)
    if not isinstance(actual, Tensor):
        actual = tensor(actual)
    if not isinstance(expected, Tensor):
        expected = tensor(expected, dtype=actual.dtype)
    if rtol is None and atol is None:
        rtol, atol = default_tolerances(actual, expected, dtype_precisions={
            _dtype.float16: (1e-3, 1e-3), _dtype.float32: (1e-4, 1e-5), _dtype.float64: (1e-5, 1e-8)})
    assert_close(actual, expected, rtol=rtol, atol=atol, equal_nan=equal_nan, check_device=True, check_dtype=False,
                 check_stride=False, msg=msg or None)
