"""``nn.functional.linear``: x W^T + b, one fused node for 2-d inputs as PyTorch records it
(``AddmmBackward0``, or ``MmBackward0`` without a bias, with W's ``TBackward0``). A contiguous input of
other rank is flattened to rows and the result viewed back, as PyTorch does (``ViewBackward0`` around
``AddmmBackward0``; ``UnsafeViewBackward0`` around ``MmBackward0`` without a bias), and a strided one
copied to rows when W requires grad, as PyTorch's matmul folds it: one 2-d GEMM for the forward and for
each gradient.

The product is ``_addmm``, one step on arrays; the backward is the node's formula (``addmm_grads``).
PyTorch's CPU paths for both (its GEMM calls, the formula on the saved arrays) are in
``tinytorch/_cpu/products.py``."""
from __future__ import annotations

import numpy as np

from ..._dtype import LOWP_NP
from ...autograd.forward_ad import _add_terms, _primal
from ...autograd.grad_mode import _Active, _State
from ...autograd.node import Node, elem_strides, hide_forward_only_edges
from ...tensor import Tensor, _make
from .._core.batching import at, level_of
from .._core.record import Edge, record
from .._core.registry import op
from .._core.util import holomorphic_backward
from ..._quiet_fp import cast, silent
from ..linalg.matmul import _check_dtypes, matmul
from ..linalg.products import addmm_dtypes
from ..shape.shape import TBackward0, UnsafeViewBackward0, reshape, view


def _batch_linear(op, input, weight, bias=None):
    """vmap: a batched input with shared parameters is one call (linear takes leading dims); a batched
    weight or bias goes through the batched matmul and add."""
    lead = level_of((input, weight, bias))
    if at(input, lead) and not at(weight, lead) and not at(bias, lead):
        return input._wrap(op(input._phys, weight, bias))
    out = matmul(input, weight.t())  # the public function: it dispatches a batched weight
    return out if bias is None else out + bias


def _sizes(i: int):
    """x's (0) or W.t()'s (1) sizes as PyTorch's addmm/mm node shows its operands'."""
    def get(node):
        shape = node.geo[3 * i]
        return tuple(shape) if i == 0 else (shape[1], shape[0])
    return get


def _strides(i: int):
    """x's (0) or W.t()'s (1) element strides, kept when the other operand needs a gradient."""
    def get(node):
        if not (node.need_x if i == 0 else node.need_w):
            return ()
        shape, strides, itemsize = node.geo[3 * i:3 * i + 3]
        st = elem_strides(shape, strides, itemsize)
        return st if i == 0 else (st[1], st[0])
    return get


_MAT2 = ("mat2", (1, lambda n: None, lambda w: w.t()))  # PyTorch's node keeps W.t(); the slot holds W


def addmm_grads(g, x, wt, need_b: bool, need_x: bool, need_w: bool, mm, t, sum_rows, mat2_first: bool = False,
                flip=None):
    """linear's gradients, written once: PyTorch's ``AddmmBackward0`` (``MmBackward0`` without a bias) of
    ``addmm(b, x, W.t())``, ``wt`` being W.t(). ``mm``/``t``/``sum_rows`` are tinytorch ops on tensors (the
    formula), ``_np_matmul``/``np.transpose``/a row sum on arrays (a CPU path, without a graph of the gradient).
    x's gradient is ``g @ wt.t()`` (``mm_mat1_backward``); W.t() is column-major, so its gradient is computed in
    W's own layout and transposed (``mm_mat2_backward``): ``(g.t() @ x).t()``, which W's TBackward0 flips back
    into a C-contiguous array the engine keeps as W.grad without a copy; the bias's is ``g``'s sum over rows.
    ``mat2_first``: MmBackward0's order (W.t()'s gradient before x's); AddmmBackward0's is x, W.t(), bias.
    ``flip`` (default ``t``) makes W.t()'s gradient of the W-shaped rows; the array path keeps the rows as they are
    and views them as a tensor's transpose itself (so that W.grad can take the rows' array without a copy)."""
    flip = t if flip is None else flip
    gwt = None
    if mat2_first and need_w:
        gwt = flip(mm(t(g), x))
    gx = mm(g, t(wt)) if need_x else None
    if not mat2_first and need_w:
        gwt = flip(mm(t(g), x))
    gb = sum_rows(g) if need_b else None
    return gb, gx, gwt


def _sum_rows(g: Tensor) -> Tensor:
    """The bias's gradient as PyTorch's addmm node sums it to the bias's shape: over rows, kept, then viewed."""
    return g.sum(0, keepdim=True).view(g._data.shape[1:])


class _LinearAddmm(Node):
    """linear(x, W, b) for 2-d x, as PyTorch records it: addmm(b, x, W.t()), one node."""
    saved_fields = (("alpha", lambda n: 1), ("beta", lambda n: 1), ("mat1", 0), _MAT2, ("mat1_sym_sizes", _sizes(0)),
                    ("mat1_sym_strides", _strides(0)), ("mat2_sym_sizes", _sizes(1)), ("mat2_sym_strides", _strides(1)))

    graph_wt = None  # W.t() as a graph capture names it (the forward's ``t`` node): what the formula reads there

    @holomorphic_backward
    def backward(self, g):
        x, w = self._unpacked_saved
        wt = self.graph_wt if self.graph_wt is not None else None if w is None else w.t()
        return addmm_grads(g, x, wt, self.need_b, self.need_x, self.need_w, Tensor.mm, Tensor.t, _sum_rows,
                           mat2_first=not self._has_bias)

    _has_bias = True  # addmm's self (linear's bias) is a term of the tangent; mm has none

    def jvp(self, tb, tx, twt):
        # PyTorch's addmm formula, (self_t + mat1_t.mm(mat2_p)) + mat1_p.mm(mat2_t), twt the tangent of W.t(). As its
        # generated code, a missing tangent is a zero tensor: the tangent then records history through a primal that
        # requires grad (a parameter made dual), read through PyTorch's _fw_primal node
        fw = self.__dict__.get("fw")
        if fw is None:  # recorded before the dual level: the terms that have tangents
            x, w = self._unpacked_saved
            return _add_terms(tb, None if tx is None else tx.mm(w.t()), None if twt is None else x.mm(twt))
        x, w = fw
        wt = w.t()
        xp, wtp = _primal(x), _primal(wt)
        if tb is None and self._has_bias:
            tb = x.new_zeros((w.shape[0],))
        second = (tx if tx is not None else x.new_zeros(tuple(x.shape))).mm(wtp)
        return _add_terms(tb, second, xp.mm(twt if twt is not None else x.new_zeros(tuple(wt.shape))))


_LinearAddmm.__name__ = _LinearAddmm.__qualname__ = "AddmmBackward0"


class _LinearNoBias(_LinearAddmm):
    _has_bias = False
    saved_fields = (_MAT2, ("mat2_sym_sizes", _sizes(1)), ("mat2_sym_strides", _strides(1)), ("self", 0),
                    ("self_sym_sizes", _sizes(0)), ("self_sym_strides", _strides(0)))

    def backward(self, g):
        return super().backward(g)[1:]

    def jvp(self, tx, twt):
        return super().jvp(None, tx, twt)


_LinearNoBias.__name__ = _LinearNoBias.__qualname__ = "MmBackward0"


@silent  # inf and NaN compute silently, as PyTorch's products do
def _addmm(x: np.ndarray, w: np.ndarray, b: np.ndarray | None) -> np.ndarray:
    """x @ w.T + b on arrays (2-d x and w, b 1-d or None): half and bfloat16 multiply, sum and add the bias
    in float32, rounded once, as PyTorch's CPU addmm does for them."""
    storage = x.dtype
    if storage in LOWP_NP:
        x, w = x.astype(np.float32), w.astype(np.float32)
    out = np.matmul(x, w.T)
    if b is not None:
        out += b  # in place: the product is a fresh array
    return cast(out, storage) if storage in LOWP_NP else out


@op(variants="functional", batch=_batch_linear, autocast="lower")
def linear(input: Tensor, weight: Tensor, bias: Tensor | None = None) -> Tensor:
    """input @ weight.T + bias; one fused node for 2-d inputs."""
    x, w = input._data, weight._data
    if x.ndim != 2 and w.ndim == 2 and x.flags.c_contiguous and (bias is None or bias._data.ndim == 1) and (
            x.ndim >= 3 or (x.ndim == 1 and bias is not None)):
        # PyTorch views a contiguous input as rows for one addmm (mm without a bias), the result viewed back
        rows = linear(view(input, -1, x.shape[-1]), weight, bias)
        shape = x.shape[:-1] + (w.shape[0],)
        if bias is not None:
            return view(rows, shape)
        return record(rows._data.reshape(shape), UnsafeViewBackward0, (rows,), in_shape=rows._data.shape)
    if x.ndim >= 3 and w.ndim == 2 and weight._requires_grad and (bias is None or bias._data.ndim == 1):
        # PyTorch's matmul folds a strided input into rows when W requires grad (a copy: UnsafeViewBackward0
        # <- CloneBackward0), runs one mm and adds the bias afterwards
        prod = linear(reshape(input, -1, x.shape[-1]), weight)
        shape = x.shape[:-1] + (w.shape[0],)
        out = record(prod._data.reshape(shape), UnsafeViewBackward0, (prod,), in_shape=prod._data.shape)
        return out if bias is None else out + bias
    if x.ndim != 2 or w.ndim != 2 or (bias is not None and bias._data.ndim != 1):
        out = matmul(input, weight.t())
        return out if bias is None else out + bias
    if x.shape[1] != w.shape[1]:
        raise RuntimeError(f"mat1 and mat2 shapes cannot be multiplied ({x.shape[0]}x{x.shape[1]} and "
                           f"{w.shape[1]}x{w.shape[0]})")
    if bias is not None:  # addmm's checks, in its order: the bias (self) against W, then x (mat1) against W
        addmm_dtypes(bias._data, x, w)
    elif x.dtype != w.dtype:
        _check_dtypes(x, w)  # mm's error
    out = _addmm(x, w, None if bias is None else bias._data)
    rg_x, rg_w = input._requires_grad, weight._requires_grad
    rg_b = bias is not None and bias._requires_grad
    if not (_State.enabled and (rg_x or rg_w or rg_b)):
        return _make(out)  # nothing recorded: the node's operands below are not even made
    # the node's second operand is W.t(): its edge leads through W's TBackward0, as in PyTorch's graph
    wt = Edge((TBackward0((weight._edge(),)), 0)) if rg_w else None
    fw = (input, weight) if _Active.fw and _State.fw_level is not None else None
    if fw is not None and wt is not None:  # (no tensor of its own notes it: shown None over a forward-only dual W)
        hide_forward_only_edges(wt.edge[0])
    cls, inputs = (_LinearNoBias, (input, wt)) if bias is None else (_LinearAddmm, (bias, input, wt))
    xd, wd = input._data, weight._data
    # geo: what PyTorch's node shows of its operands x and W.t(), sizes and strides (computed when asked)
    # in a dual level (fw) the tangent's formula reads both primals (PyTorch's, which records through them)
    return record(out, cls, inputs, (input if rg_w else None, weight if rg_x else None), need_x=rg_x, need_w=rg_w,
                  need_b=rg_b, geo=(xd.shape, xd.strides, xd.itemsize, wd.shape, wd.strides, wd.itemsize), fw=fw)
