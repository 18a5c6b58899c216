"""Programs that reach the paths of ``tinytorch/_cpu/attention.py`` (the products across the pool, a large
softmax's rows across threads, the scores' row maxima, PyTorch's CPU flash kernel forward and backward): target ->
[make(rng, dtype, shape) yielding (name, fn, arrays)]. 4-d inputs take the flash kernel, 3-d and 2-d ones the math
path; masks, causal rows and grouped heads included."""
import numpy as np

import tinytorch as tt

F = tt.nn.functional


def _qkv(rng, dtype, lead, L, S, E):
    return [np.asarray(rng.standard_normal(lead + (n, E)), dtype=dtype) for n in (L, S, S)]


def _attentions(rng, dtype, shape):
    L, S, E = 3 + len(shape), 5 + len(shape), 4
    yield "sdpa 4-d (flash)", (lambda q, k, v: F.scaled_dot_product_attention(q, k, v)), _qkv(rng, dtype, (2, 3), L, S, E)
    yield "sdpa 4-d causal", (lambda q, k, v: F.scaled_dot_product_attention(q, k, v, is_causal=True)), \
        _qkv(rng, dtype, (1, 2), L, S, E)
    mask = rng.standard_normal((L, S)) > -0.5
    mask[:, 0] = True  # every row attends to something
    yield "sdpa 4-d bool mask", (lambda q, k, v: F.scaled_dot_product_attention(q, k, v, attn_mask=tt.tensor(mask))), \
        _qkv(rng, dtype, (2, 2), L, S, E)
    q, k, v = _qkv(rng, dtype, (2, 4), L, S, E)
    yield "sdpa 4-d grouped heads", (lambda q, k, v: F.scaled_dot_product_attention(q, k[:, :2], v[:, :2],
                                                                                   enable_gqa=True)), [q, k, v]
    yield "sdpa 4-d strided query", (lambda q, k, v: F.scaled_dot_product_attention(q.transpose(1, 2), k, v) * 2.0), \
        [np.ascontiguousarray(q.swapaxes(1, 2)), k, v]
    yield "sdpa 3-d (math)", (lambda q, k, v: F.scaled_dot_product_attention(q, k, v)), _qkv(rng, dtype, (3,), L, S, E)
    yield "sdpa 2-d (math)", (lambda q, k, v: F.scaled_dot_product_attention(q, k, v)), _qkv(rng, dtype, (), L, S, E)
    # a softmax of 600k scores: rows across threads (the math path: 3-d)
    yield "sdpa 3-d, large", (lambda q, k, v: F.scaled_dot_product_attention(q, k, v)), _qkv(rng, dtype, (6,), 320, 320, 8)


PROGRAMS = {target: [_attentions] for target in ("attention._gemm", "attention._safe_softmax",
                                                 "attention._flash_forward", "attention._grads_without_graph",
                                                 "attention.last_axis_max")}
