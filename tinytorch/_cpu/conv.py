"""The convolution's CPU path: ``_ops/nn/conv.py``'s three bilinear forwards (``_conv_arrays``,
``_conv_t_arrays``, ``_conv_w_arrays``) as chunked im2col + BLAS, and the two gradients together
(``_conv_grads_arrays``, what ConvolutionBackward0 and aten.convolution_backward compute) from one copy of the
gradient's rows.

Columns are channel-major, (C*kh*kw, samples*Ho*row), so a convolution is one GEMM over a chunk
of samples; chunks of a few samples keep the columns in cache between the copy that builds them
and the product that reads them. For stride 1 the rows are "wide" (see ``_Layout``): every
kernel offset's columns are then one contiguous run of the padded image, and col2im is one
contiguous whole-array add per kernel offset (a loop over the k*k offsets, not ``np.add.at``). With the ``[fast]``
extra, the forward's copy-out with the bias and the one-sample col2im run as compiled loops (``compiled/conv.py``)
that make the same additions, so the same floats. Chunks run across threads (``parallel.py``).

im2col and a GEMM are what PyTorch's CPU convolution computes too; its bit-exact tests run on this path.
The reference's ``tensordot`` over the windows sums each output's terms in another order, so each path is
held to it within a bound counted at the result's largest magnitude: 8 ulps for the forward and the input
gradient, 64 for the weight gradient, whose sums split by chunk of samples."""
from __future__ import annotations

import math
import threading

import numpy as np
from numpy.lib.stride_tricks import as_strided

from .._quiet_fp import silent
from .._ops._core import paths
from .._ops._kernels import compiled, parallel
from .._ops.nn import conv


class _Layout:
    """A convolution's geometry (``conv._Geometry``) and the column layout of this path: ``row`` is the
    length of one output row in the columns, for stride 1 the padded input's width ("wide rows": each
    kernel offset's columns are then one contiguous run of the flattened input, and the extra kw-1 entries
    per row are discarded), otherwise the output width."""

    __slots__ = ("k", "s", "p", "d", "groups", "hw", "out_hw", "one_d", "wide", "pad_hw", "row")

    def __init__(self, geo):
        self.k, self.s, self.p, self.d, self.groups, self.hw = geo.k, geo.s, geo.p, geo.d, geo.groups, geo.hw
        self.out_hw, self.one_d, self.pad_hw = geo.out_hw, geo.one_d, geo.pad_hw
        self.wide = geo.s == (1, 1)
        self.row = self.pad_hw[1] if self.wide else self.out_hw[1]


class _Pool:
    """Scratch arrays kept between calls: a fresh 40 MB array costs page faults on every step.

    Only arrays that never escape into a tensor go back here (columns, padded copies). Each thread of a
    parallel convolution takes its own; a lock keeps two threads from taking the same one."""

    def __init__(self):
        self.free = {}
        self.lock = threading.Lock()

    def take(self, key: tuple):
        """A spare array kept under ``key``, or None."""
        with self.lock:
            spare = self.free.get(key)
            return spare.pop() if spare else None

    def get(self, tag: str, shape: tuple, dtype) -> np.ndarray:
        a = self.take((tag, shape, dtype))
        return np.empty(shape, dtype) if a is None else a

    def put(self, tag: str, a: np.ndarray) -> None:
        with self.lock:
            if len(self.free) > 32 and (tag, a.shape, a.dtype) not in self.free:
                self.free.clear()  # many shapes (varying batch or image sizes): keep memory bounded
            spare = self.free.setdefault((tag, a.shape, a.dtype), [])
            if len(spare) < 1 + max(1, parallel.get_num_threads()):
                spare.append(a)


_pool = _Pool()


def _compiled(*arrays):
    """The compiled kernels of the convolution (``compiled/conv.py``) where every array given (None aside) is
    float32 or float64 alike, else None (and None without numba: the numpy path)."""
    dts = {a.dtype for a in arrays if a is not None}
    if len(dts) != 1 or dts.pop() not in compiled.FLOATS:
        return None
    return compiled.family("conv")


def _as4(a: np.ndarray, one_d: bool) -> np.ndarray:
    return a[:, :, None, :] if one_d else a


def _from4(a: np.ndarray, one_d: bool) -> np.ndarray:
    return a[:, :, 0, :] if one_d else a


def _padded(x: np.ndarray, geo: _Layout) -> np.ndarray:
    """x (N, C, H, W) inside zeros of the padded size, plus one spare row for the wide layout."""
    n, c, h, w = x.shape
    (ph, pw), (hp, wp) = geo.p, geo.pad_hw
    shape = (n, c, hp + geo.wide, wp)
    if shape == x.shape:
        return x
    # a pooled buffer with this interior at this place has zeros around it, which every call
    # overwrites: the key holds the placement, since other paddings of other inputs give the same shape
    xp = _pool.take((_padded_tag(x, geo), shape, x.dtype))
    if xp is None:
        xp = np.zeros(shape, x.dtype)
    parallel.copyto(xp[:, :, ph:ph + h, pw:pw + w], x)
    return xp


def _padded_tag(x: np.ndarray, geo: _Layout) -> tuple:
    return ("xp",) + tuple(geo.p) + x.shape[2:]


def _release_padded(xp: np.ndarray, x: np.ndarray, geo: _Layout) -> None:
    """Give a padded copy back to the pool; never the input itself (or a view of it)."""
    if xp.base is None and xp is not x and xp.shape != x.shape:
        _pool.put(_padded_tag(x, geo), xp)


_CHUNK_BYTES = 1 << 20  # columns of a few samples at a time stay in cache between the GEMM and its copy (1 MB
# measured best for the MNIST net's training step: 3 MB 4% slower, one chunk for the whole batch 20%)


def _chunks(n: int, geo: _Layout, k: int, itemsize: int):
    """Sample ranges whose (k, samples*Ho*row) columns fit in about _CHUNK_BYTES."""
    per = k * geo.out_hw[0] * geo.row * itemsize
    nb = max(1, min(n, _CHUNK_BYTES // max(per, 1)))
    return [(i, min(i + nb, n)) for i in range(0, n, nb)]


def _scratch(n_elems: int, dtype) -> np.ndarray:
    """A flat pooled array of at least ``n_elems``: chunk buffers are reused, not faulted in anew."""
    return _pool.get("scratch", (n_elems,), np.dtype(dtype))


def _view(flat: np.ndarray, shape: tuple) -> np.ndarray:
    return flat[:math.prod(shape)].reshape(shape)


def _windows(xp: np.ndarray, geo: _Layout) -> np.ndarray:
    """The read-only strided view (C, kh, kw, N, Ho*row) (or (..., N, Ho, Wo)) of the padded input that
    im2col copies: made once per convolution, sliced per chunk of samples (for stride 1 each kernel
    offset is one contiguous run of a padded image)."""
    n, c = xp.shape[:2]
    (kh, kw), (sh, sw), (dh, dw) = geo.k, geo.s, geo.d
    ho, wo = geo.out_hw
    s0, s1, s2, s3 = xp.strides
    if geo.wide:
        shape, strides = (c, kh, kw, n, ho * geo.row), (s1, s2 * dh, s3 * dw, s0, s3)
    else:
        shape, strides = (c, kh, kw, n, ho, wo), (s1, s2 * dh, s3 * dw, s0, s2 * sh, s3 * sw)
    return as_strided(xp, shape, strides, writeable=False)


def _im2col(windows: np.ndarray, geo: _Layout, n0: int, n1: int, buf: np.ndarray | None = None) -> np.ndarray:
    """Columns (groups, C/groups*kh*kw, nb*Ho*row) of samples n0:n1: one copy of ``_windows``' slice."""
    src = windows[:, :, :, n0:n1]
    col = np.empty(src.shape, src.dtype) if buf is None else _view(buf, src.shape)
    np.copyto(col, src)
    g, c, kh, kw = geo.groups, src.shape[0], src.shape[1], src.shape[2]
    return col.reshape(g, c // g * kh * kw, (n1 - n0) * geo.out_hw[0] * geo.row)


def rows_tag(geo: _Layout) -> tuple:
    """The pool's tag of ``_rows_of``'s arrays: their shape does not say how many leading columns of each
    row a gradient fills (Wo), and the columns after those must be the zeros written when the array was
    made, so arrays are shared only between geometries with the same Wo."""
    return ("rows", geo.out_hw[1])


def put_rows(rows: np.ndarray, geo: _Layout) -> None:
    """Give ``_rows_of``'s array back to the pool."""
    _pool.put(rows_tag(geo), rows.reshape(rows.shape[0], -1, geo.out_hw[0], geo.row))


def _rows_of(y: np.ndarray, geo: _Layout) -> np.ndarray:
    """An (N, O, Ho, Wo) gradient as (O, N*Ho*row): channel-major, zero-padded to the row length."""
    n, o, ho, wo = y.shape
    out = _pool.take((rows_tag(geo), (o, n, ho, geo.row), y.dtype))
    if out is None:  # the padding columns are zeroed once: pooled rows are only read after this copy
        out = np.empty((o, n, ho, geo.row), y.dtype)
        out[..., wo:] = 0
    parallel.copyto(out[..., :wo], y.transpose(1, 0, 2, 3))
    return out.reshape(o, n * ho * geo.row)


def _col2im_add(buf: np.ndarray, col: np.ndarray, geo: _Layout) -> None:
    """Add columns (C*kh*kw, nb*Ho*Wo) into padded images buf (C, nb, Hp, Wp): one strided add per kernel
    offset (the wide layout of stride 1 goes through ``_col2im_wide``)."""
    (kh, kw), (sh, sw), (dh, dw) = geo.k, geo.s, geo.d
    (ho, wo) = geo.out_hw
    c, nb = buf.shape[:2]
    col = col.reshape(c, kh, kw, nb, ho, wo)
    for i in range(kh):
        for j in range(kw):
            buf[:, :, i * dh:i * dh + (ho - 1) * sh + 1:sh, j * dw:j * dw + (wo - 1) * sw + 1:sw] += col[:, i, j]


def _parts(chunks: list, work: int) -> list:
    """Contiguous runs of ``chunks`` (as index ranges), one per thread when the convolution's ``work``
    (elements of its columns) is worth splitting on this machine; each run is computed as on one thread."""
    if work < 2 * parallel.GRAIN or work < 2 * parallel.scaled(parallel.GRAIN):
        return [(0, len(chunks))]
    return parallel.ranges(len(chunks), 1)


@silent  # (PyTorch's convolutions compute inf * 0 silently)
def _conv_fwd(x, w, b, geo):
    """y (N, O, Ho, Wo) = w * x + b.

    Chunks of samples are independent (columns, GEMM, copy out): threads take runs of them."""
    x4, w4 = _as4(x, geo.one_d), _as4(w, geo.one_d)
    n, g, o = x4.shape[0], geo.groups, w4.shape[0]
    (ho, wo), row = geo.out_hw, geo.row
    if n == 0:  # an empty batch: no chunks to run (PyTorch returns the empty result)
        return _from4(np.zeros((0, o, ho, wo), x.dtype), geo.one_d)
    xp = _padded(x4, geo)
    wm = w4.reshape(g, o // g, -1)
    out = np.empty((n, o, ho, wo), x.dtype)
    bias = None if b is None else b[:, None, None]
    chunks = _chunks(n, geo, wm.shape[2] * g, x.itemsize)
    most = (chunks[0][1] - chunks[0][0]) * ho * row
    windows = _windows(xp, geo)
    fast = _compiled(x, w, b)
    fast_bias = None if fast is None else (compiled.NONE[x.dtype] if b is None else np.ascontiguousarray(b))

    def body(i0, i1):
        colbuf, prodbuf = _scratch(wm.shape[2] * g * most, x.dtype), _scratch(o * most, x.dtype)
        for n0, n1 in chunks[i0:i1]:
            col = _im2col(windows, geo, n0, n1, colbuf)
            prod = _view(prodbuf, (g, o // g, col.shape[2]))
            np.matmul(wm, col, out=prod)
            if fast is not None:  # the copy and the bias's add below, in one pass
                fast.product_into(prod.reshape(o, -1), fast_bias, ho, row, out[n0:n1])
                continue
            prod = prod.reshape(o, n1 - n0, ho, row)[..., :wo].transpose(1, 0, 2, 3)
            np.copyto(out[n0:n1], prod)
            if bias is not None:  # added after the copy, on contiguous rows: numpy adds strided views slowly
                np.add(out[n0:n1], bias, out=out[n0:n1])
        _pool.put("scratch", colbuf)
        _pool.put("scratch", prodbuf)

    parallel.run(body, _parts(chunks, wm.shape[2] * g * n * ho * row), blas=True)
    _release_padded(xp, x4, geo)
    return _from4(out, geo.one_d)


def _minus_zero_slabs(geo: _Layout, shape: tuple, dtype) -> list:
    """Per kernel offset, a pooled (C, nb, plane) array holding -0.0 outside the plane range that the
    offset's columns land on: x + (-0.0) is x for every x (+0.0, -0.0, inf and NaN included), so adding
    the whole slab adds only its window, as one contiguous add. Give them back with ``_put_slabs``."""
    slabs = []
    for window in _slab_windows(geo):
        slab = _pool.take((("slab",) + window, shape, np.dtype(dtype)))
        slabs.append(np.full(shape, -0.0, dtype) if slab is None else slab)
    return slabs


def _slab_windows(geo: _Layout) -> list:
    (kh, kw), (dh, dw), wp = geo.k, geo.d, geo.pad_hw[1]
    span = geo.out_hw[0] * wp
    return [(i * dh * wp + j * dw, i * dh * wp + j * dw + span) for i in range(kh) for j in range(kw)]


def _put_slabs(geo: _Layout, slabs: list) -> None:
    for window, slab in zip(_slab_windows(geo), slabs):
        _pool.put(("slab",) + window, slab)


def _col2im_wide(acc: np.ndarray, col: np.ndarray, geo: _Layout, slabs: list) -> None:
    """``_col2im_add`` for the wide layout with the same adds in the same order, each one whole-array:
    numpy adds a strided (C, nb, span) view at a quarter of its contiguous speed, but copies it fast."""
    c, nb = acc.shape[:2]
    col = col.reshape(c, len(slabs), nb, -1)
    for t, ((lo, hi), slab) in enumerate(zip(_slab_windows(geo), slabs)):
        np.copyto(slab[:, :, lo:hi], col[:, t])
        np.add(acc, slab, out=acc)


@silent
def _conv_t_fwd(y, w, geo, rows=None):
    """x (N, C, H, W) such that <x, h> = <y, conv(h, w)>: the input gradient of conv.

    Per chunk of samples: columns = w^T rows (one GEMM), then col2im into a zeroed (C, nb, plane)
    scratch, whose interior is copied into the output. Chunks are independent: threads take runs of them."""
    y4, w4 = _as4(y, geo.one_d), _as4(w, geo.one_d)
    n, g, o = y4.shape[0], geo.groups, w4.shape[0]
    c = w4.shape[1] * g
    if n == 0:
        return _from4(np.zeros((0, c) + tuple(geo.hw), y.dtype), geo.one_d)
    wm = w4.reshape(g, o // g, -1).transpose(0, 2, 1)
    own = rows is None
    if own:
        rows = _rows_of(y4, geo)
    (h, w), (ph, pw), (hp, wp) = geo.hw, geo.p, geo.pad_hw
    plane = (hp + geo.wide) * wp
    out = np.empty((n, c, h, w), y.dtype)
    per = geo.out_hw[0] * geo.row
    chunks = _chunks(n, geo, wm.shape[1] * g, y.itemsize)
    most = chunks[0][1] - chunks[0][0]
    if geo.wide and most == 1:
        body = _conv_t_one_sample(rows, w4, geo, out, chunks)
        parallel.run(body, _parts(chunks, wm.shape[1] * g * n * per), blas=True)
        if own:
            put_rows(rows, geo)
        return _from4(out, geo.one_d)

    def body(i0, i1):
        colbuf, accbuf = _scratch(wm.shape[1] * g * most * per, y.dtype), _scratch(c * most * plane, y.dtype)
        slabs = _minus_zero_slabs(geo, (c, most, plane), y.dtype) if geo.wide else None
        for n0, n1 in chunks[i0:i1]:
            chunk = rows[:, n0 * per:n1 * per]
            col = _view(colbuf, (g, wm.shape[1], (n1 - n0) * per))
            if g == 1:
                np.matmul(wm[0], chunk, out=col[0])
            else:
                np.matmul(wm, chunk.reshape(g, o // g, -1), out=col)
            acc = _view(accbuf, (c, n1 - n0, plane))
            acc.fill(0)
            if geo.wide and n1 - n0 == most:
                _col2im_wide(acc, col, geo, slabs)
            elif geo.wide:  # the last, shorter chunk: its slabs are views of the first ones' start
                _col2im_wide(acc, col, geo, [_view(slab.reshape(-1), acc.shape) for slab in slabs])
            else:
                _col2im_add(acc.reshape(c, n1 - n0, hp, wp), col, geo)
            img = acc[:, :, :hp * wp].reshape(c, n1 - n0, hp, wp)[:, :, ph:ph + h, pw:pw + w]
            np.copyto(out[n0:n1], img.transpose(1, 0, 2, 3))
        _pool.put("scratch", colbuf)
        _pool.put("scratch", accbuf)
        if slabs is not None:
            _put_slabs(geo, slabs)

    parallel.run(body, _parts(chunks, wm.shape[1] * g * n * per), blas=True)
    if own:
        put_rows(rows, geo)
    return _from4(out, geo.one_d)


def _conv_t_one_sample(rows, w4, geo, out, chunks):
    """``_conv_t_fwd``'s loop body for the wide layout with chunks of one sample (large images), without
    slabs: the GEMM's rows are ordered (kernel offset, channel) and written into the first ``per`` entries
    of plane-long rows whose other entries hold -0.0, so the columns of one offset are already its slab,
    and col2im is one contiguous add per offset (and group) into the accumulator: the same adds in the same
    order as ``_col2im_wide``. An add runs past its channel's plane only with -0.0, into the next channel or
    a spare tail, where it changes nothing."""
    g, o, cg = geo.groups, w4.shape[0], w4.shape[1]
    kk, c = geo.k[0] * geo.k[1], cg * geo.groups
    (h, w), (ph, pw), (hp, wp) = geo.hw, geo.p, geo.pad_hw
    plane, per = (hp + 1) * wp, geo.out_hw[0] * geo.row
    wt = np.ascontiguousarray(w4.reshape(g, o // g, cg, kk).transpose(0, 3, 2, 1)).reshape(g, kk * cg, o // g)
    seg, starts = cg * plane, [lo for lo, _ in _slab_windows(geo)]
    spare, dtype = max(starts), out.dtype

    # pooled per output size too: a GEMM of another geometry with the same planes (another stride or dilation)
    # wrote past this one's ``per`` entries, where this one needs -0.0
    tag = ("offset cols", per)
    fast = _compiled(rows, w4)  # the fill, adds and copy below in one pass over each channel's plane
    fast_starts = None if fast is None else np.array(starts, np.int64)

    def body(i0, i1):
        cols = _pool.take((tag, (g, kk, cg, plane), dtype))
        if cols is None:
            cols = np.full((g, kk, cg, plane), -0.0, dtype)
        accbuf = _scratch(c * plane + spare, dtype)
        acc = accbuf[:c * plane + spare]
        target = cols.reshape(g, kk * cg, plane)[:, :, :per]  # the GEMM writes here only: the rest stays -0.0
        for n0, _ in chunks[i0:i1]:
            chunk = rows[:, n0 * per:(n0 + 1) * per]
            if g == 1:
                np.matmul(wt[0], chunk, out=target[0])
            else:
                np.matmul(wt, chunk.reshape(g, o // g, per), out=target)
            if fast is not None:
                fast.col2im_one(cols, fast_starts, per, wp, ph, pw, out[n0].reshape(c, h, w), acc)
                continue
            acc.fill(0)
            for gi in range(g):
                for t, lo in enumerate(starts):
                    part = acc[gi * seg + lo:(gi + 1) * seg + lo]
                    np.add(part, cols[gi, t].reshape(-1), out=part)
            img = acc[:c * plane].reshape(c, plane)[:, :hp * wp].reshape(c, hp, wp)[:, ph:ph + h, pw:pw + w]
            np.copyto(out[n0], img)
        _pool.put("scratch", accbuf)
        _pool.put(tag, cols)

    return body


_PRODUCTS_BYTES = 8 << 20  # at most this much of per-chunk weight-gradient products held at once


@silent
def _conv_w_fwd(x, y, geo, rows=None):
    """w (O, C/g, kh, kw) such that <w, v> = <y, conv(x, v)>: the weight gradient of conv.

    The gradient is the sum over chunks of samples of one GEMM each, added in chunk order. On several
    threads the GEMMs of a wave of chunks run in parallel into their own arrays, which are then added
    in that same order (split over the gradient's elements): the same sums as on one thread."""
    x4, y4 = _as4(x, geo.one_d), _as4(y, geo.one_d)
    n, g, o = x4.shape[0], geo.groups, y4.shape[1]
    c = x4.shape[1]
    if n == 0:  # a sum over no samples
        return np.zeros((o, c // g) + ((geo.k[1],) if geo.one_d else geo.k), x.dtype)
    xp = _padded(x4, geo)
    own = rows is None
    if own:
        rows = _rows_of(y4, geo)
    kg = c // g * geo.k[0] * geo.k[1]
    # summed as its transpose, columns times rows^T: OpenBLAS runs that product ~20% faster than rows times
    # columns^T (the same sums in the same order, so the same floats)
    gw = np.zeros((g, kg, o // g), x.dtype)
    per = geo.out_hw[0] * geo.row
    chunks = _chunks(n, geo, kg * g, x.itemsize)
    most = kg * g * (chunks[0][1] - chunks[0][0]) * per
    windows = _windows(xp, geo)

    def product(n0, n1, colbuf, into=None):
        col = _im2col(windows, geo, n0, n1, colbuf)
        chunk = rows[:, n0 * per:n1 * per]
        if g == 1:
            return np.matmul(col[0], chunk.T, out=None if into is None else into[0])
        return np.matmul(col, chunk.reshape(g, o // g, -1).transpose(0, 2, 1), out=into)

    parts = _parts(chunks, most // (chunks[0][1] - chunks[0][0]) * n)
    if len(parts) == 1 or parallel.get_num_threads() < 2:
        def serial(_0, _1):
            colbuf = _scratch(most, x.dtype)
            for n0, n1 in chunks:
                if g == 1:
                    gw[0] += product(n0, n1, colbuf)
                else:
                    gw[...] += product(n0, n1, colbuf)
            _pool.put("scratch", colbuf)

        parallel.run(serial, [(0, 1)], blas=True)  # one-thread BLAS, as the parallel products
    else:
        wave = max(len(parts), min(len(chunks), _PRODUCTS_BYTES // max(gw.nbytes, 1)))
        prods = _pool.get("products", (wave,) + gw.shape, x.dtype)
        flat_gw, flat_prods = gw.reshape(-1), prods.reshape(wave, -1)
        for w0 in range(0, len(chunks), wave):
            these = chunks[w0:w0 + wave]

            def body(i0, i1, these=these):
                colbuf = _scratch(most, x.dtype)
                for i in range(i0, i1):
                    product(*these[i], colbuf, into=prods[i])
                _pool.put("scratch", colbuf)

            parallel.run(body, parallel.ranges(len(these), 1), blas=True)

            def add(e0, e1, these=these):
                for i in range(len(these)):  # chunk order, as the one-thread loop adds them
                    np.add(flat_gw[e0:e1], flat_prods[i, e0:e1], out=flat_gw[e0:e1])

            parallel.parallel_for(flat_gw.size, add, grain=parallel.GRAIN // max(1, len(these)))
        _pool.put("products", prods)
    if own:
        put_rows(rows, geo)
    _release_padded(xp, x4, geo)
    shape = (o, c // g) + ((geo.k[1],) if geo.one_d else geo.k)
    return np.ascontiguousarray(gw.transpose(0, 2, 1)).reshape(shape)


# -- registered onto the op file's steps ------------------------------------------------------------
_ANY = "every convolution (float32/float64 and the other dtypes numpy's matmul takes; any geometry)"


@paths.kernel(conv, "_conv_arrays", ulps=8, scale="max", when=_ANY,
              why="speed: columns of a few samples at a time stay in cache, stride 1 reads whole rows, chunks run "
                  "across threads, the copy-out with the bias compiled; im2col and one GEMM, as PyTorch's "
                  "CPU kernel")
def conv_arrays(x, w, b, geo):
    return _conv_fwd(x, w, b, _Layout(geo))


@paths.kernel(conv, "_conv_t_arrays", ulps=8, scale="max", when=_ANY,
              why="speed: chunks of samples, whole-array adds per kernel offset, across threads, a compiled col2im "
                  "for one sample a chunk; one GEMM and col2im, as PyTorch's CPU kernel")
def conv_t_arrays(y, w, geo):
    return _conv_t_fwd(y, w, _Layout(geo))


@paths.kernel(conv, "_conv_w_arrays", ulps=64, scale="max", when=_ANY,
              why="speed: one product per chunk of samples, added in chunk order (the sums split by chunk), the "
                  "products of several chunks across threads")
def conv_w_arrays(x, y, geo):
    return _conv_w_fwd(x, y, _Layout(geo))


@paths.kernel(conv, "_conv_grads_arrays", ulps=64, scale="max", when=_ANY,
              why="speed: both gradients read the gradient's channel-major rows, built once")
def conv_grads_arrays(g, x, w, geo):
    geo = _Layout(geo)
    rows = _rows_of(_as4(g, geo.one_d), geo)
    gx = _conv_t_fwd(g, w, geo, rows)
    gw = _conv_w_fwd(x, g, geo, rows)
    put_rows(rows, geo)
    return gx, gw
