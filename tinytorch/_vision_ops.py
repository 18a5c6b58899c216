"""torchvision's C++ operators, in numpy: what ``torch.ops.load_library`` registers for torchvision's
``_C``/``_C_stable`` (``torch.ops.torchvision.*``) and ``image``/``image_stable`` (``torch.ops.image.*``)
extensions, which tinytorch cannot load (they are built against libtorch).

Each kernel follows torchvision's CPU kernel step by step, in the input's dtype: ``nms`` (greedy, by
score, strict ``>`` threshold), ``roi_align`` (bilinear samples averaged per bin, Caffe2's pre-computed
weights, the ``aligned`` half-pixel shift), ``roi_pool`` (max per rounded bin, argmax as int32),
``ps_roi_align``/``ps_roi_pool`` (position-sensitive channels), ``deform_conv2d`` (deformable im2col and
a matrix product per group), and the backward of each (``_roi_align_backward``...), which torchvision's
own Python registers as the operators' autograd formulas (``torchvision/_autograd_registrations.py``).
Sums run in the kernels' order (sequentially in the dtype) where the order is the kernel's; the matrix
products of ``deform_conv2d`` go through BLAS as PyTorch's do, so they agree to rounding.

The image operators decode and encode through Pillow (``pip install pillow``): PNG and the pixel data of
GIF and WebP exactly, JPEG through Pillow's libjpeg(-turbo) with the same defaults torchvision uses."""
from __future__ import annotations

import io
import math

import numpy as np

from .library import Library
from .tensor import _make

_FLT_MAX = np.float32(np.finfo(np.float32).max)
_registered = {"vision": False, "image": False}


def _arr(t) -> np.ndarray:
    return np.ascontiguousarray(t.detach().numpy()) if t is not None else None


def _t(a: np.ndarray):
    return _make(np.ascontiguousarray(a))


def _check(cond: bool, msg: str) -> None:
    if not cond:
        raise RuntimeError(msg)


# -- nms -----------------------------------------------------------------------------------------------------
def nms(dets, scores, iou_threshold: float):
    _check(dets.dim() == 2, f"boxes should be a 2d tensor, got {dets.dim()}D")
    _check(dets.size(1) == 4, f"boxes should have 4 elements in dimension 1, got {dets.size(1)}")
    _check(scores.dim() == 1, f"scores should be a 1d tensor, got {scores.dim()}D")
    _check(dets.size(0) == scores.size(0), "boxes and scores should have same number of elements in dimension 0, "
                                           f"got {dets.size(0)} and {scores.size(0)}")
    _check(dets.dtype == scores.dtype, "dets should have the same type as scores")
    _check(dets.is_floating_point(), f"\"nms_kernel\" not implemented for '{str(dets.dtype).split('.')[-1]}'")
    if dets.numel() == 0:
        return _t(np.zeros(0, dtype=np.int64))
    d = _arr(dets)
    x1, y1, x2, y2 = (np.ascontiguousarray(d[:, i]) for i in range(4))
    areas = (x2 - x1) * (y2 - y1)
    s = _arr(scores)
    # a stable descending sort, NaN first (as PyTorch's sort(descending=True, stable=True))
    nan = np.isnan(s)
    order = np.concatenate([np.flatnonzero(nan), np.flatnonzero(~nan)[np.argsort(-s[~nan], kind="stable")]])
    n = d.shape[0]
    suppressed = np.zeros(n, dtype=bool)
    keep = []
    thr = float(iou_threshold)
    zero = d.dtype.type(0)
    for _i in range(n):
        i = order[_i]
        if suppressed[i]:
            continue
        keep.append(i)
        rest = order[_i + 1:]
        rest = rest[~suppressed[rest]]
        if rest.size == 0:
            continue
        xx1 = np.maximum(x1[i], x1[rest])
        yy1 = np.maximum(y1[i], y1[rest])
        xx2 = np.minimum(x2[i], x2[rest])
        yy2 = np.minimum(y2[i], y2[rest])
        w = np.maximum(zero, xx2 - xx1)
        h = np.maximum(zero, yy2 - yy1)
        inter = w * h
        with np.errstate(invalid="ignore", divide="ignore"):
            ovr = inter / (areas[i] + areas[rest] - inter)
        # the kernel compares in double (iou_threshold is a double): the dtype's value, widened
        suppressed[rest[ovr.astype(np.float64) > thr]] = True
    return _t(np.array(keep, dtype=np.int64))


# -- roi_align -----------------------------------------------------------------------------------------------
def _roi_geometry(roi, T, spatial_scale, pooled_h, pooled_w, sampling_ratio, aligned):
    scale = T(spatial_scale)
    offset = T(0.5) if aligned else T(0.0)
    start_w = T(roi[1] * scale - offset)
    start_h = T(roi[2] * scale - offset)
    end_w = T(roi[3] * scale - offset)
    end_h = T(roi[4] * scale - offset)
    roi_w = T(end_w - start_w)
    roi_h = T(end_h - start_h)
    if not aligned:
        roi_w = max(roi_w, T(1.0))
        roi_h = max(roi_h, T(1.0))
    bin_h = T(roi_h / T(pooled_h))
    bin_w = T(roi_w / T(pooled_w))
    grid_h = sampling_ratio if sampling_ratio > 0 else int(math.ceil(T(roi_h / T(pooled_h))))
    grid_w = sampling_ratio if sampling_ratio > 0 else int(math.ceil(T(roi_w / T(pooled_w))))
    return start_h, start_w, bin_h, bin_w, grid_h, grid_w


def _coords(T, start, bin_size, pooled, i, grid):
    """The sample coordinate of every bin (one per pooled row/column) for sample ``i`` of ``grid``."""
    p = np.arange(pooled).astype(T)
    return (T(start) + p * T(bin_size)) + (T(i + 0.5) * T(bin_size)) / T(grid)


def _interp_1d(c, size, T):
    """Caffe2's bilinear set-up along one axis: (valid, low, high, l, h) for coordinates ``c``."""
    valid = (c >= -1.0) & (c <= size)
    c = np.where(c <= 0, T(0), c).astype(T)
    low = np.where(valid, c, 0).astype(np.int64)  # (int) truncation; c >= 0 here
    at_end = low >= size - 1
    low = np.where(at_end, size - 1, low)
    high = np.where(at_end, size - 1, low + 1)
    c = np.where(at_end, low.astype(T), c).astype(T)
    lo = (c - low.astype(T)).astype(T)
    hi = (T(1.0) - lo).astype(T)
    return valid, low, high, lo, hi


def roi_align(input, rois, spatial_scale: float, pooled_height: int, pooled_width: int, sampling_ratio: int,
              aligned: bool):
    _check(rois.size(1) == 5, "rois must have shape as Tensor[K, 5]")
    _check(input.dtype == rois.dtype, "input should have the same type as rois")
    x, r = _arr(input), _arr(rois)
    T = x.dtype.type
    K, (_, C, H, W) = r.shape[0], x.shape
    out = np.zeros((K, C, pooled_height, pooled_width), dtype=x.dtype)
    for n in range(K):
        b = int(r[n, 0])
        sh, sw, bh, bw, gh, gw = _roi_geometry(r[n], T, spatial_scale, pooled_height, pooled_width,
                                               sampling_ratio, aligned)
        count = T(max(gh * gw, 1))
        plane = x[b]
        acc = np.zeros((C, pooled_height, pooled_width), dtype=x.dtype)
        for iy in range(gh):
            vy, yl, yh, ly, hy = _interp_1d(_coords(T, sh, bh, pooled_height, iy, gh), H, T)
            for ix in range(gw):
                vx, xl, xh, lx, hx = _interp_1d(_coords(T, sw, bw, pooled_width, ix, gw), W, T)
                valid = vy[:, None] & vx[None, :]
                w1 = np.where(valid, hy[:, None] * hx[None, :], T(0))
                w2 = np.where(valid, hy[:, None] * lx[None, :], T(0))
                w3 = np.where(valid, ly[:, None] * hx[None, :], T(0))
                w4 = np.where(valid, ly[:, None] * lx[None, :], T(0))
                # an empty sample reads element 0 with weight 0, as the kernel's pre-computed table does
                y_lo = np.where(valid, yl[:, None], 0)
                y_hi = np.where(valid, yh[:, None], 0)
                x_lo = np.where(valid, xl[None, :], 0)
                x_hi = np.where(valid, xh[None, :], 0)
                val = (w1 * plane[:, y_lo, x_lo] + w2 * plane[:, y_lo, x_hi]) + w3 * plane[:, y_hi, x_lo]
                val = val + w4 * plane[:, y_hi, x_hi]
                acc = acc + val
        out[n] = acc / count
    return _t(out)


def _roi_align_backward(grad, rois, spatial_scale: float, pooled_height: int, pooled_width: int, batch_size: int,
                        channels: int, height: int, width: int, sampling_ratio: int, aligned: bool):
    _check(grad.dtype == rois.dtype, "grad should have the same type as rois")
    g, r = _arr(grad), _arr(rois)
    T = g.dtype.type
    gi = np.zeros((batch_size, channels, height, width), dtype=g.dtype)
    if g.size == 0:
        return _t(gi)
    flat = gi.reshape(batch_size, channels, height * width)
    cidx = np.arange(channels)[:, None, None, None]
    for n in range(r.shape[0]):
        b = int(r[n, 0])
        sh, sw, bh, bw, gh, gw = _roi_geometry(r[n], T, spatial_scale, pooled_height, pooled_width,
                                               sampling_ratio, aligned)
        count = T(gh * gw)
        gbin = g[n]  # (C, PH, PW)
        idx, val = [], []
        for iy in range(gh):
            vy, yl, yh, ly, hy = _interp_1d(_coords(T, sh, bh, pooled_height, iy, gh), height, T)
            for ix in range(gw):
                vx, xl, xh, lx, hx = _interp_1d(_coords(T, sw, bw, pooled_width, ix, gw), width, T)
                valid = (vy[:, None] & vx[None, :])[None]
                ws = (hy[:, None] * hx[None, :], hy[:, None] * lx[None, :], ly[:, None] * hx[None, :],
                      ly[:, None] * lx[None, :])
                pos = (yl[:, None] * width + xl[None, :], yl[:, None] * width + xh[None, :],
                       yh[:, None] * width + xl[None, :], yh[:, None] * width + xh[None, :])
                for w, p in zip(ws, pos):
                    v = (gbin * w[None]) / count
                    idx.append(np.broadcast_to(np.where(valid, p[None], -1), gbin.shape))
                    val.append(v)
        # the kernel's order: output element (c, ph, pw), then sample (iy, ix), then corner
        idx = np.stack(idx, axis=-1).reshape(channels, -1)
        val = np.stack(val, axis=-1).reshape(channels, -1)
        keep = idx >= 0
        np.add.at(flat[b], (np.broadcast_to(cidx[:, :, 0, 0], idx.shape)[keep], idx[keep]), val[keep])
    return _t(gi)


# -- roi_pool ------------------------------------------------------------------------------------------------
def _c_round(v) -> int:
    """C's round(): half away from zero."""
    return int(math.floor(abs(v) + 0.5)) * (1 if v >= 0 else -1)


def _pool_bins(r_n, T, spatial_scale, ph_n, pw_n, H, W, plus_one: bool, clip_h: int, clip_w: int, roundf=False):
    scale = T(spatial_scale)
    vals = [T(r_n[i] * scale) for i in (1, 2, 3, 4)]
    if roundf:
        vals = [np.float32(v) for v in vals]
    sw, sh, ew, eh = (_c_round(float(v)) for v in vals)
    extra = 1 if plus_one else 0
    rw = max(ew - sw + extra, 1)
    rh = max(eh - sh + extra, 1)
    bh = T(T(rh) / T(ph_n))
    bw = T(T(rw) / T(pw_n))
    bins = []
    for ph in range(ph_n):
        hs = int(math.floor(T(T(ph) * bh)))
        he = int(math.ceil(T(T(ph + 1) * bh)))
        hs = min(max(hs + sh, 0), clip_h)
        he = min(max(he + sh, 0), clip_h)
        for pw in range(pw_n):
            ws = int(math.floor(T(T(pw) * bw)))
            we = int(math.ceil(T(T(pw + 1) * bw)))
            ws = min(max(ws + sw, 0), clip_w)
            we = min(max(we + sw, 0), clip_w)
            bins.append((ph, pw, hs, he, ws, we))
    return bins


def roi_pool(input, rois, spatial_scale: float, pooled_height: int, pooled_width: int):
    _check(input.dtype == rois.dtype, "input and rois must have the same dtype")
    x, r = _arr(input), _arr(rois)
    _check(x.dtype in (np.float32, np.float64), "roi_pool only supports float and double types")
    T = x.dtype.type
    K, (_, C, H, W) = r.shape[0], x.shape
    out = np.zeros((K, C, pooled_height, pooled_width), dtype=x.dtype)
    arg = np.zeros((K, C, pooled_height, pooled_width), dtype=np.int32)
    for n in range(K):
        b = int(r[n, 0])
        for ph, pw, hs, he, ws, we in _pool_bins(r[n], T, spatial_scale, pooled_height, pooled_width, H, W, True, H, W):
            if he <= hs or we <= ws:
                out[n, :, ph, pw] = 0
                arg[n, :, ph, pw] = -1
                continue
            region = x[b, :, hs:he, ws:we].reshape(C, -1)
            # strict '>' from -FLT_MAX: NaN and -FLT_MAX itself are never taken; the first maximum wins
            masked = np.where(region > -_FLT_MAX, region, -np.inf)
            j = np.argmax(masked, axis=1)
            best = masked[np.arange(C), j]
            found = best > -np.inf
            hh, ww = np.divmod(j, we - ws)
            out[n, :, ph, pw] = np.where(found, best, -_FLT_MAX)
            arg[n, :, ph, pw] = np.where(found, (hh + hs) * W + (ww + ws), -1)
    return _t(out), _t(arg)


def _roi_pool_backward(grad, rois, argmax, spatial_scale: float, pooled_height: int, pooled_width: int,
                       batch_size: int, channels: int, height: int, width: int):
    _check(rois.size(1) == 5, "Tensor rois should have shape as Tensor[K, 5]")
    _check(grad.dtype == rois.dtype, "grad and rois must have the same dtype")
    g, r, a = _arr(grad), _arr(rois), _arr(argmax)
    gi = np.zeros((batch_size, channels, height, width), dtype=g.dtype)
    if g.size == 0:
        return _t(gi)
    flat = gi.reshape(batch_size, channels, -1)
    cidx = np.broadcast_to(np.arange(channels)[:, None], (channels, pooled_height * pooled_width))
    for n in range(r.shape[0]):
        b = int(r[n, 0])
        am = a[n].reshape(channels, -1)
        keep = am != -1
        np.add.at(flat[b], (cidx[keep], am[keep]), g[n].reshape(channels, -1)[keep])
    return _t(gi)


# -- position-sensitive RoI ops ------------------------------------------------------------------------------
def _ps_geometry(roi, T, spatial_scale, pooled_h, pooled_w, sampling_ratio):
    scale = T(spatial_scale)
    sw = T(roi[1] * scale - T(0.5))
    sh = T(roi[2] * scale - T(0.5))
    ew = T(roi[3] * scale - T(0.5))
    eh = T(roi[4] * scale - T(0.5))
    rw, rh = T(ew - sw), T(eh - sh)
    bh, bw = T(rh / T(pooled_h)), T(rw / T(pooled_w))
    gh = sampling_ratio if sampling_ratio > 0 else int(math.ceil(T(rh / T(pooled_h))))
    gw = sampling_ratio if sampling_ratio > 0 else int(math.ceil(T(rw / T(pooled_w))))
    return sh, sw, bh, bw, gh, gw


def ps_roi_align(input, rois, spatial_scale: float, pooled_height: int, pooled_width: int, sampling_ratio: int):
    _check(rois.size(1) == 5, "Tensor rois should have shape as Tensor[K, 5]")
    _check(input.dtype == rois.dtype, "input should have the same type as rois")
    x, r = _arr(input), _arr(rois)
    T = x.dtype.type
    K, (_, C, H, W) = r.shape[0], x.shape
    PH, PW = pooled_height, pooled_width
    _check(C % (PH * PW) == 0, "input channels must be a multiple of pooling height * pooling width")
    Co = C // (PH * PW)
    out = np.zeros((K, Co, PH, PW), dtype=x.dtype)
    mapping = np.broadcast_to(np.arange(Co * PH * PW, dtype=np.int32).reshape(Co, PH, PW), (K, Co, PH, PW)).copy()
    co = np.arange(Co)[:, None, None]
    ph_i = np.arange(PH)[None, :, None]
    pw_i = np.arange(PW)[None, None, :]
    for n in range(K):
        b = int(r[n, 0])
        sh, sw, bh, bw, gh, gw = _ps_geometry(r[n], T, spatial_scale, PH, PW, sampling_ratio)
        count = T(gh * gw)
        planes = x[b].reshape(Co, PH, PW, H, W)
        acc = np.zeros((Co, PH, PW), dtype=x.dtype)
        for iy in range(gh):
            vy, yl, yh, ly, hy = _interp_1d(_coords(T, sh, bh, PH, iy, gh), H, T)
            for ix in range(gw):
                vx, xl, xh, lx, hx = _interp_1d(_coords(T, sw, bw, PW, ix, gw), W, T)
                valid = (vy[:, None] & vx[None, :])[None]

                def at(yy, xx, planes=planes):
                    return planes[co, ph_i, pw_i, yy[None, :, None], xx[None, None, :]]

                val = (hy[:, None] * hx[None, :]) * at(yl, xl) + (hy[:, None] * lx[None, :]) * at(yl, xh)
                val = val + (ly[:, None] * hx[None, :]) * at(yh, xl)
                val = val + (ly[:, None] * lx[None, :]) * at(yh, xh)
                acc = acc + np.where(valid, val, T(0))
        with np.errstate(invalid="ignore", divide="ignore"):
            out[n] = acc / count
    return _t(out), _t(mapping)


def _ps_roi_align_backward(grad, rois, channel_mapping, spatial_scale: float, pooled_height: int, pooled_width: int,
                           sampling_ratio: int, batch_size: int, channels: int, height: int, width: int):
    _check(grad.dtype == rois.dtype, "grad should have the same type as rois")
    g, r, cm = _arr(grad), _arr(rois), _arr(channel_mapping)
    T = g.dtype.type
    gi = np.zeros((batch_size, channels, height, width), dtype=g.dtype)
    if g.size == 0:
        return _t(gi)
    PH, PW = pooled_height, pooled_width
    flat = gi.reshape(batch_size, channels, -1)
    for n in range(r.shape[0]):
        b = int(r[n, 0])
        sh, sw, bh, bw, gh, gw = _ps_geometry(r[n], T, spatial_scale, PH, PW, sampling_ratio)
        count = T(gh * gw)
        gbin = g[n]  # (Co, PH, PW)
        cin = cm[n]
        idx, chans, val = [], [], []
        for iy in range(gh):
            vy, yl, yh, ly, hy = _interp_1d(_coords(T, sh, bh, PH, iy, gh), height, T)
            for ix in range(gw):
                vx, xl, xh, lx, hx = _interp_1d(_coords(T, sw, bw, PW, ix, gw), width, T)
                valid = (vy[:, None] & vx[None, :])[None]
                ws = (hy[:, None] * hx[None, :], hy[:, None] * lx[None, :], ly[:, None] * hx[None, :],
                      ly[:, None] * lx[None, :])
                pos = (yl[:, None] * width + xl[None, :], yl[:, None] * width + xh[None, :],
                       yh[:, None] * width + xl[None, :], yh[:, None] * width + xh[None, :])
                for w, p in zip(ws, pos):
                    idx.append(np.broadcast_to(np.where(valid, p[None], -1), gbin.shape))
                    chans.append(cin)
                    val.append((gbin * w[None]) / count)
        idx = np.stack(idx, -1).ravel()
        chans = np.stack(chans, -1).ravel()
        val = np.stack(val, -1).ravel()
        keep = idx >= 0
        np.add.at(flat[b], (chans[keep], idx[keep]), val[keep])
    return _t(gi)


def ps_roi_pool(input, rois, spatial_scale: float, pooled_height: int, pooled_width: int):
    _check(rois.size(1) == 5, "Tensor rois should have shape as Tensor[K, 5]")
    _check(input.dtype == rois.dtype, "input and rois must have the same dtype")
    x, r = _arr(input), _arr(rois)
    _check(x.dtype in (np.float32, np.float64), "ps_roi_pool only supports float and double types")
    T = x.dtype.type
    K, (_, C, H, W) = r.shape[0], x.shape
    PH, PW = pooled_height, pooled_width
    _check(C % (PH * PW) == 0, "input channels must be a multiple of pooling height * pooling width")
    Co = C // (PH * PW)
    out = np.zeros((K, Co, PH, PW), dtype=x.dtype)
    mapping = np.broadcast_to(np.arange(Co * PH * PW, dtype=np.int32).reshape(Co, PH, PW), (K, Co, PH, PW)).copy()
    for n in range(K):
        b = int(r[n, 0])
        planes = x[b].reshape(Co, PH, PW, H, W)
        # the forward kernel clips bins to height - 1 / width - 1 (its backward to height / width)
        for ph, pw, hs, he, ws, we in _pool_bins(r[n], T, spatial_scale, PH, PW, H, W, False, H - 1, W - 1):
            if he <= hs or we <= ws:
                out[n, :, ph, pw] = 0
                continue
            region = planes[:, ph, pw, hs:he, ws:we].reshape(Co, -1)
            total = np.cumsum(region, axis=1, dtype=x.dtype)[:, -1]  # the kernel's sequential sum
            out[n, :, ph, pw] = total / T((he - hs) * (we - ws))
    return _t(out), _t(mapping)


def _ps_roi_pool_backward(grad, rois, channel_mapping, spatial_scale: float, pooled_height: int, pooled_width: int,
                          batch_size: int, channels: int, height: int, width: int):
    _check(grad.dtype == rois.dtype, "grad and rois must have the same dtype")
    g, r, cm = _arr(grad), _arr(rois), _arr(channel_mapping)
    _check(g.dtype in (np.float32, np.float64), "ps_roi_pool backward only supports float and double types")
    T = g.dtype.type
    gi = np.zeros((batch_size, channels, height, width), dtype=g.dtype)
    if g.size == 0:
        return _t(gi)
    PH, PW = pooled_height, pooled_width
    for n in range(r.shape[0]):
        b = int(r[n, 0])
        for ph, pw, hs, he, ws, we in _pool_bins(r[n], T, spatial_scale, PH, PW, height, width, False, height,
                                                 width, roundf=True):
            if he <= hs or we <= ws:
                continue
            area = T((he - hs) * (we - ws))
            for c_in, gv in zip(cm[n, :, ph, pw], g[n, :, ph, pw]):
                gi[b, c_in, hs:he, ws:we] += gv / area
    return _t(gi)


# -- deform_conv2d -------------------------------------------------------------------------------------------
def _deform_setup(x, offset, kh, kw, sh, sw, ph, pw, dh, dw, og):
    B, C, H, W = x.shape
    oh, ow = offset.shape[2], offset.shape[3]
    T = x.dtype.type
    off = offset.reshape(B, og, kh * kw, 2, oh, ow)
    base_y = (np.arange(oh) * sh - ph)[:, None] + np.zeros((1, ow), dtype=np.int64)
    base_x = np.zeros((oh, 1), dtype=np.int64) + (np.arange(ow) * sw - pw)[None, :]
    ki, kj = np.divmod(np.arange(kh * kw), kw)
    y = (base_y[None] + (ki * dh)[:, None, None]).astype(T)[None, None] + off[:, :, :, 0]
    xx = (base_x[None] + (kj * dw)[:, None, None]).astype(T)[None, None] + off[:, :, :, 1]
    return y.astype(T), xx.astype(T)  # (B, og, K, oh, ow)


def _corners(y, x, H, W):
    yl = np.floor(y).astype(np.int64)
    xl = np.floor(x).astype(np.int64)
    return yl, xl, yl + 1, xl + 1


def _gather(planes, yy, xx, H, W):
    """planes (B, og, cpg, H*W); yy/xx (B, og, K, oh, ow) integer; zero outside the image."""
    ok = (yy >= 0) & (yy < H) & (xx >= 0) & (xx < W)
    idx = np.where(ok, yy * W + xx, 0).reshape(yy.shape[0], yy.shape[1], 1, -1)
    vals = np.take_along_axis(planes, idx, axis=3)
    return np.where(ok.reshape(idx.shape), vals, 0)


def _deform_columns(x, y, xx, mask, use_mask, og):
    """The deformable im2col: (B, C, K, oh*ow) samples, times the mask."""
    B, C, H, W = x.shape
    T = x.dtype.type
    planes = x.reshape(B, og, C // og, H * W)
    inside = ~((y <= -1) | (y >= H) | (xx <= -1) | (xx >= W))
    yl, xl, yh, xh = _corners(y, xx, H, W)
    ly = (y - yl).astype(T)
    lx = (xx - xl).astype(T)
    hy, hx = T(1) - ly, T(1) - lx
    shp = (B, og, 1, -1)
    v1 = _gather(planes, yl, xl, H, W)
    v2 = _gather(planes, yl, xh, H, W)
    v3 = _gather(planes, yh, xl, H, W)
    v4 = _gather(planes, yh, xh, H, W)
    val = (hy * hx).reshape(shp) * v1 + (hy * lx).reshape(shp) * v2 + (ly * hx).reshape(shp) * v3 \
        + (ly * lx).reshape(shp) * v4
    val = np.where(inside.reshape(shp), val, T(0))
    if use_mask:
        val = mask.reshape(shp).astype(T) * val
    K = y.shape[2]
    return val.reshape(B, C, K, -1)


def _deform_args(input, weight, offset, mask, stride_h, stride_w, pad_h, pad_w, dil_h, dil_w, groups, offset_groups,
                 use_mask):
    x, w, off = _arr(input), _arr(weight), _arr(offset)
    m = _arr(mask) if use_mask else None
    kh, kw = w.shape[2], w.shape[3]
    _check(x.ndim == 4 and off.ndim == 4 and w.ndim == 4, "deform_conv2d: input, offset and weight must be 4-d")
    _check(w.shape[1] * groups == x.shape[1], "deform_conv2d: weight.size(1) * groups != input.size(1)")
    _check(off.shape[1] == offset_groups * 2 * kh * kw, f"offset.shape[1] is not valid: got: {off.shape[1]} "
                                                        f"expected: {offset_groups * 2 * kh * kw}")
    _check(not use_mask or m.shape[1] == offset_groups * kh * kw,
           f"mask.shape[1] is not valid: got: {None if m is None else m.shape[1]} expected: {offset_groups * kh * kw}")
    oh = (x.shape[2] + 2 * pad_h - (dil_h * (kh - 1) + 1)) // stride_h + 1
    ow = (x.shape[3] + 2 * pad_w - (dil_w * (kw - 1) + 1)) // stride_w + 1
    _check(off.shape[2] == oh and off.shape[3] == ow,
           f"offset output dims: ({off.shape[2]}, {off.shape[3]}) - computed output dims: ({oh}, {ow})")
    return x, w, off, m, kh, kw, oh, ow


def deform_conv2d(input, weight, offset, mask, bias, stride_h: int, stride_w: int, pad_h: int, pad_w: int,
                  dilation_h: int, dilation_w: int, groups: int, offset_groups: int, use_mask: bool):
    x, w, off, m, kh, kw, oh, ow = _deform_args(input, weight, offset, mask, stride_h, stride_w, pad_h, pad_w,
                                                dilation_h, dilation_w, groups, offset_groups, use_mask)
    B, C = x.shape[:2]
    Co = w.shape[0]
    y, xx = _deform_setup(x, off, kh, kw, stride_h, stride_w, pad_h, pad_w, dilation_h, dilation_w, offset_groups)
    cols = _deform_columns(x, y, xx, m, use_mask, offset_groups)  # (B, C, K, P)
    cols = cols.reshape(B, groups, (C // groups) * kh * kw, oh * ow)
    wg = w.reshape(groups, Co // groups, -1)
    out = np.matmul(wg[None], cols).reshape(B, Co, oh, ow)
    out = out + _arr(bias).reshape(1, Co, 1, 1)
    return _t(out.astype(x.dtype, copy=False))


def _deform_conv2d_backward(grad, input, weight, offset, mask, bias, stride_h: int, stride_w: int, pad_h: int,
                            pad_w: int, dilation_h: int, dilation_w: int, groups: int, offset_groups: int,
                            use_mask: bool):
    x, w, off, m, kh, kw, oh, ow = _deform_args(input, weight, offset, mask, stride_h, stride_w, pad_h, pad_w,
                                                dilation_h, dilation_w, groups, offset_groups, use_mask)
    g = _arr(grad)
    T = x.dtype.type
    B, C, H, W = x.shape
    Co = w.shape[0]
    K, P, og = kh * kw, oh * ow, offset_groups
    cpg = C // og
    y, xx = _deform_setup(x, off, kh, kw, stride_h, stride_w, pad_h, pad_w, dilation_h, dilation_w, og)
    gg = g.reshape(B, groups, Co // groups, P)
    wg = w.reshape(groups, Co // groups, -1)
    # the columns' gradient: W^T @ grad_out per group, (B, C, K, P)
    gcols = np.matmul(np.swapaxes(wg, 1, 2)[None], gg).reshape(B, og, cpg, K, P)
    mk = m.reshape(B, og, 1, K, P).astype(T) if use_mask else T(1)
    yv = y.reshape(B, og, 1, K, P)
    xv = xx.reshape(B, og, 1, K, P)
    yl, xl, yh, xh = _corners(yv, xv, H, W)
    planes = x.reshape(B, og, cpg, H * W)

    def corner(yy, xx_):
        ok = (yy >= 0) & (yy < H) & (xx_ >= 0) & (xx_ < W)
        idx = np.where(ok, yy * W + xx_, 0)
        vals = np.take_along_axis(planes, np.broadcast_to(idx, (B, og, cpg, K, P)).reshape(B, og, cpg, -1),
                                  axis=3).reshape(B, og, cpg, K, P)
        return np.where(ok, vals, T(0)), ok, idx

    v_yx, ok1, i1 = corner(yl, xl)
    v_yX, ok2, i2 = corner(yl, xh)
    v_Yx, ok3, i3 = corner(yh, xl)
    v_YX, ok4, i4 = corner(yh, xh)
    dy = (yv - yl).astype(T)
    dx = (xv - xl).astype(T)
    # offsets: the bilinear form's derivative along y and x (floor corners, zero outside)
    wy = dx * (v_YX - v_yX) + (T(1) - dx) * (v_Yx - v_yx)
    wx = dy * (v_YX - v_Yx) + (T(1) - dy) * (v_yX - v_yx)
    g_off_y = (mk * wy * gcols).sum(axis=2)
    g_off_x = (mk * wx * gcols).sum(axis=2)
    grad_offset = np.stack([g_off_y, g_off_x], axis=3).reshape(B, og * K * 2, oh, ow).astype(T)
    inside = ~((yv <= -1) | (yv >= H) | (xv <= -1) | (xv >= W))
    samp = (T(1) - dy) * (T(1) - dx) * v_yx + (T(1) - dy) * dx * v_yX + dy * (T(1) - dx) * v_Yx + dy * dx * v_YX
    samp = np.where(inside, samp, T(0))
    if use_mask:
        grad_mask = (gcols * samp).sum(axis=2).reshape(B, og * K, oh, ow).astype(T)
    else:
        grad_mask = np.zeros_like(_arr(mask))
    # the input: each column's gradient back to its four neighbours
    gi = np.zeros((B, og, cpg, H * W), dtype=T)
    bidx = np.arange(B)[:, None, None, None, None]
    gidx = np.arange(og)[None, :, None, None, None]
    cidx = np.arange(cpg)[None, None, :, None, None]
    for ok, idx, wgt in ((ok1, i1, (T(1) - dy) * (T(1) - dx)), (ok2, i2, (T(1) - dy) * dx),
                         (ok3, i3, dy * (T(1) - dx)), (ok4, i4, dy * dx)):
        contrib = mk * wgt * gcols
        okb = np.broadcast_to(ok, contrib.shape)
        ib = np.broadcast_to(idx, contrib.shape)
        np.add.at(gi, (np.broadcast_to(bidx, contrib.shape)[okb], np.broadcast_to(gidx, contrib.shape)[okb],
                       np.broadcast_to(cidx, contrib.shape)[okb], ib[okb]), contrib[okb])
    grad_input = gi.reshape(B, C, H, W)
    cols = _deform_columns(x, y, xx, m, use_mask, og).reshape(B, groups, (C // groups) * K, P)
    grad_weight = np.matmul(gg, np.swapaxes(cols, 2, 3)).sum(axis=0).reshape(w.shape).astype(T)
    grad_bias = g.sum(axis=(0, 2, 3)).astype(T)
    return _t(grad_input), _t(grad_weight), _t(grad_offset), _t(grad_mask), _t(grad_bias)


# -- quantized and rotated ops: defined (torchvision's registrations name them), not computed --------------------
def _quantized(name):
    def kernel(*args, **kwargs):
        raise NotImplementedError(f"torchvision::{name} works on quantized tensors, which tinytorch does not have")
    return kernel


def _box_iou_rotated(boxes1, boxes2):
    raise NotImplementedError("torchvision::box_iou_rotated (IoU of rotated boxes: polygon clipping) is not "
                              "implemented in tinytorch")


def _cuda_version() -> int:
    return -1


VISION_SCHEMAS = {
    "nms": ("nms(Tensor dets, Tensor scores, float iou_threshold) -> Tensor", nms),
    "roi_align": ("roi_align(Tensor input, Tensor rois, float spatial_scale, SymInt pooled_height, "
                  "SymInt pooled_width, int sampling_ratio, bool aligned) -> Tensor", roi_align),
    "_roi_align_backward": ("_roi_align_backward(Tensor grad, Tensor rois, float spatial_scale, SymInt pooled_height, "
                            "SymInt pooled_width, SymInt batch_size, SymInt channels, SymInt height, SymInt width, "
                            "int sampling_ratio, bool aligned) -> Tensor", _roi_align_backward),
    "roi_pool": ("roi_pool(Tensor input, Tensor rois, float spatial_scale, SymInt pooled_height, SymInt pooled_width) "
                 "-> (Tensor, Tensor)", roi_pool),
    "_roi_pool_backward": ("_roi_pool_backward(Tensor grad, Tensor rois, Tensor argmax, float spatial_scale, "
                           "SymInt pooled_height, SymInt pooled_width, SymInt batch_size, SymInt channels, "
                           "SymInt height, SymInt width) -> Tensor", _roi_pool_backward),
    "ps_roi_align": ("ps_roi_align(Tensor input, Tensor rois, float spatial_scale, SymInt pooled_height, "
                     "SymInt pooled_width, int sampling_ratio) -> (Tensor, Tensor)", ps_roi_align),
    "_ps_roi_align_backward": ("_ps_roi_align_backward(Tensor grad, Tensor rois, Tensor channel_mapping, "
                               "float spatial_scale, SymInt pooled_height, SymInt pooled_width, int sampling_ratio, "
                               "SymInt batch_size, SymInt channels, SymInt height, SymInt width) -> Tensor",
                               _ps_roi_align_backward),
    "ps_roi_pool": ("ps_roi_pool(Tensor input, Tensor rois, float spatial_scale, SymInt pooled_height, "
                    "SymInt pooled_width) -> (Tensor, Tensor)", ps_roi_pool),
    "_ps_roi_pool_backward": ("_ps_roi_pool_backward(Tensor grad, Tensor rois, Tensor channel_mapping, "
                              "float spatial_scale, SymInt pooled_height, SymInt pooled_width, SymInt batch_size, "
                              "SymInt channels, SymInt height, SymInt width) -> Tensor", _ps_roi_pool_backward),
    "deform_conv2d": ("deform_conv2d(Tensor input, Tensor weight, Tensor offset, Tensor mask, Tensor bias, "
                      "SymInt stride_h, SymInt stride_w, SymInt pad_h, SymInt pad_w, SymInt dilation_h, "
                      "SymInt dilation_w, SymInt groups, SymInt offset_groups, bool use_mask) -> Tensor",
                      deform_conv2d),
    "_deform_conv2d_backward": ("_deform_conv2d_backward(Tensor grad, Tensor input, Tensor weight, Tensor offset, "
                                "Tensor mask, Tensor bias, SymInt stride_h, SymInt stride_w, SymInt pad_h, "
                                "SymInt pad_w, SymInt dilation_h, SymInt dilation_w, SymInt groups, "
                                "SymInt offset_groups, bool use_mask) -> (Tensor, Tensor, Tensor, Tensor, Tensor)",
                                _deform_conv2d_backward),
    "qnms": ("qnms(Tensor dets, Tensor scores, float iou_threshold) -> Tensor", _quantized("qnms")),
    "qroi_align": ("qroi_align(Tensor input, Tensor rois, float spatial_scale, SymInt pooled_height, "
                   "SymInt pooled_width, int sampling_ratio, bool aligned) -> Tensor", _quantized("qroi_align")),
    "box_iou_rotated": ("box_iou_rotated(Tensor boxes1, Tensor boxes2) -> Tensor", _box_iou_rotated),
    "_cuda_version": ("_cuda_version() -> int", _cuda_version),
}


def register_vision_ops() -> None:
    """``torch.ops.torchvision.*``: what loading torchvision's ``_C`` registers (once per process)."""
    if _registered["vision"]:
        return
    lib = Library("torchvision", "FRAGMENT")
    for name, (schema, kernel) in VISION_SCHEMAS.items():
        lib.define(schema)
        lib.impl(name, kernel, "CPU")
    _registered["lib_vision"] = lib
    _registered["vision"] = True


# -- image: decode / encode through Pillow --------------------------------------------------------------------
_MODES = {0: None, 1: "L", 2: "LA", 3: "RGB", 4: "RGBA"}


def _pil():
    try:
        from PIL import Image
    except ImportError as exc:  # pragma: no cover - Pillow is torchvision's own dependency
        raise RuntimeError("tinytorch decodes and encodes images through Pillow: pip install pillow") from exc
    return Image


def _bytes_of(data) -> bytes:
    _check(data.dtype.__repr__().endswith("uint8"), "Expected a torch.uint8 tensor")
    _check(data.dim() == 1, "Expected a 1 dimensional tensor")
    return _arr(data).tobytes()


def _to_chw(img, mode: int, exif: bool):
    Image = _pil()
    if exif:
        from PIL import ImageOps
        img = ImageOps.exif_transpose(img)
    target = _MODES.get(mode)
    if target is None:  # UNCHANGED: the file's own channels
        if img.mode in ("1", "P"):
            img = img.convert("RGBA" if "transparency" in img.info else "RGB")
        elif img.mode in ("I;16", "I;16B", "I;16L", "I"):
            a = np.asarray(img).astype(np.uint16)
            return _t(a[None])
        elif img.mode not in ("L", "LA", "RGB", "RGBA"):
            img = img.convert("RGB")
    elif img.mode != target:
        if img.mode in ("I;16", "I;16B", "I;16L", "I") and target in ("L", "RGB"):
            img = Image.fromarray((np.asarray(img).astype(np.uint32) >> 8).astype(np.uint8))
        img = img.convert(target)
    a = np.asarray(img)
    if a.ndim == 2:
        a = a[:, :, None]
    return _t(np.ascontiguousarray(a.transpose(2, 0, 1)).astype(np.uint8, copy=False))


def _open(data):
    Image = _pil()
    img = Image.open(io.BytesIO(_bytes_of(data)))
    return img


def decode_image(data, mode: int, apply_exif_orientation: bool = False):
    img = _open(data)
    if img.format == "JPEG":
        return decode_jpeg(data, mode, apply_exif_orientation)
    if img.format == "GIF":
        return decode_gif(data)
    return _to_chw(img, mode, apply_exif_orientation)


def decode_png(data, mode: int, apply_exif_orientation: bool = False):
    img = _open(data)
    _check(img.format == "PNG", "Content is not png!")
    return _to_chw(img, mode, apply_exif_orientation)


def decode_jpeg(data, mode: int, apply_exif_orientation: bool = False):
    img = _open(data)
    _check(img.format == "JPEG", "Content is not jpeg!")
    if _MODES.get(mode) == "L":
        img.draft("L", img.size)  # libjpeg's own grayscale output, as torchvision asks for it
    return _to_chw(img, mode, apply_exif_orientation)


def decode_webp(data, mode: int):
    img = _open(data)
    _check(img.format == "WEBP", "Content is not webp!")
    return _to_chw(img, mode, False)


def decode_gif(data):
    img = _open(data)
    _check(img.format == "GIF", "Content is not gif!")
    frames = []
    for i in range(getattr(img, "n_frames", 1)):
        img.seek(i)
        frames.append(np.asarray(img.convert("RGB")).transpose(2, 0, 1))
    out = np.stack(frames) if len(frames) > 1 else frames[0]
    return _t(out.astype(np.uint8))


def encode_png(data, compression_level: int):
    Image = _pil()
    a = _arr(data)
    _check(a.ndim == 3 and a.shape[0] in (1, 3), "The number of channels should be 1 or 3, got: "
                                                 f"{a.shape[0] if a.ndim == 3 else a.ndim}")
    _check(0 <= compression_level <= 9, "Compression level should be between 0 and 9")
    img = Image.fromarray(a[0] if a.shape[0] == 1 else a.transpose(1, 2, 0))
    buf = io.BytesIO()
    img.save(buf, format="PNG", compress_level=compression_level)
    return _t(np.frombuffer(buf.getvalue(), dtype=np.uint8).copy())


def encode_jpeg(data, quality: int):
    Image = _pil()
    a = _arr(data)
    _check(a.ndim == 3 and a.shape[0] in (1, 3), "The number of channels should be 1 or 3, got: "
                                                 f"{a.shape[0] if a.ndim == 3 else a.ndim}")
    _check(1 <= quality <= 100, "Image quality should be a positive number between 1 and 100")
    img = Image.fromarray(a[0] if a.shape[0] == 1 else a.transpose(1, 2, 0))
    buf = io.BytesIO()
    img.save(buf, format="JPEG", quality=quality)
    return _t(np.frombuffer(buf.getvalue(), dtype=np.uint8).copy())


def read_file(path: str):
    with open(path, "rb") as f:
        raw = f.read()
    return _t(np.frombuffer(raw, dtype=np.uint8).copy())


def write_file(path: str, data) -> None:
    with open(path, "wb") as f:
        f.write(_bytes_of(data))


IMAGE_SCHEMAS = {
    "read_file": ("read_file(str filename) -> Tensor", read_file),
    "write_file": ("write_file(str filename, Tensor data) -> ()", write_file),
    "decode_image": ("decode_image(Tensor data, int mode, bool apply_exif_orientation=False) -> Tensor", decode_image),
    "decode_png": ("decode_png(Tensor data, int mode, bool apply_exif_orientation=False) -> Tensor", decode_png),
    "decode_jpeg": ("decode_jpeg(Tensor data, int mode, bool apply_exif_orientation=False) -> Tensor", decode_jpeg),
    "decode_webp": ("decode_webp(Tensor encoded_data, int mode) -> Tensor", decode_webp),
    "decode_gif": ("decode_gif(Tensor data) -> Tensor", decode_gif),
    "encode_png": ("encode_png(Tensor data, int compression_level) -> Tensor", encode_png),
    "encode_jpeg": ("encode_jpeg(Tensor data, int quality) -> Tensor", encode_jpeg),
}


def register_image_ops() -> None:
    """``torch.ops.image.*``: what loading torchvision's ``image`` extension registers (once per process)."""
    if _registered["image"]:
        return
    lib = Library("image", "FRAGMENT")
    for name, (schema, kernel) in IMAGE_SCHEMAS.items():
        lib.define(schema)
        lib.impl(name, kernel, "CPU")
    _registered["lib_image"] = lib
    _registered["image"] = True
