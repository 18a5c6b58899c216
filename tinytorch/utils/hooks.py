"""``torch.utils.hooks``: the hook handle every ``register_*_hook`` returns, the module backward-hook helper,
and the marker for hooks that pickling may drop. The classes are the ones tinytorch's own hooks use."""
from __future__ import annotations

import warnings

from ..autograd.node import RemovableHandle
from ..nn.modules._hooks import BackwardHook

__all__ = ["RemovableHandle", "unserializable_hook", "warn_if_has_hooks", "BackwardHook"]


def unserializable_hook(f):
    """Mark ``f`` as a hook that is not saved with its tensor: ``warn_if_has_hooks`` stays quiet about it."""
    f.__torch_unserializable__ = True
    return f


def warn_if_has_hooks(tensor) -> None:
    """Warn, as PyTorch does before pickling a tensor, for each of its hooks that will not be saved."""
    for hook in (tensor._hooks or {}).values():
        if not hasattr(hook, "__torch_unserializable__"):
            warnings.warn(f"backward hook {hook!r} on tensor will not be serialized.  If this is expected, you can "
                          "decorate the function with @torch.utils.hooks.unserializable_hook to suppress this warning",
                          stacklevel=2)
