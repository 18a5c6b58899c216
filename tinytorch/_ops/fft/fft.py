"""``torch.fft``: discrete Fourier transforms on numpy.fft, with PyTorch's dtypes and gradients.

Every transform is one of three primitives, as in PyTorch: complex-to-complex (``FftC2CBackward0``),
real-to-complex (``FftR2CBackward0``, optionally one-sided) and complex-to-real (``FftC2RBackward0``,
reading a one-sided half). Each takes a scaling (none, 1/sqrt(N), 1/N) rather than a ``norm`` word:
a real scale is its own adjoint, so each primitive's backward is the opposite-direction transform with
the same scaling (the c2r's doubling the half it did not see). Padding or trimming to ``n``/``s``, the
conjugations of hfft/ihfft and the casts are ordinary differentiable ops around the primitives.

numpy computes in double precision; results are cast to PyTorch's dtype (float32 -> complex64)."""
from __future__ import annotations

import math
from types import SimpleNamespace

import numpy as np

from ... import _dtype
from ..._quiet_fp import silent
from ...autograd.node import Node
from ...tensor import Tensor, _make, _wrap_dim
from .._core.record import record
from .._core.registry import op
from .._core.layout import arranged
from .._core.util import as_array
from ..._meta_array import MetaArray
from ..shape.join import cat

_FN = "function out"


# -- the three primitives ---------------------------------------------------------------------------
def _scale(out: np.ndarray, scaling: str, count: int) -> np.ndarray:
    if scaling == "sqrt":
        out *= 1 / math.sqrt(count) if count else 1.0
    elif scaling == "n":
        out *= 1 / count if count else 1.0
    return out


def _count(shape, dims) -> int:
    n = 1
    for d in dims:
        n *= shape[d]
    return n


_NORM = {"sqrt": 1, "n": 2}  # PyTorch's fft_norm_mode, as its nodes keep it (none: 0)
_DIM = ("dim", lambda n: tuple(n.dims))
_NORMALIZATION = ("normalization", lambda n: _NORM.get(n.scaling, 0))


class FftC2CBackward0(Node):
    saved_fields = (_DIM, ("forward", "forward"), _NORMALIZATION)

    def backward(self, g):
        return (_c2c(g, self.dims, self.scaling, not self.forward),)


class FftR2CBackward0(Node):
    saved_fields = (("self", 0), _DIM, _NORMALIZATION, ("onesided", "onesided"))

    def backward(self, g):
        if self.onesided:  # the half not returned was never looked at: zeros for it
            last = self.dims[-1]
            full = self.in_shape[last]
            g = _resize(g, last, full)
        return (_c2c(g, self.dims, self.scaling, False).real,)


class FftC2RBackward0(Node):
    saved_fields = (_DIM, _NORMALIZATION)

    def backward(self, g):
        gi = _r2c(g, self.dims, self.scaling, True)
        last = self.dims[-1]
        doubled = g._data.shape[last] - gi._data.shape[last]
        if doubled > 0:  # the bins standing for their mirrored twins count twice
            w = g.new_ones(gi._data.shape[last])  # (on g's device: a meta g, a meta w)
            w[1:1 + doubled] = 2
            half = gi._data
            gi = gi * w.reshape((-1,) + (1,) * (gi._data.ndim - 1 - last))
            if type(half) is MetaArray:  # PyTorch doubles them in place: the transform's layout stays
                gi._data = MetaArray(half.shape, half.dtype, half.strides, value=gi._data._value)
        return (gi,)


# -- the results' layout ------------------------------------------------------------------------------------
# PyTorch lays an FFT's result out as its plan makes it: C-contiguous in this order: the dims not transformed first
# (the batch), in the input's order of strides (largest first), then the transformed ones in the plan's order. Its
# CPU kernels (pocketfft) take every dim in one plan, ordered by the input's strides (a real transform's halved dim
# last; a c2r over several dims is a c2c over all but the last, then a c2r over the last on its result). Its meta
# kernels lay the result out as its cuFFT kernels do (a meta tensor has no device to say otherwise): one plan
# transforms up to three dims, more take several plans, each on the previous one's result; a c2r plan reads a
# C-contiguous copy of its input. numpy's results are C-ordered: a CPU result is copied into PyTorch's layout only
# where that differs (a transform over the last dim of a C-ordered input keeps numpy's).
_PLAN_DIMS = 3  # the most dims one cuFFT plan transforms


def _by_stride(a, dims) -> list:
    """``dims`` in ``a``'s order of strides, largest first (a stable sort: ties keep their order)."""
    return sorted(dims, key=lambda d: a.strides[d], reverse=True)


def _plan_strides(shape: tuple, a, dims) -> list:
    """The element strides of a result of ``shape`` that one plan over ``dims`` (in that order) on ``a`` makes."""
    batch = _by_stride(a, [d for d in range(len(shape)) if d not in dims])
    strides = [0] * len(shape)
    step = 1
    for d in reversed(dims):  # the signal: C-contiguous in the plan's order
        strides[d] = step
        step *= max(shape[d], 1)
    for d in reversed(batch):  # the batch: one collapsed dim, its parts counted as PyTorch counts them (0 stays 0)
        strides[d] = step
        step *= shape[d]
    return strides


def _planned(out: MetaArray, a, dims) -> MetaArray:
    """``out`` as one plan over ``dims`` (in that order) on ``a``'s layout makes it."""
    strides = [s * out.itemsize for s in _plan_strides(out.shape, a, dims)]
    return MetaArray(out.shape, out.dtype, value=out._value)._view(out.shape, strides)


def _one_plan(dims) -> bool:
    """Whether PyTorch transforms ``dims`` in one plan, in their given order (a real transform's, to or from)."""
    return len(dims) <= _PLAN_DIMS and not (len(dims) > 1 and dims[0] == 0 and dims[1] == 1)


def _staged(out: MetaArray, a, dims) -> MetaArray:
    """``out`` laid out by complex plans over ``dims`` on ``a``: each takes the remaining dims of smallest strides."""
    work, dims = a, list(dims)
    while dims:
        dims = _by_stride(work, dims)
        work, dims = _planned(out, work, dims[-_PLAN_DIMS:]), dims[:-_PLAN_DIMS]
    return work


def _cpu_layout(kind: str, out: np.ndarray, a: np.ndarray, dims) -> np.ndarray:
    """``out`` (numpy's C-ordered result) in PyTorch's CPU layout for a transform of ``a`` over ``dims``."""
    if out.ndim < 2 or out.size == 0 or not dims:
        return out
    dims = list(dims)
    if kind == "c2c":
        strides = _plan_strides(out.shape, a, _by_stride(a, dims))
    elif kind == "r2c":
        strides = _plan_strides(out.shape, a, _by_stride(a, dims[:-1]) + dims[-1:])
    else:  # c2r: the c2c over all but the last dim (its result of the input's shape), then the c2r on it
        work = a if len(dims) == 1 else SimpleNamespace(strides=_plan_strides(a.shape, a, _by_stride(a, dims[:-1])))
        strides = _plan_strides(out.shape, work, dims[-1:])
    return arranged(out, tuple(strides))


def _meta_layout(kind: str, out, a, dims):
    """``out`` with PyTorch's strides for a transform of ``a`` over ``dims``: its meta kernels' for a ``MetaArray``,
    its CPU kernels' for a numpy array (``_cpu_layout``)."""
    if type(out) is not MetaArray:
        return _cpu_layout(kind, out, a, dims)
    if kind == "c2c":
        return _staged(out, a, dims) if dims else MetaArray.like(a)
    if _one_plan(dims):  # a c2r plan reads a C-contiguous copy of its input
        return _planned(out, a if kind == "r2c" else MetaArray(a.shape, a.dtype), dims)
    if kind == "c2r":  # the complex dims first, then the last one to real
        return _planned(out, _staged(a, a, dims[:-1]), dims[-1:])
    # r2c: the last dim's one-sided half first, then the complex dims on it
    half = list(a.shape)
    half[dims[-1]] = half[dims[-1]] // 2 + 1
    half = MetaArray(half, out.dtype)
    work = _staged(half, _planned(half, a, dims[-1:]), dims[:-1])
    return work if work.shape == out.shape else out  # two-sided: the half copied into a C-contiguous result


# the three primitives' arrays: numpy's transforms and the scaling compute inf and NaN (an inf input makes
# inf - inf in the butterflies, inf * 0 in the scaling) as PyTorch's do, without its warnings
@silent
def _c2c_array(a: np.ndarray, dims: tuple, scaling: str, forward: bool) -> np.ndarray:
    out = np.fft.fftn(a, axes=dims) if forward else np.fft.ifftn(a, axes=dims, norm="forward")
    out = _scale(as_array(out), scaling, _count(a.shape, dims)).astype(a.dtype, copy=False)
    return _meta_layout("c2c", out, a, dims)


@silent
def _r2c_array(a: np.ndarray, dims: tuple, scaling: str, onesided: bool) -> np.ndarray:
    out = np.fft.rfftn(a, axes=dims) if onesided else np.fft.fftn(a, axes=dims)
    out = _scale(as_array(out), scaling, _count(a.shape, dims)).astype(_dtype.TO_COMPLEX[a.dtype], copy=False)
    return _meta_layout("r2c", out, a, dims)


@silent
def _c2r_array(a: np.ndarray, dims: tuple, scaling: str, last_size: int) -> np.ndarray:
    shape = [a.shape[d] for d in dims]
    shape[-1] = last_size
    out = np.fft.irfftn(a, s=shape, axes=dims, norm="forward")
    count = _count(a.shape, dims[:-1]) * last_size
    out = _scale(as_array(out), scaling, count).astype(_dtype.TO_REAL[a.dtype], copy=False)
    return _meta_layout("c2r", out, a, dims)


def _c2c(x: Tensor, dims: tuple, scaling: str, forward: bool) -> Tensor:
    out = _c2c_array(x._data, dims, scaling, forward)
    return record(out, FftC2CBackward0, (x,), dims=dims, scaling=scaling, forward=forward)


def _r2c(x: Tensor, dims: tuple, scaling: str, onesided: bool) -> Tensor:
    a = x._data
    out = _r2c_array(a, dims, scaling, onesided)
    # the input saved, as PyTorch's node keeps it
    return record(out, FftR2CBackward0, (x,), (x,), dims=dims, scaling=scaling, onesided=onesided, in_shape=a.shape)


def _c2r(x: Tensor, dims: tuple, scaling: str, last_size: int) -> Tensor:
    out = _c2r_array(x._data, dims, scaling, last_size)
    return record(out, FftC2RBackward0, (x,), dims=dims, scaling=scaling)


# -- argument handling ------------------------------------------------------------------------------
def _scaling(norm, forward: bool) -> str:
    """The scaling a transform in this direction applies under ``norm`` (PyTorch's fft_norm_mode)."""
    if norm is None or norm == "backward":
        return "none" if forward else "n"
    if norm == "forward":
        return "n" if forward else "none"
    if norm == "ortho":
        return "sqrt"
    raise RuntimeError(f'Invalid normalization mode: "{norm}"')


def _resize(x: Tensor, dim: int, n: int) -> Tensor:
    """``x`` trimmed or zero-padded to ``n`` along ``dim`` (differentiable)."""
    size = x._data.shape[dim]
    if size == n:
        return x
    if size > n:
        return x.narrow(dim, 0, n)
    shape = list(x._data.shape)
    shape[dim] = n - size
    return cat([x, x.new_zeros(shape)], dim)


# the floating dtypes PyTorch's CPU FFT refuses (its pocketfft / MKL kernels have no half-sized types)
_NO_FFT = _dtype.LOWP_NP | _dtype.NARROW_NP


def _floating(x: Tensor) -> Tensor:
    """Integer and bool inputs compute in the default float dtype; half-sized ones are refused."""
    if x._data.dtype in _NO_FFT:
        if x._data.dtype == _dtype.C32_NP:
            raise RuntimeError("MKL FFT doesn't support tensors of type: Half")
        raise RuntimeError(f"Unsupported dtype {x.dtype._scalar}")
    if x._data.dtype.kind in "biu":
        return x.to(_dtype.get_default_dtype())
    return x


def _complex(x: Tensor) -> Tensor:
    x = _floating(x)
    if x._data.dtype.kind == "c":
        return x
    return x.to(_dtype.FROM_NP[_dtype.TO_COMPLEX[x._data.dtype]])


def _check_n(n) -> None:
    if n is not None and n < 1:
        raise RuntimeError(f"Invalid number of data points ({n}) specified")


def _dims_and_sizes(x: Tensor, s, dim, default_all: bool = True):
    """PyTorch's canonical (dims, sizes) of an n-dimensional transform."""
    ndim = x._data.ndim
    if dim is not None:
        dims = [_wrap_dim(d, ndim) for d in ((dim,) if isinstance(dim, int) else dim)]
        if len(set(dims)) != len(dims):
            raise RuntimeError("FFT dims must be unique")
        if s is not None:
            if len(s) != len(dims):
                raise RuntimeError("When given, dim and shape arguments must have the same length")
    elif s is not None:
        if len(s) > ndim:
            raise RuntimeError(f"Got shape with {len(s)} values but input tensor only has {ndim} dimensions.")
        dims = list(range(ndim - len(s), ndim))
    else:
        dims = list(range(ndim))
    sizes = list(s) if s is not None else [x._data.shape[d] for d in dims]
    sizes = [x._data.shape[d] if n == -1 else n for d, n in zip(dims, sizes)]
    for n in sizes:
        _check_n(n)
    return tuple(dims), sizes


def _pad_all(x: Tensor, dims, sizes) -> Tensor:
    for d, n in zip(dims, sizes):
        x = _resize(x, d, n)
    return x


# -- the transforms, over n dimensions ----------------------------------------------------------------
def _fftn(x, s, dim, norm, forward: bool, one_dim: bool = False):
    # PyTorch's n-d transforms take a real signal as complex, before padding it (its gradient: the real part)
    x = _floating(x) if one_dim else _complex(x)
    dims, sizes = _dims_and_sizes(x, s, dim)
    x = _pad_all(x, dims, sizes)
    scaling = _scaling(norm, forward)
    if x._data.dtype.kind != "c":
        out = _r2c(x, dims, scaling, False)  # a real signal: PyTorch's r2c, two-sided
        return out if forward else out.conj()
    return _c2c(x, dims, scaling, forward)


def _rfftn(x, s, dim, norm, name: str, inverse_hermitian: bool = False):
    if x._data.dtype.kind == "c" or x._data.dtype == _dtype.C32_NP:
        if name == "rfftn":
            raise RuntimeError(f"rfftn expects a real-valued input tensor, but got {_legacy(x)}")
        if name == "ihfftn":
            raise RuntimeError(f"Only supports floating-point dtypes, but found: {_legacy(x)}")
        raise RuntimeError(f"{name} expects a real input tensor, but got {_legacy(x)}")
    x = _floating(x)
    dims, sizes = _dims_and_sizes(x, s, dim)
    x = _pad_all(x, dims, sizes)
    scaling = _scaling(norm, not inverse_hermitian)
    if not inverse_hermitian:
        return _r2c(x, dims, scaling, True)
    # conj(rfftn(x)) / N as PyTorch computes it: the one-sided last dim, then the inverse over the rest
    out = _r2c(x, dims[-1:], scaling, True).conj()
    return _c2c(out, dims[:-1], scaling, False) if len(dims) > 1 else out


def _legacy(x: Tensor) -> str:
    return x.dtype._scalar


def _irfftn(x, s, dim, norm, hermitian: bool = False):
    x = _complex(x)
    dims, sizes = _dims_and_sizes(x, s, dim)
    last = sizes[-1] if s is not None else 2 * (x._data.shape[dims[-1]] - 1)
    _check_n(last)
    half = list(sizes)
    half[-1] = last // 2 + 1
    x = _pad_all(x, dims, half)
    scaling = _scaling(norm, hermitian)
    if hermitian:
        # as PyTorch computes hfftn: the forward transform over all but the last dim, then the conjugate's c2r over
        # the last (the gradient then has the c2c's layout, as PyTorch's)
        if len(dims) > 1:
            x = _c2c(x, dims[:-1], scaling, True)
        return _c2r(x.conj(), dims[-1:], scaling, last)
    return _c2r(x, dims, scaling, last)


@op("fft.fft", _FN, batch=None, autocast="fp32")
def fft(input: Tensor, n=None, dim: int = -1, norm=None) -> Tensor:
    """The discrete Fourier transform along ``dim`` (padded or trimmed to ``n``)."""
    return _fftn(input, None if n is None else (n,), (dim,), norm, True, one_dim=True)


@op("fft.ifft", _FN, batch=None, autocast="fp32")
def ifft(input: Tensor, n=None, dim: int = -1, norm=None) -> Tensor:
    """The inverse discrete Fourier transform along ``dim``."""
    return _fftn(input, None if n is None else (n,), (dim,), norm, False, one_dim=True)


@op("fft.rfft", _FN, batch=None, autocast="fp32")
def rfft(input: Tensor, n=None, dim: int = -1, norm=None) -> Tensor:
    """The Fourier transform of a real signal: the n // 2 + 1 non-negative frequencies."""
    return _rfftn(input, None if n is None else (n,), (dim,), norm, "rfft")


@op("fft.irfft", _FN, batch=None, autocast="fp32")
def irfft(input: Tensor, n=None, dim: int = -1, norm=None) -> Tensor:
    """The inverse of ``rfft``: a real signal of length ``n`` (default 2 * (size - 1))."""
    return _irfftn(input, None if n is None else (n,), (dim,), norm)


@op("fft.hfft", _FN, batch=None, autocast="fp32")
def hfft(input: Tensor, n=None, dim: int = -1, norm=None) -> Tensor:
    """The Fourier transform of a Hermitian-symmetric signal given by its first half: a real result."""
    return _irfftn(input, None if n is None else (n,), (dim,), norm, hermitian=True)


@op("fft.ihfft", _FN, batch=None, autocast="fp32")
def ihfft(input: Tensor, n=None, dim: int = -1, norm=None) -> Tensor:
    """The inverse of ``hfft``: the one-sided inverse transform of a real signal."""
    return _rfftn(input, None if n is None else (n,), (dim,), norm, "ihfft", inverse_hermitian=True)


def _nd(name, impl, default_dim, doc, autocast=None):
    def transform(input: Tensor, s=None, dim=default_dim, norm=None) -> Tensor:
        return impl(input, s, dim, norm)
    transform.__name__ = transform.__qualname__ = name
    transform.__doc__ = doc
    return op(f"fft.{name}", _FN, batch=None, autocast=autocast)(transform)


_TWO = (-2, -1)
fft2 = _nd("fft2", lambda x, s, d, nm: _fftn(x, s, d, nm, True), _TWO, "The 2-d Fourier transform.",
            autocast="fp32")
ifft2 = _nd("ifft2", lambda x, s, d, nm: _fftn(x, s, d, nm, False), _TWO, "The 2-d inverse Fourier transform.",
             autocast="fp32")
rfft2 = _nd("rfft2", lambda x, s, d, nm: _rfftn(x, s, d, nm, "rfftn"), _TWO,
            "The 2-d Fourier transform of a real signal.", autocast="fp32")
irfft2 = _nd("irfft2", lambda x, s, d, nm: _irfftn(x, s, d, nm), _TWO, "The inverse of ``rfft2``.",
              autocast="fp32")
hfft2 = _nd("hfft2", lambda x, s, d, nm: _irfftn(x, s, d, nm, True), _TWO, "The 2-d ``hfft``.")
ihfft2 = _nd("ihfft2", lambda x, s, d, nm: _rfftn(x, s, d, nm, "ihfftn", True), _TWO, "The inverse of ``hfft2``.")
fftn = _nd("fftn", lambda x, s, d, nm: _fftn(x, s, d, nm, True), None, "The n-d Fourier transform.",
            autocast="fp32")
ifftn = _nd("ifftn", lambda x, s, d, nm: _fftn(x, s, d, nm, False), None, "The n-d inverse Fourier transform.",
             autocast="fp32")
rfftn = _nd("rfftn", lambda x, s, d, nm: _rfftn(x, s, d, nm, "rfftn"), None,
            "The n-d Fourier transform of a real signal.", autocast="fp32")
irfftn = _nd("irfftn", lambda x, s, d, nm: _irfftn(x, s, d, nm), None, "The inverse of ``rfftn``.",
              autocast="fp32")
hfftn = _nd("hfftn", lambda x, s, d, nm: _irfftn(x, s, d, nm, True), None, "The n-d ``hfft``.")
ihfftn = _nd("ihfftn", lambda x, s, d, nm: _rfftn(x, s, d, nm, "ihfftn", True), None, "The inverse of ``hfftn``.")


# -- frequencies and shifts -----------------------------------------------------------------------------
def _freq_tensor(values: np.ndarray, dtype, requires_grad: bool) -> Tensor:
    npd = _dtype.get_default_dtype().np if dtype is None else _dtype.to_np(dtype)
    t = _make(values.astype(npd))
    if requires_grad:
        t.requires_grad_(True)
    return t


@op("fft.fftfreq", _FN, no_batch="a factory")
def fftfreq(n: int, d: float = 1.0, *, dtype=None, layout=None, device=None, requires_grad: bool = False) -> Tensor:
    """The sample frequencies of an ``n``-point transform: [0, 1, ..., n//2 - 1, -n//2, ..., -1] / (d n)."""
    return _freq_tensor(np.fft.fftfreq(n, d), dtype, requires_grad)


@op("fft.rfftfreq", _FN, no_batch="a factory")
def rfftfreq(n: int, d: float = 1.0, *, dtype=None, layout=None, device=None, requires_grad: bool = False) -> Tensor:
    """The non-negative sample frequencies of an ``n``-point ``rfft``."""
    return _freq_tensor(np.fft.rfftfreq(n, d), dtype, requires_grad)


def _shift(input: Tensor, dim, sign: int) -> Tensor:
    ndim = input._data.ndim
    dims = list(range(ndim)) if dim is None else [_wrap_dim(d, ndim) for d in ((dim,) if isinstance(dim, int) else dim)]
    if not dims:
        return input
    # ifftshift rolls by (n + 1) // 2, PyTorch's spelling of -(n // 2) (its RollBackward0 keeps that shift)
    shifts = [(input._data.shape[d] // 2) if sign > 0 else (input._data.shape[d] + 1) // 2 for d in dims]
    return input.roll(shifts, dims)


@op("fft.fftshift", "function", batch=None)
def fftshift(input: Tensor, dim=None) -> Tensor:
    """Move the zero frequency to the centre (a roll by half of each size)."""
    return _shift(input, dim, 1)


@op("fft.ifftshift", "function", batch=None)
def ifftshift(input: Tensor, dim=None) -> Tensor:
    """The inverse of ``fftshift``."""
    return _shift(input, dim, -1)
