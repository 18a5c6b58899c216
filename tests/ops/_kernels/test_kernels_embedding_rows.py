"""The embedding backward's per-row sums in index order, bit for bit against PyTorch's CPU kernel, on
gradients whose magnitudes spread over many decades (any other summation order rounds differently),
with evenly spread and with heavily repeated indices, above and below the sort path's size."""
import numpy as np
import pytest

import tinytorch as tt


pytestmark = pytest.mark.bitexact  # compares bits with PyTorch's CPU kernels (tests/_paths.py)


@pytest.mark.parametrize("dtype", [np.float32, np.float64])
@pytest.mark.parametrize("num,shape,dim,skew", [(65, (32, 32), 64, False), (65, (32, 32), 64, True),
                                                (27, (32, 3), 10, False), (5, (300,), 20, True),
                                                (1000, (64, 8), 16, False)])
def test_embedding_weight_grad_matches_torch_bitwise(num, shape, dim, skew, dtype):
    torch = pytest.importorskip("torch")
    rng = np.random.default_rng(num + len(shape))
    idx = rng.integers(0, num, shape)
    if skew:
        idx = np.where(rng.random(shape) < 0.6, 1, idx)
    w = rng.standard_normal((num, dim)).astype(dtype)
    g = (rng.standard_normal(shape + (dim,)) * 10.0 ** rng.uniform(-6, 6, shape + (dim,))).astype(dtype)
    ours, theirs = tt.tensor(w, requires_grad=True), torch.tensor(w, requires_grad=True)
    tt.nn.functional.embedding(tt.tensor(idx), ours).backward(tt.tensor(g))
    torch.nn.functional.embedding(torch.tensor(idx), theirs).backward(torch.tensor(g))
    assert ours.grad.numpy().tobytes() == theirs.grad.numpy().tobytes()
