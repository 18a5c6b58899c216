"""Quantized tensors: ``quint8`` / ``qint8`` / ``qint32`` values stored as integers with one scale and zero point
(PyTorch's ``per_tensor_affine`` scheme), made by ``quantize_per_tensor`` and read back by ``dequantize``,
``int_repr``, ``q_scale``, ``q_zero_point``.

A quantized tensor is a ``Tensor`` whose class routes every op through ``__torch_function__`` (as the sparse
tensors do): views and copies (``t``, ``view``, ``reshape``, indexing, ``clone``, ``detach``, ``contiguous``),
``cat`` of one quantizer, ``relu`` and ``equal`` run on the integers and keep the quantizer; any other op is refused
with PyTorch's "Could not run 'aten::X' with arguments from the 'QuantizedCPU' backend". Its ``_data`` is the
integer array. The arithmetic is fbgemm's (``fbgemm.py``)."""
from __future__ import annotations

import numpy as np

from .. import _dtype
from .._ops._core.torch_function import dispatch as _dispatch
from .._ops._core.util import warn_at_caller
from .._ops.sparse.tensor import not_implemented
from .._ops._core.members import _prepare_subclass
from .._ops._core.registry import bind_rule, declaration_of
from .._tensor.printing import _add_suffixes, tensor_body
from ..autograd.grad_mode import NO_VERSION, _State
from ..tensor import Tensor, _make, _new, register_attribute
from . import fbgemm as _fbgemm

__all__ = ["QuantizedTensor", "quantize_per_tensor", "dequantize", "make_quantized"]

_DEPRECATED = ("torch.quantize_per_tensor, torch.quantize_per_channel and other quantized tensor creation functions "
               "that produce tensors with dtype torch.quint8, torch.qint8, and torch.qint32 are deprecated and will "
               "be removed in a future PyTorch release. Please see https://github.com/pytorch/pytorch/issues/184982 "
               "for more information. (Triggered internally at /__w/pytorch/pytorch/aten/src/ATen/quantized/"
               "Quantizer.cpp:111.)")
_warned: list = []  # PyTorch's C++ warning is given once per process


class QuantizedTensor(Tensor):
    """A per-tensor affine quantized tensor: ``value = scale * (int - zero_point)``."""

    is_quantized = True
    _backend = "QuantizedCPU"

    @property
    def dtype(self) -> _dtype.dtype:
        return self._qdtype

    def q_scale(self) -> float:
        return self._scale

    def q_zero_point(self) -> int:
        return self._zero_point

    def qscheme(self):
        return _dtype.per_tensor_affine

    def int_repr(self) -> Tensor:
        """The stored integers, as a tensor of their integer dtype (a copy)."""
        return _make(self._data.copy())

    def dequantize(self) -> Tensor:
        return _make(_fbgemm.dequantize(self._data, self._scale, self._zero_point))

    def element_size(self) -> int:
        return self._data.itemsize

    def item(self) -> float:
        return float(_fbgemm.dequantize(self._data, self._scale, self._zero_point).item())

    def numpy(self, *, force: bool = False):
        raise TypeError(f"Got unsupported ScalarType {self._qdtype._scalar}")

    def tolist(self):
        raise RuntimeError("load_scalar: invalid type")

    def requires_grad_(self, requires_grad: bool = True):
        if requires_grad:
            raise RuntimeError("only Tensors of floating point dtype can require gradients")
        return self

    def __repr__(self, *, tensor_contents=None) -> str:
        prefix = "tensor("
        indent = len(prefix)
        values = _fbgemm.dequantize(self._data, self._scale, self._zero_point)
        body = "[]" if values.size == 0 else tensor_body(values, True, indent)
        suffixes = [f"size={tuple(self._data.shape)}", f"dtype={_dtype.SHOWN_AS[0]}.{self._qdtype.name}",
                    f"quantization_scheme={_dtype.SHOWN_AS[0]}.per_tensor_affine", f"scale={self._scale!r}",
                    f"zero_point={self._zero_point}"]
        return _add_suffixes(prefix + body, suffixes, indent)

    __str__ = __repr__

    @classmethod
    def __torch_function__(cls, func, types, args=(), kwargs=None):
        kwargs = kwargs or {}
        name = getattr(func, "__name__", str(func))
        rule = _rule_of(func, name)
        if rule is None:
            raise not_implemented(name, cls._backend)
        return rule(func, args, kwargs)


def make_quantized(ints: np.ndarray, qdtype, scale: float, zero_point: int) -> QuantizedTensor:
    """A quantized tensor holding ``ints`` (an array of ``qdtype``'s integer type)."""
    cls = QuantizedTensor
    if not cls.__dict__.get("_tinytorch_routed"):
        _prepare_subclass(cls)
    t = _new(cls)
    t._data, t._qdtype, t._scale, t._zero_point = ints, qdtype, float(scale), int(zero_point)
    t._vc = NO_VERSION if _State.inference else [0]
    return t


def _integers(t):
    """A quantized tensor's integers as a plain tensor sharing them (anything else as it is)."""
    if isinstance(t, QuantizedTensor):
        return _make(t._data)
    if isinstance(t, (list, tuple)):
        return type(t)(_integers(x) for x in t)
    return t


def _quantizer_of(args):
    for a in args:
        if isinstance(a, QuantizedTensor):
            return a
        if isinstance(a, (list, tuple)):
            found = _quantizer_of(a)
            if found is not None:
                return found
    return None


def _keep_quantizer(func, args, kwargs):
    """``func`` on the integers (views and copies, whose values are unchanged), the result quantized alike."""
    q = _quantizer_of(args)
    _dispatch.depth += 1
    try:
        out = func(*_integers(args), **kwargs)
    finally:
        _dispatch.depth -= 1
    return _rewrap(out, q)


def _rewrap(out, q):
    if isinstance(out, Tensor):
        return make_quantized(out._data, q._qdtype, q._scale, q._zero_point)
    if isinstance(out, (list, tuple)):
        return type(out)(_rewrap(o, q) for o in out)
    return out


def _cat(func, args, kwargs):
    tensors = args[0]
    first = tensors[0]
    for t in tensors:
        if not isinstance(t, QuantizedTensor) or (t._scale, t._zero_point, t._qdtype) != \
                (first._scale, first._zero_point, first._qdtype):
            raise NotImplementedError("tinytorch's quantized cat takes tensors of one scale, zero point and dtype")
    return _keep_quantizer(func, args, kwargs)


def _relu(func, args, kwargs):
    q = args[0]
    return make_quantized(np.maximum(q._data, q._data.dtype.type(q._zero_point)), q._qdtype, q._scale, q._zero_point)


def _equal(func, args, kwargs):
    a, b = args[0], args[1]
    return (isinstance(a, QuantizedTensor) and isinstance(b, QuantizedTensor) and a._qdtype is b._qdtype
            and (a._scale, a._zero_point) == (b._scale, b._zero_point) and np.array_equal(a._data, b._data))


def _on_integers(rule, *keys: str) -> None:
    """``rule(func, args, kwargs)`` runs the ops ``keys`` (``REGISTRY`` keys) on quantized tensors: kept on their
    declarations (``decl.rules["quantized"]``), where ``__torch_function__`` finds it for every spelling."""
    for key in keys:
        bind_rule("quantized", key, rule)


_on_integers(_keep_quantizer, "t", "transpose", "Tensor.view", "reshape", "Tensor.view_as", "Tensor.reshape_as",
             "permute", "squeeze", "unsqueeze", "flatten", "Tensor.getitem", "select", "narrow", "Tensor.expand",
             "Tensor.contiguous", "clone", "detach", "chunk", "split", "unbind")
_on_integers(_cat, "cat")
_on_integers(_relu, "relu")
_on_integers(_equal, "equal")
# the Tensor properties that reach __torch_function__ (no op declares them)
_ON_ATTRIBUTES = {"T": _keep_quantizer, "mT": _keep_quantizer, "data": _keep_quantizer}


def _rule_of(func, name: str):
    """The quantized rule of ``func`` (called as ``name``), or None."""
    rule = _ON_ATTRIBUTES.get(name)
    if rule is None:
        decl = declaration_of(func)
        rule = None if decl is None else decl.rules.get("quantized")
    return rule


def quantize_per_tensor(input, scale, zero_point, dtype) -> QuantizedTensor:
    """``input`` (float32) quantized with one ``scale`` and ``zero_point`` to ``dtype`` (quint8, qint8, qint32)."""
    if isinstance(input, (list, tuple)):  # the list overload: scales and zero points as tensors
        return [quantize_per_tensor(t, float(s), int(z), dtype) for t, s, z in zip(input, scale, zero_point)]
    if dtype not in _dtype.QUANTIZED:
        raise RuntimeError(f"Quantize only works for qint8, quint8 and qint32, got {dtype}")
    if input.dtype is not _dtype.float32:
        raise RuntimeError(f"Quantize only works on Float Tensor, got {input.dtype._scalar}")
    if isinstance(scale, Tensor):
        scale = scale.item()
    if isinstance(zero_point, Tensor):
        zero_point = zero_point.item()
    if not _warned:
        _warned.append(True)
        warn_at_caller(_DEPRECATED)
    ints = _fbgemm.quantize(input._data, float(scale), int(zero_point), dtype.np)
    return make_quantized(ints, dtype, scale, zero_point)


def dequantize(tensor):
    """The float32 values of a quantized tensor (a float tensor itself; a list: each)."""
    if isinstance(tensor, (list, tuple)):
        return [dequantize(t) for t in tensor]
    if isinstance(tensor, QuantizedTensor):
        return tensor.dequantize()
    return tensor


def _plain_dequantize(self: Tensor) -> Tensor:
    return self


def _refused(name: str):
    def method(self, *args, **kwargs):
        raise not_implemented(name, "CPU")
    method.__name__ = name
    return method


# the plain tensor's answers: dequantize() is itself, the quantizer's accessors have no CPU kernel
register_attribute("dequantize", _plain_dequantize)
for _name in ("int_repr", "q_scale", "q_zero_point", "qscheme"):
    register_attribute(_name, _refused(_name))
