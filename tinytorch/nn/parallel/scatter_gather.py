"""``torch.nn.parallel.scatter_gather``: splitting inputs across accelerators and gathering outputs back.
Without accelerators (tinytorch's case, and a CPU-only PyTorch's) there is nothing to split across: a
tensor refuses, as it does in PyTorch, and the containers around tensors are walked as PyTorch walks them,
so inputs without tensors scatter to one copy per device (none)."""
from __future__ import annotations

import dataclasses

from ...tensor import Tensor

__all__ = ["scatter", "scatter_kwargs", "gather"]

_NO_DEVICES = "tinytorch has no accelerators to {} tensors across (PyTorch's CPU build has no kernel for it either)"


def scatter(inputs, target_gpus, dim: int = 0):
    """One copy of ``inputs`` per target device; a tensor inside refuses (RuntimeError)."""
    def scatter_map(obj):
        if isinstance(obj, Tensor):
            raise RuntimeError(_NO_DEVICES.format("scatter"))
        if isinstance(obj, tuple) and obj:
            if hasattr(obj, "_fields"):
                return [type(obj)(*args) for args in zip(*map(scatter_map, obj))]
            return list(zip(*map(scatter_map, obj)))
        if isinstance(obj, list) and obj:
            return [list(i) for i in zip(*map(scatter_map, obj))]
        if isinstance(obj, dict) and obj:
            return [type(obj)(i) for i in zip(*map(scatter_map, obj.items()))]
        if dataclasses.is_dataclass(obj) and not isinstance(obj, type):
            raise RuntimeError(_NO_DEVICES.format("scatter"))
        return [obj for _ in target_gpus]
    return scatter_map(inputs)


def scatter_kwargs(inputs, kwargs, target_gpus, dim: int = 0):
    """``scatter`` of the positional and keyword arguments, padded to the same length."""
    scattered_inputs = scatter(inputs, target_gpus, dim) if inputs else []
    scattered_kwargs = scatter(kwargs, target_gpus, dim) if kwargs else []
    if len(scattered_inputs) < len(scattered_kwargs):
        scattered_inputs.extend(() for _ in range(len(scattered_kwargs) - len(scattered_inputs)))
    elif len(scattered_kwargs) < len(scattered_inputs):
        scattered_kwargs.extend({} for _ in range(len(scattered_inputs) - len(scattered_kwargs)))
    return tuple(scattered_inputs), tuple(scattered_kwargs)


def gather(outputs, target_device, dim: int = 0):
    """Gathering onto one device: PyTorch's CPU path has no such function, and neither has tinytorch."""
    raise AssertionError("Gather function not implemented for CPU tensors")
