"""``tinytorch.ao.nn.quantized.dynamic.modules.rnn``: ``LSTM`` (``DynamicQuantizedLSTM``) and ``PackedParameter``
(the module holding one layer and direction's ``CellParamsBase``), with PyTorch's reprs, state_dict keys
(``_all_weight_values.<k>.param``) and versions; the forward is ``tinytorch.quantized_lstm``."""
from __future__ import annotations

import numbers
import warnings

from ...... import _dtype
from ......_ops.creation.factory import zeros
from ......nn.modules.container import ModuleList
from ......nn.modules.module import Module, _addindent
from ......nn.modules.rnn import LSTM as _FloatLSTM
from ......nn.utils.rnn import PackedSequence
from ......_ops.random.sampling import randn
from ......_quantized.packed_params import CellParamsBase, LinearPackedParamsBase
from ......_quantized.tensor import quantize_per_tensor
from ......_quantized.rnn import quantized_lstm
from .....quantization.observer import default_weight_observer, quantize_weight

__all__ = ["PackedParameter", "RNNBase", "LSTM"]


class PackedParameter(Module):
    """Holds ``param`` (a ``CellParamsBase``), saved under its own key."""

    def __init__(self, param):
        super().__init__()
        self.param = param

    def _save_to_state_dict(self, destination, prefix: str, keep_vars: bool) -> None:
        super()._save_to_state_dict(destination, prefix, keep_vars)
        destination[prefix + "param"] = self.param

    def _load_from_state_dict(self, state_dict, prefix, local_metadata, strict, missing_keys, unexpected_keys,
                              error_msgs) -> None:
        self.param = state_dict.pop(prefix + "param")
        super()._load_from_state_dict(state_dict, prefix, local_metadata, False, missing_keys, unexpected_keys,
                                      error_msgs)


def _cell(w_ih, w_hh, b_ih, b_hh, version) -> CellParamsBase:
    # version 2 on: fbgemm's activations on 7 bits (reduce_range), as the dynamic linear layer's
    return CellParamsBase(LinearPackedParamsBase(w_ih, b_ih), LinearPackedParamsBase(w_hh, b_hh), b_ih, b_hh,
                          reduce_range=version is not None and version >= 2)


class RNNBase(Module):
    _version = 2

    def __init__(self, mode: str, input_size: int, hidden_size: int, num_layers: int = 1, bias: bool = True,
                 batch_first: bool = False, dropout: float = 0.0, bidirectional: bool = False,
                 dtype=_dtype.qint8):
        super().__init__()
        self.mode, self.input_size, self.hidden_size, self.num_layers = mode, input_size, hidden_size, num_layers
        self.bias, self.batch_first, self.dropout = bias, batch_first, float(dropout)
        self.bidirectional, self.dtype = bidirectional, dtype
        self.version = 2
        self.training = False
        if not isinstance(dropout, numbers.Number) or not 0 <= dropout <= 1 or isinstance(dropout, bool):
            raise ValueError("dropout should be a number in range [0, 1] representing the probability of an element "
                             "being zeroed")
        if dropout > 0 and num_layers == 1:
            warnings.warn("dropout option adds dropout after all but last recurrent layer, so non-zero dropout "
                          f"expects num_layers greater than 1, but got dropout={dropout} and num_layers={num_layers}",
                          stacklevel=2)
        if mode != "LSTM":
            raise NotImplementedError(f"tinytorch's dynamic quantized recurrent layers are LSTMs, not {mode}")
        if dtype is not _dtype.qint8:
            raise NotImplementedError(f"tinytorch's dynamic quantized LSTM takes qint8 weights, not {dtype}")
        gate_size = 4 * hidden_size
        directions = 2 if bidirectional else 1
        cells = []
        for layer in range(num_layers):
            for _ in range(directions):
                # placeholder weights drawn as PyTorch draws them, so the generator is where PyTorch leaves it
                layer_input = input_size if layer == 0 else hidden_size * directions
                w_ih, w_hh = randn(gate_size, layer_input), randn(gate_size, hidden_size)
                b_ih, b_hh = randn(gate_size), randn(gate_size)
                w_ih = quantize_per_tensor(w_ih, scale=0.1, zero_point=0, dtype=_dtype.qint8)
                w_hh = quantize_per_tensor(w_hh, scale=0.1, zero_point=0, dtype=_dtype.qint8)
                cells.append(PackedParameter(_cell(w_ih, w_hh, b_ih, b_hh, self.version)))
        self._all_weight_values = ModuleList(cells)

    def _get_name(self) -> str:
        return "DynamicQuantizedRNN"

    def extra_repr(self) -> str:
        s = f"{self.input_size}, {self.hidden_size}"
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

    def __repr__(self) -> str:
        # Module's repr without the packed weights' ModuleList, as PyTorch prints it
        extra = self.extra_repr()
        extra_lines = extra.split("\n") if extra else []
        child_lines = [f"({key}): " + _addindent(repr(m), 2) for key, m in self._modules.items()
                       if not isinstance(m, (PackedParameter, ModuleList))]
        lines = extra_lines + child_lines
        text = self._get_name() + "("
        if lines:
            if len(extra_lines) == 1 and not child_lines:
                text += extra_lines[0]
            else:
                text += "\n  " + "\n  ".join(lines) + "\n"
        return text + ")"

    def _load_from_state_dict(self, state_dict, prefix, local_metadata, strict, missing_keys, unexpected_keys,
                              error_msgs) -> None:
        self.version = local_metadata.get("version", None)
        super()._load_from_state_dict(state_dict, prefix, local_metadata, False, missing_keys, unexpected_keys,
                                      error_msgs)

    def check_input(self, input) -> None:
        if input.dim() != 3:
            raise RuntimeError(f"input must have 3 dimensions, got {input.dim()}")
        if self.input_size != input.size(-1):
            raise RuntimeError(f"input.size(-1) must be equal to input_size. Expected {self.input_size}, "
                               f"got {input.size(-1)}")

    def get_expected_hidden_size(self, input) -> tuple:
        mini_batch = input.size(0) if self.batch_first else input.size(1)
        return (self.num_layers * (2 if self.bidirectional else 1), mini_batch, self.hidden_size)

    @classmethod
    def from_float(cls, mod, use_precomputed_fake_quant: bool = False):
        """The dynamic layer of a float ``nn.LSTM``: each weight quantized per tensor, symmetric, to qint8."""
        if type(mod) is not _FloatLSTM:
            raise AssertionError("nn.quantized.dynamic.RNNBase.from_float only works for nn.LSTM and nn.GRU")
        if not hasattr(mod, "qconfig"):
            raise AssertionError("Input float module must have qconfig defined")
        make_observer = mod.qconfig.weight if mod.qconfig is not None and mod.qconfig.weight is not None \
            else default_weight_observer
        dtype = make_observer().dtype
        if not mod.bias:
            raise AssertionError("mod.bias must be True")
        if getattr(mod, "proj_size", 0):
            raise NotImplementedError("tinytorch's dynamic quantized LSTM has no proj_size")
        q = cls(mod.input_size, mod.hidden_size, mod.num_layers, mod.bias, mod.batch_first, mod.dropout,
                mod.bidirectional, dtype)
        cells = []
        for layer in range(q.num_layers):
            for direction in range(2 if mod.bidirectional else 1):
                suffix = "_reverse" if direction == 1 else ""
                packed = []
                for which in ("ih", "hh"):
                    weight = getattr(mod, f"weight_{which}_l{layer}{suffix}")
                    observer = make_observer()
                    observer(weight)
                    packed.append(quantize_weight(weight.float(), observer))
                b_ih, b_hh = getattr(mod, f"bias_ih_l{layer}{suffix}"), getattr(mod, f"bias_hh_l{layer}{suffix}")
                cells.append(PackedParameter(_cell(packed[0], packed[1], b_ih, b_hh, q.version)))
        q._all_weight_values = ModuleList(cells)
        return q


class LSTM(RNNBase):
    """A dynamically quantized LSTM: float input and states, qint8 weights, each step's activations quantized on
    the fly."""

    def __init__(self, *args, **kwargs):
        super().__init__("LSTM", *args, **kwargs)

    def _get_name(self) -> str:
        return "DynamicQuantizedLSTM"

    def forward(self, input, hx=None):
        if isinstance(input, PackedSequence):
            raise NotImplementedError("tinytorch's dynamic quantized LSTM takes padded tensors, not PackedSequence")
        self.check_input(input)
        expected = self.get_expected_hidden_size(input)
        if hx is None:
            state = zeros(*expected, dtype=input.dtype)
            hx = (state, state)
        for h, label in ((hx[0], "hidden[0]"), (hx[1], "hidden[1]")):
            if tuple(h.size()) != expected:
                raise RuntimeError(f"Expected {label} size {expected}, got {list(h.size())}")
        params = [m.param for m in self._all_weight_values]
        output, h_n, c_n = quantized_lstm(input, hx, params, self.bias, self.num_layers, float(self.dropout),
                                          self.training, self.bidirectional, self.batch_first, dtype=self.dtype,
                                          use_dynamic=True)
        return output, (h_n, c_n)
