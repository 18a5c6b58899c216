"""Complex tensors: building them (``complex``, ``polar``, ``view_as_complex``), taking them apart
(``real``, ``imag``, ``view_as_real``, ``angle``, ``sgn``) and conjugating (``conj``, ``conj_physical``).

Gradients follow PyTorch's convention for complex numbers: a node receives ``g`` = the conjugate
Wirtinger derivative of the (real) loss with respect to its output, times 2, and returns the same for
its inputs. For a holomorphic f that is ``g * conj(f'(z))``, which is why nodes written for real
numbers (mul, div, matmul, the unary functions) conjugate around their real formula
(``_util.holomorphic_backward``); a real input of a complex result keeps the real part of its gradient
(``_util.fit_grad``)."""
from __future__ import annotations

import numpy as np

from ..._dtype import NARROW_NP
from ..._meta_array import MetaArray
from .._core import narrow_dtypes

from ... import _dtype
from ...autograd.node import Node
from ...tensor import Tensor, register_attribute
from .._core.batching import pointwise
from .._core.record import OUT, record
from .._core.registry import op
from .._core.util import as_array, fit_grad

_as_strided = np.lib.stride_tricks.as_strided


_C32 = _dtype.C32_NP
_COMPLEX = frozenset((np.dtype(np.complex64), np.dtype(np.complex128), _C32))
# the dtypes complex() and polar() take parts of (bfloat16 and the float8 dtypes refused, as PyTorch)
_PARTS = frozenset(np.dtype(t) for t in (np.float16, np.float32, np.float64))


def _legacy(t: Tensor) -> str:
    return t.dtype._scalar


# -- conjugation -------------------------------------------------------------------------------------
class ConjBackward0(Node):
    def backward(self, g):
        return (conj_physical(g),)

    def jvp(self, t):
        return conj_physical(t)


class ConjPhysicalBackward0(ConjBackward0):
    pass


def _conjugated(input: Tensor, node_cls) -> Tensor:
    x = input._data
    if x.dtype == _C32:  # complex32: the imaginary half negated
        out = x.copy()
        np.negative(out["imag"], out=out["imag"])
    else:
        out = np.conjugate(x)
    return record(out, node_cls, (input,))


@op(variants="function method inplace torch_inplace out", batch=pointwise)
def conj_physical(input: Tensor) -> Tensor:
    """The complex conjugate, computed (a real tensor is returned as is)."""
    if input._data.dtype not in _COMPLEX:
        return input
    return _conjugated(input, ConjPhysicalBackward0)


@op(variants="function method", batch=pointwise)
def conj(input: Tensor) -> Tensor:
    """The complex conjugate. PyTorch returns a lazily conjugated view; here it is a copy marked
    ``is_conj()`` (the values, dtype and gradient are the same; writes to it do not reach ``input``)."""
    if input._data.dtype not in _COMPLEX:
        return input
    x = input._data
    if type(x) is MetaArray:  # on the meta device, PyTorch's view: the input's strides
        out = record(MetaArray(x.shape, x.dtype, x.strides, value=np.conjugate(x)._value), ConjBackward0, (input,))
    else:
        out = _conjugated(input, ConjBackward0)
    out._is_conj = True
    return out


@op(variants="function method", batch=pointwise)
def resolve_conj(input: Tensor) -> Tensor:
    """A tensor whose conjugate bit is not set: a copy of a conjugated one, else ``input``."""
    if not getattr(input, "_is_conj", False):
        return input
    return input.clone()


@op(variants="function method", batch=pointwise)
def resolve_neg(input: Tensor) -> Tensor:
    """``input``: tinytorch has no lazily negated tensors."""
    return input


@op(variants="function method", no_batch="a predicate")
def is_conj(input: Tensor) -> bool:
    return bool(getattr(input, "_is_conj", False))


@op(variants="function method", no_batch="a predicate")
def is_neg(input: Tensor) -> bool:
    return False


@op(variants="function method", no_batch="a predicate")
def is_complex(input: Tensor) -> bool:
    return input._data.dtype in _COMPLEX


# -- real and imaginary parts (views) ----------------------------------------------------------------
class RealBackward0(Node):
    def backward(self, g):
        return (complex(g, g.new_zeros(())),)  # the upstream gradient is real: it lands on the real part

    def jvp(self, t):
        return real(t)


class ImagBackward0(Node):
    def backward(self, g):
        return (complex(g.new_zeros(()), g),)

    def jvp(self, t):
        return imag(t)


@op(variants="function method", batch=pointwise)  # Tensor.real is made a property below
def real(input: Tensor) -> Tensor:
    """The real part, a view sharing memory (``input`` itself when it is real)."""
    if input._data.dtype not in _COMPLEX:
        return input
    part = input._data.real if input._data.dtype != _C32 else input._data["real"]
    return record(part, RealBackward0, (input,), view_of=input)


@op(variants="function method", batch=pointwise)
def imag(input: Tensor) -> Tensor:
    """The imaginary part, a view sharing memory."""
    if input._data.dtype not in _COMPLEX:
        raise RuntimeError("imag is not implemented for tensors with non-complex dtypes.")
    part = input._data.imag if input._data.dtype != _C32 else input._data["imag"]
    return record(part, ImagBackward0, (input,), view_of=input)


def _get_real(self: Tensor) -> Tensor:
    return real(self)


def _get_imag(self: Tensor) -> Tensor:
    return imag(self)


def _copy_into(view: Tensor, value) -> None:
    if isinstance(value, Tensor):
        view.copy_(value)
    else:
        view.fill_(value)


register_attribute("real", property(_get_real, lambda self, value: _copy_into(real(self), value),
                                    doc="The real part: a view (the tensor itself when real); assigning writes it."))
register_attribute("imag", property(_get_imag, lambda self, value: _copy_into(imag(self), value),
                                    doc="The imaginary part: a view of a complex tensor; assigning writes it."))


class ViewAsRealBackward0(Node):
    def backward(self, g):
        return (view_as_complex(g.contiguous()),)

    def jvp(self, t):
        return view_as_real(t)


class ViewAsComplexBackward0(Node):
    def backward(self, g):
        return (view_as_real(g),)

    def jvp(self, t):
        return view_as_complex(t.contiguous())


@op(variants="function", batch=pointwise)
def view_as_real(input: Tensor) -> Tensor:
    """A real view of a complex tensor with a last dimension of 2 (real, imaginary)."""
    a = input._data
    if a.dtype not in _COMPLEX:
        raise RuntimeError("view_as_real is only supported for complex tensors")
    parts = a.real if a.dtype != _C32 else a["real"]  # a view with the same strides, in the real dtype
    out = _as_strided(parts, shape=a.shape + (2,), strides=a.strides + (parts.itemsize,))
    return record(out, ViewAsRealBackward0, (input,), view_of=input)


@op(variants="function", batch=None, autocast="fp32")
def view_as_complex(input: Tensor) -> Tensor:
    """A complex view of a real tensor whose last dimension holds (real, imaginary) pairs."""
    a = input._data
    if a.dtype not in _dtype.TO_COMPLEX or a.dtype.kind != "f":  # bfloat16 (kind "V") is refused here too
        raise RuntimeError("view_as_complex is only supported for half, float and double tensors, but got a tensor "
                           f"of scalar type: {_legacy(input)}")
    if a.ndim == 0 or a.shape[-1] != 2:
        raise RuntimeError("Tensor must have a last dimension of size 2")
    size = a.itemsize
    if a.strides[-1] != size:
        raise RuntimeError("Tensor must have a last dimension with stride 1")
    if any(s % (2 * size) for s, n in zip(a.strides[:-1], a.shape[:-1]) if n > 1):
        raise RuntimeError("Tensor must have a stride divisible by 2 for all but last dimension")
    out = a.view(_dtype.TO_COMPLEX[a.dtype])[..., 0]  # numpy pairs the contiguous last axis
    return record(out, ViewAsComplexBackward0, (input,), view_of=input)


# -- building complex tensors ------------------------------------------------------------------------
class ComplexBackward0(Node):
    saved_fields = (("real", 0), ("imag", 1))

    def backward(self, g):
        return fit_grad(real(g), self.a_meta), fit_grad(imag(g), self.b_meta)


class PolarBackward0(Node):
    """z = r e^{i theta}, PyTorch's polar_backward from the result alone: dL/dr = Re(conj(g) sgn(z)) (0
    where z is 0, the sign flipped for a negative r), dL/dtheta = Re(conj(g) i z)."""

    saved_fields = (("result", 0),)

    def backward(self, g):
        (z,) = self._unpacked_saved
        gc = conj_physical(g)
        gr = real(gc * sgn(z)) if self.needs_input_grad[0] else None
        gt = real(gc * z * 1j) if self.needs_input_grad[1] else None
        return fit_grad(gr, self.a_meta), fit_grad(gt, self.b_meta)


def _check_parts(name: str, a: Tensor, b: Tensor) -> None:
    for t in (a, b):
        if not isinstance(t, Tensor):
            raise TypeError(f"{name}(): argument '{'real' if t is a else 'imag'}' (position {1 if t is a else 2}) "
                            f"must be Tensor, not {type(t).__name__}")
    da, db = a._data.dtype, b._data.dtype
    if da not in _PARTS or db not in _PARTS:  # bfloat16's numpy kind is "V": refused, as PyTorch does
        raise RuntimeError(f"Expected both inputs to be Half, Float or Double tensors but got {_legacy(a)} and "
                           f"{_legacy(b)}")
    if da != db:
        raise RuntimeError(f"Expected object of scalar type {_legacy(a)} but got scalar type {_legacy(b)} for "
                           "second argument")


def _parts(a: Tensor, b: Tensor) -> dict:
    """What the node of a complex number built from parts ``a`` and ``b`` knows of them: the gradient
    comes back in the parts' (real) dtype, summed over broadcast dims."""
    return {"needs_input_grad": (a._requires_grad, b._requires_grad),
            "a_meta": (a._data.shape, a._data.dtype) if a._requires_grad else None,
            "b_meta": (b._data.shape, b._data.dtype) if b._requires_grad else None}


def _from_parts(re: np.ndarray, im: np.ndarray, real_dtype: np.dtype) -> np.ndarray:
    """The complex array with these (broadcast) parts, set directly: ``re + 1j * im`` would turn an
    infinite imaginary part into a NaN real part (1j * inf = nan + inf j)."""
    out = np.empty_like(re, shape=np.broadcast_shapes(re.shape, im.shape), dtype=_dtype.TO_COMPLEX[real_dtype],
                        order="C")  # (a meta re: a meta out, whose parts are written nowhere)
    if out.dtype == _C32:  # complex32 from two halves: its fields
        out["real"], out["imag"] = re, im
    else:
        out.real, out.imag = re, im
    return out


@op(variants="function out", batch=pointwise)
def complex(real: Tensor, imag: Tensor) -> Tensor:  # noqa: A001
    """real + i imag, elementwise (the parts broadcast; both of one floating dtype)."""
    _check_parts("complex", real, imag)
    out = _from_parts(real._data, imag._data, real._data.dtype)
    # the parts saved, as PyTorch's node keeps them
    return record(out, ComplexBackward0, (real, imag), (real, imag), **_parts(real, imag))


@op(variants="function out", batch=pointwise, autocast="fp32")
def polar(abs: Tensor, angle: Tensor) -> Tensor:  # noqa: A002
    """abs * (cos(angle) + i sin(angle))."""
    _check_parts("polar", abs, angle)
    r, theta = abs._data, angle._data
    if r.dtype == np.float16:  # complex() takes halves (complex32); PyTorch's polar kernel has none
        raise NotImplementedError("\"polar_cpu\" not implemented for 'Half'")
    with np.errstate(invalid="ignore"):  # inf * 0 is NaN, as in C++'s std::polar
        out = _from_parts(r * np.cos(theta), r * np.sin(theta), r.dtype)
    return record(out, PolarBackward0, (abs, angle), (OUT,), **_parts(abs, angle))


# -- angle and sgn -----------------------------------------------------------------------------------
class AngleBackward0(Node):
    saved_fields = (("self", 0),)

    def backward(self, g):
        (z,) = self._unpacked_saved
        if z._data.dtype.kind != "c":
            return (g * 0,)
        # d angle: i z / |z|^2 times the real upstream gradient; 0 at the origin, as PyTorch
        grad = g * z / (z.abs() ** 2) * 1j
        return (grad.masked_fill(z == 0, 0),)


def _angle(x: np.ndarray) -> np.ndarray:
    if x.dtype.kind in "biu":
        x = x.astype(_dtype.get_default_dtype().np)
    if x.dtype.kind == "c":
        return np.angle(x).astype(_dtype.TO_REAL[x.dtype], copy=False)
    # a real number's angle: pi for negatives, 0 otherwise, nan kept
    return np.where(x < 0, np.asarray(np.pi, x.dtype), np.where(np.isnan(x), x, 0)).astype(x.dtype, copy=False)


@op(variants="function method out", batch=pointwise)
def angle(input: Tensor) -> Tensor:
    """The argument of each element (atan2(imag, real)); for real numbers pi or 0."""
    if input._data.dtype in NARROW_NP:  # float8 / complex32: PyTorch's refusal (narrow_dtypes.py)
        narrow_dtypes.guard(input._data.dtype, "angle_cpu", "angle_cpu")
    return record(as_array(_angle(input._data)), AngleBackward0, (input,), (input,))


class SgnBackward0(Node):
    saved_fields = (("self", 0), ("result", 1))

    def backward(self, g):
        (z, s) = self._unpacked_saved
        if z._data.dtype.kind != "c":
            return (g * 0,)
        # s = z/|z| moves only along the circle: the gradient's component along s is dropped
        grad = (g - s * real(g * s.conj())) / z.abs()
        return (grad.masked_fill(z == 0, 0),)


def real_sign(x: np.ndarray) -> np.ndarray:
    """The sign of real numbers as PyTorch's ``(0 < x) - (x < 0)``: 0 at NaN, where numpy's is NaN (abs's,
    elu's gradients go through it: PyTorch's are 0 there)."""
    if x.dtype == np.bool_:
        return x.copy()
    out = as_array(np.sign(x))  # a 0-d array, not numpy's scalar, for copyto
    if x.dtype.kind == "f":
        np.copyto(out, 0, where=np.isnan(x))
    return out


def _sgn(x: np.ndarray) -> np.ndarray:
    if x.dtype.kind != "c":
        return real_sign(x)
    mag = np.abs(x)
    with np.errstate(invalid="ignore", divide="ignore"):
        return np.where(mag == 0, 0, x / np.where(mag == 0, 1, mag)).astype(x.dtype, copy=False)


@op(variants="function method inplace out", batch=pointwise)
def sgn(input: Tensor) -> Tensor:
    """z / |z| (0 at 0); the sign for real numbers."""
    x = input._data
    out = as_array(_sgn(x) if x.dtype not in NARROW_NP else narrow_dtypes.unary("sgn", x, "sign_cpu"))
    return record(out, SgnBackward0, (input,), (input, OUT))


__all__ = ["conj", "conj_physical", "resolve_conj", "resolve_neg", "is_conj", "is_neg", "is_complex", "real", "imag",
           "view_as_real", "view_as_complex", "complex", "polar", "angle", "sgn"]
