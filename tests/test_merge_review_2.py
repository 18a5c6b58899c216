"""Differential checks against PyTorch found by the second merge review (small-op engine, optimizer
arithmetic, BatchNorm)."""
import numpy as np
import pytest

import tinytorch as tt

import _paths

torch = pytest.importorskip("torch")


def _outcome(fn, m):
    try:
        r = fn(m)
    except Exception as e:  # noqa: BLE001 - the error type and message are what is compared
        return type(e).__name__, str(e)
    return str(r.dtype).split(".")[-1], r.tolist()


_ALPHA_CASES = [
    lambda m: m.add(m.tensor([1, 2]), m.tensor([3, 4]), alpha=0.5),
    lambda m: m.sub(m.tensor([1, 2]), m.tensor([3, 4]), alpha=0.5),
    lambda m: m.tensor([1, 2]).add_(m.tensor([3, 4]), alpha=0.5),
    lambda m: m.tensor([1, 2]).sub_(m.tensor([1]), alpha=2.0),
    lambda m: m.add(m.tensor([1.0]), m.tensor([2.0]), alpha=1j),
    lambda m: m.add(m.tensor([1]), m.tensor([2]), alpha=2j),
    lambda m: m.add(m.tensor([1.0]), m.tensor([2.0]), alpha=True),
    lambda m: m.add(m.tensor([True, False]), m.tensor([True, True]), alpha=2),
    lambda m: m.add(m.tensor([True, False]), m.tensor([False, False]), alpha=0),
    lambda m: m.sub(m.tensor([1, 2], dtype=m.uint8), m.tensor([3, 4], dtype=m.uint8), alpha=3),
    lambda m: m.add(m.tensor([1, 2]), m.tensor([3, 4]), alpha=2),
    lambda m: m.add(m.tensor([1, 2]), 2.5, alpha=2),
    lambda m: m.sub(m.tensor([1 + 0j]), m.tensor([2]), alpha=2j),
    lambda m: m.add(m.tensor([1, 2]), m.tensor([3, 4]), alpha=m.tensor(2.0)),
    lambda m: m.add(m.tensor([0.1, 2.3, -1.7]), m.tensor([0.7, 1.1, 5.3]), alpha=np.float32(0.3)),
    lambda m: m.sub(m.tensor([0.1, 2.3, -1.7]), m.tensor([0.7, 1.1, 5.3]), alpha=m.tensor(0.3)),
]


@pytest.mark.parametrize("i", range(len(_ALPHA_CASES)))
def test_add_sub_alpha_checks_and_dtypes(i):
    fn = _ALPHA_CASES[i]
    ours, theirs = _outcome(fn, tt), _outcome(fn, torch)
    if ours[0] == theirs[0] == "float32":  # a + alpha * b: one FMA on PyTorch's AVX2/AVX512 paths, two roundings on DEFAULT
        _paths.assert_bits(np.float32(ours[1]), np.float32(theirs[1]), ulps=1, scale="max", what="add/sub")
    else:
        assert ours == theirs


_BN_DTYPES = [  # input, running stats, weight
    ("float32", "float64", None), ("float64", "float32", None), ("float32", "float32", "float64"),
    ("float64", None, "float32"), ("float32", None, "float64"), ("float16", "float32", None),
    ("float16", "float64", None), ("float16", "float16", "float32"), ("float64", "float64", "float32"),
    ("float16", None, "float32"), ("float32", "float16", None), ("bfloat16", "float32", "float32"),
]


@pytest.mark.parametrize("dtypes", _BN_DTYPES)
@pytest.mark.parametrize("training", [True, False])
def test_batch_norm_mixed_dtypes(dtypes, training):
    x = np.linspace(-2, 3, 24).reshape(4, 3, 2)

    def call(m):
        xd, rd, wd = (None if d is None else getattr(m, d) for d in dtypes)
        rm = None if rd is None else m.zeros(3, dtype=rd)
        rv = None if rd is None else m.ones(3, dtype=rd)
        w = None if wd is None else m.full((3,), 1.5, dtype=wd)
        y = m.nn.functional.batch_norm(m.tensor(x, dtype=xd), rm, rv, w, training=training)
        return y.float() if rm is None else m.cat([y.float().flatten(), rm.float(), rv.float()])

    a, b = _outcome(call, tt), _outcome(call, torch)
    assert a[0] == b[0]
    if isinstance(a[1], str):
        assert a == b
    else:
        np.testing.assert_allclose(a[1], b[1], rtol=1e-2, atol=1e-3)


def _half_same(got: np.ndarray, want, what: str) -> None:
    """The half/bfloat16 kernels' float32 multiply-add is one FMA on PyTorch's AVX2/AVX512 paths (bit for
    bit there) and two roundings on DEFAULT: within 1 ulp of the dtype at the array's largest value."""
    _paths.assert_bits(got, want.float().numpy().astype(got.dtype), ulps=1, scale="max", what=what)


@pytest.mark.bitexact
@pytest.mark.parametrize("dtype", ["float16", "bfloat16"])
@pytest.mark.parametrize("weight", [0.3, 0.7, "tensor"])
def test_lerp_half_rounds_once(dtype, weight):
    g = torch.Generator().manual_seed(0)
    a, b, w = (torch.randn(2000, generator=g).to(getattr(torch, dtype)) for _ in range(3))
    w = w.abs().clamp(max=1) if weight == "tensor" else weight

    def tt_of(t):
        return tt.tensor(t.float().numpy()).to(getattr(tt, dtype))

    got = tt.lerp(tt_of(a), tt_of(b), tt_of(w) if weight == "tensor" else w).numpy()
    _half_same(got, torch.lerp(a, b, w), "lerp")


@pytest.mark.bitexact
@pytest.mark.parametrize("dtype", ["float16", "bfloat16"])
@pytest.mark.parametrize("value", [0.3, 1, -2.5])
def test_addcmul_half_rounds_once(dtype, value):
    g = torch.Generator().manual_seed(1)
    a, b, c = (torch.randn(2000, generator=g).to(getattr(torch, dtype)) for _ in range(3))
    got = tt.addcmul(*(tt.tensor(t.float().numpy()).to(getattr(tt, dtype)) for t in (a, b, c)), value=value)
    _half_same(got.numpy(), torch.addcmul(a, b, c, value=value), "addcmul")


@pytest.mark.bitexact
@pytest.mark.parametrize("dtype", ["float16", "bfloat16"])
@pytest.mark.parametrize("value", [0.3, 1, -2.5])
def test_addcdiv_half_rounds_once(dtype, value):
    g = torch.Generator().manual_seed(2)
    a, b, c = (torch.randn(2000, generator=g).to(getattr(torch, dtype)) for _ in range(3))
    got = tt.addcdiv(*(tt.tensor(t.float().numpy()).to(getattr(tt, dtype)) for t in (a, b, c)), value=value)
    np.testing.assert_array_equal(got.float().numpy(), torch.addcdiv(a, b, c, value=value).float().numpy())


@pytest.mark.parametrize("training", [True, False])
@pytest.mark.parametrize("which", ["running_mean", "running_var"])
@pytest.mark.parametrize("no_grad", [False, True])
def test_batch_norm_running_stats_requiring_grad(training, which, no_grad):
    x = np.linspace(-2, 3, 12).reshape(4, 3)

    def call(m):
        rm = m.zeros(3, requires_grad=which == "running_mean")
        rv = m.ones(3, requires_grad=which == "running_var")
        if no_grad:
            with m.no_grad():
                return m.nn.functional.batch_norm(m.tensor(x, dtype=m.float32), rm, rv, training=training)
        return m.nn.functional.batch_norm(m.tensor(x, dtype=m.float32), rm, rv, training=training)

    a, b = _outcome(call, tt), _outcome(call, torch)
    assert a[0] == b[0]
    if isinstance(a[1], str):
        assert a == b
    else:
        np.testing.assert_allclose(a[1], b[1], rtol=1e-5, atol=1e-6)


_VALUE_CASES = [
    lambda m: m.addcmul(m.ones(2), m.ones(2), m.ones(2), value=0.3j),
    lambda m: m.addcdiv(m.ones(2, dtype=m.float64), m.ones(2), m.ones(2), value=1j),
    lambda m: m.ones(2).addcmul_(m.ones(2), m.ones(2), value=1 + 0j),
    lambda m: m.addcmul(*(m.ones(2, dtype=m.int64) for _ in range(3)), value=1j),
    lambda m: m.addcmul(m.ones(2), m.ones(2), m.ones(2, dtype=m.complex64), value=1j),
]


@pytest.mark.parametrize("i", range(len(_VALUE_CASES)))
def test_addcmul_addcdiv_complex_value(i):
    assert _outcome(_VALUE_CASES[i], tt) == _outcome(_VALUE_CASES[i], torch)
