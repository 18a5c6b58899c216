"""In-place ops (``add_``, ``mul_``, ``zero_``, ...): PyTorch's leaf rules and version counters.

With no graph involved the op writes straight into the storage. When autograd is involved, the op
runs out of place on a copy of the old value and the result is written back: the tensor keeps its
storage, its history becomes the op's node (or, for a view, its base's becomes CopySlices around
that node: ``views.set_history``), the other views of the storage get their history regenerated,
and the version counter moves on, so any backward that saved the old value fails loudly instead of
computing a wrong gradient."""
from __future__ import annotations

import warnings

import numpy as np

from ... import _dtype_casts
from ..creation import factory
from ..._dtype import NARROW_NP
from ...autograd import forward_ad as _forward_ad
from ...autograd.grad_mode import _State, check_inference_inplace, version_counter
from ...autograd.node import Node
from ...tensor import Tensor, _new
from ..shape import views as _views
from .._core import overlap, registry as _registry
from .._core.record import inplace_node, record
from .._core.registry import _cast_check, op
from .._core.util import broadcast_shapes, unpack
from ...autograd.node import sum_to


def check_inplace(t: Tensor, grad_needed: bool | None = None) -> None:
    """PyTorch's refusals to modify (a view of) a leaf that requires grad, or a forbidden view, while
    recording; ``grad_needed`` (default: whether ``t`` requires grad) says whether autograd records."""
    check_inference_inplace(t)
    if not _State.enabled:
        return
    _views.check_inplace(t, t._requires_grad if grad_needed is None else grad_needed)


def _snapshot(self: Tensor) -> Tensor:
    """``self``'s current value and history, detached from its storage: the out-of-place op's input."""
    old = _new(Tensor)
    old._data = self._data.copy()
    old._vc = [0]
    old.grad_fn = self.grad_fn
    old._output_nr = self._output_nr
    old._requires_grad = self._requires_grad
    if self._base is not None and self.grad_fn is None:
        old._requires_grad = False  # a view without history has no edge (see Tensor._edge)
    if _State.fw_level is not None:
        old._fw_original_self = True  # (forward_ad reads it as PyTorch's in-place formulas read it: _primal)
    return old


def _on_copy(self: Tensor, old: Tensor, op, args, kwargs) -> Tensor:
    """The in-place op computed out of place on ``old``, ``self``'s copy from before the write (where its node
    keeps that value, a graph capture shows a clone of ``self``: ``fx/experimental/_graph_steps.py``)."""
    return op(old, *args, **kwargs)


def _check_overlap(self: Tensor, op, args) -> None:
    """PyTorch's check of an in-place op's tensor arguments against ``self`` (``_ops/_core/overlap.py``)."""
    rule = overlap.INPLACE.get(getattr(op, "__name__", None))
    if rule is None or rule == "partial":
        overlap.check(self._data, self._vc, args, False)
    elif rule == "any":
        overlap.check(self._data, self._vc, args, True)
    elif rule != "unchecked":
        rule(self, args)


# PyTorch writes these into an expanded tensor with a deprecation warning instead of refusing
_WARN_EXPANDED = {"masked_fill": "masked_fill_", "index_fill": "index_fill_"}


def apply_inplace(self: Tensor, op, *args, **kwargs) -> Tensor:
    """Run out-of-place ``op(self, *args)`` and store its result in ``self``'s storage."""
    check_inference_inplace(self)
    grad_needed = _State.enabled and (self._requires_grad or any(
        isinstance(a, Tensor) and a._requires_grad for a in args))
    if not grad_needed:
        if args:
            _check_overlap(self, op, args)
        res = op(self, *args, **kwargs)
        _write(self, res._data, op)
        if len(self._vc) > 1:
            _views.refresh(self._vc)
        return self
    # autograd's refusals (and the other inputs' edges, taken as the op records) come before the
    # kernel's overlap check, as in PyTorch; nothing is written until all of them passed
    _views.check_inplace(self, True)
    old = _snapshot(self)
    res = _on_copy(self, old, op, args, kwargs)
    if args:
        _check_overlap(self, op, args)
    fn = res.grad_fn
    _write(self, res._data, op)
    if fn is None:  # nothing differentiable after all (an integer result)
        if len(self._vc) > 1:
            _views.refresh(self._vc)
        return self
    _views.set_history(self, fn)
    _views.redirect_saved_output(fn, res, self)
    return self


def _write(self: Tensor, data: np.ndarray, op=None) -> None:
    out = self._data
    if data.dtype == out.dtype and data.shape == out.shape and out.flags.writeable:
        np.copyto(out, data)  # the common case: nothing to broadcast, cast, refuse or warn about
        version_counter(self)[0] += 1
        return
    if data.shape != out.shape:
        if np.broadcast_shapes(data.shape, out.shape) != out.shape:
            raise RuntimeError(f"output with shape [{', '.join(map(str, out.shape))}] doesn't match the broadcast "
                               f"shape [{', '.join(map(str, np.broadcast_shapes(data.shape, out.shape)))}]")
    _cast_check(data.dtype, out.dtype)
    name = _WARN_EXPANDED.get(getattr(op, "__name__", None))
    if name is not None and not out.flags.writeable and overlaps(out):
        warnings.warn(f"Use of {name} on expanded tensors is deprecated. Please clone() the tensor before performing "
                      "this operation. This also applies to advanced indexing e.g. tensor[mask] = scalar",
                      UserWarning, stacklevel=4)
    np.copyto(writeable(out, allow_overlap=name is not None), data, casting="unsafe")
    version_counter(self)[0] += 1


def overlaps(out: np.ndarray) -> bool:
    """Whether some element is reachable twice (an expanded dim): PyTorch's internal-overlap test."""
    return out.size > 1 and any(n > 1 and s == 0 for n, s in zip(out.shape, out.strides))


class _Interface:
    """An ``__array_interface__`` holder, keeping the array that owns the memory alive."""

    def __init__(self, interface: dict, base: np.ndarray) -> None:
        self.__array_interface__ = interface
        self.base = base


def _writeable_alias(out: np.ndarray):
    """A writeable array over ``out``'s elements when a writeable array owning that memory is found
    down its ``base`` chain (numpy will not lift the read-only flag of views of broadcast arrays)."""
    owner = out.base
    while owner is not None and not (isinstance(owner, np.ndarray) and owner.flags.writeable):
        owner = getattr(owner, "base", None)
    if owner is None:
        return None
    interface = dict(out.__array_interface__)
    interface["data"] = (interface["data"][0], False)
    return np.asarray(_Interface(interface, owner))


def writeable(out: np.ndarray, allow_overlap: bool = False) -> np.ndarray:
    """``out``, or a writeable alias of it: numpy marks every view of an expanded array read-only,
    PyTorch refuses only writes where elements overlap."""
    if out.flags.writeable:
        return out
    if not overlaps(out) or allow_overlap:
        alias = out.view()
        try:
            alias.flags.writeable = True
            return alias
        except ValueError:
            alias = _writeable_alias(out)
            if alias is not None:
                return alias
    raise RuntimeError("unsupported operation: more than one element of the written-to tensor refers to a "
                       "single memory location. Please clone() the tensor before performing the operation.")


# -- the ops ------------------------------------------------------------------------------------
class ZeroBackward0(Node):
    def backward(self, g):
        return (_zeros_like(g),)


class FillBackward2(ZeroBackward0):
    """fill_ with a number."""


def _zeros_like(g: Tensor) -> Tensor:
    return factory.zeros_like(g)


def _constant(self: Tensor, value, node_cls) -> Tensor:
    check_inference_inplace(self)
    tv, vd = unpack(value)
    if tv is not None and tv._data.ndim != 0:
        raise RuntimeError(f"fill_ only supports 0-dimension value tensor but got tensor with "
                           f"{tv._data.ndim} dimensions.")
    if tv is not None and tv._requires_grad and _State.enabled:
        return _copy(self, tv, FillBackward3)
    grad_needed = _State.enabled and self._requires_grad
    if grad_needed:
        _views.check_inplace(self, True)
    # PyTorch's fill_ with a number and zero_ write into expanded tensors too; a fill with a tensor
    # (setitem wraps its number in one) refuses
    if tv is None and node_cls is not ZeroBackward0:  # a number the dtype cannot hold: PyTorch's error
        vd = _dtype_casts.check_number(vd, self._data.dtype, lowp_checked=self._data.size != 1)
    if self._data.dtype in NARROW_NP:  # float8 / complex32: the value rounded as PyTorch's casts round it
        vd = _dtype_casts.convert(np.asarray(vd), self._data.dtype)
    elif tv is None and vd != vd and self._data.dtype == np.float16:  # a Python NaN: PyTorch's scalar code
        vd = _dtype_casts.canonical_half_nans(np.array(vd, np.float16))
    writeable(self._data, allow_overlap=tv is None and node_cls is not FillBackward3)[...] = vd
    version_counter(self)[0] += 1
    if grad_needed:
        if tv is not None and node_cls is FillBackward2:
            node_cls = FillBackward3
        # the node recorded on the filled values, which then become self's history (as apply_inplace's)
        if node_cls is FillBackward3:
            res = record(self._data, node_cls, (self, None), src_meta=None)
        else:
            res = record(self._data, node_cls, (self,))
        _views.set_history(self, res.grad_fn)
    elif len(self._vc) > 1:
        _views.refresh(self._vc)
    return self


_WRITES = "it writes into its argument in place"


@op(variants="function method", no_batch=_WRITES)
def zero_(self):
    """Fill with zeros in place."""
    return _constant(self, 0, ZeroBackward0)


@op(variants="function method", no_batch=_WRITES)
def fill_(self, value):
    """Fill with ``value`` (a number or a 0-d tensor) in place."""
    return _constant(self, value, FillBackward2)


def fill_value(self: Tensor, value) -> Tensor:
    """``self[...] = value`` for a Python number: PyTorch fills with it as a 0-d tensor (FillBackward3)."""
    return _constant(self, value, FillBackward3)


class CopyBackwards(Node):
    def backward(self, g):
        gsrc = None
        if self.src_meta is not None:
            shape, dt = self.src_meta
            gsrc = sum_to(g, shape) if g._data.shape != shape else g
            if gsrc._data.dtype != dt:
                gsrc = gsrc.to(dt)
        return _zeros_like(g), gsrc


class FillBackward3(CopyBackwards):
    """fill_ with a 0-d tensor: its gradient is the sum of the incoming one."""


@op(variants="method", no_batch=_WRITES, meta="cpu_args")
def copy_(self, src, non_blocking: bool = False):
    """Copy ``src``'s values into this tensor (broadcast and cast as needed); gradients flow to ``src``."""
    return _copy(self, src, CopyBackwards)


def _copy(self, src, node_cls):
    check_inference_inplace(self)
    ts, sd = unpack(src)
    grad_needed = _State.enabled and (self._requires_grad or (ts is not None and ts._requires_grad))
    if grad_needed:
        # autograd's refusals and edges first (a forbidden view as ``src`` raises there), then the
        # kernel's checks, as in PyTorch: nothing is written before all of them passed. The node
        # becomes self's history once written (as apply_inplace's)
        _views.check_inplace(self, True)
        fn = inplace_node(node_cls, (self, ts), src_meta=(ts._data.shape, ts._data.dtype)
                          if ts is not None and ts._requires_grad else None)
    overlap.check(self._data, self._vc, (ts,), False)
    sd = np.asarray(sd)
    full = broadcast_shapes(self._data.shape, sd.shape)  # PyTorch's text when they do not broadcast
    if full != self._data.shape:
        raise RuntimeError(f"output with shape [{', '.join(map(str, self._data.shape))}] doesn't match the "
                           f"broadcast shape [{', '.join(map(str, full))}]")
    if sd.dtype != self._data.dtype and (sd.dtype in NARROW_NP or self._data.dtype in NARROW_NP):
        sd = _dtype_casts.convert(sd, self._data.dtype)
    np.copyto(writeable(self._data), sd, casting="unsafe")
    version_counter(self)[0] += 1
    if grad_needed:
        _views.set_history(self, fn)
    elif len(self._vc) > 1:
        _views.refresh(self._vc)
    return self


def _copy_recorded(dst, src):
    """``dst.copy_(src)`` as autograd records it (CopyBackwards over ``dst`` and ``src``), written into a new tensor:
    ``dst`` keeps its values and history (forward AD's in-place formulas: autograd/forward_ad.py)."""
    out = np.array(np.broadcast_to(src._data, dst._data.shape), dtype=dst._data.dtype)
    return record(out, CopyBackwards, (dst, src), src_meta=(src._data.shape, src._data.dtype)
                  if src._requires_grad else None)


_forward_ad.bind_copy_recorded(_copy_recorded)
_registry.bind_inplace(apply_inplace, writeable)
