"""Second derivatives through piecewise-linear ops, compared with PyTorch: ``autograd.grad`` with
``create_graph=True``, then ``grad`` of that gradient. Where PyTorch's backward is itself a
differentiable primitive (relu's threshold_backward, leaky_relu_backward, hardtanh_backward, ...),
the first gradient requires grad and the second is zeros, not "not used in the graph"; where its
backward is a select on a constant mask (clamp, where, indexing...), the first gradient does not
require grad and the second call raises; hardsigmoid's backward has no derivative."""
import numpy as np
import pytest

from _oracle import torch  # noqa: E402  (PyTorch when a test reads it)
import tinytorch as tt  # noqa: E402


def _ops(lib):
    F = lib.nn.functional
    return {
        "relu": lambda x: lib.relu(x), "F.relu": lambda x: F.relu(x), "relu_method": lambda x: x.relu(),
        "leaky_relu": lambda x: F.leaky_relu(x, 0.1), "hardtanh": lambda x: F.hardtanh(x),
        "hardtanh_range": lambda x: F.hardtanh(x, -0.5, 0.5), "relu6": lambda x: F.relu6(x * 4),
        "threshold": lambda x: F.threshold(x, 0.1, 0.0), "hardshrink": lambda x: F.hardshrink(x, 0.3),
        "softshrink": lambda x: F.softshrink(x, 0.3), "abs": lambda x: x.abs(),
        "clamp": lambda x: x.clamp(-0.5, 0.5), "clamp_min": lambda x: x.clamp(min=0), "maximum": lambda x: lib.maximum(x, x * 0.5),
        "max": lambda x: x.max(), "where": lambda x: lib.where(x > 0, x, x * 0.5), "x*2": lambda x: x * 2,
        "masked_fill": lambda x: x.masked_fill(x < 0, 0.0), "index": lambda x: x[1:3], "sort": lambda x: x.sort()[0],
        "elu": lambda x: F.elu(x), "hardswish": lambda x: F.hardswish(x), "hardsigmoid": lambda x: F.hardsigmoid(x),
        "relu_then_square": lambda x: lib.relu(x) ** 2, "leaky_relu_of_square": lambda x: F.leaky_relu(x * x - 0.5),
        "relu_inplace": lambda x: F.relu(x * 1, inplace=True), "leaky_relu_inplace": lambda x: F.leaky_relu_(x * 1, 0.2),
    }


# PyTorch names these first gradients' nodes after its own fused kernels; tinytorch composes them
_OTHER_NODE = {"elu", "hardswish"}


def _second(lib, name, weighted):
    x = lib.tensor([-1.0, -0.2, 0.3, 2.0, 0.7], requires_grad=True)
    y = _ops(lib)[name](x)
    w = lib.tensor([0.5, -1.0, 2.0, 1.5, 3.0])[:y.numel()].reshape(y.shape) if weighted else lib.ones_like(y)
    (g,) = lib.autograd.grad(y, x, w, create_graph=True)
    first = (g.requires_grad, type(g.grad_fn).__name__ if g.grad_fn is not None else None, g.detach().tolist())
    try:
        (gg,) = lib.autograd.grad((g * lib.tensor([1.0, 2.0, -1.0, 0.5, 1.0])).sum(), x)
        second = ("ok", (gg + 0).tolist())
    except RuntimeError as e:
        second = ("error", str(e))
    try:  # the graph of the first gradient was freed by that call, as PyTorch frees it
        lib.autograd.grad(g.sum(), x, allow_unused=True)
        again = "ok"
    except RuntimeError as e:
        again = str(e).split(".")[0]
    return first, second, again


@pytest.mark.parametrize("weighted", [False, True])
@pytest.mark.parametrize("name", list(_ops(torch)))
def test_second_derivative_matches_pytorch(name, weighted):
    want = _second(torch, name, weighted)
    got = _second(tt, name, weighted)
    (w_rg, w_fn, w_g), (w_kind, w_val), w_again = want
    (g_rg, g_fn, g_g), (g_kind, g_val), g_again = got
    assert g_rg == w_rg
    if name not in _OTHER_NODE:
        assert g_fn == w_fn
    np.testing.assert_allclose(g_g, w_g, rtol=1e-6)
    assert g_kind == w_kind
    if w_kind == "ok":
        np.testing.assert_allclose(g_val, w_val, rtol=1e-6, atol=1e-7)
    else:
        assert g_val == w_val
    assert g_again == w_again


def test_relu_second_derivative_is_zero_with_allow_unused():
    # the zeros are real tensors in PyTorch: allow_unused gives them, not None
    for lib in (torch, tt):
        x = lib.tensor([-1.0, 2.0], requires_grad=True)
        (g,) = lib.autograd.grad(lib.relu(x).sum(), x, create_graph=True)
        (gg,) = lib.autograd.grad(g.sum(), x, allow_unused=True)
        assert gg is not None and (gg + 0).tolist() == [0.0, 0.0]


def test_piecewise_gradient_keeps_pytorch_select_for_inf():
    # hardtanh/leaky_relu backward select: an inf incoming gradient gives 0 where the slope is 0
    for lib in (torch, tt):
        x = lib.tensor([-2.0, 0.0, 0.5], requires_grad=True)
        y = lib.nn.functional.hardtanh(x)
        (g,) = lib.autograd.grad(y, x, lib.tensor([float("inf"), 1.0, 2.0]))
        assert g.tolist() == [0.0, 1.0, 2.0]


def _pool_second(lib, name):
    F = lib.nn.functional
    pools = {"max_pool1d": lambda x: F.max_pool1d(x, 2), "max_pool2d": lambda x: F.max_pool2d(x.view(1, 1, 2, 3), (1, 2), 1),
             "avg_pool1d": lambda x: F.avg_pool1d(x, 2), "avg_pool2d": lambda x: F.avg_pool2d(x.view(1, 1, 2, 3), (2, 2), 1),
             "max_pool1d_padded": lambda x: F.max_pool1d(x, 3, 1, 1)}
    x = lib.tensor([[[-1.0, 0.5, 2.0, -0.3, 0.7, 0.1]]], requires_grad=True)
    w = lib.tensor([1.5, -2.0], requires_grad=True)
    y = pools[name](x).reshape(-1)[:2] * w
    (g,) = lib.autograd.grad(y.sum(), x, create_graph=True)
    gx, gw = lib.autograd.grad((g * g).sum(), [x, w])  # PyTorch: zeros for the pooled input, not "unused"
    return g.requires_grad, (gx + 0).tolist(), (gw + 0).tolist()


@pytest.mark.parametrize("name", ["max_pool1d", "max_pool2d", "avg_pool1d", "avg_pool2d", "max_pool1d_padded"])
def test_second_derivative_through_pooling_matches_pytorch(name):
    got, want = _pool_second(tt, name), _pool_second(torch, name)
    assert got[0] == want[0]
    np.testing.assert_allclose(got[1], want[1], atol=1e-7)
    np.testing.assert_allclose(got[2], want[2], rtol=1e-6)


def _prelu_second(lib, weight_grad, channels):
    F = lib.nn.functional
    x = lib.tensor([[[-1.0, 0.5], [2.0, -0.3]], [[0.4, -2.0], [-0.7, 1.1]]], requires_grad=True).reshape(1, 2, 2, 2)
    w = lib.tensor([0.25, 0.1][:channels], requires_grad=weight_grad)
    y = F.prelu(x, w) * lib.arange(8.0).reshape(1, 2, 2, 2)
    wanted = [x, w] if weight_grad else [x]
    gs = lib.autograd.grad(y.sum(), wanted, create_graph=True)
    names = [(g.requires_grad, type(g.grad_fn).__name__) for g in gs]
    second = lib.autograd.grad(sum((g * g * 0.5 + g).sum() for g in gs), wanted)
    return names, [(s + 0).tolist() for s in second]


@pytest.mark.parametrize("weight_grad", [False, True])
@pytest.mark.parametrize("channels", [1, 2])
def test_prelu_second_derivative_matches_pytorch(weight_grad, channels):
    got, want = _prelu_second(tt, weight_grad, channels), _prelu_second(torch, weight_grad, channels)
    assert got[0] == want[0]
    for g, w in zip(got[1], want[1]):
        np.testing.assert_allclose(g, w, rtol=1e-5, atol=1e-6)


def test_prelu_gradgradcheck():
    x = tt.tensor([[-1.0, 0.5, 2.0], [-0.3, 0.7, -1.2]], dtype=tt.float64, requires_grad=True)
    w = tt.tensor([0.25], dtype=tt.float64, requires_grad=True)
    assert tt.autograd.gradgradcheck(tt.nn.functional.prelu, (x, w))
