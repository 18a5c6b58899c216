"""Differential tests (against PyTorch) for inputs the merges of the numerics and gpt branches did not
cover: polygamma's non-finite and half inputs, cdist's and multi_dot's dtype checks, attention over no
keys, as_strided_scatter on views."""
import warnings

import numpy as np
import pytest

import tinytorch as tt

torch = pytest.importorskip("torch")


def _same(ours, theirs, rtol=0.0, atol=0.0):
    assert str(ours.dtype).split(".")[-1] == str(theirs.dtype).split(".")[-1]
    assert tuple(ours.shape) == tuple(theirs.shape)
    o, t = ours.detach(), theirs.detach().resolve_conj()
    if t.dtype == torch.bfloat16:
        o, t = o.float(), t.float()
    np.testing.assert_allclose(o.numpy(), t.numpy(), rtol=rtol, atol=atol)


def _raises_alike(fn):
    with pytest.raises(Exception) as theirs:
        fn(torch)
    with pytest.raises(type(theirs.value)) as ours:
        fn(tt)
    assert str(ours.value) == str(theirs.value)


# -- polygamma: non-finite, pole and half inputs (the shift recurrence looped forever on -inf) -------
def _np_dtype(name):
    """numpy's dtype for a tinytorch dtype name; bfloat16's comes from the optional ml_dtypes (skip without it)."""
    if name == "bfloat16":
        return pytest.importorskip("ml_dtypes").bfloat16
    return {"float16": np.float16, "float32": np.float32, "float64": np.float64}[name]


_SPECIAL = [-np.inf, np.inf, np.nan, 0.0, -0.0, -1.0, -3.0, -1e30, -3e9, 1e30, -5.5, 0.25, 2.5, 7.0, 40.0]


@pytest.mark.parametrize("n", [1, 2, 3, 4])
@pytest.mark.parametrize("dtype", ["float16", "bfloat16", "float32", "float64"])
def test_polygamma_special_values(n, dtype):
    v = np.array(_SPECIAL)
    with np.errstate(all="ignore"):  # numpy's cast warns at 1e30 -> inf and at NaN
        x = tt.tensor(v.astype(_np_dtype(dtype)))
    with warnings.catch_warnings():
        warnings.simplefilter("error")  # the library never prints: no numpy overflow warnings either
        ours = tt.polygamma(n, x)
    theirs = torch.polygamma(n, torch.tensor(v).to(getattr(torch, dtype)))
    finite = np.isfinite(theirs.double().numpy())
    assert np.array_equal(np.isfinite(ours.double().numpy()), finite)
    np.testing.assert_array_equal(ours.double().numpy()[~finite], theirs.double().numpy()[~finite])
    # PyTorch's n >= 2 runs its zeta series in the half types' float32 opmath, tinytorch in float64
    rtol = {"float16": 1e-2, "bfloat16": 1e-2, "float32": 1e-5, "float64": 1e-10}[dtype]
    _same(ours[tt.tensor(finite)], theirs[torch.tensor(finite)], rtol=rtol, atol=1e-6 if n > 1 else 0)


@pytest.mark.parametrize("dtype", ["float16", "bfloat16"])
def test_trigamma_half_every_value(dtype):
    """polygamma(1, x) for half inputs as PyTorch computes it (in float32, rounded once): every value."""
    bits = torch.arange(-2 ** 15, 2 ** 15, dtype=torch.int32).to(torch.int16)
    x = bits.view(getattr(torch, dtype))
    theirs = torch.polygamma(1, x).float().numpy()
    with np.errstate(all="ignore"):
        ours = tt.polygamma(1, tt.tensor(x.float().numpy().astype(_np_dtype(dtype)))).float().numpy()
    np.testing.assert_array_equal(ours, theirs)


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


# -- scaled_dot_product_attention over no keys ------------------------------------------------------
@pytest.mark.parametrize("kw", [{}, {"is_causal": True}, {"mask": "bool"}, {"mask": "float"}])
@pytest.mark.parametrize("lead", [(2, 3), (3,)])
@pytest.mark.parametrize("grad", [False, True])
def test_sdpa_zero_keys(kw, lead, grad):
    rng = np.random.default_rng(0)
    q, k, v = rng.standard_normal(lead + (4, 8)), np.zeros(lead + (0, 8)), np.zeros(lead + (0, 8))
    mask = {"bool": np.ones((4, 0), dtype=bool), "float": np.zeros((4, 0))}.get(kw.get("mask"))
    outs = []
    for m in (torch, tt):
        ins = [m.tensor(a, requires_grad=grad) for a in (q, k, v)]
        y = m.nn.functional.scaled_dot_product_attention(*ins, attn_mask=None if mask is None else m.tensor(mask),
                                                         is_causal=kw.get("is_causal", False))
        grads = m.autograd.grad(y, ins, m.ones_like(y)) if grad else ()
        outs.append((y, grads))
    (yt, gt), (yu, gu) = outs
    _same(yu, yt)
    for a, b in zip(gu, gt):
        _same(a, b)


# -- as_strided_scatter on views: the window is in the input's storage ------------------------------
_VIEWS = {"offset rows": lambda t: t[1:], "offset columns": lambda t: t[:, 1:], "transposed": lambda t: t.t(),
          "stepped": lambda t: t[::2], "contiguous": lambda t: t}


@pytest.mark.parametrize("view", list(_VIEWS))
@pytest.mark.parametrize("offset", [None, 0, 1, 3])
def test_as_strided_scatter_of_views(view, offset):
    base = np.arange(12.0).reshape(3, 4)
    src = -np.arange(1.0, 5.0).reshape(2, 2)
    results = []
    for m in (torch, tt):
        inp = _VIEWS[view](m.tensor(base))
        results.append(m.as_strided_scatter(inp, m.tensor(src), (2, 2), (1, 2), offset))
    _same(results[1], results[0])


def test_as_strided_scatter_of_view_out_of_bounds():
    _raises_alike(lambda m: m.as_strided_scatter(m.zeros(3, 4)[1:], m.ones(2, 2), (2, 2), (1, 2), 11))
    _raises_alike(lambda m: m.as_strided_scatter(m.zeros(3, 4)[1:], m.ones(2, 2), (2, 2), (1, 2), 9))


# -- logcumsumexp refuses integer and bool input, as PyTorch's kernel -------------------------------
@pytest.mark.parametrize("dtype", ["int64", "int32", "uint8", "bool"])
@pytest.mark.parametrize("spelling", ["function", "method"])
def test_logcumsumexp_integer_input_refused(dtype, spelling):
    def call(m):
        x = m.tensor([1, 0, 1]).to(getattr(m, dtype))
        return m.logcumsumexp(x, 0) if spelling == "function" else x.logcumsumexp(0)
    _raises_alike(call)


# -- logcumsumexp in the half types: accumulated in float32, differentiable -------------------------
@pytest.mark.parametrize("dtype", ["float16", "bfloat16"])
def test_logcumsumexp_half_types(dtype):
    a = (np.random.default_rng(0).standard_normal((4, 50)) * 3).astype(np.float32)
    g = np.random.default_rng(1).standard_normal((4, 50)).astype(np.float32)
    res = []
    for m in (torch, tt):
        x = m.tensor(a).to(getattr(m, dtype)).requires_grad_()
        y = m.logcumsumexp(x, 1)
        res.append((y, m.autograd.grad(y, x, m.tensor(g).to(getattr(m, dtype)))[0]))
    (yt, gt), (yu, gu) = res
    _same(yu, yt)  # each output rounded once from the float32 scan
    _same(gu, gt, rtol=2e-2, atol=2e-2)  # the backward's steps round in the half type in both


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


@pytest.mark.parametrize("dtype", ["float16", "bfloat16"])
@pytest.mark.parametrize("input_length", [5, 6])
def test_ctc_loss_refuses_half_types(dtype, input_length):
    lp = np.random.default_rng(0).standard_normal((5, 1, 4)).astype(np.float32)
    _raises_alike(lambda m: m.nn.functional.ctc_loss(m.tensor(lp).to(getattr(m, dtype)).log_softmax(2),
                                                     m.tensor([[1, 2]]), m.tensor([input_length]), m.tensor([2])))


@pytest.mark.parametrize("offset", [2, 6])
def test_as_strided_scatter_of_view_requiring_grad_window_past_its_elements(offset):
    """x[1:] is contiguous (so allowed with grad); the window, in x's storage, may reach past x[1:]'s
    eight elements: the forward works, the backward's read of the contiguous gradient refuses it."""
    results = []
    for m in (torch, tt):
        x = m.arange(12.0).reshape(3, 4).requires_grad_()
        s = m.ones(2, 2, requires_grad=True)
        y = m.as_strided_scatter(x[1:], s, (2, 2), (1, 2), offset)
        try:
            grads = m.autograd.grad(y.sum() * 2, (x, s))
        except RuntimeError as e:
            grads = str(e)
        results.append((y, grads))
    (yt, gt), (yu, gu) = results
    _same(yu, yt)
    if isinstance(gt, str):
        assert gu == gt
    else:
        for a, b in zip(gu, gt):
            _same(a, b)
