"""Numerical integration and covariance: ``trapezoid`` (and its old name ``trapz``),
``cumulative_trapezoid``, ``cov`` and ``corrcoef``, written in tinytorch ops as PyTorch's own
composites are, so their gradients are those of the ops used."""
from __future__ import annotations

import warnings

import numpy as np

from ..._dtype import get_default_dtype
from ...tensor import Tensor, _wrap_dim
from .._core.batching import composite
from ..pointwise.complex import complex
from .._core.record import legacy_name
from .._core.registry import op
from ..shape.join import cat


def _spacing(y: Tensor, x, dx, d: int):
    """The widths between samples along ``d`` (a tensor shaped to broadcast) or a number."""
    if x is None:
        return 1 if dx is None else dx
    if not isinstance(x, Tensor):
        return x  # trapezoid(y, 0.5): a number is the spacing
    if x.dim() == 1:
        if x.shape[0] != y.shape[d]:
            raise RuntimeError("trapezoid: There must be one `x` value for each sample point")
        w = x[1:] - x[:-1]
        return w.reshape((-1,) + (1,) * (y.dim() - d - 1))
    w = x.narrow(d, 1, x.shape[d] - 1) - x.narrow(d, 0, x.shape[d] - 1)
    return w


def _pairs(y: Tensor, d: int) -> Tensor:
    n = y.shape[d]
    return y.narrow(d, 1, n - 1) + y.narrow(d, 0, n - 1)


@op(variants="function", batch=composite)
def trapezoid(y: Tensor, x=None, *, dx=None, dim: int = -1) -> Tensor:
    """The integral of ``y`` along ``dim`` by the trapezoid rule, at points ``x`` or spacing ``dx``."""
    d = _wrap_dim(dim, y.dim())
    if y.shape[d] == 0:
        return y.sum(d) * 0
    w = _spacing(y, x, dx, d)
    if not isinstance(w, Tensor):
        return _pairs(y, d).sum(d) * (w / 2)
    return (_pairs(y, d) * w).sum(d) / 2


@op(variants="function", batch=composite)
def trapz(y: Tensor, x=None, *, dx=None, dim: int = -1) -> Tensor:
    """``trapezoid``'s older name."""
    return trapezoid(y, x, dx=dx, dim=dim)


@op(variants="function", batch=composite)
def cumulative_trapezoid(y: Tensor, x=None, *, dx=None, dim: int = -1) -> Tensor:
    """The running trapezoid-rule integral of ``y`` along ``dim`` (one element shorter than ``y``)."""
    d = _wrap_dim(dim, y.dim())
    if y.shape[d] == 0:
        return y.narrow(d, 0, 0) * 1.0
    w = _spacing(y, x, dx, d)
    if not isinstance(w, Tensor):
        return (_pairs(y, d) * (w / 2)).cumsum(d)
    return (_pairs(y, d) * w / 2).cumsum(d)


@op(variants="function method", batch=composite, meta="data_dependent:equal")
def cov(input: Tensor, *, correction: int = 1, fweights: Tensor | None = None,
        aweights: Tensor | None = None) -> Tensor:
    """The covariance matrix of the variables in the rows of ``input`` (observations in columns),
    optionally weighted by frequency and importance weights."""
    if input.dim() > 2:
        raise RuntimeError(f"cov(): expected input to have two or fewer dimensions but got an input with "
                           f"{input.dim()} dimensions")
    x = input.reshape(1, -1) if input.dim() < 2 else input
    if not (x.is_floating_point() or x.is_complex()):
        x = x.to(get_default_dtype())
    n_obs = x.shape[1]
    w = None
    if fweights is not None:
        if fweights.dim() > 1:
            raise RuntimeError(f"cov(): expected fweights to have one or fewer dimensions but got fweights with "
                               f"{fweights.dim()} dimensions")
        if fweights.is_floating_point():
            raise RuntimeError(f"cov(): expected fweights to have integral dtype but got fweights with "
                               f"{legacy_name(fweights._data.dtype)} dtype")
        w = fweights
    if aweights is not None:
        if aweights.dim() > 1:
            raise RuntimeError(f"cov(): expected aweights to have one or fewer dimensions but got aweights with "
                               f"{aweights.dim()} dimensions")
        if not aweights.is_floating_point():
            raise RuntimeError(f"cov(): expected aweights to have floating point dtype but got aweights with "
                               f"{legacy_name(aweights._data.dtype)} dtype")
        w = aweights if w is None else w * aweights
    if w is None:
        avg = x.mean(1)
        w_sum = n_obs
        norm = w_sum - correction
    else:
        w_sum = w.sum()
        avg = (x * w).sum(1) / w_sum
        if correction == 0:
            norm = w_sum
        elif aweights is None:
            norm = w_sum - correction
        else:
            norm = w_sum - correction * (w * aweights).sum() / w_sum
    if (float(norm) if isinstance(norm, Tensor) else norm) <= 0:
        warnings.warn("cov(): degrees of freedom is <= 0. Correction should be strictly less than the number of "
                      "observations.", UserWarning, stacklevel=3)
        norm = norm * 0 if isinstance(norm, Tensor) else 0
    xc = x - avg.unsqueeze(1)
    c = xc.matmul((xc if w is None else xc * w).t().conj())  # complex variables: the Hermitian form
    with np.errstate(divide="ignore", invalid="ignore"):
        return (c / norm).squeeze()


@op(variants="function method", batch=composite, meta="data_dependent:equal")
def corrcoef(input: Tensor) -> Tensor:
    """Pearson's correlation coefficients of the variables in the rows of ``input``."""
    c = cov(input)
    if c.dim() == 0:
        return c / c
    d = c.diagonal()
    sd = (d.real if d.is_complex() else d).sqrt()
    c = c / sd.unsqueeze(1) / sd.unsqueeze(0)
    if c.is_complex():  # each part clipped to [-1, 1], as PyTorch does
        return complex(c.real.clamp(-1, 1), c.imag.clamp(-1, 1))
    return c.clamp(-1, 1)


def _gradient_along(f: Tensor, d: int, h, edge_order: int) -> Tensor:
    """The second-order central differences of ``f`` along ``d`` (one-sided at the ends, of order
    ``edge_order``), for a uniform spacing ``h`` or the coordinates ``h`` (a 1-d tensor)."""
    n = f.shape[d]

    def part(start, stop=None):  # f[start:stop] along d, negative ends counting from the end
        start = start + n if start < 0 else start
        stop = n if stop is None else (stop + n if stop < 0 else stop)
        return f.narrow(d, start, stop - start)

    if not isinstance(h, Tensor):
        center = (part(2) - part(0, -2)) / (2 * h)
        if edge_order == 1:
            first, last = (part(1, 2) - part(0, 1)) / h, (part(-1) - part(-2, -1)) / h
        else:
            first = (-1.5 * part(0, 1) + 2 * part(1, 2) - 0.5 * part(2, 3)) / h
            last = (0.5 * part(-3, -2) - 2 * part(-2, -1) + 1.5 * part(-1)) / h
        return cat([first, center, last], d)
    shape = (-1,) + (1,) * (f.dim() - d - 1)
    dx = h[1:] - h[:-1]
    dx1, dx2 = dx[:-1], dx[1:]
    a = (-dx2 / (dx1 * (dx1 + dx2))).reshape(shape)
    b = ((dx2 - dx1) / (dx1 * dx2)).reshape(shape)
    c = (dx1 / (dx2 * (dx1 + dx2))).reshape(shape)
    center = a * part(0, -2) + b * part(1, -1) + c * part(2)
    if edge_order == 1:
        first, last = (part(1, 2) - part(0, 1)) / dx[0], (part(-1) - part(-2, -1)) / dx[-1]
    else:
        a = -(2.0 * dx[0] + dx[1]) / (dx[0] * (dx[0] + dx[1]))
        b = (dx[0] + dx[1]) / (dx[0] * dx[1])
        c = -dx[0] / (dx[1] * (dx[0] + dx[1]))
        first = a * part(0, 1) + b * part(1, 2) + c * part(2, 3)
        a = dx[-1] / (dx[-2] * (dx[-1] + dx[-2]))
        b = -(dx[-1] + dx[-2]) / (dx[-1] * dx[-2])
        c = (2 * dx[-1] + dx[-2]) / (dx[-1] * (dx[-1] + dx[-2]))
        last = a * part(-3, -2) + b * part(-2, -1) + c * part(-1)
    return cat([first, center, last], d)


@op(variants="function", batch=composite)
def gradient(input: Tensor, *, spacing=1, dim=None, edge_order: int = 1):
    """The derivative of ``input`` sampled on a grid, estimated along each of ``dim`` by central
    differences: one tensor per dimension. ``spacing`` is one number, one per dimension, or the
    coordinates of the samples (1-d tensors)."""
    if edge_order not in (1, 2):
        raise RuntimeError("torch.gradient only supports edge_order=1 and edge_order=2.")
    if dim is None:
        dims = tuple(range(input.dim()))
    elif isinstance(dim, int):
        dims = (_wrap_dim(dim, input.dim()),)
    else:
        dims = tuple(_wrap_dim(d, input.dim()) for d in dim)
    if spacing is None:
        spacing = 1
    if isinstance(spacing, (list, tuple)):
        if len(spacing) != len(dims):
            raise RuntimeError(f"torch.gradient expected spacing to be unspecified, a scalar or it's spacing and "
                               f"dim arguments to have the same length, but got a spacing argument of length "
                               f"{len(spacing)} and a dim argument of length {len(dims)}.")
        steps = list(spacing)
    else:
        steps = [spacing] * len(dims)
    for d in dims:
        if input.shape[d] < edge_order + 1:
            raise RuntimeError("torch.gradient expected each dimension size to be at least edge_order+1")
    if not (input.is_floating_point() or input.is_complex()):
        input = input.to(get_default_dtype())
    return tuple(_gradient_along(input, d, h.item() if isinstance(h, Tensor) and h.dim() == 0 else h, edge_order)
                 for d, h in zip(dims, steps))
