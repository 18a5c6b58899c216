"""broadcast_shapes/broadcast_tensors, diff, tril_indices/triu_indices and unravel_index against
PyTorch: values, dtypes, gradients, grad_fn names and error texts."""
import numpy as np
import pytest

import tinytorch


def _describe(T, r):
    if isinstance(r, T.Tensor):
        return ("tensor", r.dtype.name if T is tinytorch else str(r.dtype)[6:], tuple(r.shape), r.tolist(),
                type(r.grad_fn).__name__ if r.grad_fn is not None else None)
    if isinstance(r, tuple):
        return tuple(_describe(T, x) for x in r)
    return tuple(r) if isinstance(r, (list, tinytorch.Size)) or type(r).__name__ == "Size" else r


def _outcome(T, src):
    rng = np.random.default_rng(0)
    env = {"T": T, "x": T.tensor(rng.standard_normal((3, 4)), requires_grad=True),
           "v": T.tensor(rng.standard_normal(4), requires_grad=True)}
    try:
        return _describe(T, eval(src, env))
    except Exception as e:  # noqa: BLE001 - the exception is what is compared
        return ("raise", type(e).__name__, str(e).replace("tinytorch.", "torch."))


CASES = [
    "T.broadcast_shapes((2, 1), (3,))", "T.broadcast_shapes(3, (2, 1))", "T.broadcast_shapes()",
    "T.broadcast_shapes((2, 1, 4), (5, 1), ())", "T.broadcast_shapes((2,), (3,))",
    "T.broadcast_shapes((2, 4), (1, 3), (4,))", "T.broadcast_shapes((-1,), (2,))",
    "T.broadcast_tensors(x, v)", "T.broadcast_tensors(x[:, :1], v, T.tensor(2.0))", "T.broadcast_tensors(x)",
    "T.broadcast_tensors(T.ones(2), T.ones(3))",
    "T.diff(x)", "T.diff(x, dim=0)", "x.diff(n=2)", "T.diff(x, n=5, dim=0)", "T.diff(v, prepend=v[:2], append=v[:1])",
    "T.diff(x, append=T.zeros(3, 1, dtype=T.float64))", "T.diff(T.tensor([True, False, False]))",
    "T.diff(T.tensor([1, 5, 2]))", "T.diff(v, n=0, prepend=v).tolist()", "T.diff(T.tensor([1, 5, 2]), n=2)", "T.diff(T.tensor(1.0))",
    "T.diff(T.ones(3), n=-1)", "T.diff(T.ones(3, 2), prepend=T.ones(3))",
    "T.tril_indices(3, 4, 1)", "T.tril_indices(3, 3)", "T.tril_indices(4, 3, -2)", "T.tril_indices(0, 3)",
    "T.triu_indices(3, 3, -1, dtype=T.int32)", "T.triu_indices(3, 5, 2)", "T.triu_indices(2, 2, 5)",
    "T.tril_indices(3, 3, dtype=T.float32)",
    "T.unravel_index(T.tensor([4, 1]), (2, 3))", "T.unravel_index(T.tensor(4), (2, 3))",
    "T.unravel_index(T.tensor([[5, 0], [23, 7]]), (2, 3, 4))", "T.unravel_index(T.tensor([7, -1]), (2, 3))",
    "T.unravel_index(T.tensor([3]), 5)", "T.unravel_index(T.tensor([1.0]), (2,))",
]


@pytest.mark.parametrize("src", CASES)
def test_matches_torch(src, torch):
    assert _outcome(tinytorch, src) == _outcome(torch, src)


GRADS = [
    lambda T, x, v: sum((t * t).sum() for t in T.broadcast_tensors(x, v)),
    lambda T, x, v: (T.diff(x, n=2) ** 2).sum() + T.diff(v, prepend=v[:2]).pow(3).sum(),
    lambda T, x, v: T.diff(x, dim=0, append=x[:1]).exp().sum() + T.diff(v, n=3).sum(),
]


@pytest.mark.parametrize("i", range(len(GRADS)))
def test_gradients_match_torch(i, torch):
    def grads(T):
        rng = np.random.default_rng(1)
        x = T.tensor(rng.standard_normal((3, 4)), requires_grad=True)
        v = T.tensor(rng.standard_normal(4), requires_grad=True)
        GRADS[i](T, x, v).backward()
        return x.grad.numpy(), v.grad.numpy()
    for a, b in zip(grads(tinytorch), grads(torch)):
        np.testing.assert_allclose(a, b, rtol=1e-12)


# -- deg2rad, rad2deg, sinc: values, first and second derivatives, grad_fn names -----------------------
@pytest.mark.parametrize("name", ["deg2rad", "rad2deg", "sinc"])
def test_trig_matches_torch(name, torch):
    def run(T):
        x = T.tensor([0.0, 0.5, 1.3, -2.0, 1e-3, 7.25], dtype=T.float64, requires_grad=True)
        y = getattr(T, name)(x)
        (g,) = T.autograd.grad((y * y).sum(), x, create_graph=True)
        (gg,) = T.autograd.grad(g.sum(), x, allow_unused=True)
        ints = getattr(T, name)(T.tensor([0, 90, 180]))
        z = T.tensor([0.25, 2.0])
        getattr(z, name + "_")()
        return (y.detach().numpy(), type(y.grad_fn).__name__, g.detach().numpy(),
                None if gg is None else gg.numpy(), ints.numpy(), str(ints.dtype)[-7:], z.numpy())
    for a, b in zip(run(tinytorch), run(torch)):
        if isinstance(a, np.ndarray):
            np.testing.assert_allclose(a, b, rtol=1e-6, atol=1e-12)
        else:
            assert a == b


# -- fmod, copysign, fmax, fmin, float_power --------------------------------------------------------------
BINARY_SRC = [
    "T.fmod(a, b)", "T.fmod(a, 1.5)", "a.fmod(-2)", "T.fmod(T.tensor([-7, 7, 5]), 3)", "T.fmod(T.tensor([-7, 7]), T.tensor([2, -3]))",
    "T.copysign(a, b)", "T.copysign(a, -1.0)", "a.copysign(T.tensor([0.0, -0.0, 1.0, -1.0]))", "T.copysign(T.tensor([1, -2]), 1)",
    "T.fmax(a, b)", "T.fmin(a, b)", "a.fmax(T.tensor([float('nan'), 1.0, 0.0, 9.0], dtype=T.float64))",
    "T.fmin(T.tensor([1, 5]), T.tensor([3, 2]))",
    "T.float_power(a, b)", "T.float_power(a, 2)", "a.float_power(0.5)", "T.float_power(T.tensor([2, 3]), 3)",
    "T.float_power(2, T.tensor([1.0, 2.0]))",
]


def _binary_outcome(T, src):
    a = T.tensor([-3.0, 2.5, 0.5, 4.0], dtype=T.float64, requires_grad=True)
    b = T.tensor([2.0, -1.5, 1.25, float("nan")], dtype=T.float64, requires_grad=True)
    try:
        y = eval(src, {"T": T, "a": a, "b": b})
    except Exception as e:  # noqa: BLE001 - the exception is what is compared
        return ("raise", type(e).__name__, str(e))
    grads = ()
    if y.requires_grad:
        gs = T.autograd.grad((y * y).sum(), [a, b], allow_unused=True)
        grads = tuple(None if g is None else np.nan_to_num(g.numpy(), nan=123.0).tolist() for g in gs)
    return (np.nan_to_num(y.detach().numpy(), nan=123.0).tolist(), str(y.dtype)[-7:],
            type(y.grad_fn).__name__ if y.grad_fn is not None else None, grads)


@pytest.mark.parametrize("src", BINARY_SRC)
def test_floating_binary_matches_torch(src, torch):
    ours, theirs = _binary_outcome(tinytorch, src), _binary_outcome(torch, src)
    assert ours[1:3] == theirs[1:3]
    np.testing.assert_allclose(np.array(ours[0], dtype=float), np.array(theirs[0], dtype=float), rtol=1e-12)
    assert len(ours[3]) == len(theirs[3])
    for g1, g2 in zip(ours[3], theirs[3]):
        assert (g1 is None) == (g2 is None)
        if g1 is not None:
            np.testing.assert_allclose(g1, g2, rtol=1e-12)


def test_floating_binary_inplace_and_out(torch):
    for T in (tinytorch, torch):
        x = T.tensor([5.0, -5.0])
        x.fmod_(3)
        assert x.tolist() == [2.0, -2.0]
        x.copysign_(T.tensor([-1.0, 1.0]))
        assert x.tolist() == [-2.0, 2.0]
        d = T.tensor([2.0, 3.0], dtype=T.float64)
        d.float_power_(2)
        assert d.tolist() == [4.0, 9.0]
        out = T.empty(2)
        assert T.fmax(T.tensor([1.0, float("nan")]), T.tensor([0.0, 2.0]), out=out) is out
        assert out.tolist() == [1.0, 2.0]
    msgs = []
    for T in (tinytorch, torch):
        with pytest.raises(RuntimeError) as info:
            T.tensor([1.0]).float_power_(2)
        msgs.append(str(info.value))
    assert msgs[0] == msgs[1]


# -- addcmul, addcdiv ------------------------------------------------------------------------------------
TERNARY_SRC = [
    "T.addcmul(a, b, c)", "T.addcmul(a, b, c, value=0.5)", "a.addcmul(b[:1], c, value=-2)", "T.addcmul(a[0], b, c)",
    "T.addcdiv(a, b, c)", "T.addcdiv(a, b, c, value=0.5)", "a.addcdiv(b, c[:, :1], value=3)",
    "T.addcmul(T.tensor([1]), T.tensor([1]), T.tensor([2]), value=3)", "T.addcmul(T.tensor([1]), T.tensor([1.0]), T.tensor([2]))",
    "T.addcdiv(T.tensor([1]), T.tensor([1]), T.tensor([2]))", "T.addcdiv(T.tensor([1.0]), T.tensor([3]), T.tensor([2]))",
    "T.addcmul(a.float(), b, c)",
]


def _ternary_outcome(T, src):
    rng = np.random.default_rng(3)
    a, b, c = (T.tensor(rng.standard_normal((2, 3)) + 2, dtype=T.float64, requires_grad=True) for _ in range(3))
    try:
        y = eval(src, {"T": T, "a": a, "b": b, "c": c})
    except Exception as e:  # noqa: BLE001 - the exception is what is compared
        return ("raise", type(e).__name__, str(e)), ()
    first = second = ()
    if y.requires_grad:
        gs = T.autograd.grad((y * y).sum(), [a, b, c], create_graph=True)
        first = [g.detach().numpy() for g in gs]
        second = [g.numpy() for g in T.autograd.grad(sum(g.sum() for g in gs), [a, b, c], allow_unused=True)]
    return (y.detach().numpy().tolist(), str(y.dtype)[-7:],
            type(y.grad_fn).__name__ if y.grad_fn is not None else None), (first, second)


@pytest.mark.parametrize("src", TERNARY_SRC)
def test_addcmul_addcdiv_match_torch(src, torch):
    (ours, og), (theirs, tg) = _ternary_outcome(tinytorch, src), _ternary_outcome(torch, src)
    if ours[0] == "raise" or theirs[0] == "raise":
        assert ours == theirs
        return
    assert ours[1:] == theirs[1:]
    np.testing.assert_allclose(ours[0], theirs[0], rtol=1e-6)
    for xs, ys in zip(og, tg):
        for x, y in zip(xs, ys):
            np.testing.assert_allclose(x, y, rtol=1e-6)


def test_addcmul_inplace_and_out(torch):
    for T in (tinytorch, torch):
        x = T.ones(2)
        x.addcmul_(T.tensor([2.0, 3.0]), T.tensor([4.0, 5.0]), value=0.5).addcdiv_(T.ones(2), T.tensor([2.0, 4.0]))
        assert x.tolist() == [5.5, 8.75]
        out = T.empty(2)
        assert T.addcdiv(T.ones(2), T.ones(2), T.full((2,), 4.0), out=out) is out and out.tolist() == [1.25, 1.25]


# -- nansum, nanmean -----------------------------------------------------------------------------------
NAN_SRC = [
    "T.nansum(x)", "T.nansum(x, 1)", "x.nansum(dim=(0, 2), keepdim=True)", "T.nansum(x, -1, dtype=T.float32)",
    "T.nanmean(x)", "T.nanmean(x, 0)", "x.nanmean(dim=[1, 2], keepdim=True)", "T.nanmean(x[:1, :1, :1] * float('nan'))",
    "T.nansum(T.tensor([[1, 2], [3, 4]]), 0)", "T.nansum(T.tensor([True, True]))", "T.nanmean(T.tensor([1, 2]))",
    "T.nansum(T.tensor(float('nan'), dtype=T.float64))",
]


def _nan_outcome(T, src):
    rng = np.random.default_rng(4)
    data = rng.standard_normal((2, 3, 4))
    data[0, 1, 2] = data[1, 0, 0] = data[1, 2, 3] = np.nan
    x = T.tensor(data, requires_grad=True)
    try:
        y = eval(src, {"T": T, "x": x})
    except Exception as e:  # noqa: BLE001 - the exception is what is compared
        return ("raise", type(e).__name__, str(e)), None
    grad = None
    if y.requires_grad:
        (grad,) = T.autograd.grad((y * y).nansum(), [x])
        grad = np.nan_to_num(grad.numpy(), nan=123.0)
    return (np.nan_to_num(y.detach().numpy(), nan=123.0).tolist(), str(y.dtype)[-7:],
            type(y.grad_fn).__name__ if y.grad_fn is not None else None), grad


@pytest.mark.parametrize("src", NAN_SRC)
def test_nan_reductions_match_torch(src, torch):
    (ours, og), (theirs, tg) = _nan_outcome(tinytorch, src), _nan_outcome(torch, src)
    if ours[0] == "raise" or theirs[0] == "raise":
        assert ours == theirs
        return
    assert ours[1:] == theirs[1:]
    np.testing.assert_allclose(ours[0], theirs[0], rtol=1e-6)
    assert (og is None) == (tg is None)
    if og is not None:
        np.testing.assert_allclose(og, tg, rtol=1e-6)


# -- searchsorted, bucketize, isin -----------------------------------------------------------------------
SEARCH_SRC = [
    "T.searchsorted(T.tensor([1, 3, 5, 7]), T.tensor([[3, 6], [0, 9]]))",
    "T.searchsorted(T.tensor([1, 3, 5, 7]), T.tensor([3, 5]), right=True)",
    "T.searchsorted(T.tensor([1.0, 3.0]), T.tensor([3.0]), side='right', out_int32=True)",
    "T.searchsorted(T.tensor([[1, 3, 5], [2, 4, 6]]), T.tensor([[3, 6], [1, 7]]))",
    "T.searchsorted(T.tensor([1, 3, 5]), 3)", "T.searchsorted(T.tensor([1, 3, 5]), 3, right=True)",
    "T.searchsorted(T.tensor([3.0, 1.0, 2.0]), T.tensor([2.5, 0.0]), sorter=T.tensor([1, 2, 0]))",
    "T.searchsorted(T.tensor([1, 3]), T.tensor([1]), side='right', right=False)",
    "T.searchsorted(T.tensor([1, 3]), T.tensor([1]), side='left', right=True)",
    "T.searchsorted(T.tensor([1, 3]), T.tensor([1]), side='foo')",
    "T.searchsorted(T.tensor([[1, 3, 5], [2, 4, 6]]), T.tensor([1, 2]))",
    "T.bucketize(T.tensor([1, 5, 9, 0]), T.tensor([1, 5]))", "T.bucketize(T.tensor([[1.0, 5.5]]), T.tensor([1.0, 5.0]), right=True)",
    "T.bucketize(3, T.tensor([1, 5]))", "T.bucketize(T.tensor([1]), T.tensor([1, 2]), out_int32=True)",
    "T.bucketize(T.tensor([1]), T.ones(2, 2))",
    "T.isin(T.tensor([1, 2, 3]), T.tensor([2, 9]))", "T.isin(2, T.tensor([2]))",
    "T.isin(T.tensor([1.0, 2.0]), 2, invert=True)", "T.isin(T.tensor([[1, 2], [3, 4]]), T.tensor([4, 1]), assume_unique=True)",
]


@pytest.mark.parametrize("src", SEARCH_SRC)
def test_search_and_membership_match_torch(src, torch):
    assert _outcome(tinytorch, src) == _outcome(torch, src)


# -- var_mean, std_mean ----------------------------------------------------------------------------------
MOMENT_SRC = [
    "T.var_mean(x)", "T.std_mean(x)", "T.var_mean(x, 1)", "T.std_mean(x, (0, 2), keepdim=True)",
    "T.var_mean(x, dim=-1, correction=0)", "T.std_mean(x, 1, False)", "T.var_mean(x, False)",
    "T.var_mean(x, [0, 1], True, True)", "T.std_mean(x[:1, :1, :1], correction=0)", "T.var_mean(x[0, 0, 0])",
    "T.var_mean(T.tensor([1, 2]))",
]


def _moment_outcome(T, src, which):
    x = T.tensor(np.random.default_rng(5).standard_normal((2, 3, 4)), requires_grad=True)
    try:
        first, mean = eval(src, {"T": T, "x": x})
    except Exception as e:  # noqa: BLE001 - the exception is what is compared
        return ("raise", type(e).__name__, str(e)), None
    loss = (first * first).sum() * (which != 1) + (mean * mean * 3).sum() * (which != 0)
    (g,) = T.autograd.grad(loss, [x], create_graph=True)
    (gg,) = T.autograd.grad(g.pow(2).sum(), [x])
    return ([np.nan_to_num(t.detach().numpy(), nan=123.0).tolist() for t in (first, mean)],
            type(first.grad_fn).__name__, mean.grad_fn is first.grad_fn), \
        (np.nan_to_num(g.detach().numpy(), nan=123.0), np.nan_to_num(gg.numpy(), nan=123.0))


@pytest.mark.parametrize("which", [0, 1, 2])
@pytest.mark.parametrize("src", MOMENT_SRC)
def test_var_mean_std_mean_match_torch(src, which, torch):
    (ours, og), (theirs, tg) = _moment_outcome(tinytorch, src, which), _moment_outcome(torch, src, which)
    if ours[0] == "raise" or theirs[0] == "raise":
        assert ours == theirs
        return
    assert ours[1:] == theirs[1:]
    np.testing.assert_allclose(ours[0], theirs[0], rtol=1e-10)
    for a, b in zip(og, tg):
        np.testing.assert_allclose(a, b, rtol=1e-8, atol=1e-12)


# -- rot90 -----------------------------------------------------------------------------------------------
ROT_SRC = ["T.rot90(x)", "T.rot90(x, 2)", "x.rot90(-1, [1, 2])", "T.rot90(x, 5, (2, 0))", "T.rot90(x, 0)",
           "T.rot90(x, 3, (-1, -3))", "T.rot90(x, 1, (0, 0))", "T.rot90(x, 1, (0, 1, 2))", "T.rot90(x[0, 0])"]


@pytest.mark.parametrize("src", ROT_SRC)
def test_rot90_matches_torch(src, torch):
    def run(T):
        x = T.tensor(np.arange(24.0).reshape(2, 3, 4), requires_grad=True)
        try:
            y = eval(src, {"T": T, "x": x})
        except Exception as e:  # noqa: BLE001 - the exception is what is compared
            return ("raise", type(e).__name__, str(e))
        w = T.tensor(np.random.default_rng(6).standard_normal(tuple(y.shape)))
        (g,) = T.autograd.grad((y * w).sum(), [x])
        return y.tolist(), tuple(y.shape), type(y.grad_fn).__name__, g.tolist()
    assert run(tinytorch) == run(torch)
