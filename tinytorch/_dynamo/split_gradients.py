"""Graph rewrites that merge several ops of a joint graph into one step of the plans, with the same floats.

**Gradients of a split, filled into one array.** A tensor cut into slices by ``select`` (``qkv[0]``, ``qkv[1]``,
``qkv[2]``: MultiheadAttention's packed projection) gets its gradient as PyTorch's graph writes it: each slice's
gradient padded with zeros to the whole shape (``select_backward``), the padded arrays added up. Before that,
each slice's gradient is often made contiguous (``clone``) only to be viewed in the slice's shape; after it, the
sum is often moved around (``unsqueeze``, ``transpose``, ``squeeze``) and made contiguous again::

    c = clone(transpose(dv, 0, 1))                      # \\
    s2 = select_backward(view(c, [L, N, E]), [3, L, N, E], 0, 2)   # | three times: three zero arrays
    total = add(add(s2, s1), s0)                        # /  and two passes over them
    out = clone(squeeze(transpose(unsqueeze(total, 3), 0, 3), 0))  # the sum moved and copied again

``fill_slots`` makes this one node, ``filled_slots``: it allocates the result once, in the layout of the last
clone where there is one, and writes each slice's gradient into its slot of it straight from the array the
first clone read (one strided pass each; a clone whose source an in-place op writes before the sum stays).
Every element of a slot is the value the sum gave it: its slice's gradient plus zeros, ``g + 0`` (which is
``g``, but for -0.0, which becomes +0.0); an element of a slot no slice filled is +0.0. Eager tinytorch fills
MultiheadAttention's gradient the same way (``_PackedSelectBackward``), so eager and compiled steps keep giving
the same floats."""
from __future__ import annotations

import math

import numpy as np

from .._ops.shape.conversions import contiguous_format
from ..fx.node import Node as FxNode
from ..tensor import _make

__all__ = ["fill_slots", "filled_slots"]

_ADD = "aten.add.Tensor"
_SELECT_BACKWARD = "aten.select_backward.default"
_CLONE = "aten.clone.default"
_VIEWS = ("aten.view.default", "aten._unsafe_view.default")
_MOVES = ("aten.unsqueeze.default", "aten.squeeze.dim", "aten.transpose.int", "aten.permute.default")


def _target(node) -> str:
    return str(node.target) if isinstance(node, FxNode) and node.op == "call_function" else ""


def _only_user(node):
    return next(iter(node.users)) if len(node.users) == 1 else None


def _padded_parts(add, inner: list):
    """The ``select_backward`` nodes an ``add`` tree sums (its inner adds appended to ``inner``), or None where
    the tree holds anything else, or a part is read elsewhere too."""
    if add.kwargs or len(add.args) != 2:  # (an alpha)
        return None
    parts = []
    for arg in add.args:
        if not isinstance(arg, FxNode) or _only_user(arg) is not add:
            return None
        if _target(arg) == _ADD:
            sub = _padded_parts(arg, inner)
            if sub is None:
                return None
            inner.append(arg)
            parts += sub
        elif _target(arg) == _SELECT_BACKWARD:
            parts.append(arg)
        else:
            return None
    return parts


def _dtype(node):
    val = node.meta.get("val") if isinstance(node, FxNode) else None
    return getattr(val, "dtype", None)


def _writes(node) -> bool:
    """Whether ``node`` writes into one of its inputs (an in-place ATen operator: ``add_``, ``copy_``...)."""
    name = _target(node)
    return name.startswith("aten.") and name.split(".")[1].endswith("_")


def _source(part, order: dict, writes: list, until: int):
    """What a ``select_backward`` reads, and the nodes that only copied it there: ``view(clone(x))`` read once
    each is ``x`` itself (the copy goes straight into the slot, row after row as the view reads it), unless an
    in-place op (positions ``writes``) runs between the clone and the fill (at ``until``), which could change
    ``x`` in between."""
    src = part.args[0]
    if _target(src) in _VIEWS and _only_user(src) is part:
        copy = src.args[0]
        if (_target(copy) == _CLONE and _only_user(copy) is src and isinstance(copy.args[0], FxNode)
                and not any(order[copy] < w < until for w in writes)):
            return copy.args[0], [src, copy]
    return src, []


def _moved_axes(start, ndim: int, sizes: list):
    """Where the single chain of unsqueeze/squeeze/transpose/permute nodes from ``start`` puts each of its
    ``ndim`` axes, and the contiguous clone it ends in: ``(axes, clone, chain)``, ``axes`` the result's axes in
    order, each the original axis or None (an inserted axis of size 1); None where there is no such chain."""
    axes: list = list(range(ndim))
    chain, node = [], start
    while True:
        user = _only_user(node)
        name = _target(user)
        if name == _CLONE:
            if user.kwargs.get("memory_format") is not contiguous_format or len(user.args) != 1:
                return None
            return axes, user, chain
        if name not in _MOVES:
            return None
        rest = user.args[1:]
        n = len(axes)
        if name == "aten.unsqueeze.default":
            d = rest[0] + n + 1 if rest[0] < 0 else rest[0]
            axes.insert(d, None)
        elif name == "aten.squeeze.dim":
            d = rest[0] % n
            if axes[d] is None:
                del axes[d]
            elif sizes[axes[d]] == 1:  # (an original axis leaving: not taken)
                return None
            # (a longer axis: squeeze leaves it)
        elif name == "aten.transpose.int":
            a, b = rest[0] % n, rest[1] % n
            axes[a], axes[b] = axes[b], axes[a]
        else:
            axes = [axes[d % n] for d in rest[0]]
        chain.append(user)
        node = user


def fill_slots(graph) -> None:
    """Rewrite each sum of zero-padded slice gradients (``select_backward`` nodes added up, each read only by
    that sum) into one ``filled_slots`` node; see the module's docstring."""
    gone: set = set()
    order = {n: i for i, n in enumerate(graph.nodes)}
    writes = [i for n, i in order.items() if _writes(n)]
    for root in reversed(list(graph.nodes)):
        if root in gone or _target(root) != _ADD:
            continue
        inner: list = []
        parts = _padded_parts(root, inner)
        if not parts or len(parts) < 2:
            continue
        sizes, dim = list(parts[0].args[1]), parts[0].args[2]
        dtype = _dtype(root)
        if (dtype is None or not dtype.is_floating_point or any(
                list(p.args[1]) != sizes or p.args[2] != dim or _dtype(p) != dtype for p in parts)):
            continue
        dim %= len(sizes)
        slots = [p.args[3] % sizes[dim] for p in parts]
        if len(set(slots)) != len(slots):
            continue
        sources, copies = zip(*(_source(p, order, writes, order[root]) for p in parts))
        moved = _moved_axes(root, len(sizes), sizes)
        replaced, kwargs, chain = root, {}, []
        if moved is not None:
            axes, replaced, chain = moved
            kwargs = {"axes": axes}
        with graph.inserting_before(root):  # (where the sum was: the sources read where it read them)
            fused = graph.call_function(filled_slots, (list(sources), slots, sizes, dim), kwargs)
        fused.meta["val"] = replaced.meta.get("val")
        replaced.replace_all_uses_with(fused)
        dead = [replaced, *reversed(chain), root, *reversed(inner), *parts, *(n for c in copies for n in c)]
        for node in dict.fromkeys(dead):
            graph.erase_node(node)
            gone.add(node)


def _squeezed(a: np.ndarray) -> np.ndarray:
    return a.reshape([s for s in a.shape if s != 1]) if 1 in a.shape else a


def _common_split(a: tuple, b: tuple):
    """The finest shape both ``a`` and ``b`` (no axis of size 1, the same count) split into, each axis of either
    a run of its axes; None where there is none ((2, 3) and (3, 2))."""
    def bounds(shape):
        out, p = set(), 1
        for s in reversed(shape):
            p *= s
            out.add(p)
        return out

    edges = sorted(bounds(a) | bounds(b))
    shape, below = [], 1
    for e in edges:
        if e % below:
            return None
        shape.append(e // below)
        below = e
    return shape[::-1]


def _copy(src: np.ndarray, dst: np.ndarray) -> None:
    """``dst[...] = src`` where ``src`` holds ``dst``'s elements row after row (any shape of that count)."""
    if src.shape != dst.shape:
        s, d = _squeezed(src), _squeezed(dst)
        shape = _common_split(s.shape, d.shape)
        split = None if shape is None else d.reshape(shape)  # (axes split only: numpy makes a view of any strides)
        if split is None or not np.may_share_memory(split, d):
            src = src.reshape(dst.shape)
        else:
            src, dst = s.reshape(shape), split
    np.copyto(dst, src)


def filled_slots(sources: list, slots: list, sizes: list, dim: int, axes=None):
    """The sum of ``select_backward(g, sizes, dim, slot)`` over the ``sources`` ``g`` and their ``slots``
    (distinct), each ``g`` given in any shape of the slot's count (its elements row after row); with ``axes``,
    that sum moved as ``_moved_axes`` says and made contiguous. One array allocated, each source copied into
    it once, then one contiguous pass adds the zero."""
    data = [g._data for g in sources]
    dtype = np.result_type(*data)
    full = len(slots) == sizes[dim]
    shape = sizes if axes is None else [1 if a is None else sizes[a] for a in axes]
    buf = (np.empty if full else np.zeros)(shape, dtype)
    out = buf
    if axes is not None:
        order = [a for a in axes if a is not None]
        out = buf.reshape([sizes[a] for a in order]).transpose(np.argsort(order))
    if math.prod(sizes):
        for g, slot in zip(data, slots):
            _copy(g, out[(slice(None),) * dim + (slot,)])
        # the sum's value: each element plus zeros, g + 0 (-0.0 becomes +0.0), in one pass over the whole array
        np.add(buf, dtype.type(0), out=buf)
    return _make(buf)

