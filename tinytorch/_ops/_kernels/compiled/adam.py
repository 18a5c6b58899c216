"""One parameter's Adam/AdamW update (``optim/adam.py``'s ``_adam_arrays``) in one pass over contiguous
float32/float64 arrays instead of about 15 numpy passes: every step in the array's precision, each
hyper-parameter rounded to it as numpy rounds a Python float it is given, and the weight decay's
``add(alpha=)`` and the first moment's ``lerp`` each one fused multiply-add (``llvm.fma``: the value
``_kernels/muladd.py`` computes, and PyTorch's kernels)."""
from __future__ import annotations

import numpy as np
from numba import boolean, float32, float64, njit, types

from ._common import fma, jit, like, readonly


@njit(cache=True, nogil=True, inline="always")
def _plain(p, g, m, v, t_decay, t_alpha, t_beta2, t_rest2, t_bc2, t_eps, t_step):
    """``update``'s loop without its per-element branches (no maximize, no coupled decay, no AMSGrad, the lerp
    from m), which keep LLVM from vectorising it (13x slower on 200k float32 elements): the same operations in
    the same order. ``t_decay`` is 1 without a decoupled decay: a product by 1.0 is every float itself."""
    for k in range(p.size):
        gk = g[k]
        pk = p[k] * t_decay
        mk = fma(t_alpha, gk - m[k], m[k])
        m[k] = mk
        vk = v[k] * t_beta2 + gk * t_rest2 * gk
        v[k] = vk
        denom = np.sqrt(vk) / t_bc2 + t_eps
        p[k] = pk + mk * t_step / denom


def _sig(t):
    v = t[::1]
    f = float64
    return types.void(v, readonly(t, 1), v, v, v, f, f, f, boolean, f, f, f, f, f, boolean, boolean, boolean)


@jit([_sig(float32), _sig(float64)])
def update(p, g, m, v, mx, decay, weight_decay, alpha_m, from_m, beta2, one_minus_beta2, bc2_sqrt, eps,
           neg_step_size, maximize, decoupled, amsgrad):
    """In place: p (decayed first when ``decoupled`` and ``decay`` != 1), m, v and, with ``amsgrad``, mx
    (their running maximum). ``weight_decay`` 0 means none; ``alpha_m``/``from_m``: the lerp's weight
    and whether it is taken from m (m + w (g - m)) or from g (g - (1 - w) (g - m))."""
    if p.size == 0:
        return
    zero = like(p[0], 0.0)
    t_decay = like(zero, decay)
    t_wd = like(zero, weight_decay)
    t_alpha = like(zero, alpha_m)
    t_beta2 = like(zero, beta2)
    t_rest2 = like(zero, one_minus_beta2)
    t_bc2 = like(zero, bc2_sqrt)
    t_eps = like(zero, eps)
    t_step = like(zero, neg_step_size)
    coupled = weight_decay != 0.0 and not decoupled
    scale_p = weight_decay != 0.0 and decoupled
    if not (maximize or coupled or amsgrad) and from_m:  # Adam's and AdamW's defaults: the loop LLVM vectorises
        _plain(p, g, m, v, t_decay if scale_p else like(zero, 1.0), t_alpha, t_beta2, t_rest2, t_bc2, t_eps, t_step)
        return
    for k in range(p.size):
        gk = -g[k] if maximize else g[k]
        pk = p[k]
        if scale_p:
            pk = pk * t_decay
        if coupled:
            gk = fma(t_wd, pk, gk)
        mk = m[k]
        diff = gk - mk
        mk = fma(t_alpha, diff, mk if from_m else gk)
        m[k] = mk
        vk = v[k] * t_beta2 + gk * t_rest2 * gk
        v[k] = vk
        if amsgrad:
            xk = mx[k]
            vk = xk if (xk >= vk or xk != xk) else vk  # np.maximum: the first NaN, else the larger
            mx[k] = vk
        denom = np.sqrt(vk) / t_bc2 + t_eps
        p[k] = pk + mk * t_step / denom
