"""``tinytorch.ao.quantization.qconfig``: ``QConfig`` (how to observe a layer's activation and weight) and the
dynamic configuration ``quantize_dynamic`` applies by default."""
from __future__ import annotations

from collections import namedtuple

from .observer import default_dynamic_quant_observer, default_observer, default_weight_observer

__all__ = ["QConfig", "default_dynamic_qconfig", "default_qconfig"]


class QConfig(namedtuple("QConfig", ["activation", "weight"])):
    """Observer factories for a layer's activation and weight."""

    __slots__ = ()


default_dynamic_qconfig = QConfig(activation=default_dynamic_quant_observer, weight=default_weight_observer)
default_qconfig = QConfig(activation=default_observer, weight=default_weight_observer)
