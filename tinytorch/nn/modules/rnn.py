"""Recurrent layers: ``RNN`` (tanh/relu), ``LSTM`` (with projections), ``GRU`` and their one-step cells.

Parameters, their names and order, initialisation, reprs and argument checks are PyTorch's. Each
layer and direction runs as one fused graph node (``_ops/nn/rnn.py``); the cells are composed of
tinytorch ops (``_ops/nn/rnn_cells.py``). Every multi-step module accepts a ``PackedSequence``."""
from __future__ import annotations

import math
import numbers
import warnings

from ... import _dtype
from ..._ops.creation.factory import empty, zeros
from ..._ops.shape.join import cat, stack
from ..._ops._core.registry import capturing
from ..._ops.nn.rnn import layer_options, rnn_layer
from ..._ops.shape.shape import TransposeBackward1, _unary_result
from .. import init
from ..functional import dropout as _dropout
from ..parameter import Parameter
from ..utils.rnn import PackedSequence
from .module import Module

__all__ = ["RNNBase", "RNN", "LSTM", "GRU", "RNNCellBase", "RNNCell", "LSTMCell", "GRUCell"]

_GATES = {"LSTM": 4, "GRU": 3, "RNN_TANH": 1, "RNN_RELU": 1}


def _batch_first_out(out, in_place_name: bool):
    # PyTorch's RNN/GRU path transposes its batch-first output in place (transpose_'s node); LSTM's does not
    if in_place_name:
        return _unary_result(out, out._data.swapaxes(0, 1), TransposeBackward1, True, d0=0, d1=1)
    return out.transpose(0, 1)


def _apply_permutation(t, permutation, dim: int = 1):
    return t.index_select(dim, permutation)


class RNNBase(Module):
    """What RNN, LSTM and GRU share: the per-layer, per-direction parameters and the stacked run."""

    def __init__(self, mode: str, input_size: int, hidden_size: int, num_layers: int = 1, bias: bool = True,
                 batch_first: bool = False, dropout: float = 0.0, bidirectional: bool = False, proj_size: int = 0,
                 device=None, dtype=None) -> None:
        super().__init__()
        self.mode = mode
        self.input_size = input_size
        self.hidden_size = hidden_size
        self.num_layers = num_layers
        self.bias = bias
        self.batch_first = batch_first
        self.dropout = float(dropout)
        self.bidirectional = bidirectional
        self.proj_size = proj_size
        num_directions = 2 if bidirectional else 1
        if not isinstance(dropout, numbers.Number) or not 0 <= dropout <= 1 or isinstance(dropout, bool):
            raise ValueError("dropout should be a number in range [0, 1] representing the probability of an "
                             "element being zeroed")
        if dropout > 0 and num_layers == 1:
            warnings.warn("dropout option adds dropout after all but last recurrent layer, so non-zero dropout "
                          f"expects num_layers greater than 1, but got dropout={dropout} and "
                          f"num_layers={num_layers}", stacklevel=2)
        if not isinstance(bias, bool):
            raise TypeError(f"bias should be of type bool, got: {type(bias).__name__}")
        if not isinstance(batch_first, bool):
            raise TypeError(f"batch_first should be of type bool, got: {type(batch_first).__name__}")
        if not isinstance(input_size, int):
            raise TypeError(f"input_size should be of type int, got: {type(input_size).__name__}")
        if input_size <= 0:
            raise ValueError("input_size must be greater than zero")
        if not isinstance(hidden_size, int):
            raise TypeError(f"hidden_size should be of type int, got: {type(hidden_size).__name__}")
        if hidden_size <= 0:
            raise ValueError("hidden_size must be greater than zero")
        if num_layers <= 0:
            raise ValueError("num_layers must be greater than zero")
        if proj_size < 0:
            raise ValueError("proj_size should be a positive integer or zero to disable projections")
        if proj_size >= hidden_size:
            raise ValueError("proj_size has to be smaller than hidden_size")
        if mode not in _GATES:
            raise ValueError("Unrecognized RNN mode: " + mode)
        gate_size = _GATES[mode] * hidden_size
        dtype = dtype if dtype is not None else _dtype.get_default_dtype()
        real_hidden = proj_size if proj_size > 0 else hidden_size
        self._flat_weights_names = []
        self._all_weights = []
        for layer in range(num_layers):
            for direction in range(num_directions):
                layer_input = input_size if layer == 0 else real_hidden * num_directions
                suffix = "_reverse" if direction == 1 else ""
                shapes = [("weight_ih", (gate_size, layer_input)), ("weight_hh", (gate_size, real_hidden))]
                if bias:
                    shapes += [("bias_ih", (gate_size,)), ("bias_hh", (gate_size,))]
                if proj_size > 0:
                    shapes += [("weight_hr", (proj_size, hidden_size))]
                names = []
                for base, shape in shapes:
                    name = f"{base}_l{layer}{suffix}"
                    setattr(self, name, Parameter(empty(shape, dtype=dtype, device=device)))
                    names.append(name)
                self._flat_weights_names.extend(names)
                self._all_weights.append(names)
        self.reset_parameters()

    @property
    def _flat_weights(self) -> list:
        return [getattr(self, name, None) for name in self._flat_weights_names]

    @property
    def all_weights(self) -> list:
        return [[getattr(self, name) for name in names] for names in self._all_weights]

    def flatten_parameters(self) -> None:
        """A no-op, as PyTorch's on CPU (it packs cuDNN's weight buffer)."""

    def reset_parameters(self) -> None:
        stdv = 1.0 / math.sqrt(self.hidden_size) if self.hidden_size > 0 else 0
        for weight in self.parameters():
            init.uniform_(weight, -stdv, stdv)

    def extra_repr(self) -> str:
        s = f"{self.input_size}, {self.hidden_size}"
        if self.proj_size != 0:
            s += f", proj_size={self.proj_size}"
        if self.num_layers != 1:
            s += f", num_layers={self.num_layers}"
        if self.bias is not True:
            s += f", bias={self.bias}"
        if self.batch_first is not False:
            s += f", batch_first={self.batch_first}"
        if self.dropout != 0:
            s += f", dropout={self.dropout}"
        if self.bidirectional is not False:
            s += f", bidirectional={self.bidirectional}"
        return s

    # -- argument checks (PyTorch's messages) ----------------------------------------------------
    def check_input(self, input, batch_sizes) -> None:
        wdt = self._flat_weights[0].dtype
        if input.dtype != wdt:
            raise ValueError(f"RNN input dtype ({input.dtype}) does not match weight dtype ({wdt}). Convert input: "
                             f"input.to({wdt}), or convert model: model.to({input.dtype})")
        expected_dim = 2 if batch_sizes is not None else 3
        if input.dim() != expected_dim:
            raise RuntimeError(f"input must have {expected_dim} dimensions, got {input.dim()}")
        if self.input_size != input.size(-1):
            raise RuntimeError(f"input.size(-1) must be equal to input_size. Expected {self.input_size}, "
                               f"got {input.size(-1)}")

    def get_expected_hidden_size(self, input, batch_sizes) -> tuple:
        if batch_sizes is not None:
            mini_batch = int(batch_sizes[0])
        else:
            mini_batch = input.size(0) if self.batch_first else input.size(1)
        num_directions = 2 if self.bidirectional else 1
        size = self.proj_size if self.proj_size > 0 else self.hidden_size
        return (self.num_layers * num_directions, mini_batch, size)

    def check_hidden_size(self, hx, expected: tuple, msg: str = "Expected hidden size {}, got {}") -> None:
        if tuple(hx.size()) != expected:
            raise RuntimeError(msg.format(expected, list(hx.size())))

    def check_forward_args(self, input, hidden, batch_sizes) -> None:
        self.check_input(input, batch_sizes)
        self.check_hidden_size(hidden, self.get_expected_hidden_size(input, batch_sizes))

    def permute_hidden(self, hx, permutation):
        return hx if permutation is None else _apply_permutation(hx, permutation)

    # -- the run -----------------------------------------------------------------------------------
    def _zeros(self, input, batch: int, size: int):
        directions = 2 if self.bidirectional else 1
        return zeros(self.num_layers * directions, batch, size, dtype=input.dtype)

    def _run(self, input, batch_sizes, hx, cx=None):
        """All layers and directions on seq-first (T, B, I) input or packed data: (output, h_n, c_n)."""
        directions = 2 if self.bidirectional else 1
        packed = batch_sizes is not None
        if not packed and input.size(1 if self.batch_first else 0) == 0:  # PyTorch's _rnn_impl, after the checks
            raise RuntimeError("Expected sequence length to be larger than 0 in RNN")
        if self.batch_first and not packed:
            input = input.transpose(0, 1)
        # the node names PyTorch's CPU build shows: oneDNN's LSTM layer (float32, padded, not empty, no
        # projection), else the Stack (padded) or Cat (packed) its composite path ends in
        onednn = (self.mode == "LSTM" and not packed and self.proj_size == 0 and input.dtype == _dtype.float32
                  and input.numel() != 0)
        node_name = "MkldnnRnnLayerBackward0" if onednn else ("CatBackward0" if packed else "StackBackward0")
        options = None
        if onednn:  # PyTorch's operator: a graph capture records each layer as one aten.mkldnn_rnn_layer
            options = layer_options(self.hidden_size, self.num_layers, self.bidirectional, self.batch_first,
                                    self.training)
            if capturing():
                input = input.contiguous()  # (oneDNN reads a sequence-first copy of batch-first input)
        weights = self._flat_weights
        per = len(weights) // (self.num_layers * directions)
        bs = None if batch_sizes is None else [int(b) for b in batch_sizes.tolist()]
        layer_in, hs, cs = input, [], []
        for layer in range(self.num_layers):
            if layer > 0 and self.dropout and self.training:
                layer_in = _dropout(layer_in, self.dropout, True)
            outs = []
            for d in range(directions):
                k = layer * directions + d
                w = weights[k * per:(k + 1) * per]
                w_ih, w_hh = w[0], w[1]
                b_ih, b_hh = (w[2], w[3]) if self.bias else (None, None)
                w_hr = w[-1] if self.proj_size > 0 else None
                o, h, c = rnn_layer(self.mode, layer_in, bs, hx[k], None if cx is None else cx[k], w_ih, w_hh, b_ih,
                                    b_hh, w_hr, d == 1, node_name, options)
                outs.append(o)
                hs.append(h)
                cs.append(c)
            layer_in = outs[0] if directions == 1 else cat(outs, -1)
        h_n, c_n = stack(hs, 0), (None if cx is None else stack(cs, 0))
        output = layer_in
        if self.batch_first and not packed:
            output = _batch_first_out(output, self.mode != "LSTM")
        return output, h_n, c_n

    def _prepare(self, input, hx, name: str):
        """Unpack a PackedSequence, add the batch dim of unbatched input, check dims; PyTorch's order."""
        if isinstance(input, PackedSequence):
            data, batch_sizes, sorted_indices, unsorted_indices = input
            return data, batch_sizes, sorted_indices, unsorted_indices, True, None
        if input.dim() not in (2, 3):
            raise ValueError(f"{name}: Expected input to be 2D or 3D, got {input.dim()}D"
                             f"{' tensor' if name == 'RNN' else ''} instead")
        is_batched = input.dim() == 3
        batch_dim = 0 if self.batch_first else 1
        if not is_batched:
            input = input.unsqueeze(batch_dim)
        return input, None, None, None, is_batched, batch_dim


class RNN(RNNBase):
    """Elman RNN: h_t = act(x_t W_ih^T + b_ih + h_{t-1} W_hh^T + b_hh), act tanh or relu."""

    def __init__(self, *args, **kwargs) -> None:
        if "proj_size" in kwargs:
            raise ValueError("proj_size argument is only supported for LSTM, not RNN or GRU")
        if len(args) > 3:
            self.nonlinearity = args[3]
            args = args[:3] + args[4:]
        else:
            self.nonlinearity = kwargs.pop("nonlinearity", "tanh")
        if self.nonlinearity == "tanh":
            mode = "RNN_TANH"
        elif self.nonlinearity == "relu":
            mode = "RNN_RELU"
        else:
            raise ValueError(f"Unknown nonlinearity '{self.nonlinearity}'. Select from 'tanh' or 'relu'.")
        super().__init__(mode, *args, **kwargs)

    def forward(self, input, hx=None):
        return _forward_single_state(self, input, hx, type(self).__name__)


class GRU(RNNBase):
    """Gated recurrent unit: gates r, z, n (PyTorch's order and equations)."""

    def __init__(self, *args, **kwargs) -> None:
        if "proj_size" in kwargs:
            raise ValueError("proj_size argument is only supported for LSTM, not RNN or GRU")
        super().__init__("GRU", *args, **kwargs)

    def forward(self, input, hx=None):
        return _forward_single_state(self, input, hx, "GRU")


def _forward_single_state(self, input, hx, name: str):
    """RNN and GRU forward: one hidden state per layer and direction."""
    orig = input
    input, batch_sizes, sorted_indices, unsorted_indices, is_batched, batch_dim = self._prepare(input, hx, name)
    size = self.proj_size if self.proj_size > 0 else self.hidden_size
    if batch_sizes is None and hx is not None:
        if not is_batched:
            if hx.dim() != 2:
                raise RuntimeError(f"For unbatched 2-D input, hx should also be 2-D but got {hx.dim()}-D tensor")
            hx = hx.unsqueeze(1)
        elif hx.dim() != 3:
            raise RuntimeError(f"For batched 3-D input, hx should also be 3-D but got {hx.dim()}-D tensor")
    if hx is None:
        batch = int(batch_sizes[0]) if batch_sizes is not None else input.size(0 if self.batch_first else 1)
        hx = self._zeros(input, batch, size)
    else:
        hx = self.permute_hidden(hx, sorted_indices)
    self.check_forward_args(input, hx, batch_sizes)
    output, hidden, _ = self._run(input, batch_sizes, hx)
    if isinstance(orig, PackedSequence):
        return (PackedSequence(output, batch_sizes, sorted_indices, unsorted_indices),
                self.permute_hidden(hidden, unsorted_indices))
    if not is_batched:
        output, hidden = output.squeeze(batch_dim), hidden.squeeze(1)
    return output, hidden


class LSTM(RNNBase):
    """Long short-term memory: gates i, f, g, o; with ``proj_size`` > 0 h is projected by ``weight_hr``."""

    def __init__(self, *args, **kwargs) -> None:
        super().__init__("LSTM", *args, **kwargs)

    def get_expected_cell_size(self, input, batch_sizes) -> tuple:
        if batch_sizes is not None:
            mini_batch = int(batch_sizes[0])
        else:
            mini_batch = input.size(0) if self.batch_first else input.size(1)
        num_directions = 2 if self.bidirectional else 1
        return (self.num_layers * num_directions, mini_batch, self.hidden_size)

    def check_forward_args(self, input, hidden, batch_sizes) -> None:
        self.check_input(input, batch_sizes)
        self.check_hidden_size(hidden[0], self.get_expected_hidden_size(input, batch_sizes),
                               "Expected hidden[0] size {}, got {}")
        self.check_hidden_size(hidden[1], self.get_expected_cell_size(input, batch_sizes),
                               "Expected hidden[1] size {}, got {}")

    def permute_hidden(self, hx, permutation):
        if permutation is None:
            return hx
        return _apply_permutation(hx[0], permutation), _apply_permutation(hx[1], permutation)

    def forward(self, input, hx=None):
        orig = input
        input, batch_sizes, sorted_indices, unsorted_indices, is_batched, batch_dim = self._prepare(input, hx, "LSTM")
        real_hidden = self.proj_size if self.proj_size > 0 else self.hidden_size
        if hx is None:
            batch = int(batch_sizes[0]) if batch_sizes is not None else input.size(0 if self.batch_first else 1)
            hx = (self._zeros(input, batch, real_hidden), self._zeros(input, batch, self.hidden_size))
            self.check_forward_args(input, hx, batch_sizes)
        elif batch_sizes is not None:
            hx = self.permute_hidden(hx, sorted_indices)
            self.check_forward_args(input, hx, batch_sizes)
        else:
            if is_batched:
                if hx[0].dim() != 3 or hx[1].dim() != 3:
                    raise RuntimeError("For batched 3-D input, hx and cx should also be 3-D but got "
                                       f"({hx[0].dim()}-D, {hx[1].dim()}-D) tensors")
            else:
                if hx[0].dim() != 2 or hx[1].dim() != 2:
                    raise RuntimeError("For unbatched 2-D input, hx and cx should also be 2-D but got "
                                       f"({hx[0].dim()}-D, {hx[1].dim()}-D) tensors")
                hx = (hx[0].unsqueeze(1), hx[1].unsqueeze(1))
            self.check_forward_args(input, hx, batch_sizes)
        output, h_n, c_n = self._run(input, batch_sizes, hx[0], hx[1])
        if isinstance(orig, PackedSequence):
            return (PackedSequence(output, batch_sizes, sorted_indices, unsorted_indices),
                    self.permute_hidden((h_n, c_n), unsorted_indices))
        if not is_batched:
            return output.squeeze(batch_dim), (h_n.squeeze(1), c_n.squeeze(1))
        return output, (h_n, c_n)


from ._rnn_cell import GRUCell, LSTMCell, RNNCell, RNNCellBase  # noqa: E402  (the one-step cells)
