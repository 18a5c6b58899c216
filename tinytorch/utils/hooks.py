"""``torch.utils.hooks``: the handle every ``register_*hook`` returns, and the marks on hooks that
serialization reads."""
from __future__ import annotations

import warnings

from ..autograd.node import RemovableHandle

__all__ = ["RemovableHandle", "unserializable_hook", "warn_if_has_hooks"]


def unserializable_hook(f):
    """Mark ``f`` as a hook that is not saved with its tensor (no warning when that tensor is saved)."""
    f.__torch_unserializable__ = True
    return f


def warn_if_has_hooks(tensor) -> None:
    """Warn about each backward hook of ``tensor`` that saving it would drop (PyTorch's wording)."""
    for hook in (tensor._hooks or {}).values():
        if not hasattr(hook, "__torch_unserializable__"):
            warnings.warn(f"backward hook {hook!r} on tensor will not be serialized.  If this is expected, you can "
                          "decorate the function with @torch.utils.hooks.unserializable_hook to suppress this warning",
                          stacklevel=2)
