"""F.multi_head_attention_forward: the computation of ``nn.MultiheadAttention``, PyTorch's steps in order.

Inputs are sequence-first, ``(L, N, E)`` (or unbatched ``(L, E)``). The query, key and value are
projected (one packed weight or three), ``bias_k``/``bias_v`` and a zero key/value may be appended,
masks are made additive float masks (bool True = masked out, the opposite of
``scaled_dot_product_attention``'s bool masks), then either the weights are computed explicitly
(``need_weights``: softmax(Q Kᵀ/√d + mask), returned averaged over heads or per head) or the whole
attention goes to ``scaled_dot_product_attention``."""
from __future__ import annotations

import math
import warnings
import weakref

import numpy as np

from ... import _dtype
from ...autograd.grad_mode import _State
from ...tensor import Tensor, _make
from .._core.registry import op
from ..creation.factory import zeros
from ..index.index import _SELECT
from ..shape.join import cat
from ..index.masked import masked_fill
from ..reduce.softmax import softmax
from .attention import scaled_dot_product_attention
from .dropout import dropout
from .linear import linear
from .pad import pad

# nn.functional's own spellings of softmax and dropout (signatures of their own), which PyTorch's code calls here
_f_softmax = softmax._decl.functional
_f_dropout = dropout._decl.functional


def _size(shape) -> str:
    return "torch.Size([" + ", ".join(str(s) for s in shape) + "])"


def canonical_mask(mask, mask_name: str, other_type, other_name: str, target_type, check_other: bool = True):
    """A bool mask as an additive float mask of ``target_type`` (-inf where True); float masks as they are."""
    if mask is None:
        return None
    is_float = mask.is_floating_point()
    if mask.dtype is not _dtype.bool_ and not is_float:
        raise AssertionError(f"only bool and floating types of {mask_name} are supported")
    if check_other and other_type is not None and mask.dtype != other_type:
        warnings.warn(f"Support for mismatched {mask_name} and {other_name} is deprecated. Use same type for both "
                      "instead.", stacklevel=3)
    if not is_float:
        # the public op, so that an ONNX export records the mask it is given (Where) rather than its value
        mask = masked_fill(zeros(tuple(mask.shape), dtype=target_type), mask, float("-inf"))
    return mask


def _shape_check(query, key, value, key_padding_mask, attn_mask, num_heads: int) -> bool:
    """Whether the inputs are batched; PyTorch's AssertionErrors for inconsistent ranks."""
    if query.dim() == 3:
        if key.dim() != 3 or value.dim() != 3:
            raise AssertionError("For batched (3-D) `query`, expected `key` and `value` to be 3-D but found "
                                 f"{key.dim()}-D and {value.dim()}-D tensors respectively")
        if key_padding_mask is not None and key_padding_mask.dim() != 2:
            raise AssertionError("For batched (3-D) `query`, expected `key_padding_mask` to be `None` or 2-D but "
                                 f"found {key_padding_mask.dim()}-D tensor instead")
        if attn_mask is not None and attn_mask.dim() not in (2, 3):
            raise AssertionError("For batched (3-D) `query`, expected `attn_mask` to be `None`, 2-D or 3-D but "
                                 f"found {attn_mask.dim()}-D tensor instead")
        return True
    if query.dim() == 2:
        if key.dim() != 2 or value.dim() != 2:
            raise AssertionError("For unbatched (2-D) `query`, expected `key` and `value` to be 2-D but found "
                                 f"{key.dim()}-D and {value.dim()}-D tensors respectively")
        if key_padding_mask is not None and key_padding_mask.dim() != 1:
            raise AssertionError("For unbatched (2-D) `query`, expected `key_padding_mask` to be `None` or 1-D but "
                                 f"found {key_padding_mask.dim()}-D tensor instead")
        if attn_mask is not None:
            if attn_mask.dim() not in (2, 3):
                raise AssertionError("For unbatched (2-D) `query`, expected `attn_mask` to be `None`, 2-D or 3-D "
                                     f"but found {attn_mask.dim()}-D tensor instead")
            expected = (num_heads, query.shape[0], key.shape[0])
            if attn_mask.dim() == 3 and tuple(attn_mask.shape) != expected:
                raise AssertionError(f"Expected `attn_mask` shape to be {expected} but got {_size(attn_mask.shape)}")
        return False
    raise AssertionError(f"query should be unbatched 2D or batched 3D tensor but received {query.dim()}-D query "
                         "tensor")


class _PackedSplit:
    """What the three selects of one packed projection share during a backward: the gradient array of
    the projection they are filling (weakly: the engine holds it until the projection's node runs),
    and which of them have written their slice into it."""

    __slots__ = ("held", "filled")

    def __init__(self) -> None:
        self.held = None
        self.filled = [False, False, False]


class _PackedSelectBackward(_SELECT):
    """``proj[i]`` of the packed (3, L, N, E) projection: PyTorch's SelectBackward0, whose gradient is
    zeros with ``g`` at slot i. Without a graph of the gradient the three selects fill ONE array: the
    first to run returns it to the engine (zeros, its slice written), the others write their slice
    into it and return nothing, so the engine has no three zero arrays to build and sum. Each slice is
    written as ``g + 0``, the value the sum of the zero-padded arrays had (-0.0 becomes +0.0)."""

    def backward(self, g):
        if _State.enabled:  # a differentiable gradient: the zero-padded one
            return super().backward(g)
        split, i, gd = self.split, self.key[0], g._data
        held = split.held() if split.held is not None else None
        if held is None or split.filled[i]:  # the first of this backward's selects
            buf = np.zeros(self.in_shape, dtype=gd.dtype)
            np.add(gd, gd.dtype.type(0), out=buf[i])
            held = _make(buf)
            split.held, split.filled = weakref.ref(held), [False, False, False]
            split.filled[i] = True
            return (held,)
        np.add(gd, gd.dtype.type(0), out=held._data[i])
        split.filled[i] = True
        return (None,)


_PackedSelectBackward.__name__ = _PackedSelectBackward.__qualname__ = "SelectBackward0"


def _split_packed(proj):
    """proj[0], proj[1], proj[2], their nodes sharing one gradient array (see _PackedSelectBackward)."""
    parts = proj[0], proj[1], proj[2]
    if all(type(t.grad_fn) is _SELECT for t in parts) and proj._data.shape[0] == 3:
        split = _PackedSplit()
        for t in parts:
            t.grad_fn.__class__ = _PackedSelectBackward
            t.grad_fn.split = split
    return parts


def _in_projection_packed(q, k, v, w, b):
    """Q, K, V from one (3E, E) weight; one GEMM when query, key and value are the same tensor."""
    E = q.shape[-1]
    if k is v and q is k:
        # PyTorch's steps: one contiguous (3, L, N, E) copy, so that each of Q, K, V is contiguous and the
        # head split after it is a view (slices of the projection would be copied once per tensor there)
        proj = linear(q, w, b)
        proj = proj.unflatten(-1, (3, E)).unsqueeze(0).transpose(0, -2).squeeze(-2).contiguous()
        return _split_packed(proj)
    w_q, w_k, w_v = w.chunk(3)
    b_q, b_k, b_v = (None, None, None) if b is None else b.chunk(3)
    return linear(q, w_q, b_q), linear(k, w_k, b_k), linear(v, w_v, b_v)


@op(variants="functional")
def multi_head_attention_forward(query: Tensor, key: Tensor, value: Tensor, embed_dim_to_check: int, num_heads: int,
                                 in_proj_weight, in_proj_bias, bias_k, bias_v, add_zero_attn: bool, dropout_p: float,
                                 out_proj_weight, out_proj_bias, training: bool = True, key_padding_mask=None,
                                 need_weights: bool = True, attn_mask=None, use_separate_proj_weight: bool = False,
                                 q_proj_weight=None, k_proj_weight=None, v_proj_weight=None, static_k=None,
                                 static_v=None, average_attn_weights: bool = True, is_causal: bool = False):
    """Multi-head attention of sequence-first inputs; returns (output, weights or None)."""
    is_batched = _shape_check(query, key, value, key_padding_mask, attn_mask, num_heads)
    if not is_batched:
        query, key, value = query.unsqueeze(1), key.unsqueeze(1), value.unsqueeze(1)
        if key_padding_mask is not None:
            key_padding_mask = key_padding_mask.unsqueeze(0)
    tgt_len, bsz, embed_dim = query.shape
    src_len = key.shape[0]
    key_padding_mask = canonical_mask(key_padding_mask, "key_padding_mask",
                                      None if attn_mask is None else attn_mask.dtype, "attn_mask", query.dtype)
    if is_causal and attn_mask is None:
        raise RuntimeError("Need attn_mask if specifying the is_causal hint. You may use the Transformer module "
                           "method `generate_square_subsequent_mask` to create this mask.")
    if is_causal and key_padding_mask is None and not need_weights:
        attn_mask = None  # scaled_dot_product_attention's is_causal does the masking
    else:
        attn_mask = canonical_mask(attn_mask, "attn_mask", None, "", query.dtype, check_other=False)
        if key_padding_mask is not None:
            is_causal = False
    if embed_dim != embed_dim_to_check:
        raise AssertionError(f"was expecting embedding dimension of {embed_dim_to_check}, but got {embed_dim}")
    head_dim = embed_dim // num_heads
    if head_dim * num_heads != embed_dim:
        raise AssertionError(f"embed_dim {embed_dim} not divisible by num_heads {num_heads}")
    if use_separate_proj_weight:
        if tuple(key.shape[:2]) != tuple(value.shape[:2]):
            raise AssertionError(f"key's sequence and batch dims {_size(key.shape[:2])} do not match value's "
                                 f"{_size(value.shape[:2])}")
        b_q, b_k, b_v = (None, None, None) if in_proj_bias is None else in_proj_bias.chunk(3)
        q, k, v = (linear(query, q_proj_weight, b_q), linear(key, k_proj_weight, b_k),
                   linear(value, v_proj_weight, b_v))
    else:
        if tuple(key.shape) != tuple(value.shape):
            raise AssertionError(f"key shape {_size(key.shape)} does not match value shape {_size(value.shape)}")
        q, k, v = _in_projection_packed(query, key, value, in_proj_weight, in_proj_bias)
    if attn_mask is not None:
        if attn_mask.dim() == 2:
            if tuple(attn_mask.shape) != (tgt_len, src_len):
                raise RuntimeError(f"The shape of the 2D attn_mask is {_size(attn_mask.shape)}, but should be "
                                   f"{(tgt_len, src_len)}.")
            attn_mask = attn_mask.unsqueeze(0)
        elif attn_mask.dim() == 3:
            if tuple(attn_mask.shape) != (bsz * num_heads, tgt_len, src_len):
                raise RuntimeError(f"The shape of the 3D attn_mask is {_size(attn_mask.shape)}, but should be "
                                   f"{(bsz * num_heads, tgt_len, src_len)}.")
        else:
            raise RuntimeError(f"attn_mask's dimension {attn_mask.dim()} is not supported")
    if bias_k is not None and bias_v is not None:
        k = cat([k, bias_k.repeat(1, bsz, 1)])
        v = cat([v, bias_v.repeat(1, bsz, 1)])
        if attn_mask is not None:
            attn_mask = pad(attn_mask, (0, 1))
        if key_padding_mask is not None:
            key_padding_mask = pad(key_padding_mask, (0, 1))
    elif bias_k is not None or bias_v is not None:
        raise AssertionError("bias_k is set but bias_v is None" if bias_k is not None
                             else "bias_v is set but bias_k is None")
    q = q.reshape(tgt_len, bsz * num_heads, head_dim).transpose(0, 1)
    k = (k.reshape(k.shape[0], bsz * num_heads, head_dim).transpose(0, 1) if static_k is None else static_k)
    v = (v.reshape(v.shape[0], bsz * num_heads, head_dim).transpose(0, 1) if static_v is None else static_v)
    if add_zero_attn:
        k = cat([k, zeros((bsz * num_heads, 1, head_dim), dtype=k.dtype)], dim=1)
        v = cat([v, zeros((bsz * num_heads, 1, head_dim), dtype=v.dtype)], dim=1)
        if attn_mask is not None:
            attn_mask = pad(attn_mask, (0, 1))
        if key_padding_mask is not None:
            key_padding_mask = pad(key_padding_mask, (0, 1))
    src_len = k.shape[1]
    if key_padding_mask is not None:
        if tuple(key_padding_mask.shape) != (bsz, src_len):
            raise AssertionError(f"expecting key_padding_mask shape of {(bsz, src_len)}, but got "
                                 f"{_size(key_padding_mask.shape)}")
        key_padding_mask = (key_padding_mask.reshape(bsz, 1, 1, src_len).expand(-1, num_heads, -1, -1)
                            .reshape(bsz * num_heads, 1, src_len))
        attn_mask = key_padding_mask if attn_mask is None else attn_mask + key_padding_mask
    if not training:
        dropout_p = 0.0
    if need_weights:
        q_scaled = q * math.sqrt(1.0 / float(q.shape[-1]))
        if is_causal and attn_mask is None:
            raise AssertionError("FIXME: is_causal not implemented for need_weights")
        scores = q_scaled.bmm(k.transpose(-2, -1))
        if attn_mask is not None:
            scores = attn_mask + scores
        weights = _f_softmax(scores, dim=-1)
        if dropout_p > 0.0:
            weights = _f_dropout(weights, p=dropout_p)
        out = weights.bmm(v).transpose(0, 1).reshape(tgt_len * bsz, embed_dim)
        out = linear(out, out_proj_weight, out_proj_bias).reshape(tgt_len, bsz, out_proj_weight.shape[0])
        weights = weights.reshape(bsz, num_heads, tgt_len, src_len)
        if average_attn_weights:
            weights = weights.mean(dim=1)
        if not is_batched:
            out, weights = out.squeeze(1), weights.squeeze(0)
        return out, weights
    if attn_mask is not None:
        if attn_mask.shape[0] == 1 and attn_mask.dim() == 3:
            attn_mask = attn_mask.unsqueeze(0)
        else:
            attn_mask = attn_mask.reshape(bsz, num_heads, -1, src_len)
    # views, as PyTorch's code takes them (ViewBackward0 in its graph): splitting dim 0 always is one
    q = q.view(bsz, num_heads, tgt_len, head_dim)
    k = k.view(bsz, num_heads, src_len, head_dim)
    v = v.view(bsz, num_heads, src_len, head_dim)
    out = scaled_dot_product_attention(q, k, v, attn_mask, dropout_p, is_causal)
    out = out.permute(2, 0, 1, 3).reshape(bsz * tgt_len, embed_dim)
    out = linear(out, out_proj_weight, out_proj_bias).reshape(tgt_len, bsz, out_proj_weight.shape[0])
    if not is_batched:
        out = out.squeeze(1)
    return out, None
