"""parametrizations.orthogonal against PyTorch: every map, with and without trivialization, square,
tall, wide and batched weights (the random completion drawn from PyTorch's stream), assignment,
gradients, state_dict keys, errors."""
import numpy as np
import pytest

import tinytorch as tt

from _oracle import torch  # noqa: E402  (PyTorch when a test reads it)

from _raises_same import raises_same as _raises_same  # noqa: E402


def _module(lib, shape, dtype="float64"):
    m = lib.nn.Module()
    m.weight = lib.nn.Parameter(lib.randn(*shape, dtype=getattr(lib, dtype)))
    return m


@pytest.mark.parametrize("shape", [(4, 4), (5, 3), (3, 5), (2, 4, 4), (2, 3, 5)])
@pytest.mark.parametrize("orthogonal_map", [None, "matrix_exp", "cayley", "householder"])
@pytest.mark.parametrize("use_trivialization", [True, False])
def test_orthogonal_matches(shape, orthogonal_map, use_trivialization):
    out = []
    for lib in (torch, tt):
        lib.manual_seed(0)
        m = _module(lib, shape)
        lib.nn.utils.parametrizations.orthogonal(m, orthogonal_map=orthogonal_map,
                                                 use_trivialization=use_trivialization)
        w = m.weight
        (w * lib.arange(w.numel(), dtype=w.dtype).reshape(w.shape)).sum().backward()
        original = m.parametrizations.weight.original
        out.append(dict(w=w.detach().numpy(), grad=original.grad.numpy(), keys=list(m.state_dict()),
                        next=lib.randn(3).numpy(), orth=type(m).__name__))
    a, b = out
    assert a["keys"] == b["keys"] and a["orth"] == b["orth"]
    np.testing.assert_array_equal(b["next"], a["next"])  # the same random draws were made
    np.testing.assert_allclose(b["w"], a["w"], rtol=1e-10, atol=1e-12)
    np.testing.assert_allclose(b["grad"], a["grad"], rtol=1e-9, atol=1e-10)
    # the result is orthogonal in the tall direction
    w = b["w"]
    n, k = w.shape[-2:]
    g = np.swapaxes(w, -1, -2) @ w if n >= k else w @ np.swapaxes(w, -1, -2)
    np.testing.assert_allclose(g, np.broadcast_to(np.eye(min(n, k)), g.shape), atol=1e-10)


@pytest.mark.parametrize("orthogonal_map", ["matrix_exp", "cayley", "householder"])
def test_assignment(orthogonal_map):
    out = []
    for lib in (torch, tt):
        lib.manual_seed(1)
        m = _module(lib, (5, 3))
        lib.nn.utils.parametrizations.orthogonal(m, orthogonal_map=orthogonal_map)
        with lib.no_grad():
            q = lib.linalg.qr(lib.randn(5, 3, dtype=lib.float64))[0]
            m.weight = q  # an orthogonal matrix is stored as the base
            w1 = m.weight.detach().numpy().copy()
            m.weight = lib.randn(5, 3, dtype=lib.float64)  # any other is orthogonalised
        out.append((w1, m.weight.detach().numpy(), q.numpy(), m.parametrizations.weight.original.detach().numpy()))
    for x, y in zip(out[0], out[1]):
        np.testing.assert_allclose(y, x, rtol=1e-10, atol=1e-12)
    np.testing.assert_allclose(out[1][0], out[1][2], atol=1e-12)


def test_householder_without_trivialization_assignment():
    out = []
    for lib in (torch, tt):
        lib.manual_seed(2)
        m = _module(lib, (4, 3))
        lib.nn.utils.parametrizations.orthogonal(m, orthogonal_map="householder", use_trivialization=False)
        with lib.no_grad():
            m.weight = lib.randn(4, 3, dtype=lib.float64)
        out.append((m.weight.detach().numpy(), m.parametrizations.weight.original.detach().numpy()))
    np.testing.assert_allclose(out[1][0], out[0][0], rtol=1e-10, atol=1e-12)
    np.testing.assert_allclose(out[1][1], out[0][1], rtol=1e-10, atol=1e-12)


def test_float32_linear():
    out = []
    for lib in (torch, tt):
        lib.manual_seed(3)
        lin = lib.nn.utils.parametrizations.orthogonal(lib.nn.Linear(6, 4))
        out.append((lin.weight.detach().numpy(), repr(lin), list(lin.state_dict())))
    np.testing.assert_allclose(out[1][0], out[0][0], rtol=1e-5, atol=1e-6)
    assert out[1][1].replace("tinytorch", "torch") == out[0][1] and out[1][2] == out[0][2]


def test_errors():
    P, Q = torch.nn.utils.parametrizations, tt.nn.utils.parametrizations
    _raises_same(lambda: P.orthogonal(torch.nn.Linear(3, 3), name="nope"),
                 lambda: Q.orthogonal(tt.nn.Linear(3, 3), name="nope"))
    _raises_same(lambda: P.orthogonal(torch.nn.Linear(3, 3), name="bias"),
                 lambda: Q.orthogonal(tt.nn.Linear(3, 3), name="bias"))
    _raises_same(lambda: P.orthogonal(torch.nn.Linear(3, 3), orthogonal_map="qr"),
                 lambda: Q.orthogonal(tt.nn.Linear(3, 3), orthogonal_map="qr"))
    ma, mb = P.orthogonal(torch.nn.Linear(3, 3)), Q.orthogonal(tt.nn.Linear(3, 3))

    def assign(lib, m):
        with lib.no_grad():
            m.weight = lib.ones(2, 3)
    _raises_same(lambda: assign(torch, ma), lambda: assign(tt, mb))
    ma = P.orthogonal(torch.nn.Linear(3, 3), use_trivialization=False)
    mb = Q.orthogonal(tt.nn.Linear(3, 3), use_trivialization=False)
    _raises_same(lambda: assign(torch, ma), lambda: assign(tt, mb))
