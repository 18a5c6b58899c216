"""Bilinear (and nearest) 2-d grid sampling, forward and backward, with PyTorch's CPU floats (``GridSamplerKernel.cpp``'s
vectorized ``ApplyGridSample<.., 2, Bilinear, ..>`` as PyTorch's FMA builds compile it: the compiler fuses
each ``a * b + c`` of that code into one rounding): every step rounded in the tensors' dtype as that kernel
rounds it (the unnormalization ``fma(g + 1, s, -0.5)``, the corner weights ``s * e`` ..., the interpolation
a chain of fused multiply-adds corner by corner), the grid gradient summed over channels one at a time with
fused multiply-adds, and the input gradient
scattered in the kernel's order: the output points in blocks of one vector (8 float32 / 4 float64 lanes),
each block's north-west contributions first, then north-east, south-west, south-east. A composite of
tensor ops computes the same function but rounds otherwise, and a spatial transformer trained in float32
then drifts from PyTorch's losses within an epoch."""
from __future__ import annotations

import numpy as np

from ..._meta_array import MetaArray
from ..._random.fpmath import fma32, fma64

ZEROS, BORDER, REFLECTION = 0, 1, 2
_LANES = {np.dtype(np.float32): 8, np.dtype(np.float64): 4}  # a 256-bit vector (ATen's AVX2 and DEFAULT builds)


def _fma(a, b, c):
    """a * b + c with one rounding, in a's dtype (float32 or float64)."""
    if type(a) is MetaArray:
        return a * b + c  # data-less: only the shape and dtype are wanted (fma32's np.asarray would read values)
    dt = np.result_type(a, b, c)
    return fma32(a, b, c) if dt == np.float32 else fma64(a, b, c)


class _Location:
    """``ComputeLocation``: grid values -> source coordinates along one dim (and d coord / d grid)."""

    def __init__(self, size: int, padding: int, align_corners: bool, dt) -> None:
        t = dt.type
        self.dt, self.padding, self.align = dt, padding, align_corners
        self.max_val = t(size - 1)
        if align_corners:
            self.scale, self.low, self.twice_span, self.empty = t(size - 1) / t(2), t(0), t(size - 1) * t(2), size <= 1
        else:
            self.scale, self.low, self.twice_span, self.empty = t(size) / t(2), t(-0.5), t(size) * t(2), size <= 0

    def _unnormalize(self, g: np.ndarray) -> np.ndarray:
        t = self.dt.type
        if self.align:
            return (g + t(1)) * self.scale
        return _fma(g + t(1), np.full(g.shape, self.scale, self.dt), t(-0.5)).astype(self.dt, copy=False)

    def _clip(self, x: np.ndarray) -> np.ndarray:
        return np.where(np.isnan(x), self.dt.type(0), np.minimum(self.max_val, np.maximum(self.dt.type(0), x)))

    def _clip_grad(self, x: np.ndarray):
        lo = np.maximum(x, self.dt.type(0))
        res = np.minimum(lo, self.max_val)
        inside = (lo != 0) & (res != self.max_val)
        return res, inside

    def _reflect(self, x: np.ndarray, with_grad: bool):
        t = self.dt.type
        if self.empty:
            z = np.zeros_like(x)
            return (z, z) if with_grad else z
        shifted = x - self.low if not self.align else x
        neg = shifted < 0
        a = np.abs(shifted)
        flips = np.trunc(a / self.twice_span)
        extra = _fma(-flips, np.full(a.shape, self.twice_span, self.dt), a).astype(self.dt, copy=False)
        other = self.twice_span - extra
        more = extra > other
        res = np.where(more, other, extra)
        if not self.align:
            res = res + self.low
        if not with_grad:
            return res
        return res, np.where(more ^ neg, t(-1), t(1))

    def apply(self, g: np.ndarray) -> np.ndarray:
        x = self._unnormalize(g)
        if self.padding == BORDER:
            return self._clip(x)
        if self.padding == REFLECTION:
            return self._clip(self._reflect(x, False))
        return x

    def apply_get_grad(self, g: np.ndarray):
        x = self._unnormalize(g)
        t = self.dt.type
        if self.padding == ZEROS:
            return x, np.full(x.shape, self.scale, dtype=self.dt)
        if self.padding == BORDER:
            res, inside = self._clip_grad(x)
            return res, np.where(inside, self.scale, t(0))
        res, sign = self._reflect(x, True)
        mult = sign * self.scale
        res, inside = self._clip_grad(res)
        return res, np.where(inside, mult, t(0))


def _params(inp_shape, x, y, padding: int):
    """The corner weights, their masks and flat positions (``compute_interp_params``)."""
    h, w_ = inp_shape[-2:]
    t = x.dtype.type
    with np.errstate(invalid="ignore"):
        x_w, y_n = np.floor(x), np.floor(y)
        w = x - x_w
        e = t(1) - w
        n = y - y_n
        s = t(1) - n
        nw, ne, sw, se = s * e, s * w, n * e, n * w
        finite = np.isfinite(x_w) & np.isfinite(y_n)
        ix = np.where(finite, x_w, -2).astype(np.int64)
        iy = np.where(finite, y_n, -2).astype(np.int64)
    inb = padding != ZEROS
    w_ok = (ix > -1) & (ix < w_) if not inb else np.ones(ix.shape, dtype=bool)
    n_ok = (iy > -1) & (iy < h) if not inb else np.ones(iy.shape, dtype=bool)
    e_ok = (ix + 1 < w_) if inb else (ix + 1 > -1) & (ix + 1 < w_)
    s_ok = (iy + 1 < h) if inb else (iy + 1 > -1) & (iy + 1 < h)
    masks = (w_ok & n_ok, e_ok & n_ok, w_ok & s_ok, e_ok & s_ok)
    pos = (iy * w_ + ix, iy * w_ + ix + 1, (iy + 1) * w_ + ix, (iy + 1) * w_ + ix + 1)
    return (n, s, w, e), (nw, ne, sw, se), masks, pos


def _gather(flat: np.ndarray, pos: np.ndarray, mask: np.ndarray) -> np.ndarray:
    """``flat`` (N, C, H*W) read at ``pos`` (N, P) where ``mask``, zero elsewhere: (N, C, P)."""
    safe = np.where(mask, pos, 0)
    vals = np.take_along_axis(flat, safe[:, None, :], axis=2)
    return np.where(mask[:, None, :], vals, flat.dtype.type(0))


def forward(inp: np.ndarray, grid: np.ndarray, padding: int, align_corners: bool) -> np.ndarray:
    """Bilinear grid_sample of ``inp`` (N, C, H, W) at ``grid`` (N, Ho, Wo, 2): (N, C, Ho, Wo)."""
    n_, c, h, w = inp.shape
    ho, wo = grid.shape[1:3]
    dt = inp.dtype
    g = grid.reshape(n_, ho * wo, 2)
    x = _Location(w, padding, align_corners, dt).apply(g[..., 0])
    y = _Location(h, padding, align_corners, dt).apply(g[..., 1])
    _, weights, masks, pos = _params(inp.shape, x, y, padding)
    flat = inp.reshape(n_, c, h * w)
    out = None
    for wt, m, p in zip(weights, masks, pos):  # nw * v, then fma(ne, v, .), fma(sw, ...), fma(se, ...)
        v = _gather(flat, p, m)
        wb = np.broadcast_to(wt[:, None, :], v.shape)
        out = v * wb if out is None else _fma(v, wb, out).astype(dt, copy=False)
    return out.reshape(n_, c, ho, wo)


def backward(gout: np.ndarray, inp: np.ndarray, grid: np.ndarray, padding: int, align_corners: bool,
             need_input: bool, need_grid: bool):
    """(d input, d grid) of the bilinear grid_sample for the output gradient ``gout`` (N, C, Ho, Wo)."""
    n_, c, h, w = inp.shape
    ho, wo = grid.shape[1:3]
    dt = inp.dtype
    npts = ho * wo
    g = grid.reshape(n_, npts, 2)
    x, gx_mult = _Location(w, padding, align_corners, dt).apply_get_grad(g[..., 0])
    y, gy_mult = _Location(h, padding, align_corners, dt).apply_get_grad(g[..., 1])
    (nn_, s, ww, e), weights, masks, pos = _params(inp.shape, x, y, padding)
    go = gout.reshape(n_, c, npts)
    g_inp = g_grid = None
    if need_input:
        g_inp = np.zeros((n_, c, h * w), dtype=dt)
        lanes = _LANES.get(dt, 8)
        blocks = -(-npts // lanes)
        padded = blocks * lanes

        def blocked(a, fill):  # (..., P) -> (..., blocks, 1, lanes)
            a = np.concatenate([a, np.full(a.shape[:-1] + (padded - npts,), fill, dtype=a.dtype)], -1)
            return a.reshape(a.shape[:-1] + (blocks, 1, lanes))

        vals = np.concatenate([blocked(wt[:, None, :] * go, 0) for wt in weights], axis=-2)  # (N, C, B, 4, L)
        where = np.concatenate([blocked(p, 0) for p in pos], axis=-2)                          # (N, B, 4, L)
        ok = np.concatenate([blocked(m, False) for m in masks], axis=-2)                       # (N, B, 4, L)
        base = (np.arange(n_)[:, None] * c + np.arange(c)[None, :]) * (h * w)                  # (N, C)
        index = base[:, :, None, None, None] + where[:, None]
        sel = np.broadcast_to(ok[:, None], index.shape)
        np.add.at(g_inp.reshape(-1), index[sel], vals[sel])  # in the kernel's order: block, corner, lane
        g_inp = g_inp.reshape(n_, c, h, w)
    if need_grid:
        flat = inp.reshape(n_, c, h * w)
        nw_v, ne_v, sw_v, se_v = (_gather(flat, p, m) for p, m in zip(pos, masks))
        gx = np.zeros((n_, npts), dtype=dt)
        gy = np.zeros((n_, npts), dtype=dt)
        for k in range(c):  # channel by channel, as the kernel sums (each a * b + c fused)
            gk = go[:, k]
            ix = _fma(se_v[:, k] - sw_v[:, k], nn_, (ne_v[:, k] - nw_v[:, k]) * s).astype(dt, copy=False)
            iy = _fma(se_v[:, k] - ne_v[:, k], ww, (sw_v[:, k] - nw_v[:, k]) * e).astype(dt, copy=False)
            gx = _fma(ix, gk, gx).astype(dt, copy=False)
            gy = _fma(iy, gk, gy).astype(dt, copy=False)
        g_grid = np.stack([gx * gx_mult, gy * gy_mult], axis=-1).reshape(grid.shape)
    return g_inp, g_grid


# -- the order the kernel visits the output points: blocks of one vector --------------------------------
def _blocks(grid: np.ndarray):
    """(block, lane) of each output point (flattened H*W order) as the kernel's grid iterator forms them: the
    flattened points in vectors when the grid's (H, W, 2) (or its (H, W) planes) are contiguous, else each row
    in vectors of its own."""
    n_, ho, wo = grid.shape[:3]
    lanes = _LANES.get(grid.dtype, 8)
    st = np.array(grid.strides[1:]) // grid.itemsize
    contiguous = (st[2] == 1 and st[1] == 2 and st[0] == 2 * wo) or ho * wo <= 1
    planes = (st[1] == 1 or wo == 1) and (st[0] == wo or ho == 1)
    p = np.arange(ho * wo)
    if contiguous or planes:
        return p // lanes, p % lanes
    h, w = p // wo, p % wo
    per_row = -(-wo // lanes)
    return h * per_row + w // lanes, w % lanes


def _scatter(g_inp: np.ndarray, grid: np.ndarray, parts: list) -> None:
    """Add the contributions ``parts`` [(values (N, C, P), positions (N, P), masks (N, P)), ...] into ``g_inp``
    (N, C, H*W) in the kernel's order: block by block, within a block part by part, lane by lane."""
    n_, c, hw = g_inp.shape
    block, lane = _blocks(grid)
    npts = block.shape[0]
    lanes = int(lane.max()) + 1 if npts else 1
    key = np.concatenate([(block * len(parts) + i) * lanes + lane for i in range(len(parts))])
    order = np.argsort(key, kind="stable")
    vals = np.concatenate([v for v, _, _ in parts], axis=-1)[..., order]            # (N, C, K)
    pos = np.concatenate([p for _, p, _ in parts], axis=-1)[:, order]               # (N, K)
    ok = np.concatenate([m for _, _, m in parts], axis=-1)[:, order]                # (N, K)
    base = (np.arange(n_)[:, None] * c + np.arange(c)[None, :]) * hw
    index = base[:, :, None] + pos[:, None, :]
    sel = np.broadcast_to(ok[:, None, :], index.shape)
    np.add.at(g_inp.reshape(-1), index[sel], vals[sel])


# -- nearest ------------------------------------------------------------------------------------------------
def _nearest(inp_shape, grid, padding, align_corners):
    n_, c, h, w = inp_shape
    g = grid.reshape(n_, -1, 2)
    x = np.rint(_Location(w, padding, align_corners, grid.dtype).apply(g[..., 0]))
    y = np.rint(_Location(h, padding, align_corners, grid.dtype).apply(g[..., 1]))
    with np.errstate(invalid="ignore"):
        finite = np.isfinite(x) & np.isfinite(y)
        ix = np.where(finite, x, -1).astype(np.int64)
        iy = np.where(finite, y, -1).astype(np.int64)
    mask = (ix > -1) & (ix < w) & (iy > -1) & (iy < h) if padding == ZEROS else finite
    return iy * w + ix, mask


def nearest_forward(inp: np.ndarray, grid: np.ndarray, padding: int, align_corners: bool) -> np.ndarray:
    n_, c, h, w = inp.shape
    pos, mask = _nearest(inp.shape, grid, padding, align_corners)
    return _gather(inp.reshape(n_, c, h * w), pos, mask).reshape(n_, c, *grid.shape[1:3])


def nearest_backward(gout, inp, grid, padding, align_corners, need_input, need_grid):
    n_, c, h, w = inp.shape
    g_inp = None
    if need_input:
        pos, mask = _nearest(inp.shape, grid, padding, align_corners)
        g_inp = np.zeros((n_, c, h * w), dtype=inp.dtype)
        _scatter(g_inp, grid, [(gout.reshape(n_, c, -1), pos, mask)])
        g_inp = g_inp.reshape(inp.shape)
    return g_inp, (np.zeros_like(grid) if need_grid else None)
