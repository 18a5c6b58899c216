"""The LSTM's gate sigmoid rounds as PyTorch's kernels do far more often than the tanh formula it
replaced: the activations are read off c_n of one step (x = 1, h0 = c0 = 0, W_ih holding the
pre-activations, the other gate saturated so that c = sigmoid(a) or tanh(a) exactly)."""
import numpy as np
import pytest

import tinytorch as tt

torch = pytest.importorskip("torch")

H = 4096


pytestmark = pytest.mark.bitexact  # compares bits with PyTorch's CPU kernels (tests/_paths.py)


def _read_gates(lib, vals, which, dtype):
    lstm = lib.nn.LSTM(1, H)
    if dtype == np.float64:
        lstm = lstm.double()
    sd = {k: np.zeros(tuple(v.shape), dtype) for k, v in lstm.state_dict().items()}
    w = sd["weight_ih_l0"]
    if which == "tanh":
        w[0:H, 0], w[2 * H:3 * H, 0] = 30, vals  # i saturated at 1: c = tanh(g)
    else:
        w[0:H, 0], w[2 * H:3 * H, 0] = vals, 30  # g saturated at 1: c = sigmoid(i)
    lstm.load_state_dict({k: lib.tensor(v) for k, v in sd.items()})
    _, (_, c) = lstm(lib.ones(1, 1, 1, dtype=lib.float64 if dtype == np.float64 else lib.float32))
    return c.detach().numpy()[0, 0]


@pytest.mark.parametrize("dtype, least", [(np.float32, 0.62), (np.float64, 0.9)])
@pytest.mark.parametrize("scale", [0.5, 4.0])
def test_sigmoid_gates_round_as_pytorch(dtype, least, scale):
    # float32: oneDNN's steps e = exp(-|a|), e / (e + 1), 1 - y for a > 0 (0.5 tanh(a/2) + 0.5 gave 43-61%);
    # float64: PyTorch's composite cell, 1 / (1 + exp(-a))
    vals = (np.random.default_rng(0).standard_normal(H) * scale).astype(dtype)
    ref, got = _read_gates(torch, vals, "sigmoid", dtype), _read_gates(tt, vals, "sigmoid", dtype)
    assert np.mean(ref == got) >= least
    ulps = np.abs(ref.view(np.int64 if dtype == np.float64 else np.int32).astype(np.int64)
                  - got.view(np.int64 if dtype == np.float64 else np.int32))
    assert ulps.max() <= 4


def test_tanh_gate_close():
    # numpy's tanh against oneDNN's table-driven one: two in three bit for bit, none over 2 ulp apart
    vals = (np.random.default_rng(1).standard_normal(H) * 2).astype(np.float32)
    ref, got = _read_gates(torch, vals, "tanh", np.float32), _read_gates(tt, vals, "tanh", np.float32)
    assert np.mean(ref == got) >= 0.6
    assert np.abs(ref.view(np.int32).astype(np.int64) - got.view(np.int32)).max() <= 2
