"""torch.pdist / F.pdist, the triplet loss with a distance function, cosine similarity and the gradients of
division and vector norms, against PyTorch: values, gradients, grad_fn names, errors."""
import numpy as np
import pytest

import tinytorch as tt

from _oracle import torch  # noqa: E402  (PyTorch when a test reads it)

from _raises_same import raises_same as _raises_same  # noqa: E402


@pytest.mark.parametrize("p", [0, 0.5, 1, 1.5, 2, 3, float("inf")])
@pytest.mark.parametrize("dtype", ["float32", "float64"])
def test_pdist(p, dtype):
    torch.manual_seed(0)
    x = torch.randn(6, 4, dtype=getattr(torch, dtype))
    x[3] = x[1]          # a zero distance
    x[4, 0] = x[0, 0]    # a zero coordinate difference
    xa = x.clone().requires_grad_()
    xb = tt.tensor(x.numpy(), requires_grad=True)
    ya, yb = torch.pdist(xa, p), tt.nn.functional.pdist(xb, p)
    assert yb.dtype.__repr__().replace("tinytorch", "torch") == repr(ya.dtype)
    assert type(yb.grad_fn).__name__ == type(ya.grad_fn).__name__
    tol = dict(rtol=1e-6, atol=1e-6) if dtype == "float32" else dict(rtol=1e-12, atol=1e-12)
    np.testing.assert_allclose(yb.detach().numpy(), ya.detach().numpy(), **tol)
    g = torch.randn(ya.shape, dtype=x.dtype)
    ya.backward(g)
    yb.backward(tt.tensor(g.numpy()))
    np.testing.assert_allclose(xb.grad.numpy(), xa.grad.numpy(), **tol)


def test_pdist_edges_and_errors():
    for shape in [(1, 3), (0, 3), (3, 0)]:
        a, b = torch.pdist(torch.ones(shape)), tt.pdist(tt.ones(shape))
        assert tuple(a.shape) == b.shape
        np.testing.assert_array_equal(b.numpy(), a.numpy())
    x = torch.randn(3, 4)
    np.testing.assert_allclose(tt.pdist(tt.tensor(x.numpy()).t()).numpy(), torch.pdist(x.t()).numpy(), rtol=1e-6)
    _raises_same(lambda: torch.pdist(torch.ones(2, 2, 2)), lambda: tt.pdist(tt.ones(2, 2, 2)))
    _raises_same(lambda: torch.pdist(torch.ones(2, 2, dtype=torch.long)),
                 lambda: tt.pdist(tt.ones(2, 2, dtype=tt.long)))
    _raises_same(lambda: torch.pdist(torch.ones(2, 2), -1), lambda: tt.pdist(tt.ones(2, 2), -1))


def _triplets(seed, shape=(5, 4)):
    torch.manual_seed(seed)
    data = [torch.randn(*shape, dtype=torch.float64) for _ in range(3)]
    return ([d.clone().requires_grad_() for d in data],
            [tt.tensor(d.numpy(), requires_grad=True) for d in data])


@pytest.mark.parametrize("reduction", ["mean", "sum", "none"])
@pytest.mark.parametrize("swap", [False, True])
@pytest.mark.parametrize("distance", [None, "cosine", "l1"])
def test_triplet_margin_with_distance_loss(reduction, swap, distance):
    fns = {None: (None, None),
           "cosine": (lambda a, b: 1 - torch.nn.functional.cosine_similarity(a, b),
                      lambda a, b: 1 - tt.nn.functional.cosine_similarity(a, b)),
           "l1": (torch.nn.PairwiseDistance(p=1), tt.nn.PairwiseDistance(p=1))}[distance]
    ta, tb = _triplets(1)
    la = torch.nn.TripletMarginWithDistanceLoss(distance_function=fns[0], margin=0.7, swap=swap,
                                                reduction=reduction)
    lb = tt.nn.TripletMarginWithDistanceLoss(distance_function=fns[1], margin=0.7, swap=swap, reduction=reduction)
    assert repr(lb) == repr(la)
    ya, yb = la(*ta), lb(*tb)
    np.testing.assert_allclose(yb.detach().numpy(), ya.detach().numpy(), rtol=1e-12, atol=1e-12)
    ya.sum().backward()
    yb.sum().backward()
    for a, b in zip(ta, tb):
        np.testing.assert_allclose(b.grad.numpy(), a.grad.numpy(), rtol=1e-12, atol=1e-12)
    fa = torch.nn.functional.triplet_margin_with_distance_loss(*ta, distance_function=fns[0], swap=swap)
    fb = tt.nn.functional.triplet_margin_with_distance_loss(*tb, distance_function=fns[1], swap=swap)
    np.testing.assert_allclose(fb.detach().numpy(), fa.detach().numpy(), rtol=1e-12)


def test_triplet_margin_with_distance_loss_errors():
    ta, tb = _triplets(2)
    Fa, Fb = torch.nn.functional, tt.nn.functional
    _raises_same(lambda: torch.nn.TripletMarginWithDistanceLoss(margin=0),
                 lambda: tt.nn.TripletMarginWithDistanceLoss(margin=0))
    _raises_same(lambda: Fa.triplet_margin_with_distance_loss(*ta, margin=-1),
                 lambda: Fb.triplet_margin_with_distance_loss(*tb, margin=-1))
    _raises_same(lambda: Fa.triplet_margin_with_distance_loss(*ta, reduction="avg"),
                 lambda: Fb.triplet_margin_with_distance_loss(*tb, reduction="avg"))
    _raises_same(lambda: Fa.triplet_margin_with_distance_loss(ta[0], ta[1], ta[2][0]),
                 lambda: Fb.triplet_margin_with_distance_loss(tb[0], tb[1], tb[2][0]))


def _chain(fn) -> list:
    """The node names of a graph, depth first."""
    out, stack = [], [fn]
    while stack:
        f = stack.pop()
        if f is not None:
            out.append(type(f).__name__)
            stack.extend(n for n, _ in reversed(f.next_functions))
    return out


def test_cosine_similarity_is_pytorchs_composite_and_checks():
    """Each input over its clamped norm (clones clamped in place under no_grad: CloneBackward0 in the graph),
    its dtype rules and errors."""
    rng = np.random.default_rng(0)
    a, b = rng.standard_normal((4, 8)).astype(np.float32), rng.standard_normal((1, 8)).astype(np.float32)
    a[0] = 0  # a zero norm, clamped to eps
    outs = []
    for lib in (torch, tt):
        x, y = lib.tensor(a, requires_grad=True), lib.tensor(b, requires_grad=True)
        out = lib.nn.functional.cosine_similarity(x, y)
        outs.append((_chain(out.grad_fn), out.dtype))
        mixed = lib.nn.functional.cosine_similarity(lib.ones(2, 3, dtype=lib.long), lib.ones(2, 3))
        outs.append((mixed.dtype, mixed.tolist()))
    assert outs[2][0] == outs[0][0] and repr(outs[2][1]).replace("tinytorch", "torch") == repr(outs[0][1])
    assert repr(outs[3][0]).replace("tinytorch", "torch") == repr(outs[1][0]) and outs[3][1] == outs[1][1]
    for args, kwargs in [((lambda L: L.ones(2, 3, dtype=L.long), lambda L: L.ones(2, 3, dtype=L.long)), {}),
                         ((lambda L: L.ones(2, 3), lambda L: L.ones(2, 3)), {"eps": -1.0}),
                         ((lambda L: L.ones(2, 3), lambda L: L.ones(4, 3)), {})]:
        _raises_same(lambda: torch.nn.functional.cosine_similarity(args[0](torch), args[1](torch), **kwargs),
                     lambda: tt.nn.functional.cosine_similarity(args[0](tt), args[1](tt), **kwargs))


@pytest.mark.parametrize("dtype", [np.float32, np.float64])
def test_division_and_norm_gradients_are_pytorchs_formulas_bit_for_bit(dtype):
    """The divisor's gradient is -grad * ((self / other) / other) and the 2-norm's grad * (self / norm) with 0
    where the norm is 0 (PyTorch's formulas, their roundings): the same bits as PyTorch's (on inputs whose norms
    both compute exactly, so the forward values agree)."""
    rng = np.random.default_rng(1)
    num, den = rng.standard_normal((64, 33)).astype(dtype), rng.standard_normal((64, 33)).astype(dtype)
    ints = rng.integers(-5, 6, (16, 33)).astype(dtype)
    ints[3] = 0
    g = rng.standard_normal((64, 33)).astype(dtype)
    grads = []
    for lib in (torch, tt):
        a, b = lib.tensor(num, requires_grad=True), lib.tensor(den, requires_grad=True)
        (a / b).backward(lib.tensor(g))
        grads += [a.grad.numpy(), b.grad.numpy()]
        for p, keep in [(2, False), (2, True), (1, False), (float("inf"), True)]:
            x = lib.tensor(ints, requires_grad=True)
            lib.linalg.vector_norm(x, p, 1, keep).backward(lib.tensor(g[:16, :1] if keep else g[:16, 0]))
            grads.append(x.grad.numpy())
    half = len(grads) // 2
    for want, got in zip(grads[:half], grads[half:]):
        np.testing.assert_array_equal(got, want)
