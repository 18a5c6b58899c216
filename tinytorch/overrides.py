"""``torch.overrides``: the part libraries reach at import (diffusers subclasses ``TorchFunctionMode`` for one of
its hooks). Tensor subclasses' ``__torch_function__`` works (``_ops/_core/torch_function.py``); torch function
*modes* (``with MyMode(): ...`` seeing every call) do not: entering one raises NotImplementedError, rather than
running the block without the mode. The fuller module is built elsewhere (issue 54's part B)."""
from __future__ import annotations

from .tensor import Tensor

__all__ = ["TorchFunctionMode", "get_default_nowrap_functions"]


class TorchFunctionMode:
    """A mode that would see every torch call made inside its ``with`` block: defining one works, entering one
    raises (tinytorch's ops dispatch to Tensor subclasses only)."""

    def __torch_function__(self, func, types, args=(), kwargs=None):
        raise NotImplementedError

    def __enter__(self):
        raise NotImplementedError(f"{type(self).__name__}: torch function modes are not supported by tinytorch (its "
                                  "ops dispatch __torch_function__ to Tensor subclasses, not to modes)")

    def __exit__(self, *exc) -> None:
        return None


def get_default_nowrap_functions() -> set:
    """The Tensor attribute getters whose results a ``__torch_function__`` leaves unwrapped (PyTorch's: ``_base``,
    ``grad``, ``_grad``, those of them that are descriptors on tinytorch's Tensor)."""
    found = (getattr(Tensor, name, None) for name in ("_base", "grad", "_grad"))
    return {d.__get__ for d in found if hasattr(d, "__get__") and hasattr(d, "__set__")}
