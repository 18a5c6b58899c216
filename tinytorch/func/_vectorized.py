"""Whole Jacobians in one batched pass, as ``torch.func`` computes them.

``jacrev`` is ``vmap`` over a vector-Jacobian product whose cotangents are the rows of the identity
(one one-hot cotangent per output element); ``jacfwd`` is ``vmap`` over a Jacobian-vector product
whose tangents are the one-hot columns. tinytorch's ``vjp``/``jvp`` inside ``vmap`` work on the
physical arrays (batch first), so the primals go in as N stride-0 copies (``expand``: no memory), the
function runs once on the batch in numpy and one backward pass gives all N rows, instead of N Python
passes through the graph.

``vmap`` only knows the ops in its table; for anything else it raises a RuntimeError naming vmap.
The callers catch that (``VmapUnsupported``) and fall back to their loop over elements, so every
function still gets its Jacobian, just without the speed-up."""
from __future__ import annotations

from .._ops.creation.factory import eye
from .._ops.shape.join import cat
from ..tensor import Tensor
from . import _eager  # vjp/jvp, looked up when called
from ._vmap import vmap


class VmapUnsupported(Exception):
    """The function uses an op outside vmap's table: compute the Jacobian element by element."""


def _numel(shape) -> int:
    n = 1
    for d in shape:
        n *= d
    return n


def _one_hot(n: int, widths, shapes, dtypes):
    """Rows of the n x n identity split column-wise into (n, *shape) pieces, one per (width, shape)."""

    basis, pieces, start = eye(n, dtype=dtypes[0]) if n else None, [], 0
    for w, s, d in zip(widths, shapes, dtypes):
        pieces.append(basis[:, start:start + w].to(d).reshape((n,) + tuple(s)))
        start += w
    return pieces


def _copies(xs, n: int):
    return [x.unsqueeze(0).expand((n,) + tuple(x.shape)) for x in xs]


def _run(batched_fn, *args):
    try:
        return vmap(batched_fn)(*args)
    except RuntimeError as e:
        if "vmap" in str(e):
            raise VmapUnsupported(str(e)) from e
        raise


def _usable(xs, outs, width: int) -> bool:
    # one row (or column) is one pass either way: the loop does it without the batch copies
    return all(isinstance(t, Tensor) and t.is_floating_point() for t in list(xs) + list(outs)) and width > 1


def jac_rows(fn_flat, xs, outs, chunk_size=None):
    """Reverse mode: blocks[i][k] = d outs[i] / d xs[k], shaped outs[i].shape + xs[k].shape.

    ``fn_flat(list_of_tensors) -> list_of_tensors``; ``outs`` are its outputs at ``xs`` (for the shapes).
    ``chunk_size`` rows per batched pass bounds memory: the forward runs on as many copies as rows."""

    widths = [o.numel() for o in outs]
    n = sum(widths)
    if not _usable(xs, outs, n):
        raise VmapUnsupported("non-float, single or empty outputs")
    cots = _one_hot(n, widths, [o.shape for o in outs], [o.dtype for o in outs])
    k = len(xs)

    def row(*a):
        _, pull = _eager.vjp(lambda *p: tuple(fn_flat(list(p))), *a[:k])
        return pull(tuple(a[k:]))

    step = n if chunk_size is None else chunk_size
    parts = [_run(row, *_copies(xs, min(step, n - s)), *[c[s:s + step] for c in cots]) for s in range(0, n, step)]
    rows = parts[0] if len(parts) == 1 else [cat([p[j] for p in parts], 0) for j in range(len(xs))]
    blocks, start = [], 0
    for o, w in zip(outs, widths):
        blocks.append([r[start:start + w].reshape(tuple(o.shape) + tuple(x.shape)) for r, x in zip(rows, xs)])
        start += w
    return blocks


def jac_columns(fn_flat, xs, outs):
    """Forward mode: the same blocks as ``jac_rows``, one Jacobian-vector product per input element."""

    widths = [x.numel() for x in xs]
    m = sum(widths)
    if not _usable(xs, outs, m):
        raise VmapUnsupported("non-float, single or empty inputs")
    tans = _one_hot(m, widths, [x.shape for x in xs], [x.dtype for x in xs])
    k = len(xs)

    def column(*a):
        return _eager.jvp(lambda *p: tuple(fn_flat(list(p))), tuple(a[:k]), tuple(a[k:]))[1]

    cols = _run(column, *_copies(xs, m), *tans)
    blocks = []
    for o, c in zip(outs, cols):
        row, start = [], 0
        for x, w in zip(xs, widths):
            piece = c[start:start + w]                       # (w, *out.shape): columns first
            piece = piece.permute(tuple(range(1, piece.dim())) + (0,))
            row.append(piece.reshape(tuple(o.shape) + tuple(x.shape)))
            start += w
        blocks.append(row)
    return blocks
