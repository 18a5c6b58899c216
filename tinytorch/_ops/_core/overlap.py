"""PyTorch's memory-overlap checks (ATen's MemoryOverlap.cpp) between a written-to tensor and its inputs.

``status`` is ``get_overlap_status``: "full" when both are the same tensor, or dense with the same elements in
the same layout; "partial" when dense and their memory intersects otherwise; None when apart, empty, or a layout
PyTorch does not judge (one of them not dense: it lets that run). Pointwise writes (``x.add_(y)``, ``out=`` of
most ops) refuse a partial overlap only (``assert_no_partial_overlap``: ``x.add_(x)`` is fine); index writes
(``index_put_`` and ``x[idx] = v``, ``index_add_``, ``scatter_``, ``put_``, ``out=`` of ``cat``, ``gather``...)
refuse any overlap (``assert_no_overlap``). Aliases of one storage share its version counter, so the common case
costs one identity test per argument."""
from __future__ import annotations

import numpy as np

from ...tensor import Tensor
from .layout import non_overlapping_and_dense

MESSAGE = ("unsupported operation: some elements of the input tensor and the written-to tensor refer to a single "
           "memory location. Please clone() the tensor before performing the operation.")

# what an op's writes refuse, as its declaration says (``op(overlap=...)``): "any" overlap with an input (index
# writes and joins: their kernels read while they write, so even the input itself as ``out``), a "partial" one
# only (TensorIterator's check: every elementwise op's out= and every in-place op by default), or nothing
RULES = ("any", "partial", "unchecked")
# an in-place op's rule where its declaration gives one: the op's function name -> a word of RULES, or
# ``rule(self, args)`` of its own; apply_inplace reads it by the name of the function it runs, which may be
# the declared implementation or the public function made from it
INPLACE: dict = {}


def out_rule(declared, elementwise: bool) -> bool | None:
    """How an op's out= is checked, from its declared rule: True (any overlap refused), False (a partial one),
    None (none). Undeclared: an elementwise op's is partial, another op's unchecked (reductions, products and
    most of the rest check nothing)."""
    if declared is None:
        return False if elementwise else None
    return {"any": True, "partial": False}.get(declared) if isinstance(declared, str) else None


def dense(a: np.ndarray) -> bool:
    """PyTorch's is_non_overlapping_and_dense for a numpy array: the elements tile one block of memory exactly."""
    return non_overlapping_and_dense(a.shape, a.strides, a.itemsize)


def status(out: np.ndarray, a: np.ndarray) -> str | None:
    """"full", "partial" or None: how array ``a`` overlaps array ``out`` (see the module's docstring)."""
    if a is out:
        return "full"
    if a.size == 0 or out.size == 0 or not np.may_share_memory(a, out) or not dense(out) or not dense(a):
        return None
    begin, a_begin = out.__array_interface__["data"][0], a.__array_interface__["data"][0]
    end, a_end = begin + out.nbytes, a_begin + a.nbytes
    if a_begin == begin and a_end == end:
        return "full" if a.strides == out.strides else "partial"
    return "partial" if a_begin < end and begin < a_end else None


def refuse(out: np.ndarray, a: np.ndarray, full: bool) -> None:
    """PyTorch's error if array ``a`` overlaps array ``out`` partly (or at all, when ``full``)."""
    found = status(out, a)
    if found == "partial" or (found == "full" and full):
        raise RuntimeError(MESSAGE)


def check(out: np.ndarray, vc, inputs, full: bool) -> None:
    """Refuse, with PyTorch's error, an input of ``inputs`` (tensors among other arguments; lists of tensors
    looked into) that overlaps ``out``, the array of a tensor with version counter ``vc``: partly, or also
    fully when ``full``."""
    for t in inputs:
        if type(t) is list or type(t) is tuple:
            check(out, vc, t, full)
            continue
        if isinstance(t, Tensor) and t._vc is vc:
            refuse(out, t._data, full)


def check_out(full: bool, out: Tensor, args, kwargs) -> None:
    """An ``out=`` write: PyTorch's check between ``out`` and the op's tensor arguments (``full``: see ``out_rule``)."""
    check(out._data, out._vc, args, full)
    if kwargs:
        check(out._data, out._vc, kwargs.values(), full)
