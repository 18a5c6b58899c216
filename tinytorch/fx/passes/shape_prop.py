"""``ShapeProp``: run a graph on example inputs and record each node's result's shape, dtype, strides and
memory format in ``node.meta["tensor_meta"]`` (and its Python type in ``node.meta["type"]``)."""
from __future__ import annotations

import traceback
from typing import Any, NamedTuple

from ... import channels_last, channels_last_3d, contiguous_format
from ...tensor import Tensor
from ..interpreter import Interpreter
from ..node import Node, map_aggregate

__all__ = ["TensorMetadata", "ShapeProp"]


class TensorMetadata(NamedTuple):
    """What ShapeProp records about one tensor."""

    shape: Any
    dtype: Any
    requires_grad: bool
    stride: tuple
    memory_format: Any
    is_quantized: bool
    qparams: dict


def _extract_tensor_metadata(result: Tensor, include_contiguity: bool = True) -> TensorMetadata:
    memory_format = None
    if include_contiguity:
        for candidate in (contiguous_format, channels_last, channels_last_3d):  # the first that fits, in this order
            if _contiguous_as(result, candidate):
                memory_format = candidate
                break
    return TensorMetadata(result.shape, result.dtype, result.requires_grad, result.stride(), memory_format,
                          False, {})


def _contiguous_as(t: Tensor, memory_format) -> bool:
    """``t.is_contiguous(memory_format=...)``, False for a format that does not apply to ``t``'s rank (where
    PyTorch's check answers False rather than raising)."""
    try:
        return t.is_contiguous(memory_format=memory_format)
    except RuntimeError:
        return False


class ShapeProp(Interpreter):
    """``ShapeProp(gm).propagate(*example_inputs)``: ``gm``'s output, with each node's ``tensor_meta`` set."""

    def __init__(self, gm, fake_mode=None) -> None:
        super().__init__(gm)
        self.fake_mode = None  # tinytorch has no fake tensors: the inputs run as they are

    def run_node(self, n: Node) -> Any:
        try:
            result = super().run_node(n)
        except Exception as e:
            traceback.print_exc()
            raise RuntimeError(f"ShapeProp error for: node={n.format_node()} with meta={n.meta}") from e
        found = False

        def describe(obj):
            nonlocal found
            if isinstance(obj, Tensor):
                found = True
                return _extract_tensor_metadata(obj)
            return obj

        meta = map_aggregate(result, describe)
        if found:
            n.meta["tensor_meta"] = meta
        n.meta["type"] = type(result)
        return result

    def propagate(self, *args) -> Any:
        """Run the graph on ``args``, recording as it goes."""
        return super().run(*args)
