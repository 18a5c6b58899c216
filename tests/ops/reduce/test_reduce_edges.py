"""Edge cases of the reductions, scans, sorting ops, products and norms, each against PyTorch: empty
dims, 0-d inputs, broadcast batch dims, integer scalars, subgradients at 0, dtype casts; plus the
keepdims= alias and the vmap rules declared with these ops."""
import numpy as np
import pytest

import tinytorch

from _oracle import torch  # noqa: E402  (PyTorch when a test reads it)

RNG = np.random.default_rng(3)


def _np(t):
    return t.detach().numpy() if hasattr(t, "detach") else np.asarray(t)


def _leaves(out):
    return list(out) if isinstance(out, (tuple, list)) else [out]


def _run(L, fn, arrays, grad):
    xs = [L.tensor(a, requires_grad=grad and a.dtype.kind == "f") for a in arrays]
    out = fn(L, *xs)
    grads = None
    if grad:
        first = _leaves(out)[0]
        (first * L.tensor(np.linspace(0.5, 1.5, first.numel()).reshape(tuple(first.shape))).to(first.dtype)
         ).sum().backward()
        grads = [x.grad for x in xs if x.requires_grad]
    return out, grads


CASES = [
    # name, fn(L, *tensors), inputs, check gradients
    ("all_empty_dim_list", lambda L, x: L.all(x, dim=()), [np.array([[1, 0], [2, 3]])], False),
    ("any_dim_tuple", lambda L, x: L.any(x, dim=(0, 1), keepdim=True), [np.array([[0.0, 0], [0, 2]])], False),
    ("all_0d_dim_list", lambda L, x: L.all(x, dim=()), [np.array(3.0)], False),
    ("all_uint8", lambda L, x: (L.all(x), x.any(1)), [np.array([[1, 0], [2, 3]], dtype=np.uint8)], False),
    ("prod_empty", lambda L, x: x.prod(), [np.zeros(0)], True),
    ("prod_empty_other_dim", lambda L, x: x.prod(1), [np.zeros((3, 0))], True),
    ("prod_empty_keepdim", lambda L, x: x.prod(0, keepdim=True), [np.zeros(0)], True),
    ("aminmax_empty_other_dim", lambda L, x: L.aminmax(x, dim=0), [np.zeros((5, 0, 5))], False),
    ("unique_consecutive_empty_dim", lambda L, x: L.unique_consecutive(x, return_inverse=True, return_counts=True,
                                                                       dim=1), [np.zeros((5, 0, 5))], False),
    ("tensordot_broadcast_contracted", lambda L, a, b: L.tensordot(a, b, dims=([0, 1], [2, 0])),
     [RNG.standard_normal((1, 1, 1)), RNG.standard_normal((2, 1, 2))], True),
    ("addmv_int_scalars", lambda L, i, m, v: L.addmv(i, m, v, beta=0.2, alpha=1.6),
     [np.arange(5), np.arange(50).reshape(5, 10), np.arange(10)], False),
    ("baddbmm_int_scalars", lambda L, i, a, b: L.baddbmm(i, a, b, beta=2.7, alpha=0.6),
     [np.arange(4).reshape(1, 2, 2), np.ones((3, 2, 2), np.int64), np.ones((3, 2, 2), np.int64)], False),
    ("cdist_broadcast_batch", lambda L, a, b: L.cdist(a, b), [RNG.standard_normal((2, 4, 5)),
                                                          RNG.standard_normal((3, 5))], True),
    ("cdist_empty_batch", lambda L, a, b: L.cdist(a, b, 2.5), [RNG.standard_normal((0, 4, 5)),
                                                               RNG.standard_normal((3, 5))], True),
    ("max_dim_0d", lambda L, x: x.max(0), [np.array(2.0)], True),
    ("min_dim_0d_keepdim", lambda L, x: L.min(x, 0, True), [np.array(2.0)], True),
    ("softmax_dtype_grad", lambda L, x: L.softmax(x, 0, dtype=L.float64), [RNG.standard_normal(4).astype(np.float32)],
     True),
    ("log_softmax_dtype_grad", lambda L, x: x.log_softmax(0, L.float64), [RNG.standard_normal(4).astype(np.float32)],
     True),
] + [(f"vector_norm_{p}_at_zero", lambda L, x, p=p: L.linalg.vector_norm(x, p), [np.array([0.0, 1.0, -2.0])], True)
     for p in (0.5, -0.5, -1, -3.5, 1.5, 3)] + [
    ("linalg_norm_zeros", lambda L, x: L.linalg.norm(x, -2), [np.zeros(5)], True),
]


@pytest.mark.parametrize("name,fn,arrays,grad", CASES, ids=[c[0] for c in CASES])
def test_edge_cases_vs_torch(name, fn, arrays, grad):
    ours, our_grads = _run(tinytorch, fn, arrays, grad)
    theirs, their_grads = _run(torch, fn, [a.copy() for a in arrays], grad)
    for a, b in zip(_leaves(ours), _leaves(theirs)):
        assert tuple(a.shape) == tuple(b.shape)
        assert str(a.dtype).split(".")[-1] == str(b.dtype).split(".")[-1]
        np.testing.assert_allclose(_np(a), _np(b), rtol=1e-6, atol=1e-6)
    if grad:
        assert len(our_grads) == len(their_grads)
        for a, b in zip(our_grads, their_grads):
            assert str(a.dtype).split(".")[-1] == str(b.dtype).split(".")[-1]
            np.testing.assert_allclose(_np(a), _np(b), rtol=1e-6, atol=1e-6)


ERRORS = [
    ("aminmax_empty_reduced_dim", lambda L: L.aminmax(L.zeros(5, 0, 5), dim=1)),
    ("aminmax_empty_all", lambda L: L.aminmax(L.zeros(0, 3))),
    ("unique_consecutive_unselected_empty", lambda L: L.unique_consecutive(L.zeros(3, 0), dim=0)),
    ("keepdim_and_keepdims", lambda L: L.ones(2, 3).amax(1, keepdim=True, keepdims=True)),
    ("sum_keepdim_and_keepdims", lambda L: L.ones(2, 3).sum(1, True, keepdims=True)),
]


@pytest.mark.parametrize("name,call", ERRORS, ids=[e[0] for e in ERRORS])
def test_errors_vs_torch(name, call):
    got = []
    for L in (tinytorch, torch):
        with pytest.raises(Exception) as info:
            call(L)
        got.append((type(info.value), str(info.value)))
    assert got[0] == got[1]


def test_keepdims_alias_on_more_reductions():
    a = RNG.standard_normal((2, 3))
    for name, args in [("prod", (1,)), ("aminmax", ()), ("median", (0,)), ("logsumexp", (1,))]:
        kw = {"dim": 1} if name == "aminmax" else {}
        ours = getattr(tinytorch.tensor(a), name)(*args, keepdims=True, **kw)
        theirs = getattr(torch.tensor(a), name)(*args, keepdims=True, **kw)
        for x, y in zip(_leaves(ours), _leaves(theirs)):
            np.testing.assert_allclose(_np(x), _np(y), rtol=1e-12)


VMAPPED = [
    ("sum_dims", lambda L, x: x.sum((0, 1))),
    ("any_dim", lambda L, x: (x > 1).any(1, keepdim=True)),
    ("var_unbiased", lambda L, x: L.var(x, 1, keepdim=True)),
    ("max_dim", lambda L, x: x.max(0)),
    ("argmax_flat", lambda L, x: x.argmax()),
    ("argmin_dim_keepdim", lambda L, x: L.argmin(x, 1, keepdim=True)),
    ("logsumexp", lambda L, x: L.logsumexp(x, -1)),
    ("cumsum", lambda L, x: x.cumsum(1)),
    ("cummax", lambda L, x: L.cummax(x, 0)),
    ("prod_all", lambda L, x: L.prod(x)),
    ("sort_desc", lambda L, x: L.sort(x, 1, descending=True)),
    ("topk", lambda L, x: x.topk(2, dim=0)),
    ("kthvalue", lambda L, x: L.kthvalue(x, 2, 1)),
    ("median_all", lambda L, x: x.median()),
    ("aminmax", lambda L, x: L.aminmax(x)),
    ("count_nonzero", lambda L, x: L.count_nonzero(x > 0, 1)),
    ("matmul_vec", lambda L, x: x @ L.ones(4, dtype=L.float64)),
    ("mv", lambda L, x: L.mv(x.t(), L.ones(3, dtype=L.float64))),
    ("inv", lambda L, x: L.linalg.inv(x[:3, :3] + 3 * L.eye(3, dtype=L.float64))),
    ("slogdet", lambda L, x: L.linalg.slogdet(x[:3, :3])),
    ("vector_norm", lambda L, x: L.linalg.vector_norm(x, 3, 1)),
    ("norm", lambda L, x: x.norm(1)),
    ("outer", lambda L, x: L.outer(x[0], x[1])),
    ("einsum", lambda L, x: L.einsum("ij,kj->ik", x, x)),
]


@pytest.mark.parametrize("name,fn", VMAPPED, ids=[v[0] for v in VMAPPED])
def test_vmap_vs_torch(name, fn):
    a = RNG.standard_normal((5, 3, 4))
    ours = tinytorch.func.vmap(lambda x: fn(tinytorch, x))(tinytorch.tensor(a))
    theirs = torch.func.vmap(lambda x: fn(torch, x))(torch.tensor(a))
    assert type(ours).__name__ == type(theirs).__name__  # (values, indices) stay named tuples
    for x, y in zip(_leaves(ours), _leaves(theirs)):
        np.testing.assert_allclose(_np(x), _np(y), rtol=1e-10, atol=1e-12)


@pytest.mark.parametrize("name", ["sum", "mean", "nansum", "nanmean", "cumsum", "cumprod", "prod"])
def test_reductions_of_opposite_infinities_are_quiet_nan(name):
    """inf + -inf and inf * 0 inside a reduction: PyTorch gives NaN silently; numpy's RuntimeWarning must
    not leak out of tinytorch (the pooling gradient of a padded -inf window met it first)."""
    import warnings
    x = np.array([[np.inf, -np.inf, 1.0], [np.inf, 0.0, 2.0]], np.float32)
    with warnings.catch_warnings():
        warnings.simplefilter("error")
        for dim_args in ((1,),) if name in ("cumsum", "cumprod") else ((), (1,)):
            ours = getattr(tinytorch.tensor(x), name)(*dim_args)
            theirs = getattr(torch.tensor(x), name)(*dim_args)
            np.testing.assert_array_equal(ours.numpy(), theirs.numpy())


EMPTY_REDUCTIONS = [  # numpy warns on these ("Mean of empty slice", "Degrees of freedom <= 0"); PyTorch gives NaN
    lambda L: L.ones(0).mean(), lambda L: L.ones(0, 3).mean(0), lambda L: L.ones(0, 3).mean(1, keepdim=True),
    lambda L: L.ones(0, dtype=L.float64).mean(), lambda L: L.ones(0, dtype=L.float16).mean(),
    lambda L: L.mean(L.ones(0), dtype=L.float64), lambda L: L.ones(0).var(), lambda L: L.ones(0, 3).std(0),
    lambda L: L.ones(0, 3).std(1), lambda L: L.ones(3, 0).var(1, correction=0), lambda L: L.var_mean(L.ones(0))[0],
    lambda L: L.std_mean(L.ones(0, 3), 1)[1], lambda L: L.var_mean(L.ones(3), correction=3)[0],
    lambda L: L.cov(L.ones(2, 0)), lambda L: L.nn.functional.l1_loss(L.ones(0), L.ones(0)),
    lambda L: L.nn.functional.soft_margin_loss(L.ones(0), L.ones(0)),
    lambda L: L.nn.functional.poisson_nll_loss(L.ones(0), L.ones(0)),
]


@pytest.mark.parametrize("i", range(len(EMPTY_REDUCTIONS)))
def test_empty_reductions_are_nan_without_numpy_warnings(i):
    from _compare import outcome_and_warnings

    fn = EMPTY_REDUCTIONS[i]
    assert outcome_and_warnings(fn, tinytorch) == outcome_and_warnings(fn, torch)


@pytest.mark.parametrize("pick", ["max", "min", "sort", "topk", "kthvalue"])
def test_picked_values_gradient_writes_a_negative_zero_as_pytorch(pick):
    """The gradient of values picked by index is written into zeros (PyTorch's new_zeros + scatter), so a
    gradient of -0.0 stays -0.0 at the picked places (an add into zeros would make it +0.0)."""
    x = np.array([[0.5, -1.0, 2.0], [3.0, 1.0, -2.0]], np.float32)
    got = []
    for L in (torch, tinytorch):
        t = L.tensor(x, requires_grad=True)
        values = {"max": lambda: t.max(1)[0], "min": lambda: t.min(1)[0], "sort": lambda: t.sort(1)[0],
                  "topk": lambda: t.topk(2, 1)[0], "kthvalue": lambda: t.kthvalue(2, 1)[0]}[pick]()
        values.backward(L.full(tuple(values.shape), -0.0))
        got.append(np.signbit(t.grad.numpy()))
    np.testing.assert_array_equal(got[1], got[0])
    assert got[0].any()
