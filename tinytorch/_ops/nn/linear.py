"""``nn.functional.linear``: x W^T + b, one fused node for 2-d inputs as PyTorch records it
(``AddmmBackward0``, or ``MmBackward0`` without a bias, with W's ``TBackward0``). A contiguous input of
other rank is flattened to rows and the result viewed back, as PyTorch does (``ViewBackward0`` around
``AddmmBackward0``; ``UnsafeViewBackward0`` around ``MmBackward0`` without a bias), and a strided one
copied to rows when W requires grad, as PyTorch's matmul folds it: one 2-d GEMM for the forward and for
each gradient.

The backward of the fused node runs its one formula (``addmm_grads``) on the saved arrays when no graph of
the gradient is wanted, and on tensors when one is (``create_graph=True``)."""
from __future__ import annotations

import numpy as np

from ..._dtype import FROM_NP, LOWP_NP, complex64, complex128
from ...autograd.grad_mode import _Active, _State
from ...autograd.node import elem_strides
from ...tensor import Tensor, _make
from ..._cpu.mkl_gemm import gemms
from .._kernels.parallel import matmul as _gemm
from .._core.batching import at, level_of
from .._core.record import Edge, record
from .._core.registry import op
from ..._quiet_fp import cast
from ..linalg.matmul import AddmmBackward0, _check_dtypes, _np_matmul, addmm_grads, matmul
from ..shape.shape import TBackward0, UnsafeViewBackward0, ViewBackward0, _unary_result, reshape, view


def _batch_linear(op, input, weight, bias=None):
    """vmap: a batched input with shared parameters is one call (linear takes leading dims); a batched
    weight or bias goes through the batched matmul and add."""
    lead = level_of((input, weight, bias))
    if at(input, lead) and not at(weight, lead) and not at(bias, lead):
        return input._wrap(op(input._phys, weight, bias))
    out = matmul(input, weight.t())  # the public function: it dispatches a batched weight
    return out if bias is None else out + bias


# gradients the array fast path leaves to the op formula: half/bfloat16 widen their products to float32
# there, and complex ones take conjugates (PyTorch's convention, ``holomorphic_backward``); one set test
_FORMULA_GRAD_NP = LOWP_NP | {complex64.np, complex128.np}


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


class _LinearAddmm(AddmmBackward0):
    saved_fields = (("alpha", lambda n: 1), ("beta", lambda n: 1), ("mat1", 0), _MAT2, ("mat1_sym_sizes", _sizes(0)),
                    ("mat1_sym_strides", _strides(0)), ("mat2_sym_sizes", _sizes(1)), ("mat2_sym_strides", _strides(1)))

    def backward(self, g):
        if _State.enabled or g._data.dtype in _FORMULA_GRAD_NP:
            return super().backward(g)
        x, w = self._unpacked_saved  # the formula on the arrays: the same products in the same order
        gb, gx, w_rows = addmm_grads(g._data, None if x is None else x._data, None if w is None else w._data,
                                     self.need_b, self.need_x, self.need_w, _np_matmul, np.transpose)
        return (None if gb is None else _make(gb), None if gx is None else _make(gx),
                None if w_rows is None else _make(w_rows).t())


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


@op(variants="functional", batch=_batch_linear, autocast="lower")
def linear(input: Tensor, weight: Tensor, bias: Tensor | None = None) -> Tensor:
    """input @ weight.T + bias; one fused node for 2-d inputs."""
    x, w = input._data, weight._data
    if x.ndim != 2 and w.ndim == 2 and x.flags.c_contiguous and (bias is None or bias._data.ndim == 1) and (
            x.ndim >= 3 or (x.ndim == 1 and bias is not None)):
        n_in = x.shape[-1]
        if n_in and not (_Active.transforms and _State.transforms):
            # view's own steps without its public layer (shape inference, transform dispatch): the input
            # is contiguous, so both reshapes are views (the same nodes, ~4 us less a call)
            rows = linear(_unary_result(input, x.reshape(-1, n_in), ViewBackward0, True, in_shape=x.shape),
                          weight, bias)
            if bias is not None:
                r = rows._data
                return _unary_result(rows, r.reshape(x.shape[:-1] + (w.shape[0],)), ViewBackward0, True,
                                     in_shape=r.shape)
        else:
            rows = linear(view(input, -1, n_in), weight, bias)
        shape = x.shape[:-1] + (w.shape[0],)
        if bias is not None:
            return view(rows, shape)
        return _unary_result(rows, rows._data.reshape(shape), UnsafeViewBackward0, False, in_shape=rows._data.shape)
    if x.ndim >= 3 and w.ndim == 2 and weight._requires_grad and (bias is None or bias._data.ndim == 1):
        # PyTorch's matmul folds a strided input into rows when W requires grad (a copy: UnsafeViewBackward0
        # <- CloneBackward0), runs one mm and adds the bias afterwards
        prod = linear(reshape(input, -1, x.shape[-1]), weight)
        shape = x.shape[:-1] + (w.shape[0],)
        out = _unary_result(prod, prod._data.reshape(shape), UnsafeViewBackward0, False, in_shape=prod._data.shape)
        return out if bias is None else out + bias
    if x.ndim != 2 or w.ndim != 2 or (bias is not None and bias._data.ndim != 1):
        out = matmul(input, weight.t())
        return out if bias is None else out + bias
    if x.shape[1] != w.shape[1]:
        raise RuntimeError(f"mat1 and mat2 shapes cannot be multiplied ({x.shape[0]}x{x.shape[1]} and "
                           f"{w.shape[1]}x{w.shape[0]})")
    _check_dtypes(x, w)
    if bias is not None and bias._data.dtype != x.dtype:
        raise RuntimeError(f"self and mat2 must have the same dtype, but got {FROM_NP[bias._data.dtype]._scalar} "
                           f"and {FROM_NP[x.dtype]._scalar}")
    storage = x.dtype
    lowp = storage in LOWP_NP
    if lowp:  # float32 products, sums and bias, rounded once (PyTorch's CPU addmm for half and bfloat16)
        x, w = x.astype(np.float32), w.astype(np.float32)
    mkl = None if lowp else gemms()
    if mkl is not None and x.dtype in mkl.FLOATS:  # PyTorch's addmm(b, x, W.t()): the bias added inside the GEMM
        out = mkl.mm(x, w.T) if bias is None else mkl.addmm(bias._data, x, w.T)
    else:
        if 2 < x.shape[0] <= 64 and w.shape[0] >= 128:
            # a few rows against a wide weight: OpenBLAS runs W @ x.T (then one small copy back to rows)
            # about 1.3-1.9x faster than x @ W.T at these sizes, with the same dot products
            out = _gemm(w, x.T).T.copy()
        else:
            out = _gemm(x, w.T)
        if bias is not None:
            out += bias._data  # in place: the product is a fresh array
    if lowp:
        out = cast(out, storage)
    rg_x, rg_w = input._requires_grad, weight._requires_grad
    rg_b = bias is not None and bias._requires_grad
    if not (_State.enabled and (rg_x or rg_w or rg_b)):
        return _make(out)  # nothing recorded: the node's operands below are not even made
    # the node's second operand is W.t(): its edge leads through W's TBackward0, as in PyTorch's graph
    wt = Edge((TBackward0((weight._edge(),)), 0)) if rg_w else None
    cls, inputs = (_LinearNoBias, (input, wt)) if bias is None else (_LinearAddmm, (bias, input, wt))
    xd, wd = input._data, weight._data
    # geo: what PyTorch's node shows of its operands x and W.t(), sizes and strides (computed when asked)
    # in a dual level the tangent's formula reads both primals (PyTorch's, which records through them)
    fw = (input, weight) if _Active.fw and _State.fw_level is not None else None
    return record(out, cls, inputs, (input if rg_w else None, weight if rg_x else None), need_x=rg_x, need_w=rg_w,
                  need_b=rg_b, geo=(xd.shape, xd.strides, xd.itemsize, wd.shape, wd.strides, wd.itemsize), fw=fw)
