"""The antialiased window walk (``_ops/_kernels/resample_aa``) against its formula, the dense weight
matrix ``interpolate``'s backward applies: the same sums within float rounding, windows of every width,
and a NaN outside a window stays out of it (a matrix product's 0 * NaN would spread it)."""
import numpy as np
import pytest

from tinytorch._ops._kernels.resample_aa import resample_aa
from tinytorch._ops.nn.resize import _aa_ranges, _aa_taps


@pytest.mark.parametrize("dtype", [np.float32, np.float64])
@pytest.mark.parametrize("mode", ["bilinear", "bicubic"])
@pytest.mark.parametrize("n_in,n_out", [(50, 25), (9, 4), (13, 5), (17, 31), (100, 9), (200, 7), (6, 6), (1, 3)])
def test_window_walk_is_the_matrix_product(dtype, mode, n_in, n_out):
    x = (np.random.default_rng(n_in * n_out).standard_normal((3, 4, n_in)) * 10).astype(dtype)
    xmin, w, xsize = _aa_ranges(n_in, n_out, None, False, mode, dtype)
    walked = resample_aa(x, 2, xmin, w, xsize)
    product = np.einsum("...i,oi->...o", x.astype(np.float64), _aa_taps(n_in, n_out, None, False, mode, dtype).dense)
    assert walked.dtype == dtype and walked.shape == (3, 4, n_out)
    eps = np.finfo(dtype).eps
    bound = 4 * eps * np.abs(x).max() * np.abs(w).sum(axis=1).max()
    np.testing.assert_allclose(walked, product, rtol=0, atol=bound)
    # along another axis: the same numbers
    np.testing.assert_array_equal(resample_aa(np.swapaxes(x, 1, 2).copy(), 1, xmin, w, xsize),
                                  np.swapaxes(walked, 1, 2))


def test_a_nan_stays_in_its_windows():
    x = np.arange(20, dtype=np.float32)
    x[0] = np.nan
    xmin, w, xsize = _aa_ranges(20, 5, None, False, "bilinear", np.float32)
    out = resample_aa(x, 0, xmin, w, xsize)
    hit = xmin == 0
    assert np.isnan(out[hit]).all() and np.isfinite(out[~hit]).all()


@pytest.mark.parametrize("dtype", [np.float32, np.float64])
@pytest.mark.parametrize("axis", [0, 1, 2, -1])
def test_compiled_walk_gives_the_numpy_walks_floats(dtype, axis):
    from tinytorch._ops._kernels import compiled
    if compiled.family("resample") is None:
        pytest.skip("compiled kernels off or numba missing")
    x = (np.random.default_rng(3).standard_normal((9, 40, 33)) * 10).astype(dtype)
    n_in = x.shape[axis]
    for n_out in (n_in // 3, n_in - 1, 2 * n_in):
        for mode in ("bilinear", "bicubic"):
            xmin, w, xsize = _aa_ranges(n_in, n_out, None, False, mode, dtype)
            fast = resample_aa(x, axis, xmin, w, xsize)
            with compiled.disabled():
                slow = resample_aa(x, axis, xmin, w, xsize)
            assert fast.dtype == slow.dtype and fast.shape == slow.shape
            np.testing.assert_array_equal(fast.view(np.uint8), slow.view(np.uint8))
