"""``lens.why``: the seven errors learners hit most, explained with the node, tensor and versions of the
graph at hand; the same explanation on PyTorch and on tinytorch. ``explain_errors`` appends it only
when switched on."""
import warnings

import pytest

import tinytorch
import tinytorch.lens as lens

from _oracle import torch  # noqa: E402  (PyTorch when a test reads it)


def _raised(fn):
    with pytest.raises(RuntimeError) as info:
        fn()
    return info.value


def second_backward(lib):
    x = lib.tensor([1.0, 2.0], requires_grad=True)
    y = (x * x).sum()
    y.backward()
    return _raised(y.backward), y


def inplace_saved(lib):
    x = lib.tensor([1.0, 2.0], requires_grad=True)
    a = x * 1
    b = (a * a).sum()
    a.add_(1)
    return _raised(b.backward), b


def nonleaf_grad(lib):
    x = lib.tensor([1.0, 2.0], requires_grad=True)
    y = x * 2
    with warnings.catch_warnings(record=True) as caught:
        warnings.simplefilter("always")
        assert y.grad is None
    return caught[0], y


def no_grad_fn(lib):
    z = lib.tensor([1.0, 2.0]).sum()
    return _raised(z.backward), z


def not_scalar(lib):
    y = lib.tensor([[1.0, 2.0], [3.0, 4.0]], requires_grad=True) * 2
    return _raised(y.backward), y


def leaf_inplace(lib):
    w = lib.tensor([1.0, 2.0], requires_grad=True)
    return _raised(lambda: w.add_(1)), w


def numpy_of_tracked(lib):
    w = lib.tensor([1.0, 2.0], requires_grad=True)
    return _raised(w.numpy), w


# each error, and what its explanation must name in this graph
ERRORS = [
    (second_backward, ["[1] MulBackward0: _saved_self (freed)", "retain_graph=True"]),
    (inplace_saved, ["[1] MulBackward0: _saved_self (modified in place: now version 1, saved at version 0)",
                     "[FloatTensor [2]], which is output 0 of Add, is at version 1; expected version 0"]),
    (nonleaf_grad, ["is_leaf=False", "grad_fn=MulBackward0", "retain_grad()"]),
    (no_grad_fn, ["requires_grad=False", "grad_fn=None", "no_grad()"]),
    (not_scalar, ["shape (2, 2), 4 elements", "gradient=torch.ones_like(out)"]),
    (leaf_inplace, ["is_leaf=True, requires_grad=True", "with torch.no_grad()"]),
    (numpy_of_tracked, ["requires_grad=True", "t.detach().numpy()"]),
]


@pytest.mark.parametrize("make, facts", ERRORS, ids=[e[0].__name__ for e in ERRORS])
def test_why_names_this_graph_the_same_on_both_libraries(make, facts):
    ours = lens.why(*make(tinytorch))
    theirs = lens.why(*make(torch))
    assert ours == theirs
    for fact in facts:
        assert fact in theirs


@pytest.mark.parametrize("make", [second_backward, inplace_saved, no_grad_fn, not_scalar, numpy_of_tracked],
                         ids=lambda f: f.__name__)
def test_explain_errors_appends_only_when_switched_on(make):
    plain = str(make(torch)[0])
    assert "tinytorch.lens" not in plain
    lens.explain_errors(True)
    try:
        for lib in (torch, tinytorch):
            exc, root = make(lib)
            msg = str(exc)
            head, _, explanation = msg.partition("\n\nExplained by tinytorch.lens:\n")
            assert explanation == lens.why(exc, root)
            if lib is torch:
                assert head == plain  # PyTorch's own words come first, unchanged
    finally:
        lens.explain_errors(False)
    assert str(make(torch)[0]) == plain
    assert "numpy" not in vars(torch.Tensor)  # the C base class's method is uncovered again


def test_explain_errors_explains_the_nonleaf_grad_warning():
    lens.explain_errors(True)
    try:
        caught, _ = nonleaf_grad(torch)
        text = warnings.formatwarning(caught.message, caught.category, caught.filename, caught.lineno)
    finally:
        lens.explain_errors(False)
    assert "Explained by tinytorch.lens:" in text and "retain_grad()" in text
    plain = warnings.formatwarning(caught.message, caught.category, caught.filename, caught.lineno)
    assert "tinytorch.lens" not in plain


def test_why_of_another_error_says_so():
    assert lens.why(ValueError("something else")) == "tinytorch.lens has no explanation for this error."
