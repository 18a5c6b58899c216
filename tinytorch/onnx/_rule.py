"""``export_rule``: an ONNX converter registers onto the declaration of the op it exports.

A converter is ``rule(tracer, out, *args, **kwargs)``, called with the op's arguments as ``torch.X`` /
``F.X`` takes them (a method or reflected operator arrives in that order too) after the op has run;
it adds the nodes that compute ``out``. The registry keeps it on the op's declaration
(``REGISTRY[key].onnx``, through ``registry.bind_export``), where the recorder looks it up: there is no
table of op names here, and a key that names no declared op fails as ``tinytorch.onnx`` loads."""
from __future__ import annotations

from .._ops._core.registry import bind_export


def export_rule(*keys: str):
    """Decorator: ``rule`` exports the ops ``keys`` (``REGISTRY`` keys: ``"mul"``, ``"F.linear"``,
    ``"Tensor.view"``). Returns the rule unchanged."""
    def attach(rule):
        for key in keys:
            bind_export(key, rule)
        return rule
    return attach
