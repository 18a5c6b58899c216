"""Programs that reach the paths of ``tinytorch/_cpu/rnn.py`` (the recurrent layers' time loops on arrays, forward
and backward): target -> [make(rng, dtype, shape) yielding (name, fn, arrays)]. LSTM (float32's oneDNN bias
order and exp, with a projection, reversed), GRU and RNN, padded and packed sequences of unequal lengths."""
import numpy as np

import tinytorch as tt

nn = tt.nn


def _layer(cls, *args, seed=0, **kwargs):
    tt.manual_seed(seed)
    return cls(*args, **kwargs)


def _rnns(rng, dtype, shape):
    T, B, I, H = 2 + len(shape), 3, 4, 5
    x = np.asarray(rng.standard_normal((T, B, I)), dtype=dtype)
    h0 = np.asarray(rng.standard_normal((1, B, H)) * 0.5, dtype=dtype)
    c0 = np.asarray(rng.standard_normal((1, B, H)) * 0.5, dtype=dtype)
    dt = tt.float32 if dtype == np.float32 else tt.float64
    lstm = _layer(nn.LSTM, I, H).to(dt)
    yield "LSTM", (lambda v, h, c: lstm(v, (h, c))[0]), [x, h0, c0]
    lstm2 = _layer(nn.LSTM, I, H, num_layers=2, bidirectional=True, seed=1).to(dt)
    yield "LSTM, 2 layers, both ways", (lambda v: lstm2(v)[1][1]), [x]
    proj = _layer(nn.LSTM, I, H, proj_size=3, bias=False, seed=2).to(dt)
    yield "LSTM, projected, no bias", (lambda v: proj(v)[0]), [x]
    gru = _layer(nn.GRU, I, H, seed=3).to(dt)
    yield "GRU", (lambda v, h: gru(v, h)[0] * 2.0), [x, h0]
    rnn = _layer(nn.RNN, I, H, nonlinearity="relu", seed=4).to(dt)
    yield "RNN relu", (lambda v, h: rnn(v, h)[1]), [x, h0]
    lengths = [T, T - 1, 1]  # packed: steps of fewer sequences

    def packed(layer):
        def run(v):
            p = nn.utils.rnn.pack_padded_sequence(v, lengths)
            return nn.utils.rnn.pad_packed_sequence(layer(p)[0])[0]
        return run
    yield "LSTM, packed", packed(lstm), [x]
    yield "GRU, packed", packed(gru), [x]
    # the weights' and biases' gradients: the parameters as the program's inputs
    names = [n for n, _ in lstm2.named_parameters()]
    weights = [p.detach().numpy().copy() for p in lstm2.parameters()]
    yield "LSTM, 2 layers, both ways: weights", \
        (lambda v, *ws: tt.func.functional_call(lstm2, dict(zip(names, ws)), (v,))[0]), [x] + weights
    names_g = [n for n, _ in gru.named_parameters()]
    yield "GRU: weights", (lambda v, *ws: tt.func.functional_call(gru, dict(zip(names_g, ws)), (v,))[1]), \
        [x] + [p.detach().numpy().copy() for p in gru.parameters()]


PROGRAMS = {"rnn._layer_arrays": [_rnns], "rnn._layer_grads": [_rnns]}
