"""The outer product ``u v^T`` of two vectors, as PyTorch's CPU ``mm`` gives it for an inner dimension
of 1 (the weight gradient of a batch of one): every element the one rounded product ``u_i * v_j``,
signed zeros included (-1 * 0 is -0.0).

numpy's broadcast multiply gives those values but runs its inner loop per row without SIMD (about
130 us for 512 x 784 float32, PyTorch 42); einsum is faster but accumulates into a zeroed output,
turning every -0.0 product into +0.0. The BLAS's ``?ger`` (``A += alpha u v^T``, numpy's bundled
OpenBLAS called through ctypes) on an array filled with -0.0 gives the plain products: -0.0 is the
additive identity (``-0.0 + p`` is ``p`` for every ``p``, +0.0 and -0.0 included) and alpha 1 leaves
each product exact before its one rounding, fused or not. It is used only after a self-check against
numpy's products passes (bit for bit, zeros of both signs, on a threaded size too).

The -0.0 fill is a third of the time (numpy's ``fill`` writes 1.6 MB in 28 us, where the ``?ger`` takes 31): a
float32 -0.0 is the 4-byte pattern 0x80000000, which the C library's ``wmemset`` writes at ``memset``'s speed
(18 us) where its ``wchar_t`` is 4 bytes (Linux, macOS), checked once against numpy's fill."""
from __future__ import annotations

import numpy as np

from .._ops._kernels.openblas import address, openblas_routines

__all__ = ["blas_outer"]

_F32, _F64 = np.dtype(np.float32), np.dtype(np.float64)
_ROW_MAJOR = 101
_ger: dict | None = None  # dtype -> the checked ctypes ?ger, filled on first use
_MINUS_ZERO_BITS = 0x80000000  # float32's -0.0
_wmemset = None  # the C library's checked wmemset, or False where there is none (numpy's fill then)


def _find_ger() -> dict:
    import ctypes  # loaded already by openblas_routines

    return openblas_routines("sger", "dger", lambda index, real: [ctypes.c_int, index, index, real, ctypes.c_void_p,
                                                                  index, ctypes.c_void_p, index, ctypes.c_void_p,
                                                                  index])


def _find_wmemset():
    """libc's ``wmemset`` as a fill of 4-byte words, if it fills a test array with float32 -0.0 as numpy does."""
    import ctypes  # loaded already by openblas_routines

    if ctypes.sizeof(ctypes.c_wchar) != 4:
        return False
    try:
        fn = ctypes.CDLL(None).wmemset
    except (OSError, AttributeError):
        return False
    fn.argtypes, fn.restype = [ctypes.c_void_p, ctypes.c_uint32, ctypes.c_size_t], ctypes.c_void_p
    got = np.ones(67, np.float32)
    fn(got[1:-1].ctypes.data, _MINUS_ZERO_BITS, 65)
    want = np.full(67, -0.0, np.float32)
    want[0] = want[-1] = 1.0
    return fn if np.array_equal(got.view(np.uint32), want.view(np.uint32)) else False


def _outer(u: np.ndarray, v: np.ndarray, fn) -> np.ndarray:
    global _wmemset
    m, n = u.size, v.size
    out = np.empty((m, n), u.dtype)
    at = address(out)
    if _wmemset is None:
        _wmemset = _find_wmemset()
    if _wmemset and u.dtype == _F32:
        _wmemset(at, _MINUS_ZERO_BITS, m * n)
    else:
        out.fill(-0.0)
    fn(_ROW_MAJOR, m, n, 1.0, address(u), 1, address(v), 1, at, n)
    return out


def _checked_ger() -> dict:
    global _ger
    if _ger is None:
        good = {}
        rng = np.random.default_rng(0)
        for dt, fn in _find_ger().items():
            ok = True
            for m, n in ((37, 61), (300, 700)):
                u = rng.standard_normal(m).astype(dt)
                v = rng.standard_normal(n).astype(dt)
                u[::3], u[1::5], v[::4], v[2::7] = 0.0, -0.0, 0.0, -0.0
                v[5], u[7] = np.inf, np.nan
                u[9] = np.finfo(dt).tiny  # products that underflow to zeros of either sign
                with np.errstate(all="ignore"):
                    want = np.multiply(u[:, None], v[None, :])
                ok = ok and np.array_equal(_outer(u, v, fn).view(np.uint8), want.view(np.uint8))
            if ok:
                good[dt] = fn
        _ger = good
    return _ger


def blas_outer(u: np.ndarray, v: np.ndarray) -> np.ndarray | None:
    """A new C-contiguous ``(len(u), len(v))`` array of the products ``u_i * v_j``, for 1-d float32 or
    float64 vectors of one dtype; None where there is no checked ``?ger`` for it (numpy then)."""
    dt = u.dtype
    if (dt != _F32 and dt != _F64) or v.dtype != dt or type(u) is not np.ndarray or type(v) is not np.ndarray:
        return None  # (a meta array's: numpy's product gives its shape)
    fn = (_ger if _ger is not None else _checked_ger()).get(dt)
    if fn is None:
        return None
    return _outer(np.ascontiguousarray(u), np.ascontiguousarray(v), fn)
