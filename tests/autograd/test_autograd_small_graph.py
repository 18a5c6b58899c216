"""The bookkeeping the small-op fast paths keep cheap, against PyTorch: version counters made
on first need (a fresh result shares nothing until bumped, viewed, aliased or saved), the backward
loop's single-output buffers and gradient sums, hooks registered on nodes after the forward, and
0-d results of add/mul staying tensors of the right dtype."""
import numpy as np
import pytest

import tinytorch as tt

from _oracle import torch  # noqa: E402  (PyTorch when a test reads it)


def _both(fn):
    return fn(tt), fn(torch)


def test_fresh_result_versions_follow_aliases_and_views():
    def run(lib):
        a = lib.tensor([1.0, 2.0, 3.0], requires_grad=True)
        y = a * 2                       # a fresh result
        d = y.detach()                  # an alias: shares the counter
        v = y[1:]                       # a view: shares it too
        before = (y._version, d._version, v._version)
        d.add_(1)
        after = (y._version, d._version, v._version)
        v.mul_(2)
        last = (y._version, d._version, v._version)
        z = a + 1                       # untouched results keep version 0
        return before, after, last, z._version
    assert run(tt) == run(torch)


def test_saved_output_of_fresh_result_sees_later_bump():
    def run(lib):
        a = lib.tensor([0.5, -1.0, 2.0], requires_grad=True)
        y = (a * 1).sigmoid()           # saves its own, fresh, output
        y.detach().mul_(2)
        with pytest.raises(RuntimeError) as err:
            y.sum().backward()
        return str(err.value).split(";")[0].replace("tinytorch.", "").replace("torch.", "")
    assert run(tt) == run(torch)


def test_saved_input_of_mul_modified_through_alias():
    def run(lib):
        a = lib.tensor(1.5, requires_grad=True)
        b = lib.tensor(2.5, requires_grad=True)
        x, w = a * 1, b * 1
        y = x * w
        w.detach().add_(1)
        with pytest.raises(RuntimeError) as err:
            y.backward()
        return "modified by an inplace operation" in str(err.value)
    assert run(tt) is True and run(torch) is True


def test_micrograd_style_graph_gradients_match():
    rng = np.random.default_rng(0)
    ws = rng.uniform(-1, 1, (4, 3)).tolist()
    xs = rng.uniform(-1, 1, 3).tolist()

    def run(lib):
        w = [[lib.tensor(v, requires_grad=True) for v in row] for row in ws]
        x = [lib.tensor(v) for v in xs]
        b = lib.tensor(0.1, requires_grad=True)
        hidden = [sum((wi * xi for wi, xi in zip(row, x)), b).relu() for row in w]
        out = sum(h * h for h in hidden) * 0.5 + 1e-4 * sum(p * p for row in w for p in row)
        out.backward()
        return ([[p.grad.item() for p in row] for row in w], b.grad.item(), out.item(),
                str(out.dtype).split(".")[-1], type(out.grad_fn).__name__)
    t, p = _both(run)
    np.testing.assert_allclose(np.array(t[0]), np.array(p[0]), rtol=1e-5, atol=1e-6)
    assert t[1] == pytest.approx(p[1], rel=1e-5)
    assert t[2:] == p[2:]


def test_shared_gradient_is_not_stolen_twice():
    def run(lib):
        w = lib.ones(3, requires_grad=True)
        v = lib.ones(3, requires_grad=True)
        (w + v).sum().backward()        # AddBackward0 hands one gradient to both leaves
        w.grad.add_(1)                  # in place on one leaf's .grad
        return w.grad.tolist(), v.grad.tolist()
    assert run(tt) == run(torch)


def test_hooks_on_nodes_registered_after_the_forward():
    def run(lib):
        a = lib.tensor(2.0, requires_grad=True)
        b = lib.tensor(3.0, requires_grad=True)
        y = a * b
        z = y + a
        seen = []
        y.register_hook(lambda g: seen.append(("tensor", g.item())) or g * 10)
        z.grad_fn.register_prehook(lambda gs: seen.append(("pre", gs[0].item())))
        y.grad_fn.register_hook(lambda gi, go: seen.append(("post", [g.item() for g in gi])))
        y.retain_grad()
        z.backward()
        return seen, a.grad.item(), b.grad.item(), y.grad.item()
    assert run(tt) == run(torch)


@pytest.mark.parametrize("dtype", ["float32", "float64"])
def test_zero_dim_results_are_tensors_of_the_dtype(dtype):
    def run(lib):
        dt = getattr(lib, dtype)
        a = lib.tensor(1.5, dtype=dt, requires_grad=True)
        b = lib.tensor(-2.0, dtype=dt, requires_grad=True)
        outs = [a * b, a + b, a * 3, 2 * a, a + 1, 1 + a]
        sum(outs).backward()
        return ([(o.item(), o.dim(), str(o.dtype).split(".")[-1], type(o.grad_fn).__name__) for o in outs],
                a.grad.item(), b.grad.item(), a.grad.dim(), str(a.grad.dtype).split(".")[-1])
    assert run(tt) == run(torch)
    assert type((tt.tensor(1.5) * tt.tensor(2.0))._data) is np.ndarray  # never a numpy scalar
