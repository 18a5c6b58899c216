"""scaled_dot_product_attention: softmax(Q Kᵀ · scale + mask) · V as one graph node.

The forward is a few numpy GEMMs; the node's backward is the fused attention gradient, which recomputes the
attention weights from the saved tensors with tinytorch ops, so every term of the gradient is itself
differentiable and double backward works. PyTorch's CPU flash kernel (its forward's order, and its gradient
on the arrays with the forward's weights where no graph of the gradient is wanted) registers from
``tinytorch/_cpu/attention.py`` onto ``_flash_forward`` and ``_grads_without_graph``.

PyTorch's CPU build picks a kernel and the node is named after it: 4-d inputs of one head size, no
dropout under autograd and no mask that requires grad go to the flash kernel
(``ScaledDotProductFlashAttentionForCpuBackward0``); anything else runs the math composite, whose last
node is the matmul's (``UnsafeViewBackward0``, ``MmBackward0`` for 2-d inputs)."""
from __future__ import annotations

import math

import numpy as np

from ..._dtype import cpp_name
from ..._meta_array import MetaArray
from ..._quiet_fp import silent
from ..._random import draws as _draws
from ...autograd.grad_mode import _State, enable_grad, no_grad
from ...autograd.node import Node
from ...random import _engine
from ...tensor import Tensor, _make
from .._core.layout import arranged
from .._core.record import record
from .._core.registry import aten_only, op
from .._core.util import broadcast_shapes, last_axis_max
from ...autograd.node import sum_to

_MASKED = -np.inf
# the products, batched (``tinytorch/_cpu/attention.py`` binds the pool's: a batch of GEMMs across threads, each
# one whole GEMM on one BLAS thread)
_gemm = np.matmul


def _mT(a):
    return a.swapaxes(-1, -2)


@silent
def _safe_softmax(s: np.ndarray, masked: bool, m: np.ndarray | None = None) -> np.ndarray:
    """softmax over the last dim, with rows that mask out every key giving zeros (PyTorch's
    ``_safe_softmax``) instead of NaN. ``m``: the row maxima, when the caller has them; ``s`` may be
    overwritten."""
    if not s.shape[-1]:  # no keys: no weights (the maximum of an empty row is undefined)
        return s
    if m is None:
        m = last_axis_max(s)
    if not masked or np.isfinite(m).all():
        # no -inf anywhere, or every row's maximum finite (so every denominator >= 1): the plain softmax
        np.subtract(s, m, out=s)  # in place: a fresh (B, H, L, S) array costs about two passes over one
        e = np.exp(s, out=s)
        e /= e.sum(axis=-1, keepdims=True)
        return e
    m = np.where(np.isfinite(m), m, m.dtype.type(0))
    e = np.exp(s - m)
    den = e.sum(axis=-1, keepdims=True)
    with np.errstate(invalid="ignore", divide="ignore"):
        return np.where(den > 0, e / den, 0).astype(s.dtype, copy=False)


_BLAS_SUM = (np.dtype(np.float32), np.dtype(np.float64))


_CAUSAL_BIASES: dict = {}


def _causal_bias(L: int, S: int, dtype: np.dtype) -> np.ndarray:
    """is_causal's additive (L, S) mask (0 on and below the diagonal, -inf above), read-only, kept per
    shape and dtype: a training loop asks for the same one every step."""
    key = (L, S, dtype)
    bias = _CAUSAL_BIASES.get(key)
    if bias is None:
        if len(_CAUSAL_BIASES) > 32:
            _CAUSAL_BIASES.clear()
        bias = np.where(np.tril(np.ones((L, S), dtype=bool)), dtype.type(0), dtype.type(_MASKED))
        bias.flags.writeable = False
        _CAUSAL_BIASES[key] = bias
    return bias


def _expand_heads(a, rep: int):
    """Key/value heads repeated ``rep`` times along dim -3 (head i of the query uses head i // rep)."""
    if rep == 1:
        return a
    if isinstance(a, np.ndarray):
        return np.repeat(a, rep, axis=-3)
    shape = tuple(a.shape)
    wide = shape[:-3] + (shape[-3], rep) + shape[-2:]
    return a.unsqueeze(-3).expand(*wide).reshape(*(shape[:-3] + (shape[-3] * rep,) + shape[-2:]))


def _fold_heads(g, rep: int, shape: tuple):
    """The gradient of ``_expand_heads``: the repeats summed, then reduced to the input's shape."""
    if rep > 1:
        gs = tuple(g.shape)
        wide = gs[:-3] + (gs[-3] // rep, rep) + gs[-2:]
        g = g.reshape(wide).sum(-3) if isinstance(g, np.ndarray) else g.reshape(*wide).sum(-3)
    if isinstance(g, np.ndarray):
        lead = g.ndim - len(shape)
        axes = tuple(range(lead)) + tuple(i + lead for i, s in enumerate(shape) if s == 1 and g.shape[i + lead] != 1)
        return g.sum(axis=axes, keepdims=True).reshape(shape) if axes else g
    return sum_to(g, shape) if tuple(g.shape) != shape else g


class _AttentionBackward(Node):
    """d out / d (query, key, value, attn_mask) of out = dropout(softmax(s)) · V, s = Q Kᵀ · scale + mask."""

    def backward(self, g):
        q, k, v, mask = self._unpacked_saved
        need = [e[0] is not None for e in self.next_functions]
        if _State.enabled or type(g._data) is MetaArray:  # (a meta gradient: the formula's shapes, no kernel)
            grads = self._graph_backward(g, q, k, v, mask, need)
        else:
            grads = _grads_without_graph(self, g, q, k, v, mask, need)
        if type(self) is ScaledDotProductFlashAttentionForCpuBackward0:
            for t in grads[:3]:
                if t is not None:
                    t._data = arranged(t._data, _flash_grad_strides(t._data.shape))
        return grads

    sums = None  # set: ``probs`` holds the flash forward's exp(s - max), to be divided by these row sums

    def _release_extra(self) -> None:
        self.probs = self.keep = self.sums = None

    def _graph_backward(self, g, q, k, v, mask, need):
        rep, scale = self.rep, self.scale
        kr, vr = _expand_heads(k, rep), _expand_heads(v, rep)
        s = q.matmul(kr.mT) * scale
        if mask is not None:
            s = s + mask
        if self.bias is not None:  # (a constant: on meta scores, a meta one of its shape)
            s = s + _make(MetaArray.like(self.bias) if type(s._data) is MetaArray else self.bias)
        if self.dead is not None:  # rows that attend to nothing: finite scores, then zero weights
            dead = _make(self.dead)
            p = s.masked_fill(dead, 0.0).softmax(-1).masked_fill(dead, 0.0)
        else:
            p = s.softmax(-1)
        keep = None if self.keep is None else _make(self.keep)
        pd = p if keep is None else p * keep
        dv = _fold_heads(pd.mT.matmul(g), rep, tuple(v.shape)) if need[2] else None
        dp = g.matmul(vr.mT)
        if keep is not None:
            dp = dp * keep
        ds = p * (dp - (dp * p).sum(-1, keepdim=True))
        dq = _fold_heads(ds.matmul(kr) * scale, 1, tuple(q.shape)) if need[0] else None
        dk = None
        if need[1] and key_grad_transposed(self, tuple(q.shape), tuple(k.shape), need[0]):
            dk = _fold_heads((ds.mT.matmul(q) * scale).mT.contiguous(), 1, tuple(k.mT.shape)).mT  # (the values alike)
        elif need[1]:
            dk = _fold_heads(ds.mT.matmul(q) * scale, rep, tuple(k.shape))
        dm = _fold_heads(ds, 1, tuple(mask.shape)) if len(need) > 3 and need[3] else None
        return dq, dk, dv, dm


def _flash_grad_strides(shape: tuple) -> tuple:
    """The strides of the flash kernel's gradients of query, key and value, (B, H, L, E) each: PyTorch's CPU kernel
    allocates them as (B, L, H, E) and hands back their transpose (the layout of ``x.view(B, L, H, E).transpose(1,
    2)``, attention's usual input), whatever the inputs' and the gradient's layouts."""
    _, h, n, e = shape
    return (n * h * e, e, h * e, 1)


def key_grad_transposed(node: _AttentionBackward, q_shape: tuple, k_shape: tuple, q_grad: bool) -> bool:
    """Is K's gradient laid out as a transpose (each (S, E) matrix column-major)? PyTorch's math path multiplies
    Q by ``Kᵀ·scale``, a transposed view; where its matmul runs that as a bmm, the bmm's gradient of that operand
    is the contiguous (E, S) product, transposed back into K's shape. Where the matmul folds a 3-d batch of one
    into a matrix (K's; Q's when Q requires grad) it runs an mm instead, whose gradient keeps the column-major
    operand's layout: K's gradient is C-ordered, as it is for a 2-d K, for repeated heads and from the flash
    kernel."""
    if type(node) is not UnsafeViewBackward0 or node.rep != 1 or len(k_shape) < 3:
        return False
    if len(q_shape) == 3 == len(k_shape) and q_shape[0] != k_shape[0]:
        return not (k_shape[0] == 1 or q_grad)  # (one of the two batches is 1: they broadcast)
    return True


def _grads_without_graph(node: _AttentionBackward, g, q, k, v, mask, need) -> tuple:
    """The node's gradients where no graph of them is wanted: its formula, recorded nowhere.
    ``tinytorch/_cpu/attention.py`` binds the flash kernel's steps on the arrays, which reuse the forward's
    weights (``node.probs``) instead of recomputing them."""
    return node._graph_backward(g, q, k, v, mask, need)


ScaledDotProductFlashAttentionForCpuBackward0 = type("ScaledDotProductFlashAttentionForCpuBackward0",
                                                     (_AttentionBackward,), {})
# the last step of PyTorch's math path, matmul's unsafe view of its bmm's (batch, L, E) result
UnsafeViewBackward0 = type("UnsafeViewBackward0", (_AttentionBackward,), {"saved_fields": (
    ("self_sym_sizes", lambda n: (math.prod(n.out_shape[:-2]),) + tuple(n.out_shape[-2:])),)})
MmBackward0 = type("MmBackward0", (_AttentionBackward,), {})


def _check(q: np.ndarray, k: np.ndarray, v: np.ndarray, mask) -> None:
    if not (q.dtype == k.dtype == v.dtype):
        raise RuntimeError("Expected query, key, and value to have the same dtype, but got query.dtype: "
                           f"{cpp_name(q.dtype)} key.dtype: {cpp_name(k.dtype)} and value.dtype: {cpp_name(v.dtype)} "
                           "instead.")
    if mask is not None and mask._data.dtype != np.bool_ and mask._data.dtype != q.dtype:
        raise RuntimeError("Expected attn_mask dtype to be bool or float or to match query dtype, but got "
                           f"attn_mask.dtype: {cpp_name(mask._data.dtype)} and  query.dtype: {cpp_name(q.dtype)} "
                           "instead.")


def _flash_eligible(q, k, v, mask, dropout_p: float, grad: bool) -> bool:
    """Would PyTorch's CPU dispatcher pick the flash kernel for these arguments?"""
    if not (q.ndim == k.ndim == v.ndim == 4) or not (q.shape[-1] == k.shape[-1] == v.shape[-1]):
        return False
    if q.shape[0] != k.shape[0] or k.shape[:2] != v.shape[:2]:
        return False
    if mask is not None and grad and mask._requires_grad:
        return False
    return not (dropout_p > 0 and grad)


@op(variants="functional", autocast="lower")
def scaled_dot_product_attention(query: Tensor, key: Tensor, value: Tensor, attn_mask: Tensor | None = None,
                                 dropout_p: float = 0.0, is_causal: bool = False, scale: float | None = None,
                                 enable_gqa: bool = False) -> Tensor:
    """softmax(query keyᵀ · scale + attn_mask) · value; ``attn_mask`` bool (True = attend) or additive
    float, ``is_causal`` a lower-triangular mask, ``enable_gqa`` key/value heads shared by groups of
    query heads, ``dropout_p`` dropout on the attention weights (PyTorch's random stream)."""
    return _attention(query, key, value, attn_mask, dropout_p, is_causal, scale, enable_gqa)


@silent  # scores of inf and NaN (and a mask of -inf added to them) compute silently, as PyTorch's do
def _attention(query: Tensor, key: Tensor, value: Tensor, attn_mask, dropout_p: float, is_causal: bool, scale,
               enable_gqa: bool, lse_out: list | None = None) -> Tensor:
    """scaled_dot_product_attention; ``lse_out`` (a list) gets each row's log-sum-exp of the scores where the
    flash path ran (what PyTorch's flash kernel returns beside the output)."""
    q, k, v = query._data, key._data, value._data
    _check(q, k, v, attn_mask)
    if attn_mask is not None:  # PyTorch's error for a mask the scores (a) do not broadcast with (b)
        broadcast_shapes(q.shape[:-1] + k.shape[-2:-1], attn_mask._data.shape)
    grad = _State.enabled and (query._requires_grad or key._requires_grad or value._requires_grad
                               or (attn_mask is not None and attn_mask._requires_grad))
    flash = _flash_eligible(q, k, v, attn_mask, dropout_p, grad)
    if is_causal and attn_mask is not None and not flash:
        raise RuntimeError("_scaled_dot_product_attention: Explicit attn_mask should not be set when is_causal=True")
    rep = 1
    if enable_gqa and q.ndim >= 3 and k.shape[-3] != q.shape[-3]:
        hq, hk = q.shape[-3], k.shape[-3]
        if hk == 0 or hq % hk or v.shape[-3] != hk:
            raise RuntimeError("Number of heads in key and value must divide the number of heads in ")
        rep = hq // hk
    scale = 1.0 / math.sqrt(q.shape[-1]) if scale is None else float(scale)
    L, S = q.shape[-2], k.shape[-2]
    bias = None       # the additive mask from a bool mask and/or is_causal (a constant)
    float_mask = None  # a float attn_mask: added as is, and differentiated when it requires grad
    allowed = None
    if attn_mask is None and is_causal:
        bias = _causal_bias(L, S, q.dtype)
    else:
        if is_causal:
            allowed = np.tril(np.ones((L, S), dtype=bool))
        if attn_mask is not None:
            if attn_mask._data.dtype == np.bool_:
                allowed = attn_mask._data if allowed is None else (allowed & attn_mask._data)
            else:
                float_mask = attn_mask
        if allowed is not None:
            bias = np.where(allowed, q.dtype.type(0), q.dtype.type(_MASKED))
    kr, vr = _expand_heads(k, rep), _expand_heads(v, rep)
    if q.shape[:-2] != kr.shape[:-2]:
        broadcast_shapes(q.shape[:-2], kr.shape[:-2])  # PyTorch's error for heads that do not match
    s = _gemm(q, _mT(kr))
    s *= q.dtype.type(scale)
    if float_mask is not None:
        s = s + float_mask._data
    if bias is not None:
        if bias.ndim <= s.ndim and bias.shape == s.shape[s.ndim - bias.ndim:]:
            s += bias
        else:
            s = s + bias
    masked = float_mask is not None or bias is not None
    if type(s) is MetaArray:  # meta inputs: the result's shape and dtype (the kernels below fill real buffers)
        out = MetaArray(s.shape[:-1] + vr.shape[-1:], q.dtype)
        if not grad:
            return _make(out)
        return _recorded(query, key, value, float_mask, out, flash, rep, scale, bias, None, None,
                         MetaArray(s.shape, s.dtype), None)
    m = None
    dead = None
    if masked:
        if s.shape[-1]:
            # a row is dead (every key masked) exactly where its maximum is -inf
            m = last_axis_max(s)
            dead = m == _MASKED
        else:
            dead = np.isneginf(s).all(axis=-1, keepdims=True)
    if flash and dropout_p == 0 and s.dtype in _BLAS_SUM and s.shape[-1] and s.size:
        if m is None:
            m = last_axis_max(s)
        if not masked or np.isfinite(m).all():  # the rows _safe_softmax normalises without its dead-row case
            out, exps, sums = _flash_forward(s, m, vr, q)
            if lse_out is not None:
                lse_out.append((m + np.log(sums))[..., 0])
            if not grad:
                return _make(out)
            return _recorded(query, key, value, float_mask, out, flash, rep, scale, bias, None, None, exps, sums)
    p = _safe_softmax(s, masked, m)
    probs = p
    keep = None
    if dropout_p > 0:
        if dropout_p >= 1:
            keep = np.zeros(p.shape, dtype=q.dtype)
        else:
            # the math path's F.dropout on the weights: bernoulli_(1 - p) per element, / (1 - p)
            drawn = _draws.bernoulli_scalar(_engine(None), p.size, 1 - dropout_p).reshape(p.shape)
            keep = drawn.astype(q.dtype)
            keep /= q.dtype.type(1 - dropout_p)
        p = p * keep
    if flash and q.ndim == 4 and not q.flags.c_contiguous:
        # PyTorch's flash kernel allocates its output with the query's strides (MultiheadAttention's
        # permute of it is then contiguous, and its reshape a view)
        out = np.empty_like(q)
        np.copyto(out, _gemm(p, vr), casting="unsafe")
    else:
        out = np.ascontiguousarray(_gemm(p, vr), dtype=q.dtype)
    if not grad:
        return _make(out)
    return _recorded(query, key, value, float_mask, out, flash, rep, scale, bias, keep, dead, probs, None)


def _flash_forward(s: np.ndarray, m: np.ndarray, v: np.ndarray, q: np.ndarray) -> tuple:
    """The flash kernel's forward on rows whose maximum ``m`` is finite: (softmax(s) · v, the exponentials
    exp(s - m), their row sums); ``s`` is overwritten by the exponentials. Here in the math path's order (the
    weights normalised, then the product, as ``_safe_softmax`` and the GEMM below it); ``tinytorch/_cpu/attention.py``
    binds the kernel's (the exponentials times v, then each row scaled by its sum's reciprocal)."""
    e = np.exp(np.subtract(s, m, out=s), out=s)
    sums = e.sum(axis=-1, keepdims=True)
    ev = _gemm(e / sums, v)
    if q.ndim == 4 and not q.flags.c_contiguous:  # the kernel's output has the query's strides (see below)
        out = np.empty_like(q)
        np.copyto(out, ev, casting="unsafe")
        return out, e, sums
    return np.ascontiguousarray(ev, dtype=q.dtype), e, sums


def _recorded(query, key, value, float_mask, out, flash, rep, scale, bias, keep, dead, probs, sums) -> Tensor:
    """The output with its node, which keeps what its backward reuses of the forward; ``sums`` given:
    ``probs`` holds the unnormalised exponentials."""
    cls = ScaledDotProductFlashAttentionForCpuBackward0 if flash else (MmBackward0 if out.ndim == 2
                                                                        else UnsafeViewBackward0)
    inputs = (query, key, value) if float_mask is None else (query, key, value, float_mask)
    return record(out, cls, inputs, (query, key, value, float_mask), rep=rep, scale=scale, keep=keep, bias=bias,
                  probs=probs, sums=sums, out_shape=out.shape,
                  dead=np.broadcast_to(dead, probs.shape) if dead is not None and dead.any() else None)


# -- the flash path as PyTorch's CPU operators (what a graph capture records) ------------------------------
@aten_only("_scaled_dot_product_flash_attention_for_cpu")
def _flash_attention_for_cpu(query: Tensor, key: Tensor, value: Tensor, dropout_p: float = 0.0,
                             is_causal: bool = False, *, attn_mask: Tensor | None = None, scale=None) -> tuple:
    """``torch.ops.aten._scaled_dot_product_flash_attention_for_cpu``: (the attention, each row's log-sum-exp of
    the scores), where tinytorch's flash path runs (4-d float32/float64 inputs, no dropout, rows that attend to
    something)."""
    lse: list = []
    out = _attention(query, key, value, attn_mask, dropout_p, is_causal, scale, False, lse)
    if not lse:
        if type(out._data) is MetaArray:
            return out, _make(MetaArray(tuple(query.shape[:-1]), query._data.dtype))
        raise NotImplementedError("_scaled_dot_product_flash_attention_for_cpu: tinytorch computes it where its "
                                  "flash path runs (4-d float inputs, no dropout, every row attending)")
    return out, _make(np.ascontiguousarray(lse[0]))


@aten_only("_scaled_dot_product_flash_attention_for_cpu_backward", recorded=True)
def _flash_attention_for_cpu_backward(grad_out: Tensor, query: Tensor, key: Tensor, value: Tensor, out: Tensor,
                                      logsumexp: Tensor, dropout_p: float, is_causal: bool, *,
                                      attn_mask: Tensor | None = None, scale=None) -> tuple:
    """``torch.ops.aten._scaled_dot_product_flash_attention_for_cpu_backward``: the gradients of query, key and
    value. The forward runs again (as PyTorch's kernel recomputes its weights) and its node's array backward
    gives them, so the same floats as the forward's own node."""
    leaves = [t.detach().requires_grad_() for t in (query, key, value)]
    with enable_grad():
        again = _attention(*leaves, attn_mask, dropout_p, is_causal, scale, False)
    node = again.grad_fn
    if type(node) is not ScaledDotProductFlashAttentionForCpuBackward0 or node.keep is not None or node.rep != 1:
        raise NotImplementedError("_scaled_dot_product_flash_attention_for_cpu_backward: tinytorch computes it where "
                                  "its flash path runs")
    with no_grad():
        grads = _grads_without_graph(node, grad_out, query, key, value, attn_mask, [True] * 3)
    return grads[:3]


# -- PyTorch's CUDA attention kernels: ATen operators with no CPU kernel ------------------------------------
def _no_cpu_kernel(name: str) -> NotImplementedError:
    from ..sparse.tensor import not_implemented
    return not_implemented(name, "CPU")


@aten_only("_flash_attention_forward")
def _flash_attention_forward(query, key, value, cum_seq_q, cum_seq_k, max_q, max_k, dropout_p, is_causal,
                             return_debug_mask, *args, **kwargs):
    """FlashAttention's forward (CUDA only): refused on CPU tensors, as PyTorch's dispatcher refuses it."""
    raise _no_cpu_kernel("_flash_attention_forward")


@aten_only("_efficient_attention_forward")
def _efficient_attention_forward(query, key, value, bias, cu_seqlens_q, cu_seqlens_k, max_seqlen_q, max_seqlen_k,
                                 dropout_p, custom_mask_type, compute_log_sumexp=False, *, scale=None,
                                 seqlen_k=None, window_size=None):
    """The memory-efficient attention forward (CUDA only): refused on CPU tensors, as PyTorch's dispatcher
    refuses it."""
    raise _no_cpu_kernel("_efficient_attention_forward")
