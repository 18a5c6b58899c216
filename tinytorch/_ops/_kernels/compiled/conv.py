"""The convolution's passes around its GEMMs (``_kernels/im2col.py``), fused: the forward's copy of a chunk's
product into the output with the bias added, and the input gradient's col2im for chunks of one sample (a fill,
k*k contiguous adds and a copy, one pass over each channel's plane instead). Each kernel does the numpy path's
additions in its order, so the same floats; it only leaves out the additions of -0.0 that the numpy path
makes to keep its adds whole-array: x + -0.0 is x for every value a plane holds (+0.0 at first, then sums,
never a signalling NaN)."""
from __future__ import annotations

from numba import float32, float64, int64, types

from ._common import jit, readonly


def _out_sig(t):
    return types.void(readonly(t, 2), readonly(t, 1), int64, int64, t[:, :, :, ::1])


@jit([_out_sig(float32), _out_sig(float64)])
def product_into(prod, bias, ho, row, out):
    """out (nb, O, ho, wo) = the first wo entries of each ``row``-long run of prod (O, nb*ho*row), plus
    bias[o] (an empty ``bias``: none), as ``_conv_fwd``'s copy and then its add of the bias."""
    nb, o, _, wo = out.shape
    with_bias = bias.size > 0
    for s in range(nb):
        for oc in range(o):
            for i in range(ho):
                src = (s * ho + i) * row
                if with_bias:
                    b = bias[oc]
                    for j in range(wo):
                        out[s, oc, i, j] = prod[oc, src + j] + b
                else:
                    for j in range(wo):
                        out[s, oc, i, j] = prod[oc, src + j]


def _col2im_sig(t):
    return types.void(readonly(t, 4), readonly(int64, 1), int64, int64, int64, int64, t[:, :, ::1], t[::1])


@jit([_col2im_sig(float32), _col2im_sig(float64)])
def col2im_one(cols, starts, per, wp, ph, pw, out, acc):
    """One sample's image (C, H, W) from its columns ``cols`` (groups, k*k, C/groups, plane), of which the
    first ``per`` entries of each row are the GEMM's (``_conv_t_one_sample``): per channel, a plane of
    +0.0, the k*k offsets' columns added at ``starts`` in order, and the image's window of the plane copied
    out. ``acc`` is scratch of at least a plane."""
    g, kk, cg, plane = cols.shape
    _, h, w = out.shape
    for gi in range(g):
        for c in range(cg):
            for p in range(plane):
                acc[p] = 0.0
            for t in range(kk):
                src = cols[gi, t, c, :per]
                dst = acc[starts[t]:starts[t] + per]
                for q in range(per):
                    dst[q] = dst[q] + src[q]
            for i in range(h):
                base = (i + ph) * wp + pw
                for j in range(w):
                    out[gi * cg + c, i, j] = acc[base + j]
