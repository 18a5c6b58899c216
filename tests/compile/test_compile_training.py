"""Compiled training equals eager training bit for bit: 200 steps of a small MLP and of a small GPT-style block
(attention with a causal mask buffer, dropout, layer norm), losses and parameters compared exactly, and the
compiled model captured once (no recompiles, no graph breaks)."""
import math

import numpy as np

import tinytorch as tt

STEPS = 200


class MLP(tt.nn.Module):
    def __init__(self):
        super().__init__()
        self.net = tt.nn.Sequential(tt.nn.Linear(8, 16), tt.nn.ReLU(), tt.nn.Linear(16, 16), tt.nn.Tanh(),
                                    tt.nn.Linear(16, 4))

    def forward(self, x):
        return self.net(x)


class Block(tt.nn.Module):
    """One pre-norm transformer block with causal self-attention, as in a small GPT."""

    def __init__(self, d=16, heads=2, t=8, p=0.1):
        super().__init__()
        self.heads = heads
        self.ln1, self.ln2 = tt.nn.LayerNorm(d), tt.nn.LayerNorm(d)
        self.qkv, self.proj = tt.nn.Linear(d, 3 * d), tt.nn.Linear(d, d)
        self.mlp = tt.nn.Sequential(tt.nn.Linear(d, 4 * d), tt.nn.GELU(), tt.nn.Linear(4 * d, d), tt.nn.Dropout(p))
        self.drop = tt.nn.Dropout(p)
        self.register_buffer("mask", tt.tril(tt.ones(t, t)).view(1, 1, t, t))

    def attend(self, x):
        b, t, d = x.size()
        q, k, v = self.qkv(x).split(d, dim=2)
        q, k, v = (z.view(b, t, self.heads, d // self.heads).transpose(1, 2) for z in (q, k, v))
        att = (q @ k.transpose(-2, -1)) * (1.0 / math.sqrt(k.size(-1)))
        att = self.drop(tt.softmax(att.masked_fill(self.mask[:, :, :t, :t] == 0, float("-inf")), dim=-1))
        return self.proj((att @ v).transpose(1, 2).contiguous().view(b, t, d))

    def forward(self, x):
        x = x + self.attend(self.ln1(x))
        return x + self.mlp(self.ln2(x))


def _train(make, data, compiled: bool, lr=0.05):
    tt.manual_seed(0)
    model = make()
    run = tt.compile(model) if compiled else model
    opt = tt.optim.SGD(model.parameters(), lr=lr, momentum=0.9)
    losses = []
    for step in range(STEPS):
        x, y = data(step)
        opt.zero_grad()
        loss = tt.nn.functional.mse_loss(run(x), y)
        loss.backward()
        opt.step()
        losses.append(loss.detach().numpy().copy())
    return np.array(losses), [p.detach().numpy().copy() for p in model.parameters()], run


def _check(make, data):
    eager_losses, eager_params, _ = _train(make, data, compiled=False)
    losses, params, run = _train(make, data, compiled=True)
    np.testing.assert_array_equal(losses, eager_losses)
    for p, q in zip(params, eager_params):
        np.testing.assert_array_equal(p, q)
    frame = run.forward._tinytorch_frame
    assert len(frame.entries) == 1 and frame.entries[0].program is not None  # one graph, replayed 199 times
    plans = list(frame.entries[0].plans.values())
    assert plans and all(p is not None for p in plans)  # as a forward and a backward plan (stage 2)


def test_mlp_200_steps_bit_for_bit():
    rng = np.random.default_rng(0)
    xs, ys = rng.standard_normal((STEPS, 8, 8), dtype=np.float32), rng.standard_normal((STEPS, 8, 4), dtype=np.float32)
    _check(MLP, lambda i: (tt.tensor(xs[i]), tt.tensor(ys[i])))


def test_gpt_block_200_steps_bit_for_bit():
    rng = np.random.default_rng(1)
    xs = rng.standard_normal((STEPS, 2, 8, 16), dtype=np.float32)
    ys = rng.standard_normal((STEPS, 2, 8, 16), dtype=np.float32)
    _check(Block, lambda i: (tt.tensor(xs[i]), tt.tensor(ys[i])))


class ScaledByNoGradStat(tt.nn.Module):
    """A hidden layer divided by a statistic computed under ``torch.no_grad()`` (a constant to the backward)."""

    def __init__(self):
        super().__init__()
        self.a, self.b = tt.nn.Linear(8, 16), tt.nn.Linear(16, 4)

    def forward(self, x):
        h = tt.relu(self.a(x))
        with tt.no_grad():
            scale = h.abs().mean() + 1
        return self.b(h / scale)


def test_no_grad_block_inside_200_steps_bit_for_bit():
    rng = np.random.default_rng(2)
    xs, ys = rng.standard_normal((STEPS, 8, 8), dtype=np.float32), rng.standard_normal((STEPS, 8, 4), dtype=np.float32)
    _check(ScaledByNoGradStat, lambda i: (tt.tensor(xs[i]), tt.tensor(ys[i])))


def test_parameter_written_under_no_grad_inside_runs_eagerly():
    """An in-place write to a parameter under ``torch.no_grad()`` inside the program (a weight decay by hand) is
    a write behind autograd's back that one differentiated graph cannot hold: the call runs eagerly, with
    eager's results; a buffer's update under no_grad (a running average) stays in the graph."""
    class Decaying(tt.nn.Module):
        def __init__(self, decay_weight):
            super().__init__()
            self.a, self.decay_weight = tt.nn.Linear(3, 3), decay_weight
            self.register_buffer("ema", tt.zeros(3))

        def forward(self, x):
            h = self.a(x)
            with tt.no_grad():
                self.ema.mul_(0.9).add_(h.mean(0) * 0.1)
                if self.decay_weight:
                    self.a.weight.mul_(0.99)
            return h.square().sum()

    for decay_weight in (True, False):
        seen = []
        for compiled in (False, True):
            tt.manual_seed(0)
            net = Decaying(decay_weight)
            run = tt.compile(net) if compiled else net
            for _ in range(3):
                run(tt.ones(2, 3)).backward()
            seen.append([t.detach().numpy().copy() for t in (net.ema, net.a.weight, net.a.weight.grad)])
        for a, b in zip(*seen):
            np.testing.assert_array_equal(a, b)
        entry = run.forward._tinytorch_frame.entries[0]
        assert (entry.program is None) == decay_weight


def test_batchnorm_running_stats_and_counter_as_eager():
    def run(compiled):
        tt.manual_seed(0)
        model = tt.nn.Sequential(tt.nn.Linear(4, 6), tt.nn.BatchNorm1d(6), tt.nn.ReLU(), tt.nn.Linear(6, 1))
        run = tt.compile(model) if compiled else model
        opt = tt.optim.SGD(model.parameters(), lr=0.1)
        xs = tt.randn(20, 8, 4)
        for i in range(20):
            opt.zero_grad()
            run(xs[i]).pow(2).mean().backward()
            opt.step()
        model.eval()
        out = run(xs[0])
        return [t.detach().numpy().copy() for t in [*model.parameters(), *model.buffers(), out]]

    for a, b in zip(run(True), run(False)):
        np.testing.assert_array_equal(a, b)


# -- a compiled function that reads a module it was not given (PyTorch's compile tutorial's kind of step) --------
_GLOBAL_MODEL = None


def _loss_of_global(x, y):
    return tt.nn.functional.cross_entropy(_GLOBAL_MODEL(x), y)


def test_function_reading_a_global_module_200_steps_bit_for_bit():
    """``torch.compile`` of a function that calls a module bound to a global name, with cross-entropy on class
    indices inside the graph: the module's parameters are the graph's state (read at each call), the step runs
    as plans, and losses and parameters equal eager's bit for bit."""
    global _GLOBAL_MODEL
    rng = np.random.default_rng(1)
    xs = rng.standard_normal((STEPS, 16, 12), dtype=np.float32)
    ys = rng.integers(0, 5, (STEPS, 16))

    def train(compiled):
        global _GLOBAL_MODEL
        tt.manual_seed(0)
        _GLOBAL_MODEL = tt.nn.Sequential(tt.nn.Linear(12, 32), tt.nn.ReLU(), tt.nn.Dropout(0.2), tt.nn.Linear(32, 5))
        step = tt.compile(_loss_of_global) if compiled else _loss_of_global
        opt = tt.optim.SGD(_GLOBAL_MODEL.parameters(), lr=0.1, momentum=0.9)
        losses = []
        for i in range(STEPS):
            opt.zero_grad()
            loss = step(tt.tensor(xs[i]), tt.tensor(ys[i]))
            loss.backward()
            opt.step()
            losses.append(loss.detach().numpy().copy())
        return np.array(losses), [p.detach().numpy().copy() for p in _GLOBAL_MODEL.parameters()], step

    try:
        eager_losses, eager_params, _ = train(False)
        losses, params, step = train(True)
    finally:
        _GLOBAL_MODEL = None
    np.testing.assert_array_equal(losses, eager_losses)
    for p, q in zip(params, eager_params):
        np.testing.assert_array_equal(p, q)
    frame = step._tinytorch_frame
    assert len(frame.entries) == 1 and frame.entries[0].program is not None
    assert all(p is not None for p in frame.entries[0].plans.values()) and frame.entries[0].plans
