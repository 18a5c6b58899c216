"""Tensor hooks, post-accumulate-grad hooks and Node hooks/prehooks, against PyTorch."""

import numpy as np
import pytest

import tinytorch
from test_autograd_helpers import assert_same


def _x(lib):
    return lib.tensor([1.0, -2.0, 3.0], requires_grad=True)


def test_leaf_hook_sees_and_replaces_the_gradient(torch):
    def snippet(lib):
        x = _x(lib)
        seen = []
        x.register_hook(lambda g: seen.append(g.clone()) or g * 10)
        (x * x).sum().backward()
        return seen, x.grad

    assert_same(snippet, torch)


def test_hook_returning_none_keeps_the_gradient(torch):
    def snippet(lib):
        x = _x(lib)
        calls = []
        x.register_hook(lambda g: calls.append(1))
        (x * 2).sum().backward()
        return calls, x.grad

    assert_same(snippet, torch)


def test_several_hooks_chain_in_registration_order(torch):
    def snippet(lib):
        x = _x(lib)
        order = []
        x.register_hook(lambda g: order.append(("first", g.tolist())) or g + 1)
        x.register_hook(lambda g: order.append(("second", g.tolist())) or g * 2)
        (x * 3).sum().backward()
        return order, x.grad

    assert_same(snippet, torch)


def test_removed_hook_is_not_called(torch):
    def snippet(lib):
        x = _x(lib)
        calls = []
        handle = x.register_hook(lambda g: calls.append("removed") or g * 100)
        x.register_hook(lambda g: calls.append("kept"))
        handle.remove()
        handle.remove()  # a second remove is harmless
        (x * 3).sum().backward()
        return calls, x.grad

    assert_same(snippet, torch)


def test_handle_as_context_manager(torch):
    def snippet(lib):
        x = _x(lib)
        with x.register_hook(lambda g: g * 0):
            (x * 3).sum().backward()
        first = x.grad.clone()
        (x * 3).sum().backward()
        return first, x.grad

    assert_same(snippet, torch)


def test_non_leaf_hook_changes_what_flows_upstream(torch):
    def snippet(lib):
        x = _x(lib)
        h = x * 2
        seen = []
        h.register_hook(lambda g: seen.append(g.clone()) or g.clamp(min=0.5))
        (h * lib.tensor([1.0, 0.0, -1.0])).sum().backward()
        return seen, x.grad

    assert_same(snippet, torch)


def test_hook_on_a_tensor_used_twice_sees_the_summed_gradient(torch):
    def snippet(lib):
        x = _x(lib)
        h = x + 1
        seen = []
        h.register_hook(lambda g: seen.append(g.clone()))
        (h * 2 + h * h).sum().backward()
        return seen, x.grad

    assert_same(snippet, torch)


def test_hook_and_retain_grad_in_both_orders(torch):
    def snippet(lib):
        out = []
        for retain_first in (True, False):
            x = _x(lib)
            h = x * 1
            if retain_first:
                h.retain_grad()
            h.register_hook(lambda g: g * 3)
            if not retain_first:
                h.retain_grad()
            h.sum().backward()
            out.append((h.grad, x.grad))
        return out

    assert_same(snippet, torch)


def test_hooks_fire_from_the_output_towards_the_inputs(torch):
    def snippet(lib):
        x = _x(lib)
        y1 = x * 2
        y2 = y1.exp()
        y3 = y2.sum()
        order = []
        for name, t in (("x", x), ("y1", y1), ("y2", y2), ("y3", y3)):
            t.register_hook(lambda g, name=name: order.append(name))
        y3.backward()
        return order

    assert_same(snippet, torch)


def test_hooks_on_outputs_of_a_multi_output_node(torch):
    def snippet(lib):
        x = lib.tensor([[1.0, 2.0], [3.0, 4.0]], requires_grad=True)
        r0, r1 = x.unbind(0)
        r1.register_hook(lambda g: g * -1)
        (r0 * 2 + r1 * 3).sum().backward()
        return x.grad

    assert_same(snippet, torch)


def test_leaf_hook_applies_in_autograd_grad(torch):
    def snippet(lib):
        x = _x(lib)
        x.register_hook(lambda g: g * 5)
        return lib.autograd.grad((x * x).sum(), x), x.grad

    assert_same(snippet, torch)


def test_hook_under_create_graph_gets_a_differentiable_gradient(torch):
    def snippet(lib):
        x = lib.tensor([1.0, 2.0], dtype=lib.float64, requires_grad=True)
        flags = []
        h = x * x
        h.register_hook(lambda g: flags.append(g.requires_grad))
        (g,) = lib.autograd.grad((h * x).sum(), x, create_graph=True)
        return flags, g.detach(), lib.autograd.grad(g.sum(), x)

    assert_same(snippet, torch)


def test_post_accumulate_grad_hook(torch):
    def snippet(lib):
        x = _x(lib)
        seen = []

        def hook(t):
            seen.append((t is x, t.grad.clone()))

        x.register_post_accumulate_grad_hook(hook)
        (x * 2).sum().backward()
        (x * 3).sum().backward()
        return seen, x.grad

    assert_same(snippet, torch)


def test_post_accumulate_grad_hook_can_consume_the_gradient(torch):
    def snippet(lib):
        x = _x(lib)
        updates = []

        def step(t):
            with lib.no_grad():
                t.sub_(t.grad * 0.5)
            updates.append(t.detach().clone())
            t.grad = None

        handle = x.register_post_accumulate_grad_hook(step)
        (x * x).sum().backward()
        handle.remove()
        (x * x).sum().backward()
        return updates, x.grad

    assert_same(snippet, torch)


def test_post_accumulate_grad_hook_runs_after_tensor_hooks(torch):
    def snippet(lib):
        x = _x(lib)
        order = []
        x.register_post_accumulate_grad_hook(lambda t: order.append(("post", t.grad.tolist())))
        x.register_hook(lambda g: order.append(("pre", g.tolist())) or g + 1)
        (x * 2).sum().backward()
        return order

    assert_same(snippet, torch)


def test_post_accumulate_grad_hook_not_called_by_autograd_grad(torch):
    def snippet(lib):
        x = _x(lib)
        calls = []
        x.register_post_accumulate_grad_hook(lambda t: calls.append(1))
        lib.autograd.grad((x * 2).sum(), x)
        return calls

    assert_same(snippet, torch)


def test_node_prehook_and_hook(torch):
    def snippet(lib):
        a = lib.tensor([1.0, 2.0], requires_grad=True)
        b = lib.tensor([3.0, 4.0], requires_grad=True)
        z = a * b
        seen = []

        def prehook(grad_outputs):
            seen.append(("pre", [g.tolist() for g in grad_outputs]))
            return (grad_outputs[0] * 2,)

        def hook(grad_inputs, grad_outputs):
            seen.append(
                ("post", [g.tolist() for g in grad_inputs], [g.tolist() for g in grad_outputs])
            )
            return (grad_inputs[0] + 100, grad_inputs[1])

        z.grad_fn.register_prehook(prehook)
        z.grad_fn.register_hook(hook)
        z.sum().backward()
        return seen, a.grad, b.grad

    assert_same(snippet, torch)


def test_node_hook_removed(torch):
    def snippet(lib):
        a = lib.tensor([1.0, 2.0], requires_grad=True)
        z = a * 3
        handle = z.grad_fn.register_prehook(lambda go: (go[0] * 0,))
        handle.remove()
        z.sum().backward()
        return a.grad

    assert_same(snippet, torch)


def test_accumulate_grad_node_prehook(torch):
    def snippet(lib):
        a = lib.tensor([1.0, 2.0], requires_grad=True)
        z = a * 3
        acc = z.grad_fn.next_functions[0][0]
        seen = []
        acc.register_prehook(lambda go: seen.append(("pre", go[0].tolist(), a.grad)))
        acc.register_prehook(lambda go: (go[0] * 2,))
        acc.register_hook(
            lambda gi, go: seen.append(("post", len(gi), go[0].tolist(), a.grad.clone()))
        )
        z.sum().backward()
        return type(acc).__name__, seen, a.grad

    assert_same(snippet, torch)


def test_hook_errors_propagate_and_leave_no_partial_grad():
    x = tinytorch.tensor([1.0, 2.0], requires_grad=True)

    def boom(g):
        raise ValueError("from the hook")

    x.register_hook(boom)
    try:
        (x * 2).sum().backward()
    except ValueError as e:
        assert str(e) == "from the hook"
    else:
        raise AssertionError("the hook's error was swallowed")
    assert x.grad is None
    assert tinytorch.is_grad_enabled()


def test_leaf_listed_twice_in_autograd_grad_runs_its_hook_once(torch):
    def snippet(lib):
        x = _x(lib)
        calls = []
        x.register_hook(lambda g: calls.append(g.tolist()) or g * 2)
        grads = lib.autograd.grad((x * x).sum(), [x, x])
        return calls, grads

    assert_same(snippet, torch)


def test_non_leaf_hooks_and_node_prehooks_apply_to_captured_gradients(torch):
    def snippet(lib):
        x = _x(lib)
        h = x * 2
        k = x * 3
        h.register_hook(lambda g: g * 10)
        k.grad_fn.register_prehook(lambda go: (go[0] + 1,))
        return lib.autograd.grad((h * k).sum(), [h, k, x])

    assert_same(snippet, torch)


def test_leaf_hook_under_create_graph_is_differentiated_through(torch):
    def snippet(lib):
        x = lib.tensor([1.0, 2.0], dtype=lib.float64, requires_grad=True)
        x.register_hook(lambda g: g * g)
        (g,) = lib.autograd.grad((x**3).sum(), x, create_graph=True)
        return g.detach(), lib.autograd.grad(g.sum(), x)

    assert_same(snippet, torch)


@pytest.mark.bitexact
def test_first_gradient_of_a_leaf_with_post_accumulate_hook_as_pytorch(torch):
    """The engine's inline first accumulation still runs post-accumulate hooks once, after .grad is set."""
    got = {}
    for lib in (tinytorch, torch):
        x = lib.ones(2, 3, requires_grad=True)
        calls = []
        x.register_post_accumulate_grad_hook(lambda p: calls.append(p.grad.clone()))
        (lib.tanh(x) * 2).sum().backward()
        got[lib.__name__] = (len(calls), calls[0].numpy().tolist(), x.grad.numpy().tolist())
    assert got["tinytorch"][0] == got["torch"][0] == 1
    np.testing.assert_allclose(got["tinytorch"][1], got["torch"][1], rtol=1e-6)
    np.testing.assert_allclose(got["tinytorch"][2], got["torch"][2], rtol=1e-6)
