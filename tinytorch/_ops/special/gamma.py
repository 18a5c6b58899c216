"""Incomplete gamma, Hurwitz zeta and the multivariate log-gamma: ``igamma``/``special.gammainc``,
``igammac``/``special.gammaincc``, ``special.zeta``, ``mvlgamma``/``special.multigammaln``.

igammac and zeta use SciPy's Cephes kernels (optional; imported when first called), in float64.
PyTorch differentiates them only in their second argument; asking for the other derivative raises
PyTorch's NotImplementedError when backward reaches it."""
from __future__ import annotations


import numpy as np

from ..._dtype import FLOATING_NP
from ...autograd.node import Node
from ...tensor import Tensor
from .._core.batching import pointwise
from .._core.registry import op
from .._core.lazy_scipy import scipy_special
from .._core.util import as_array, fit_grad, require_tensors
from .erf_gamma import gammainc_np
from .xlogy import _binary_args, _float_pair, _suffix
from ..pointwise.binary import _binary_args as _pair_args, _float_binary
from .._core.record import legacy_name, record
from .._core.util import binary_operands


def _not_implemented(what: str):
    raise NotImplementedError(f"the derivative for '{what}' is not implemented.")


class _IncompleteGammaNode(Node):
    what = ""
    sign = 1.0

    def backward(self, g):
        a, x = self._unpacked_saved
        if self.need_a:
            _not_implemented(self.what)
        gx = g * self.sign * ((a - 1) * x.log() - x - a.lgamma()).exp()
        return None, fit_grad(gx, self.b_meta)


class _ZetaNode(Node):
    def backward(self, g):
        x, q = self._unpacked_saved
        if self.need_a:
            _not_implemented("zeta")
        return None, fit_grad(g * -x * zeta(x + 1.0, q), self.b_meta)


def _classes(stem, base, **attrs):
    return {k: type(f"{stem}Backward{k}", (base,), {"__module__": base.__module__, **attrs}) for k in "012"}


_IGAMMA = _classes("Igamma", _IncompleteGammaNode, what="igamma: input", sign=1.0,
                   saved_fields=(("self", 0), ("other", 1)))
_IGAMMAC = _classes("Igammac", _IncompleteGammaNode, what="igammac: input", sign=-1.0)
_ZETA = _classes("SpecialZeta", _ZetaNode)


def _scipy_binary(fname, classes, input, other, int_error=None):
    if int_error is not None:
        dt = binary_operands(input, other)[2].dtype
        if dt not in FLOATING_NP:
            raise RuntimeError(f"\"{int_error}\" not implemented for '{legacy_name(dt)}'")
    ta, tb, a, b = _float_pair(input, other)
    fn = getattr(scipy_special(), fname)
    dt = np.result_type(a, b)
    with np.errstate(all="ignore"):
        out = as_array(fn(a.astype(np.float64), b.astype(np.float64))).astype(dt)
    return record(out, classes[_suffix(ta, tb)], **_binary_args(out, ta, tb, a, b))


@op(variants="function method inplace out", extra=("special.gammainc",), batch=pointwise)
def igamma(input: Tensor, other: Tensor) -> Tensor:
    """The regularised lower incomplete gamma function P(input, other) (tinytorch's own series and continued
    fraction, ``erf_gamma.gammainc_np``, in float64)."""
    require_tensors("igamma", input, other)
    ta, tb, ad, bd = _float_binary(input, other, "igamma_cpu", False)
    a, x = np.broadcast_arrays(as_array(ad, np.float64), as_array(bd, np.float64))
    out = gammainc_np(a, x).astype(ad.dtype)
    return record(out, _IGAMMA["0"], **_pair_args(input, other, out))


@op(variants="function method inplace out", batch=pointwise, extra=("special.gammaincc",))
def igammac(input: Tensor, other: Tensor) -> Tensor:
    """The regularized upper incomplete gamma function Q(input, other) = 1 - P."""
    require_tensors("igammac", input, other)
    return _scipy_binary("gammaincc", _IGAMMAC, input, other, "igammac_cpu")


@op("special.zeta", variants="function out", batch=pointwise)
def zeta(input, other) -> Tensor:
    """The Hurwitz zeta function sum_k (k + other)^-input."""
    return _scipy_binary("zeta", _ZETA, input, other)

# igamma (above) and mvlgamma (erf_gamma.py) run tinytorch's numpy-only kernels, which the distributions use
# without SciPy
