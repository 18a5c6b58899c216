"""linalg.vector_norm (and the norms built on it) of half and bfloat16 tensors against PyTorch: accumulated in
float32 and rounded once, as PyTorch's CPU norm kernel does (squares in half overflowed to inf, a bfloat16 running
sum stalled far below the value: 614400 for PyTorch's 1171456)."""
import numpy as np
import pytest

import tinytorch

from _oracle import torch  # noqa: E402  (PyTorch when a test reads it)

X = (np.random.default_rng(0).standard_normal((6, 250)) * 1000).astype(np.float32)

CASES = {
    "all": lambda T, x, p: T.linalg.vector_norm(x, p),
    "dim1": lambda T, x, p: T.linalg.vector_norm(x, p, dim=1),
    "dim0_keepdim": lambda T, x, p: T.linalg.vector_norm(x / 1000, p, dim=0, keepdim=True),
    "tensor_norm": lambda T, x, p: x.norm(p),
}


@pytest.mark.parametrize("case", sorted(CASES))
@pytest.mark.parametrize("ord", [1, 2, 3, float("inf"), 0])
@pytest.mark.parametrize("dtype", ["float16", "bfloat16"])
def test_vector_norm_low_precision(case, ord, dtype):
    want = CASES[case](torch, torch.tensor(X).to(getattr(torch, dtype)), ord)
    got = CASES[case](tinytorch, tinytorch.tensor(X).to(getattr(tinytorch, dtype)), ord)
    assert str(got.dtype) == str(want.dtype).replace("torch", "tinytorch")
    np.testing.assert_array_equal(got.float().numpy(), want.float().numpy())
