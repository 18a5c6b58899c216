"""``tinytorch.ao.nn.quantized.modules.linear``: ``LinearPackedParams`` (the module holding a quantized linear
layer's packed weight and bias) and ``Linear`` (PyTorch's ``QuantizedLinear``, the base of the dynamic one), with
PyTorch's state_dict keys, versions and reprs."""
from __future__ import annotations

import numpy as np

from ..... import _dtype
from ....._ops.creation.factory import tensor, zeros
from .....nn.modules.module import Module, _addindent
from ....._quantized.packed_params import LinearPackedParamsBase
from ....._quantized.tensor import make_quantized

__all__ = ["LinearPackedParams", "Linear"]


def _empty_quantized(shape) -> object:
    """PyTorch's ``_empty_affine_quantized`` (scale 1, zero point 0), zero-filled where PyTorch leaves memory."""
    return make_quantized(np.zeros(shape, np.int8), _dtype.qint8, 1.0, 0)


class LinearPackedParams(Module):
    """Holds ``_packed_params`` (the packed weight and bias); saved as ``dtype`` and the (weight, bias) pair."""

    _version = 3

    def __init__(self, dtype=_dtype.qint8):
        super().__init__()
        if dtype is not _dtype.qint8:
            raise NotImplementedError(f"tinytorch's quantized linear layers take qint8 weights, not {dtype}")
        self.dtype = dtype
        self.set_weight_bias(_empty_quantized((1, 1)), None)

    def set_weight_bias(self, weight, bias) -> None:
        self._packed_params = LinearPackedParamsBase(weight, bias)

    def _weight_bias(self) -> tuple:
        return self._packed_params.unpack()

    def forward(self, x):
        return x

    def _save_to_state_dict(self, destination, prefix: str, keep_vars: bool) -> None:
        super()._save_to_state_dict(destination, prefix, keep_vars)
        destination[prefix + "dtype"] = self.dtype
        destination[prefix + "_packed_params"] = self._weight_bias()

    def _load_from_state_dict(self, state_dict, prefix, local_metadata, strict, missing_keys, unexpected_keys,
                              error_msgs) -> None:
        if prefix + "dtype" in state_dict:
            self.dtype = state_dict.pop(prefix + "dtype")
        if prefix + "_packed_params" in state_dict:
            weight, bias = state_dict.pop(prefix + "_packed_params")
            self.set_weight_bias(weight, bias)
        super()._load_from_state_dict(state_dict, prefix, local_metadata, False, missing_keys, unexpected_keys,
                                      error_msgs)

    def __repr__(self) -> str:
        return repr(self._weight_bias())


def hide_packed_params_repr(module: Module, params: type) -> str:
    """``Module.__repr__`` without the children of type ``params`` (PyTorch's ``_hide_packed_params_repr``)."""
    extra = module.extra_repr()
    extra_lines = extra.split("\n") if extra else []
    child_lines = [f"({key}): " + _addindent(repr(m), 2) for key, m in module._modules.items()
                   if not isinstance(m, params)]
    lines = extra_lines + child_lines
    text = module._get_name() + "("
    if lines:
        if len(extra_lines) == 1 and not child_lines:
            text += extra_lines[0]
        else:
            text += "\n  " + "\n  ".join(lines) + "\n"
    return text + ")"


class Linear(Module):
    """A quantized linear layer (``QuantizedLinear``): its weight qint8, its bias float, its output's qparams
    ``scale`` and ``zero_point``. tinytorch runs the dynamic one (``ao.nn.quantized.dynamic.Linear``); this static
    layer, which takes quantized input, holds its state and refuses to run."""

    _version = 3

    def __init__(self, in_features: int, out_features: int, bias_: bool = True, dtype=_dtype.qint8):
        super().__init__()
        self.in_features, self.out_features = in_features, out_features
        bias = zeros(out_features) if bias_ else None
        self._packed_params = LinearPackedParams(dtype)
        self._packed_params.set_weight_bias(_empty_quantized((out_features, in_features)), bias)
        self.scale = 1.0
        self.zero_point = 0

    def _get_name(self) -> str:
        return "QuantizedLinear"

    def extra_repr(self) -> str:
        return (f"in_features={self.in_features}, out_features={self.out_features}, scale={self.scale}, "
                f"zero_point={self.zero_point}, qscheme={self.weight().qscheme()}")

    def __repr__(self) -> str:
        return hide_packed_params_repr(self, LinearPackedParams)

    def forward(self, x):
        raise NotImplementedError("tinytorch has no static quantization kernels (quantized::linear on quantized "
                                  "input); quantize_dynamic's layers run")

    def _save_to_state_dict(self, destination, prefix: str, keep_vars: bool) -> None:
        super()._save_to_state_dict(destination, prefix, keep_vars)
        destination[prefix + "scale"] = tensor(self.scale)
        destination[prefix + "zero_point"] = tensor(self.zero_point)

    def _load_from_state_dict(self, state_dict, prefix, local_metadata, strict, missing_keys, unexpected_keys,
                              error_msgs) -> None:
        self.scale = float(state_dict.pop(prefix + "scale"))
        self.zero_point = int(state_dict.pop(prefix + "zero_point"))
        super()._load_from_state_dict(state_dict, prefix, local_metadata, False, missing_keys, unexpected_keys,
                                      error_msgs)

    def _weight_bias(self) -> tuple:
        return self._packed_params._weight_bias()

    def weight(self):
        return self._weight_bias()[0]

    def bias(self):
        return self._weight_bias()[1]

    def set_weight_bias(self, w, b) -> None:
        self._packed_params.set_weight_bias(w, b)
