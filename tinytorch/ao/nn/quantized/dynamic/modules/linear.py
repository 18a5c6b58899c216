"""``tinytorch.ao.nn.quantized.dynamic.modules.linear``: ``Linear`` (``DynamicQuantizedLinear``): a float input, an
int8 weight, a float output; each call quantizes its input with qparams from the input's own range (fbgemm's
``linear_dynamic`` with ``reduce_range``: ``tinytorch/_quantized/fbgemm.py``)."""
from __future__ import annotations

from ...... import _dtype
from ......nn.modules.linear import Linear as _FloatLinear
from .....quantization.observer import default_weight_observer, quantize_weight
from ...modules.linear import Linear as _QuantizedLinear

__all__ = ["Linear"]


class Linear(_QuantizedLinear):
    """A linear layer with a qint8 weight, quantizing its float input at every call."""

    _version = 4

    def __init__(self, in_features: int, out_features: int, bias_: bool = True, dtype=_dtype.qint8):
        super().__init__(in_features, out_features, bias_, dtype=dtype)
        self.version = 4

    def forward(self, x):
        # versions before 4 ran without reduce_range (fbgemm's 8-bit activations then saturate int16 pairs)
        reduce_range = self.version is not None and self.version >= 4
        return self._packed_params._packed_params.apply_dynamic(x, reduce_range).to(x.dtype)

    def _get_name(self) -> str:
        return "DynamicQuantizedLinear"

    def extra_repr(self) -> str:
        return (f"in_features={self.in_features}, out_features={self.out_features}, "
                f"dtype={self._packed_params.dtype}, qscheme={self.weight().qscheme()}")

    def _load_from_state_dict(self, state_dict, prefix, local_metadata, strict, missing_keys, unexpected_keys,
                              error_msgs) -> None:
        self.version = local_metadata.get("version", None)
        super()._load_from_state_dict(state_dict, prefix, local_metadata, False, missing_keys, unexpected_keys,
                                      error_msgs)

    @classmethod
    def from_float(cls, mod, use_precomputed_fake_quant: bool = False):
        """The dynamic layer of a float ``nn.Linear``: its weight quantized per tensor, symmetric, to qint8."""
        if type(mod) is not _FloatLinear:
            raise AssertionError("nn.quantized.dynamic.Linear.from_float only works for one of['Linear', "
                                 f"'NonDynamicallyQuantizableLinear', 'LinearReLU', 'Linear'], got {type(mod)}")
        if not hasattr(mod, "qconfig"):
            raise AssertionError("Input float module must have qconfig defined")
        make_observer = mod.qconfig.weight if mod.qconfig is not None and mod.qconfig.weight is not None \
            else default_weight_observer
        observer = make_observer()
        if observer.dtype is not _dtype.qint8:
            raise AssertionError(f"The only supported dtypes for dynamic quantized linear are qint8 and float16, got: "
                                 f"{observer.dtype}")
        observer(mod.weight)
        qlinear = cls(mod.in_features, mod.out_features, dtype=observer.dtype)
        qlinear.set_weight_bias(quantize_weight(mod.weight.float(), observer), mod.bias)
        return qlinear
