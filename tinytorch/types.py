"""``tinytorch.types`` (PyTorch's ``torch.types``): the aliases annotations use."""
from __future__ import annotations

from typing import List, Sequence, Tuple, Union

from ._dtype import dtype as _dtype, qscheme as _qscheme_type
from ._size import Size, device as _device
from .tensor import Tensor

__all__ = ["Number", "Device", "Storage", "_TensorOrTensors", "_dtype", "_device", "_size", "_int", "_float",
           "_bool", "_complex", "_layout", "_qscheme", "IntLikeType", "FloatLikeType", "TensorOrTensors"]

_int = int
_float = float
_bool = bool
_complex = complex
_size = Union[Size, List[int], Tuple[int, ...]]
_TensorOrTensors = Union[Tensor, Sequence[Tensor]]
TensorOrTensors = _TensorOrTensors
Number = Union[int, float, bool]
Device = Union[_device, str, int, None]
IntLikeType = int
FloatLikeType = float
_layout = object
_qscheme = _qscheme_type
Storage = object
py_sym_types = (int, float, bool)
