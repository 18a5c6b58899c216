"""retain_grad and reading ``.grad`` of non-leaves (row 18); engine edge cases (diamonds, mixed
dtypes, partial multi-output use, ``backward(inputs=...)`` errors), against PyTorch."""

import pytest

from test_autograd_helpers import assert_same, raises_same, warns_same


def _xw(lib):
    x = lib.tensor([[1.0, -2.0], [3.0, 0.5]], requires_grad=True)
    w = lib.tensor([[0.5, 2.0], [-1.0, 4.0]], requires_grad=True)
    return x, w


# -- retain_grad and reading .grad of non-leaves (row 18) ------------------------------------------
def test_row18_non_leaf_grad_is_none_with_a_warning(torch):
    def snippet(lib):
        x, _ = _xw(lib)
        y = x * 2
        y.sum().backward()
        return y.grad

    (warning,) = warns_same(snippet, torch)
    assert warning[0] == "UserWarning"
    assert warning[1].startswith(
        "The .grad attribute of a Tensor that is not a leaf Tensor is being accessed"
    )


def test_reading_grad_of_leaves_never_warns(torch):
    def snippet(lib):
        x, _ = _xw(lib)
        return x.grad, lib.tensor([1.0]).grad, (lib.tensor([1.0]) * 2).grad

    assert assert_same(snippet, torch)[1] == []


def test_retain_grad_populates_a_non_leaf(torch):
    def snippet(lib):
        x, w = _xw(lib)
        h = x * w
        h.retain_grad()
        before = h.grad
        y = (h * h).sum()
        y.backward(retain_graph=True)
        once = h.grad.clone()
        y.backward()
        return before, once, h.grad, h.retains_grad, x.retains_grad, h.is_leaf

    got = assert_same(snippet, torch)
    assert got[1] == []


def test_retain_grad_on_a_leaf_is_a_no_op(torch):
    def snippet(lib):
        x, _ = _xw(lib)
        x.retain_grad()
        (x * 3).sum().backward()
        return x.retains_grad, x.grad

    assert_same(snippet, torch)


def test_retain_grad_twice_keeps_one_gradient(torch):
    def snippet(lib):
        x, _ = _xw(lib)
        h = x + 1
        h.retain_grad()
        h.retain_grad()
        (h * 2).sum().backward()
        return h.grad

    assert_same(snippet, torch)


def test_retain_grad_then_in_place_follows_the_new_node(torch):
    def snippet(lib):
        x = lib.tensor([1.0, 2.0], requires_grad=True)
        h = x * 2
        h.retain_grad()
        h.add_(1)
        (h * h).sum().backward()
        return h.grad, x.grad

    assert_same(snippet, torch)


def test_hook_then_in_place(torch):
    def snippet(lib):
        x = lib.tensor([1.0, 2.0], requires_grad=True)
        h = x * 2
        seen = []
        h.register_hook(lambda g: seen.append(g.clone()))
        h.add_(1)
        (h * h).sum().backward()
        return seen, x.grad

    assert_same(snippet, torch)


# -- engine edge cases -----------------------------------------------------------------------------
def test_diamond_graph_with_shared_subexpressions(torch):
    def snippet(lib):
        x = lib.tensor([0.5, -1.0, 2.0], requires_grad=True)
        a = x.exp()
        b = a * x
        c = b.sin() + a
        d = (c * b).sum() + a.sum() * c.sum()
        e = d * d.detach() + a[0] * c[2]
        e.backward()
        return x.grad

    assert_same(snippet, torch)


def test_mixed_dtypes_send_each_leaf_its_own_dtype(torch):
    def snippet(lib):
        x = lib.tensor([1.0, 2.0], requires_grad=True)
        w = lib.tensor([1.0, 2.0], dtype=lib.float64, requires_grad=True)
        y = (x * w * lib.tensor([1, 2])).sum()
        y.backward()
        return x.grad, w.grad, y

    assert_same(snippet, torch)


@pytest.mark.parametrize("kind", ["tensor_0d", "float", "float64", "int"])
def test_gradient_argument_forms(kind, torch):
    def snippet(lib):
        x = lib.tensor([1.0, 2.0], requires_grad=True)
        if kind == "tensor_0d":
            (x * 2).sum().backward(lib.tensor(5.0))
        elif kind == "float":
            (x * 2).sum().backward(5.0)
        elif kind == "float64":
            (x * 2).backward(lib.tensor([1.0, 3.0], dtype=lib.float64))
        else:
            (x * 2).backward(lib.tensor([1, 3]))
        return x.grad

    assert_same(snippet, torch)


def test_only_some_outputs_of_a_split_used(torch):
    def snippet(lib):
        x = lib.tensor([1.0, 2.0, 3.0, 4.0, 5.0], requires_grad=True)
        _, b, _ = x.split(2)
        (b * 3).sum().backward()
        return x.grad

    assert_same(snippet, torch)


def test_backward_inputs_errors(torch):
    def empty(lib):
        x, _ = _xw(lib)
        (x * 2).sum().backward(inputs=[])

    def without_grad(lib):
        x, _ = _xw(lib)
        (x * 2).sum().backward(inputs=[lib.ones(2)])

    def unused(lib):
        x, w = _xw(lib)
        (x * 2).sum().backward(inputs=[w])
        return x.grad, w.grad

    raises_same(empty, torch)
    raises_same(without_grad, torch)
    assert_same(unused, torch)


def test_grad_with_respect_to_an_intermediate_off_the_path(torch):
    def snippet(lib):
        x, _ = _xw(lib)
        h = x * 3
        return lib.autograd.grad((x * 2).sum(), [h, x], allow_unused=True)

    assert_same(snippet, torch)


def test_grad_of_a_gradient_that_does_not_depend_on_the_input(torch):
    def snippet(lib):
        x, _ = _xw(lib)
        (g,) = lib.autograd.grad((x * 2).sum(), x, create_graph=True)
        first = (g.requires_grad, g.grad_fn)
        lib.autograd.grad(g.sum(), x)
        return first

    raises_same(snippet, torch)
