"""In-place safety (RELIABILITY rows 1, 2, 5, 6, 7), version counters, detach/.data, and gradients
through in-place ops and ``__setitem__``, against PyTorch."""

import pytest

import tinytorch
from test_autograd_helpers import assert_same, raises_same

HINT = (
    "Hint: enable anomaly detection to find the operation that failed to compute its gradient, "
    "with torch.autograd.set_detect_anomaly(True, check_nan=False)."
)


def test_row1_modified_saved_leaf(torch):
    def snippet(lib):
        x = lib.tensor([1.0, 2.0, 3.0])
        w = lib.tensor([1.0, 2.0, 3.0], requires_grad=True)
        y = x * w
        x.add_(1)
        y.sum().backward()

    assert raises_same(snippet, torch) == (
        "one of the variables needed for gradient computation has been modified by an inplace "
        "operation: [torch.FloatTensor [3]] is at version 1; expected version 0 instead. " + HINT
    )


def test_row1_modified_saved_non_leaf_names_its_producer(torch):
    def snippet(lib):
        w = lib.tensor([[1.0, 2.0], [3.0, 4.0]], requires_grad=True)
        h = w * 2
        y = h * h
        h.add_(1)
        y.sum().backward()

    text = raises_same(snippet, torch)
    assert text.startswith(
        "one of the variables needed for gradient computation has been modified by an "
        "inplace operation: [torch.FloatTensor [2, 2]], which is output 0 of "
    )


@pytest.mark.parametrize("op", ["exp", "sigmoid", "tanh", "sqrt"])
def test_row1_modified_saved_output(op, torch):
    def snippet(lib):
        w = lib.tensor([1.0, 2.0, 3.0], requires_grad=True)
        h = getattr(w, op)()
        h.mul_(2)
        h.sum().backward()

    raises_same(snippet, torch)


def test_row1_double_precision_type_name(torch):
    def snippet(lib):
        x = lib.tensor([[1.0, 2.0]], dtype=lib.float64)
        w = lib.tensor([[3.0, 4.0]], dtype=lib.float64, requires_grad=True)
        y = (x * w).sum()
        x.mul_(2)
        y.backward()

    assert "[torch.DoubleTensor [1, 2]] is at version 1; expected version 0" in raises_same(
        snippet, torch
    )


def test_row1_only_the_backward_that_needs_it_fails(torch):
    def snippet(lib):
        x = lib.tensor([1.0, 2.0])
        w = lib.tensor([3.0, 4.0], requires_grad=True)
        y = x * w
        x.add_(1)
        out = []
        for root in ((w * 2).sum(), y.sum()):
            try:
                root.backward()
                out.append(w.grad.clone())
            except RuntimeError as e:
                out.append(str(e)[:60])
        return out

    assert_same(snippet, torch)


def test_row2_no_error_when_nothing_was_saved(torch):
    def snippet(lib):
        x = lib.tensor([1.0, 2.0, 3.0])
        w = lib.tensor([1.0, 2.0, 3.0], requires_grad=True)
        y = x + w
        x.add_(1)
        y.sum().backward()
        return w.grad, x._version

    assert_same(snippet, torch)


# chains of in-place ops where no saved value is overwritten (PyTorch's test_inplace spirit)
INPLACE_OK = {
    "add_after_add": lambda lib, w: ((w + 1).add_(2) * 3).sum(),
    "mul_scalar": lambda lib, w: (w * 1).mul_(3).sum(),
    "sub_alpha": lambda lib, w: (w * 2).sub_(w, alpha=3).sum(),
    "div_then_add": lambda lib, w: (w + 0).div_(4).add_(w).sum(),
    "pow_": lambda lib, w: (w + 1).pow_(2).sum(),
    "exp_": lambda lib, w: ((w * 1).exp_() * 2).sum(),
    "neg_abs": lambda lib, w: (w - 2).neg_().abs_().sum(),
    "clamp_": lambda lib, w: (w * 3).clamp_(min=0.0, max=5.0).sum(),
    "relu_then_sigmoid": lambda lib, w: (w * 1).relu_().add(0).sigmoid_().sum(),
    "zero_then_add": lambda lib, w: (w * 1).zero_().add_(w * w).sum(),
    "fill_": lambda lib, w: ((w * 1).fill_(2.0) * w).sum(),
    "copy_": lambda lib, w: (lib.zeros(3).copy_(w * w) * 2).sum(),
    "inplace_with_grad_operand": lambda lib, w: lib.ones(3).mul_(w).add_(w.exp()).sum(),
    "saved_then_replaced": lambda lib, w: ((w * 1).mul_(w) * 1).sum(),
}


@pytest.mark.parametrize("name", sorted(INPLACE_OK))
def test_gradients_through_in_place_ops_on_non_leaves(name, torch):
    def snippet(lib):
        w = lib.tensor([0.5, -1.5, 2.0], requires_grad=True)
        y = INPLACE_OK[name](lib, w)
        y.backward()
        return y, w.grad

    assert_same(snippet, torch)


@pytest.mark.parametrize("chain", ["exp_relu", "sigmoid_tanh"])
def test_in_place_over_an_in_place_result_raises(chain, torch):
    # exp_ and sigmoid_ save their result, which the next in-place op overwrites: PyTorch refuses,
    # naming the op that saved it
    def snippet(lib):
        w = lib.tensor([0.5, -1.5, 2.0], requires_grad=True)
        first, second = ("exp_", "relu_") if chain == "exp_relu" else ("sigmoid_", "tanh_")
        getattr(getattr(w * 1, first)(), second)().sum().backward()

    raises_same(snippet, torch)


def test_spec_example_add_then_mul_by_own_detach(torch):
    # y.detach() shares y's version counter: mul_ overwrites what it saved, so PyTorch refuses
    def snippet(lib):
        x = lib.tensor([1.0, 2.0, 3.0], requires_grad=True)
        y = x * 2
        y.add_(1)
        y.mul_(y.detach())
        y.sum().backward()

    raises_same(snippet, torch)


def test_in_place_graph_structure(torch):
    def snippet(lib):
        x = lib.tensor([1.0, 2.0], requires_grad=True)
        y = x * 2
        before = y.grad_fn
        y.add_(1)
        y.exp_()
        return (
            type(y.grad_fn).__name__,
            type(y.grad_fn.next_functions[0][0]).__name__,
            type(y.grad_fn.next_functions[0][0].next_functions[0][0]).__name__,
            y.grad_fn is before,
            y.is_leaf,
            y._version,
        )

    assert_same(snippet, torch)


@pytest.mark.parametrize("op", ["add_", "mul_", "zero_", "fill_", "exp_", "copy_"])
def test_row5_in_place_on_a_leaf_that_requires_grad(op, torch):
    args = {"add_": (1,), "mul_": (2,), "zero_": (), "fill_": (3.0,), "exp_": ()}

    def snippet(lib):
        w = lib.tensor([1.0, 2.0, 3.0], requires_grad=True)
        if op == "copy_":
            w.copy_(lib.zeros(3))
        else:
            getattr(w, op)(*args[op])

    assert (
        raises_same(snippet, torch)
        == "a leaf Variable that requires grad is being used in an in-place operation."
    )


def test_row5_advanced_index_assignment_on_a_leaf(torch):
    def snippet(lib):
        w = lib.tensor([1.0, 2.0, 3.0], requires_grad=True)
        w[lib.tensor([0, 2])] = 5.0

    raises_same(snippet, torch)


@pytest.mark.parametrize("how", ["view_add", "slice_mul", "unsqueeze_zero", "transpose_fill"])
def test_row6_in_place_on_a_view_of_a_leaf(how, torch):
    def snippet(lib):
        w = lib.tensor([[1.0, 2.0], [3.0, 4.0]], requires_grad=True)
        if how == "view_add":
            w.view(-1).add_(1)
        elif how == "slice_mul":
            w[1:].mul_(2)
        elif how == "unsqueeze_zero":
            w.unsqueeze(0).zero_()
        else:
            w.t().fill_(1.0)

    text = raises_same(snippet, torch)
    assert (
        text
        == "a view of a leaf Variable that requires grad is being used in an in-place operation."
    )


def test_row6_basic_index_assignment_on_a_leaf(torch):
    def snippet(lib):
        w = lib.tensor([1.0, 2.0, 3.0], requires_grad=True)
        w[0] = 5.0

    raises_same(snippet, torch)


def test_row7_in_place_under_no_grad_is_allowed(torch):
    def snippet(lib):
        w = lib.tensor([1.0, 2.0, 3.0], requires_grad=True)
        v0 = w._version
        with lib.no_grad():
            w.add_(1)
        v1 = w._version
        with lib.no_grad():
            w.mul_(2)
            w[0] = 7.0
        return v0, v1, w._version, w, w.is_leaf, w.grad_fn

    got = assert_same(snippet, torch)
    assert got[0][1][:2] == (0, 1)


def test_row7_in_place_under_no_grad_still_invalidates_saved_values(torch):
    def snippet(lib):
        w = lib.tensor([1.0, 2.0, 3.0], requires_grad=True)
        y = (w * w).sum()
        with lib.no_grad():
            w.mul_(2)
        y.backward()

    raises_same(snippet, torch)


def test_sgd_style_update_then_new_forward(torch):
    def snippet(lib):
        w = lib.tensor([1.0, -2.0], requires_grad=True)
        history = []
        for _ in range(3):
            loss = ((w * w) * lib.tensor([1.0, 3.0])).sum()
            loss.backward()
            with lib.no_grad():
                w.sub_(w.grad * 0.1)
            w.grad = None
            history.append(w.detach().clone())
        return history, w._version

    assert_same(snippet, torch)


# -- version counters, views, detach, .data ------------------------------------------------------
def test_views_share_the_version_counter(torch):
    def snippet(lib):
        x = lib.tensor([[1.0, 2.0], [3.0, 4.0]])
        v = x.view(4)
        s = x[0]
        t = x.t()
        s.add_(1)
        t.mul_(2)
        return x._version, v._version, s._version, t._version, x

    assert_same(snippet, torch)


def test_detach_shares_storage_and_version_counter(torch):
    def snippet(lib):
        x = lib.tensor([1.0, 2.0, 3.0], requires_grad=True)
        d = x.detach()
        d.add_(1)
        return d.data_ptr() == x.data_ptr(), x._version, d._version, x, d.requires_grad, d.is_leaf

    assert_same(snippet, torch)


def test_in_place_through_detach_invalidates_saved_values(torch):
    def snippet(lib):
        x = lib.tensor([1.0, 2.0, 3.0], requires_grad=True)
        y = x * x
        x.detach().add_(1)
        y.sum().backward()

    raises_same(snippet, torch)


def test_detach_in_place(torch):
    def snippet(lib):
        x = lib.tensor([1.0, 2.0, 3.0], requires_grad=True)
        y = x * 2
        r = y.detach_()
        return r is y, y, y.is_leaf, y.grad_fn, y.requires_grad

    assert_same(snippet, torch)


def test_detach_in_place_refused_on_a_view(torch):
    def snippet(lib):
        x = lib.tensor([1.0, 2.0, 3.0], requires_grad=True)
        (x * 2)[1:].detach_()

    raises_same(snippet, torch)


def test_requires_grad_in_place_returns_self(torch):
    def snippet(lib):
        x = lib.tensor([1.0, 2.0])
        r = x.requires_grad_()
        first = (r is x, x.requires_grad)
        return first, x.requires_grad_(False) is x, x.requires_grad

    assert_same(snippet, torch)


def test_data_is_invisible_to_autograd(torch):
    def snippet(lib):
        x = lib.tensor([1.0, 2.0, 3.0], requires_grad=True)
        y = x * x
        x.data.add_(1)  # no version bump seen by the saved x
        y.sum().backward()
        d = x.data
        return x.grad, x._version, x, d.requires_grad, d.is_leaf, d.data_ptr() == x.data_ptr()

    assert_same(snippet, torch)


def test_data_assignment_replaces_the_values(torch):
    def snippet(lib):
        x = lib.tensor([1.0, 2.0, 3.0], requires_grad=True)
        x.data = lib.tensor([5.0, 6.0])
        y = (x * x).sum()
        y.backward()
        return x, x.grad, x.requires_grad, x.is_leaf

    assert_same(snippet, torch)


def test_integer_in_place_cast_error(torch):
    def snippet(lib):
        t = lib.tensor([1, 2])
        t += 1.5

    raises_same(snippet, torch)


def test_inference_in_place_on_a_saved_tensor_in_no_grad_of_a_copy_is_fine():
    w = tinytorch.tensor([1.0, 2.0], requires_grad=True)
    y = (w * w).sum()
    with tinytorch.no_grad():
        w2 = w.clone()
        w2.mul_(3)
    y.backward()
    assert w.grad.tolist() == [2.0, 4.0]
    assert w2.tolist() == [3.0, 6.0]
