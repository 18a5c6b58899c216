"""The Jacobian transforms: jacrev (vmap over vjp with one-hot cotangents), jacfwd (vmap over jvp with
one-hot tangents) and hessian (jacfwd over jacrev). Each first tries one vmap'ed pass
(``_vectorized.py``); inside vmap, or for a function using an op vmap lacks, it falls back to one
``grad`` call per Jacobian row or column on the leaves that ``_eager.py``'s ``_Inputs`` makes."""
from __future__ import annotations

from ..autograd.engine import grad as _autograd_grad
from ..autograd.grad_mode import _recording as enable_grad  # records inside inference mode too
from .._ops.creation.factory import zeros, zeros_like
from .._ops.shape.join import stack
from ..tensor import Tensor
from ._eager import _Inputs, _detach_tree, _finish, _grads, _physical, _split_aux
from .._ops._core.pytree import tree_flatten, tree_unflatten
from ._vectorized import VmapUnsupported, jac_columns, jac_rows


def _per_output(out_leaves, inp, column_fn):
    """For each output leaf and each differentiated leaf: the Jacobian block, batch dim first when batched."""

    blocks = []
    lead = 1 if inp.batch is not None else 0
    for o in out_leaves:
        po = _physical(o)
        row = []
        for k, x in enumerate(inp.leaves):
            cols = column_fn(po, k, x)
            lshape = tuple(po.shape[lead:]) + tuple(x.shape[lead:])
            if cols:
                blk = stack(cols, dim=lead)
            else:
                blk = zeros(tuple(po.shape[:lead]) + (0,) + tuple(x.shape[lead:]), dtype=po.dtype)
            row.append(blk.reshape(tuple(po.shape[:lead]) + lshape))
        blocks.append(row)
    return blocks


def jacrev(func, argnums=0, *, has_aux: bool = False, chunk_size=None, _preallocate_and_copy: bool = False):
    """A function returning the Jacobian of ``func`` w.r.t. ``argnums``: vmap over vjp with one-hot cotangents."""

    if chunk_size is not None and not (isinstance(chunk_size, int) and chunk_size > 0):
        raise ValueError("jacrev: `chunk_size` should be greater than 0.")

    def wrapper(*args, **kwargs):
        with enable_grad():
            inp = _Inputs(args, argnums, "jacrev")
            out = func(*inp.args, **kwargs)
            out, aux = _split_aux(out, has_aux, "jacrev")
            out_leaves, out_spec = tree_flatten(out)
            fast = _vectorized("rev", func, args, kwargs, inp, has_aux, out_leaves, chunk_size)
            if fast is not None:
                return _assemble(fast, inp, out_spec, len(out_leaves), has_aux, aux)
            # the loop below serves calls inside vmap and functions using ops outside vmap's table
            lead = 1 if inp.batch is not None else 0
            cache = {}

            def column_fn(po, k, x):
                key = id(po)
                if key not in cache:
                    flat = po.reshape(tuple(po.shape[:lead]) + (-1,))
                    rows = []
                    for j in range(flat.shape[lead]):
                        e = flat[:, j].sum() if lead else flat[j]
                        rows.append(_grads([e], inp.leaves))
                    cache[key] = rows
                return [r[k] for r in cache[key]]

            blocks = _per_output(out_leaves, inp, column_fn)
            flat_res = _finish([inp.wrap(b) for row in blocks for b in row], inp.leaves)
        return _assemble(flat_res, inp, out_spec, len(out_leaves), has_aux, aux)

    return wrapper


def _vectorized(mode, func, args, kwargs, inp, has_aux, out_leaves, chunk_size=None):
    """All Jacobian blocks (flat, output-major) from one vmap'ed vjp ("rev") or jvp ("fwd"); None when
    the call is itself inside vmap (no nested vmap here) or the function needs an op vmap lacks."""

    if inp.batch is not None or not all(isinstance(o, Tensor) for o in out_leaves):
        return None
    xs, counts = [], []
    for n in inp.nums:
        flat, _ = tree_flatten(args[n])
        xs.extend(flat)
        counts.append(len(flat))

    def fn_flat(new):
        a, i = list(args), 0
        for n, spec, c in zip(inp.nums, inp.specs, counts):
            a[n] = tree_unflatten(list(new[i:i + c]), spec)
            i += c
        res = func(*a, **kwargs)
        return tree_flatten(res[0] if has_aux else res)[0]

    try:
        blocks = (jac_rows(fn_flat, xs, out_leaves, chunk_size) if mode == "rev" else
                  jac_columns(fn_flat, xs, out_leaves))
    except VmapUnsupported:
        return None
    return [b for row in blocks for b in row]


def _assemble(flat_res, inp, out_spec, n_out, has_aux, aux):
    n_in = len(inp.leaves)
    per_out = [inp.regroup(flat_res[i * n_in:(i + 1) * n_in]) for i in range(n_out)]
    res = tree_unflatten(per_out, out_spec)
    if has_aux:
        return res, _detach_tree(aux, inp.leaves)
    return res


def jacfwd(func, argnums=0, has_aux: bool = False, *, randomness: str = "error"):
    """A function returning the Jacobian of ``func`` w.r.t. ``argnums``: vmap over jvp with one-hot tangents."""

    def wrapper(*args, **kwargs):
        with enable_grad():
            inp = _Inputs(args, argnums, "jacfwd")
            out = func(*inp.args, **kwargs)
            out, aux = _split_aux(out, has_aux, "jacfwd")
            out_leaves, out_spec = tree_flatten(out)
            fast = _vectorized("fwd", func, args, kwargs, inp, has_aux, out_leaves)
            if fast is not None:
                return _assemble(fast, inp, out_spec, len(out_leaves), has_aux, aux)
            # the loop below serves calls inside vmap and functions using ops outside vmap's table
            phys_out = [_physical(o) for o in out_leaves]
            lead = 1 if inp.batch is not None else 0
            us = [zeros_like(o).requires_grad_(True) for o in phys_out]
            vjps = _grads(phys_out, inp.leaves, us)
            cache = {}

            def column_fn(po, k, x):
                i = next(n for n, p in enumerate(phys_out) if p is po)
                if k not in cache:
                    cols = []
                    per = x[0].numel() if lead else x.numel()
                    for j in range(per):
                        basis = zeros_like(x)
                        flat = basis.view(tuple(x.shape[:lead]) + (-1,))
                        if lead:
                            flat[:, j] = 1
                        else:
                            flat[j] = 1
                        v = vjps[k]
                        if v.requires_grad:
                            jv = _autograd_grad([v], us, [basis], retain_graph=True, create_graph=True,
                                                allow_unused=True)
                        else:
                            jv = [None] * len(us)
                        cols.append([zeros_like(p) if g is None else g for g, p in zip(jv, phys_out)])
                    cache[k] = cols
                # J[:, j] columns go last: out.shape + in.shape
                return [c[i].reshape(tuple(po.shape[:lead]) + (-1,)) for c in cache[k]]


            blocks = []
            for po in phys_out:
                row = []
                for k, x in enumerate(inp.leaves):
                    cols = column_fn(po, k, x)
                    lshape = tuple(po.shape[lead:]) + tuple(x.shape[lead:])
                    if cols:
                        blk = stack(cols, dim=-1).reshape(tuple(po.shape[:lead]) + lshape)
                    else:
                        blk = zeros(tuple(po.shape[:lead]) + lshape, dtype=po.dtype)
                    row.append(blk)
                blocks.append(row)
            flat_res = _finish([inp.wrap(b) for row in blocks for b in row], inp.leaves)
        return _assemble(flat_res, inp, out_spec, len(out_leaves), has_aux, aux)

    return wrapper


def hessian(func, argnums=0):
    """The Hessian of scalar ``func``: forward-over-reverse, ``jacfwd(jacrev(func))``."""
    return jacfwd(jacrev(func, argnums), argnums)
