"""``vmap``: run a function written for one sample once on a whole batch, vectorised in numpy.

The batched arguments become ``BatchedTensor``s (``_ops/_core/batching.py``): a tensor whose physical data
carries the batch as dimension 0 while it reports the logical (per-sample) shape. Every declared op
carries its batching rule (``op(..., batch=rule)``): elementwise ops align their operands' logical
dimensions behind the batch, reductions and shape ops shift their ``dim`` arguments past it, matmul
puts the batch where numpy's broadcasting keeps it; the op then runs once on the physical arrays.
An op without a rule runs once per sample and stacks the results (PyTorch's fallback); an op that
cannot be batched (random ops, in-place writes into an unbatched tensor) raises vmap's error naming
it. A BatchedTensor's raw ``_data`` is never reachable.

The levels live in this thread's mode state: a call finds vmap through the op's own public function
or method, so no module attribute changes while vmap runs and two threads can vmap at once. The
func transforms (grad, vjp, jvp, jacrev, jacfwd) work inside vmap, which gives per-sample gradients."""
from __future__ import annotations

import functools

from .._ops._core.batching import level as _vmap_level
from ..tensor import Tensor
from .._ops._core.pytree import tree_flatten, tree_unflatten
from .._ops._core import batching as _batching
from .._ops._core.batching import BatchedTensor
from .._ops.shape.join import stack


# -- vmap itself -----------------------------------------------------------------------------------
def _fn_name(func) -> str:
    return getattr(func, "__name__", repr(func))


def _flat_in_dims(in_dims, args, func):
    if isinstance(in_dims, int) or in_dims is None:
        return [in_dims] * len(tree_flatten(list(args))[0])
    if not isinstance(in_dims, tuple):
        raise ValueError(f"vmap({_fn_name(func)}, in_dims={in_dims}, ...): expected `in_dims` to be int or a "
                         f"(potentially nested) tuple matching the structure of inputs, got: {type(in_dims)}.")
    if len(in_dims) != len(args):
        raise ValueError(f"vmap({_fn_name(func)}, in_dims={in_dims}, ...)(<inputs>): in_dims is not compatible with "
                         "the structure of `inputs`. in_dims has structure "
                         f"{len(in_dims)} but inputs has structure {len(args)}.")
    out = []
    for d, a in zip(in_dims, args):
        n = len(tree_flatten(a)[0])
        if isinstance(d, int) or d is None:
            out.extend([d] * n)
        else:
            dl, _ = tree_flatten(d)
            if len(dl) != n:
                raise ValueError(f"vmap({_fn_name(func)}, in_dims={in_dims}, ...)(<inputs>): in_dims is not "
                                 "compatible with the structure of `inputs`.")
            out.extend(dl)
    return out


def vmap(func, in_dims=0, out_dims=0, randomness: str = "error", *, chunk_size=None):
    """Vectorise ``func`` over dimension ``in_dims`` of its inputs, stacking results at ``out_dims``."""
    if randomness != "error" and randomness not in ("different", "same"):
        raise RuntimeError(f"Only allowed values for randomness are 'error', 'different', or 'same'. Got {randomness}")

    @functools.wraps(func)
    def wrapper(*args, **kwargs):
        if not args:
            raise ValueError(f"vmap({_fn_name(func)})(<inputs>): got no inputs. Maybe you forgot to add inputs, or "
                             "you are trying to vmap over a function with no inputs. The latter is unsupported.")
        leaves, spec = tree_flatten(list(args))
        dims = _flat_in_dims(in_dims, args, func)
        sizes = []
        for x, d in zip(leaves, dims):
            if d is None:
                continue
            if not isinstance(x, Tensor):
                raise ValueError(f"vmap({_fn_name(func)}, in_dims={in_dims}, ...)(<inputs>): Got in_dim={d} for an "
                                 f"input but the input is of type {type(x)}. We cannot vmap over non-Tensor "
                                 "arguments, please use None as the respective in_dim")
            if not -x.dim() <= d < x.dim() or x.dim() == 0:
                raise ValueError(f"vmap({_fn_name(func)}, in_dims={in_dims}, ...)(<inputs>): Got in_dim={d} for some "
                                 f"input, but that input is a Tensor of dimensionality {x.dim()} so expected in_dim "
                                 f"to satisfy -{x.dim()} <= in_dim < {x.dim()}.")
            sizes.append(x.shape[d])
        if not sizes:
            raise ValueError(f"vmap({_fn_name(func)}, in_dims={in_dims}, ...)(<inputs>): at least one input must be "
                             "batched (in_dims must not be None for every input).")
        if len(set(sizes)) != 1:
            raise ValueError("vmap: Expected all tensors to have the same size in the mapped dimension, got sizes "
                             f"{sizes} for the mapped dimension")
        bsz = sizes[0]
        with _vmap_level() as level:
            batched = [x if d is None else BatchedTensor(_move_to_front(x, d), bsz, level)
                       for x, d in zip(leaves, dims)]
            try:
                try:
                    out = func(*tree_unflatten(batched, spec), **kwargs)
                except RuntimeError as e:
                    if not getattr(e, "plain_method_retry", False) or _batching.wrapped_now():
                        raise
                    # a plain tensor's method (``neg_one.pow(k)``) read a batch: once more, with Tensor's methods
                    # sending such calls to the batching rules
                    with _batching.plain_methods():
                        out = func(*tree_unflatten(batched, spec), **kwargs)
            except RuntimeError as e:
                if not getattr(e, "per_sample_fallback", False):
                    raise
                out = _PER_SAMPLE
        if out is _PER_SAMPLE:
            return _per_sample(func, leaves, dims, spec, bsz, out_dims, kwargs)
        return _unbatch(out, out_dims, bsz, level, func)

    return wrapper


_PER_SAMPLE = object()


def _per_sample(func, leaves, dims, spec, bsz, out_dims, kwargs):
    """``func`` run on each sample in turn and its results stacked at ``out_dims``: what vmap computes, where
    tinytorch's batching cannot follow the function (a func transform inside nested vmap, or differentiating
    through a batched tensor the function closed over); the slow way, as PyTorch's own fallback for an op
    without a batching rule."""
    results = []
    for i in range(bsz):
        sample = [x if d is None else x.select(d, i) for x, d in zip(leaves, dims)]
        results.append(tree_flatten(func(*tree_unflatten(sample, spec), **kwargs)))
    flat, out_spec = results[0] if results else ([], None)
    per_leaf = [[r[0][j] for r in results] for j in range(len(flat))]
    if isinstance(out_dims, int) or out_dims is None:
        odims = [out_dims] * len(flat)
    else:
        odims, _ = tree_flatten(out_dims)
    out = []
    for values, d in zip(per_leaf, odims):
        if not all(isinstance(v, Tensor) for v in values):
            raise ValueError(f"vmap({_fn_name(func)}, ...): `{_fn_name(func)}` must only return Tensors, got type "
                             f"{type(values[0])}. Did you mean to set out_dims= to None for output?")
        out.append(values[0] if d is None else stack(values, d))
    return tree_unflatten(out, out_spec)


def _move_to_front(x, d):
    d = d % x.dim()
    if d == 0:
        return x
    # on an outer level's BatchedTensor this permute is that level's rule, so nesting composes
    return x.permute((d,) + tuple(i for i in range(x.dim()) if i != d))


def _unbatch(out, out_dims, bsz, level, func):
    leaves, spec = tree_flatten(out)
    if isinstance(out_dims, int) or out_dims is None:
        dims = [out_dims] * len(leaves)
    else:
        dims, _ = tree_flatten(out_dims)
        if len(dims) != len(leaves):
            raise ValueError(f"vmap({_fn_name(func)}, ..., out_dims={out_dims})(<inputs>): out_dims is not compatible "
                             "with the structure of `outputs`.")
    res = []
    for x, d in zip(leaves, dims):
        if d is None:
            if isinstance(x, BatchedTensor) and x._level == level:
                raise ValueError(f"vmap({_fn_name(func)}, ..., out_dims=None)(<inputs>): Cannot return a batched "
                                 "output with out_dims=None.")
            res.append(x)
            continue
        if not isinstance(x, Tensor):
            raise ValueError(f"vmap({_fn_name(func)}, ...): `{_fn_name(func)}` must only return Tensors, got type "
                             f"{type(x)}. Did you mean to set out_dims= to None for output?")
        if isinstance(x, BatchedTensor) and x._level == level:
            p = x._phys
        else:  # a result that does not depend on the batch is repeated for every sample
            p = x.unsqueeze(0).expand((bsz,) + tuple(x.shape))
        n = p.dim()
        d = d % n
        if d:
            p = p.permute(tuple(range(1, d + 1)) + (0,) + tuple(range(d + 1, n)))
        res.append(p)
    return tree_unflatten(res, spec)
