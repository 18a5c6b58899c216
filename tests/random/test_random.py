"""PyTorch's CPU random streams, bit for bit: every draw compared as raw bytes, and the whole
5056-byte generator state compared after every call (which proves both sides consumed the same
words), over seeds, sizes around the 16-element normal blocks, both float dtypes and mixed call
sequences that go through the cached normal.

tinytorch's kernels are those of PyTorch's FMA builds (ATen's AVX2 and AVX512 paths): there every
draw is compared bit for bit. PyTorch's DEFAULT path (``ATEN_CPU_CAPABILITY=default``) rounds
``from + (to - from) * u`` and ``z * std + mean`` twice and draws float32 normals with glibc's
logf/cosf/sinf; there the floating draws must lie within ``_paths.DRAW_ULPS`` ulp of PyTorch's (counted at
the draws' scale, ``same_bits``'s ``scale``), while integer and float64 draws and the generator states
(the words consumed) stay byte for byte on every path."""

import numpy as np
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

import tinytorch as tt
from tinytorch._ops._core import paths
from tinytorch._random import engine

import _paths

pytestmark = pytest.mark.bitexact

SEEDS = [0, 1, 42, 2147483647, 2 ** 40 + 7, -1, -(2 ** 63), 2 ** 64 - 1]
SIZES = [0, 1, 15, 16, 17, 1000, 100000]


def same_bits(ours, theirs, scale=None) -> None:
    """Bit for bit on PyTorch's FMA paths; floats within _paths.DRAW_ULPS ulp at max(|value|, scale)
    elsewhere (``scale``: the draws' size; by default the largest |value| PyTorch drew)."""
    _paths.assert_drawn(ours, theirs, scale)


def same_state(torch, ours=None, theirs=None) -> None:
    """The same state bytes; under TINYTORCH_REFERENCE=1 the cached double normal (drawn with numpy's log and
    trigonometry, not glibc's) within the draws' bound, every other byte the same."""
    a = (ours or tt.default_generator).get_state().numpy()
    b = (theirs or torch.default_generator).get_state().numpy()
    if paths.REFERENCE:
        lo = engine._OFF_NY
        _paths.assert_drawn(a[lo:lo + 8].view("<f8"), b[lo:lo + 8].view("<f8"), 1.0, "cached normal")
        a, b = np.delete(a, range(lo, lo + 8)), np.delete(b, range(lo, lo + 8))
    assert a.tobytes() == b.tobytes(), f"states differ at bytes {np.flatnonzero(a != b)[:8]}"


def both(torch, seed, fn, scale=1.0):
    """Seed both default generators, run fn(lib) on each, compare values (``scale``: the draws' size,
    |mean| + std or the larger end of the range) and states."""
    tt.manual_seed(seed)
    torch.manual_seed(seed)
    same_bits(fn(tt), fn(torch), scale)
    same_state(torch)


@pytest.mark.parametrize("seed", SEEDS)
def test_seeding_state_and_initial_seed(torch, seed):
    assert tt.manual_seed(seed) is tt.default_generator
    torch.manual_seed(seed)
    assert tt.initial_seed() == torch.initial_seed()
    same_state(torch)
    same_bits(tt.get_rng_state(), torch.get_rng_state())


def test_torch_prints_its_first_normals():
    tt.manual_seed(0)
    assert str(tt.randn(3)) == "tensor([ 1.5410, -0.2934, -2.1788])"


@pytest.mark.parametrize("dtype", ["float32", "float64"])
@pytest.mark.parametrize("n", SIZES)
@pytest.mark.parametrize("seed", [0, 42, 2 ** 40 + 7, -5])
def test_rand_and_randn(torch, seed, n, dtype):
    both(torch, seed, lambda m: m.randn(n, dtype=getattr(m, dtype)))
    both(torch, seed, lambda m: m.rand(n, dtype=getattr(m, dtype)))


@pytest.mark.parametrize("n", [1, 15, 16, 17, 1000, 100000])
def test_shaped_and_scaled_normals_and_uniforms(torch, n):
    both(torch, 3, lambda m: m.randn(n, 3))
    both(torch, 4, lambda m: m.empty(n).normal_(1.5, 0.02))
    both(torch, 5, lambda m: m.empty(n, dtype=m.float64).normal_(-0.3, 3.0), 3.3)
    both(torch, 6, lambda m: m.empty(n).uniform_(-2.5, 7.25), 7.25)
    both(torch, 7, lambda m: m.empty(n, dtype=m.float64).uniform_(-0.3, 0.9))
    both(torch, 8, lambda m: m.normal(2.0, 0.5, (n,)), 2.5)


def test_non_contiguous_fills_follow_memory_order(torch):
    # a transposed view takes the per-element normal path and fills in memory order
    both(torch, 0, lambda m: m.empty(7, 5).t().normal_())
    both(torch, 0, lambda m: m.empty(40, 30).t().normal_())
    both(torch, 0, lambda m: m.empty(6, 4).t().uniform_(-1, 1))
    both(torch, 0, lambda m: m.empty(8, 10)[:, ::2].normal_())


def test_the_cached_normal_carries_across_calls(torch):
    for seed in (0, 1):
        tt.manual_seed(seed)
        torch.manual_seed(seed)
        for fn in (lambda m: m.randn(3), lambda m: m.randn(100), lambda m: m.randn(1),
                   lambda m: m.randn(5, dtype=m.float64), lambda m: m.randn(15), lambda m: m.randn(1),
                   lambda m: m.randn(2, 2), lambda m: m.randn(17, dtype=m.float64)):
            same_bits(fn(tt), fn(torch), 1.0)
            same_state(torch)
    # manual_seed drops the cached value
    tt.randn(1), torch.randn(1)
    tt.manual_seed(2), torch.manual_seed(2)
    same_state(torch)
    same_bits(tt.randn(1), torch.randn(1), 1.0)


def test_state_moves_between_the_libraries(torch):
    torch.manual_seed(11)
    torch.randn(3)  # leaves a cached normal in the state
    torch.rand(5)
    tt.set_rng_state(tt.tensor(torch.get_rng_state().numpy()))
    same_bits(tt.randn(5), torch.randn(5), 1.0)
    same_state(torch)
    tt.manual_seed(12)
    tt.randn(1)
    torch.set_rng_state(torch.from_numpy(tt.get_rng_state().numpy().copy()))
    same_bits(tt.randn(2), torch.randn(2), 1.0)
    same_bits(tt.randperm(50), torch.randperm(50))
    same_state(torch)


@pytest.mark.parametrize("seed", [0, 2 ** 40 + 7])
def test_integers(torch, seed):
    both(torch, seed, lambda m: m.randint(0, 10, (1000,)))
    both(torch, seed, lambda m: m.randint(10, (3, 4)))
    both(torch, seed, lambda m: m.randint(-5, 2 ** 33, (1000,)))  # 64-bit draws
    both(torch, seed, lambda m: m.randint(3, 1000, (17,), dtype=m.int32))
    both(torch, seed, lambda m: m.randint(-5, 2 ** 33, (20,), dtype=m.float64))
    both(torch, seed, lambda m: m.randint_like(m.empty(3, 3), 5, 9))
    for dtype in ("int64", "int32", "int16", "int8", "uint8", "bool", "float32", "float64"):
        both(torch, seed, lambda m: m.empty(100, dtype=getattr(m, dtype)).random_())
    both(torch, seed, lambda m: m.empty(100).random_(7))
    both(torch, seed, lambda m: m.empty(100, dtype=m.int64).random_(-3, 3))
    both(torch, seed, lambda m: m.empty(100, dtype=m.int64).random_(5, None))
    both(torch, seed, lambda m: m.empty(100, dtype=m.uint8).random_(200, None))
    # spans from 2**28 take 64-bit words (integer dtypes and float64), float32's from 2**32
    for lo, hi in ((0, 2 ** 28 - 1), (0, 2 ** 28), (3, 2 ** 28 + 7), (-2 ** 30, 2 ** 30), (0, 2 ** 32 - 1)):
        for dtype in ("int64", "float64") + (("int32",) if hi < 2 ** 31 and lo >= -2 ** 31 else ()):
            both(torch, seed, lambda m: m.randint(lo, hi, (50,), dtype=getattr(m, dtype)))
    both(torch, seed, lambda m: m.randint(-3, 2 ** 24, (50,), dtype=m.float32))


def test_integer_bounds_errors_and_warnings(torch):
    """Ends outside the dtype are refused with PyTorch's text; ends past the integers a floating dtype
    holds exactly are warned about, with PyTorch's text."""
    import warnings
    cases = [(0, 300, "uint8"), (-300, 5, "int8"), (0, 2 ** 16 + 1, "int16"), (-1, 2 ** 15, "int16"),
             (0, 2 ** 31 + 1, "int32"), (0, 3, "bool"), (0, 2, "bool"), (0, 70000, "float16"), (0, 65505, "float16"),
             (0, 2 ** 64, "int64"), (0, 2 ** 25, "float32"), (-2 ** 25, 0, "float32"), (0, 2 ** 12, "float16"),
             (0, 2 ** 54, "float64")]
    for lo, hi, dtype in cases:
        seen = []
        for m in (tt, torch):
            m.manual_seed(0)
            with warnings.catch_warnings(record=True) as w:
                warnings.simplefilter("always")
                try:
                    m.randint(lo, hi, (3,), dtype=getattr(m, dtype))
                    error = None
                except Exception as e:  # noqa: BLE001 - the type and text are what is compared
                    error = (type(e).__name__, str(e))
            seen.append((error, [str(x.message).split(" (Triggered internally")[0] for x in w]))
        assert seen[0] == seen[1], (lo, hi, dtype)
    for m in (tt, torch):
        assert _raised(lambda: m.empty(3, dtype=m.int8).random_(200)) == "to - 1 is out of bounds for signed char"


def _raised(fn):
    try:
        fn()
    except RuntimeError as e:
        return str(e)


@pytest.mark.parametrize("n", [0, 1, 2, 15, 16, 17, 1000, 60000])
def test_randperm(torch, n):
    both(torch, n, lambda m: m.randperm(n))
    same_bits(tt.randperm(n, generator=tt.Generator().manual_seed(n)),
              torch.randperm(n, generator=torch.Generator().manual_seed(n)))
    both(torch, 1, lambda m: m.randperm(n, dtype=m.float32))


@given(z=st.lists(st.integers(0, 2 ** 32 - 1), min_size=0, max_size=60))
@settings(max_examples=60, deadline=None)
def test_randperm_resolution_is_fisher_yates(z):
    """The loop-free swap resolution against the plain loop, for any draws."""
    from tinytorch._random import draws

    n = len(z) + 1

    class Words:
        fresh = False

        def u32(self, k):
            return np.array(z[:k], dtype=np.uint32)

    r = list(range(n))
    for i in range(n - 1):
        j = i + z[i] % (n - i)
        r[i], r[j] = r[j], r[i]
    assert draws.randperm_values(Words(), n).tolist() == r


@pytest.mark.parametrize("seed", [0, 42])
def test_bernoulli_exponential_geometric(torch, seed):
    for n in (1, 17, 1000):
        both(torch, seed, lambda m: m.bernoulli(m.linspace(0, 1, n)))
        both(torch, seed, lambda m: m.bernoulli(m.linspace(0, 1, n, dtype=m.float64)))
        both(torch, seed, lambda m: m.empty(n).bernoulli_(0.3))
        both(torch, seed, lambda m: m.bernoulli(m.empty(n), 0.7))
        both(torch, seed, lambda m: m.empty(n).bernoulli_(m.full((n,), 0.25)))
        both(torch, seed, lambda m: m.empty(n).exponential_())
        both(torch, seed, lambda m: m.empty(n, dtype=m.float64).exponential_(2.5))
        both(torch, seed, lambda m: m.empty(n).geometric_(0.3))
        both(torch, seed, lambda m: m.empty(n, dtype=m.int64).geometric_(0.05))


@pytest.mark.parametrize("seed", [0, 42])
def test_multinomial(torch, seed):
    for k in (1, 2, 15, 16, 17, 1000):
        both(torch, seed, lambda m: m.multinomial(m.arange(1.0, k + 1), 1, True))
        both(torch, seed, lambda m: m.multinomial(m.arange(1.0, k + 1, dtype=m.float64), 1))
    both(torch, seed, lambda m: m.multinomial(m.arange(1.0, 101), 4, True))
    both(torch, seed, lambda m: m.multinomial(m.arange(1.0, 101), 3))
    both(torch, seed, lambda m: m.multinomial(m.arange(1.0, 401).reshape(8, 50), 7, True))
    both(torch, seed, lambda m: m.multinomial(m.arange(1.0, 401).reshape(8, 50), 7))
    both(torch, seed, lambda m: m.multinomial(m.arange(1.0, 401).reshape(8, 50), 1))
    both(torch, seed, lambda m: m.arange(1.0, 6).multinomial(10, replacement=True))


def test_sampling_names_with_an_explicit_generator(torch):
    """The lecture pattern: one generator seeded 2147483647 drives rand and multinomial."""
    out = []
    for m in (tt, torch):
        g = m.Generator().manual_seed(2147483647)
        raw = m.rand(27, generator=g)
        # normalised outside either library: float32 sums may round differently, draws may not
        p = m.tensor((raw.numpy() / raw.numpy().astype(np.float64).sum()).astype(np.float32))
        picks = [m.multinomial(p, num_samples=1, replacement=True, generator=g).item() for _ in range(20)]
        rows = m.multinomial(p.expand(3, 27), 5, replacement=True, generator=g)
        out.append((raw.numpy().tobytes(), picks, rows.tolist(), g.get_state().numpy().tobytes()))
    assert out[0] == out[1]


def test_explicit_generators_leave_the_default_alone(torch):
    tt.manual_seed(9)
    torch.manual_seed(9)
    g, h = tt.Generator().manual_seed(5), torch.Generator().manual_seed(5)
    for fn in (lambda m, g: m.randn(33, generator=g), lambda m, g: m.rand(3, generator=g),
               lambda m, g: m.randint(0, 5, (7,), generator=g), lambda m, g: m.randperm(9, generator=g),
               lambda m, g: m.normal(0.0, 2.0, (20,), generator=g), lambda m, g: m.randn(1, generator=g),
               lambda m, g: m.empty(20).uniform_(generator=g), lambda m, g: m.bernoulli(m.rand(5), generator=g)):
        same_bits(fn(tt, g), fn(torch, h), 2.0)
        same_state(torch, g, h)
    same_state(torch)


def test_normal_with_tensor_mean_or_std(torch):
    both(torch, 0, lambda m: m.normal(m.arange(20.0), 2.0), 21)
    both(torch, 0, lambda m: m.normal(m.arange(20.0), m.arange(20.0)), 38)
    both(torch, 0, lambda m: m.normal(1.0, m.arange(20.0)), 20)
    both(torch, 0, lambda m: m.normal(m.zeros(3, dtype=m.float64), 1.0))


def test_generator_api(torch):
    g = tt.Generator()
    assert g.initial_seed() == torch.Generator().initial_seed() == 67280421310721
    same_state(torch, g, torch.Generator())
    assert g.manual_seed(3) is g and str(g.device) == "cpu"
    s = g.seed()
    assert g.initial_seed() == s and 0 <= s < 2 ** 64
    same_state(torch, g, torch.Generator().manual_seed(s))
    for bad in (2 ** 64, -(2 ** 63) - 1):
        with pytest.raises(ValueError) as ours:
            tt.manual_seed(bad)
        with pytest.raises(ValueError) as theirs:
            torch.manual_seed(bad)
        assert str(ours.value) == str(theirs.value)
    with pytest.raises(RuntimeError) as ours:
        g.set_state(tt.zeros(10, dtype=tt.uint8))
    with pytest.raises(RuntimeError) as theirs:
        torch.Generator().set_state(torch.zeros(10, dtype=torch.uint8))
    assert str(ours.value) == str(theirs.value)
    with pytest.raises(TypeError, match="RNG state must be a torch.ByteTensor"):
        g.set_state(tt.zeros(5056))
    st0 = tt.get_rng_state()
    with tt.random.fork_rng():
        tt.randn(50)
    assert tt.get_rng_state().numpy().tobytes() == st0.numpy().tobytes()


@given(ops=st.lists(st.tuples(st.sampled_from(["randn", "randn64", "rand", "rand64", "randint", "randperm",
                                               "bernoulli", "normal_", "exponential_", "multinomial"]),
                              st.integers(0, 40)), min_size=1, max_size=8),
       seed=st.integers(-(2 ** 63), 2 ** 64 - 1))
@settings(max_examples=40, deadline=None)
def test_any_sequence_of_calls(ops, seed):
    torch = pytest.importorskip("torch")
    calls = {
        "randn": lambda m, n: m.randn(n), "randn64": lambda m, n: m.randn(n, dtype=m.float64),
        "rand": lambda m, n: m.rand(n), "rand64": lambda m, n: m.rand(n, dtype=m.float64),
        "randint": lambda m, n: m.randint(-3, 1000, (n,)), "randperm": lambda m, n: m.randperm(n),
        "bernoulli": lambda m, n: m.empty(n).bernoulli_(0.4), "normal_": lambda m, n: m.empty(n, 2).normal_(3, 0.5),
        "exponential_": lambda m, n: m.empty(n).exponential_(0.5),
        "multinomial": lambda m, n: m.multinomial(m.arange(1.0, n + 2), 3, replacement=True),
    }
    tt.manual_seed(seed)
    torch.manual_seed(seed)
    for name, n in ops:
        same_bits(calls[name](tt, n), calls[name](torch, n), {"normal_": 3.5, "exponential_": 2.0}.get(name, 1.0))
        same_state(torch)


@pytest.mark.parametrize("n", [1, 15, 16, 17, 40, 48, 1000])
def test_float16(torch, n):
    both(torch, 0, lambda m: m.empty(n, dtype=m.float16).uniform_(-1, 2), 2)
    both(torch, 0, lambda m: m.empty(n, dtype=m.float16).normal_())
    both(torch, 0, lambda m: m.empty(n, dtype=m.float16).normal_(0.5, 3.0), 3.5)
    both(torch, 0, lambda m: m.randn(n, dtype=m.float16))


@pytest.mark.parametrize("dtype", ["float16", "float32", "float64"])
def test_uniform_never_returns_to(torch, dtype):
    """A value that rounds up to ``to`` is given ``from`` instead (narrow ranges make it common)."""
    for lo, hi in ((1, 1 + 2 ** -9), (-1, 2), (0.1, 0.3), (-0.37, 5.1), (-3.3, -3.2)):
        both(torch, 0, lambda m: m.empty(20000, dtype=getattr(m, dtype)).uniform_(lo, hi), max(abs(lo), abs(hi)))


def test_errors_match(torch):
    cases = [lambda m: m.multinomial(m.tensor([1., 0, 0]), 2), lambda m: m.multinomial(m.tensor([1., 0, 0]), 4),
             lambda m: m.multinomial(m.tensor([1., 0, 0]), 0), lambda m: m.multinomial(m.tensor([1., -1, 0]), 1),
             lambda m: m.multinomial(m.tensor([0., 0, 0]), 1), lambda m: m.multinomial(m.tensor([1, 2]), 1),
             lambda m: m.multinomial(m.ones(2, 2, 2), 1), lambda m: m.multinomial(m.tensor([1., float("inf")]), 1),
             lambda m: m.randint(5, 5, (3,)), lambda m: m.rand(3, dtype=m.int64), lambda m: m.randn(3, dtype=m.int64),
             lambda m: m.empty(3).uniform_(2, 1), lambda m: m.empty(3).uniform_(2.5, 1.5),
             lambda m: m.empty(3).normal_(0, -1), lambda m: m.empty(3).normal_(0, -1.5),
             lambda m: m.empty(3).bernoulli_(1.5), lambda m: m.empty(3).exponential_(-1),
             lambda m: m.empty(3).geometric_(0), lambda m: m.randperm(-1),
             lambda m: m.empty(3, dtype=m.int64).exponential_(), lambda m: m.bernoulli(m.tensor([0.5, 2.0])),
             lambda m: m.normal(m.zeros(3), -1.0)]
    for i, case in enumerate(cases):
        outcome = []
        for m in (tt, torch):
            m.manual_seed(0)
            try:
                case(m)
                outcome.append(None)
            except Exception as e:  # noqa: BLE001 - the type and text are what is compared
                outcome.append((type(e).__name__, str(e)))
        assert outcome[0] == outcome[1], i
        same_state(torch)
