"""F.linear on contiguous inputs of rank other than 2: the input viewed as rows, one fused node, the result
viewed back (PyTorch's ViewBackward0 <- AddmmBackward0 <- ViewBackward0 chain). Values, gradients, the
grad_fn chain, view bookkeeping (base, version counter) and in-place checks against PyTorch."""
from __future__ import annotations

import numpy as np
import pytest

torch = pytest.importorskip("torch")
import tinytorch as tt  # noqa: E402

SHAPES = [(2, 3, 4), (1, 5, 4), (2, 2, 3, 4), (0, 3, 4), (4,)]


def _chain(t, depth=3):
    names, fn = [], t.grad_fn
    while fn is not None and len(names) < depth:
        names.append(type(fn).__name__)
        nxt = [f for f, _ in fn.next_functions if f is not None and type(f).__name__ != "AccumulateGrad"]
        nxt = [f for f in nxt if type(f).__name__ not in ("TBackward0",)]
        fn = nxt[-1] if nxt else None
    return names


def _pair(a, **kw):
    return torch.tensor(a, **kw), tt.tensor(a, **kw)


@pytest.mark.parametrize("shape", SHAPES)
@pytest.mark.parametrize("with_bias", [True, False])
@pytest.mark.parametrize("grads", [(True, True), (True, False), (False, True)])
def test_linear_nd_matches_torch(shape, with_bias, grads):
    if len(shape) == 1 and not with_bias:
        pytest.skip("1-d input without bias is a matrix-vector product (another path)")
    rng = np.random.default_rng(len(shape) * 7 + with_bias)
    x = rng.standard_normal(shape).astype(np.float32)
    w = rng.standard_normal((3, shape[-1])).astype(np.float32)
    b = rng.standard_normal(3).astype(np.float32)
    tx, ux = _pair(x, requires_grad=grads[0])
    tw, uw = _pair(w, requires_grad=grads[1])
    tb, ub = _pair(b, requires_grad=True) if with_bias else (None, None)
    to = torch.nn.functional.linear(tx, tw, tb)
    uo = tt.nn.functional.linear(ux, uw, ub)
    assert tuple(uo.shape) == tuple(to.shape)
    np.testing.assert_allclose(uo.detach().numpy(), to.detach().numpy(), rtol=1e-5, atol=1e-5)
    assert _chain(uo) == _chain(to)
    assert (uo._base is not None) == (to._base is not None)
    g = rng.standard_normal(tuple(to.shape)).astype(np.float32)
    to.backward(torch.tensor(g))
    uo.backward(tt.tensor(g))
    for a, c in ((tx, ux), (tw, uw), (tb, ub)):
        if a is None or not a.requires_grad:
            continue
        np.testing.assert_allclose(c.grad.numpy(), a.grad.numpy(), rtol=1e-5, atol=1e-5)


def test_linear_nd_input_modified_in_place_is_caught():
    rng = np.random.default_rng(3)
    x = rng.standard_normal((2, 3, 4)).astype(np.float32)
    w = rng.standard_normal((5, 4)).astype(np.float32)
    errors = []
    for lib in (torch, tt):
        xx = lib.tensor(x)
        ww = lib.tensor(w, requires_grad=True)
        out = lib.nn.functional.linear(xx, ww, lib.zeros(5))
        xx.add_(1.0)  # the saved rows are a view of it: the version counter is shared
        with pytest.raises(RuntimeError) as err:
            out.sum().backward()
        errors.append(str(err.value).split(";")[0].split(":")[0])
    assert errors[0] == errors[1]


def test_linear_nd_output_is_a_view_in_place_ok():
    rng = np.random.default_rng(4)
    x = rng.standard_normal((2, 3, 4)).astype(np.float32)
    w = rng.standard_normal((5, 4)).astype(np.float32)
    b = rng.standard_normal(5).astype(np.float32)
    res, names = [], []
    for lib in (torch, tt):
        xx = lib.tensor(x, requires_grad=True)
        out = lib.nn.functional.linear(xx, lib.tensor(w), lib.tensor(b))
        out.mul_(2.0)
        names.append(type(out.grad_fn).__name__)  # the in-place op on a view rebases it
        out.sum().backward()
        res.append(xx.grad.numpy().copy())
    assert names[0] == names[1]
    np.testing.assert_allclose(res[1], res[0], rtol=1e-5, atol=1e-5)
