"""The ``torch`` distribution that ``importlib.metadata`` finds while ``install_as_torch()`` is on.

Libraries decide whether PyTorch is there by asking ``importlib.metadata`` (diffusers, accelerate,
transformers: ``version("torch")``, ``packages_distributions()``), not only by importing it. Under the alias
``import torch`` gives tinytorch, so the answer to "which torch does this process import" is tinytorch's
version, ``2.13.0+tinytorch`` (``torch.__version__``). The answer is given in that process only, and only to
a query about its own import path (``context.path is sys.path``, the default of every ``importlib.metadata``
call). An installer asks about given folders (pip: ``distributions(path=[location])``, one site-packages
folder at a time) and reads what is on disk: no file says ``torch``, and the distribution stays
``tinytorch-numpy``, which declares nothing about ``torch``. So pip never counts tinytorch as PyTorch, even in a
process started with ``TINYTORCH_AS_TORCH=1``.

Loaded by the alias's finder on the first ``importlib.metadata`` query, never by ``import tinytorch``."""
from __future__ import annotations

import os
import re
import sys
from importlib import metadata

NAME = "torch"


def _normalized(name: str) -> str:
    return re.sub(r"[-_.]+", "-", name).lower()


class TorchDistribution(metadata.Distribution):
    """``torch``'s metadata as tinytorch answers it: its name, the PyTorch version whose API it mirrors, the
    import name ``torch``; no files (nothing of it is on disk under that name)."""

    def __init__(self, version: str) -> None:
        self._version = version

    def read_text(self, filename):
        if filename == "METADATA":
            return (f"Metadata-Version: 2.1\nName: {NAME}\nVersion: {self._version}\n"
                    "Summary: tinytorch standing in for PyTorch (tinytorch.install_as_torch())\n")
        if filename == "top_level.txt":
            return NAME + "\n"
        return None

    def locate_file(self, path):
        # where ``import torch`` comes from: tinytorch's package folder's parent
        return os.path.join(os.path.dirname(os.path.dirname(os.path.abspath(__file__))), str(path))


def find(context, version: str):
    """The alias's answer to ``importlib.metadata``: the ``torch`` distribution for a query about this process's
    import path that names ``torch`` or no name; nothing otherwise."""
    if context is None:
        context = metadata.DistributionFinder.Context()
    if context.path is not sys.path:
        return []
    name = context.name
    if name is not None and _normalized(name) != NAME:
        return []
    return [TorchDistribution(version)]
