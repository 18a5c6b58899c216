"""SciPy, imported only when a kernel that needs it runs.

SciPy's ``scipy.special`` and ``scipy.linalg`` are the well-kept implementations of the Bessel,
incomplete-gamma, zeta and normal-distribution functions and of LAPACK's triangular solve and LU (they
wrap Cephes, AMOS and LAPACK, the libraries PyTorch's own kernels follow). They are an optional
dependency: ``import tinytorch`` never imports SciPy, numpy-only functions (erf, lgamma, digamma,
xlogy, sinc, the polynomials, ...) work without it, and the functions that need it say how to get it."""
from __future__ import annotations

import numpy as np

from .util import as_array

_HINT = 'pip install scipy (or pip install "tinytorch-numpy[special]")'


def scipy_special():
    try:
        import scipy.special as sc
    except ImportError:
        raise ImportError(f"this function of tinytorch needs SciPy's scipy.special; install it with {_HINT}") from None
    return sc


def scipy_linalg():
    try:
        import scipy.linalg as sl
    except ImportError:
        raise ImportError(f"this function of tinytorch needs SciPy's scipy.linalg; install it with {_HINT}") from None
    return sl


def special_kernel(fname: str, *const):
    """The kernel ``x -> scipy.special.<fname>(*const, x)``: float32 is computed in float64 and rounded
    (the closest float32 to the true value, which PyTorch's float32 kernels approach)."""
    def run(x: np.ndarray) -> np.ndarray:
        fn = getattr(scipy_special(), fname)
        return as_array(fn(*const, x.astype(np.float64))).astype(x.dtype)
    run.__name__ = fname
    return run
