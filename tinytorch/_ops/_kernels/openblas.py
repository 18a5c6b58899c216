"""numpy's bundled OpenBLAS (``numpy.libs/libscipy_openblas*.so``; numpy 1.x wheels bundle
``libopenblas64_p*.so``, whose symbols lack the ``scipy_`` prefix), reached through ctypes for the few
BLAS routines numpy does not expose (``?axpy`` for the fused multiply-add updates, ``?ger`` for batch-1
outer products). ctypes is imported on first use, not with tinytorch; each caller checks the routine it
gets against an exact computation before trusting it."""
from __future__ import annotations

import os

import numpy as np

__all__ = ["address", "openblas_library", "openblas_routines"]

_F32, _F64 = np.dtype(np.float32), np.dtype(np.float64)
_library = False  # not looked for yet; then the ctypes handle, or None
_addressof = _c_char = None  # ctypes.addressof and ctypes.c_char, set with the library


def openblas_library():
    """The ctypes handle of numpy's bundled OpenBLAS, or None where numpy ships none (another BLAS, or a
    layout without ``numpy.libs``). Looked for once."""
    global _library, _addressof, _c_char
    if _library is False:
        import ctypes  # here, not at import: only the first caller pays for it
        import glob

        _addressof, _c_char = ctypes.addressof, ctypes.c_char
        _library = None
        here = os.path.dirname(os.path.dirname(np.__file__))
        libs = os.path.join(here, "numpy.libs")
        for path in sorted(glob.glob(os.path.join(libs, "libscipy_openblas*.so*"))) + sorted(
                glob.glob(os.path.join(libs, "libopenblas*.so*"))):
            try:
                _library = ctypes.CDLL(path)
                break
            except OSError:
                continue
    return _library


def openblas_routines(single: str, double: str, argtypes) -> dict:
    """{float32 dtype: the ``single`` routine, float64 dtype: the ``double`` one} as ctypes functions of the
    bundled OpenBLAS's CBLAS interface (its 64-bit-index build preferred), with ``argtypes(index, real)``
    giving each one's argument types; empty where the library or the symbols are missing."""
    import ctypes

    lib = openblas_library()
    found = {}
    if lib is None:
        return found
    for dt, name, real in ((_F32, single, ctypes.c_float), (_F64, double, ctypes.c_double)):
        for symbol, index in ((f"scipy_cblas_{name}64_", ctypes.c_int64), (f"scipy_cblas_{name}", ctypes.c_int),
                              (f"cblas_{name}64_", ctypes.c_int64)):
            fn = getattr(lib, symbol, None)
            if fn is not None:
                fn.restype = None
                fn.argtypes = argtypes(index, real)
                found[dt] = fn
                break
    return found


def address(a: np.ndarray) -> int:
    """The address of a contiguous array's first element, for a routine's pointer argument: ``from_buffer``
    costs a quarter of ``.ctypes.data`` (0.25 against 1 us), but takes only writable arrays (others, and any
    call before the library was looked for, get ``.ctypes.data``)."""
    try:
        return _addressof(_c_char.from_buffer(a))
    except (TypeError, ValueError, BufferError):
        return a.ctypes.data
