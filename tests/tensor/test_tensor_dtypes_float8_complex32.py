"""The float8 dtypes (e4m3fn, e5m2, e4m3fnuz, e5m2fnuz, e8m0fnu) and complex32 against PyTorch's CPU build:
the dtype objects, casts both ways bit for bit (every float8 code, floats drawn by hypothesis, NaN and inf),
promotion, printing, finfo, the ops PyTorch runs on them and its refusals of the others (same exception,
same message), complex32's views and chalf's gradients, _scaled_mm / _scaled_mm_v2, and checkpoints."""
import _paths
import _repo
import io
import os
import subprocess
import sys
import warnings

import numpy as np
import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

import tinytorch as tt

from _oracle import torch  # noqa: E402  (PyTorch when a test reads it)
pytest.importorskip("ml_dtypes")

F8 = ["float8_e4m3fn", "float8_e5m2", "float8_e4m3fnuz", "float8_e5m2fnuz", "float8_e8m0fnu"]
NARROW = F8 + ["complex32"]
WIDE = ["bool", "uint8", "int8", "int16", "int32", "int64", "float16", "bfloat16", "float32", "float64",
        "complex64", "complex128"]
_SETTINGS = settings(max_examples=60, deadline=None, suppress_health_check=[HealthCheck.too_slow])

pytestmark = pytest.mark.filterwarnings("ignore:ComplexHalf support is experimental",
                                        "ignore:Casting complex values to real")


# -- moving tensors between the libraries by their bits ---------------------------------------------------
def to_torch(t):
    """A tinytorch tensor as PyTorch's, bit for bit (PyTorch's from_numpy takes neither float8 nor complex32)."""
    arr = np.ascontiguousarray(t.detach().numpy())
    name = t.dtype.name
    if name == "complex32":
        return torch.view_as_complex(torch.from_numpy(arr.view(np.float16).reshape(tuple(t.shape) + (2,)).copy()))
    if name in F8:
        return torch.from_numpy(arr.view(np.uint8).copy()).view(getattr(torch, name))
    if name == "bfloat16":
        return torch.from_numpy(arr.view(np.int16).copy()).view(torch.bfloat16)
    return torch.from_numpy(arr.copy())


def to_tt(t):
    """A PyTorch tensor as tinytorch's, bit for bit."""
    name = str(t.dtype).split(".")[1]
    if name == "complex32":
        halves = torch.view_as_real(t).contiguous().numpy().copy()
        return tt.from_numpy(halves.view(tt.complex32.np).reshape(tuple(t.shape)))
    if name in F8:
        return tt.from_numpy(t.contiguous().view(torch.uint8).numpy().copy().view(getattr(tt, name).np))
    if name == "bfloat16":
        return tt.from_numpy(t.contiguous().view(torch.int16).numpy().copy().view(tt.bfloat16.np))
    return tt.from_numpy(t.contiguous().numpy().copy())


def raw(t) -> bytes:
    """The tensor's element bytes in logical order (either library)."""
    if isinstance(t, tt.Tensor):
        t = to_torch(t)
    t = t.detach().resolve_conj().contiguous()
    if t.dtype == torch.complex32:
        return torch.view_as_real(t).contiguous().view(torch.uint8).numpy().tobytes()
    return t.reshape(-1).view(torch.uint8).numpy().tobytes()


def _parts(t):
    """A PyTorch tensor's elements as rows of bytes and whether each is NaN (complex32: its two halves)."""
    t = t.detach().resolve_conj().contiguous()
    if t.dtype == torch.complex32:
        t = torch.view_as_real(t).contiguous()
    flat = t.reshape(-1)
    nan = flat.float().isnan().numpy() if flat.is_floating_point() else np.zeros(flat.numel(), bool)
    return flat.view(torch.uint8).numpy().reshape(flat.numel(), -1), nan


def assert_same(got, want):
    """Bit for bit, NaN payloads included, where PyTorch converts with its vector kernels (its AVX2 and AVX-512
    builds, which keep a NaN's payload, as tinytorch does); its DEFAULT build converts float8, float64 and the
    complex32 parts with scalar code that makes a canonical NaN (half's 0x7e00, with the sign), so there a NaN
    must be a NaN and every other element the same bits."""
    assert isinstance(got, tt.Tensor), type(got)
    assert got.dtype.name == str(want.dtype).split(".")[1]
    assert tuple(got.shape) == tuple(want.shape)
    if raw(got) == raw(want) or _paths.running(_paths.FMA_PATHS):
        assert raw(got) == raw(want)
        return
    (a, a_nan), (b, b_nan) = _parts(to_torch(got)), _parts(want)
    assert (a_nan == b_nan).all(), f"NaN where PyTorch has none (or none where it has one): {np.flatnonzero(a_nan != b_nan)[:5]}"
    differ = (a != b).any(axis=1) & ~b_nan
    assert not differ.any(), f"elements differ from PyTorch's bits at {np.flatnonzero(differ)[:5]}"


def outcome(fn):
    """("ok", value) or ("raises", type name, message) of a call."""
    try:
        with warnings.catch_warnings():
            warnings.simplefilter("ignore")
            return ("ok", fn())
    except Exception as e:  # noqa: BLE001 - compared
        return ("raises", type(e).__name__, str(e))


def assert_same_outcome(ours, theirs):
    a, b = outcome(ours), outcome(theirs)
    if b[0] == "raises" or a[0] == "raises":
        assert a == b
        return
    x, y = a[1], b[1]
    if isinstance(y, torch.Tensor):
        assert_same(x, y)
    else:
        assert x == y or (x != x and y != y)


# -- the dtype objects ----------------------------------------------------------------------------------
@pytest.mark.parametrize("name", NARROW)
def test_dtype_properties(name):
    a, b = getattr(tt, name), getattr(torch, name)
    assert repr(a) == repr(b).replace("torch", "tinytorch")
    for attr in ("is_floating_point", "is_complex", "is_signed", "itemsize"):
        assert getattr(a, attr) == getattr(b, attr), attr
    assert a.to_real().name == str(b.to_real()).split(".")[1]
    assert_same_outcome(lambda: a.to_complex().name, lambda: str(b.to_complex()).split(".")[1])
    t, u = tt.zeros(3, dtype=a), torch.zeros(3, dtype=b)
    assert t.element_size() == u.element_size()
    assert t.type() == u.type().replace("torch", "tinytorch")
    assert (t.is_floating_point(), t.is_complex()) == (u.is_floating_point(), u.is_complex())


def test_spellings():
    assert tt.chalf is tt.complex32
    assert tt.float16.to_complex() is tt.complex32 and tt.bfloat16.to_complex() is tt.complex64
    assert tt.ones(2).chalf().dtype is tt.complex32


@pytest.mark.parametrize("name", F8)
def test_finfo(name):
    a, b = tt.finfo(getattr(tt, name)), torch.finfo(getattr(torch, name))
    assert repr(a) == repr(b)
    for attr in ("bits", "eps", "max", "min", "tiny", "smallest_normal", "resolution", "dtype"):
        assert getattr(a, attr) == getattr(b, attr), attr


def test_finfo_complex32_is_halfs():
    assert repr(tt.finfo(tt.complex32)) == repr(torch.finfo(torch.complex32))


# -- casts, bit for bit ----------------------------------------------------------------------------------
def _codes(name):
    return torch.arange(256, dtype=torch.int32).to(torch.uint8).view(getattr(torch, name))


@pytest.mark.parametrize("target", WIDE + NARROW)
@pytest.mark.parametrize("name", F8)
def test_every_code_converts_as_torch(name, target):
    """All 256 codes of each float8 dtype to every dtype (NaN payloads, signed zeros, saturation included)."""
    src = _codes(name)
    want = src.to(getattr(torch, target))
    assert_same(to_tt(src).to(getattr(tt, target)), want)


_SPECIALS = [0.0, -0.0, float("inf"), float("-inf"), float("nan"), -float("nan"), 448.0, 449.0, 464.0, 465.0,
             480.0, 57344.0, 61440.0, 61441.0, 240.0, 248.0, 1e30, -1e30, 2.0 ** -127, 2.0 ** -128, 1.5, 3.0,
             1.125 + 2.0 ** -30, 1 + 2.0 ** -11 + 2.0 ** -40, 1e-10, 3e38]


@pytest.mark.parametrize("source", ["float32", "float64", "float16", "bfloat16", "int64", "int8", "bool",
                                    "complex64", "complex128"])
@pytest.mark.parametrize("name", NARROW)
def test_specials_and_random_bits_convert_as_torch(name, source):
    """Floats of every kind (random bit patterns: NaNs with payloads, subnormals, huge values) to each dtype."""
    g = torch.Generator().manual_seed(0)
    bits32 = torch.randint(0, 2 ** 32, (4000,), generator=g, dtype=torch.int64).to(torch.int32).view(torch.float32)
    vals = torch.cat([torch.tensor(_SPECIALS, dtype=torch.float64), bits32.double(),
                      torch.randn(2000, generator=g, dtype=torch.float64) * 100])
    if source in ("int64", "int8", "bool"):
        vals = torch.randint(-2 ** 40, 2 ** 40, (2000,), generator=g)
    src = vals.to(getattr(torch, source)) if not source.startswith("complex") else \
        torch.complex(vals, vals.flip(0)).to(getattr(torch, source))
    assert_same(to_tt(src).to(getattr(tt, name)), src.to(getattr(torch, name)))


@_SETTINGS
@given(st.lists(st.floats(allow_nan=True, allow_infinity=True), min_size=1, max_size=20),
       st.sampled_from(NARROW))
def test_creation_from_python_floats(values, name):
    assert_same(tt.tensor(values, dtype=getattr(tt, name)), torch.tensor(values, dtype=getattr(torch, name)))


@_SETTINGS
@given(st.lists(st.complex_numbers(allow_nan=True, allow_infinity=True), min_size=1,
                max_size=12))
def test_complex32_from_python_complex(values):
    ours, theirs = tt.tensor(values, dtype=tt.chalf), torch.tensor(values, dtype=torch.chalf)
    assert_same(ours, theirs)
    for target in WIDE:
        assert_same(ours.to(getattr(tt, target)), theirs.to(getattr(torch, target)))


@pytest.mark.parametrize("name", NARROW)
def test_factories(name):
    a, b = getattr(tt, name), getattr(torch, name)
    fill = 1 + 2j if name == "complex32" else 3.3
    for ours, theirs in ((tt.zeros(2, 3, dtype=a), torch.zeros(2, 3, dtype=b)),
                         (tt.ones(4, dtype=a), torch.ones(4, dtype=b)),
                         (tt.full((3,), fill, dtype=a), torch.full((3,), fill, dtype=b)),
                         (tt.ones_like(tt.zeros(2, dtype=a)), torch.ones_like(torch.zeros(2, dtype=b))),
                         (tt.tensor(2.5, dtype=a), torch.tensor(2.5, dtype=b))):
        assert_same(ours, theirs)


@pytest.mark.parametrize("name", NARROW)
def test_writes_round_as_torch(name):
    """fill_, copy_ and setitem (a number, a tensor of another dtype, an index) round the value as casts do."""
    a, b = getattr(tt, name), getattr(torch, name)
    ours, theirs = tt.zeros(5, dtype=a), torch.zeros(5, dtype=b)
    ours.fill_(2.7)  # (PyTorch refuses a Python number past the dtype's range here; tinytorch rounds it)
    theirs.fill_(2.7)
    assert_same(ours, theirs)
    src = [0.3, -700.0, float("nan"), 2.0 ** -130, 0.0]
    ours.copy_(tt.tensor(src))
    theirs.copy_(torch.tensor(src))
    assert_same(ours, theirs)
    ours[1] = -2.75
    theirs[1] = -2.75
    assert_same(ours, theirs)

    def put(lib, t):  # an index put (float8_e8m0fnu has no kernel for it)
        t[lib.tensor([0, 3])] = 5.0
        return t
    assert_same_outcome(lambda: put(tt, ours), lambda: put(torch, theirs))
    ours.zero_()
    theirs.zero_()
    assert_same(ours, theirs)


@pytest.mark.parametrize("name", NARROW)
def test_views_indexing_and_joins(name):
    src = torch.linspace(-3, 3, 24).reshape(2, 3, 4).to(getattr(torch, name))
    ours = to_tt(src)
    for fn in (lambda x: x[1], lambda x: x[:, 1:, ::2], lambda x: x.transpose(0, 2).contiguous(),
               lambda x: x.reshape(6, 4), lambda x: x.permute(2, 0, 1), lambda x: x.unsqueeze(1).expand(2, 3, 3, 4),
               lambda x: x.clone(), lambda x: x.roll(1, 2), lambda x: x.repeat(2, 1, 1), lambda x: x.diagonal(0, 1, 2),
               lambda x: x.narrow(2, 1, 2), lambda x: x.index_select(1, x.new_zeros(2, dtype=torch.int64 if x.__class__
                                                                                       is torch.Tensor else tt.int64)),
               lambda x: x.unbind(0)[1], lambda x: x.flatten(), lambda x: x.t() if x.dim() == 2 else x.mT):
        assert_same(fn(ours), fn(src))
    lib_pairs = ((tt, ours), (torch, src))
    cats = [lib.cat([x, x], 1) for lib, x in lib_pairs]
    assert_same(*cats)
    stacks = [lib.stack([x[0], x[1]]) for lib, x in lib_pairs]
    assert_same(*stacks)
    wheres = [lib.where(x == x, x, x) for lib, x in lib_pairs]
    assert_same(*wheres)


# -- promotion ------------------------------------------------------------------------------------------
@pytest.mark.parametrize("other", WIDE + NARROW + ["uint16", "uint32", "uint64"])
@pytest.mark.parametrize("name", NARROW)
def test_promote_types(name, other):
    for x, y in ((name, other), (other, name)):
        assert_same_outcome(lambda: tt.promote_types(getattr(tt, x), getattr(tt, y)).name,
                            lambda: str(torch.promote_types(getattr(torch, x), getattr(torch, y))).split(".")[1])


@pytest.mark.bitexact
@pytest.mark.parametrize("draw", ["rand", "randn", "uniform_", "normal_"])
def test_complex32_random_draws_match_torch(draw):
    """Drawn as their real view in half, as PyTorch draws them: the same streams, the same bits."""
    torch.manual_seed(7)
    tt.manual_seed(7)
    if draw in ("rand", "randn"):
        theirs, ours = getattr(torch, draw)(3, 5, dtype=torch.chalf), getattr(tt, draw)(3, 5, dtype=tt.chalf)
    else:
        theirs = getattr(torch.empty(7, dtype=torch.chalf), draw)()
        ours = getattr(tt.empty(7, dtype=tt.chalf), draw)()
    assert_same(ours, theirs)


def test_half_fft_and_polar_refused_as_torch():
    h = torch.tensor([1.0, 2.0, 3.0, 4.0], dtype=torch.half)
    for fn in (lambda lib, x: lib.fft.fft(x), lambda lib, x: lib.fft.rfft(x), lambda lib, x: lib.fft.fftn(x),
               lambda lib, x: lib.fft.fft(x.bfloat16()), lambda lib, x: lib.fft.ifft(x.chalf()),
               lambda lib, x: lib.polar(x, x)):
        assert_same_outcome(lambda: fn(tt, to_tt(h)), lambda: fn(torch, h))


def test_half_with_complex_is_complex32():
    h = torch.tensor([1.5, -2.0], dtype=torch.half)
    assert_same(to_tt(h) * 1j, h * 1j)
    assert_same(to_tt(h) + (0.5 + 2j), h + (0.5 + 2j))
    assert tt.result_type(to_tt(h), 1j) is tt.complex32


# -- the ops PyTorch runs on them, and its refusals -----------------------------------------------------
def _ops(lib):
    return {
        "add": lambda t: t + t, "sub": lambda t: t - t, "mul": lambda t: t * t, "mul_bcast": lambda t: t.reshape(2, 2) * t[:2],
        "mul_0d": lambda t: t * t[0], "mul_scalar": lambda t: t * 2.0, "add_scalar": lambda t: t + 1, "div": lambda t: t / t,
        "div_scalar": lambda t: t / 2, "neg": lambda t: -t, "abs": lambda t: t.abs(), "sum": lambda t: t.sum(),
        "mean": lambda t: t.mean(), "prod": lambda t: t.prod(), "exp": lambda t: t.exp(), "sqrt": lambda t: t.sqrt(),
        "sin": lambda t: t.sin(), "tanh": lambda t: t.tanh(), "sigmoid": lambda t: t.sigmoid(), "reciprocal": lambda t: t.reciprocal(),
        "exp2": lambda t: t.exp2(), "square": lambda t: t.square(), "pow": lambda t: t ** 2,
        "mm": lambda t: t.reshape(2, 2) @ t.reshape(2, 2), "dot": lambda t: t.dot(t),
        "eq": lambda t: t == t, "ne_scalar": lambda t: t != 1, "lt": lambda t: t < t, "gt_scalar": lambda t: t > 0,
        "isnan": lambda t: t.isnan(), "isinf": lambda t: t.isinf(), "isfinite": lambda t: t.isfinite(),
        "max": lambda t: t.max(), "min": lambda t: t.min(), "max_dim": lambda t: t.max(0)[0], "amax": lambda t: t.amax(),
        "argmax": lambda t: t.argmax(), "maximum": lambda t: lib.maximum(t, t), "clamp": lambda t: t.clamp(0, 1),
        "relu": lambda t: lib.relu(t), "flip": lambda t: t.flip(0), "sort": lambda t: t.sort()[0], "topk": lambda t: t.topk(1)[0],
        "cumsum": lambda t: t.cumsum(0), "cummax": lambda t: t.cummax(0)[0], "unique": lambda t: t.unique(),
        "gather": lambda t: t.gather(0, lib.tensor([0, 1])), "scatter": lambda t: t.clone().scatter_(0, lib.tensor([0]), t[:1]),
        "masked_fill": lambda t: t.masked_fill(lib.tensor([True, False, True, False]), 0),
        "nonzero": lambda t: t.nonzero(), "equal": lambda t: lib.equal(t, t), "signbit": lambda t: t.signbit(),
        "sgn": lambda t: t.sgn(), "sign": lambda t: t.sign(), "softmax": lambda t: t.softmax(0), "logsumexp": lambda t: t.logsumexp(0),
        "tril": lambda t: t.reshape(2, 2).tril(), "nan_to_num": lambda t: t.nan_to_num(), "angle": lambda t: t.angle(),
        "conj": lambda t: t.conj(), "conj_physical": lambda t: t.conj_physical(), "real": lambda t: t.real,
        "imag": lambda t: t.imag, "view_as_real": lambda t: lib.view_as_real(t),
        "arange": lambda t: lib.arange(3, dtype=t.dtype), "rand": lambda t: str(lib.rand(2, dtype=t.dtype).dtype)[-9:],
        "randn": lambda t: str(lib.randn(2, dtype=t.dtype).dtype)[-9:], "fft": lambda t: lib.fft.fft(t),
        "rfft": lambda t: lib.fft.rfft(t),
        "mul_f32": lambda t: t * lib.ones(4), "std": lambda t: t.std() if not t.dtype.is_complex else None,
        "add_": lambda t: t.clone().add_(t), "mul_": lambda t: t.clone().mul_(t),
    }


@pytest.mark.parametrize("op", sorted(_ops(tt)))
@pytest.mark.parametrize("name", NARROW)
def test_ops_run_or_refuse_as_torch(name, op):
    src = torch.tensor([1.0, 2.5, 4.0, 0.5], dtype=getattr(torch, name))
    ours = to_tt(src)
    assert_same_outcome(lambda: _ops(tt)[op](ours), lambda: _ops(torch)[op](src))


@_SETTINGS
@given(st.lists(st.floats(-500, 500, allow_nan=False), min_size=4, max_size=4),
       st.lists(st.floats(-500, 500, allow_nan=False), min_size=4, max_size=4), st.sampled_from(F8[:4]))
def test_float8_mul_and_mm_round_once(a, b, name):
    x, y = torch.tensor(a).to(getattr(torch, name)), torch.tensor(b).to(getattr(torch, name))
    assert_same(to_tt(x) * to_tt(y), x * y)
    assert_same(to_tt(x).reshape(2, 2) @ to_tt(y).reshape(2, 2), x.reshape(2, 2) @ y.reshape(2, 2))
    assert_same(to_tt(x).abs(), x.abs())


@_SETTINGS
@given(st.lists(st.complex_numbers(max_magnitude=300, allow_nan=False), min_size=3, max_size=3),
       st.lists(st.complex_numbers(max_magnitude=300, allow_nan=False), min_size=3, max_size=3))
def test_complex32_arithmetic(a, b):
    x, y = torch.tensor(a, dtype=torch.chalf), torch.tensor(b, dtype=torch.chalf)
    X, Y = to_tt(x), to_tt(y)
    for ours, theirs in ((X + Y, x + y), (X - Y, x - y), (X * Y, x * y), (-X, -x), (X.abs(), x.abs()),
                         (X.conj_physical(), x.conj_physical()), (X * 2.5, x * 2.5), (X + 1j, x + 1j),
                         (X * tt.ones(3), x * torch.ones(3)), (X.sgn(), x.sgn())):
        assert_same(ours, theirs)


# -- complex32 views and chalf ----------------------------------------------------------------------------
def test_complex32_views_share_memory():
    src = torch.tensor([1 + 2j, -3.5 - 0.25j, 0.1 + 7j], dtype=torch.chalf)
    ours = to_tt(src)
    assert_same(tt.view_as_real(ours), torch.view_as_real(src))
    assert_same(ours.real, src.real)
    assert_same(ours.imag, src.imag)
    back = tt.view_as_complex(tt.view_as_real(ours))
    assert_same(back, torch.view_as_complex(torch.view_as_real(src)))
    tt.view_as_real(ours)[0, 1] = 9.0
    torch.view_as_real(src)[0, 1] = 9.0
    assert_same(ours, src)
    ours.imag[2] = -1.0
    src.imag[2] = -1.0
    assert_same(ours, src)
    h = torch.tensor([[1.0, 2.0], [3.0, -4.0]], dtype=torch.half)
    assert_same(tt.view_as_complex(to_tt(h)), torch.view_as_complex(h))
    assert_same(tt.complex(to_tt(h[0]), to_tt(h[1])), torch.complex(h[0], h[1]))


@pytest.mark.parametrize("source", ["float32", "float64", "complex64", "int64", "bool", "float16"])
def test_chalf_and_its_gradient(source):
    g = torch.Generator().manual_seed(1)
    base = torch.randn(2, 3, 2, 3, generator=g, dtype=torch.float64) * 50
    src = base.to(getattr(torch, source)) if source != "complex64" else torch.complex(base, -base).to(torch.complex64)
    ours = to_tt(src)
    assert_same(ours.chalf(), src.chalf())
    assert ours.chalf(memory_format=tt.channels_last).stride() == src.chalf(memory_format=torch.channels_last).stride()
    if not (src.dtype.is_floating_point or src.dtype.is_complex):
        return
    x, y = src.clone().requires_grad_(), ours.clone().requires_grad_()
    out_t, out_tt = x.chalf(), y.chalf()
    assert type(out_tt.grad_fn).__name__ == type(out_t.grad_fn).__name__
    cot = torch.complex(torch.randn(2, 3, 2, 3, generator=g), torch.randn(2, 3, 2, 3, generator=g)).chalf()
    (gt,) = torch.autograd.grad(out_t, x, cot)
    (gtt,) = tt.autograd.grad(out_tt, y, to_tt(cot))
    assert_same(gtt, gt)


# -- printing -------------------------------------------------------------------------------------------
@_SETTINGS
@given(st.lists(st.floats(allow_nan=True, allow_infinity=True, width=32), min_size=1, max_size=8),
       st.sampled_from(NARROW))
def test_repr(values, name):
    src = torch.tensor(values).to(getattr(torch, name))
    for ours, theirs in ((to_tt(src), src), (to_tt(src).reshape(-1, 1), src.reshape(-1, 1)), (to_tt(src)[0], src[0])):
        assert repr(ours) == repr(theirs).replace("torch.", "tinytorch.")


@pytest.mark.parametrize("name", NARROW)
def test_repr_every_code_and_zero(name):
    src = _codes(name) if name != "complex32" else torch.tensor([0j, 1 + 1j, -2.5 + 1e4j], dtype=torch.chalf)
    assert repr(to_tt(src)) == repr(src).replace("torch.", "tinytorch.")
    assert repr(tt.zeros(3, dtype=getattr(tt, name))) == repr(torch.zeros(3, dtype=getattr(torch, name))).replace(
        "torch.", "tinytorch.")


def test_item_tolist():
    c = torch.tensor([1 + 2j, float("nan") + 0j], dtype=torch.chalf)
    assert to_tt(c)[0].item() == c[0].item() and str(to_tt(c).tolist()) == str(c.tolist())
    f = torch.tensor([1.5, -448.0, float("nan")]).to(torch.float8_e4m3fn)
    assert str(to_tt(f).tolist()) == str(f.tolist()) and to_tt(f)[1].item() == f[1].item()


# -- _scaled_mm -----------------------------------------------------------------------------------------
def reference_kernel(call):
    """PyTorch's answer from its reference float8 kernel (each operand widened to float and scaled, float
    products and sums, one rounding), the one tinytorch follows. PyTorch runs it on every CPU but one kind:
    where the CPU has AMX-INT8 (AMX-FP16 for mixed float8 operands) and both scales are singletons, it runs
    oneDNN's kernel instead, which computes with less precision (float32 results ~1e-4 off relative, measured
    on a Xeon with AMX), turns an e4m3fn overflow into NaN where the reference saturates at 448, and refuses
    e4m3fnuz operands and float64 results. ``torch.backends.mkldnn.flags(enabled=False)`` is PyTorch's own
    switch back to the reference kernel (it changes nothing on other CPUs)."""
    def run():
        with torch.backends.mkldnn.flags(enabled=False):
            return call()
    return run


def assert_scaled_mm_outcome(ours, theirs):
    """The same outcome as PyTorch's reference kernel, bit for bit: values, dtype, or error type and text."""
    assert_same_outcome(ours, reference_kernel(theirs))


def _mats(g, m, k, n, da, db, scale=40.0):
    a = (torch.randn(m, k, generator=g) * scale).to(da)
    b = (torch.randn(k, n, generator=g) * scale).to(db)
    return a, b


@pytest.mark.bitexact
@pytest.mark.parametrize("out_dtype", [None, "float32", "bfloat16", "float16", "float64", "float8_e5m2"])
@pytest.mark.parametrize("kinds", [("float8_e4m3fn", "float8_e4m3fn"), ("float8_e4m3fn", "float8_e5m2"),
                                   ("float8_e5m2", "float8_e4m3fn"), ("float8_e4m3fnuz", "float8_e4m3fnuz")])
@pytest.mark.parametrize("rowwise", [False, True])
@pytest.mark.parametrize("with_bias", [False, True])
def test_scaled_mm_bits(kinds, out_dtype, rowwise, with_bias):
    g = torch.Generator().manual_seed(3)
    a, b = _mats(g, 15, 16, 32, getattr(torch, kinds[0]), getattr(torch, kinds[1]))
    b = b.t().contiguous().t()
    sa = torch.rand(15, 1, generator=g) + 0.1 if rowwise else torch.tensor(0.37)
    sb = torch.rand(1, 32, generator=g) + 0.1 if rowwise else torch.tensor(1.7)
    od = None if out_dtype is None else getattr(torch, out_dtype)
    bias = torch.randn(32, generator=g).to(od) if with_bias and od in (torch.float32, torch.bfloat16) else None
    theirs = lambda: torch._scaled_mm(a, b, sa, sb, bias=bias, out_dtype=od)  # noqa: E731
    ours = lambda: tt._scaled_mm(to_tt(a), to_tt(b), to_tt(sa), to_tt(sb),  # noqa: E731
                                 bias=None if bias is None else to_tt(bias),
                                 out_dtype=None if od is None else getattr(tt, out_dtype))
    wide_a, wide_b = a.float() * sa, b.float() * sb  # PyTorch's reference kernel widens and scales so
    ours_gemm = torch.from_numpy(tt.mm(to_tt(wide_a), to_tt(wide_b)).numpy())
    if torch.equal(torch.mm(wide_a, wide_b), ours_gemm):
        assert_scaled_mm_outcome(ours, theirs)
        return
    # The known difference: the two float32 GEMMs (PyTorch's MKL, tinytorch's numpy BLAS) sum the same products
    # in their kernels' own orders, which each picks by CPU (OpenBLAS 0.3.31 takes its Haswell kernels on an
    # AMD Zen 5, where these sums round otherwise than MKL's). Everything else is held to PyTorch's steps: its
    # widened, scaled operands, tinytorch's GEMM of them, PyTorch's bias and rounding to the result's dtype.
    def steps(gemm):
        return (gemm + (0 if bias is None else bias.float())).to(od or a.dtype)
    def bits(t):
        return t.dtype, t.contiguous().view(torch.uint8).numpy().tobytes()
    assert bits(reference_kernel(theirs)()) == bits(steps(torch.mm(wide_a, wide_b)))  # PyTorch's kernel: these steps
    assert_same_outcome(ours, lambda: steps(ours_gemm))


@pytest.mark.bitexact
@pytest.mark.parametrize("recipes", [(0, 0), (1, 1), (0, 1), (4, 4)])
def test_scaled_mm_v2(recipes):
    ScalingType, SwizzleType = torch.nn.functional.ScalingType, torch.nn.functional.SwizzleType
    g = torch.Generator().manual_seed(4)
    a, b = _mats(g, 15, 16, 32, torch.float8_e4m3fn, torch.float8_e4m3fn, 10.0)
    scales = {0: (torch.rand(1, generator=g), torch.rand(1, generator=g)),
              1: (torch.rand(15, 1, generator=g), torch.rand(1, 32, generator=g)), 4: (torch.rand(1), torch.rand(1))}
    sa, sb = scales[recipes[0]][0], scales[recipes[1]][1]
    for enum in (True, False):
        ra = ScalingType(recipes[0]) if enum else recipes[0]
        rb = ScalingType(recipes[1]) if enum else recipes[1]
        sw = SwizzleType.NO_SWIZZLE if enum else 0
        assert_scaled_mm_outcome(
            lambda: tt._scaled_mm_v2(to_tt(a), to_tt(b), [to_tt(sa)], [ra], [sw], [to_tt(sb)], [rb], [sw], None,
                                     tt.bfloat16),
            lambda: torch._scaled_mm_v2(a, b, [sa], [ra], [sw], [sb], [rb], [sw], None, torch.bfloat16))


def test_scaled_mm_errors():
    a, b = _mats(torch.Generator().manual_seed(5), 4, 8, 6, torch.float8_e4m3fn, torch.float8_e4m3fn)
    s = torch.tensor(1.0)
    for args in ((a, a, s, s), (a.float(), b.float(), s, s), (a, b, s.double(), s), (a.unsqueeze(0), b, s, s),
                 (a, b, torch.rand(4, 2), torch.rand(1, 6))):
        assert_scaled_mm_outcome(lambda: tt._scaled_mm(*[to_tt(x) for x in args]), lambda: torch._scaled_mm(*args))


# -- checkpoints ---------------------------------------------------------------------------------------
@pytest.mark.parametrize("name", NARROW)
def test_save_load_both_ways(name):
    src = torch.tensor([[1.5, -2.0, 3.25], [0.5, 4.0, 8.0]]).to(getattr(torch, name))
    buf = io.BytesIO()
    torch.save({"x": src, "y": src.t()[1:]}, buf)
    back = tt.load(io.BytesIO(buf.getvalue()))
    assert_same(back["x"], src)
    assert_same(back["y"], src.t()[1:])
    buf = io.BytesIO()
    tt.save({"x": to_tt(src), "y": to_tt(src).t()[1:]}, buf)
    theirs = torch.load(io.BytesIO(buf.getvalue()))
    assert raw(theirs["x"]) == raw(src) and theirs["y"].dtype == src.dtype and raw(theirs["y"]) == raw(src.t()[1:])


# -- without ml_dtypes ----------------------------------------------------------------------------------
def test_without_ml_dtypes_float8_dtypes_exist_and_refuse_tensors():
    code = ("import sys; sys.modules['ml_dtypes'] = None\n"
            "import tinytorch as tt\n"
            "assert tt.float8_e4m3fn.is_floating_point and tt.float8_e8m0fnu.itemsize == 1\n"
            "assert tt.tensor([1 + 2j], dtype=tt.chalf).dtype is tt.complex32\n"
            "for d in (tt.float8_e4m3fn, tt.float8_e5m2, tt.float8_e4m3fnuz, tt.float8_e5m2fnuz, tt.float8_e8m0fnu):\n"
            "    try:\n        tt.zeros(2, dtype=d)\n    except ImportError as e:\n        print(e)\n"
            "try:\n    tt.finfo(tt.float8_e4m3fn)\nexcept ImportError as e:\n    print(e)\n")
    root = _repo.ROOT
    env = dict(os.environ, PYTHONPATH=root)
    out = subprocess.run([sys.executable, "-W", "ignore", "-c", code], capture_output=True, text=True, env=env,
                         cwd=root, timeout=60)
    assert out.returncode == 0, out.stderr
    lines = out.stdout.splitlines()
    # (ml_dtypes is a dependency: only an install with --no-deps lacks it)
    assert len(lines) == 6 and all("pip install ml_dtypes" in line and "--no-deps" in line for line in lines)
    assert lines[0].startswith("tinytorch.float8_e4m3fn tensors")


@pytest.mark.parametrize("sign", [0, 1])
@pytest.mark.parametrize("payload", [0, 0x89, 0x3FFFF])
def test_python_nan_payloads_to_half_as_torch(payload, sign):
    """A Python NaN with payload bits reaches half through PyTorch's scalar code, which keeps only its sign
    (0x7e00): in tensor(), full(), fill_() and setitem, for float16 and complex32's parts."""
    import struct
    nan = struct.unpack("<d", struct.pack("<Q", sign << 63 | 0x7FF8000000000000 | payload << 30))[0]
    assert nan != nan
    for make in (lambda lib, dt: lib.tensor([nan, 1.0], dtype=dt),
                 lambda lib, dt: lib.tensor(nan, dtype=dt),
                 lambda lib, dt: lib.full((3,), nan, dtype=lib.float16),
                 lambda lib, dt: lib.zeros(2, dtype=lib.float16).fill_(nan),
                 lambda lib, dt: lib.tensor([complex(nan, 2.0), complex(1.0, nan)], dtype=lib.chalf)):
        for dt in ("float16", "complex32"):
            assert_same(make(tt, getattr(tt, dt)), make(torch, getattr(torch, dt)))
    for dt in ("float16", "complex32"):
        ours, theirs = tt.zeros(3, dtype=getattr(tt, dt)), torch.zeros(3, dtype=getattr(torch, dt))
        ours[1] = nan
        theirs[1] = nan
        assert_same(ours, theirs)
