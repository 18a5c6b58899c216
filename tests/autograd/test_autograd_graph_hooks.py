"""autograd.graph.saved_tensors_hooks / save_on_cpu / disable_saved_tensors_hooks against PyTorch."""
import numpy as np
import pytest

import tinytorch

from _oracle import torch  # noqa: E402  (PyTorch when a test reads it)

XS = np.array([0.5, -1.5, 2.0])


def _run(L, body):
    try:
        return ("ok", body(L))
    except Exception as e:  # noqa: BLE001
        return (type(e).__name__, str(e))


def _norm(x):
    if isinstance(x, (tuple, list)):
        return tuple(_norm(v) for v in x)
    if isinstance(x, (tinytorch.Tensor, torch.Tensor)):
        return ("T", np.round(x.detach().numpy(), 10).tolist())
    return x


def _hooks_log(L):
    packed, unpacked = [], []

    def pack(t):
        packed.append(tuple(t.shape))
        return ("box", t.detach() * 1)

    def unpack(p):
        unpacked.append(p[0])
        return p[1]
    x = L.tensor(XS, requires_grad=True)
    with L.autograd.graph.saved_tensors_hooks(pack, unpack):
        y = (x.exp() * x).sin().sum()
    n_packed = len(packed)
    (g,) = L.autograd.grad(y, x)
    return n_packed, len(unpacked), g


def _unpack_replaces(L):
    # what unpack returns is what the backward uses
    x = L.tensor(XS, requires_grad=True)
    with L.autograd.graph.saved_tensors_hooks(lambda t: t, lambda t: t * 0 + 2):
        y = (x * x).sum()
    y.backward()
    return x.grad


def _nested(L):
    seen = []
    x = L.tensor(XS, requires_grad=True)
    with L.autograd.graph.saved_tensors_hooks(lambda t: seen.append("outer") or t, lambda t: t):
        with L.autograd.graph.saved_tensors_hooks(lambda t: seen.append("inner") or t, lambda t: t):
            y = (x * x).sum()
        z = (x * 3).sum()
    (y + z).backward()
    return tuple(seen), x.grad


def _custom_function(L):
    class Sq(L.autograd.Function):
        @staticmethod
        def forward(ctx, a):
            ctx.save_for_backward(a)
            return a * a

        @staticmethod
        def backward(ctx, g):
            (a,) = ctx.saved_tensors
            return 2 * a * g
    count = []
    x = L.tensor(XS, requires_grad=True)
    with L.autograd.graph.saved_tensors_hooks(lambda t: count.append(1) or t.detach(), lambda t: t):
        y = Sq.apply(x).sum()
    y.backward()
    return len(count), x.grad


def _save_on_cpu(L):
    x = L.tensor(XS, requires_grad=True)
    with L.autograd.graph.save_on_cpu():
        y = (x.tanh() * x).sum()
    with L.autograd.graph.save_on_cpu(pin_memory=True):
        z = (x.sigmoid() * x).sum()
    (y + z).backward()
    return x.grad


def _bad_unpack(L):
    x = L.tensor(XS, requires_grad=True)
    with L.autograd.graph.saved_tensors_hooks(lambda t: 5, lambda p: p):
        y = (x * x).sum()
    y.backward()


def _disabled(L):
    with L.autograd.graph.disable_saved_tensors_hooks("no hooks in here"):
        with L.autograd.graph.saved_tensors_hooks(lambda t: t, lambda t: t):
            pass


def _edge(L):
    x = L.tensor(XS, requires_grad=True)
    y = x * 2
    e = L.autograd.graph.get_gradient_edge(y)
    return e.node.name(), e.output_nr, L.autograd.graph.get_gradient_edge(x).node.name()


CASES = {"log": _hooks_log, "unpack_replaces": _unpack_replaces, "nested": _nested, "custom": _custom_function,
         "save_on_cpu": _save_on_cpu, "bad_unpack": _bad_unpack, "disabled": _disabled, "edge": _edge}


@pytest.mark.parametrize("name", list(CASES))
def test_saved_tensor_hooks_vs_torch(name):
    a, b = _run(tinytorch, CASES[name]), _run(torch, CASES[name])
    assert _norm(a) == _norm(b), (a, b)


def test_hooks_off_after_block_and_node_alias():
    x = tinytorch.tensor(XS, requires_grad=True)
    with tinytorch.autograd.graph.saved_tensors_hooks(lambda t: t, lambda t: t):
        pass
    y = x * x
    assert y.grad_fn._saved[0] is x  # nothing packed outside the block
    assert isinstance(y.grad_fn, tinytorch.autograd.graph.Node)


def _walk(fn):
    if fn is None:
        return None
    return (fn.name(), tuple(_walk(n) for n, _ in fn.next_functions))


@pytest.mark.parametrize("scalar", [3, 2.5, True])
@pytest.mark.parametrize("dtype", ["float32", "float64"])
def test_scalar_div_records_reciprocal_then_mul(scalar, dtype):
    # scalar / t is reciprocal(t) * scalar in PyTorch: the graph and the rounding both follow from that
    res = []
    for L in (tinytorch, torch):
        t = L.tensor(np.array([0.3, -7.0, 1e-3]), dtype=getattr(L, dtype), requires_grad=True)
        y = scalar / t
        (g,) = L.autograd.grad(y.sum(), t, create_graph=True)
        (gg,) = L.autograd.grad(g.sum(), t)
        res.append((_walk(y.grad_fn), y.detach().numpy().tobytes(), g.detach().numpy().tolist(),
                    gg.numpy().tolist(), (scalar / L.tensor([2, 4])).tolist()))
    assert res[0] == res[1]
