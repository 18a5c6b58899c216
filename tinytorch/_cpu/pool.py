"""Pooling's CPU path: ``_ops/nn/pool.py``'s steps the way its speed needs them. max_pool2d's windows as two
separable passes of running maxima over the flattened input (the cost independent of how short the rows
are), run plane by plane across threads, 2x2 windows with stride 2 as one compiled pass (``compiled/pool.py``);
the maxima's flat positions from corners cached per geometry, added across threads; max pooling's gradient
written across threads for windows that never overlap; adaptive average pooling's window sums as differences
of running sums."""
from __future__ import annotations

import numpy as np
from numpy.lib.stride_tricks import as_strided

from .._dtype import FLOATING_NP
from .._ops._core import paths
from .._ops._kernels import compiled as _compiled, parallel
from .._ops._kernels.parallel import SPLIT_FROM as _SPLIT_FROM
from .._ops.nn import pool

_window_max_ref = paths.reference_kernel(pool, "_window_max")
_window_sums_ref = paths.reference_kernel(pool, "_window_sums")


# -- max_pool2d's windows ----------------------------------------------------------------------------
def _at(a: np.ndarray, shape4, offset: int, s, plane_hw) -> np.ndarray:
    """The entries of flat ``a`` at every window's top-left corner (+ offset), as an (N, C, Ho, Wo) view."""
    hp, wp = plane_hw
    it = a.itemsize
    return as_strided(a[offset:], shape4, (shape4[1] * hp * wp * it, hp * wp * it, s[0] * wp * it, s[1] * it),
                      writeable=False)


def _max_separable(xp: np.ndarray, k, s, d, out_hw, w: int):
    """Window maxima and their first (row-major) argmax's offset from the window's corner in an input
    ``w`` wide (int64), as two 1-d passes over the flattened input.

    A pass along W takes the running max over the kw taps at every position, a pass along H does
    the same over the kh rows of that; both are whole-array numpy ops, so the cost does not depend
    on how short the rows are. NaN (where PyTorch's rule picks the NaN) goes the general way: None."""
    n, c, hp, wp = xp.shape
    flat = xp.reshape(-1)
    passes = []
    cur = flat
    for taps, step in ((k[1], d[1]), (k[0], d[0] * wp)):
        length = cur.size - (taps - 1) * step
        m = cur[:length]
        arg = None
        for t in range(1, taps):
            cand = cur[t * step:t * step + length]
            gt = cand > m  # strict: ties keep the first tap
            # on ties numpy returns its second operand: the earlier tap, as PyTorch (-0.0 vs 0.0)
            m = np.maximum(cand, m)
            arg = gt.view(np.int8) if arg is None else np.where(gt, np.int8(t), arg)
        if arg is None:
            arg = np.zeros(length, np.int8)
        passes.append(arg)
        cur = m
    shape4 = (n, c) + tuple(out_hw)
    vals = _at(cur, shape4, 0, s, (hp, wp)).copy()  # never a view of the input (kernel 1, stride 1)
    if np.isnan(vals).any():
        return None
    # the window offsets at every position first (contiguous whole-array ops), then one strided read of
    # the corners: per-corner strided views cost numpy an inner loop per output row
    ii, length = passes[1], passes[1].size
    jj = passes[0][:length]
    for i in range(1, k[0]):  # a select by arithmetic: np.where's branch on a random mask costs ~4 ns an entry
        cand = passes[0][i * d[0] * wp:i * d[0] * wp + length]
        jj = jj + (ii == i).view(np.int8) * (cand - jj)
    # the narrowest integers that hold the largest offset: these passes run over the whole input
    reach = max(k[0] - 1, 1) * d[0] * w + max(k[1] - 1, 1) * d[1]  # the multipliers must fit too
    local = ii.astype(np.int16 if reach < 2 ** 15 else np.int32)
    local *= d[0] * w
    local += jj if d[1] == 1 else jj.astype(local.dtype) * d[1]
    return vals, _at(local, shape4, 0, s, (hp, wp)).astype(np.int64)


def _max_separable_split(xp: np.ndarray, k, s, d, out_hw, w: int):
    """``_max_separable`` on runs of whole (padded) planes at a time, across threads when the input is
    large: every window lies inside one plane, so each plane's maxima and offsets are what the
    whole-array passes give. 2x2 windows with stride 2 take the compiled kernel where there is one
    (``compiled/pool.py``: the same maxima and offsets)."""
    n, c, hp, wp = xp.shape
    planes = n * c
    fast = None
    if k == (2, 2) and s == (2, 2) and d == (1, 1) and xp.dtype in _compiled.FLOATS and xp.flags.c_contiguous:
        fast = _compiled.family("pool")
    if fast is None and (xp.size < _SPLIT_FROM or planes < 4 or parallel.get_num_threads() < 2):
        return _max_separable(xp, k, s, d, out_hw, w)
    per = xp.reshape(planes, 1, hp, wp)
    vals = np.empty((planes, 1) + tuple(out_hw), xp.dtype)
    local = np.empty((planes, 1) + tuple(out_hw), np.int64)
    nan = []

    def body(p0, p1):
        if fast is not None:
            if fast.max_2x2(per[p0:p1, 0], w, vals[p0:p1, 0], local[p0:p1, 0]):
                nan.append(p0)
            return
        found = _max_separable(per[p0:p1], k, s, d, out_hw, w)
        if found is None:
            nan.append(p0)
        else:
            vals[p0:p1], local[p0:p1] = found

    parallel.parallel_for(planes, body, grain=max(2, parallel.ELEMENTWISE_GRAIN // (hp * wp)))
    if nan:
        return None
    shape4 = (n, c) + tuple(out_hw)
    return vals.reshape(shape4), local.reshape(shape4)


@paths.kernel(pool, "_window_max", when="floating inputs without NaN in any window (elsewhere the reference)",
              why="speed: two separable passes of whole-array maxima, planes across threads, 2x2 windows with "
                  "stride 2 compiled; a maximum is exact and ties keep the earlier tap, so the same values and offsets")
def window_max(xp, k, s, d, out_hw, w):
    if xp.dtype in FLOATING_NP:
        found = _max_separable_split(xp, k, s, d, out_hw, w)
        if found is not None:
            return found
    return _window_max_ref(xp, k, s, d, out_hw, w)


# -- the maxima's positions, and the gradient written back to them ----------------------------------------
_BASES: dict = {}


def _corners(shape4, w: int, s, p, plane: int) -> np.ndarray:
    """``pool._corner_index``, cached per geometry (a training loop pools the same shapes every step)."""
    key = (shape4, w, s, p, plane)
    base = _BASES.get(key)
    if base is None:
        base = pool._corner_index(shape4, w, s, p, plane)
        if len(_BASES) > 16:
            _BASES.clear()
        _BASES[key] = base
    return base


@paths.kernel(pool, "_positions", when="every max pooling that records its node",
              why="speed: the corners' indices cached per geometry, the offsets added across threads")
def positions(local, w, s, p, plane):
    corner = _corners(local.shape, w, s, p, plane)
    return parallel.elementwise(np.add, np.empty(local.shape, np.int64), corner, local).reshape(-1)


@paths.kernel(pool, "_scatter_unique", when="windows that never overlap, gradients of at least 3 dims and "
              "SPLIT_FROM/4 entries", why="speed: runs of whole planes across threads")
def scatter_unique(gd, flat, size):
    if gd.size < _SPLIT_FROM // 4 or gd.ndim < 3:
        return _scatter_unique_ref(gd, flat, size)
    # each window's index lies in its own plane, and the indices run plane by plane: runs of whole
    # output planes write disjoint runs of input planes, one run a thread
    out = np.zeros(size, gd.dtype)
    per = int(np.prod(gd.shape[-2:]))
    gd = gd.reshape(-1)

    def body(p0, p1):
        out[flat[p0 * per:p1 * per]] = gd[p0 * per:p1 * per]

    parallel.parallel_for(gd.size // per, body, grain=max(1, parallel.ELEMENTWISE_GRAIN // 4 // per))
    return out


_scatter_unique_ref = paths.reference_kernel(pool, "_scatter_unique")


# -- adaptive average pooling's window sums -----------------------------------------------------------------
def _prefix_window_sums(x: np.ndarray, bounds) -> np.ndarray:
    """The window sums of ``_window_sums`` from running sums (float64 keeps the differences exact enough),
    one pooled dim at a time: faster, but an inf or NaN turns into inf - inf = NaN in later windows."""
    out = x
    for i, (starts, ends) in enumerate(bounds):
        axis = x.ndim - len(bounds) + i
        run = np.cumsum(out, axis=axis, dtype=np.float64)
        lo = np.take(run, starts - 1, axis=axis)
        lo[(slice(None),) * axis + (starts == 0,)] = 0  # windows from the first entry subtract nothing
        out = np.take(run, ends - 1, axis=axis) - lo
    return out


@paths.kernel(pool, "_window_sums", ulps=8, scale="max", when="finite inputs (an inf or NaN: the reference's "
              "window by window sums)", why="speed: one running sum a pooled dim; float64 keeps the differences "
              "within a few ulps of the windows' own sums")
def window_sums(x, bounds):
    tot = _prefix_window_sums(x, bounds)
    if not np.isfinite(tot).all():  # few to check (one per output): the inf/NaN-safe sums then
        return _window_sums_ref(x, bounds)
    return tot
