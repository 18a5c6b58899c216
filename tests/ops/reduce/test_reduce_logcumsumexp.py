"""logcumsumexp against PyTorch: integer and bool inputs refused as PyTorch's kernel refuses them; the
half types accumulated in float32 and differentiable."""
import numpy as np
import pytest

import tinytorch as tt
from _compare import raises_alike as _raises_alike, same as _same

from _oracle import torch  # noqa: E402  (PyTorch when a test reads it)


# -- logcumsumexp refuses integer and bool input, as PyTorch's kernel -------------------------------
@pytest.mark.parametrize("dtype", ["int64", "int32", "uint8", "bool"])
@pytest.mark.parametrize("spelling", ["function", "method"])
def test_logcumsumexp_integer_input_refused(dtype, spelling):
    def call(m):
        x = m.tensor([1, 0, 1]).to(getattr(m, dtype))
        return m.logcumsumexp(x, 0) if spelling == "function" else x.logcumsumexp(0)
    _raises_alike(call)


# -- logcumsumexp in the half types: accumulated in float32, differentiable -------------------------
@pytest.mark.parametrize("dtype", ["float16", "bfloat16"])
def test_logcumsumexp_half_types(dtype):
    a = (np.random.default_rng(0).standard_normal((4, 50)) * 3).astype(np.float32)
    g = np.random.default_rng(1).standard_normal((4, 50)).astype(np.float32)
    res = []
    for m in (torch, tt):
        x = m.tensor(a).to(getattr(m, dtype)).requires_grad_()
        y = m.logcumsumexp(x, 1)
        res.append((y, m.autograd.grad(y, x, m.tensor(g).to(getattr(m, dtype)))[0]))
    (yt, gt), (yu, gu) = res
    _same(yu, yt)  # each output rounded once from the float32 scan
    _same(gu, gt, rtol=2e-2, atol=2e-2)  # the backward's steps round in the half type in both
