"""The recorded graph: requires_grad propagation, leaves, grad_fn names and next_functions,
against PyTorch; nodes and results keep their attributes in their class's shared key table."""

import pytest

import tinytorch
import _repo
from test_autograd_helpers import assert_same


def _leaves(lib):
    x = lib.tensor([[1.0, -2.0, 3.0], [0.5, 4.0, -1.5]], requires_grad=True)
    y = lib.tensor([[2.0, 1.0, -1.0], [3.0, 0.25, 2.0]])
    return x, y


# each entry: a result built from x (requires grad) and y (does not)
PROPAGATION = {
    "add": lambda lib, x, y: x + y,
    "add_const_only": lambda lib, x, y: y + 1,
    "radd": lambda lib, x, y: 1 + x,
    "sub": lambda lib, x, y: y - x,
    "rsub": lambda lib, x, y: 2 - x,
    "mul": lambda lib, x, y: x * y,
    "mul_scalar": lambda lib, x, y: x * 2,
    "div": lambda lib, x, y: x / y,
    "rdiv": lambda lib, x, y: 1 / x,
    "pow": lambda lib, x, y: x**2,
    "neg": lambda lib, x, y: -x,
    "exp": lambda lib, x, y: x.exp(),
    "sum": lambda lib, x, y: x.sum(),
    "sum_dim": lambda lib, x, y: x.sum(1),
    "mean": lambda lib, x, y: x.mean(),
    "matmul": lambda lib, x, y: x @ y.t(),
    "view": lambda lib, x, y: x.view(-1),
    "reshape": lambda lib, x, y: x.reshape(3, 2),
    "transpose": lambda lib, x, y: x.t(),
    "index": lambda lib, x, y: x[0],
    "slice": lambda lib, x, y: x[:, 1:],
    "stack": lambda lib, x, y: lib.stack([x, y]),
    "cat_no_grad": lambda lib, x, y: lib.cat([y, y]),
    "to_double": lambda lib, x, y: x.to(lib.float64),
    "to_long": lambda lib, x, y: x.long(),
    "compare": lambda lib, x, y: x > 0,
    "argmax": lambda lib, x, y: x.argmax(),
    "detach": lambda lib, x, y: x.detach(),
    "clone": lambda lib, x, y: x.clone(),
    "relu": lambda lib, x, y: x.relu(),
    "where": lambda lib, x, y: lib.where(x > 0, x, y),
}


@pytest.mark.parametrize("name", sorted(PROPAGATION))
def test_requires_grad_and_grad_fn_propagate_like_pytorch(name, torch):
    def snippet(lib):
        x, y = _leaves(lib)
        return PROPAGATION[name](lib, x, y)

    assert_same(snippet, torch)


@pytest.mark.parametrize("name", sorted(PROPAGATION))
def test_nothing_is_recorded_under_no_grad(name, torch):
    # nothing gets a grad_fn; a view still requires grad when its base does (PyTorch's rule)
    def snippet(lib):
        x, y = _leaves(lib)
        with lib.no_grad():
            out = PROPAGATION[name](lib, x, y)
        return out, out.grad_fn is None, out.is_leaf

    got = assert_same(snippet, torch)
    assert got[0][1][1:] == (True, True)


def test_leaf_flags(torch):
    def snippet(lib):
        a = lib.tensor([1.0, 2.0])
        b = lib.tensor([1.0, 2.0], requires_grad=True)
        c = b * 2
        d = c.detach()
        return [(t.is_leaf, t.requires_grad, t.grad_fn is None) for t in (a, b, c, d)]

    assert_same(snippet, torch)


def _describe(node, leaves: dict, depth: int = 6):
    """A nested (name, children) picture of the graph under ``node``; leaves named by their key."""
    if node is None:
        return None
    name = type(node).__name__
    if name == "AccumulateGrad":
        return ("AccumulateGrad", leaves.get(id(node.variable), "?"))
    if depth == 0:
        return (name, "...")
    return (name, tuple((_describe(n, leaves, depth - 1), nr) for n, nr in node.next_functions))


GRAPHS = {
    "mul_add": lambda lib, a, b: (a * b + a).sum(),
    "mul_by_constant": lambda lib, a, b: a * lib.tensor([1.0, 2.0]),
    "matmul": lambda lib, a, b: (a.unsqueeze(0) @ b.unsqueeze(1)).squeeze(),
    "shared_input": lambda lib, a, b: a * a,
    "stack_with_constant": lambda lib, a, b: lib.stack([a, lib.zeros(2), b]),
    "view_chain": lambda lib, a, b: a.view(2, 1).t().reshape(-1).exp(),
    "unbind": lambda lib, a, b: a.unbind(0)[1] * b,
    "mean_of_pow": lambda lib, a, b: (a**2).mean(),
    "scalar_rdiv": lambda lib, a, b: 3 / a,
    "sub_alpha": lambda lib, a, b: lib.sub(a, b, alpha=2),
}


@pytest.mark.parametrize("name", sorted(GRAPHS))
def test_grad_fn_names_and_next_functions(name, torch):
    def snippet(lib):
        a = lib.tensor([1.0, 2.0], requires_grad=True)
        b = lib.tensor([3.0, 4.0], requires_grad=True)
        out = GRAPHS[name](lib, a, b)
        return out, out.grad_fn.name(), _describe(out.grad_fn, {id(a): "a", id(b): "b"})

    assert_same(snippet, torch)


def test_accumulate_grad_is_shared_and_points_at_the_leaf():
    a = tinytorch.tensor([1.0, 2.0], requires_grad=True)
    y1, y2 = a * 2, a + 1
    acc1, acc2 = y1.grad_fn.next_functions[0][0], y2.grad_fn.next_functions[0][0]
    assert type(acc1).__name__ == "AccumulateGrad"
    assert acc1 is acc2 and acc1.variable is a
    assert acc1.next_functions == ()


def test_input_not_requiring_grad_gives_a_none_edge(torch):
    def snippet(lib):
        a = lib.tensor([1.0, 2.0], requires_grad=True)
        c = lib.tensor([5.0, 6.0])
        return [
            (type(n).__name__ if n is not None else None, nr)
            for n, nr in (c * a).grad_fn.next_functions
        ]

    got = assert_same(snippet, torch)
    assert got[0][1][0] == (None, 0)


def test_multi_output_edges_carry_the_output_number(torch):
    def snippet(lib):
        a = lib.tensor([[1.0, 2.0], [3.0, 4.0]], requires_grad=True)
        rows = a.unbind(0)
        s = rows[1] + rows[0]
        return [(type(n).__name__, nr) for n, nr in s.grad_fn.next_functions], [
            r.output_nr for r in rows
        ]

    assert_same(snippet, torch)


def test_graph_node_called_directly(torch):
    def snippet(lib):
        a = lib.tensor([1.0, 2.0], requires_grad=True)
        b = lib.tensor([3.0, 4.0], requires_grad=True)
        return (a * b).grad_fn(lib.tensor([1.0, 10.0]))

    assert_same(snippet, torch)


def test_integer_results_never_require_grad(torch):
    def snippet(lib):
        a = lib.tensor([1.5, -2.5], requires_grad=True)
        return a.long(), a.argmax(), (a > 0), a.to(lib.int32)

    assert_same(snippet, torch)


_KEY_TABLE_CHECK = """
import gc
import tinytorch as tt

def own_dict(obj):
    return any(type(r) is dict for r in gc.get_referents(obj))

x = tt.tensor(0.5)
ws = [tt.tensor(0.1 * i, requires_grad=True) for i in range(200)]
first = [w * x for w in ws]                   # one edge, the other input saved
h = first[0] + first[1]
late = [h * w for w in ws] + [w * 2.0 for w in ws] + [h + w for w in ws]  # both edges, both saved
bad = [type(o).__name__ for t in first + late for o in (t, t.grad_fn) if own_dict(o)]
sum(late[:200], tt.tensor(0.0)).backward()  # the backward sets _freed on every node it releases
bad += [type(t.grad_fn).__name__ for t in late[:200] if own_dict(t.grad_fn)]
params = [tt.nn.Parameter(tt.rand(3)) for _ in range(100)]
for p in params:  # a parameter's _grad and _accumulator are first set by its first backward
    (p * 2).sum().backward()
bad += ["Parameter" for p in params if own_dict(p)]
print(sorted(set(bad)))
"""


@pytest.mark.bitexact
def test_graph_objects_share_their_class_key_tables():
    """Nodes and results made after many instances still keep their attributes in the key table their
    class shares (no dict of their own: one more object for the garbage collector, slower reads),
    also for attributes a class sets on some instances only (a mul's second edge and saved input) or
    late (a node's release by backward, a parameter's first gradient). In a fresh interpreter: the
    tables are per process."""
    import os
    import platform
    import subprocess
    import sys

    if platform.python_implementation() != "CPython":
        pytest.skip("CPython's shared key tables")
    root = _repo.ROOT
    env = dict(os.environ, PYTHONPATH=root + os.pathsep + os.environ.get("PYTHONPATH", ""))
    out = subprocess.run([sys.executable, "-c", _KEY_TABLE_CHECK], capture_output=True, text=True, env=env,
                         cwd=root, check=True).stdout
    assert out.strip() == "[]"


def _walk(root):
    """Every node of the graph below ``root``, once, in the order a graph walker (torchviz) meets them."""
    seen, order, stack = set(), [], [root]
    while stack:
        fn = stack.pop()
        if fn is None or id(fn) in seen:
            continue
        seen.add(id(fn))
        order.append(fn)
        stack.extend(f for f, _ in fn.next_functions)
    return order


def test_only_custom_function_nodes_have_saved_tensors(torch):
    # graph walkers (torchviz's make_dot) test hasattr(fn, "saved_tensors") to find a custom Function's node
    # and read a built-in node's saved tensors from its _saved_<name> attributes
    def graph(lib):
        class Twice(lib.autograd.Function):
            @staticmethod
            def forward(ctx, a):
                ctx.save_for_backward(a)
                return a * 2

            @staticmethod
            def backward(ctx, g):
                (a,) = ctx.saved_tensors
                return g * 2

        lib.manual_seed(0)
        x = lib.randn(4, 3, requires_grad=True)
        net = lib.nn.Sequential(lib.nn.Linear(3, 5), lib.nn.Tanh(), lib.nn.Linear(5, 2))
        out = Twice.apply(net(x).sin() * x[:, :2]).log_softmax(1).sum()
        nodes = _walk(out.grad_fn)
        seen = [(type(n).__name__, hasattr(n, "saved_tensors"),
                 sorted(a for a in dir(n) if a.startswith("_saved_"))) for n in nodes]
        try:
            nodes[1].saved_tensors
            error = None
        except AttributeError as e:
            error = str(e)
        mul = next(n for n in nodes if type(n).__name__ == "MulBackward0")
        custom = next(n for n in nodes if type(n).__name__ == "TwiceBackward")
        return seen, error, tuple(mul._saved_self.shape), tuple(custom.saved_tensors[0].shape)
    assert graph(tinytorch) == graph(torch)
