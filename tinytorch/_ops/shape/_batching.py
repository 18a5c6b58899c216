"""vmap's rules for the shape, joining and indexing ops (``shape.py``, ``join.py``, ``index.py``,
``masked.py``, ``tri.py``): each shifts the op's dim arguments past the batch dim (physical dim 0)
and runs the op once on the physical tensors. A rule has the op's signature with the public function
first (see ``_core/batching.py``)."""
from __future__ import annotations

from ... import _dtype
from ...tensor import Tensor, _wrap_dim
from .._core.batching import expanded, level_of, unsupported


def shape_arg(shape) -> tuple:
    if len(shape) == 1 and isinstance(shape[0], (tuple, list)):
        return tuple(shape[0])
    return tuple(shape)


def reshape(op, input, *shape):
    # a view of the physical tensor may not exist where the logical one does: reshape, not view
    return input._wrap(input._phys.reshape((input._bsz,) + shape_arg(shape)))


def view(op, input, *shape, **given):
    shape = shape or tuple(given.values())
    if not (len(shape) == 1 and isinstance(shape[0], _dtype.dtype)):
        return reshape(op, input, *shape)
    dtype = shape[0]
    if input.dim() == 0:  # 0-d samples: one of them raises PyTorch's refusal where the element sizes differ
        op(input._phys[0], dtype)
    return input._wrap(op(input._phys, dtype))


def reshape_as(op, input, other):
    return reshape(op, input, tuple(other.shape))


def flatten(op, input, start_dim=0, end_dim=-1):
    if input.dim() == 0:
        return input._wrap(input._phys.reshape(input._bsz, 1))
    return input._wrap(op(input._phys, input._ld(start_dim), input._ld(end_dim)))


def unflatten(op, input, dim, sizes):
    return input._wrap(op(input._phys, input._ld(dim), sizes))


def squeeze(op, input, dim=None):
    if dim is None:
        kept = tuple(s for s in input.shape if s != 1)
        if len(kept) == input.dim():
            return input._wrap(input._phys)
        return input._wrap(input._phys.reshape((input._bsz,) + kept))
    if isinstance(dim, (tuple, list)):
        return input._wrap(op(input._phys, tuple(input._ld(d) for d in dim)))
    return input._wrap(op(input._phys, input._ld(dim)))


def unsqueeze(op, input, dim):
    return input._wrap(op(input._phys, _wrap_dim(dim, input.dim() + 1) + 1))


def transpose(op, input, dim0, dim1):
    return input._wrap(op(input._phys, input._ld(dim0), input._ld(dim1)))


def permute(op, input, *dims):
    return input._wrap(op(input._phys, (0,) + tuple(input._ld(d) for d in shape_arg(dims))))


def t(op, input):
    if input.dim() < 2:
        return input._wrap(input._phys)
    return input._wrap(input._phys.transpose(1, 2))


def expand(op, input, *sizes):
    sizes = shape_arg(sizes)
    k = input.dim()
    p = input._phys
    if len(sizes) > k:
        p = p.reshape((input._bsz,) + (1,) * (len(sizes) - k) + tuple(input.shape))
    return input._wrap(p.expand((input._bsz,) + sizes))


def expand_as(op, input, other):
    return expand(op, input, tuple(other.shape))


def repeat(op, input, *sizes):
    sizes = shape_arg(sizes)
    k = input.dim()
    p = input._phys
    if len(sizes) > k:
        p = p.reshape((input._bsz,) + (1,) * (len(sizes) - k) + tuple(input.shape))
    return input._wrap(op(p, (1,) + sizes))


def diagonal(op, input, offset=0, dim1=0, dim2=1):
    return input._wrap(op(input._phys, offset, input._ld(dim1), input._ld(dim2)))


def last_two(op, input, *args, **kwargs):
    """Ops on the last two dims (tril, triu): the physical op as it is."""
    return input._wrap(op(input._phys, *args, **kwargs))


def flip(op, input, *args, dims=None):
    dims = args if dims is None else (dims,)
    if len(dims) == 1 and isinstance(dims[0], (tuple, list)):
        dims = tuple(dims[0])
    return input._wrap(op(input._phys, tuple(input._ld(d) for d in dims)))


def _rewrap(input, res):
    if isinstance(res, (tuple, list)):
        return type(res)(input._wrap(r) for r in res)
    return input._wrap(res)


def select(op, input, dim, index):
    return input._wrap(op(input._phys, input._ld(dim), index))


def narrow(op, input, dim, start, length):
    return input._wrap(op(input._phys, input._ld(dim), start, length))


def split(op, input, split_size_or_sections, dim=0):
    return _rewrap(input, op(input._phys, split_size_or_sections, input._ld(dim)))


def chunk(op, input, chunks, dim=0):
    return _rewrap(input, op(input._phys, chunks, input._ld(dim)))


def unbind(op, input, dim=0):
    return _rewrap(input, op(input._phys, input._ld(dim)))


def join(op, tensors, dim=0, **kwargs):
    """cat and stack: every operand as a full physical batch, the dim shifted past the batch."""
    lead = level_of(tuple(tensors))
    if lead is None:
        raise unsupported(f"{op.__name__} with a batched argument other than the tensors")
    parts = [expanded(t, lead) for t in tensors]
    ref = next(t for t in tensors if isinstance(t, Tensor))
    nd = ref.dim() + (1 if op.__name__ == "stack" else 0)
    return lead._wrap(op(parts, _wrap_dim(dim, nd) + 1, **kwargs))


def gather(op, input, dim, index, **kwargs):
    lead = level_of((input, index))
    return lead._wrap(op(expanded(input, lead), _wrap_dim(dim, input.dim()) + 1, expanded(index, lead), **kwargs))


def scatter(op, input, dim, index, src=None, **kwargs):
    lead = level_of((input, index, src))
    if level_of(tuple(kwargs.values())) is not None:
        raise unsupported(f"{op.__name__} with a batched keyword argument")
    src = expanded(src, lead) if isinstance(src, Tensor) else src
    return lead._wrap(op(expanded(input, lead), _wrap_dim(dim, input.dim()) + 1, expanded(index, lead), src,
                         **kwargs))


def getitem(op, input, key):
    if not isinstance(key, tuple):
        key = (key,)
    for k in key:
        if isinstance(k, (Tensor, list)):
            raise unsupported("indexing with tensors or lists")
    return input._wrap(op(input._phys, (slice(None),) + key))
