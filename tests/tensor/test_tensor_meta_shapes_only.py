"""Meta tensors compute shapes only: ops on meta inputs of sizes no memory holds (a convolution of a
[64, 512, 1024, 1024] input, a product of 100000 x 100000 matrices) give PyTorch's shapes, strides and dtypes
without allocating their arrays. An op that still ran its numpy code on zeros of its inputs' shapes would refuse
such sizes with a clear NotImplementedError and be listed in STILL_ON_ZEROS (none is: a row that starts to work
fails, so take it off the list). Every op of PyTorch's op_db is walked the same way, with the address space capped,
in ``test_tensor_meta_opinfo.py``, which lists the ops that still allocate and why."""
import re

import pytest

import tinytorch


def _cases(lib):
    F = lib.nn.functional

    def m(*s, dtype=None):
        return lib.empty(*s, device="meta", dtype=dtype)
    return {
        "conv2d": lambda: F.conv2d(m(64, 512, 1024, 1024), m(64, 512, 3, 3)),
        "conv2d_bias_stride_padding": lambda: F.conv2d(m(64, 512, 1024, 1024), m(64, 512, 3, 3), m(64), stride=2,
                                                       padding=1),
        "conv2d_groups_dilation": lambda: F.conv2d(m(8, 64, 2048, 2048), m(64, 1, 5, 5), groups=64, dilation=2),
        "conv2d_float64": lambda: F.conv2d(m(64, 512, 1024, 1024, dtype=lib.float64),
                                           m(64, 512, 3, 3, dtype=lib.float64)),
        "conv1d": lambda: F.conv1d(m(64, 512, 10 ** 7), m(128, 512, 7), padding=3),
        "conv3d": lambda: F.conv3d(m(2, 16, 256, 256, 256), m(8, 16, 3, 3, 3)),
        "conv_transpose2d": lambda: F.conv_transpose2d(m(16, 512, 1024, 1024), m(512, 64, 4, 4), stride=2,
                                                       padding=1),
        "conv2d_module": lambda: lib.nn.Conv2d(512, 64, 3, device="meta")(m(64, 512, 1024, 1024)),
        "conv2d_small": lambda: F.conv2d(m(2, 3, 8, 8), m(4, 3, 3, 3)),
        "matmul": lambda: m(100000, 100000) @ m(100000, 100000),
        "bmm": lambda: lib.bmm(m(64, 100000, 4096), m(64, 4096, 100000)),
        "linear": lambda: F.linear(m(64, 100000, 8192), m(8192, 8192), m(8192)),
        "batch_norm": lambda: F.batch_norm(m(64, 512, 1024, 1024), m(512), m(512)),
        "layer_norm": lambda: F.layer_norm(m(64, 100000, 8192), (8192,)),
        "softmax": lambda: lib.softmax(m(64, 100000, 100000), -1),
        "sdpa": lambda: F.scaled_dot_product_attention(m(8, 32, 100000, 128), m(8, 32, 100000, 128),
                                                       m(8, 32, 100000, 128)),
        "embedding": lambda: F.embedding(m(64, 100000, dtype=lib.long), m(1000000, 8192)),
        "max_pool2d": lambda: F.max_pool2d(m(64, 512, 1024, 1024), 2),
        "max_pool2d_indices": lambda: F.max_pool2d(m(64, 512, 1024, 1024), 3, stride=2, padding=1,
                                                   return_indices=True)[1],
        "max_pool2d_module": lambda: lib.nn.MaxPool2d(2, ceil_mode=True)(m(64, 512, 1023, 1023)),
        "avg_pool2d": lambda: F.avg_pool2d(m(64, 512, 1024, 1024), 3, stride=2),
        "avg_pool2d_padding": lambda: F.avg_pool2d(m(64, 512, 1024, 1024), 3, stride=2, padding=1,
                                                   ceil_mode=True, count_include_pad=False),
        "avg_pool1d": lambda: F.avg_pool1d(m(64, 512, 10 ** 7), 4),
        "avg_pool3d": lambda: F.avg_pool3d(m(4, 16, 512, 512, 512), 2),
        "adaptive_avg_pool2d": lambda: F.adaptive_avg_pool2d(m(64, 512, 1024, 1024), 7),
        "interpolate": lambda: F.interpolate(m(64, 512, 1024, 1024), scale_factor=2),
        "cross_entropy": lambda: F.cross_entropy(m(100000, 1000000), m(100000, dtype=lib.long)),
        # index arrays as large as the input: their result's shape without numpy walking the elements
        "gather": lambda: lib.gather(m(40000, 40000), 1, m(40000, 30000, dtype=lib.long)),
        "take_along_dim": lambda: lib.take_along_dim(m(40000, 40000), m(40000, 1, dtype=lib.long), 0),
        "scatter_add": lambda: m(40000, 40000).scatter_add(0, m(30000, 40000, dtype=lib.long), m(30000, 40000)),
        # element-by-element numpy functions and fused kernels with an output buffer
        "nan_to_num": lambda: lib.nan_to_num(m(64, 100000, 100000), posinf=1.0),
        "round_decimals": lambda: lib.round(m(64, 100000, 100000), decimals=2),
        "lerp": lambda: lib.lerp(m(64, 100000, 100000), m(100000), m(64, 1, 100000)),
        "addcmul": lambda: lib.addcmul(m(64, 100000, 100000), m(100000), m(64, 1, 100000), value=0.5),
        "relu_large": lambda: F.relu(m(64, 100000, 100000)),
        "bessel_j0": lambda: lib.special.bessel_j0(m(64, 100000, 100000)),
        # formulas that gather by boolean masks (a meta mask holds one value: all its elements or none)
        "erfc": lambda: lib.special.erfc(m(64, 100000, 100000)),
        "digamma": lambda: lib.digamma(m(64, 100000, 100000)),
        "igamma": lambda: lib.igamma(m(64, 100000, 100000), m(100000)),
        "gelu": lambda: F.gelu(m(64, 100000, 100000)),
        # a loop whose length is a value (the degree), and loops over a matrix's columns
        "hermite_polynomial_h": lambda: lib.special.hermite_polynomial_h(m(64, 100000, 100000), m(100000)),
        "lu_factor": lambda: lib.linalg.lu_factor(m(4, 50000, 70000))[0],
        "lu": lambda: lib.linalg.lu(m(50000, 70000))[0],
        "solve_triangular_right": lambda: lib.linalg.solve_triangular(m(50000, 50000), m(7, 50000), upper=True,
                                                                      left=False),
        # LAPACK's results are column-major
        "inv": lambda: lib.linalg.inv(m(8, 50000, 50000)),
        "cholesky_upper": lambda: lib.linalg.cholesky(m(8, 50000, 50000), upper=True),
        "qr_r": lambda: lib.linalg.qr(m(100000, 40000))[1],
        "eigh_vectors": lambda: lib.linalg.eigh(m(8, 50000, 50000))[1],
        "solve": lambda: lib.linalg.solve(m(50000, 50000), m(50000, 7)),
        "ldl_factor": lambda: lib.linalg.ldl_factor(m(50000, 50000))[0],
        # results sized by their arguments, not by values
        "histc": lambda: lib.histc(m(10 ** 10), bins=7),
        "nonzero_static": lambda: lib.nonzero_static(m(100000, 100000), size=5),
        "repeat_interleave_output_size": lambda: lib.repeat_interleave(
            m(100000, 100000), m(100000, dtype=lib.long), dim=0, output_size=300000),
        "permute_copy": lambda: lib.permute_copy(m(1000, 1000, 1000), (2, 0, 1)),
    }


STILL_ON_ZEROS: set = set()


def _meta(t) -> tuple:
    return tuple(t.shape), t.stride(), str(t.dtype).split(".")[-1], t.device.type


@pytest.mark.parametrize("case", sorted(_cases(tinytorch)))
def test_meta_op_computes_shape_only(case):
    torch = pytest.importorskip("torch")
    expected = _meta(_cases(torch)[case]())
    if case in STILL_ON_ZEROS:
        with pytest.raises(NotImplementedError, match="on meta tensors of these sizes"):
            _cases(tinytorch)[case]()
        return
    assert _meta(_cases(tinytorch)[case]()) == expected


def test_meta_conv_backward_shapes():
    """The convolution's gradients on meta tensors: the input's and the weight's shapes, nothing computed."""
    torch = pytest.importorskip("torch")
    shapes = []
    for lib in (tinytorch, torch):
        x = lib.empty(64, 512, 1024, 1024, device="meta", requires_grad=True)
        w = lib.empty(64, 512, 3, 3, device="meta", requires_grad=True)
        y = lib.nn.functional.conv2d(x, w, stride=2, padding=1)
        gx, gw = lib.autograd.grad(y, (x, w), lib.empty(y.shape, device="meta"))
        shapes.append((_meta(y), _meta(gx), _meta(gw)))
    assert shapes[0] == shapes[1]


def _decomposition_cases(lib):
    """numpy.linalg and numpy.fft on meta arrays: sizes worked out from small stand-ins (``_meta_array.py``)."""
    def m(*s, dtype=None):
        return lib.empty(*s, device="meta", dtype=dtype)
    L, FF = lib.linalg, lib.fft
    return {
        "svd_wide_batched": lambda: L.svd(m(3, 40000, 100000)),
        "svd_tall_reduced": lambda: L.svd(m(100000, 40000), full_matrices=False),
        "svdvals": lambda: L.svdvals(m(100000, 40000)),
        "eigh": lambda: L.eigh(m(8, 50000, 50000)),
        "eig": lambda: L.eig(m(50000, 50000)),
        "qr_complete": lambda: L.qr(m(100000, 40000), mode="complete"),
        "solve_broadcast": lambda: L.solve(m(4, 1, 50000, 50000), m(3, 50000, 7)),
        "slogdet_float64": lambda: L.slogdet(m(6, 50000, 50000, dtype=lib.float64)),
        "pinv": lambda: L.pinv(m(100000, 40000)),
        "matrix_rank": lambda: L.matrix_rank(m(5, 100000, 40000)),
        "rfft": lambda: FF.rfft(m(4, 10 ** 9)),
        "irfft_odd_n": lambda: FF.irfft(m(4, 10 ** 9, dtype=lib.complex64), n=7),
        "irfft": lambda: FF.irfft(m(4, 10 ** 9, dtype=lib.complex64)),
        "hfft_dim0": lambda: FF.hfft(m(10 ** 9, 3, dtype=lib.complex64), dim=0),
        "ihfft_float64": lambda: FF.ihfft(m(10 ** 9, 3, dtype=lib.float64), dim=0),
        "fftn_s": lambda: FF.fftn(m(1000, 1000, 1000), s=(5, 2000)),
        "irfftn_dims": lambda: FF.irfftn(m(1000, 1000, 1000, dtype=lib.complex128), dim=(0, 2)),
    }


def _shapes(x):
    if isinstance(x, (tuple, list)):
        return [_shapes(v) for v in x]
    return tuple(x.shape), str(x.dtype).split(".")[-1], x.device.type


@pytest.mark.parametrize("case", sorted(_decomposition_cases(tinytorch)))
def test_meta_decompositions_and_ffts_shapes(case):
    """Shapes, dtypes and devices as PyTorch's meta results (not strides: tinytorch's LAPACK results are C-ordered
    on every device, as ``test_tensor_meta_opinfo.py``'s DIFFERS rows say; the FFTs' are below)."""
    torch = pytest.importorskip("torch")
    assert _shapes(_decomposition_cases(tinytorch)[case]()) == _shapes(_decomposition_cases(torch)[case]())


def _fft_strides_cases(lib):
    """FFTs of meta inputs laid out in other orders (a permuted C-contiguous tensor), over dims in any order, more
    than three dims (several plans), padded and trimmed, real and complex."""
    FF = lib.fft

    def m(shape, order, dtype=lib.float32):  # ``shape`` whose dims lie in memory in ``order`` (outermost first)
        base = lib.empty([shape[d] for d in order], device="meta", dtype=dtype)
        return base.permute([list(order).index(d) for d in range(len(shape))]).requires_grad_(True)
    c = lib.complex64
    return {
        "fft_dim0_transposed": lambda: (FF.fft, m((3, 4, 5), (2, 0, 1), c), dict(dim=0)),
        "fft_real_padded": lambda: (FF.fft, m((3, 4, 5), (0, 1, 2)), dict(n=8, dim=1, norm="ortho")),
        "fft2_dims_reversed": lambda: (FF.fft2, m((3, 4, 5), (1, 2, 0), c), dict(dim=(2, 0))),
        "fftn_four_dims": lambda: (FF.fftn, m((2, 3, 4, 5), (0, 1, 2, 3), c), {}),
        "fftn_real_trimmed_padded": lambda: (FF.fftn, m((5, 6, 7), (0, 1, 2)), dict(s=(3, 10), dim=(1, 2))),
        "ifftn_permuted": lambda: (FF.ifftn, m((2, 3, 4, 5), (3, 1, 0, 2), c), dict(dim=(0, 1, 3))),
        "rfft_dim0": lambda: (FF.rfft, m((6, 4, 5), (1, 0, 2)), dict(dim=0)),
        "rfftn_all": lambda: (FF.rfftn, m((5, 6, 7), (0, 1, 2)), {}),
        "rfft2_last_two": lambda: (FF.rfft2, m((5, 6, 7), (2, 0, 1)), {}),
        "irfft_transposed": lambda: (FF.irfft, m((3, 4, 5), (2, 1, 0), c), dict(n=7, dim=1)),
        "irfftn_dims": lambda: (FF.irfftn, m((4, 5, 6), (1, 0, 2), c), dict(dim=(0, 2))),
        "irfftn_four_dims": lambda: (FF.irfftn, m((2, 3, 4, 5), (0, 1, 2, 3), c), {}),
        "hfft_dim0": lambda: (FF.hfft, m((4, 3, 5), (0, 2, 1), c), dict(dim=0)),
        "ihfft2_permuted": lambda: (FF.ihfft2, m((4, 5, 6), (2, 0, 1)), {}),
    }


# the cases whose input gradient still has other strides than PyTorch's on the meta device: a padded input's
# (PyTorch's a copy of the padded gradient's slice in its order of strides, tinytorch's that slice itself)
FFT_GRAD_STRIDES_DIFFER = {"fft_real_padded"}


@pytest.mark.parametrize("case", sorted(_fft_strides_cases(tinytorch)))
def test_meta_fft_strides_as_pytorch(case):
    """An FFT's result on the meta device, and its input's gradient, carry PyTorch's meta strides: the dims not
    transformed first, in the input's order of strides, then the transformed ones as its plans take them."""
    torch = pytest.importorskip("torch")

    def seen(lib):
        fn, x, kwargs = _fft_strides_cases(lib)[case]()
        out = fn(x, **kwargs)
        g, = lib.autograd.grad([out], [x], [lib.empty(out.shape, dtype=out.dtype, device="meta")])
        return [(tuple(t.shape), t.stride(), str(t.dtype).split(".")[-1], t.device.type) for t in (out, g)]
    got, expected = seen(tinytorch), seen(torch)
    assert got[0] == expected[0]
    if case in FFT_GRAD_STRIDES_DIFFER:
        assert got[1] != expected[1], f"{case}'s gradient now has PyTorch's strides: take it off the list"
        assert got[1][::2] == expected[1][::2]  # the shape and the dtype
    else:
        assert got[1] == expected[1]


def test_meta_linalg_size_rule_it_cannot_follow_raises():
    """A result size that is not one of the arguments' sizes (here one more than a size), or a stand-in the function
    refuses (tensorinv's product of sizes), is never guessed: ``NeedsData``, which sends the op to zeros of its
    inputs (refused at sizes no memory holds)."""
    import numpy as np

    from tinytorch._meta_array import MetaArray, NeedsData, _linalg

    def one_more(a):
        return np.zeros(a.shape[-1] + 1, a.dtype)
    with pytest.raises(NeedsData):
        _linalg(one_more, (MetaArray((7, 5), np.float32),), {})
    with pytest.raises(NeedsData):
        np.linalg.tensorinv(MetaArray((2, 3, 6), np.float32), ind=2)
    u, s, vh = np.linalg.svd(MetaArray((2, 7, 5), np.float64))
    assert (u.shape, s.shape, vh.shape, s.dtype) == ((2, 7, 7), (2, 5), (2, 5, 5), np.float64)


def _gradient_cases(lib):
    """Backward formulas whose helper arrays (a weight of halves, a mask of kept places, an identity) are built
    alike their gradient: meta where it is (once CPU tensors beside meta ones: PyTorch's device error)."""
    F = lib.nn.functional
    return {
        "maximum": lambda x, y: lib.maximum(x, y),
        "scatter": lambda x, y: x.scatter(1, lib.zeros(300, 2, dtype=lib.long, device="meta"), y[:, :2]),
        "irfft2": lambda x, y: lib.fft.irfft2(x.to(lib.complex64)).real,
        "max_unpool2d": lambda x, y: F.max_unpool2d(x.reshape(1, 3, 100, 400), lib.zeros(1, 3, 100, 400,
                                                                                          dtype=lib.long,
                                                                                          device="meta"), 2),
        "linalg_eigh": lambda x, y: lib.linalg.eigh(x[:, :300])[1],
    }


@pytest.mark.parametrize("case", sorted(_gradient_cases(tinytorch)))
def test_meta_backward_formulas_stay_meta(case):
    torch = pytest.importorskip("torch")
    seen = []
    for lib in (tinytorch, torch):
        x = lib.empty(300, 400, device="meta", requires_grad=True)
        y = lib.empty(300, 400, device="meta", requires_grad=True)
        out = _gradient_cases(lib)[case](x, y)
        grads = lib.autograd.grad(out, (x, y), lib.empty(out.shape, dtype=out.dtype, device="meta"),
                                  allow_unused=True)
        seen.append([None if g is None else (tuple(g.shape), str(g.dtype).split(".")[-1], g.device.type)
                     for g in grads])
    assert seen[0] == seen[1]


def _refusals(lib):
    """Ops whose result's shape (or value) depends on the values: PyTorch's meta kernels refuse them, naming the
    op its composite reaches first (``cov`` reaches ``equal``)."""
    def m(*s, dtype=None):
        return lib.empty(*s, device="meta", dtype=dtype)
    return {
        "cov": lambda: lib.cov(m(3, 4)),
        "corrcoef": lambda: lib.corrcoef(m(3, 4)),
        "combinations": lambda: lib.combinations(m(4)),
        "lstsq": lambda: lib.linalg.lstsq(m(3, 3), m(3, 2)),
        "histogramdd": lambda: lib.histogramdd(m(5, 2), bins=[3, 3]),
        "masked_select": lambda: lib.masked_select(m(5), m(5, dtype=lib.bool)),
        "allclose": lambda: lib.allclose(m(3), m(3)),
        "repeat_interleave_no_output_size": lambda: lib.repeat_interleave(m(3), m(3, dtype=lib.long)),
    }


@pytest.mark.parametrize("case", sorted(_refusals(tinytorch)))
def test_meta_data_dependent_ops_raise_as_pytorch(case):
    torch = pytest.importorskip("torch")
    with pytest.raises(Exception) as expected:
        _refusals(torch)[case]()
    with pytest.raises(type(expected.value)) as got:
        _refusals(tinytorch)[case]()
    assert str(got.value) == str(expected.value)


def test_meta_boolean_mask_selects_all_or_none():
    """A boolean ``MetaArray`` holds one value, so it selects every element it covers or none, as numpy selects on
    an array holding that value throughout; a mask of the wrong size is numpy's IndexError."""
    import numpy as np

    from tinytorch._meta_array import MetaArray

    a, x = MetaArray((4, 5, 6), np.float32), np.zeros((4, 5, 6), np.float32)
    for pick in (lambda v: v < 1, lambda v: v > 1, lambda v: (v < 1)[:, :, 0], lambda v: (v < 1)[0, 0]):
        index = pick(a) if pick(a).ndim != 1 else (Ellipsis, pick(a))
        real = pick(x) if pick(x).ndim != 1 else (Ellipsis, pick(x))
        assert a[index].shape == x[real].shape
    with pytest.raises(IndexError) as expected:
        x[(x < 1)[0]]
    with pytest.raises(IndexError, match="^" + re.escape(str(expected.value)) + "$"):
        a[(a < 1)[0]]
