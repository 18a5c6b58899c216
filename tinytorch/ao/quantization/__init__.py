"""``tinytorch.ao.quantization``: ``quantize_dynamic`` (``quantize.py``), its observers and qconfigs
(``observer.py``, ``qconfig.py``); the stubs (``stubs.py``) are identities, and what static quantization would
need raises (see ``tinytorch/ao/__init__.py``)."""
from __future__ import annotations

from .observer import (MinMaxObserver, PlaceholderObserver, default_dynamic_quant_observer,  # noqa: F401
                       default_observer, default_weight_observer)
from .qconfig import QConfig, default_dynamic_qconfig, default_qconfig  # noqa: F401
from .quantize import propagate_qconfig_, quantize_dynamic, swap_module  # noqa: F401
from .stubs import DeQuantStub, QuantStub, QuantWrapper

__all__ = ["QuantStub", "DeQuantStub", "QuantWrapper", "QConfig", "prepare", "convert", "prepare_qat", "quantize",
           "quantize_dynamic", "fuse_modules", "fuse_modules_qat", "get_default_qconfig", "get_default_qat_qconfig",
           "default_observer", "default_weight_observer", "default_per_channel_weight_observer", "default_qconfig",
           "default_dynamic_qconfig", "default_dynamic_quant_observer", "MinMaxObserver", "PlaceholderObserver",
           "propagate_qconfig_", "swap_module"]

_MISSING = ("tinytorch has no static quantization (only quantize_dynamic's layers): torch.ao.quantization.{} is not "
            "implemented")


class _Unavailable:
    """An observer factory tinytorch lacks: ``with_args`` composes, calling it (making an observer) raises."""

    def __init__(self, name: str):
        self._name = name

    def with_args(self, **kwargs):
        return self

    def __call__(self, *args, **kwargs):
        raise NotImplementedError(_MISSING.format(self._name))

    def __repr__(self) -> str:
        return f"<unavailable observer {self._name}>"


default_per_channel_weight_observer = _Unavailable("default_per_channel_weight_observer")


def _unavailable(name):
    def fn(*args, **kwargs):
        raise NotImplementedError(_MISSING.format(name))

    fn.__name__ = name
    return fn


prepare = _unavailable("prepare")
convert = _unavailable("convert")
prepare_qat = _unavailable("prepare_qat")
quantize = _unavailable("quantize")
fuse_modules = _unavailable("fuse_modules")
fuse_modules_qat = _unavailable("fuse_modules_qat")
get_default_qconfig = _unavailable("get_default_qconfig")
get_default_qat_qconfig = _unavailable("get_default_qat_qconfig")
