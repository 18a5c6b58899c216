"""The libraries whose engines the lens watches: tinytorch, and PyTorch once the program imported it (the
lens never imports PyTorch itself). Each is seen through the two things the lens wraps for a while:
its ``autograd`` module (``backward``, ``grad``) and its ``Tensor`` class (``backward``, ``numpy``)."""
from __future__ import annotations

import sys
from types import SimpleNamespace

from .. import autograd
from ..tensor import Tensor


def libraries() -> list:
    found = [SimpleNamespace(autograd=autograd, Tensor=Tensor)]
    torch = sys.modules.get("torch")
    if torch is not None and hasattr(torch, "autograd"):
        found.append(SimpleNamespace(autograd=torch.autograd, Tensor=torch.Tensor))
    return found
