"""The order in which the backward engine runs the nodes, as hooks see it, is PyTorch's: of the nodes ready to
run, a leaf's AccumulateGrad first, else the one created last (PyTorch's ``sequence_nr``); AccumulateGrads ready
together come out as PyTorch's heap (libstdc++'s ``priority_queue``) gives them.

Each program registers a post-hook on every node of its graph (and tensor hooks where it says) and records
the order they fire in, on both libraries."""
import pytest

import tinytorch

from _oracle import torch  # noqa: E402  (PyTorch when a test reads it)


from _graph_walk import graph_nodes as _nodes  # noqa: E402


class _Recorder:
    """Leaves named as made, so that an AccumulateGrad's entry in the log says whose it is."""

    def __init__(self, lib):
        self.lib, self.log, self.names = lib, [], {}

    def leaf(self, name, *shape):
        t = self.lib.tensor([[0.1 * (i + 1) * (j - 2) for j in range(shape[-1])] for i in range(shape[0])]
                            if len(shape) == 2 else [0.3 * (j - 1) for j in range(shape[0])],
                            dtype=self.lib.float64, requires_grad=True)
        self.names[id(t)] = name
        return t

    def hook_graph(self, *outputs):
        for node in _nodes([o.grad_fn for o in outputs]):
            label = node.name().split("::")[-1]
            if label == "AccumulateGrad":
                label += ":" + self.names[id(node.variable)]
            node.register_hook(lambda grad_inputs, grad_outputs, label=label: self.log.append(label))


def chain(r, lib):
    x = r.leaf("x", 3)
    y = (x.exp() * 2).sin().sum()
    r.hook_graph(y)
    y.backward()


def two_leaves(r, lib):
    x, w = r.leaf("x", 3), r.leaf("w", 3)
    y = (x * w).sum()
    r.hook_graph(y)
    y.backward()


def diamond(r, lib):
    x = r.leaf("x", 3)
    a = x.exp()
    y = (a.sin() * a.cos() + a).sum()
    r.hook_graph(y)
    y.backward()


def mlp_with_loss(r, lib):
    x, w1, b1, w2, b2 = r.leaf("x", 4, 3), r.leaf("W1", 5, 3), r.leaf("b1", 5), r.leaf("W2", 2, 5), r.leaf("b2", 2)
    F = lib.nn.functional
    out = F.linear(F.linear(x, w1, b1).relu(), w2, b2)
    loss = F.cross_entropy(out, lib.tensor([0, 1, 1, 0]))
    r.hook_graph(loss)
    loss.backward()


def leaf_used_twice(r, lib):
    x, w, b = r.leaf("x", 3), r.leaf("w", 3), r.leaf("b", 3)
    y = (x * w + x * b + x.exp() + w).sum()
    r.hook_graph(y)
    y.backward()


def many_leaves_ready_together(r, lib):
    # seven AccumulateGrads ready at once: their order is the heap's, not first-in first-out
    ps = [r.leaf(f"p{i}", 2) for i in range(7)]
    y = lib.stack(ps).sum() + (ps[3] * ps[5]).sum() + ps[0].exp().sum()
    r.hook_graph(y)
    y.backward()


def autograd_grad_inputs(r, lib):
    x, w, b = r.leaf("x", 3), r.leaf("w", 3), r.leaf("b", 3)
    h = x * w + b
    y = (h.exp() * h).sum()
    r.hook_graph(y)
    lib.autograd.grad(y, [w, h], retain_graph=True)
    r.log.append("|")
    lib.autograd.grad(y, [b, x])


def backward_inputs(r, lib):
    x, w, b = r.leaf("x", 3), r.leaf("w", 3), r.leaf("b", 3)
    h = x * w + b
    y = (h.exp() * h).sum()
    r.hook_graph(y)
    y.backward(inputs=[b, w])


def create_graph(r, lib):
    x, w = r.leaf("x", 3), r.leaf("w", 3)
    y = (x * w).exp().sum()
    r.hook_graph(y)
    g, = lib.autograd.grad(y, x, create_graph=True)
    r.log.append("|")
    z = (g * w).sum()
    r.hook_graph(z)
    z.backward()


def several_roots(r, lib):
    x, w = r.leaf("x", 3), r.leaf("w", 3)
    a, b, c = (x * w).sum(), x.exp().sum(), w.sin().sum()
    r.hook_graph(a, b, c)
    lib.autograd.backward([b, a, c])


def tensor_hooks(r, lib):
    x, w = r.leaf("x", 3), r.leaf("w", 3)
    h = x * w
    h.register_hook(lambda g: r.log.append("hook h"))
    x.register_hook(lambda g: r.log.append("hook x"))
    w.register_hook(lambda g: r.log.append("hook w"))
    w.register_post_accumulate_grad_hook(lambda p: r.log.append("post-accumulate w"))
    x.register_post_accumulate_grad_hook(lambda p: r.log.append("post-accumulate x"))
    y = (h * x).sum()
    r.hook_graph(y)
    y.backward()


def tensor_hooks_only(r, lib):
    # no node hooks: the loop's fast path (nodes run inline) must keep the order too
    x, w, b = r.leaf("x", 3), r.leaf("w", 3), r.leaf("b", 3)
    for name, t in (("x", x), ("w", w), ("b", b)):
        t.register_post_accumulate_grad_hook(lambda p, name=name: r.log.append(name))
    y = ((x * w).relu() + (x * b).sigmoid() + w.exp() * b).sum()
    y.backward()


PROGRAMS = [chain, two_leaves, diamond, mlp_with_loss, leaf_used_twice, many_leaves_ready_together,
            autograd_grad_inputs, backward_inputs, create_graph, several_roots, tensor_hooks, tensor_hooks_only]


def _order(program, lib):
    r = _Recorder(lib)
    program(r, lib)
    return r.log


@pytest.mark.parametrize("program", PROGRAMS, ids=lambda p: p.__name__)
def test_nodes_run_in_pytorchs_order(program):
    expected = _order(program, torch)
    assert len(expected) > 2
    assert _order(program, tinytorch) == expected


def test_one_engine_loop():
    # the loop is autograd/engine.py's alone (docs/architecture.md): no CPU path registers another over it
    from tinytorch._ops._core import paths
    assert not [t for t in paths.PATHS if t in ("engine._execute", "engine._collect")]


def test_sequence_nr_follows_creation_order():
    for lib in (torch, tinytorch):
        x = lib.ones(2, requires_grad=True)
        a = x.exp()
        b = a * 2
        c = b.sum()
        acc = a.grad_fn.next_functions[0][0]
        assert a.grad_fn._sequence_nr() < b.grad_fn._sequence_nr() < c.grad_fn._sequence_nr()
        assert acc._sequence_nr() == 2 ** 64 - 1


def _random_program(seed):
    """A random graph of binary and unary ops over a few leaves (some used many times), its AccumulateGrads
    often ready together: the heap's ties then depend on how many other nodes wait in it."""
    import random

    def program(r, lib):
        rng = random.Random(seed)  # the same program on both libraries
        n_leaves = rng.randint(2, 9)
        values = [r.leaf(f"p{i}", 2) for i in range(n_leaves)]
        for _ in range(rng.randint(3, 25)):
            kind = rng.random()
            a, b = rng.choice(values), rng.choice(values)
            if kind < 0.4:
                values.append(a * b)
            elif kind < 0.7:
                values.append(a + b)
            elif kind < 0.85:
                values.append(lib.stack(rng.sample(values, min(len(values), rng.randint(2, 6)))).sum(0))
            else:
                values.append(a.tanh())
        picks = rng.sample(values, min(len(values), rng.randint(1, 5)))
        out = sum(v.sum() for v in picks)
        r.hook_graph(out)
        out.backward()
    return program


@pytest.mark.parametrize("seed", range(40))
def test_random_graphs_run_in_pytorchs_order(seed):
    program = _random_program(seed)
    assert _order(program, tinytorch) == _order(program, torch)
