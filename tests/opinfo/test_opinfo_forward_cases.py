"""Differential tests for forward differences the OpInfo walk found (issues 20/22): each case is one
family of op_db samples that did not match PyTorch, checked here directly on generated inputs."""
import numpy as np
import pytest

from _oracle import torch  # noqa: E402  (PyTorch when a test reads it)
import tinytorch as tt  # noqa: E402

import _paths  # noqa: E402


def _tt(x):
    return tt.from_numpy(x.detach().numpy().copy())


def _same(got, expected):
    torch.testing.assert_close(torch.from_numpy(np.array(got.detach().numpy(), copy=True)), expected, equal_nan=True)


# -- unfold / fold: PyTorch's im2col and col2im take bool, integers raise ------------------------------
@pytest.mark.parametrize("shape", [(2, 3, 5, 6), (3, 5, 6)])
def test_unfold_bool(shape):
    g = torch.Generator().manual_seed(0)
    x = torch.rand(shape, generator=g) > 0.5
    kw = dict(dilation=(1, 2), padding=1, stride=(2, 1))
    _same(tt.nn.functional.unfold(_tt(x), (2, 2), **kw), torch.nn.functional.unfold(x, (2, 2), **kw))


def test_fold_bool_overlapping_blocks_or():
    g = torch.Generator().manual_seed(1)
    cols = torch.rand(2, 12, 12, generator=g) > 0.7
    _same(tt.nn.functional.fold(_tt(cols), (4, 5), 2), torch.nn.functional.fold(cols, (4, 5), 2))


@pytest.mark.parametrize("fn, args, shape", [("unfold", (2,), (1, 2, 4, 4)), ("fold", ((4, 4), 2), (1, 4, 9))])
def test_fold_integer_raises(fn, args, shape):
    x = torch.ones(shape, dtype=torch.int64)
    with pytest.raises(NotImplementedError) as want:
        getattr(torch.nn.functional, fn)(x, *args)
    with pytest.raises(NotImplementedError) as got:
        getattr(tt.nn.functional, fn)(_tt(x), *args)
    assert str(got.value) == str(want.value)


# -- random ops: the same seed gives PyTorch's draws (what op_db's wrapper_set_seed compares) -----------
_RANDOM_CASES = {
    "randint": lambda lib, x: lib.randint(3, 10, (4, 5)),
    "randint_like": lambda lib, x: lib.randint_like(x, 2, 7),
    "rand_like": lambda lib, x: lib.rand_like(x),
    "randn_like": lambda lib, x: lib.randn_like(x),
    "normal": lambda lib, x: lib.normal(x, x.abs()),
    "multinomial": lambda lib, x: lib.multinomial(x[0].abs() + 0.1, 3, replacement=True),
    "bernoulli": lambda lib, x: lib.bernoulli(x.sigmoid()),
    "geometric_": lambda lib, x: x.clone().geometric_(0.3),
    "exponential_": lambda lib, x: x.clone().exponential_(2.0),
    "dropout": lambda lib, x: lib.nn.functional.dropout(x, 0.4),
    "dropout2d": lambda lib, x: lib.nn.functional.dropout2d(x[None], 0.5),
    "alpha_dropout": lambda lib, x: lib.nn.functional.alpha_dropout(x, 0.3, training=True),
    "rrelu": lambda lib, x: lib.nn.functional.rrelu(x, training=True),
}


@pytest.mark.parametrize("name", sorted(_RANDOM_CASES))
@pytest.mark.parametrize("dtype", ["float32", "float64"])
def test_random_streams_match(name, dtype):
    x = torch.randn(3, 4, 5, generator=torch.Generator().manual_seed(3)).to(getattr(torch, dtype))
    fn = _RANDOM_CASES[name]
    torch.manual_seed(42)
    want = fn(torch, x)
    tt.manual_seed(42)
    got = fn(tt, _tt(x))
    _same(got, want)


# -- bernoulli(p) and normal(mean, std) are in the graph with zero gradients, as in PyTorch ---------------
_PARAM_CASES = {
    "bernoulli": lambda lib, a, b: lib.bernoulli(a.sigmoid()),
    "normal_tensor_tensor": lambda lib, a, b: lib.normal(a, b.abs()),
    "normal_tensor_float": lambda lib, a, b: lib.normal(a, 2.0),
    "normal_float_tensor": lambda lib, a, b: lib.normal(1.5, b.abs()),
}


@pytest.mark.parametrize("name", sorted(_PARAM_CASES))
def test_random_parameter_gradients(name):
    gen = torch.Generator().manual_seed(5)
    a, b = torch.randn(2, 3, generator=gen, dtype=torch.float64), torch.randn(2, 1, generator=gen)
    ta, tb = _tt(a).requires_grad_(True), _tt(b).requires_grad_(True)
    a.requires_grad_(True), b.requires_grad_(True)
    fn = _PARAM_CASES[name]
    torch.manual_seed(0)
    want = fn(torch, a, b)
    tt.manual_seed(0)
    got = fn(tt, ta, tb)
    _same(got, want)
    assert type(got.grad_fn).__name__ == type(want.grad_fn).__name__
    leaves_t, leaves_tt = (a, b), (ta, tb)
    cot = torch.randn(want.shape, generator=gen, dtype=want.dtype)
    g_t = torch.autograd.grad(want, leaves_t, cot, allow_unused=True)
    g_tt = tt.autograd.grad(got, leaves_tt, _tt(cot), allow_unused=True)
    for w, g, x in zip(g_t, g_tt, leaves_t):
        w = torch.zeros_like(x) if w is None else w
        g = torch.zeros_like(x) if g is None else torch.from_numpy(np.array(g.numpy(), copy=True))
        torch.testing.assert_close(g, w)


# -- a product with an inner dimension of 1 is row-major, as PyTorch's GEMM result: a dropout drawn on
# it (multi_head_attention_forward with head_dim 1) then takes PyTorch's mask --------------------------
@pytest.mark.parametrize("fn", ["bmm", "matmul"])
def test_inner_one_product_layout_and_dropout(fn):
    gen = torch.Generator().manual_seed(2)
    q = torch.randn(3, 4, 1, generator=gen, dtype=torch.float64)
    k = torch.randn(4, 4, 1, generator=gen, dtype=torch.float64)
    want = getattr(torch, fn)(q.transpose(0, 1), k.transpose(0, 1).transpose(-2, -1))
    got = getattr(tt, fn)(_tt(q).transpose(0, 1), _tt(k).transpose(0, 1).transpose(-2, -1))
    assert tuple(got.stride()) == tuple(want.stride())
    torch.manual_seed(42)
    want_d = torch.nn.functional.dropout(want.softmax(-1), 0.5)
    tt.manual_seed(42)
    _same(tt.nn.functional.dropout(got.softmax(-1), 0.5), want_d)


def test_multi_head_attention_dropout_head_dim_one():
    gen = torch.Generator().manual_seed(4)
    x = torch.randn(3, 2, 2, generator=gen, dtype=torch.float64)
    w_in, b_in = torch.randn(6, 2, generator=gen, dtype=torch.float64), torch.randn(6, generator=gen, dtype=torch.float64)
    w_out, b_out = torch.randn(2, 2, generator=gen, dtype=torch.float64), torch.randn(2, generator=gen, dtype=torch.float64)
    args = (2, 2, w_in, b_in, None, None, False, 0.5, w_out, b_out)
    torch.manual_seed(42)
    want = torch.nn.functional.multi_head_attention_forward(x, x, x, *args, training=True)
    tt.manual_seed(42)
    got = tt.nn.functional.multi_head_attention_forward(_tt(x), _tt(x), _tt(x),
                                                        *[_tt(a) if isinstance(a, torch.Tensor) else a for a in args],
                                                        training=True)
    _same(got[0], want[0])
    _same(got[1], want[1])


# -- integer arange / linspace from float bounds: PyTorch truncates the bounds (and arange's step) -------
def _outcome(fn):
    try:
        return fn().tolist()
    except Exception as e:  # noqa: BLE001 - the error is the outcome compared
        return type(e).__name__, str(e)


_ARANGE = [(0.5, 0.7, 1.0), (0.9, 0.2, -0.5), (3.1,), (0.2, 3.9, 0.9), (2.1, -2.9, -1.0), (0.1, -7.9, -4.0),
           (1.0, 5.000001, 2.0), (-0.9, 2.1, 2.0), (5, 0, -1.5), (0, 3, 0.5), (-3.5, 3.5, 0.9), (3,)]


@pytest.mark.parametrize("args", _ARANGE)
@pytest.mark.parametrize("dtype", ["int64", "int32", "uint8", "bool"])
def test_integer_arange(args, dtype):
    want = _outcome(lambda: torch.arange(*args, dtype=getattr(torch, dtype)))
    assert _outcome(lambda: tt.arange(*args, dtype=getattr(tt, dtype))) == want


@pytest.mark.parametrize("bounds", [(4.3, 0), (4.3, 50), (4.3, -3), (-3.7, 2.0), (0.5, -0.5), (7.9, -2.9)])
@pytest.mark.parametrize("steps", [1, 2, 7, 50, 51])
@pytest.mark.parametrize("dtype", ["int64", "int32", "bool"])
def test_integer_linspace(bounds, steps, dtype):
    want = _outcome(lambda: torch.linspace(*bounds, steps, dtype=getattr(torch, dtype)))
    got = _outcome(lambda: tt.linspace(*bounds, steps, dtype=getattr(tt, dtype)))
    if isinstance(want, list) and isinstance(got, list) and not _paths.running(_paths.FMA_PATHS):
        # PyTorch's DEFAULT build rounds start + step * i twice (one FMA on AVX2/AVX512, which tinytorch
        # follows, bit for bit there): a value on an integer truncates to its neighbour, 1 apart at most
        _paths.assert_bits(np.array(got), np.array(want), ulps=1, what="integer linspace")
        return
    assert got == want


def test_integer_linspace_tensor_bounds():
    want = torch.linspace(torch.tensor(4.3), torch.tensor(1), 50, dtype=torch.int64)
    _same(tt.linspace(tt.tensor(4.3), tt.tensor(1), 50, dtype=tt.int64), want)


# -- normalize of a 0-d tensor: dim 0 / -1 is its one element -------------------------------------------
@pytest.mark.parametrize("p", [1.2, 2.0, 1.0, 0.0])
@pytest.mark.parametrize("dim", [0, -1, 1])
def test_normalize_zero_dim(p, dim):
    x = torch.tensor(-0.9, dtype=torch.float64, requires_grad=True)
    tx = tt.tensor(-0.9, dtype=tt.float64, requires_grad=True)
    try:
        want = torch.nn.functional.normalize(x, p=p, dim=dim)
    except IndexError as e:
        with pytest.raises(IndexError, match=__import__("re").escape(str(e))):
            tt.nn.functional.normalize(tx, p=p, dim=dim)
        return
    got = tt.nn.functional.normalize(tx, p=p, dim=dim)
    _same(got, want)
    _same(tt.autograd.grad(got, tx)[0], torch.autograd.grad(want, x)[0])


def test_normal_takes_layout():
    torch.manual_seed(3)
    want = torch.normal(0.3, 1.6, [2, 2], layout=torch.strided, pin_memory=False)
    tt.manual_seed(3)
    _same(tt.normal(0.3, 1.6, [2, 2], layout=None, pin_memory=False), want)


# -- kthvalue's index among equal values: PyTorch's quickselect, not a stable sort -----------------------
@pytest.mark.parametrize("seed", range(6))
def test_kthvalue_tie_index(seed):
    rng = np.random.default_rng(seed)
    for _ in range(40):
        shape = tuple(int(v) for v in rng.integers(1, 9, size=rng.integers(1, 4)))
        x = rng.integers(-3, 4, size=shape)
        if seed % 3 == 1:
            x = x.astype(np.float64)
            x[rng.random(shape) < 0.2] = np.nan
        elif seed % 3 == 2:
            x = x.astype(np.float32)
        d = int(rng.integers(0, len(shape)))
        k = int(rng.integers(1, shape[d] + 1))
        want = torch.kthvalue(torch.from_numpy(x), k, d, keepdim=bool(seed % 2))
        got = tt.kthvalue(tt.from_numpy(x), k, d, keepdim=bool(seed % 2))
        _same(got.values, want.values)
        _same(got.indices, want.indices)


def test_kthvalue_long_tied_line():
    x = torch.ones(1050, dtype=torch.float64)
    x[::7] = 0.0
    for k in (1, 150, 151, 500, 1050):
        _same(tt.kthvalue(_tt(x), k).indices, torch.kthvalue(x, k).indices)


# -- topk's indices among equal values: libstdc++'s nth_element + sort, or partial_sort when k * 64 <= n --
@pytest.mark.parametrize("n, k", [(10, 3), (5, 5), (40, 20), (40, 17), (200, 3), (128, 2), (300, 30), (70, 1)])
def test_topk_tie_indices(n, k):
    rng = np.random.default_rng(n * 100 + k)
    for t in range(12):
        x = rng.integers(-3, 4, size=(3, n))
        if t % 3 == 0:
            x = x.astype(np.float64)
            x[rng.random(x.shape) < 0.1] = np.nan
        elif t % 3 == 1:
            x = x > 0
        if x.dtype == np.bool_:
            with pytest.raises(RuntimeError, match="topk does not support bool dtypes on CPU"):
                torch.topk(torch.from_numpy(x), k, 1)
            with pytest.raises(RuntimeError, match="topk does not support bool dtypes on CPU"):
                tt.topk(tt.from_numpy(x), k, 1)
            continue
        for largest in (True, False):
            for srt in (True, False):
                want = torch.topk(torch.from_numpy(x), k, 1, largest, srt)
                got = tt.topk(tt.from_numpy(x), k, 1, largest, srt)
                _same(got.indices, want.indices)
                _same(got.values, want.values)
