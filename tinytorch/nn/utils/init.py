"""``skip_init``: build a module without running its parameter initialisation."""
from __future__ import annotations

import inspect

from ... import random as _random
from ..modules.module import Module

__all__ = ["skip_init"]


def skip_init(module_cls, *args, **kwargs):
    """``module_cls(*args, **kwargs)`` with uninitialised parameters and buffers.

    PyTorch builds the module on the meta device, so its initialisers draw nothing from the random
    stream; here the module is built normally inside ``fork_rng`` (the stream is left as it was, as
    in PyTorch) and its tensors are then replaced by uninitialised ones."""
    if not issubclass(module_cls, Module):
        raise RuntimeError(f"Expected a Module; got {module_cls}")
    if "device" not in inspect.signature(module_cls).parameters:
        raise RuntimeError("Module must support a 'device' arg to skip initialization")
    final_device = kwargs.pop("device", "cpu")
    with _random.fork_rng():
        module = module_cls(*args, device=final_device, **kwargs)
    return module.to_empty(device=final_device)
