"""Convolution values and gradients bit for bit against PyTorch on small-integer inputs with signed
zeros: every product and partial sum is exact, and a sum of exact terms is -0.0 only when all of them
are, in any order, so the results (signs of zeros included) cannot depend on the summation order and
must match PyTorch's exactly. Chunks of one or a few samples (a short last chunk included) run too."""
import numpy as np
import pytest

import tinytorch as tt
import tinytorch.nn.functional as F
from tinytorch._ops._kernels import im2col as _im2col


pytestmark = pytest.mark.bitexact  # compares bits with PyTorch's CPU kernels (tests/_paths.py)


def _ints(rng, shape, dtype):
    v = rng.integers(-2, 3, shape).astype(dtype)
    return np.where(rng.random(shape) < 0.5, -v, v)  # -0.0 wherever a zero drew the minus sign


CASES = [dict(stride=1, padding=0), dict(stride=1, padding=1), dict(stride=1, padding=(2, 0), dilation=(1, 2)),
         dict(stride=2, padding=1), dict(stride=(1, 2), padding=(0, 1)), dict(stride=1, padding=1, groups=2)]


@pytest.mark.parametrize("chunk_bytes", [None, 3000])
@pytest.mark.parametrize("dtype", [np.float32, np.float64])
@pytest.mark.parametrize("kw", CASES)
def test_conv2d_and_its_gradients_match_torch_bitwise(kw, dtype, chunk_bytes, monkeypatch):
    torch = pytest.importorskip("torch")
    if chunk_bytes:
        monkeypatch.setattr(_im2col, "_CHUNK_BYTES", chunk_bytes)
    rng = np.random.default_rng(11)
    for n, k in ((5, 3), (3, (2, 3)), (7, 1)):
        g = kw.get("groups", 1)
        x = _ints(rng, (n, 2 * g, 9, 8), dtype)
        w = _ints(rng, (3 * g, 2, *((k, k) if isinstance(k, int) else k)), dtype)
        b = _ints(rng, (3 * g,), dtype)
        ours = [tt.tensor(a, requires_grad=True) for a in (x, w, b)]
        theirs = [torch.tensor(a, requires_grad=True) for a in (x, w, b)]
        y, ty = F.conv2d(*ours, **kw), torch.nn.functional.conv2d(*theirs, **kw)
        # PyTorch's float64 strided/dilated forward starts its sums from +0.0: zeros' signs differ there
        np.testing.assert_array_equal(y.detach().numpy(), ty.detach().numpy())
        gy = _ints(rng, tuple(ty.shape), dtype)
        for a, t in zip(tt.autograd.grad(y, ours, tt.tensor(gy)), torch.autograd.grad(ty, theirs, torch.tensor(gy))):
            assert a.numpy().tobytes() == t.numpy().tobytes()
