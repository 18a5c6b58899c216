"""Saved tensors and graph retention (rows 3, 4), create_graph and higher derivatives (row 20)."""

import warnings

import numpy as np
import pytest

import tinytorch
from tinytorch.autograd import engine
from test_autograd_helpers import assert_same, raises_same

FREED = (
    "Trying to backward through the graph a second time (or directly access saved tensors after "
    "they have already been freed). Saved intermediate values of the graph are freed when you call "
    ".backward() or autograd.grad(). Specify retain_graph=True if you need to backward through the "
    "graph a second time or if you need to access saved tensors after calling backward."
)


def test_row3_second_backward_through_freed_saved_tensors(torch):
    def snippet(lib):
        a = lib.tensor([1.0, 2.0], requires_grad=True)
        b = a * 1
        y = (b * b).sum()
        y.backward()
        y.backward()

    assert raises_same(snippet, torch) == FREED


def test_row3_also_after_autograd_grad(torch):
    def snippet(lib):
        a = lib.tensor([1.0, 2.0], requires_grad=True)
        y = (a.exp() * a).sum()
        lib.autograd.grad(y, a)
        lib.autograd.grad(y, a)

    assert raises_same(snippet, torch) == FREED


def test_row4_second_backward_without_saved_tensors_works(torch):
    def snippet(lib):
        a = lib.tensor([1.0, 2.0], requires_grad=True)
        y = (a + 1).sum()
        y.backward()
        y.backward()
        return a.grad

    got = assert_same(snippet, torch)
    assert got[0][1].values.tolist() == [2.0, 2.0]


def test_retain_graph_allows_a_second_backward(torch):
    def snippet(lib):
        a = lib.tensor([1.0, 2.0], requires_grad=True)
        y = (a * a * a).sum()
        y.backward(retain_graph=True)
        y.backward(retain_graph=True)
        y.backward()
        return a.grad

    assert_same(snippet, torch)


def test_saved_tensors_are_released_after_backward():
    a = tinytorch.tensor([1.0, 2.0], requires_grad=True)
    b = a * 1
    y = b * b
    node = y.grad_fn
    y.sum().backward()
    with pytest.raises(RuntimeError, match="Trying to backward through the graph a second time"):
        _ = node._saved_self
    assert node._saved == ()


def test_saved_tensors_kept_with_retain_graph():
    a = tinytorch.tensor([1.0, 2.0], requires_grad=True)
    b = a * 1
    y = b * b
    y.sum().backward(retain_graph=True)
    assert y.grad_fn._saved_self is b and y.grad_fn._saved_other is b


# -- create_graph and higher derivatives -----------------------------------------------------------
FUNCTIONS = {
    "cube": lambda lib, x: (x**3).sum(),
    "exp_sin": lambda lib, x: (x.exp() * x.sin()).sum(),
    "tanh_mean": lambda lib, x: x.tanh().mean(),
    "log_softmax": lambda lib, x: (
        x.log_softmax(0) * lib.tensor([1.0, 2.0, 3.0], dtype=lib.float64)
    ).sum(),
    "div_sqrt": lambda lib, x: (x / (x * x + 1).sqrt()).sum(),
    "sigmoid_times_x": lambda lib, x: (x.sigmoid() * x).sum(),
}


@pytest.mark.parametrize("name", sorted(FUNCTIONS))
def test_second_and_third_derivatives(name, torch):
    def snippet(lib):
        x = lib.tensor([0.5, -1.0, 2.0], dtype=lib.float64, requires_grad=True)
        y = FUNCTIONS[name](lib, x)
        (g1,) = lib.autograd.grad(y, x, create_graph=True)
        (g2,) = lib.autograd.grad(g1.sum(), x, create_graph=True)
        (g3,) = lib.autograd.grad(g2.sum(), x)
        return g1.detach(), g2.detach(), g3, g1.requires_grad, g3.requires_grad

    assert_same(snippet, torch)


def test_second_derivative_against_finite_differences():
    x0 = np.array([0.3, -0.7, 1.1])

    def first(xv):
        x = tinytorch.tensor(xv, dtype=tinytorch.float64, requires_grad=True)
        (g,) = tinytorch.autograd.grad((x.exp() * x.sin()).sum(), x)
        return g._data

    x = tinytorch.tensor(x0, dtype=tinytorch.float64, requires_grad=True)
    (g,) = tinytorch.autograd.grad((x.exp() * x.sin()).sum(), x, create_graph=True)
    (h,) = tinytorch.autograd.grad(g.sum(), x)
    eps = 1e-6
    numeric = [(first(x0 + eps * e) - first(x0 - eps * e)).sum() / (2 * eps) for e in np.eye(3)]
    np.testing.assert_allclose(h._data, numeric, rtol=1e-6)


def test_hessian_vector_product(torch):
    def snippet(lib):
        w = lib.tensor(
            [[0.5, -1.0], [2.0, 0.25], [1.5, -0.5]], dtype=lib.float64, requires_grad=True
        )
        x = lib.tensor([[1.0, 2.0, -1.0]], dtype=lib.float64)
        loss = ((x @ w).tanh() ** 2).sum()
        (g,) = lib.autograd.grad(loss, w, create_graph=True)
        v = lib.tensor([[1.0, 0.0], [0.5, -1.0], [0.0, 2.0]], dtype=lib.float64)
        (hv,) = lib.autograd.grad((g * v).sum(), w)
        return hv

    assert_same(snippet, torch)


def test_backward_with_create_graph_gives_a_differentiable_grad(torch):
    def snippet(lib):
        x = lib.tensor([1.0, 2.0], dtype=lib.float64, requires_grad=True)
        (x**3).sum().backward(create_graph=True)
        first = x.grad
        g_node = type(first.grad_fn).__name__
        (second,) = lib.autograd.grad(first.sum(), x)
        return first.detach(), first.requires_grad, g_node, second

    assert_same(snippet, torch)


def test_create_graph_accumulation_is_out_of_place(torch):
    def snippet(lib):
        x = lib.tensor([1.0, 2.0], dtype=lib.float64, requires_grad=True)
        (x**2).sum().backward(create_graph=True)
        first = x.grad
        (x**3).sum().backward(create_graph=True)
        return first, x.grad, first is x.grad

    assert_same(snippet, torch)


def test_row20_create_graph_warning_once(torch, monkeypatch):
    monkeypatch.setattr(engine, "_warned_create_graph", False)

    def snippet(lib):
        x = lib.tensor([1.0, 2.0], requires_grad=True)
        (x * x).sum().backward(create_graph=True)

    with warnings.catch_warnings(record=True) as caught:
        warnings.simplefilter("always")
        snippet(tinytorch)
        snippet(tinytorch)
    texts = [str(w.message) for w in caught]
    assert len(texts) == 1 and caught[0].category is UserWarning
    assert texts[0].startswith(
        "Using backward() with create_graph=True will create a reference cycle between "
        "the parameter and its gradient which can cause a memory leak."
    )
    # PyTorch's text, word for word (PyTorch warns once per process: compare only its first warning)
    with warnings.catch_warnings(record=True) as caught_torch:
        warnings.simplefilter("always")
        snippet(torch)
    if caught_torch:
        assert texts[0] == str(caught_torch[0].message).split(" (Triggered internally")[0]


def test_autograd_grad_with_create_graph_does_not_warn(monkeypatch):
    monkeypatch.setattr(engine, "_warned_create_graph", False)
    x = tinytorch.tensor([1.0, 2.0], requires_grad=True)
    with warnings.catch_warnings():
        warnings.simplefilter("error")
        tinytorch.autograd.grad((x * x).sum(), x, create_graph=True)


def test_double_backward_through_a_retained_graph(torch):
    def snippet(lib):
        x = lib.tensor([0.5, 1.5], dtype=lib.float64, requires_grad=True)
        y = (x.sin() * x).sum()
        (g,) = lib.autograd.grad(y, x, create_graph=True)
        g.sum().backward()
        return x.grad, g.detach()

    assert_same(snippet, torch)


def test_grad_of_grad_through_broadcasting_and_matmul(torch):
    def snippet(lib):
        a = lib.tensor([[1.0, 2.0], [3.0, 4.0]], dtype=lib.float64, requires_grad=True)
        b = lib.tensor([0.5, -1.0], dtype=lib.float64, requires_grad=True)
        y = ((a @ a + b) ** 2).sum()
        ga, gb = lib.autograd.grad(y, [a, b], create_graph=True)
        return lib.autograd.grad((ga**2).sum() + (gb**3).sum(), [a, b])

    assert_same(snippet, torch)


def test_retained_grad_under_create_graph_is_a_recorded_copy(torch):
    def snippet(lib):
        x = lib.tensor([1.0, 2.0], requires_grad=True)
        h = x * 1
        h.retain_grad()
        g = lib.tensor([1.0, 3.0], requires_grad=True)
        h.backward(g, create_graph=True)
        return h.grad, h.grad is g, h.grad.data_ptr() == g.data_ptr(), x.grad

    assert_same(snippet, torch)


def test_create_graph_twice_accumulates(torch):
    def snippet(lib):
        x = lib.tensor([1.0, 2.0], requires_grad=True)
        h = x * x
        h.retain_grad()
        (h * h).sum().backward(create_graph=True)
        (x * x * x).sum().backward(create_graph=True)
        return x.grad, h.grad

    assert_same(snippet, torch)
