"""The packed weights of PyTorch's quantized linear and recurrent layers. In PyTorch they are TorchScript class
objects (``torch.ScriptObject``): ``LinearPackedParamsBase`` (fbgemm's packed int8 weight, its column offsets, the
float bias) and ``CellParamsBase`` (a recurrent layer's two of them). ``torch.save`` pickles such an object as a
``torch.ScriptObject`` built from its ``__getstate__`` and class name, and so does tinytorch's writer, so a quantized
model's state_dict is the same file (``weights_only`` loading refuses it in both libraries)."""
from __future__ import annotations

import copy

from ..tensor import Tensor, _make
from . import fbgemm as _fbgemm

__all__ = ["ScriptObject", "LinearPackedParamsBase", "CellParamsBase"]


class ScriptObject:
    """A TorchScript class object's stand-in: ``qualified_name`` names its class, ``__getstate__`` its state. A full
    unpickle (``weights_only=False``) builds a bare ``ScriptObject`` and hands it (state, qualified name), as
    ``torch.save`` wrote it; ``__setstate__`` then becomes the class that name stands for."""

    qualified_name = "__torch__.torch.classes.ScriptObject"
    __module__ = "tinytorch"

    def __repr__(self) -> str:
        return f"ScriptObject <{self.qualified_name}>"

    def __deepcopy__(self, memo) -> ScriptObject:
        # copy.deepcopy's default would hand the plain state to __setstate__, which takes an unpickled payload
        twin = object.__new__(type(self))
        twin._restore(copy.deepcopy(self.__getstate__(), memo))
        return twin

    def __setstate__(self, payload) -> None:
        state, name = payload
        cls = next((c for c in (LinearPackedParamsBase, CellParamsBase) if c.qualified_name == name), None)
        if cls is None:
            raise RuntimeError(f"tinytorch has no TorchScript class {name}")
        self.__class__ = cls
        self._restore(state)


class LinearPackedParamsBase(ScriptObject):
    """A quantized linear layer's weight (a qint8 per-tensor tensor) and float bias, with fbgemm's column offsets."""

    qualified_name = "__torch__.torch.classes.quantized.LinearPackedParamsBase"

    def __init__(self, weight, bias):
        if weight.dtype.name != "qint8":
            raise RuntimeError("quantized::linear_prepack (fbgemm): Weight should be a quantized tensor of dtype qint8")
        if weight.dim() != 2:
            raise RuntimeError("quantized::linear_prepack (fbgemm): Weight tensor rank should be == 2")
        self._restore((weight, bias))

    def _restore(self, state) -> None:
        self.weight, self.bias = state
        self._offsets = _fbgemm.column_offsets(self.weight._data, self.weight.q_zero_point())

    def unpack(self) -> tuple:
        return self.weight, self.bias

    def __getstate__(self) -> tuple:
        return self.weight, self.bias

    def apply_dynamic(self, x: Tensor, reduce_range: bool, relu: bool = False) -> Tensor:
        """fbgemm's dynamic linear of a float32 tensor of 2 or more dimensions."""
        if x.dtype.name != "float32":  # fbgemm reads float32 only (PyTorch's dispatch check)
            raise RuntimeError(f"expected scalar type Float but found {x.dtype._scalar}")
        if x.dim() < 2:
            raise RuntimeError("The dimension of input tensor should be larger than or equal to 2")
        k = self.weight._data.shape[1]
        if x.shape[-1] != k:
            raise RuntimeError(f"The number of rows in the packB should be equal to K: {x.shape[-1]}")
        bias = None if self.bias is None else self.bias._data
        w = self.weight
        return _make(_fbgemm.linear_dynamic(x._data, w._data, w.q_scale(), w.q_zero_point(), self._offsets, bias,
                                            reduce_range, relu))


class CellParamsBase(ScriptObject):
    """One layer and direction of a dynamically quantized recurrent layer: the input and hidden projections."""

    qualified_name = "__torch__.torch.classes.rnn.CellParamsBase"

    def __init__(self, packed_ih: LinearPackedParamsBase, packed_hh: LinearPackedParamsBase, bias_ih, bias_hh,
                 reduce_range: bool = False):
        self._restore(("quantized_dynamic", [bias_ih, bias_hh], [], [int(reduce_range)], [packed_ih, packed_hh]))

    def _restore(self, state) -> None:
        kind, (self.bias_ih, self.bias_hh), _, longs, (self.packed_ih, self.packed_hh) = state
        if kind != "quantized_dynamic":
            raise RuntimeError(f"tinytorch's quantized recurrent cells are dynamic, not {kind}")
        self.reduce_range = bool(longs[0]) if longs else False

    def __getstate__(self) -> tuple:
        return ("quantized_dynamic", [self.bias_ih, self.bias_hh], [], [int(self.reduce_range)],
                [self.packed_ih, self.packed_hh])

    def linear_ih(self, x: Tensor) -> Tensor:
        return self.packed_ih.apply_dynamic(x, self.reduce_range)

    def linear_hh(self, h: Tensor) -> Tensor:
        return self.packed_hh.apply_dynamic(h, self.reduce_range)
