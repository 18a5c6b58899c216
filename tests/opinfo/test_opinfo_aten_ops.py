"""The ``torch.ops.aten`` operators and CUDA-only entries added for op_db, against PyTorch beyond the OpInfo
walk's samples: ``aten.slice``, ``_safe_softmax``, ``native_dropout_backward`` and
``max_pool2d_with_indices_backward`` (values, dtypes, gradients, grad_fn names and their edges, errors), and
the refusals on CPU of ``_flash_attention_forward`` / ``_efficient_attention_forward`` and
``torch.cuda.jiterator``'s jitted functions (the same exception type and message)."""
import warnings

import numpy as np
import pytest

import tinytorch as tt

from _oracle import torch  # noqa: E402  (PyTorch when a test reads it)


def _run(lib, program):
    """``program(lib)`` as a tuple of comparable parts, or ("raises", type name, message)."""
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        try:
            return program(lib)
        except Exception as e:  # noqa: BLE001 - compared as PyTorch's
            text = str(e)
            if text.startswith("Could not run"):  # PyTorch's list of backends is its build's
                end = "possible resolutions."
                text = text[:text.index(end) + len(end)]
            return ("raises", type(e).__name__, text)


def _name(x):
    return None if x is None else type(x).__name__


def _same(a, b, rtol=1.3e-6, atol=1e-5):
    if isinstance(a, (tuple, list)):
        assert isinstance(b, (tuple, list)) and len(a) == len(b), (a, b)
        for u, v in zip(a, b):
            _same(u, v, rtol, atol)
    elif isinstance(a, np.ndarray):
        assert isinstance(b, np.ndarray) and a.shape == b.shape and a.dtype == b.dtype, (a, b)
        np.testing.assert_allclose(b, a, rtol=rtol, atol=atol, equal_nan=True)
    else:
        assert str(a).replace("torch.", "") == str(b).replace("tinytorch.", ""), (a, b)


def assert_alike(program, **tol):
    _same(_run(torch, program), _run(tt, program), **tol)


def _np(t):
    return None if t is None else t.detach().numpy()


def _edges(t):
    return [_name(n) for n, _ in t.grad_fn.next_functions]


def _cotangent(lib, y):
    return lib.tensor(np.cos(np.arange(y.numel())).reshape(tuple(y.shape))).to(y.dtype)


_RNG = np.random.default_rng(0)
X = _RNG.standard_normal((3, 4, 5)).astype(np.float32)
X[1, :, 2] = -np.inf  # a row of -inf along dim 1
X[0, 1, :] = -np.inf  # and one along dim 2


# -- aten.slice -------------------------------------------------------------------------------------------
@pytest.mark.parametrize("args,kwargs", [
    ((1, 1, 3, 1), {}), ((1, -100, 100), {}), ((1, 3, 1), {}), ((0, None, None, 2), {}), ((1, 5, 7), {}), ((), {}),
    ((-1, -3, None, 2), {}), ((), {"dim": 2, "start": 1, "end": -1, "step": 3}), ((0, -10, -2, 2), {}),
    ((2,), {}), ((-4,), {}), ((1, 0, 4, 0), {}), ((1, 0, 4, -1), {}),
])
def test_slice(args, kwargs):
    def program(lib):
        x = lib.tensor(X, requires_grad=True)
        y = lib.ops.aten.slice.Tensor(x, *args, **kwargs)
        (g,) = lib.autograd.grad(y, x, _cotangent(lib, y))
        # an empty result's storage offset is left out: tinytorch's empty views (numpy's) start at 0
        offset = y.storage_offset() if y.numel() else None
        return (_np(y), y.shape, y.stride(), offset, y._is_view(), y._base is x, _name(y.grad_fn),
                y.grad_fn._saved_dim, y.grad_fn._saved_start, y.grad_fn._saved_end, y.grad_fn._saved_step,
                y.grad_fn._saved_self_sym_sizes, _np(g))
    assert_alike(program)


def test_slice_is_a_view_and_refuses_0_dim():
    def program(lib):
        x = lib.arange(12).reshape(3, 4)
        lib.ops.aten.slice(x, 1, 1, 3)[0, 0] = 100  # writes through
        return _np(x), lib.ops.aten.slice(x, 0, 1).dtype
    assert_alike(program)
    assert_alike(lambda lib: lib.ops.aten.slice(lib.tensor(1.0), 0))


# -- _safe_softmax ----------------------------------------------------------------------------------------
@pytest.mark.parametrize("dim", [0, 1, 2, -1, 3])
@pytest.mark.parametrize("dtype", [None, "float64"])
def test_safe_softmax(dim, dtype):
    def program(lib):
        x = lib.tensor(X, requires_grad=True)
        kw = {} if dtype is None else {"dtype": getattr(lib, dtype)}
        y = lib.ops.aten._safe_softmax.default(x, dim, **kw)
        (g,) = lib.autograd.grad(y, x, _cotangent(lib, y))
        return _np(y), y.dtype, _name(y.grad_fn), _edges(y), y.grad_fn._saved_dim, _np(g), g.dtype
    assert_alike(program)


@pytest.mark.parametrize("values,dim,dtype", [
    (np.arange(6).reshape(2, 3), 1, None), (np.arange(6).reshape(2, 3), 1, "float32"),
    (np.ones((2, 3), bool), 0, None), (np.array(2.0, np.float32), 0, None), (np.array(-np.inf, np.float32), 0, None),
    (np.full((2, 3), -np.inf, np.float64), 1, None), (np.arange(6.0).reshape(2, 3), 1, "int64"),
    (np.zeros((2, 3), np.complex64), 1, None),
])
def test_safe_softmax_dtypes_and_errors(values, dim, dtype):
    def program(lib):
        kw = {} if dtype is None else {"dtype": getattr(lib, dtype)}
        y = lib._safe_softmax(lib.tensor(values), dim, **kw)
        return _np(y), y.dtype
    assert_alike(program)


def test_safe_softmax_double_backward():
    def program(lib):
        x = lib.tensor(X.astype(np.float64), requires_grad=True)
        y = lib.ops.aten._safe_softmax(x, 2)
        (g,) = lib.autograd.grad((y * _cotangent(lib, y)).sum(), x, create_graph=True)
        (gg,) = lib.autograd.grad((g * g).sum(), x)
        return _np(g), _np(gg)
    assert_alike(program, rtol=1e-9, atol=1e-12)


# -- native_dropout_backward ------------------------------------------------------------------------------
G = _RNG.standard_normal((3, 4)).astype(np.float32)
G[0, 0], G[0, 1] = -1.5, np.inf  # dropped: -0.0 and NaN, as grad * mask
M = _RNG.random((3, 4)) > 0.5
M[0, :2] = False


@pytest.mark.parametrize("g,m,scale", [
    (G, M, 2.0), (G, M, 1.25), (G.astype(np.float64), M, 1 / 0.3), (np.arange(12).reshape(3, 4), M, 2.5),
    (M, M, 2.0), (G, M.astype(np.float64), 2.0), (G, M[:1], 2.0), (G[:1], M, 2.0), (G, M[:2], 2.0),
    (np.array(3.0, np.float32), np.array(True), 0.0), (G, M.astype(np.int64), 2.0),
])
def test_native_dropout_backward(g, m, scale):
    def program(lib):
        gt = lib.tensor(g, requires_grad=g.dtype.kind == "f")
        y = lib.ops.aten.native_dropout_backward.default(gt, lib.tensor(m), scale)
        out = (_np(y), y.dtype, _name(y.grad_fn))
        if y.requires_grad:
            (d,) = lib.autograd.grad(y, gt, _cotangent(lib, y))
            out += (_edges(y), y.grad_fn._saved_scale, _np(d), d.dtype)
        return out
    assert_alike(program)


def test_native_dropout_backward_mask_derivative():
    def program(lib, need_g):
        g = lib.tensor(G, requires_grad=need_g)
        m = lib.tensor(M.astype(np.float32), requires_grad=True)
        y = lib.ops.aten.native_dropout_backward(g, m, 2.0)
        edges = _edges(y)
        return edges, lib.autograd.grad(y.sum(), [g, m] if need_g else [m])
    for need_g in (True, False):
        assert_alike(lambda lib: program(lib, need_g))


def test_native_dropout_backward_double_backward():
    def program(lib):
        g = lib.tensor(G[:, 2:].astype(np.float64), requires_grad=True)
        y = lib.ops.aten.native_dropout_backward(g, lib.tensor(M[:, 2:]), 1 / 0.7)
        (d,) = lib.autograd.grad((y * y).sum(), g, create_graph=True)
        return _np(d), _name(d.grad_fn)
    assert_alike(program, rtol=1e-12, atol=0)


# -- max_pool2d_with_indices_backward ---------------------------------------------------------------------
P = _RNG.standard_normal((2, 3, 7, 6)).astype(np.float32)


def _pool_backward(lib, k=2, s=None, p=0, d=1, ceil=False, x=P, gdtype=None, idtype=None, gkey=None, ikey=None,
                   need_g=True):
    xt = lib.tensor(x, requires_grad=True)
    out, idx = lib.nn.functional.max_pool2d_with_indices(xt, k, s, p, d, ceil, return_indices=True)
    go = _cotangent(lib, out).requires_grad_(need_g)
    if gdtype:
        go = go.detach().to(getattr(lib, gdtype))
    if idtype:
        idx = idx.to(getattr(lib, idtype))
    go = go if gkey is None else go[gkey]
    idx = idx if ikey is None else idx[ikey]
    stride = [] if s is None else [s, s]
    r = lib.ops.aten.max_pool2d_with_indices_backward.default(go, xt, [k, k], stride, [p, p], [d, d], ceil, idx)
    wrt = [t for t in (go, xt) if t.requires_grad]
    grads = lib.autograd.grad(r, wrt, _cotangent(lib, r), allow_unused=True)
    return _np(r), r.dtype, _name(r.grad_fn), _edges(r), [_np(t) for t in grads]


@pytest.mark.parametrize("case", [
    {}, {"k": 3, "s": 1}, {"k": 3, "s": 2, "p": 1}, {"k": 2, "s": 1, "d": 2}, {"k": 3, "s": 2, "ceil": True},
    {"x": P[0]}, {"k": 3, "s": 1, "x": P.astype(np.float64)}, {"need_g": False},
    {"gdtype": "float64"}, {"idtype": "int32"}, {"gkey": (slice(None), slice(0, 1))},
    {"ikey": (slice(None), slice(None), slice(0, 1))}, {"k": 2, "p": 2},
], ids=repr)
def test_max_pool2d_with_indices_backward(case):
    assert_alike(lambda lib: _pool_backward(lib, **case))


def test_max_pool2d_with_indices_backward_op_db_helper():
    """op_db's own use: ones as the gradient, the input's gradient through it zeros (not unused)."""
    def program(lib):
        x = lib.tensor(P, requires_grad=True)
        out, idx = lib.nn.functional.max_pool2d_with_indices(x, kernel_size=(3, 2), stride=(2, 1), padding=(1, 0),
                                                            dilation=(1, 2), ceil_mode=True, return_indices=True)
        r = lib.ops.aten.max_pool2d_with_indices_backward(lib.ones_like(out), x, (3, 2), (2, 1), (1, 0), (1, 2), True,
                                                          idx)
        (g,) = lib.autograd.grad(r, x, _cotangent(lib, r))
        return _np(r), _np(g), _edges(r)
    assert_alike(program)


# -- CUDA-only entries: refused on CPU as PyTorch refuses them --------------------------------------------
def test_attention_forwards_refused_on_cpu():
    q = np.ones((1, 2, 3, 4), np.float16)

    def flash(lib):
        t = lib.tensor(q)
        return lib.ops.aten._flash_attention_forward(t, t, t, None, None, 3, 3, 0.0, False, False)

    def efficient(lib):
        t = lib.tensor(q.astype(np.float32)).transpose(1, 2)
        return lib.ops.aten._efficient_attention_forward.default(t, t, t, None, None, None, 3, 3, 0.0, 0, True)
    for program in (flash, efficient):
        got = _run(tt, program)
        assert got[0] == "raises"
        assert got == _run(torch, program)


@pytest.mark.parametrize("code,multi,kwargs", [
    ("template <typename T> T unary(T x) { return x * x + x; }", 0, {}),
    ("template <typename T> T binary(T x, T y, T alpha) { return x + alpha * y; }", 0, {"alpha": 1}),
    ("template <typename T> void binary_2outputs(T i0, T i1, T& out0, T& out1) { out0 = i0 + i1; out1 = i0 - i1; }",
     2, {}),
])
def test_jiterator_refused_without_gpu(code, multi, kwargs):
    def program(lib):
        jit = lib.cuda.jiterator
        fn = jit._create_multi_output_jit_fn(code, multi, **kwargs) if multi else jit._create_jit_fn(code, **kwargs)
        made = (fn.kernel_name, fn.return_by_ref, fn.num_outputs, fn.kwargs_dict, fn.is_cuda_available)
        return made, _run(lib, lambda _: fn(lib.ones(3), lib.ones(3)))
    got = _run(tt, program)
    assert got[1][0] == "raises"
    assert got == _run(torch, program)


def test_jiterator_bad_source():
    assert_alike(lambda lib: lib.cuda.jiterator._create_jit_fn("int f(int x) { return x; }"))
    assert_alike(lambda lib: lib.cuda.jiterator._JittedFunction("template <typename T> T f(T x) { return x; }",
                                                                False, 2))
