"""Gradient buffers never alias anything the user can still see.

The engine may adopt a gradient's array as ``.grad`` without copying only when nothing else
refers to it. Each test builds a situation where something else does (the user's gradient argument,
a hook's stored tensor, another leaf's ``.grad``, a retained non-leaf grad, a numpy array) and
checks that no two of them share memory and that later backward calls accumulate into each
independently. Values are checked against PyTorch running the same steps, except where PyTorch
itself lets a gradient alias the user's tensor (numpy is the oracle there)."""

import numpy as np
import pytest

import tinytorch
from test_autograd_helpers import assert_same


def _shares(a, b) -> bool:
    return np.shares_memory(a._data, b._data)


def _pairwise_distinct(*tensors) -> None:
    for i, a in enumerate(tensors):
        for b in tensors[i + 1 :]:
            assert not _shares(a, b)


def _user_gradient(lib):
    return lib.tensor([1.0, 10.0, 100.0, 1000.0])


# root built from a and b, and d(root)/da, d(root)/db as multiples of the incoming gradient
ROOTS = {
    "add": (lambda a, b: a + b, 1, 1),
    "sub": (lambda a, b: a - b, 1, -1),
    "add_three": (lambda a, b: a + b + a, 2, 1),
    "mul_by_one": (lambda a, b: a * 1 + b, 1, 1),
    # PyTorch itself lets a.grad, b.grad and g share one storage here (the views are "stolen"), so a
    # second backward writes 4*g into all three; tinytorch keeps them apart: numpy is the oracle
    "view_sum": (lambda a, b: (a.view(2, 2) + b.view(2, 2)).view(4), 1, 1),
}


@pytest.mark.parametrize("name", sorted(ROOTS))
def test_two_leaves_fed_by_one_gradient_get_separate_buffers(name):
    root, da, db = ROOTS[name]
    a = tinytorch.tensor([1.0, 2.0, 3.0, 4.0], requires_grad=True)
    b = tinytorch.tensor([5.0, 6.0, 7.0, 8.0], requires_grad=True)
    g = _user_gradient(tinytorch)
    z = root(a, b)
    z.backward(g, retain_graph=True)
    _pairwise_distinct(a.grad, b.grad, g)
    z.backward(g)
    _pairwise_distinct(a.grad, b.grad, g)
    expected = np.array([1.0, 10.0, 100.0, 1000.0])
    np.testing.assert_array_equal(a.grad._data, 2 * da * expected)
    np.testing.assert_array_equal(b.grad._data, 2 * db * expected)
    np.testing.assert_array_equal(g._data, expected)


@pytest.mark.parametrize("name", sorted(set(ROOTS) - {"view_sum"}))
def test_two_leaves_fed_by_one_gradient_match_pytorch(name, torch):
    def snippet(lib):
        a = lib.tensor([1.0, 2.0, 3.0, 4.0], requires_grad=True)
        b = lib.tensor([5.0, 6.0, 7.0, 8.0], requires_grad=True)
        z = ROOTS[name][0](a, b)
        z.backward(_user_gradient(lib), retain_graph=True)
        z.backward(_user_gradient(lib))
        return a.grad, b.grad

    assert_same(snippet, torch)


def test_implicit_scalar_gradient_gives_separate_buffers(torch):
    def snippet(lib):
        a = lib.tensor([1.0, 2.0], requires_grad=True)
        b = lib.tensor([3.0, 4.0], requires_grad=True)
        z = (a + b).sum()
        z.backward(retain_graph=True)
        z.backward()
        if lib is tinytorch:
            _pairwise_distinct(a.grad, b.grad)
        a.grad.mul_(5)
        return a.grad, b.grad

    assert_same(snippet, torch)


def test_leaf_backward_does_not_adopt_the_gradient_argument(torch):
    def snippet(lib):
        a = lib.tensor([1.0, 2.0], requires_grad=True)
        g = lib.tensor([3.0, 4.0])
        a.backward(g)
        if lib is tinytorch:
            assert a.grad is not g and not _shares(a.grad, g)
        a.backward(g)
        g.add_(100)
        return a.grad, g

    assert_same(snippet, torch)


@pytest.mark.parametrize("create_graph", [False, True])
def test_gradient_argument_passed_through_unchanged(create_graph, torch):
    def snippet(lib):
        a = lib.tensor([1.0, 2.0], requires_grad=True)
        b = lib.tensor([3.0, 4.0], requires_grad=True)
        g = lib.tensor([1.0, -1.0])
        (a + b).backward(g, create_graph=create_graph)
        if lib is tinytorch:
            _pairwise_distinct(a.grad, b.grad, g)
        a.grad.data.mul_(7)
        return a.grad, b.grad, g

    assert_same(snippet, torch)


def test_gradient_that_arrives_as_a_view_of_the_argument(torch):
    def snippet(lib):
        a = lib.tensor([[1.0, 2.0, 3.0], [4.0, 5.0, 6.0]], requires_grad=True)
        g = lib.tensor([[1.0, 2.0], [3.0, 4.0], [5.0, 6.0]])
        a.t().backward(g, retain_graph=True)
        if lib is tinytorch:
            assert not _shares(a.grad, g)
        g.zero_()
        return a.grad

    assert_same(snippet, torch)


def test_gradient_from_a_reshape_of_the_argument():
    # PyTorch adopts the view of g here (a.grad follows g.fill_); tinytorch copies
    a = tinytorch.tensor([[1.0, 2.0], [3.0, 4.0]], requires_grad=True)
    g = tinytorch.tensor([1.0, 2.0, 3.0, 4.0])
    a.view(4).backward(g)
    assert not _shares(a.grad, g)
    g.fill_(-1)
    assert a.grad.tolist() == [[1.0, 2.0], [3.0, 4.0]]


def test_gradient_whose_array_the_user_still_holds():
    arr = np.array([1.0, 2.0, 3.0], dtype=np.float32)
    a = tinytorch.tensor([0.0, 0.0, 0.0], requires_grad=True)
    a.backward(tinytorch.from_numpy(arr))  # the Tensor is a temporary, the array is not
    assert not np.shares_memory(a.grad._data, arr)
    arr[:] = 99
    assert a.grad.tolist() == [1.0, 2.0, 3.0]


def test_gradient_view_of_an_array_the_user_still_holds():
    arr = np.arange(6, dtype=np.float32).reshape(2, 3)
    a = tinytorch.zeros(3, 2, requires_grad=True)
    a.backward(tinytorch.from_numpy(arr).t())
    assert not np.shares_memory(a.grad._data, arr)
    arr[:] = -1
    assert a.grad.tolist() == [[0.0, 3.0], [1.0, 4.0], [2.0, 5.0]]


def test_hook_storing_the_gradient_keeps_its_own_copy(torch):
    def snippet(lib):
        a = lib.tensor([1.0, 2.0], requires_grad=True)
        stored = []
        a.register_hook(lambda g: stored.append(g))
        y = (a * 3).sum()
        y.backward(retain_graph=True)
        if lib is tinytorch:
            assert not _shares(a.grad, stored[0])
        y.backward()
        return stored, a.grad

    assert_same(snippet, torch)


def test_hook_storing_the_array_of_the_gradient():
    a = tinytorch.tensor([1.0, 2.0], requires_grad=True)
    stored = []
    a.register_hook(lambda g: stored.append(g._data))
    y = (a * 3).sum()
    y.backward(retain_graph=True)
    y.backward()
    assert [s.tolist() for s in stored] == [[3.0, 3.0], [3.0, 3.0]]
    assert a.grad.tolist() == [6.0, 6.0]


def test_hook_returning_a_tensor_it_keeps(torch):
    def snippet(lib):
        a = lib.tensor([1.0, 2.0], requires_grad=True)
        keep = lib.tensor([5.0, 7.0])
        a.register_hook(lambda g: keep)
        y = (a * 3).sum()
        y.backward(retain_graph=True)
        if lib is tinytorch:
            assert not _shares(a.grad, keep)
        y.backward()
        return keep, a.grad

    assert_same(snippet, torch)


def test_non_leaf_hook_storing_the_gradient(torch):
    def snippet(lib):
        a = lib.tensor([1.0, 2.0], requires_grad=True)
        h = a + 0
        stored = []
        h.register_hook(lambda g: stored.append(g))
        g = lib.tensor([2.0, 3.0])
        h.backward(g, retain_graph=True)
        h.backward(g)
        if lib is tinytorch:  # the hook sees g itself, as in PyTorch; a.grad must be apart from it
            assert not _shares(a.grad, stored[0]) and not _shares(a.grad, stored[1])
        return stored, a.grad, g

    assert_same(snippet, torch)


def test_retained_non_leaf_grad_and_leaf_grad_are_separate(torch):
    def snippet(lib):
        a = lib.tensor([1.0, 2.0], requires_grad=True)
        h = a + 0
        h.retain_grad()
        g = lib.tensor([1.0, 1.0])
        h.backward(g, retain_graph=True)
        if lib is tinytorch:
            _pairwise_distinct(a.grad, h.grad, g)
        h.backward(g)
        a.grad.data.add_(10)
        return h.grad, a.grad, g

    assert_same(snippet, torch)


def test_node_hooks_storing_gradients(torch):
    def snippet(lib):
        a = lib.tensor([1.0, 2.0], requires_grad=True)
        b = lib.tensor([3.0, 4.0], requires_grad=True)
        z = a + b
        seen = []
        z.grad_fn.register_prehook(lambda grad_outputs: seen.append(grad_outputs[0]))
        z.grad_fn.register_hook(lambda grad_inputs, grad_outputs: seen.append(grad_inputs[0]))
        z.backward(lib.tensor([1.0, 2.0]), retain_graph=True)
        if lib is tinytorch:
            _pairwise_distinct(a.grad, b.grad, seen[0])
            assert not any(_shares(a.grad, s) or _shares(b.grad, s) for s in seen)
        z.backward(lib.tensor([1.0, 2.0]))
        return seen, a.grad, b.grad

    assert_same(snippet, torch)


def test_autograd_grad_results_are_not_changed_by_a_later_backward(torch):
    def snippet(lib):
        a = lib.tensor([1.0, 2.0], requires_grad=True)
        y = (a * 2).sum()
        (g,) = lib.autograd.grad(y, a, retain_graph=True)
        y.backward()
        y2 = (a * 5).sum()
        y2.backward()
        return g, a.grad

    assert_same(snippet, torch)


def test_user_reference_to_grad_sees_in_place_accumulation(torch):
    def snippet(lib):
        a = lib.tensor([1.0, 2.0], requires_grad=True)
        (a * 3).sum().backward()
        old = a.grad
        (a * 4).sum().backward()
        return old is a.grad, old

    assert_same(snippet, torch)


def test_weight_gradient_arriving_transposed_accumulates_correctly(torch):
    def snippet(lib):
        x = lib.tensor([[1.0, 2.0, 3.0], [4.0, 5.0, 6.0]])
        w = lib.tensor([[0.1, 0.2, 0.3], [0.4, 0.5, 0.6]], requires_grad=True)
        for _ in range(3):
            (x @ w.t()).pow(2).sum().backward()
        return w.grad, w.grad.is_contiguous(), w.grad.view(-1)

    assert_same(snippet, torch)


def test_shared_gradient_between_grad_of_two_parameters_after_zero(torch):
    def snippet(lib):
        a = lib.tensor([1.0, 2.0], requires_grad=True)
        b = lib.tensor([3.0, 4.0], requires_grad=True)
        (a + b).sum().backward()
        a.grad.zero_()
        (a + b).sum().backward()
        return a.grad, b.grad

    assert_same(snippet, torch)


@pytest.mark.parametrize("order", ["a_first", "b_first", "scaled"])
def test_a_dot_grad_passed_back_as_the_gradient(order):
    # the value passed is the value used, whatever order the leaves are reached in (PyTorch
    # accumulates into a.grad in place first, so b sees the doubled value in one of the orders)
    a = tinytorch.tensor([1.0, 2.0], requires_grad=True)
    b = tinytorch.tensor([3.0, 4.0], requires_grad=True)
    (a + b).backward(tinytorch.tensor([1.0, 1.0]))
    roots = {"a_first": lambda: a + b, "b_first": lambda: b + a, "scaled": lambda: a * 2 + b}
    given = a.grad
    roots[order]().backward(given)
    assert a.grad.tolist() == ([3.0, 3.0] if order == "scaled" else [2.0, 2.0])
    assert b.grad.tolist() == [2.0, 2.0]
    assert not _shares(a.grad, b.grad)
