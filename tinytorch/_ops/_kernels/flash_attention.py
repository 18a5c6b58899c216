"""The steps of PyTorch's CPU flash-attention kernel on float32/float64 arrays, for
``scaled_dot_product_attention`` (``_ops/nn/attention.py``, whose graph path is the formula): the forward's
exponentials times V scaled by the reciprocal row sums, and the backward's products, in the kernel's
order. Row sums are one BLAS matrix-vector product with a ones vector (the lanes-then-tree order of a
vectorised row sum), which gives PyTorch's floats more often than numpy's pairwise sums.
``tests/ops/_kernels/test_kernels_formulas.py`` compares both with the formula on generated inputs."""
from __future__ import annotations

import numpy as np

from ..._quiet_fp import silent
from . import parallel
from .parallel import matmul as _gemm

_ONES: dict = {}


def _mT(a: np.ndarray) -> np.ndarray:
    return a.swapaxes(-1, -2)


# OpenBLAS runs a matrix-vector product of this many elements or more on its threads, cutting the rows where
# its thread count puts the cut; its kernel sums a row at the end of a run of rows in another order than one
# inside it, so a row's float would depend on the thread count (numpy 1.24's OpenBLAS 0.3.21 at 3 threads on
# 4096 rows; 0.3.31 at 20,000). Row sums are one-thread calls instead, over runs of whole ROW_BLOCKs of rows
# (a cut between blocks changes no row's float), across the pool from ROW_SUMS_GRAIN elements a part: below
# that a region's start costs more than the second thread saves (2 threads here: 1 million floats 145 us on
# one thread, 190 us cut in two; 8.4 million 1.20 ms and 0.72 ms; OpenBLAS's own threads 47 us and 0.61 ms).
_BLAS_THREADED_FROM = 4096
ROW_BLOCK = 64
ROW_SUMS_GRAIN = 1 << 21


def row_sums(e: np.ndarray) -> np.ndarray:
    """The sums over the last dim of a C-contiguous float32/float64 array, dims kept, as BLAS
    matrix-vector products with a ones vector (no per-row cost on short rows), each on one BLAS thread (the
    same floats on any thread count)."""
    n = e.shape[-1]
    if n == 0 or e.size == 0:  # no keys (or no rows): empty sums, which a (-1, 0) reshape can't give
        return e.sum(axis=-1, keepdims=True)
    key = (n, e.dtype)
    ones = _ONES.get(key)
    if ones is None:
        if len(_ONES) > 32:
            _ONES.clear()
        ones = _ONES[key] = np.ones(n, dtype=e.dtype)
    flat = e.reshape(-1, n)
    if e.size < _BLAS_THREADED_FROM or (parallel.blas_threads() or 1) == 1 and e.size < 2 * ROW_SUMS_GRAIN:
        return np.matmul(flat, ones).reshape(e.shape[:-1] + (1,))
    out = np.empty(flat.shape[0], e.dtype)

    def body(start, stop):
        lo, hi = start * ROW_BLOCK, min(stop * ROW_BLOCK, flat.shape[0])
        np.matmul(flat[lo:hi], ones, out=out[lo:hi])

    blocks = -(-flat.shape[0] // ROW_BLOCK)
    parallel.run(body, parallel.ranges(blocks, max(1, parallel.scaled(ROW_SUMS_GRAIN) // (ROW_BLOCK * n))), blas=True)
    return out.reshape(e.shape[:-1] + (1,))


@silent  # (rows of -inf and inf - inf: NaN, silently, as PyTorch's attention)
def softmax_matmul(s: np.ndarray, m: np.ndarray, v: np.ndarray, q: np.ndarray):
    """softmax(s) · v in the kernel's order: the exponentials exp(s - max) times v, then each row scaled
    by the reciprocal of its sum (the (L, S) division becomes an (L, E) product). Returns (out, exps, row
    sums); ``s`` is overwritten by the exponentials. Rows with a finite maximum only."""
    e = np.exp(np.subtract(s, m, out=s), out=s)
    sums = row_sums(e)
    ev = _gemm(e, v)
    recip = np.divide(sums.dtype.type(1), sums)
    if q.ndim == 4 and not q.flags.c_contiguous:
        # the kernel allocates its output with the query's strides (MultiheadAttention's permute of it is
        # then contiguous, and its reshape a view)
        return np.multiply(ev, recip, out=np.empty_like(q)), e, sums
    return np.multiply(ev, recip, out=ev), e, sums


@silent
def backward(g: np.ndarray, q: np.ndarray, kr: np.ndarray, vr: np.ndarray, p: np.ndarray, keep, scale: float,
             need_q: bool, need_k: bool, need_v: bool):
    """(dq, dk, dv, ds) of out = dropout(p) · V with p = softmax(Q Kᵀ · scale + mask), for key and value
    heads already repeated to the query's (``kr``, ``vr``; the caller folds dk and dv back) and ``keep``
    the dropout's scaled mask or None: dv = (p keep)ᵀ g, dp = g Vᵀ keep, ds = p (dp - rowsum(dp p)),
    dq = ds K · scale, dk = dsᵀ Q · scale."""
    pd = p if keep is None else p * keep
    dv = _gemm(_mT(pd), g) if need_v else None
    dp = _gemm(g, _mT(vr))  # a fresh array: the steps below run in place on it
    if keep is not None:
        dp *= keep
    # the flash kernel's g · out over the head dim is closer to PyTorch on average, but moves op_db's
    # sample 9 (near one-hot weights, gradients ~40) past assert_close's tolerance: rows of dp p instead
    rows = row_sums(dp * p)
    ds = np.subtract(dp, rows, out=dp)
    ds *= p
    scale = q.dtype.type(scale)
    dq = dk = None
    if need_q:
        dq = _gemm(ds, kr)
        dq *= scale
        dq = dq.astype(q.dtype, copy=False)
    if need_k:
        dk = _gemm(_mT(ds), q)
        dk *= scale
    return dq, dk, dv, ds
