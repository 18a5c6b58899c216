"""Engine scale and memory (rows 21, 22): very deep graphs without recursion, and graphs freed by
reference counting alone (no garbage collector pass) once backward has run and the user lets go."""

import _repo
import gc
import os
import subprocess
import sys
import textwrap
import tracemalloc
import weakref

import numpy as np

import tinytorch

_ROOT = _repo.ROOT


def test_row21_backward_and_del_of_a_150k_op_chain():
    # in a child process: a recursive free would crash the interpreter rather than raise
    script = textwrap.dedent("""
        import sys
        import tinytorch
        sys.setrecursionlimit(1000)
        x = tinytorch.tensor([1.0, 2.0], requires_grad=True)
        y = x
        for i in range(150_000):
            y = y * 1.0 if i % 2 else y + 0.0
        y.sum().backward(retain_graph=True)
        (g,) = tinytorch.autograd.grad(y.sum(), x)
        assert x.grad.tolist() == [1.0, 1.0] and g.tolist() == [1.0, 1.0], (x.grad, g)
        del y, g
        print("ok")
    """)
    env = dict(os.environ, PYTHONPATH=_ROOT + os.pathsep + os.environ.get("PYTHONPATH", ""))
    done = subprocess.run(
        [sys.executable, "-c", script], capture_output=True, text=True, env=env, timeout=240
    )
    assert done.returncode == 0 and done.stdout.strip() == "ok", done.stderr[-2000:]


def test_deep_chain_through_views_and_reductions_in_process():
    x = tinytorch.ones(4, requires_grad=True)
    y = x
    for _ in range(5_000):
        y = y.view(2, 2).t().reshape(4).exp().log()
    y.sum().backward()
    np.testing.assert_allclose(x.grad._data, np.ones(4), rtol=1e-5)


def _graph_refs(loss):
    """Weak references to every node of the graph under ``loss``."""
    refs, seen, stack = [], set(), [loss.grad_fn]
    while stack:
        node = stack.pop()
        if node is None or id(node) in seen:
            continue
        seen.add(id(node))
        refs.append(weakref.ref(node))
        stack.extend(n for n, _ in node.next_functions)
    return refs


def _model(rng):
    w1 = tinytorch.tensor(rng.normal(size=(8, 16)).astype(np.float32) * 0.3, requires_grad=True)
    b1 = tinytorch.zeros(16, requires_grad=True)
    w2 = tinytorch.tensor(rng.normal(size=(16, 3)).astype(np.float32) * 0.3, requires_grad=True)
    return [w1, b1, w2]


def _loss(params, x, target):
    w1, b1, w2 = params
    h = (x @ w1 + b1).tanh()
    logits = (h @ w2).sigmoid()
    return ((logits - target) ** 2).mean() + (w1 * w1).sum() * 1e-4


def _step(params, x, target, lr=0.05):
    loss = _loss(params, x, target)
    loss.backward()
    with tinytorch.no_grad():
        for p in params:
            p.sub_(p.grad * lr)
            p.grad.zero_()
    return loss.item()


def test_row22_graph_nodes_die_after_backward_and_del_without_gc():
    rng = np.random.default_rng(0)
    params = _model(rng)
    x = tinytorch.tensor(rng.normal(size=(5, 8)).astype(np.float32))
    target = tinytorch.tensor(rng.random(size=(5, 3)).astype(np.float32))
    gc.disable()
    try:
        loss = _loss(params, x, target)
        refs = _graph_refs(loss)
        assert len(refs) > 10
        loss.backward()
        del loss
        alive = [type(r()).__name__ for r in refs if r() is not None]
        assert alive == []
    finally:
        gc.enable()


def test_forward_only_graph_dies_on_del_without_gc():
    rng = np.random.default_rng(1)
    params = _model(rng)
    x = tinytorch.tensor(rng.normal(size=(5, 8)).astype(np.float32))
    gc.disable()
    try:
        loss = _loss(params, x, tinytorch.zeros(5, 3))
        refs = _graph_refs(loss)
        del loss
        assert [type(r()).__name__ for r in refs if r() is not None] == []
    finally:
        gc.enable()


def test_retained_graph_dies_on_del_without_gc():
    rng = np.random.default_rng(2)
    params = _model(rng)
    x = tinytorch.tensor(rng.normal(size=(5, 8)).astype(np.float32))
    gc.disable()
    try:
        loss = _loss(params, x, tinytorch.zeros(5, 3))
        refs = _graph_refs(loss)
        loss.backward(retain_graph=True)
        (g,) = tinytorch.autograd.grad(loss, params[0])
        del loss, g
        assert [type(r()).__name__ for r in refs if r() is not None] == []
    finally:
        gc.enable()


def test_row22_memory_stays_flat_over_1000_training_steps(monkeypatch):
    # the saved-version tuples the nodes share (autograd/node.py) are a bounded cache, which a training loop
    # grows by a few a step (a parameter updated in place is at version k at step k) until it is full: full
    # from the start here, as the free lists below, so that only growth without a bound shows
    from tinytorch.autograd import node

    full = dict(node._SHARED_VERSIONS)
    while len(full) < node._MAX_SHARED_VERSIONS:
        full[(-1, len(full))] = (-1, len(full))
    monkeypatch.setattr(node, "_SHARED_VERSIONS", full)
    rng = np.random.default_rng(3)
    params = _model(rng)
    x = tinytorch.tensor(rng.normal(size=(5, 8)).astype(np.float32))
    target = tinytorch.tensor(rng.random(size=(5, 3)).astype(np.float32))
    gc.collect()
    gc.disable()  # whatever is freed must be freed by reference counting
    tracemalloc.start()
    try:
        # interpreter free lists (tuples, floats, frames) fill up during the first few hundred
        # steps and then stay allocated: measure after them
        first = _step(params, x, target)
        for _ in range(200):
            _step(params, x, target)
        # fill the interpreter's tuple free lists (2,000 per length) to the top: how fast they fill depends
        # on the order in which an op makes and drops its small tuples, and a full list holds no more
        junk = [tuple(range(n)) for n in range(1, 20) for _ in range(2000)]
        del junk
        start, _ = tracemalloc.get_traced_memory()
        for _ in range(1000):
            last = _step(params, x, target)
        end, _ = tracemalloc.get_traced_memory()
    finally:
        tracemalloc.stop()
        gc.enable()
    assert end - start < 20_000, f"grew by {end - start} bytes over 1000 steps"
    assert last < first


def test_accumulate_grad_node_lives_only_while_a_graph_uses_it():
    w = tinytorch.ones(3, requires_grad=True)
    gc.disable()
    try:
        y = w * 2
        acc = weakref.ref(y.grad_fn.next_functions[0][0])
        assert acc() is not None and acc().variable is w
        del y
        assert acc() is None
    finally:
        gc.enable()
