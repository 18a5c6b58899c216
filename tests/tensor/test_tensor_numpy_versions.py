"""The behaviours numpy 2 changed, pinned against PyTorch so that they hold on every numpy pyproject
admits (1.24 up): random streams (randint's draws in uint64), dtype promotion of 0-d tensors and numpy
scalars with Python numbers (numpy 1.x promoted those by value, NEP 50 by dtype), copy semantics of
the array protocols, and DLPack both ways (bool included)."""
import _paths
import numpy as np
import pytest

import tinytorch as tt
from tinytorch._numpy_compat import NUMPY2

from _oracle import torch  # noqa: E402  (PyTorch when a test reads it)


def _bits(a):
    a = np.ascontiguousarray(np.asarray(a))
    return a.view(np.uint8).tolist(), str(a.dtype), a.shape


def _same(ours, theirs, exact=True):
    """The same dtype and shape, and the same bits (``exact``) or values to a few units in the last place."""
    assert str(ours.dtype) == str(theirs.dtype).replace("torch.", "tinytorch.")
    assert tuple(ours.shape) == tuple(theirs.shape)
    a, b = ours.detach().numpy(), theirs.detach().numpy()
    if exact:
        assert _bits(a) == _bits(b)
    else:
        np.testing.assert_allclose(a, b, rtol=2e-3 if a.dtype == np.float16 else 1e-6)


# -- random streams ----------------------------------------------------------------------------------
@pytest.mark.parametrize("dtype", ["int64", "int32", "int16", "uint8", "float32", "float64"])
@pytest.mark.parametrize("low, high", [(0, 10), (-5, 3), (0, 2 ** 20), (3, 200)])
def test_randint_streams(dtype, low, high):
    if dtype in ("uint8", "int16") and high > 200:
        pytest.skip("outside the dtype")
    if dtype == "uint8" and low < 0:
        pytest.skip("outside the dtype")
    for seed in (0, 7):
        tt.manual_seed(seed)
        torch.manual_seed(seed)
        for shape in ((8,), (3, 5), ()):
            _same(tt.randint(low, high, shape, dtype=getattr(tt, dtype)),
                  torch.randint(low, high, shape, dtype=getattr(torch, dtype)))


def test_wide_spans_and_the_other_draws():
    tt.manual_seed(3)
    torch.manual_seed(3)
    _same(tt.randint(0, 2 ** 40, (6,)), torch.randint(0, 2 ** 40, (6,)))
    _same(tt.randint(-2 ** 62, 2 ** 62, (6,)), torch.randint(-2 ** 62, 2 ** 62, (6,)))
    _same(tt.randperm(50), torch.randperm(50))
    _same(tt.rand(7), torch.rand(7))
    _same(tt.randn(7, dtype=tt.float64), torch.randn(7, dtype=torch.float64))
    for dtype in ("int64", "int32", "uint8", "bool", "float32", "float64"):
        _same(tt.empty(9, dtype=getattr(tt, dtype)).random_(), torch.empty(9, dtype=getattr(torch, dtype)).random_())
        if dtype != "bool":
            _same(tt.empty(9, dtype=getattr(tt, dtype)).random_(3, 90),
                  torch.empty(9, dtype=getattr(torch, dtype)).random_(3, 90))
    g1, g2 = tt.Generator().manual_seed(5), torch.Generator().manual_seed(5)
    _same(tt.randint(0, 10, (12,), generator=g1), torch.randint(0, 10, (12,), generator=g2))


# -- promotion of 0-d tensors and numpy scalars with Python numbers ---------------------------------
_SCALARS = [2, -3, 0.1, 2.5, 1e-30, True]
_OPS = {
    "add": lambda x, s: x + s, "radd": lambda x, s: s + x, "sub": lambda x, s: x - s, "rsub": lambda x, s: s - x,
    "mul": lambda x, s: x * s, "rmul": lambda x, s: s * x, "div": lambda x, s: x / s, "rdiv": lambda x, s: s / x,
    "pow": lambda x, s: x ** s, "add_alpha": lambda x, s: x.add(x, alpha=s if not isinstance(s, bool) else 1),
    "where": lambda x, s: (tt if isinstance(x, tt.Tensor) else torch).where(x > 0, x, s),
    "maximum": lambda x, s: (tt if isinstance(x, tt.Tensor) else torch).clamp(x, min=s),
}


@pytest.mark.parametrize("dtype", ["float32", "float64", "float16", "int32", "int64"])
@pytest.mark.parametrize("op", sorted(_OPS))
@pytest.mark.parametrize("shape", [(), (3,)])
def test_zero_dim_tensor_with_python_numbers(dtype, op, shape):
    """A 0-d float32 tensor times 0.1 stays float32 with float32's rounding (numpy 1.x computed a 0-d
    array with a Python float in float64)."""
    base = np.array([1.7, -0.3, 3.1][:shape[0] if shape else 1], np.float64).reshape(shape)
    for s in _SCALARS:
        if op == "add_alpha" and dtype.startswith("int") and isinstance(s, float):
            continue
        ours = tt.tensor(base).to(getattr(tt, dtype))
        theirs = torch.tensor(base).to(getattr(torch, dtype))
        fn = _OPS[op]
        try:
            want = fn(theirs, s)
        except RuntimeError:
            continue
        got = fn(ours, s)
        if op == "add_alpha" and dtype in ("float32", "float64"):
            # x + alpha * y is one fused rounding on PyTorch's FMA builds (tinytorch's), two on its DEFAULT one
            _same(got, want, exact=False)
            _paths.assert_bits(got, want, ulps=1, what=f"add(alpha={s})")
            continue
        # (pow's kernel and half's alpha rounding are PyTorch's to within an ulp on every numpy)
        _same(got, want, exact=op != "pow" and not (op == "add_alpha" and dtype == "float16"))


@pytest.mark.parametrize("dtype", ["float32", "float64"])
def test_zero_dim_graphs_keep_their_dtype(dtype):
    """A scalar graph (micrograd's): every value and gradient in the tensors' dtype, PyTorch's bits."""
    results = []
    for m in (tt, torch):
        a = m.tensor(-4.0, dtype=getattr(m, dtype), requires_grad=True)
        b = m.tensor(2.0, dtype=getattr(m, dtype), requires_grad=True)
        c = a + b
        d = a * b + b ** 3
        c = c + c + 1
        c = c + 1 + c + (-a)
        d = d + d * 2 + (b + a).relu()
        d = d + 3 * d + (b - a).relu()
        e = c - d
        f = e ** 2
        g = f / 2.0
        g = g + 10.0 / f
        h = g.sigmoid() * 0.3 + g.tanh() * 0.7 + (g * 1e-3).exp() + 1 / (1 + g).sqrt()
        h.backward()
        results.append((h, a.grad, b.grad))
    for ours, theirs in zip(*results):
        _same(ours, theirs)


def test_numpy_scalars_read_as_python_numbers():
    """PyTorch reads np.float64(2) beside a float32 tensor as a Python number (float32 result)."""
    for x in (np.float64(0.1), np.float32(0.1), np.int64(3), np.float16(2)):
        for shape in ((), (2,)):
            base = np.full(shape, 1.3, np.float32)
            _same(tt.tensor(base) * x, torch.tensor(base) * x)
            _same(x + tt.tensor(base), x + torch.tensor(base))


def test_norms_and_optimizers_of_zero_dim_parameters():
    """p-norms with a Python exponent, NAdam's mu product, clipping: float32 throughout on 0-d tensors."""
    for m in (tt, torch):
        x = m.tensor(-1.7)
        assert m.linalg.vector_norm(x, 3).dtype == m.float32
        assert m.nn.functional.normalize(m.tensor([[0.3]]), p=3).dtype == m.float32
    outs = []
    for m in (tt, torch):
        m.manual_seed(0)
        p = m.tensor(0.7, requires_grad=True)
        q = m.tensor([0.2, -0.4], requires_grad=True)
        opt = m.optim.NAdam([p, q], lr=0.1)
        for _ in range(3):
            opt.zero_grad()
            ((p * q).sum() ** 2 + p.sin()).backward()
            total = m.nn.utils.clip_grad_norm_([p, q], 0.5, norm_type=3.0)
            opt.step()
        outs.append((p, q, total))
    for ours, theirs in zip(*outs):
        _same(ours, theirs, exact=False)


def test_lu_info_of_one_matrix_is_int32():
    for m in (tt, torch):
        lu, piv, info = m.linalg.lu_factor_ex(m.tensor([[0.0, 1.0], [0.0, 2.0]]))
        assert piv.dtype == m.int32 and info.dtype == m.int32 and info.shape == ()


# -- copies -------------------------------------------------------------------------------------------
def test_copy_semantics_as_pytorch():
    arr = np.arange(4.0, dtype=np.float32)
    for m in (tt, torch):
        assert not np.shares_memory(m.tensor(arr).numpy(), arr)  # tensor() always copies
        assert np.shares_memory(m.from_numpy(arr).numpy(), arr)
        assert np.shares_memory(m.asarray(arr).numpy(), arr)
        assert not np.shares_memory(m.asarray(arr, copy=True).numpy(), arr)
        assert m.asarray(arr, dtype=m.float64).dtype == m.float64
        with pytest.raises(ValueError):
            m.asarray(arr, dtype=m.float64, copy=False)
        t = m.from_numpy(arr)
        assert np.shares_memory(np.asarray(t), arr)
        assert not np.shares_memory(np.array(t), arr)  # np.array copies by default on every numpy
        assert not np.shares_memory(np.array(t, copy=True), arr)
        assert np.asarray(t, dtype=np.float64).dtype == np.float64
    t = tt.from_numpy(arr)
    with pytest.raises(ValueError, match="Unable to avoid copy"):
        t.__array__(np.float64, copy=False)  # what numpy 2's asarray(copy=False) asks
    assert np.shares_memory(t.__array__(np.float32, copy=False), arr)
    if NUMPY2:
        with pytest.raises(ValueError, match="Unable to avoid copy"):
            np.asarray(t, dtype=np.float64, copy=False)


def test_astype_and_to_copy_as_pytorch():
    for m in (tt, torch):
        t = m.arange(3.0)
        assert t.to(m.float32) is t and t.to(m.float32, copy=True) is not t
        assert t.double().dtype == m.float64
        assert m.tensor(np.float32(2.5)).dtype == m.float32  # a numpy scalar's own dtype
        assert m.tensor(np.array(2, np.int32)).dtype == m.int32


# -- DLPack -------------------------------------------------------------------------------------------
@pytest.mark.parametrize("dtype", ["bool", "uint8", "int32", "float32", "float64", "complex64"])
def test_dlpack_both_ways(dtype):
    src = (torch.arange(6) % 2).to(getattr(torch, dtype))
    ours = tt.from_dlpack(src)
    assert ours.dtype == getattr(tt, dtype) and ours.tolist() == src.tolist()
    ours[0] = ours[1]  # writable, sharing PyTorch's memory (numpy 1.x's from_dlpack is read-only)
    assert src[0].item() == src[1].item()
    back = torch.from_dlpack(ours)
    assert back.dtype == getattr(torch, dtype) and back.data_ptr() == ours.data_ptr()
    assert tt.from_dlpack(ours.__dlpack__(copy=True)).data_ptr() != ours.data_ptr()
    with pytest.raises(BufferError):
        ours.__dlpack__(dl_device=(2, 0))


def test_bundled_openblas_found():
    """numpy's bundled OpenBLAS (libscipy_openblas on numpy 2, libopenblas64_ on 1.x wheels) serves the
    BLAS fast paths, which check it before use."""
    from tinytorch._cpu import blas_outer as _blas_outer
    from tinytorch._ops._kernels import openblas as _openblas

    if _openblas.openblas_library() is None:
        pytest.skip("this numpy bundles no OpenBLAS")
    assert set(_blas_outer._checked_ger()) == {np.dtype(np.float32), np.dtype(np.float64)}

