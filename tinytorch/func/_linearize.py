"""``functionalize``, ``linearize`` and ``stack_module_state``.

tinytorch runs eagerly on numpy with no graph capture, so ``functionalize`` has no view or mutation
ops to rewrite: the program it returns is the program given, which already computes the same values
(and writes input mutations back to the inputs, as PyTorch's functionalized program does).
``linearize`` evaluates the function once and answers each tangent with ``jvp`` at the saved
primals (the function is run again per call; PyTorch instead replays a traced graph)."""
from __future__ import annotations

import functools

from .._ops.shape.join import stack
from ._eager import jvp
from .._ops._core.pytree import tree_flatten

_REMOVE_ERROR = (
    "functionalize(f, remove='mutations'): received invalid argument for remove={}. Valid options are:\n"
    "     remove='mutations': all inplace and out= operators will be removed from the program, and replaced with "
    "their out-of-place equivalents.\n"
    "     remove='mutations_and_views': In addition to the above, all aliasing operators {{view}} will be replaced "
    "with their non-aliasing counterparts, {{view}}_copy.\n")


def functionalize(func, *, remove: str = "mutations"):
    """``func`` itself, wrapped: eager numpy execution leaves nothing to functionalize."""
    if remove not in ("mutations", "mutations_and_views"):
        raise RuntimeError(_REMOVE_ERROR.format(remove))

    @functools.wraps(func)
    def wrapped(*args, **kwargs):
        return func(*args, **kwargs)
    return wrapped


def linearize(func, *primals):
    """(func(*primals), jvp_fn) with ``jvp_fn(*tangents) = J(primals) @ tangents``."""
    flat_primals, primals_spec = tree_flatten(primals)
    output, _ = jvp(func, primals, tuple(p.detach() * 0 for p in primals))
    shapes = tuple(p.shape for p in flat_primals)
    dtypes = tuple(p.dtype for p in flat_primals)

    def jvp_fn(*tangents):
        flat, spec = tree_flatten(tangents)
        if spec != primals_spec:
            raise RuntimeError(f"Expected the tangents {spec} to have the same argspec as the primals {primals_spec}")
        for i, t in enumerate(flat):
            if t.shape != shapes[i]:
                raise RuntimeError(f"tangent:{i} with shape {t.shape} in flattened pytree doesn't match the shape "
                                   f"{shapes[i]} of the corresponding primal.")
            if t.dtype != dtypes[i]:
                raise RuntimeError(f"tangent:{i} with dtype {t.dtype} in flattened pytree doesn't match the dtype "
                                   f"{dtypes[i]} of the corresponding primal.")
        return jvp(func, primals, tangents)[1]

    return output, jvp_fn


def _stacked_leaf(tensors, name: str):
    grads = [t.requires_grad for t in tensors]
    if any(grads) and not all(grads):
        raise RuntimeError(f"Expected {name} from each model to have the same .requires_grad")
    result = stack(tensors)
    if all(grads):
        result = result.detach().requires_grad_()
    return result


def stack_module_state(models):
    """({name: parameters of every model stacked}, {name: buffers stacked}), new leaves, for ``vmap``-ing
    ``functional_call`` over an ensemble."""
    if len(models) == 0:
        raise RuntimeError("stack_module_state: Expected at least one model, got 0.")
    if not (all(m.training for m in models) or all(not m.training for m in models)):
        raise RuntimeError("stack_module_state: Expected all models to have the same training/eval mode.")
    if not all(type(m) is type(models[0]) for m in models):
        raise RuntimeError("stack_module_state: Expected all models to be of the same class.")
    all_params = [dict(m.named_parameters()) for m in models]
    params = {k: _stacked_leaf(tuple(p[k] for p in all_params), k) for k in all_params[0]}
    all_buffers = [dict(m.named_buffers()) for m in models]
    buffers = {k: _stacked_leaf(tuple(b[k] for b in all_buffers), k) for k in all_buffers[0]}
    return params, buffers
