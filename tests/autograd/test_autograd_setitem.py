"""Gradients through ``__setitem__`` (CopySlices and friends) and in-place ops on views,
against PyTorch."""

import pytest

from test_autograd_helpers import assert_same, raises_same


# -- __setitem__ (CopySlices and friends) ----------------------------------------------------------
SETITEM = {
    "slice_from_grad_value": lambda lib, x, v: x.__setitem__(slice(1, 3), v * v),
    "int_constant": lambda lib, x, v: x.__setitem__(0, 0.0),
    "index_tensor": lambda lib, x, v: x.__setitem__(lib.tensor([0, 3]), v),
    "mask_constant": lambda lib, x, v: x.__setitem__(x > 2, 0.0),
    "broadcast_scalar_value": lambda lib, x, v: x.__setitem__(slice(None), v.sum()),
    "twice": lambda lib, x, v: (x.__setitem__(0, v[0]), x.__setitem__(slice(2, 4), v * 3)),
}


@pytest.mark.parametrize("name", sorted(SETITEM))
def test_setitem_gradients(name, torch):
    def snippet(lib):
        w = lib.tensor([1.0, 2.0, 3.0, 4.0], requires_grad=True)
        v = lib.tensor([10.0, 20.0], requires_grad=True)
        x = w * 1
        SETITEM[name](lib, x, v)
        (x * x * lib.tensor([1.0, 2.0, 3.0, 4.0])).sum().backward()
        return x, w.grad, v.grad, x.grad_fn.name()

    assert_same(snippet, torch)


def test_setitem_into_a_tensor_that_does_not_require_grad(torch):
    def snippet(lib):
        z = lib.zeros(2, 3)
        v = lib.tensor([1.0, 2.0, 3.0], requires_grad=True)
        z[1] = v
        z[0, 1:] = v[:2] * 2
        (z * z).sum().backward()
        return z, v.grad, z.is_leaf, z.requires_grad, z.grad_fn.name()

    assert_same(snippet, torch)


def test_setitem_bumps_the_version_and_invalidates_saved_values(torch):
    def snippet(lib):
        w = lib.tensor([1.0, 2.0], requires_grad=True)
        x = w * 1
        y = x * x
        x[0] = 5.0
        v = x._version
        y.sum().backward()
        return v

    raises_same(snippet, torch)


# -- in-place on views of non-leaves: CopySlices on the base -------------------------------------
def test_in_place_on_a_view_of_a_non_leaf(torch):
    def snippet(lib):
        x = lib.tensor([1.0, 2.0, 3.0, 4.0], requires_grad=True)
        y = x * 1
        y.view(2, 2).mul_(2)
        y.sum().backward()
        return x.grad, y

    assert_same(snippet, torch)


def test_in_place_on_a_slice_of_a_non_leaf(torch):
    def snippet(lib):
        x = lib.tensor([1.0, 2.0, 3.0, 4.0], requires_grad=True)
        y = x * 1
        y[1:3].mul_(x[:2])
        y.sum().backward()
        return x.grad, y

    assert_same(snippet, torch)


def test_in_place_on_a_view_without_grad_is_fine(torch):
    def snippet(lib):
        x = lib.tensor([[1.0, 2.0], [3.0, 4.0]])
        x[0].mul_(10)
        x.t()[1].add_(1)
        return x, x._version

    assert_same(snippet, torch)
