"""hstack/vstack/dstack/column_stack, atleast_nd, tensor_split and the numpy-style splits, ravel:
values, shapes, gradients and grad_fn names against PyTorch."""
import numpy as np
import pytest

import tinytorch

SHAPES = [(), (4,), (2, 4), (2, 4, 3), (2, 4, 6, 2)]


def _inputs(T, shapes, seed=0):
    rng = np.random.default_rng(seed)
    return [T.tensor(rng.standard_normal(s), dtype=T.float64, requires_grad=True) for s in shapes]


def _run(T, fn, shapes):
    xs = _inputs(T, shapes)
    out = fn(T, *xs)
    outs = list(out) if isinstance(out, (tuple, list)) else [out]
    names = [type(o.grad_fn).__name__ if o.grad_fn is not None else None for o in outs]
    values = [o.detach().numpy().copy() for o in outs]
    total = sum(((o * (i + 1)) ** 2).sum() for i, o in enumerate(outs) if o.requires_grad)
    grads = []
    if isinstance(total, T.Tensor):
        total.backward()
        grads = [x.grad.numpy().copy() if x.grad is not None else None for x in xs]
    return names, values, grads, [tuple(o.shape) for o in outs]


CASES = [
    ("hstack", lambda T, a, b: T.hstack([a, b]), [(4,), (4,)]),
    ("hstack", lambda T, a, b: T.hstack((a, b)), [(2, 4), (2, 3)]),
    ("hstack", lambda T, a, b: T.hstack([a, b]), [(), ()]),
    ("vstack", lambda T, a, b: T.vstack([a, b]), [(4,), (4,)]),
    ("vstack", lambda T, a, b: T.vstack([a, b]), [(2, 4), (3, 4)]),
    ("vstack", lambda T, a, b: T.vstack([a, b]), [(), ()]),
    ("dstack", lambda T, a, b: T.dstack([a, b]), [(4,), (4,)]),
    ("dstack", lambda T, a, b: T.dstack([a, b]), [(2, 4), (2, 4)]),
    ("dstack", lambda T, a, b: T.dstack([a, b]), [(2, 4, 3), (2, 4, 1)]),
    ("column_stack", lambda T, a, b: T.column_stack([a, b]), [(4,), (4,)]),
    ("column_stack", lambda T, a, b, c: T.column_stack([a, b, c]), [(4,), (4, 2), (4,)]),
    ("column_stack", lambda T, a, b: T.column_stack([a, b]), [(), ()]),
    ("atleast_1d", lambda T, a: T.atleast_1d(a), [()]),
    ("atleast_1d", lambda T, a, b: T.atleast_1d(a, b), [(), (2, 4)]),
    ("atleast_1d", lambda T, a, b: T.atleast_1d([a, b]), [(), (4,)]),
    ("atleast_2d", lambda T, a, b, c: T.atleast_2d(a, b, c), [(), (4,), (2, 4, 3)]),
    ("atleast_3d", lambda T, a, b, c, d: T.atleast_3d((a, b, c, d)), [(), (4,), (2, 4), (2, 4, 6, 2)]),
    ("atleast_3d", lambda T, a: T.atleast_3d(a), [(2, 4)]),
    ("tensor_split", lambda T, a: T.tensor_split(a, 3), [(2, 4, 3)]),
    ("tensor_split", lambda T, a: T.tensor_split(a, 3, dim=1), [(2, 4, 3)]),
    ("tensor_split", lambda T, a: a.tensor_split([1, 3], -1), [(2, 4, 6, 2)]),
    ("tensor_split", lambda T, a: T.tensor_split(a, [3, 1, 9]), [(4,)]),
    ("tensor_split", lambda T, a: T.tensor_split(a, [-3, -1]), [(4,)]),
    ("tensor_split", lambda T, a: T.tensor_split(a, T.tensor([1, 2])), [(4,)]),
    ("tensor_split", lambda T, a: T.tensor_split(a, T.tensor(3), 1), [(2, 4)]),
    ("tensor_split", lambda T, a: T.tensor_split(a, 6), [(4,)]),
    ("hsplit", lambda T, a: T.hsplit(a, 2), [(4,)]),
    ("hsplit", lambda T, a: a.hsplit(2), [(2, 4, 3)]),
    ("hsplit", lambda T, a: T.hsplit(a, [1, 3]), [(2, 4)]),
    ("vsplit", lambda T, a: T.vsplit(a, 2), [(2, 4, 3)]),
    ("vsplit", lambda T, a: a.vsplit([1]), [(2, 4)]),
    ("dsplit", lambda T, a: T.dsplit(a, 3), [(2, 4, 6, 2)]),
    ("dsplit", lambda T, a: a.dsplit([2, 5]), [(2, 4, 6, 2)]),
    ("ravel", lambda T, a: T.ravel(a), [(2, 4, 3)]),
    ("ravel", lambda T, a: a.transpose(0, 1).ravel(), [(2, 4, 3)]),
    ("ravel", lambda T, a: T.ravel(a), [()]),
]


@pytest.mark.parametrize("name,fn,shapes", CASES, ids=[f"{c[0]}-{i}" for i, c in enumerate(CASES)])
def test_stacking_matches_torch(name, fn, shapes, torch):
    ours, theirs = _run(tinytorch, fn, shapes), _run(torch, fn, shapes)
    assert ours[0] == theirs[0]            # grad_fn names
    assert ours[3] == theirs[3]            # shapes
    for a, b in zip(ours[1], theirs[1]):
        np.testing.assert_array_equal(a, b)
    assert len(ours[2]) == len(theirs[2])
    for a, b in zip(ours[2], theirs[2]):
        np.testing.assert_allclose(a, b, rtol=1e-12)


def test_stacking_out_and_ravel_view(torch):
    for T in (tinytorch, torch):
        a, b = T.ones(2, 3), T.zeros(2, 3)
        out = T.empty(0)
        r = T.vstack([a, b], out=out)
        assert r is out and tuple(out.shape) == (4, 3)
        x = T.arange(6.0).reshape(2, 3)
        assert x.ravel().data_ptr() == x.data_ptr()
        assert x.t().ravel().data_ptr() != x.data_ptr()
        assert x.t().ravel().tolist() == [0.0, 3.0, 1.0, 4.0, 2.0, 5.0]


ERRORS = [
    "T.hsplit(T.ones(2, 5), 2)", "T.vsplit(T.ones(4), 2)", "T.dsplit(T.ones(2, 2), [1])",
    "T.tensor_split(T.tensor(1.0), 2)", "T.tensor_split(T.ones(4), 0)", "T.hstack([])", "T.hsplit(T.ones(2, 4), 0)",
    "T.tensor_split(T.ones(4), T.tensor([1.0]))", "T.tensor_split(T.ones(4), T.ones(2, 2, dtype=T.int64))",
]


@pytest.mark.parametrize("src", ERRORS)
def test_stacking_errors_match_torch(src, torch):
    def outcome(T):
        try:
            eval(src, {"T": T})
        except Exception as e:  # noqa: BLE001 - the exception is what is compared
            return type(e).__name__, str(e).replace("tinytorch.", "torch.")
        return None
    assert outcome(tinytorch) == outcome(torch) != None  # noqa: E711
