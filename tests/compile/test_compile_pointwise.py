"""Pointwise fusion (``tinytorch/_dynamo/pointwise.py``): runs of elementwise ops in the plans become one generated
function, with the floats of the ops one by one. Held to:

  - compiled against eager steps, bit for bit (outputs and gradients, over several steps), on float32 and float64,
    0-d and array shapes, inputs holding -0.0, infinities, NaN and subnormals, with the compiled kernels on and off
    (off: 0-d runs still fuse, array runs stay op by op); the fused function present in the plans where it applies;
  - inputs laid out otherwise than row-major (the ops one by one: the results keep eager's layout);
  - micrograd's kind of program, scalar neurons holding 0-d tensors in Python lists: its tensors, reached through
    the compiled function's globals, are inputs of the graph (not frozen constants), and its losses are PyTorch's
    eager losses bit for bit;
  - ``TORCH_LOGS=output_code`` prints the generated code."""
import logging
import random
import re

import numpy as np
import pytest

import tinytorch as tt
from tinytorch._ops._core import paths
from tinytorch._ops._kernels import compiled as _compiled


@pytest.fixture(autouse=True)
def _fresh():
    tt._dynamo.reset()
    yield
    tt._dynamo.reset()


def _values(rng, shape, dtype):
    a = np.asarray(rng.standard_normal(shape), dtype=dtype)
    flat = a.reshape(-1)
    tiny = np.finfo(dtype).tiny / 4  # (a subnormal)
    specials = np.array([-0.0, 0.0, np.inf, -np.inf, np.nan, tiny, -tiny], dtype)
    if flat.size > 1:
        picks = rng.integers(0, flat.size, max(1, flat.size // 3))
        flat[picks] = rng.choice(specials, picks.size)
    return a


def _same(a, b) -> bool:
    """The same floats, bit for bit (-0.0 apart from +0.0), NaN where NaN: a NaN's sign and payload are not held
    (numpy's loops and a compiler's give the NaN of an invalid operation or of two NaN operands differently, as
    LLVM's semantics leave them open)."""
    a, b = a.detach().numpy(), b.detach().numpy()
    if a.dtype != b.dtype or a.shape != b.shape:
        return False
    nan_a, nan_b = np.isnan(a), np.isnan(b)
    return np.array_equal(nan_a, nan_b) and np.where(nan_a, 0, a).tobytes() == np.where(nan_b, 0, b).tobytes()


def _chain(x, w, b):
    h = (x * w + b).relu() * 2.5 - x
    return (h * h + 1 - w / x).neg() - (3 - h)


def _fused_sources(compiled) -> str:
    entries = compiled._tinytorch_frame.entries
    plans = [p for e in entries for p in e.plans.values() if p is not None]
    return "\n".join(pl.source for p in plans for pl in (p.forward, p.backward))


def _compare(fn, shapes: list, dtype, kernels: bool = True, seed: int = 0):
    """Three steps of ``fn`` eagerly and compiled (the compiled kernels on or off) on inputs of ``shapes``: outputs,
    their layout and every input's gradient equal, bit for bit (NaN for NaN). Returns the compiled plans' source
    and whether array runs were fused (the compiled kernels on, and numba there)."""
    rng = np.random.default_rng(seed)
    eager = [tt.tensor(_values(rng, s, dtype), requires_grad=True) for s in shapes]
    mine = [tt.tensor(t.detach().numpy().copy(), requires_grad=True) for t in eager]
    previous = _compiled.set_enabled(kernels)
    try:
        compiled = tt.compile(fn)
        for _ in range(3):
            for t in eager + mine:
                t.grad = None
            want, got = fn(*eager), compiled(*mine)
            g = tt.tensor(_values(rng, tuple(want.shape), dtype))
            want.backward(g)
            got.backward(g)
            assert type(got.grad_fn).__name__ == "CompiledFunctionBackward"
            assert want.stride() == got.stride() and _same(want, got)
            assert all(_same(a.grad, b.grad) for a, b in zip(eager, mine))
        return _fused_sources(compiled), _compiled.available()
    finally:
        _compiled.set_enabled(previous)


def _fusing(shape, arrays: bool) -> bool:
    """Whether runs of this shape are fused: 0-d always, arrays with the compiled kernels."""
    return shape == () or arrays


@pytest.mark.parametrize("kernels", [True, False], ids=["numba", "numpy"])
@pytest.mark.parametrize("shape", [(), (7,), (33, 20)])
@pytest.mark.parametrize("dtype", [np.float32, np.float64])
def test_fused_runs_give_the_ops_floats(dtype, shape, kernels):
    src, arrays = _compare(_chain, [shape] * 3, dtype, kernels, seed=len(shape))
    assert ("fused_mul_add_relu" in src) == _fusing(shape, arrays)


def _gated(x, w, b):
    return tt.tanh(x * w + b) * tt.sigmoid(x) - w * 0.5


@pytest.mark.parametrize("kernels", [True, False], ids=["numba", "numpy"])
@pytest.mark.parametrize("shape", [(), (40, 9)])
@pytest.mark.parametrize("dtype", [np.float32, np.float64])
def test_tanh_and_sigmoid_gradients_fuse_with_their_nodes_floats(dtype, shape, kernels):
    """tanh and sigmoid themselves stay op by op (transcendental); their backward operators join the runs."""
    src, arrays = _compare(_gated, [shape] * 3, dtype, kernels, seed=21)
    fused = _fusing(shape, arrays)
    assert ("= fused_" in src) == fused, src
    # fused: the backward operators are lines of a generated function, no call of their own in the plans
    assert ("aten_tanh_backward(" in src or "aten_sigmoid_backward(" in src) != fused, src


def _powers(x, w):
    h = x * w
    out = h.pow(2) + h ** 3 - tt.sqrt(h.abs() + 1) * x.pow(0.5) + w.pow(-1) - w.pow(-2) * x.pow(-0.5) + w.pow(1)
    return out * tt.rsqrt(h.abs() + 2) - w.reciprocal()


@pytest.mark.parametrize("kernels", [True, False], ids=["numba", "numpy"])
@pytest.mark.parametrize("shape", [(), (17, 6)])
@pytest.mark.parametrize("dtype", [np.float32, np.float64])
def test_powers_and_roots_fuse_with_the_ops_floats(dtype, shape, kernels):
    """pow to 2, 3, 0.5, -1, -2, -0.5 and 1 (products and roots, as pow's CPU path computes them), sqrt, rsqrt,
    reciprocal and abs."""
    src, arrays = _compare(_powers, [shape] * 2, dtype, kernels, seed=31)
    fused = _fusing(shape, arrays)
    assert ("= fused_" in src) == fused, src
    # the forward's powers are lines of the fused functions while pow's CPU path is bound
    assert ("= fused_mul_pow_add_" in src) == (fused and not paths.REFERENCE), src


def _scaled(x, w, s):
    return ((x * w + s) * 0.5 - w).relu() / s + x


@pytest.mark.parametrize("dtype", [np.float32, np.float64])
def test_broadcast_operands_fuse_with_the_ops_floats(dtype):
    """A bias of the last axis and a column of the rows beside a (B, T, C) input: the loop reads them through
    zero strides; results keep eager's layout."""
    src, arrays = _compare(_scaled, [(3, 5, 8), (8,), (3, 5, 1)], dtype, seed=11)
    assert ("fused_mul_add" in src) == arrays


def test_inputs_of_another_layout_run_the_ops_one_by_one():
    rng = np.random.default_rng(5)
    base = [_values(rng, (20, 33), np.float32) for _ in range(3)]

    def args():
        return [tt.tensor(a.copy()).t() for a in base]  # transposed views: column-major

    compiled = tt.compile(_chain)
    for _ in range(2):
        want, got = _chain(*args()), compiled(*args())
        assert want.stride() == got.stride() and _same(want, got)


def _micrograd(lib, seed=0, sizes=(2, 4, 4, 1), samples=4):
    """micrograd's MLP of scalar neurons (0-d tensors in Python lists) and its max-margin loss."""
    rng = random.Random(seed)

    class Neuron:
        def __init__(self, nin, nonlin):
            self.w = [lib.tensor(rng.uniform(-1, 1), requires_grad=True) for _ in range(nin)]
            self.b = lib.tensor(0.0, requires_grad=True)
            self.nonlin = nonlin

        def __call__(self, x):
            act = sum((wi * xi for wi, xi in zip(self.w, x)), self.b)
            return act.relu() if self.nonlin else act

    layers = [[Neuron(sizes[i], i != len(sizes) - 2) for _ in range(sizes[i + 1])] for i in range(len(sizes) - 1)]
    params = [p for layer in layers for n in layer for p in n.w + [n.b]]
    xs = [[rng.uniform(-2, 2), rng.uniform(-1, 1)] for _ in range(samples)]
    ys = [1.0 if x[0] * x[1] > 0 else -1.0 for x in xs]
    inputs = [[lib.tensor(v) for v in x] for x in xs]

    def loss():
        scores = []
        for x in inputs:
            for layer in layers:
                x = [n(x) for n in layer]
            scores.append(x[0])
        losses = [(1 + -yi * si).relu() for yi, si in zip(ys, scores)]
        return sum(losses) * (1.0 / len(losses)) + 1e-4 * sum(p * p for p in params)

    return loss, params


def _train(lib, loss, params, steps=4):
    out = []
    for _ in range(steps):
        value = loss()
        for p in params:
            p.grad = None
        value.backward()
        with lib.no_grad():
            for p in params:
                p -= 0.05 * p.grad
        out.append((value.detach().numpy().tobytes(), [p.grad.numpy().tobytes() for p in params]))
    return out, value


def test_micrograd_compiles_and_trains_with_pytorchs_floats(torch):
    want, _ = _train(torch, *_micrograd(torch))
    eager, _ = _train(tt, *_micrograd(tt))
    loss, params = _micrograd(tt)
    compiled = tt.compile(loss)
    got, last = _train(tt, compiled, params)
    assert type(last.grad_fn).__name__ == "CompiledFunctionBackward"
    assert got == eager == want  # losses and every parameter's gradient, bit for bit
    src = _fused_sources(compiled)
    # the scalar graph is one fused function each way: the forward's products, sums and relus, the backward's
    calls = re.findall(r"= (fused_\w+)\(", src)
    assert len(calls) == 2 and calls[0].startswith("fused_mul_add_relu_"), calls
    assert calls[1].startswith("fused_mul_add_threshold_backward_"), calls


def test_tensors_held_in_the_functions_globals_are_read_at_each_call():
    loss, params = _micrograd(tt, sizes=(2, 2, 1), samples=2)
    compiled = tt.compile(loss)
    eager = loss().item()
    assert compiled().item() == eager
    with tt.no_grad():
        params[0].mul_(3)  # an update in place: the next call reads it (no recompile)
    assert compiled().item() == loss().item() != eager
    assert len(compiled._tinytorch_frame.entries) == 1
    free = compiled._tinytorch_frame.entries[0].guard.free
    # each tensor by where the function reaches it (its closure's lists and the neurons' attributes)
    assert {"inputs[0][0]", "inputs[1][1]", "layers[0][0].w[0]", "layers[1][0].b"} <= {n for n, _, _ in free}
    # a tensor bound anew where it was found: the guard names it, and the call captures again
    layer = loss.__closure__[loss.__code__.co_freevars.index("layers")].cell_contents
    layer[0][0].w[1] = tt.tensor(0.5, requires_grad=True)
    assert free[0][2]() is not None
    reason = compiled._tinytorch_frame.entries[0].guard.check([], compiled._tinytorch_frame.entries[0].guard.spec)
    assert reason is not None and reason.startswith("___check_obj_id(layers[0][0].w[1], "), reason
    assert compiled().item() == loss().item()
    assert len(compiled._tinytorch_frame.entries) == 2


def test_a_compiled_method_reads_its_objects_tensors():
    """A method of a user's object (not a module) compiled: the tensors its ``self`` holds are inputs too."""
    class Scalars:
        def __init__(self):
            self.params = [tt.tensor(v, requires_grad=True) for v in (0.5, -1.5, 2.0)]

        def loss(self):
            a, b, c = self.params
            return (a * b + c).relu() * a - c * c

    obj = Scalars()
    compiled = tt.compile(obj.loss)
    for _ in range(3):
        want = obj.loss()
        got = compiled()
        assert got.item() == want.item() and type(got.grad_fn).__name__ == "CompiledFunctionBackward"
        with tt.no_grad():
            obj.params[0].add_(0.25)
    names = {n for n, _, _ in compiled._tinytorch_frame.entries[0].guard.free}
    assert names == {"L['self'].params[0]", "L['self'].params[1]", "L['self'].params[2]"}, names
    assert len(compiled._tinytorch_frame.entries) == 1


class _Guarded:
    """An object that refuses to be looked into (its ``__dict__`` raises)."""

    def __getattribute__(self, name):
        if name == "__dict__":
            raise RuntimeError("no looking inside")
        return object.__getattribute__(self, name)


_GUARDED = _Guarded()
_WEIGHTS = [tt.tensor(1.5, requires_grad=True)]


def _reads_globals(x):
    assert _GUARDED is not None  # (a global the capture walks past)
    return (x * _WEIGHTS[0]).relu() + x


def test_an_object_that_refuses_to_be_looked_into_is_left_out():
    compiled = tt.compile(_reads_globals)
    x = tt.tensor(2.0, requires_grad=True)
    for _ in range(2):
        assert compiled(x).item() == _reads_globals(x).item()
    assert {n for n, _, _ in compiled._tinytorch_frame.entries[0].guard.free} == {"G['_WEIGHTS'][0]"}


def test_output_code_prints_the_fused_function(caplog):
    tt._logging.set_logs(output_code=True)
    try:
        with caplog.at_level(logging.WARNING, logger="tinytorch._inductor.output_code"):
            compiled = tt.compile(_chain)
            x = [tt.tensor(float(v), requires_grad=True) for v in (1.5, -2.0, 0.25)]
            for _ in range(2):
                compiled(*x).backward()
    finally:
        tt._logging.set_logs()
    text = "\n".join(r.getMessage() for r in caplog.records)
    assert "def fused_mul_add_relu" in text and "v0 = x0 * x1  # mul" in text and "# relu" in text, text
    assert "fused_mul_add_relu" in text[text.index("def forward("):]
