"""cdist's and multi_dot's dtype checks and half-precision paths against PyTorch: which mixtures are
refused (in PyTorch's order, with its messages), integer multi_dot, cdist's matrix-product path in
float16/bfloat16."""
import numpy as np
import pytest

import tinytorch as tt
from _compare import raises_alike as _raises_alike, same as _same

from _oracle import torch  # noqa: E402  (PyTorch when a test reads it)


# -- dtype checks of cdist's and multi_dot's rewritten paths ----------------------------------------
@pytest.mark.parametrize("shapes", [((3, 2), (4, 2)), ((30, 2), (4, 2)), ((3, 2), (40, 2))])
@pytest.mark.parametrize("dtypes", [("float32", "float64"), ("float64", "float32"), ("float32", "int64"),
                                    ("float32", "float16"), ("int64", "float32")])
def test_cdist_mixed_dtypes_refused(shapes, dtypes):
    a, b = (np.random.default_rng(i).standard_normal(s) for i, s in enumerate(shapes))
    _raises_alike(lambda m: m.cdist(m.tensor(a).to(getattr(m, dtypes[0])), m.tensor(b).to(getattr(m, dtypes[1]))))


@pytest.mark.parametrize("case", [
    [((2, 3), "float32"), ((3, 4), "float64")],
    [((2, 3), "float32"), ((3, 4), "float32"), ((4, 2), "float16")],
    [((3,), "float32"), ((3,), "bfloat16")],
    [((3,), "float32"), ((3,), "int32")],
    [((2, 3), "float32"), ((3, 4), "float64"), ((4, 4, 1), "float32"), ((4,), "float32")],
    [((2, 3), "float32"), ((3, 4, 1), "float64"), ((4, 4, 1), "float32")],
    [((2, 3), "float32"), ((4, 4), "float32"), ((4, 2), "float64")],
    [((3,), "float32"), ((4,), "float32")], [((2,), "float32"), ((3, 4), "float32"), ((4,), "float32")],
    [((2, 3), "float32"), ((3, 4), "float32"), ((5, 6), "float32"), ((7,), "float32")],
])
def test_multi_dot_checks_in_pytorch_order(case):
    arrays = [(np.ones(s), d) for s, d in case]
    _raises_alike(lambda m: m.linalg.multi_dot([m.tensor(a).to(getattr(m, d)) for a, d in arrays]))


def test_multi_dot_integers():
    a, b, c = (np.arange(6).reshape(2, 3), np.arange(12).reshape(3, 4), np.arange(4))
    _same(tt.linalg.multi_dot([tt.tensor(a), tt.tensor(b), tt.tensor(c)]),
          torch.linalg.multi_dot([torch.tensor(a), torch.tensor(b), torch.tensor(c)]))


# -- cdist's matrix-product path in the half types ---------------------------------------------------
@pytest.mark.parametrize("dtype", ["float16", "bfloat16"])
def test_cdist_mm_path_half_types(dtype):
    rng = np.random.default_rng(0)
    a, b = rng.standard_normal((30, 3)).astype(np.float32), rng.standard_normal((4, 3)).astype(np.float32)
    res = []
    for m in (torch, tt):
        x, y = (m.tensor(v).to(getattr(m, dtype)).requires_grad_() for v in (a, b))
        d = m.cdist(x, y)
        res.append((d, m.autograd.grad(d.float().sum(), (x, y))))
    (dt_, gt), (du, gu) = res
    _same(du, dt_, rtol=1e-2, atol=1e-2)
    for o, t in zip(gu, gt):
        _same(o, t, rtol=5e-2, atol=5e-2)


@pytest.mark.parametrize("dtype", ["float16", "bfloat16"])
def test_cdist_elementwise_path_refuses_half_types(dtype):
    _raises_alike(lambda m: m.cdist(m.ones(3, 2).to(getattr(m, dtype)), m.ones(4, 2).to(getattr(m, dtype))))
