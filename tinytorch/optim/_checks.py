"""The shape check an update does before touching a loaded state tensor.

PyTorch's updates are in-place tensor ops, so a state tensor of the wrong shape (a state_dict from
another model, say) fails at ``step()`` with the broadcasting RuntimeError. tinytorch's updates
are numpy calls with ``out=``, which would fail with numpy's ValueError, or worse broadcast
silently; this gives PyTorch's error first."""
from __future__ import annotations

from .._ops._core.util import broadcast_shapes


def check_state_shape(state, grad) -> None:
    """PyTorch's error for ``state.op_(grad)`` when the shapes differ (state is ``a``)."""
    a, b = state._data.shape, grad._data.shape
    if a == b:
        return
    shape = broadcast_shapes(a, b)  # raises "The size of tensor a (..) must match ..."
    if shape != a:
        raise RuntimeError(f"output with shape [{', '.join(map(str, a))}] doesn't match the "
                           f"broadcast shape [{', '.join(map(str, shape))}]")
    # the state broadcasts over the gradient; the parameter update then cannot take it
    raise RuntimeError(f"output with shape [{', '.join(map(str, b))}] doesn't match the "
                       f"broadcast shape [{', '.join(map(str, a))}]")
