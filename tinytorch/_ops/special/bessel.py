"""Bessel functions of ``torch.special``: i0, i0e, i1, i1e (differentiable, as in PyTorch) and the
``bessel_*``, ``modified_bessel_*``, ``scaled_modified_bessel_*``, ``spherical_bessel_j0`` and
``airy_ai`` functions, which PyTorch does not differentiate (their results never require grad).

Kernels: SciPy's Cephes/AMOS ports (optional; imported when first called), computed in float64;
torch.i0 uses numpy's own ``np.i0`` so that it works without SciPy."""
from __future__ import annotations

import numpy as np

from ...tensor import Tensor, _make
from .._core.batching import pointwise
from .._core.pointwise import unary
from .._core.record import float_dtype
from .._core.registry import op
from .._core.lazy_scipy import special_kernel
from ..pointwise.compare import where
from .._core.lazy_scipy import scipy_special
from .._core.util import as_array

_SPECIAL = "function out"


def _i0_np(x: np.ndarray) -> np.ndarray:
    return np.i0(x.astype(np.float64)).astype(x.dtype)


i0 = unary("i0", _i0_np, lambda g, x, y: g * i1(x), variants="function method inplace torch_inplace out",
           extra=("special.i0",))
i0e = unary("special.i0e", special_kernel("i0e"), lambda g, x, y: g * (i1e(x) - x.sgn() * y), saves="both",
            node="SpecialI0EBackward0", variants=_SPECIAL)


def _not_tiny(x):
    """PyTorch's i1/i1e backward: the slope is 0.5 unless |x| > the dtype's epsilon (so at 0, near it and at
    NaN), and the formula runs on x with the tiny values replaced by epsilon (a NaN-free division)."""
    eps = float(np.finfo(x._data.dtype).eps)
    not_tiny = x.abs() > eps
    return not_tiny, where(not_tiny, x, eps)


def _i1_grad(g, x, y):
    not_tiny, safe = _not_tiny(x)
    return g * where(not_tiny, i0(safe) - y * safe.reciprocal(), 0.5)


def _i1e_grad(g, x, y):
    not_tiny, safe = _not_tiny(x)
    return g * where(not_tiny, i0e(safe) - y * (safe.sgn() + safe.reciprocal()), 0.5)


i1 = unary("special.i1", special_kernel("i1"), _i1_grad, saves="both", node="SpecialI1Backward0", variants=_SPECIAL)
i1e = unary("special.i1e", special_kernel("i1e"), _i1e_grad, saves="both", node="SpecialI1EBackward0",
            variants=_SPECIAL)


def _airy_ai(x: np.ndarray) -> np.ndarray:
    return scipy_special().airy(x)[0]


def _spherical_j0(x: np.ndarray) -> np.ndarray:
    with np.errstate(all="ignore"):
        out = np.where(x == 0, 1.0, np.sin(x) / np.where(x == 0, 1.0, x))
    return np.where(np.isinf(x), 0.0, out)


def _non_differentiable(name: str, kernel):
    """``torch.special.<name>``: the kernel on the float64 values; the result does not require grad."""
    def fn(input: Tensor) -> Tensor:
        x = float_dtype(input._data)
        with np.errstate(all="ignore"):
            out = as_array(kernel(x.astype(np.float64))).astype(x.dtype)
        return _make(out)
    fn.__name__ = fn.__qualname__ = name
    fn.__doc__ = f"torch.special.{name} (not differentiable, as in PyTorch)."
    return op(f"special.{name}", variants=_SPECIAL, batch=pointwise)(fn)


def _sc(fname: str):
    def kernel(x):
        return special_kernel(fname)(x)
    return kernel


bessel_j0 = _non_differentiable("bessel_j0", _sc("j0"))
bessel_j1 = _non_differentiable("bessel_j1", _sc("j1"))
bessel_y0 = _non_differentiable("bessel_y0", _sc("y0"))
bessel_y1 = _non_differentiable("bessel_y1", _sc("y1"))
modified_bessel_i0 = _non_differentiable("modified_bessel_i0", _sc("i0"))
modified_bessel_i1 = _non_differentiable("modified_bessel_i1", _sc("i1"))
modified_bessel_k0 = _non_differentiable("modified_bessel_k0", _sc("k0"))
modified_bessel_k1 = _non_differentiable("modified_bessel_k1", _sc("k1"))
scaled_modified_bessel_k0 = _non_differentiable("scaled_modified_bessel_k0", _sc("k0e"))
scaled_modified_bessel_k1 = _non_differentiable("scaled_modified_bessel_k1", _sc("k1e"))
spherical_bessel_j0 = _non_differentiable("spherical_bessel_j0", _spherical_j0)
airy_ai = _non_differentiable("airy_ai", _airy_ai)
