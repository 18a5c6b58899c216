"""backward(), autograd.backward and autograd.grad: arguments, accumulation and the errors of
RELIABILITY rows 8, 9 and 11-17, each compared with PyTorch."""

import pytest

import tinytorch
from test_autograd_helpers import assert_same, raises_same


def _xw(lib):
    x = lib.tensor([[1.0, -2.0], [3.0, 0.5]], requires_grad=True)
    w = lib.tensor([[0.5, 2.0], [-1.0, 4.0]], requires_grad=True)
    return x, w


def test_gradients_accumulate_across_backward_calls(torch):
    def snippet(lib):
        x, w = _xw(lib)
        y = (x * w + x.exp()).sum()
        y.backward(retain_graph=True)
        first = x.grad.clone(), w.grad.clone()
        y.backward()
        return first, x.grad, w.grad

    assert_same(snippet, torch)


def test_backward_with_an_explicit_gradient(torch):
    def snippet(lib):
        x, w = _xw(lib)
        (x @ w).backward(lib.tensor([[1.0, 0.0], [2.0, -1.0]]))
        return x.grad, w.grad

    assert_same(snippet, torch)


def test_implicit_gradient_for_a_one_element_output(torch):
    def snippet(lib):
        x = lib.tensor([[2.0]], requires_grad=True)
        (x * 3).backward()
        return x.grad

    assert_same(snippet, torch)


def test_leaves_that_do_not_require_grad_get_no_grad(torch):
    def snippet(lib):
        x, _ = _xw(lib)
        c = lib.tensor([1.0, 2.0])
        (x * c).sum().backward()
        return c.grad, x.grad

    assert_same(snippet, torch)


def test_backward_inputs_restricts_accumulation(torch):
    def snippet(lib):
        x, w = _xw(lib)
        h = x * w
        y = (h * h).sum()
        y.backward(inputs=[h, w])
        return x.grad, w.grad, h.grad, h.retains_grad

    assert_same(snippet, torch)


def test_backward_inputs_single_tensor(torch):
    def snippet(lib):
        x, w = _xw(lib)
        (x * w).sum().backward(inputs=x)
        return x.grad, w.grad

    assert_same(snippet, torch)


def test_autograd_backward_with_several_roots(torch):
    def snippet(lib):
        x, w = _xw(lib)
        y1, y2 = x * 2, (x * w).sum()
        lib.autograd.backward([y1, y2], [lib.ones(2, 2), None])
        return x.grad, w.grad

    assert_same(snippet, torch)


def test_autograd_backward_gradient_count_mismatch(torch):
    def snippet(lib):
        x, _ = _xw(lib)
        lib.autograd.backward([x * 2, x * 3], [lib.ones(2, 2)])

    raises_same(snippet, torch)


def test_grad_returns_gradients_without_touching_dot_grad(torch):
    def snippet(lib):
        x, w = _xw(lib)
        y = (x * x * w).sum()
        gx, gw = lib.autograd.grad(y, [x, w])
        return gx, gw, x.grad, w.grad

    assert_same(snippet, torch)


def test_grad_with_grad_outputs_and_several_outputs(torch):
    def snippet(lib):
        x, w = _xw(lib)
        y1, y2 = x * w, x.exp()
        go = [lib.tensor([[1.0, 2.0], [3.0, 4.0]]), lib.tensor([[0.5, 0.5], [0.0, 1.0]])]
        return lib.autograd.grad([y1, y2], x, grad_outputs=go)

    assert_same(snippet, torch)


def test_grad_with_respect_to_an_intermediate(torch):
    def snippet(lib):
        x, w = _xw(lib)
        h = x * w
        return lib.autograd.grad((h * h).sum(), [h, x])

    assert_same(snippet, torch)


def test_grad_of_an_input_with_respect_to_itself(torch):
    def snippet(lib):
        x, _ = _xw(lib)
        return lib.autograd.grad(x, x, lib.full((2, 2), 3.0))

    assert_same(snippet, torch)


def test_grad_unused_input(torch):
    def unused(lib):
        x, w = _xw(lib)
        return lib.autograd.grad((x * 2).sum(), [x, w])

    def allowed(lib):
        x, w = _xw(lib)
        return lib.autograd.grad((x * 2).sum(), [x, w], allow_unused=True)

    def materialized(lib):
        x, w = _xw(lib)
        return lib.autograd.grad((x * 2).sum(), [x, w], materialize_grads=True)

    text = raises_same(unused, torch)
    assert text.endswith("Set allow_unused=True if this is the desired behavior.")
    assert assert_same(allowed, torch)[0][1][1] is None
    assert_same(materialized, torch)


def test_grad_input_that_does_not_require_grad(torch):
    def snippet(lib):
        x, _ = _xw(lib)
        return lib.autograd.grad((x * 2).sum(), lib.ones(2))

    raises_same(snippet, torch)


def test_grad_result_does_not_require_grad_without_create_graph(torch):
    def snippet(lib):
        x, _ = _xw(lib)
        (g,) = lib.autograd.grad((x**3).sum(), x)
        return g.requires_grad, g.grad_fn is None

    assert_same(snippet, torch)


# -- RELIABILITY rows 8, 9, 11-17 -----------------------------------------------------------------
def test_row8_implicit_gradient_needs_a_scalar(torch):
    def snippet(lib):
        x, _ = _xw(lib)
        (x * 2).backward()

    assert raises_same(snippet, torch) == "grad can be implicitly created only for scalar outputs"


def test_row8_also_for_autograd_grad(torch):
    def snippet(lib):
        x, _ = _xw(lib)
        lib.autograd.grad(x * 2, x)

    raises_same(snippet, torch)


def test_row9_gradient_shape_mismatch(torch):
    def snippet(lib):
        y = lib.tensor([[1.0, 2.0], [3.0, 4.0]], requires_grad=True) * 2
        y.backward(lib.ones(2))

    text = raises_same(snippet, torch)
    assert text == (
        "Mismatch in shape: grad_output[0] has a shape of torch.Size([2]) and output[0] has a "
        "shape of torch.Size([2, 2])."
    )


def test_row9_index_names_the_offending_output(torch):
    def snippet(lib):
        x, _ = _xw(lib)
        # one-element tensors of distinct values: PyTorch finds the index with list.index,
        # which compares values
        lib.autograd.backward([x[0, :1] * 1, x[:1, :1] * 2], [lib.tensor([5.0]), lib.ones(1)])

    assert raises_same(snippet, torch).startswith("Mismatch in shape: grad_output[1]")


@pytest.mark.parametrize("how", ["method", "setter"])
def test_row11_requires_grad_false_on_a_non_leaf(how, torch):
    def snippet(lib):
        x, _ = _xw(lib)
        y = x * 2
        if how == "method":
            y.requires_grad_(False)
        else:
            y.requires_grad = False

    assert raises_same(snippet, torch).startswith(
        "you can only change requires_grad flags of leaf variables."
    )


def test_row11_requires_grad_true_on_a_non_leaf(torch):
    def method(lib):
        x, _ = _xw(lib)
        return (x * 2).requires_grad_(True)

    def setter(lib):
        x, _ = _xw(lib)
        y = x * 2
        y.requires_grad = True

    assert assert_same(method, torch)[0][0] == "returned"
    raises_same(setter, torch)


@pytest.mark.parametrize("how", ["method", "setter", "factory", "zeros"])
def test_row12_integer_tensors_cannot_require_grad(how, torch):
    def snippet(lib):
        if how == "method":
            lib.tensor([1, 2]).requires_grad_()
        elif how == "setter":
            lib.tensor([1, 2]).requires_grad = True
        elif how == "factory":
            lib.tensor([1, 2], requires_grad=True)
        else:
            lib.zeros(2, dtype=lib.int64, requires_grad=True)

    text = raises_same(snippet, torch)
    assert "can require gradients" in text


def test_row12_integer_tensor_may_be_told_false(torch):
    def snippet(lib):
        t = lib.tensor([1, 2])
        t.requires_grad_(False)
        return t.requires_grad

    assert_same(snippet, torch)


def test_row13_retain_grad_without_grad(torch):
    def snippet(lib):
        lib.tensor([1.0]).retain_grad()

    assert raises_same(snippet, torch) == "can't retain_grad on Tensor that has requires_grad=False"


@pytest.mark.parametrize("via", ["backward", "autograd.backward", "autograd.grad"])
def test_row14_backward_without_grad_fn(via, torch):
    def snippet(lib):
        y = lib.tensor([1.0, 2.0]).sum()
        if via == "backward":
            y.backward()
        elif via == "autograd.backward":
            lib.autograd.backward([y])
        else:
            lib.autograd.grad(y, lib.tensor([1.0], requires_grad=True))

    assert (
        raises_same(snippet, torch)
        == "element 0 of tensors does not require grad and does not have a grad_fn"
    )


def test_row14_index_of_the_offending_root(torch):
    def snippet(lib):
        x, _ = _xw(lib)
        lib.autograd.backward([x.sum(), lib.tensor(1.0)])

    assert raises_same(snippet, torch).startswith("element 1 of tensors")


@pytest.mark.parametrize("kind", ["register_hook", "register_post_accumulate_grad_hook"])
def test_row16_hook_on_a_tensor_without_grad(kind, torch):
    def snippet(lib):
        getattr(lib.tensor([1.0]), kind)(lambda g: None)

    assert (
        raises_same(snippet, torch)
        == "cannot register a hook on a tensor that doesn't require gradient"
    )


def test_post_accumulate_grad_hook_refused_on_a_non_leaf(torch):
    def snippet(lib):
        x, _ = _xw(lib)
        (x * 2).register_post_accumulate_grad_hook(lambda t: None)

    raises_same(snippet, torch)


def test_row17_numpy_of_a_tensor_that_requires_grad(torch):
    def snippet(lib):
        lib.tensor([1.0], requires_grad=True).numpy()

    assert raises_same(snippet, torch) == (
        "Can't call numpy() on Tensor that requires grad. Use tensor.detach().numpy() instead."
    )


def test_row17_detach_numpy_and_force(torch):
    def snippet(lib):
        x = lib.tensor([1.0, 2.0], requires_grad=True)
        return (x * 2).detach().numpy().tolist(), x.numpy(force=True).tolist()

    assert_same(snippet, torch)


def test_detached_tensor_is_a_leaf_without_grad(torch):
    def snippet(lib):
        x, _ = _xw(lib)
        d = (x * 2).detach()
        return d, d.grad_fn, d.is_leaf, d.requires_grad

    assert_same(snippet, torch)


def test_grad_assignment_is_validated(torch):
    def wrong_shape(lib):
        x, _ = _xw(lib)
        x.grad = lib.zeros(3)

    def wrong_dtype(lib):
        x, _ = _xw(lib)
        x.grad = lib.zeros(2, 2, dtype=lib.float64)

    def ok_and_accumulates(lib):
        x, _ = _xw(lib)
        x.grad = lib.ones(2, 2)
        (x * 2).sum().backward()
        return x.grad

    def wrong_dtype_int(lib):
        x, _ = _xw(lib)
        x.grad = lib.zeros(2, 2, dtype=lib.int64)

    def not_a_tensor(lib):
        x, _ = _xw(lib)
        x.grad = 3

    for snippet in (wrong_shape, wrong_dtype, wrong_dtype_int, not_a_tensor):
        raises_same(snippet, torch)
    assert_same(ok_and_accumulates, torch)


def test_grad_can_be_reset_to_none():
    x = tinytorch.tensor([1.0, 2.0], requires_grad=True)
    (x * 2).sum().backward()
    x.grad = None
    (x * 3).sum().backward()
    assert x.grad.tolist() == [3.0, 3.0]
