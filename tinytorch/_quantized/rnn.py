"""``torch.quantized_lstm`` with dynamically quantized weights (``use_dynamic=True``): the loop of PyTorch's
``_lstm_impl`` over ``CellParamsBase`` layers. Per layer and direction the input projection of the whole sequence is
one dynamic linear (one activation range for all steps, as PyTorch precomputes it on the CPU); each step adds the
hidden projection of ``h`` to its slice and runs the generic ``LSTMCell``:
``c = sigmoid(f) * c + sigmoid(i) * tanh(g)``, ``h = sigmoid(o) * tanh(c)``, each product and sum rounded to
float32, sigmoid and tanh as PyTorch's CPU build computes them (``_aten_math.py``)."""
from __future__ import annotations

from .._ops.nn.dropout import dropout as _dropout
from .._ops.shape.join import cat, stack
from ..autograd.grad_mode import no_grad
from ..tensor import Tensor, _make
from . import aten_math as _aten_math


def sigmoid(x: Tensor) -> Tensor:
    return _make(_aten_math.sigmoid(x._data))


def tanh(x: Tensor) -> Tensor:
    return _make(_aten_math.tanh(x._data))


def _layer(x: Tensor, h: Tensor, c: Tensor, cell, reverse: bool) -> tuple:
    """One direction of one layer over ``x`` (T, B, I): its outputs (T, B, H) and last (h, c)."""
    projected = cell.linear_ih(x)
    steps = range(x.shape[0] - 1, -1, -1) if reverse else range(x.shape[0])
    outputs = [None] * x.shape[0]
    for t in steps:
        gates = cell.linear_hh(h) + projected[t]
        i, f, g, o = gates.chunk(4, 1)
        c = sigmoid(f) * c + sigmoid(i) * tanh(g)
        h = sigmoid(o) * tanh(c)
        outputs[t] = h
    return stack(outputs), h, c


def quantized_lstm(input: Tensor, hx, params, has_biases: bool, num_layers: int, dropout: float, train: bool,
                   bidirectional: bool, batch_first: bool, *, dtype=None, use_dynamic: bool = False) -> tuple:
    """(output, h_n, c_n) of an LSTM whose layers are ``params`` (one ``CellParamsBase`` per layer and direction)."""
    if not use_dynamic:
        raise NotImplementedError("tinytorch's quantized_lstm runs dynamically quantized weights only "
                                  "(use_dynamic=True)")
    h0, c0 = hx
    directions = 2 if bidirectional else 1
    with no_grad():
        x = input.transpose(0, 1) if batch_first else input
        hs, cs = [], []
        for layer in range(num_layers):
            outs = []
            for d in range(directions):
                k = layer * directions + d
                out, h, c = _layer(x, h0[k], c0[k], params[k], reverse=d == 1)
                outs.append(out)
                hs.append(h)
                cs.append(c)
            x = outs[0] if directions == 1 else cat(outs, 2)
            if dropout and train and layer < num_layers - 1:
                x = _dropout(x, dropout, True)
        output = x.transpose(0, 1) if batch_first else x
        return output, stack(hs), stack(cs)
