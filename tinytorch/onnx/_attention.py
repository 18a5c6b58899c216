"""ONNX nodes for ``F.multi_head_attention_forward`` (what ``nn.MultiheadAttention`` and the Transformer
layers call): the projections as MatMul/Add, the heads split by Reshape/Transpose, the scores by
MatMul, Softmax, and the heads merged back. Batch and sequence lengths stay dynamic (Reshape copies
them with 0); the inputs are sequence-first here (the module transposes batch-first inputs itself)."""
from __future__ import annotations

import math

import numpy as np
from ._errors import OnnxExporterError
from ._rule import export_rule
from ..tensor import Tensor


def _project(tr, x: str, weight: np.ndarray, bias) -> str:
    y = tr.node("MatMul", [x, tr.const(np.ascontiguousarray(weight.T), "onnx::MatMul")])
    return y if bias is None else tr.node("Add", [y, tr.const(bias, "onnx::Add")])


def _additive(tr, mask: Tensor, dtype) -> str:
    """A mask as PyTorch adds it to the scores: a bool mask is -inf where True."""
    m = tr.value(mask)
    if mask.is_floating_point():
        return m if mask.detach().numpy().dtype == dtype else tr.node("Cast", [m], to=tr.helper.np_dtype_to_tensor_dtype(dtype))
    return tr.node("Where", [m, tr.scalar(-np.inf, dtype), tr.scalar(0.0, dtype)])


def _heads(tr, x: str, num_heads: int, head_dim: int, perm) -> str:
    # (seq, batch, embed) -> (seq, batch, heads, head_dim) -> perm
    return tr.node("Transpose", [tr.node("Reshape", [x, tr.ints([0, 0, num_heads, head_dim])])], perm=perm)


@export_rule("F.multi_head_attention_forward")
def multi_head_attention_forward(tr, out, query, key, value, embed_dim_to_check, num_heads, in_proj_weight,
                                 in_proj_bias, bias_k, bias_v, add_zero_attn, dropout_p, out_proj_weight,
                                 out_proj_bias, training=True, key_padding_mask=None, need_weights=True,
                                 attn_mask=None, use_separate_proj_weight=False, q_proj_weight=None,
                                 k_proj_weight=None, v_proj_weight=None, static_k=None, static_v=None,
                                 average_attn_weights=True, is_causal=False):
    if bias_k is not None or bias_v is not None or add_zero_attn or static_k is not None or static_v is not None:
        raise OnnxExporterError("multi-head attention with bias_k/bias_v, add_zero_attn or static_k/static_v is "
                                "not supported by tinytorch.onnx.export")
    if training and dropout_p > 0:
        raise OnnxExporterError("attention dropout in training mode is random: export the model in eval mode")
    dtype = query.detach().numpy().dtype
    batched = query.dim() == 3
    embed = query.shape[-1]
    head_dim = embed // num_heads
    names = []
    for t in (query, key, value):
        v = tr.value(t)
        names.append(v if batched else tr.node("Unsqueeze", [v, tr.ints([1])]))

    def arr(t):
        return None if t is None else t.detach().numpy()

    bias = arr(in_proj_bias)
    biases = [None] * 3 if bias is None else np.split(bias, 3)
    if use_separate_proj_weight:
        weights = [arr(w) for w in (q_proj_weight, k_proj_weight, v_proj_weight)]
    else:
        weights = np.split(arr(in_proj_weight), 3)
    q, k, v = (_project(tr, x, w, b) for x, w, b in zip(names, weights, biases))
    q = tr.node("Mul", [_heads(tr, q, num_heads, head_dim, [1, 2, 0, 3]), tr.scalar(1 / math.sqrt(head_dim), dtype)])
    k = _heads(tr, k, num_heads, head_dim, [1, 2, 3, 0])   # (batch, heads, head_dim, src)
    v = _heads(tr, v, num_heads, head_dim, [1, 2, 0, 3])   # (batch, heads, src, head_dim)
    scores = tr.node("MatMul", [q, k])                     # (batch, heads, tgt, src)
    if attn_mask is not None:
        mask = _additive(tr, attn_mask, dtype)
        if attn_mask.dim() == 3:  # (batch * heads, tgt, src)
            mask = tr.node("Reshape", [mask, tr.ints([-1, num_heads, *attn_mask.shape[1:]])])
        scores = tr.node("Add", [scores, mask])
    if key_padding_mask is not None:  # (batch, src), or (src,) unbatched
        kpm = _additive(tr, key_padding_mask, dtype)
        scores = tr.node("Add", [scores, tr.node("Unsqueeze", [kpm, tr.ints([1, 2] if batched else [0, 1, 2])])])
    weights_name = tr.node("Softmax", [scores], axis=-1)
    heads = tr.node("MatMul", [weights_name, v])            # (batch, heads, tgt, head_dim)
    merged = tr.node("Reshape", [tr.node("Transpose", [heads], perm=[2, 0, 1, 3]), tr.ints([0, 0, embed])])
    result = _project(tr, merged, arr(out_proj_weight), arr(out_proj_bias))
    if not batched:
        result = tr.node("Squeeze", [result, tr.ints([1])])
    out_tensor, attn = out
    tr.bind(out_tensor, result)
    if attn is not None:
        w = weights_name
        if average_attn_weights:
            if tr.opset >= 18:
                w = tr.node("ReduceMean", [w, tr.ints([1])], keepdims=0)
            else:
                w = tr.node("ReduceMean", [w], axes=[1], keepdims=0)
        if not batched:
            w = tr.node("Squeeze", [w, tr.ints([0])])
        tr.bind(attn, w)
