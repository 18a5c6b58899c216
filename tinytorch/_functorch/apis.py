"""PyTorch's ``torch._functorch.apis``: the transforms' public entry points, with ``chunk_vmap``."""
from ..func import grad, grad_and_value, vmap
from .._ops.shape.join import cat
from ..utils import _pytree as pytree

__all__ = ["chunk_vmap", "grad", "grad_and_value", "vmap"]


def chunk_vmap(func, in_dims=0, out_dims=0, randomness: str = "error", chunks: int = 2):
    """``vmap(func)`` run on ``chunks`` pieces of the batch in turn (less memory at once), the pieces' results
    joined along ``out_dims``."""
    batched = vmap(func, in_dims, out_dims, randomness=randomness)
    if chunks == 1:
        return batched

    def run(*args):
        dims = in_dims if isinstance(in_dims, tuple) else (in_dims,) * len(args)
        pieces = [arg.chunk(chunks, dim) if dim is not None else None for arg, dim in zip(args, dims)]
        n = min(len(p) for p in pieces if p is not None)
        outs = [batched(*(arg if p is None else p[i] for arg, p in zip(args, pieces))) for i in range(n)]
        flat = [pytree.tree_flatten(o) for o in outs]
        spec = flat[0][1]
        odims = out_dims if isinstance(out_dims, tuple) else (out_dims,) * len(flat[0][0])
        return pytree.tree_unflatten([cat(list(column), dim) for column, dim in
                                      zip(zip(*(leaves for leaves, _ in flat)), odims)], spec)
    return run
