"""The steps of PyTorch's CPU LayerNorm forward on float32 rows, in the kernel's order, for layer_norm's
float32 CPU path (``norm.py``): each row's mean and variance by ATen's ``RowwiseMoments``, then
``(x - mean) * rstd`` scaled and shifted with one rounding. ``_ops/_kernels/compiled/layer_norm.py``'s
``pytorch_forward_into`` runs the same steps one row at a time (numba, the same floats); this numpy form
runs where numba does not.

``RowwiseMoments`` runs Welford's update on 8 float32 lanes (a 32-byte vector) over chunks of 16 vectors
(``m1 = fma(1 / (j + 1), x - m1, m1)``, ``m2 = fma(x - m1_old, x - m1, m2)``), merges each chunk into a
stack of partial moments that adds neighbours in a binary cascade (``m1 + c * delta``;
``fma(delta * m0, c * delta, m2 + m2_add)``), then the leftover elements one by one (``m1 += delta / k``,
``m2 += delta * (x - m1)``, rounded twice: fused, it misses PyTorch's bits on a share of rows) and the 8
lanes into those in order (``m1 = fma(c, delta, m1)``, ``m2 + fma(delta * delta * c, m0, m2_add)``); the
variance is ``m2 / N``, ``rstd = 1 / sqrt(var + eps)``. The output is ``fma((x - mean) * rstd, weight,
bias)`` (no weight: ``fma(x - mean, rstd, bias)``).

These are PyTorch's AVX2 build (its AVX-512 build registers no LayerNorm kernel and runs the AVX2 one),
whose fused multiply-adds are emulated exactly (``muladd.fma32_into``: the same floats as
``muladd.addcmul_into``). PyTorch's DEFAULT build runs the same steps with each multiply-add rounded twice:
there the values differ by an ulp now and then.

The rows are worked on together, in blocks of rows, and so are the chunks: the chunks are independent
until the cascade, so the vectors are copied position by position and each of the 16 Welford steps is one
numpy step over vector j of every chunk of every row (a short last chunk stops at its count); the
cascade's merges are one step per level over all its pairs, in the order the binary counter makes them.
So a call costs about two dozen numpy passes over the input however long its rows are. (Where a row mixes NaN with
infinities, the sign of its NaN statistics is whichever NaN numpy's loops pass on, as PyTorch's is its
instructions' choice.)"""
from __future__ import annotations

import math

import numpy as np

from .._quiet_fp import silent
from .._ops._kernels.muladd import fma32_into

_F32, _F64 = np.float32, np.float64
LANES = 8  # float32 lanes of the 32-byte vector RowwiseMoments runs on
CHUNK = 16  # vectors a chunk's Welford loop takes before its moments join the cascade
_STEP = [_F32(1) / _F32(j + 1) for j in range(CHUNK)]  # the chunk loop's 1 / (j + 1), rounded once
# elements of the input the moments take at a time (a few numpy calls per block and vector position: long
# enough to be worth them), and the scale and shift (its float64 scratch stays in the cache)
_MOMENTS_BLOCK, _OUT_BLOCK = 1 << 21, 1 << 16


class _Scratch:
    """A call's scratch: flat buffers by name, grown as needed and reused by every block of rows (fresh
    memory costs its page faults once), and exact float32 multiply-adds (``muladd.fma32_into``) through
    two of them."""

    def __init__(self):
        self._buffers, self._views = {}, {}

    def take(self, name: str, shape: tuple, dtype=_F32) -> np.ndarray:
        """A C-contiguous array of ``shape`` on buffer ``name`` (its values left from earlier use)."""
        view = self._views.get((name, shape))
        if view is None:
            k = math.prod(shape)
            buf = self._buffers.get(name)
            if buf is None or buf.size < k:
                buf = self._buffers[name] = np.empty(k, dtype)
            view = self._views[name, shape] = buf[:k].reshape(shape)
        return view

    def fma(self, a, b, c, out: np.ndarray, exact_ties: bool = False) -> np.ndarray:
        """``out[...] = fma(a, b, c)`` (``exact_ties``: ``fma32_into``'s, where ``c`` is 0 or a factor a
        power of two); returns ``out``."""
        fma32_into(out, a, b, c, self.take("fma", out.shape, _F64), self.take("fma_bits", out.shape, np.int64),
                   exact_ties)
        return out


def _merge_lanes(part: tuple, into: tuple, scratch: _Scratch) -> tuple:
    """AddMomentsVec: (counts, means, m2s) of parts joined to the parts ``into``, one pair of parts per entry
    along axis 0 of the (parts, rows, LANES) moments (counts: int arrays of shape (parts,), or (1,) to
    broadcast)."""
    m0_add, m1_add, m2_add = part
    m0, m1, m2 = into
    n = m0 + m0_add
    c = (m0_add.astype(_F32) / np.maximum(n, 1).astype(_F32))[:, None, None]  # 0 where both are empty
    delta = m1_add - m1
    c_delta = c * delta
    m0_delta = delta * m0.astype(_F32)[:, None, None]
    return n, m1 + c_delta, scratch.fma(m0_delta, c_delta, m2 + m2_add, out=np.empty(c_delta.shape, _F32),
                                        exact_ties=not m0.any())  # joined to empty parts: m0_delta is 0


def _merge_scalar(m0_add: int, m1_add, m2_add, m0: int, m1, m2, scratch: _Scratch) -> tuple:
    """AddMoments: the same join on one lane (the scalar code, compiled with its multiply-adds fused)."""
    n = m0 + m0_add
    c = _F32(0) if n == 0 else _F32(m0_add) / _F32(n)
    delta = m1_add - m1
    m1 = scratch.fma(c, delta, m1, out=np.empty_like(delta), exact_ties=_power_of_two(c))
    return n, m1, m2 + scratch.fma(delta * delta * c, _F32(m0), m2_add, out=delta, exact_ties=_power_of_two(m0))


def _power_of_two(v) -> bool:
    """Whether ``v`` is 0 or a power of two (a product with it keeps the other factor's 24 bits)."""
    return v == 0 or abs(math.frexp(v)[0]) == 0.5


def _chunk_moments(x: np.ndarray, n: int, scratch: _Scratch) -> tuple:
    """(counts, m1, m2) of the chunks of the first ``n`` vectors of each row of ``x``, the moments of shape
    (chunks, rows, LANES): Welford's update at vector position j of every chunk at once (a short last chunk
    left out past its count), on a copy of the vectors laid out position by position."""
    rows = x.shape[0]
    chunks, full, last = -(-n // CHUNK), n // CHUNK, n % CHUNK  # last: the vectors of a short last chunk
    vectors = x[:, :n * LANES].reshape(rows, n, LANES)
    by_position = scratch.take("by_position", (CHUNK, chunks, rows, LANES))
    by_position[:, :full] = vectors[:, :full * CHUNK].reshape(rows, full, CHUNK, LANES).transpose(2, 1, 0, 3)
    by_position[:last, full:] = vectors[:, full * CHUNK:, None].transpose(1, 2, 0, 3)
    counts = np.full(chunks, CHUNK)
    counts[full:] = last
    m1, m2 = np.empty((2, chunks, rows, LANES), _F32)
    delta, delta2 = scratch.take("delta", (2, chunks, rows, LANES))
    wide = scratch.take("wide", m1.shape, _F64)  # delta in float64, a factor of both multiply-adds
    if n:  # the first step, from zeros: m1 = 1 * x + 0, m2 = x * (x - m1) + 0, exact products (0 or NaN)
        v = by_position[0]
        np.add(v, _F32(0), out=m1)
        np.add(np.multiply(v, np.subtract(v, m1, out=delta2), out=m2), _F32(0), out=m2)
    for j in range(1, min(n, CHUNK)):
        k = chunks if j < last or not last else full  # the chunks that have a vector j
        v, a1, a2, d, d2, d64 = by_position[j, :k], m1[:k], m2[:k], delta[:k], delta2[:k], wide[:k]
        np.copyto(d64, np.subtract(v, a1, out=d))
        scratch.fma(_STEP[j], d64, a1, out=a1, exact_ties=(j & (j + 1)) == 0)
        scratch.fma(d64, np.subtract(v, a1, out=d2), a2, out=a2)
    return counts, m1, m2


def _cascade(chunks: tuple, depth: int, scratch: _Scratch) -> tuple:
    """RowwiseMoments' stack of partial moments, ``depth`` levels, once every chunk has joined it: each level
    takes the parts of the level below in pairs (the first joined to the empty level, the second to that)
    and hands each pair up (the top level keeps its pair); a level's odd part out is what it holds at the
    end. The levels then join level 0 in order."""
    counts, m1, m2 = chunks
    zero = np.zeros((1,) + m1.shape[1:], _F32)
    empty = (np.zeros(1, int), zero, zero)
    stack = []
    for _ in range(depth):
        k = len(counts)
        first = _merge_lanes((counts[0::2], m1[0::2], m2[0::2]), empty, scratch)
        stack.append(tuple(a[-1:] for a in first) if k % 2 else empty)
        counts, m1, m2 = _merge_lanes((counts[1::2], m1[1::2], m2[1::2]), tuple(a[:k // 2] for a in first), scratch)
    if len(counts):  # the top level's pair (it holds at most two parts)
        stack[-1] = (counts, m1, m2)
    top = stack[0]
    for level in range(1, depth):
        top = _merge_lanes(stack[level], top, scratch)
    return top


def _moments(x: np.ndarray, scratch: _Scratch) -> tuple[np.ndarray, np.ndarray]:
    """rowwise_moments of a block of rows."""
    rows, size = x.shape
    n = size // LANES  # whole vectors per row
    chunks = -(-n // CHUNK)
    depth = 1 if chunks <= 2 else int(chunks - 1).bit_length()
    _, lane_m1, lane_m2 = _cascade(_chunk_moments(x, n, scratch), depth, scratch)
    count, mean, m2 = 0, np.zeros(rows, _F32), np.zeros(rows, _F32)
    for k in range(n * LANES, size):  # the leftover elements, one by one
        v = x[:, k]
        delta = v - mean
        count += 1
        mean = mean + delta / _F32(count)
        m2 = m2 + delta * (v - mean)
    lane_m1, lane_m2 = (np.ascontiguousarray(a.reshape(rows, LANES).T) for a in (lane_m1, lane_m2))
    for lane in range(LANES):
        count, mean, m2 = _merge_scalar(n, lane_m1[lane], lane_m2[lane], count, mean, m2, scratch)
    return mean, m2 / _F32(size)


def _blocks(rows: int, size: int, block: int):
    """Slices of about ``block`` elements of rows of ``size``, at least a row each."""
    step = max(1, block // max(size, 1))
    return (slice(r, r + step) for r in range(0, rows, step))


def _rowwise_moments(x: np.ndarray, scratch: _Scratch) -> tuple[np.ndarray, np.ndarray]:
    """rowwise_moments, block by block of rows through one scratch."""
    mean, var = np.empty((2, x.shape[0]), _F32)
    for rs in _blocks(*x.shape, _MOMENTS_BLOCK):
        mean[rs], var[rs] = _moments(x[rs], scratch)
    return mean, var


@silent  # rows holding inf or NaN: PyTorch's NaN statistics, without numpy's warnings
def rowwise_moments(x: np.ndarray) -> tuple[np.ndarray, np.ndarray]:
    """(mean, biased variance) of each row of a 2-d float32 array, each of shape (rows,)."""
    return _rowwise_moments(x, _Scratch())


@silent
def mean_rstd(x: np.ndarray, eps: float) -> tuple[np.ndarray, np.ndarray]:
    """(mean, 1 / sqrt(var + eps)) of each row of a 2-d float32 array, as LayerNorm's kernel keeps them."""
    mean, var = rowwise_moments(x)
    return mean, _F32(1) / np.sqrt(var + _F32(eps))


@silent
def layer_norm_rows(x: np.ndarray, weight: np.ndarray | None, bias: np.ndarray | None,
                    eps: float) -> tuple[np.ndarray, np.ndarray, np.ndarray]:
    """(out, mean, rstd) of LayerNorm over the rows of a 2-d float32 array (``weight``/``bias`` float32 of a
    row's length, or None); mean and rstd of shape (rows,)."""
    scratch = _Scratch()
    mean, var = _rowwise_moments(x, scratch)
    rstd = _F32(1) / np.sqrt(var + _F32(eps))
    out = np.empty(x.shape, _F32)
    w, b = (None if a is None else a.astype(_F64) for a in (weight, bias))  # float64 factors: no casts
    for rs in _blocks(*x.shape, _OUT_BLOCK):
        o, m, s = out[rs], mean[rs, None], rstd[rs, None]
        np.subtract(x[rs], m, out=o)
        if w is None and b is not None:
            scratch.fma(o, s, b, out=o)
            continue
        np.multiply(o, s, out=o)
        if w is not None and b is not None:
            scratch.fma(o, w, b, out=o)
        elif w is not None:
            scratch.fma(o, w, _F32(0), out=o, exact_ties=True)
    return out, mean, rstd
