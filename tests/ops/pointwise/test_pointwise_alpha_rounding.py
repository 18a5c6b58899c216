"""The fused adds against PyTorch's CPU kernels: ``add``/``sub`` with alpha (in place too, special values,
half types), ``addcmul``/``addcdiv`` and ``lerp`` round as PyTorch's kernels do: ``a + alpha * b`` once
(its FMA) on PyTorch's FMA builds (ATen's AVX2 and AVX512 paths), which tinytorch follows, bit for bit
there, but for the few elements of a 0-d or broadcast ``other`` that the kernel's scalar tail rounds twice
(tinytorch too). PyTorch's DEFAULT build (``ATEN_CPU_CAPABILITY=default``) has no FMA: it rounds the product
(alpha * b, w * (end - input), value * t1 * t2) before the add, so there the results must lie within
``FUSED_ULPS`` ulp of the largest magnitude in the array (``_same``), and a product that overflows only
when rounded first (inf - inf = NaN there) is compared on the FMA paths only."""
import itertools

import numpy as np
import pytest

import tinytorch as tt

import _paths

from _oracle import torch  # noqa: E402  (PyTorch when a test reads it)

pytestmark = pytest.mark.bitexact


DTYPES = ("float32", "float64")


# DEFAULT path, in ulps at the array's largest |value|: one add rounds the product first (half an ulp
# of it, half of each sum: 1.5 at most; 2 measured with TINYTORCH_ULP_REPORT); the optimizers' four
# steps carry theirs on (SGD: 2, Adam's exp_avg: 3 measured)
FUSED_ULPS = 2


CHAIN_ULPS = 4


def _same(got, want, what="", ulps=None) -> None:
    """Bit for bit on PyTorch's FMA paths; within FUSED_ULPS ulp of the array's magnitude on DEFAULT."""
    _paths.assert_bits(np.ascontiguousarray(got), np.ascontiguousarray(want),
                       ulps=FUSED_ULPS if ulps is None else ulps, scale="max", what=what)


@pytest.mark.parametrize("dtype", DTYPES)
@pytest.mark.parametrize("shapes", [((4099,), (4099,)), ((37, 50), (50,)), ((), (7,)), ((6, 1), (1, 5)), ((), ())])
def test_add_sub_alpha_bits(dtype, shapes):
    rng = np.random.default_rng(len(shapes[0]) * 10 + len(shapes[1]))
    a = np.asarray(rng.standard_normal(shapes[0]), dtype)
    b = np.asarray(rng.standard_normal(shapes[1]) * 3, dtype)
    for alpha, fn in itertools.product((0.37, -3, 2, 1e-3), ("add", "sub")):
        want = getattr(torch, fn)(torch.from_numpy(a), torch.from_numpy(b), alpha=alpha).numpy()
        got = getattr(tt, fn)(tt.tensor(a), tt.tensor(b), alpha=alpha).numpy()
        assert got.dtype == want.dtype and got.shape == want.shape
        _same(got, want, f"{fn} alpha={alpha}")


def _broadcast_grid():
    """(a's shape, b's shape, layout) rows: inner lengths 1..70 and a few hundred; ``other`` 0-d, broadcast
    along the inner dims (PyTorch's scalar tail rounds part of those twice) or along outer ones; ``self``
    0-d or broadcast; "T": ``a`` laid out transposed (TensorIterator walks it in memory order)."""
    rows = []
    for n in list(range(1, 71)) + [100, 255, 300, 513]:
        rows += [((n,), (), ""), ((), (n,), ""), ((3, n), (3, 1), ""), ((3, n), (n,), ""), ((3, 1), (3, n), ""),
                 ((2, 3, n), (3, 1), ""), ((2, 3, n), (2, 1, 1), ""), ((n, 2), (1, 2), ""), ((2, n), (2, 1), "T"),
                 ((n, 3), (1, 3), "T"), ((2, 1, n), (1, 3, 1), "")]
    return rows


@pytest.mark.parametrize("dtype", DTYPES)
def test_add_sub_alpha_broadcast_grid_bits(dtype):
    """add/sub with alpha where an operand is broadcast or 0-d: PyTorch's FMA builds fuse every element but
    the scalar tail's vector parts of a loop whose ``other`` is constant (``muladd.twice_rounded``)."""
    rng = np.random.default_rng(17)
    alphas = (1, -1, 0.5, 0.3, -1.7, 3)
    for i, (sa, sb, layout) in enumerate(_broadcast_grid()):
        a = np.asarray(rng.standard_normal(sa), dtype)
        b = np.asarray(rng.standard_normal(sb) * 3, dtype)
        if layout == "T":
            a = np.ascontiguousarray(a.T).T
        alpha, fn = alphas[i % len(alphas)], ("add", "sub")[i % 2]
        want = getattr(torch, fn)(torch.from_numpy(a), torch.from_numpy(b), alpha=alpha).numpy()
        got = getattr(tt, fn)(tt.from_numpy(a), tt.from_numpy(b), alpha=alpha).numpy()
        assert got.dtype == want.dtype and got.shape == want.shape
        _same(got, want, f"{fn} {sa} {sb} {layout} alpha={alpha}")
        if np.broadcast_shapes(a.shape, b.shape) == a.shape:  # in place, and a Python number as other
            t = torch.from_numpy(a.copy(order="K"))
            t.add_(torch.from_numpy(b), alpha=-1.7)
            x = tt.from_numpy(a.copy(order="K"))
            x.add_(tt.from_numpy(b), alpha=-1.7)
            _same(x.numpy(), t.numpy(), f"add_ {sa} {sb} {layout}")
            number = float(b.reshape(-1)[0]) if b.size else 0.1
            want = torch.from_numpy(a).add(number, alpha=0.3).numpy()
            _same(tt.from_numpy(a).add(number, alpha=0.3).numpy(), want, f"add number {sa}")


@pytest.mark.parametrize("threads", (1, 2))
@pytest.mark.parametrize("dtype", DTYPES)
def test_add_alpha_broadcast_thread_parts_bits(dtype, threads):
    """Above 32768 elements PyTorch cuts the walk between its threads; a part ending inside a row makes its own
    scalar tail there. (Both libraries set to the same thread count.)"""
    rng = np.random.default_rng(23)
    before = tt.get_num_threads(), torch.get_num_threads()
    tt.set_num_threads(threads)
    torch.set_num_threads(threads)
    try:
        for sa, sb in (((70010,), ()), ((65543,), ()), ((300, 301), (300, 1)), ((7, 11, 997), (7, 1, 1)),
                       ((3, 40001), (3, 1))):
            a = np.asarray(rng.standard_normal(sa), dtype)
            b = np.asarray(rng.standard_normal(sb), dtype)
            want = torch.add(torch.from_numpy(a), torch.from_numpy(b), alpha=-1.7).numpy()
            got = tt.add(tt.from_numpy(a), tt.from_numpy(b), alpha=-1.7).numpy()
            _same(got, want, f"{sa} {sb}")
    finally:
        tt.set_num_threads(before[0])
        torch.set_num_threads(before[1])


@pytest.mark.parametrize("dtype", DTYPES)
def test_add_inplace_alpha_bits(dtype):
    rng = np.random.default_rng(5)
    for n in (1, 15, 31, 33, 100003):  # vector body and every kind of tail
        a = rng.standard_normal(n).astype(dtype)
        b = rng.standard_normal(n).astype(dtype)
        want = torch.from_numpy(a.copy()).add_(torch.from_numpy(b), alpha=-0.3).numpy()
        t = tt.tensor(a.copy())
        t.add_(tt.tensor(b), alpha=-0.3)
        _same(t.numpy(), want, f"add_ n={n}")
    # a Python scalar other is rounded to the tensor's dtype first
    want = torch.from_numpy(a).add(0.1, alpha=0.3).numpy()
    _same(tt.tensor(a).add(0.1, alpha=0.3).numpy(), want, "scalar other")


@pytest.mark.parametrize("dtype", DTYPES)
def test_add_alpha_special_values(dtype):
    big = 3e38 if dtype == "float32" else 1e308
    vals = np.array([0.0, -0.0, np.inf, -np.inf, np.nan, big, -1.0, 2.5], dtype)
    a, b = (x.ravel().copy() for x in np.meshgrid(vals, vals))
    for alpha in (0.0, -0.0, 1.5, -1e30):
        want = torch.from_numpy(a).add(torch.from_numpy(b), alpha=alpha).numpy()
        got = tt.tensor(a).add(tt.tensor(b), alpha=alpha).numpy()
        ok = np.ones(a.shape, bool)
        if not _paths.running(_paths.FMA_PATHS):  # DEFAULT: alpha * b rounded first, to inf where it overflows
            with np.errstate(over="ignore", invalid="ignore"):
                ok = ~(np.isinf(np.asarray(alpha, dtype) * b) & np.isfinite(b))
        np.testing.assert_array_equal(np.isnan(got[ok]), np.isnan(want[ok]))
        ok &= ~np.isnan(want)
        with np.errstate(over="ignore", invalid="ignore"):
            _paths.assert_bits(got[ok], want[ok], ulps=FUSED_ULPS, scale=np.abs(np.asarray(alpha, dtype) * b[ok]),
                               what=f"alpha={alpha}")


def test_add_alpha_other_dtypes_unchanged():
    for dtype in ("int64", "int32", "complex64"):
        a = torch.arange(-5, 7).to(getattr(torch, dtype))
        b = torch.arange(3, 15).to(getattr(torch, dtype))
        got = tt.tensor(a.numpy()).add(tt.tensor(b.numpy()), alpha=3).numpy()
        np.testing.assert_array_equal(got, torch.add(a, b, alpha=3).numpy())


@pytest.mark.parametrize("dtype", ("float16", "bfloat16"))
def test_add_sub_alpha_half_bits(dtype):
    """half/bfloat16: alpha rounded to the dtype, the sum in float32, rounded once. (4096 elements: one
    chunk of PyTorch's kernel with no scalar tail; that tail uses alpha unrounded.)"""
    gen = torch.Generator().manual_seed(3)
    a = torch.randn(4096, generator=gen).to(getattr(torch, dtype))
    b = torch.randn(4096, generator=gen).to(getattr(torch, dtype))
    ta = tt.tensor(a.float().numpy()).to(getattr(tt, dtype))
    tb = tt.tensor(b.float().numpy()).to(getattr(tt, dtype))
    for alpha, fn in itertools.product((0.37, -3, 1e-2), ("add", "sub")):
        want = getattr(torch, fn)(a, b, alpha=alpha)
        got = getattr(tt, fn)(ta, tb, alpha=alpha)
        assert str(got.dtype).split(".")[-1] == str(want.dtype).split(".")[-1]
        ours = got.numpy()  # compared in the dtype's own ulps
        _same(ours, want.float().numpy().astype(ours.dtype), f"{fn} alpha={alpha}")


@pytest.mark.parametrize("dtype", DTYPES)
@pytest.mark.parametrize("fn", ("addcmul", "addcdiv"))
def test_addcmul_addcdiv_bits(dtype, fn):
    """addcmul: (value * t1) rounded, then t1' * t2 + input in one FMA; addcdiv: input + (value * t1) / t2."""
    rng = np.random.default_rng(31)
    for shapes in (((3000,),) * 3, ((20, 30), (30,), (20, 1)), ((), (5,), ())):
        a, b, c = (np.asarray(rng.standard_normal(s), dtype) for s in shapes)
        c = np.asarray(np.abs(c) + 0.1, dtype)
        for value in (0.3, 1, -2.5):
            want = getattr(torch, fn)(torch.from_numpy(a), torch.from_numpy(b), torch.from_numpy(c), value=value)
            got = getattr(tt, fn)(tt.tensor(a), tt.tensor(b), tt.tensor(c), value=value)
            assert got.numpy().dtype == want.numpy().dtype and got.shape == tuple(want.shape)
            _same(got.numpy(), want.numpy(), f"{fn} value={value}")
            inplace = tt.tensor(np.broadcast_to(a, want.shape).copy())
            getattr(inplace, fn + "_")(tt.tensor(b), tt.tensor(c), value=value)
            np.testing.assert_array_equal(inplace.numpy(), got.numpy())  # in place: the same bits as out of place


@pytest.mark.parametrize("dtype", DTYPES)
def test_lerp_bits(dtype):
    """lerp: input + w * (end - input) for |w| < 0.5, end - (end - input) * (1 - w) from there, each one FMA."""
    rng = np.random.default_rng(41)
    a = rng.standard_normal((30, 40)).astype(dtype)
    b = rng.standard_normal((40,)).astype(dtype)
    weights = [0.1, 0.7, -0.3, 1.5, 0.5, np.asarray(rng.uniform(-1, 1.5, (30, 40)), dtype),
               np.asarray(rng.uniform(0, 1, (1, 40)), dtype)]
    for w in weights:
        tw, xw = (torch.from_numpy(w), tt.tensor(w)) if isinstance(w, np.ndarray) else (w, w)
        want = torch.lerp(torch.from_numpy(a), torch.from_numpy(b).expand(30, 40), tw).numpy()
        got = tt.lerp(tt.tensor(a), tt.tensor(b).expand(30, 40), xw).numpy()
        _same(got, want, "lerp")
