"""scaled_dot_product_attention's CPU paths (``_ops/nn/attention.py`` holds the math: softmax(Q Kᵀ · scale + mask)
· V, its gradient the node's formula in tinytorch ops):

- the products as a batch of whole GEMMs across the pool, each on one BLAS thread (``parallel.matmul``);
- a large softmax's rows across threads (each row's max, exp and sum as the step's: the same floats);
- with ``[fast]``, the scores' row maxima in one compiled pass (the same maxima);
- PyTorch's CPU flash kernel where its dispatcher picks it: the forward's exponentials times V, then each row
  scaled by the reciprocal of its sum (row sums as BLAS products with a ones vector), and its gradient steps on
  the arrays with the forward's weights (``_kernels/flash_attention.py``) where no graph of the gradient is wanted.
  Another order than the math's, so a few ulps from the reference and closer to PyTorch's flash kernel."""
from __future__ import annotations

import numpy as np

from .._ops._core import paths
from .._ops._kernels import compiled as _compiled, flash_attention, parallel
from .._ops.nn import attention
from ..tensor import _make

_safe_softmax_reference = paths.reference_kernel(attention, "_safe_softmax")
_last_axis_max_reference = paths.reference_kernel(attention, "last_axis_max")

paths.kernel(attention, "_gemm", ulps=None, when="every product of the attention (a batch of them across threads)",
             why="speed: a batch of GEMMs across the pool; the same floats where a GEMM rounds alike on one BLAS "
             "thread and on several")(parallel.matmul)


@paths.kernel(attention, "last_axis_max", when="[fast] installed; C-contiguous float32/float64 scores of rows of 8 "
              "keys or more, no NaN among them", why="speed: the scores' row maxima in one compiled pass, eight "
              "running maxima a row (numpy's maximum.reduceat: about 3x the time on rows of 32 keys)")
def last_axis_max(s):
    if (type(s) is np.ndarray and s.ndim >= 2 and s.shape[-1] >= 8 and s.size and s.dtype in _compiled.FLOATS
            and s.flags.c_contiguous):
        fast = _compiled.family("reduce")
        if fast is not None:
            m = np.empty(s.shape[:-1] + (1,), s.dtype)
            if not fast.row_max_into(s.reshape(-1, s.shape[-1]), m.reshape(-1)):
                return m
    return _last_axis_max_reference(s)  # (a NaN among the scores: numpy's maximum, whose NaN it is)


@paths.kernel(attention, "_safe_softmax", when=f"C-contiguous scores of {parallel.SPLIT_FROM} elements or more, "
              "several threads", why="speed: rows across threads")
def safe_softmax(s, masked, m=None):
    if m is None and s.size >= parallel.SPLIT_FROM and s.ndim >= 2 and s.flags.c_contiguous and s.shape[-1]:
        out = parallel.slices(lambda part: _safe_softmax_reference(part, masked), s, (-1,), s.dtype)
        if out is not None:
            return out
    return _safe_softmax_reference(s, masked, m)


# the flash kernel's order sums and scales otherwise than the math: within these ulps of the reference's largest
# magnitude (outputs: weighted means of V; gradients: sums of products of the weights)
_FLASH_ULPS = 64

paths.kernel(attention, "_flash_forward", ulps=_FLASH_ULPS, scale="program",
             when="where PyTorch's dispatcher picks its CPU flash kernel (4-d inputs, no dropout under autograd), "
             "float32/float64 rows that attend to something",
             why="PyTorch's floats more often: its flash kernel's order")(flash_attention.softmax_matmul)


@paths.kernel(attention, "_grads_without_graph", ulps=_FLASH_ULPS, scale="program",
              when="no graph of the gradient wanted", why="speed: the flash kernel's gradient steps on the arrays, "
              "with the forward's weights (not recomputed), in its order")
def grads_without_graph(node, g, q, k, v, mask, need):
    """The gradients of (query, key, value, attn_mask) by the flash kernel's steps, the heads folded back as the
    formula folds them."""
    q, k, v = q._data, k._data, v._data
    if node.sums is not None:  # the flash forward's exponentials: normalised once, in place
        np.divide(node.probs, node.sums, out=node.probs)
        node.sums = None
    rep = node.rep
    need_m = len(need) > 3 and need[3]
    dq, dk, dv, ds = flash_attention.backward(g._data, q, attention._expand_heads(k, rep),
                                              attention._expand_heads(v, rep), node.probs, node.keep, node.scale,
                                              need[0], need[1], need[2])
    if dq is not None and dq.shape != q.shape:
        dq = attention._fold_heads(dq, 1, q.shape)
    dk = attention._fold_heads(dk, rep, k.shape) if need[1] else None
    dv = attention._fold_heads(dv, rep, v.shape) if need[2] else None
    dm = attention._fold_heads(ds, 1, mask._data.shape) if need_m else None
    out = [None if a is None else np.ascontiguousarray(a, dtype=q.dtype) for a in (dq, dk, dv, dm)]
    if dk is not None and attention.key_grad_transposed(node, q.shape, k.shape, need[0]):  # the formula's layout (the same values)
        out[1] = np.ascontiguousarray(dk.swapaxes(-1, -2), dtype=q.dtype).swapaxes(-1, -2)
    return tuple(None if a is None else _make(a) for a in out)
