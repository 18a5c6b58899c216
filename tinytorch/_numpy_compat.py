"""The few places where numpy 1.x (pyproject's floor, 1.24) and numpy 2.x differ in a way no single
spelling covers, each decided once at import (nothing extra per call on numpy 2).

Everything else that numpy 2 changed is written at its call site in a spelling both versions read
alike: dtype promotion (NEP 50: numpy 1.x promotes a 0-d array or numpy scalar by its value, so a
float32 scalar times a Python float was float64 there and an array of uint32 modulo a ``np.uint64``
stayed uint32) by giving the result dtype or the operand types explicitly; names numpy 2 added
(``np.concat``, ``np.isdtype``, ...) by the older spellings both still have.

What is here:

- ``SCALARS_BY_VALUE``: numpy 1.x promotes a 0-d array (or a numpy scalar) beside a Python number by
  the values (``np.array(1, np.float32) * 0.5`` is float64 there, float32 on numpy 2), where an array
  with dimensions keeps its dtype on both. Formulas written once for every shape take their 0-d
  operands as 1-element arrays on numpy 1.x, where this is True (nothing to do on numpy 2).

- ``exp_f64`` (the LSTM kernel's float64 exp; the random kernels' scalar exp/tan/pow are
  ``_random.fpmath``'s ``libm_*``): numpy 1.x on AVX-512 CPUs computes float64 exp and pow with SVML (up to 4
  ulp), whose last bit differs from glibc's (and so from PyTorch's kernels, mostly) for a quarter of the
  inputs; numpy 2 dropped it. Checked once against math (glibc): where numpy's agrees far less often than
  numpy 2's does, they go through x87's extended precision, rounded once (glibc's value but near ties).
- DLPack. numpy < 2.1's ``ndarray.__dlpack__`` takes only ``stream`` (no ``copy``, ``dl_device``,
  ``max_version``); numpy < 2 makes ``np.from_dlpack``'s arrays read-only (numpy 2 leaves a legacy
  capsule's memory writable, as PyTorch does); numpy < 1.25 has no bool in DLPack either way.
"""
from __future__ import annotations

import numpy as np

__all__ = ["NUMPY2", "SCALARS_BY_VALUE", "array_dlpack", "exp_f64", "from_dlpack"]

NUMPY2 = np.lib.NumpyVersion(np.__version__) >= "2.0.0"
SCALARS_BY_VALUE = not NUMPY2  # NEP 50 (numpy 2.0) promotes by dtype alone
_DLPACK_KEYWORDS = np.lib.NumpyVersion(np.__version__) >= "2.1.0"  # __dlpack__(copy=, dl_device=, max_version=)
_DLPACK_BOOL = np.lib.NumpyVersion(np.__version__) >= "1.25.0"
_KDL_UINT, _KDL_BOOL = 1, 6  # DLDataTypeCode values
_CPU = (1, 0)


# -- DLPack ----------------------------------------------------------------------------------------
def _retag(capsule, old: int, new: int) -> bool:
    """Rewrite the dtype code of a legacy ("dltensor") capsule's DLTensor from ``old`` to ``new`` (the
    bytes of a bool and a uint8 tensor are the same). numpy < 1.25 only, where DLPack has no bool."""
    import ctypes

    get = ctypes.pythonapi.PyCapsule_GetPointer
    get.restype, get.argtypes = ctypes.c_void_p, [ctypes.py_object, ctypes.c_char_p]
    # DLTensor: void *data; DLDevice device (2 x int32); int32 ndim; DLDataType dtype (uint8 code, ...)
    code = ctypes.c_uint8.from_address(get(capsule, b"dltensor") + 20)
    if code.value != old:
        return False
    code.value = new
    return True


class _Capsule:
    """A legacy capsule with the ``__dlpack__`` face ``np.from_dlpack`` reads."""

    def __init__(self, capsule) -> None:
        self.capsule = capsule

    def __dlpack__(self, stream=None, **kwargs):
        return self.capsule

    def __dlpack_device__(self):
        return _CPU


class _Writable:
    """The memory of a read-only array, offered writable (``np.asarray`` of it is a view that keeps the
    array, and so the producer's capsule, alive)."""

    def __init__(self, arr: np.ndarray) -> None:
        self.arr = arr
        face = dict(arr.__array_interface__)
        face["data"] = (face["data"][0], False)
        self.__array_interface__ = face


def array_dlpack(arr: np.ndarray, copy=None, dl_device=None, max_version=None):
    """``arr.__dlpack__`` with the keywords of the 2023 protocol, on every numpy."""
    if _DLPACK_KEYWORDS:
        kwargs = {"copy": copy, "dl_device": dl_device}
        if max_version is not None:
            kwargs["max_version"] = max_version
        return arr.__dlpack__(stream=None, **kwargs)
    # older numpy gives a legacy capsule, which a consumer asking for max_version accepts
    if dl_device is not None and tuple(dl_device) != _CPU:
        raise BufferError("unsupported device requested")
    if copy:
        arr = arr.copy()
    if arr.dtype == np.bool_ and not _DLPACK_BOOL:
        capsule = arr.view(np.uint8).__dlpack__(stream=None)
        _retag(capsule, _KDL_UINT, _KDL_BOOL)
        return capsule
    return arr.__dlpack__(stream=None)


def from_dlpack(obj) -> np.ndarray:
    """``np.from_dlpack(obj)``, writable as on numpy 2 (and bool where numpy < 1.25 has none)."""
    if NUMPY2:
        return np.from_dlpack(obj)
    boolean = False
    if not _DLPACK_BOOL:
        capsule = obj.__dlpack__(stream=None)
        try:
            boolean = _retag(capsule, _KDL_BOOL, _KDL_UINT)
        except ValueError:  # not a fresh legacy capsule: numpy's own error follows
            pass
        obj = _Capsule(capsule)
    arr = np.asarray(_Writable(np.from_dlpack(obj)))
    return arr.view(np.bool_) if boolean else arr


# -- float64 exp ---------------------------------------------------------------------------------
_exp_f64 = None


def exp_f64(x: np.ndarray, out: np.ndarray) -> np.ndarray:
    """``np.exp(x, out=out)`` for float64 arrays, rounded as glibc's where numpy's own is SVML's."""
    global _exp_f64
    if _exp_f64 is None:
        _exp_f64 = np.exp if _numpy_is_glibc("exp") else _extended(np.exp)
    return _exp_f64(x, out=out)


def _extended(ufunc):
    """``ufunc`` on float64 operands computed in x87's extended precision and rounded once to float64."""
    def f(*args, out=None):
        r = ufunc(*(np.asarray(a, np.longdouble) for a in args))
        if out is None:
            return r.astype(np.float64)
        np.copyto(out, r, casting="same_kind")
        return out
    return f


def _numpy_is_glibc(name: str) -> bool:
    """Whether numpy's float64 ``name`` agrees with glibc's (math's) about as often as numpy 2's does (about
    19 in 20 results; numpy 1.x's SVML: about 3 in 4), or there is no extended precision to do better."""
    import math

    if np.finfo(np.longdouble).nmant < 63:
        return True
    rng = np.random.RandomState(12345)
    x = rng.standard_normal(4096) * 8
    if name == "pow":
        y = rng.standard_normal(4096) * 4
        x = np.abs(x)
        ours, theirs = np.power(x, y), [math.pow(a, b) for a, b in zip(x.tolist(), y.tolist())]
    else:
        ours, theirs = getattr(np, name)(x), [getattr(math, name)(a) for a in x.tolist()]
    return bool(np.mean(ours == np.array(theirs)) >= 0.9)
