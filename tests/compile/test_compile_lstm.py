"""nn.LSTM in graphs, against PyTorch 2.13: its float32 layers are PyTorch's oneDNN operators.

PyTorch's CPU LSTM hands each layer and direction of a float32 LSTM without projection to oneDNN, and its tracers
record that as ``aten.mkldnn_rnn_layer`` (output, h_n, c_n, workspace) and, in a traced backward,
``aten.mkldnn_rnn_layer_backward``. tinytorch records the same operators around its fused layer node, so:

  - make_fx of an LSTM's forward and gradient records PyTorch's calls with their arguments, the layers' in its
    order, and
    the traced graph computes eager tinytorch's gradients bit for bit at other inputs;
  - ``torch.compile`` of a model with an LSTM captures one graph (no graph break) and trains through the plans
    (the forward operator kept with its node, the backward operator running that node's time loop): eager
    tinytorch's losses and parameters bit for bit, under one ``CompiledFunctionBackward``.

The comparison takes PyTorch from the ``torch`` fixture (it skips without it); the compiled training runs
everywhere."""
import copy

import numpy as np
import pytest

import tinytorch as tt

CONFIGS = {
    "one_layer": {},
    "two_layers_bidirectional": {"num_layers": 2, "bidirectional": True},
    "no_bias_seq_first": {"bias": False, "batch_first": False},
}


@pytest.fixture(autouse=True)
def _fresh():
    tt._dynamo.reset()
    yield
    tt._dynamo.reset()


def _lstm(lib, config: dict):
    lib.manual_seed(0)
    return lib.nn.LSTM(4, 3, **{"batch_first": True, **config})


def _input(lib, config: dict, seed: int):
    x = np.random.default_rng(seed).standard_normal((2, 5, 4)).astype(np.float32)
    return lib.tensor(x if config.get("batch_first", True) else x.transpose(1, 0, 2).copy())


def _program(lib, m):
    names = [n for n, _ in m.named_parameters()]

    def grads(x, *ps):
        out, (h, c) = lib.func.functional_call(m, dict(zip(names, ps)), (x,))
        return lib.autograd.grad((out * out).sum() + h.sum() + (c * 2).sum(), ps)
    return grads


def _calls(gm) -> list:
    """Each ATen call of a traced graph: its operator and its arguments other than nodes (the factories aside,
    whose keyword spelling is the tracer's own)."""
    out = []
    for n in gm.graph.nodes:
        if n.op != "call_function" or "getitem" in str(n.target) or "zeros" in str(n.target):
            continue
        plain = [a if not hasattr(a, "op") else None for a in n.args]
        out.append((str(n.target), repr(plain)))
    return out


@pytest.mark.parametrize("config", list(CONFIGS))
def test_make_fx_records_pytorchs_onednn_operators(config, torch):
    from tinytorch.fx.experimental.proxy_tensor import make_fx as tt_make_fx
    from torch.fx.experimental.proxy_tensor import make_fx as pt_make_fx
    cfg = CONFIGS[config]
    traced = []
    for lib, make_fx in ((torch, pt_make_fx), (tt, tt_make_fx)):
        m = _lstm(lib, cfg)
        ps = [p.detach().requires_grad_() for p in m.parameters()]
        traced.append((make_fx(_program(lib, m))(_input(lib, cfg, 1), *ps), m, ps))
    (pt_gm, _, _), (gm, m, ps) = traced
    # the same calls; the layers' operators in PyTorch's order (the engine may take independent nodes, the seeds'
    # expands and stack's selects, in another order than PyTorch's)
    assert sorted(_calls(gm)) == sorted(_calls(pt_gm))
    layers = [c for c in _calls(gm) if "mkldnn" in c[0]]
    assert layers == [c for c in _calls(pt_gm) if "mkldnn" in c[0]]
    assert sum("mkldnn_rnn_layer_backward" in c for c, _ in _calls(gm)) == len(m.all_weights)
    # the graph computes the gradients at other inputs, as eager tinytorch does (no value frozen in)
    x = _input(tt, cfg, 2)
    for got, want in zip(gm(x, *ps), _program(tt, m)(x, *ps)):
        np.testing.assert_array_equal(got.numpy(), want.numpy())


class _Tagger(tt.nn.Module):
    def __init__(self, config: dict):
        super().__init__()
        self.lstm = _lstm(tt, config)
        self.batch_first = config.get("batch_first", True)
        self.head = tt.nn.Linear(3 * (2 if config.get("bidirectional") else 1), 5)

    def forward(self, x):
        out, (h, c) = self.lstm(x)
        last = out[:, -1] if self.batch_first else out[-1]
        return self.head(last) + h.sum() * 0.1 + c.mean()


@pytest.mark.parametrize("config", list(CONFIGS))
def test_compiled_lstm_trains_through_the_plans_bit_for_bit(config):
    cfg = CONFIGS[config]
    model = _Tagger(cfg)
    reference = copy.deepcopy(model)
    run = tt.compile(model)
    opts = [tt.optim.SGD(m.parameters(), lr=0.1) for m in (model, reference)]
    for step in range(5):
        x = _input(tt, cfg, step)
        target = tt.tensor(np.random.default_rng(step).integers(0, 5, 2))
        out = run(x)
        assert type(out.grad_fn).__name__ == "CompiledFunctionBackward"
        losses = [tt.nn.functional.cross_entropy(out, target),
                  tt.nn.functional.cross_entropy(reference(x), target)]
        for loss, opt in zip(losses, opts):
            opt.zero_grad()
            loss.backward()
            opt.step()
        np.testing.assert_array_equal(losses[0].detach().numpy(), losses[1].detach().numpy())
        for p, q in zip(model.parameters(), reference.parameters()):
            np.testing.assert_array_equal(p.detach().numpy(), q.detach().numpy())
    entry, = run.forward._tinytorch_frame.entries
    assert entry.program is not None, "one graph, no break"
    assert list(entry.plans.values()) and all(p is not None for p in entry.plans.values()), "the plans ran"
    assert "_lstm_kept" in entry.plans[next(iter(entry.plans))].forward.source
