"""F.linear against PyTorch: inputs of any rank viewed as rows (one fused node, the result viewed back:
PyTorch's ViewBackward0 <- AddmmBackward0 <- ViewBackward0 chain), strided inputs, the graph, values,
gradients, view bookkeeping (base, version counter) and in-place checks; few rows against the matrix
product; a batch of one, whose weight gradient is an outer product (PyTorch's bits, signed zeros
included)."""
from __future__ import annotations

import sys

import numpy as np
import pytest

import tinytorch as tt

import _paths

from _oracle import torch  # noqa: E402  (PyTorch when a test reads it)


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


def _first_edge_chain(fn, depth=6):
    """grad_fn names along the first edge that is not a leaf."""
    names = []
    while fn is not None and len(names) < depth:
        names.append(type(fn).__name__)
        nxt = [f for f, _ in fn.next_functions if f is not None and type(f).__name__ != "AccumulateGrad"]
        fn = nxt[0] if nxt else None
    return names


ROW_CASES = {
    "3d_bias": ((2, 3, 4), True, None),
    "4d_bias": ((2, 2, 3, 4), True, None),
    "1d_bias": ((4,), True, None),
    "3d_nobias": ((2, 3, 4), False, None),
    "strided_bias": ((3, 2, 4), True, (1, 0, 2)),
    "strided_nobias": ((3, 2, 4), False, (1, 0, 2)),
}


@pytest.mark.parametrize("name", sorted(ROW_CASES))
def test_linear_flattened_rows_match_pytorch(name):
    shape, with_bias, perm = ROW_CASES[name]
    rng = np.random.default_rng(len(name))
    x = rng.standard_normal(shape).astype(np.float32)
    w = rng.standard_normal((5, 4)).astype(np.float32)
    b = rng.standard_normal(5).astype(np.float32)
    (tx, px), (tw, pw), (tb, pb) = _pair_tt(x), _pair_tt(w), _pair_tt(b)
    outs = []
    for lib, xx, ww, bb in ((tt, tx, tw, tb), (torch, px, pw, pb)):
        inp = xx.permute(*perm) if perm else xx
        outs.append(lib.nn.functional.linear(inp, ww, bb if with_bias else None))
    assert _first_edge_chain(outs[0].grad_fn) == _first_edge_chain(outs[1].grad_fn)
    np.testing.assert_allclose(outs[0].detach().numpy(), outs[1].detach().numpy(), rtol=1e-5, atol=1e-5)
    g = rng.standard_normal(tuple(outs[1].shape)).astype(np.float32)
    outs[0].backward(tt.tensor(g))
    outs[1].backward(torch.tensor(g))
    for a, c in ((tx, px), (tw, pw)) + (((tb, pb),) if with_bias else ()):
        np.testing.assert_allclose(a.grad.numpy(), c.grad.numpy(), rtol=1e-5, atol=1e-5)


def _pair_tt(a: np.ndarray, requires_grad=True):
    return tt.tensor(a, requires_grad=requires_grad), torch.tensor(a, requires_grad=requires_grad)


@pytest.mark.parametrize("rows", [1, 3, 8, 64, 65])
def test_linear_few_rows_matches_matmul_and_torch(rows):
    rng = np.random.default_rng(rows)
    x = rng.standard_normal((rows, 40)).astype("float32")
    w = rng.standard_normal((130, 40)).astype("float32")
    b = rng.standard_normal(130).astype("float32")
    tx = tt.tensor(x, requires_grad=True)
    tw = tt.tensor(w, requires_grad=True)
    out = tt.nn.functional.linear(tx, tw, tt.tensor(b))
    assert out.is_contiguous() and out.shape == (rows, 130)
    np.testing.assert_allclose(out.detach().numpy(), (x @ w.T) + b, rtol=1e-5, atol=1e-5)  # float32 sums of 40 products: BLAS kernels differ in order
    want = torch.nn.functional.linear(torch.tensor(x), torch.tensor(w), torch.tensor(b))
    np.testing.assert_allclose(out.detach().numpy(), want.numpy(), rtol=1e-5, atol=1e-5)
    out.sum().backward()
    np.testing.assert_allclose(tw.grad.numpy(), np.ones((rows, 130), "float32").T @ x, rtol=1e-5)


@pytest.mark.bitexact
def test_batch_one_linear_gradients_match_pytorch(torch):
    rng = np.random.default_rng(0)
    x, w, b = rng.standard_normal((1, 7)), rng.standard_normal((5, 7)), rng.standard_normal(5)
    grads = []
    for lib in (tt, torch):
        tw, tb = lib.tensor(w, requires_grad=True), lib.tensor(b, requires_grad=True)
        lib.nn.functional.linear(lib.tensor(x), tw, tb).tanh().sum().backward()
        grads.append((tw.grad.numpy(), tb.grad.numpy()))
    for ours, theirs in zip(*grads):
        np.testing.assert_allclose(ours, theirs, rtol=1e-12, atol=1e-14)


@pytest.mark.bitexact
@pytest.mark.parametrize("dtype", ("float32", "float64"))
@pytest.mark.parametrize("sizes", [(784, 512), (512, 10), (3, 5), (300, 400)])
def test_batch_one_weight_gradient_bits(dtype, sizes):
    """The weight gradient of a batch of one is an outer product: PyTorch's plain products, zeros of
    both signs included (-1 * 0 is -0.0), by the BLAS's rank-1 update on large ones, numpy's multiply
    on small ones."""
    from tinytorch._cpu import blas_outer as _blas_outer

    rng = np.random.default_rng(sizes[0])
    fan_in, fan_out = sizes
    x = rng.standard_normal((1, fan_in)).astype(dtype)
    g = rng.standard_normal((1, fan_out)).astype(dtype)
    x[0, ::4], x[0, 1::9], g[0, ::3], g[0, 2::7] = 0.0, -0.0, 0.0, -0.0
    w0 = rng.standard_normal((fan_out, fan_in)).astype(dtype)
    results = []
    for lib in (tt, torch):
        w = lib.tensor(w0, requires_grad=True)
        b = lib.zeros(fan_out, dtype=getattr(lib, dtype), requires_grad=True)
        lib.nn.functional.linear(lib.tensor(x), w, b).backward(lib.tensor(g))
        results.append(w.grad.numpy())
        assert w.grad.is_contiguous()
    # bit for bit on every oracle path (the products have no sum to round); under TINYTORCH_REFERENCE=1 the same
    # values, zeros' signs aside (numpy's GEMM adds each product to a zero, which turns -0.0 into +0.0)
    _paths.assert_bits(results[0], results[1], ulps=0, exact_on=(_paths.torch_path(),), what=f"{dtype} {sizes}")
    assert np.dtype(dtype) in _blas_outer._checked_ger()  # the BLAS passed its self-check here
    if sys.platform.startswith("linux"):  # glibc's 4-byte wmemset fills float32 -0.0 there (the self-check ran it)
        assert _blas_outer._wmemset


def _error(call):
    try:
        call()
    except RuntimeError as e:
        return str(e)
    return None


@pytest.mark.parametrize("shape", [(3,), (4, 3), (2, 4, 3), (0, 3)])
@pytest.mark.parametrize("dtypes", [("float64", "float32", None), ("float32", "float64", None),
                                    ("float64", "float32", "float32"), ("float32", "float64", "float32"),
                                    ("float64", "float32", "float64"), ("float32", "float64", "float64")])
def test_mixed_dtypes_raise_pytorchs_error(torch, shape, dtypes):
    """A float64 input (numpy's default) to a float32 layer, the mistake learners meet first: the bias is addmm's
    self, checked against W first, then the input (mm's words without a bias)."""
    x, w, b = dtypes

    def call(lib):
        bias = None if b is None else lib.ones(2, dtype=getattr(lib, b))
        return lambda: lib.nn.functional.linear(lib.ones(shape, dtype=getattr(lib, x)),
                                                lib.ones(2, 3, dtype=getattr(lib, w)), bias)

    theirs = _error(call(torch))
    assert theirs is not None and _error(call(tt)) == theirs


@pytest.mark.parametrize("dtypes", [("float32", "float64", "float32"), ("float64", "float64", "float32"),
                                    ("float32", "float32", "float64"), ("float64", "float32", "float32")])
def test_addmm_refuses_mixed_dtypes_as_pytorch(torch, dtypes):
    """addmm promoted mixed operands silently; PyTorch checks self against mat2, then mat1."""
    def call(lib):
        s, m1, m2 = (lib.ones(shape, dtype=getattr(lib, d)) for shape, d in zip(((2, 2), (2, 3), (3, 2)), dtypes))
        return lambda: lib.addmm(s, m1, m2)

    theirs = _error(call(torch))
    assert theirs is not None and _error(call(tt)) == theirs
