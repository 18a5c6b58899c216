"""scaled_dot_product_attention over zero keys against PyTorch: values and gradients, with and
without masks and causality."""
import numpy as np
import pytest

import tinytorch as tt
from _compare import same as _same

from _oracle import torch  # noqa: E402  (PyTorch when a test reads it)


# -- scaled_dot_product_attention over no keys ------------------------------------------------------
@pytest.mark.parametrize("kw", [{}, {"is_causal": True}, {"mask": "bool"}, {"mask": "float"}])
@pytest.mark.parametrize("lead", [(2, 3), (3,)])
@pytest.mark.parametrize("grad", [False, True])
def test_sdpa_zero_keys(kw, lead, grad):
    rng = np.random.default_rng(0)
    q, k, v = rng.standard_normal(lead + (4, 8)), np.zeros(lead + (0, 8)), np.zeros(lead + (0, 8))
    mask = {"bool": np.ones((4, 0), dtype=bool), "float": np.zeros((4, 0))}.get(kw.get("mask"))
    outs = []
    for m in (torch, tt):
        ins = [m.tensor(a, requires_grad=grad) for a in (q, k, v)]
        y = m.nn.functional.scaled_dot_product_attention(*ins, attn_mask=None if mask is None else m.tensor(mask),
                                                         is_causal=kw.get("is_causal", False))
        grads = m.autograd.grad(y, ins, m.ones_like(y)) if grad else ()
        outs.append((y, grads))
    (yt, gt), (yu, gu) = outs
    _same(yu, yt)
    for a, b in zip(gu, gt):
        _same(a, b)
