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

``importlib.metadata`` itself (which imports ``email``) is loaded by the query that reaches this module, never
by ``import tinytorch``."""
from __future__ import annotations

import functools
import os
import re
import sys

NAME = "torch"


@functools.cache
def _distribution_class():
    from importlib import metadata  # already loaded: only importlib.metadata calls find()

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

    return TorchDistribution


def find(context, version: str) -> list:
    """The alias's answer to ``importlib.metadata``: the ``torch`` distribution for a query about this process's
    import path that names ``torch`` or no name; nothing otherwise."""
    path = sys.path if context is None else context.path
    name = None if context is None else context.name
    if path is not sys.path:
        return []
    if name is not None and re.sub(r"[-_.]+", "-", name).lower() != NAME:
        return []
    return [_distribution_class()(version)]
