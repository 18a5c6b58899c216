"""``tinytorch.export``: exporting needs a traced graph of PyTorch operators, which tinytorch (eager
numpy) does not build: ``export`` and ``load`` raise, saying so. ``tinytorch.onnx.export`` writes an
ONNX file of a model instead."""
from __future__ import annotations

__all__ = ["export", "load", "save", "ExportedProgram", "Dim"]

_UNSUPPORTED = ("tinytorch.export.{} is not supported: tinytorch runs eagerly on numpy and records no operator "
                "graph to export; use tinytorch.onnx.export for an ONNX file, or tinytorch.save for weights")


class ExportedProgram:
    """Never produced; defined so ``isinstance`` checks work."""


def export(mod, args, kwargs=None, *, dynamic_shapes=None, strict: bool = False, preserve_module_call_signature=()):
    raise NotImplementedError(_UNSUPPORTED.format("export"))


def save(ep, f, *, extra_files=None, opset_version=None, pickle_protocol: int = 2):
    raise NotImplementedError(_UNSUPPORTED.format("save"))


def load(f, *, extra_files=None, expected_opset_version=None):
    raise NotImplementedError(_UNSUPPORTED.format("load"))


class Dim:
    """A named dynamic dimension (accepted; nothing is exported)."""

    def __init__(self, name: str, *, min=None, max=None):  # noqa: A002 - PyTorch's names
        self.__name__, self.min, self.max = name, min, max
