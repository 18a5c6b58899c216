"""``torch._higher_order_ops.map.map(f, xs, *args)``: ``f`` applied to each slice of ``xs`` along its first
dimension (``xs`` a tensor or a pytree of them), the results stacked; and the pytree helpers the installed
``functorch.experimental.control_flow`` imports with it."""
from .._ops.shape.join import stack
from ..utils import _pytree as pytree

__all__ = ["map"]


def _unstack_pytree(xs) -> list:
    """``xs`` (a pytree of tensors of one first size) as one pytree per index of that size."""
    leaves, spec = pytree.tree_flatten(xs)
    if not leaves:
        raise RuntimeError(f"Map operator requires at least one tensor, but got {xs}.")
    n = leaves[0].shape[0]
    if any(t.shape[0] != n for t in leaves):
        raise RuntimeError(f"Leaves of xs must have same leading dimension size {[t.shape for t in leaves]}")
    return [pytree.tree_unflatten([t[i] for t in leaves], spec) for i in range(n)]


def _stack_pytree(pytrees: list):
    """The pytrees (of one structure) as one, each leaf the stack of theirs."""
    flat = [pytree.tree_flatten(p) for p in pytrees]
    spec = flat[0][1]
    return pytree.tree_unflatten([stack(list(column)) for column in zip(*(leaves for leaves, _ in flat))], spec)


def map(f, xs, *args):  # noqa: A001 - PyTorch's name
    return _stack_pytree([f(x, *args) for x in _unstack_pytree(xs)])
