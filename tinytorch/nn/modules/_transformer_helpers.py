"""Helpers of ``transformer.py``: activation lookup, causal-mask detection and the nested-tensor check
of ``TransformerEncoder`` (whose eval-mode path packs padded batches and returns zeros at padding)."""
from __future__ import annotations

import copy

import numpy as np

from ...autograd.grad_mode import is_grad_enabled
from ..._ops.creation.factory import full
from ..._ops.shape.tri import triu
from .. import functional as F
from .container import ModuleList


def get_clones(module, n: int) -> ModuleList:
    """``n`` deep copies of ``module`` (the same initial parameters in every layer, as PyTorch)."""
    return ModuleList([copy.deepcopy(module) for _ in range(n)])


def get_activation_fn(activation: str):
    if activation == "relu":
        return F.relu
    if activation == "gelu":
        return F.gelu
    raise RuntimeError(f"activation should be relu/gelu, not {activation}")


def generate_square_subsequent_mask(sz: int, device=None, dtype=None):
    """(sz, sz) float mask: -inf above the diagonal, 0 on and below it."""
    return triu(full((sz, sz), float("-inf"), dtype=dtype, device=device), diagonal=1)


def get_seq_len(src, batch_first: bool):
    size = tuple(src.shape)
    if len(size) == 2:
        return size[0]
    return size[1 if batch_first else 0]


def detect_is_causal_mask(mask, is_causal=None, size=None) -> bool:
    """``is_causal`` when given, else whether ``mask`` equals the square subsequent mask of its size."""
    make_causal = is_causal is True
    if is_causal is None and mask is not None:
        sz = size if size is not None else mask.shape[-2]
        causal = generate_square_subsequent_mask(sz, dtype=mask.dtype)
        if tuple(mask.shape) == tuple(causal.shape):
            make_causal = bool(np.array_equal(mask._data, causal._data))
        else:
            make_causal = False
    return make_causal


def why_no_nested_tensor(encoder_layer, layer_type) -> str:
    """Why TransformerEncoder(enable_nested_tensor=True) cannot use nested tensors ('' when it can)."""
    name = "encoder_layer"
    if not isinstance(encoder_layer, layer_type):
        return f"{name} was not TransformerEncoderLayer"
    if encoder_layer.norm_first:
        return f"{name}.norm_first was True"
    if not encoder_layer.self_attn.batch_first:
        return f"{name}.self_attn.batch_first was not True(use batch_first for better inference performance)"
    if not encoder_layer.self_attn._qkv_same_embed_dim:
        return f"{name}.self_attn._qkv_same_embed_dim was not True"
    if encoder_layer.self_attn.in_proj_bias is None:
        return f"{name}.self_attn was passed bias=False"
    if not encoder_layer.activation_relu_or_gelu:
        return f"{name}.activation_relu_or_gelu was not True"
    if encoder_layer.norm1.eps != encoder_layer.norm2.eps:
        return f"{name}.norm1.eps was not equal to {name}.norm2.eps"
    if encoder_layer.self_attn.num_heads % 2 == 1:
        return f"{name}.self_attn.num_heads is odd"
    return ""


def _left_aligned(valid: np.ndarray) -> bool:
    """Each row's valid positions are a prefix of the row."""
    return bool(np.all(valid[:, 1:] <= valid[:, :-1])) if valid.shape[1] > 1 else True


def packs_nested(encoder, src, mask, src_key_padding_mask) -> bool:
    """Would PyTorch's TransformerEncoder pack ``src`` into a nested tensor (eval, padded, no mask, no
    gradient wanted)? Then its output is zero at the padded positions."""
    first = encoder.layers[0]
    if not getattr(encoder, "use_nested_tensor", False) or first.training or src.dim() != 3:
        return False
    if src_key_padding_mask is None or mask is not None:
        return False
    if getattr(encoder, "mask_check", True) and not _left_aligned(src_key_padding_mask._data == 0):
        return False
    attn, params = first.self_attn, []
    for t in (attn.in_proj_weight, attn.in_proj_bias, attn.out_proj.weight, attn.out_proj.bias, first.norm1.weight,
              first.norm1.bias, first.norm2.weight, first.norm2.bias, first.linear1.weight, first.linear1.bias,
              first.linear2.weight, first.linear2.bias):
        params.append(t)
    return not (is_grad_enabled() and any(t is not None and t.requires_grad for t in [src] + params))


def fast_path_dead_rows(layer, src, src_mask, src_key_padding_mask):
    """Where PyTorch's fused eval-mode encoder layer (``_transformer_encoder_layer_fwd``) gives NaN: the
    query positions whose merged mask hides every key. None when that path would not run, or no row is dead.

    Its conditions are PyTorch's: eval, batched, batch_first, packed projections with biases, ReLU/GELU,
    equal norm eps, an even head count, no hooks, and no gradient wanted."""
    attn = layer.self_attn
    if (layer.training or src.dim() != 3 or not attn.batch_first or attn.in_proj_bias is None
            or not attn._qkv_same_embed_dim or not layer.activation_relu_or_gelu or layer.norm1.eps != layer.norm2.eps
            or attn.num_heads % 2 == 1 or (src_mask is None and src_key_padding_mask is None)):
        return None
    if any(len(m._forward_hooks) + len(m._forward_pre_hooks) for m in layer.modules()):
        return None
    params = (src, attn.in_proj_weight, attn.in_proj_bias, attn.out_proj.weight, attn.out_proj.bias, layer.norm1.weight,
              layer.norm1.bias, layer.norm2.weight, layer.norm2.bias, layer.linear1.weight, layer.linear1.bias,
              layer.linear2.weight, layer.linear2.bias)
    if is_grad_enabled() and any(t is not None and t.requires_grad for t in params):
        return None
    n, length = src.shape[0], src.shape[1]
    merged = np.zeros((n, length, length))
    if src_mask is not None:
        merged = merged + np.broadcast_to(src_mask._data, (n,) + tuple(src_mask.shape[-2:]))
    if src_key_padding_mask is not None:
        merged = merged + src_key_padding_mask._data[:, None, :]
    dead = np.isneginf(merged).all(axis=-1)
    return dead if dead.any() else None
