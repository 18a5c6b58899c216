"""The ``[mkl]`` extra (``tinytorch/_cpu/mkl_gemm.py``): with MKL installed, tinytorch's float32/float64
``mm``, ``matmul``, ``bmm``, ``addmm``, ``baddbmm`` and ``linear`` (forward and gradients) are PyTorch's bit for
bit, on generated operands of odd sizes, transposed and sliced, batches of one, at 1 and 2 threads; and a
two-layer MLP trained by hand with SGD prints PyTorch's losses bit for bit for 500 steps.

The claim holds on every ATen CPU path: PyTorch 2.13's CPU wheel links MKL 2024.2, the release the extra pins,
and MKL picks its kernel by the CPU for both (``MKL_ENABLE_INSTRUCTIONS`` moves both alike). Where PyTorch's CPU
build runs another library, tinytorch keeps its numpy path and these tests claim nothing: oneDNN's
convolutions (float32 batches of more than one) and LSTMs.

A char-level GPT (``examples/char_lm.py``'s Transformer: pre-norm TransformerEncoderLayers with GELU, AdamW)
still drifts from PyTorch's losses from its second step. Its first forward is PyTorch's bits through the
embeddings, the first LayerNorm (float32 layer_norm follows PyTorch's kernel with ``[fast]``: ``compiled/layer_norm.py``)
and the attention's in-projection; the first op that differs is ``scaled_dot_product_attention``, whose CPU
flash kernel tinytorch approximates (numpy's exp where PyTorch's runs its ``exp_u20`` polynomial; OpenBLAS
for the two products). Measured on identical inputs, these differ as well: GELU (oneDNN's AVX-512 erf
polynomial, which tinytorch does not emulate; its AVX2 one not every bit), softmax and log_softmax (Sleef's
exp, vectorised max and sum), whole-tensor sums and means and the bias gradients' column sums (ATen's cascade
sum), LayerNorm's backward (PyTorch's kernel, not the formula), and so cross_entropy's value and gradient.

Without MKL these tests skip (``TINYTORCH_REQUIRE_MKL=1`` turns that into a failure, as CI's ``[mkl]`` stage
sets it); the checks that the package never loads MKL on ``import tinytorch`` and keeps numpy's products
without it run always."""
import os
import subprocess
import sys

import numpy as np
import pytest

import tinytorch as tt
from tinytorch._cpu import mkl_gemm

pytestmark = pytest.mark.bitexact

_REQUIRE = os.environ.get("TINYTORCH_REQUIRE_MKL") == "1"


@pytest.fixture
def mkl():
    if mkl_gemm.gemms() is None:
        if _REQUIRE:
            pytest.fail("MKL missing but TINYTORCH_REQUIRE_MKL=1: pip install -e '.[mkl]'")
        pytest.skip("needs the [mkl] extra: pip install -e '.[mkl]'")
    return mkl_gemm


@pytest.fixture(params=[1, 2], ids=["1thread", "2threads"])
def threads(request, torch, mkl):
    """Both libraries on ``n`` threads (MKL's count follows set_num_threads in each), restored after."""
    n = request.param
    before = (tt.get_num_threads(), torch.get_num_threads())
    tt.set_num_threads(n)
    torch.set_num_threads(n)
    yield n
    tt.set_num_threads(before[0])
    torch.set_num_threads(before[1])


def _same(mine, theirs, what=""):
    a, b = mine.detach().numpy(), theirs.detach().numpy()
    assert a.dtype == b.dtype and a.shape == b.shape, (what, a.dtype, b.dtype, a.shape, b.shape)
    assert np.array_equal(a.reshape(-1).view(np.uint8), b.reshape(-1).view(np.uint8)), \
        (what, float(np.nanmax(np.abs(a.astype(np.float64) - b))))


def _layout(a: np.ndarray, how: str) -> np.ndarray:
    """The same values laid out as given: C order, transposed storage (the last two dims swapped), or a
    slice of a wider array (leading dimension past the row)."""
    if how == "c":
        return np.ascontiguousarray(a)
    if how == "t":
        return np.ascontiguousarray(np.swapaxes(a, -1, -2)).swapaxes(-1, -2)
    pad = [(0, 0)] * (a.ndim - 1) + [(0, 3)]
    return np.pad(a, pad)[..., :a.shape[-1]]


def _both(torch, a: np.ndarray, grad=False):
    """(tinytorch, PyTorch) tensors sharing the layout of ``a`` (strides as given)."""
    return tt.from_numpy(a).requires_grad_(grad), torch.from_numpy(a).requires_grad_(grad)


MM_SHAPES = [(1, 512, 512), (64, 784, 512), (33, 77, 129), (7, 3, 5), (5, 1, 9), (1, 1, 1), (300, 20, 1),
             (1, 50, 300), (2, 2, 2), (128, 64, 1), (256, 1152, 128), (17, 256, 10)]


@pytest.mark.parametrize("dtype", [np.float32, np.float64])
def test_mm_and_addmm_bits(torch, threads, dtype):
    rng = np.random.default_rng(threads)
    for m, k, n in MM_SHAPES:
        a = rng.standard_normal((m, k)).astype(dtype)
        b = rng.standard_normal((k, n)).astype(dtype)
        for la, lb in (("c", "c"), ("t", "c"), ("c", "t"), ("t", "t"), ("s", "c"), ("c", "s")):
            (ta, pa), (tb, pb) = _both(torch, _layout(a, la)), _both(torch, _layout(b, lb))
            _same(tt.mm(ta, tb), torch.mm(pa, pb), ("mm", m, k, n, la, lb))
            _same(ta @ tb, pa @ pb, ("@", m, k, n, la, lb))
        (ta, pa), (tb, pb) = _both(torch, a), _both(torch, b)
        inp = rng.standard_normal(n).astype(dtype)
        ti, pi = _both(torch, inp)
        _same(tt.addmm(ti, ta, tb), torch.addmm(pi, pa, pb), ("addmm", m, k, n))
        _same(tt.addmm(ti, ta, tb, beta=0.5, alpha=2.0), torch.addmm(pi, pa, pb, beta=0.5, alpha=2.0), ("addmm ab",))
        _same(tt.addmm(ti, ta, tb, beta=0), torch.addmm(pi, pa, pb, beta=0), ("addmm beta 0",))


_SPECIAL = np.array([0.0, -0.0, np.inf, -np.inf, np.nan, 1e-30, -1e-30, 1e-45, 3e38, -3e38, 1.0, -1.0])


@pytest.mark.parametrize("dtype", [np.float32, np.float64])
def test_mm_inner_dimension_one_bits(torch, threads, dtype):
    """An inner dimension of 1 (a batch of one's weight gradient), which the compiled outer product computes
    where [fast] is installed: each element MKL's one rounded product, signed zeros, infinities, NaNs,
    subnormals and overflows included; a row or a column of one stays MKL's (which turns -0.0 into +0.0)."""
    rng = np.random.default_rng(threads)
    for m, n in [(2, 2), (3, 5), (17, 33), (512, 10), (10, 512), (512, 784), (1, 300), (300, 1), (1, 1)]:
        a = rng.standard_normal((m, 1)).astype(dtype)
        b = rng.standard_normal((1, n)).astype(dtype)
        a.reshape(-1)[::3] = _SPECIAL[rng.integers(0, len(_SPECIAL), a[::3].size)]
        b.reshape(-1)[::2] = _SPECIAL[rng.integers(0, len(_SPECIAL), b.reshape(-1)[::2].size)]
        for la, lb in (("c", "c"), ("t", "t"), ("s", "s")):
            (ta, pa), (tb, pb) = _both(torch, _layout(a, la)), _both(torch, _layout(b, lb))
            _same(tt.mm(ta, tb), torch.mm(pa, pb), ("mm k=1", m, n, la, lb))


def test_data_addresses_read_as_numpy_gives_them(mkl):
    """The GEMMs read an array's data address from numpy's struct (not ``.ctypes``, ~1 us): the same address
    for views, slices, reversed and empty arrays, and ``.ctypes``'s for what is not a plain ndarray."""
    base = np.arange(60, dtype=np.float32).reshape(3, 4, 5)
    for a in (base, base.T, base[1:, ::2], base[::-1], base[2, 3], np.empty(0), np.float32(1.0) + np.zeros(1),
              base.view(np.ndarray)[1:]):
        assert mkl._ptr(a) == a.ctypes.data == mkl._arg(a).value

    class Sub(np.ndarray):
        pass

    sub = base.view(Sub)[1:]
    assert mkl._ptr(sub) == sub.ctypes.data == mkl._arg(sub).value


@pytest.mark.parametrize("dtype", [np.float32, np.float64])
def test_bmm_and_baddbmm_bits(torch, threads, dtype):
    """Below 400 multiply-adds a matrix ATen's plain loop; above, MKL's batched GEMM (or a per-matrix addmm for
    operands that are neither contiguous nor transposed matrices)."""
    rng = np.random.default_rng(threads)
    for bs, m, k, n in [(1, 5, 7, 9), (3, 4, 5, 6), (4, 33, 77, 129), (8, 16, 16, 16), (2, 1, 64, 64),
                        (16, 32, 8, 32), (1, 64, 64, 64), (6, 7, 1, 300)]:
        a = rng.standard_normal((bs, m, k)).astype(dtype)
        b = rng.standard_normal((bs, k, n)).astype(dtype)
        for la in ("c", "t", "s"):
            (ta, pa), (tb, pb) = _both(torch, _layout(a, la)), _both(torch, b)
            _same(tt.bmm(ta, tb), torch.bmm(pa, pb), ("bmm", bs, m, k, n, la))
        batch_major = np.ascontiguousarray(a.transpose(1, 0, 2)).transpose(1, 0, 2)  # neither layout per matrix
        (ta, pa), (tb, pb) = _both(torch, batch_major), _both(torch, b)
        _same(tt.bmm(ta, tb), torch.bmm(pa, pb), ("bmm batch-major", bs, m, k, n))
        (ta, pa), (tb, pb) = _both(torch, a), _both(torch, b)
        ti, pi = _both(torch, rng.standard_normal((bs, m, n)).astype(dtype))
        _same(tt.baddbmm(ti, ta, tb, beta=0.5, alpha=2.0), torch.baddbmm(pi, pa, pb, beta=0.5, alpha=2.0),
              ("baddbmm", bs, m, k, n))


@pytest.mark.parametrize("grads", [(False, False), (True, False), (False, True)], ids=["none", "a", "b"])
def test_matmul_folds_bits(torch, threads, grads):
    """matmul's folds (a >= 3-d operand into the rows of one mm, or both into one bmm) depend on the ranks, on
    whether the fold is a view and on which operand requires grad: each as ATen takes it."""
    rng = np.random.default_rng(threads)
    for sa, sb in [((4, 5, 6), (6, 7)), ((2, 3, 4, 5), (5, 6)), ((5,), (5,)), ((3, 5), (5,)), ((5,), (5, 3)),
                   ((2, 1, 4, 5), (3, 5, 2)), ((4, 5), (3, 5, 6)), ((7,), (2, 7, 3)), ((2, 3, 4, 5), (5,)),
                   ((16, 64, 64), (64,)), ((300, 200), (200,)), ((1, 8, 9), (3, 9, 4)), ((3, 8, 9), (1, 9, 4)),
                   ((8, 16, 32), (32, 96))]:
        a = rng.standard_normal(sa).astype(np.float32)
        b = rng.standard_normal(sb).astype(np.float32)
        (ta, pa), (tb, pb) = _both(torch, a, grads[0]), _both(torch, b, grads[1])
        _same(tt.matmul(ta, tb), torch.matmul(pa, pb), ("matmul", sa, sb, grads))
        if a.ndim >= 3:  # the same values through a transposed (non-foldable) view
            (ta, pa) = _both(torch, _layout(a.swapaxes(0, 1), "c").swapaxes(0, 1), grads[0])
            _same(tt.matmul(ta, tb), torch.matmul(pa, pb), ("matmul strided", sa, sb, grads))


@pytest.mark.parametrize("shape", [(64, 784), (1, 512), (33, 77), (8, 16, 32)], ids=str)
def test_linear_forward_and_gradients_bits(torch, threads, shape):
    """linear = addmm(b, x, W.t()) with the bias added inside the GEMM; its gradients mm(g, W), mm(g.t(), x)."""
    rng = np.random.default_rng(threads)
    n_out = 129 if shape[-1] == 77 else 96
    x = rng.standard_normal(shape).astype(np.float32)
    w = (rng.standard_normal((n_out, shape[-1])) / np.sqrt(shape[-1])).astype(np.float32)
    b = rng.standard_normal(n_out).astype(np.float32)
    g = rng.standard_normal(shape[:-1] + (n_out,)).astype(np.float32)
    for bias in (True, False):
        tx, px = _both(torch, x, True)
        tw, pw = _both(torch, w, True)
        tb, pb = _both(torch, b, True)
        ours = tt.nn.functional.linear(tx, tw, tb if bias else None)
        theirs = torch.nn.functional.linear(px, pw, pb if bias else None)
        _same(ours, theirs, ("linear", shape, bias))
        ours.backward(tt.from_numpy(g))
        theirs.backward(torch.from_numpy(g))
        _same(tx.grad, px.grad, ("x.grad", shape, bias))
        _same(tw.grad, pw.grad, ("W.grad", shape, bias))
        if bias and len(shape) == 2 and shape[0] <= 16:  # (a bias gradient is a sum: PyTorch's cascade order
            _same(tb.grad, pb.grad, ("b.grad", shape))  # matches numpy's running sum up to 16 rows only)


def _mlp_losses(lib, steps: int) -> list:
    """A two-layer MLP trained by hand: x @ W1 + b1, relu, @ W2 + b2, squared error, SGD by hand. Its loss is
    the per-output sum over the batch (16 rows x 64 outputs: PyTorch's and numpy's sums in one order; a
    whole-tensor sum or mean is a reduction whose order tinytorch does not share yet)."""
    lib.manual_seed(0)
    n, d, h, c, batch = 512, 20, 64, 64, 16
    x_all, t_all = lib.randn(n, d), lib.randn(n, c)
    w1 = (lib.randn(d, h) * 0.3).requires_grad_()
    b1 = lib.zeros(h, requires_grad=True)
    w2 = (lib.randn(h, c) * 0.1).requires_grad_()
    b2 = lib.zeros(c, requires_grad=True)
    params = [w1, b1, w2, b2]
    losses = []
    for _ in range(steps):
        ix = lib.randint(0, n, (batch,))
        hidden = (x_all[ix] @ w1 + b1).relu()
        per_output = ((hidden @ w2 + b2 - t_all[ix]) ** 2).sum(0)
        for p in params:
            p.grad = None
        per_output.sum().backward()
        with lib.no_grad():
            for p in params:
                p -= 0.0005 * p.grad
        losses.append(per_output.detach().numpy().copy())
    return losses


def test_mlp_trained_by_hand_500_steps_bits(torch, threads):
    ours, theirs = _mlp_losses(tt, 500), _mlp_losses(torch, 500)
    for step, (a, b) in enumerate(zip(ours, theirs)):
        assert np.array_equal(a.view(np.uint32), b.view(np.uint32)), (step, float(np.abs(a - b).max()))
    assert ours[-1].sum() < 0.8 * ours[0].sum()  # it learns


def test_char_gpt_first_forward_bits_up_to_attention(torch, threads):
    """A char-level GPT's first forward (examples/char_lm.py's Transformer: batch 8, 32 characters, width 32) is
    PyTorch's as far as its attention: the first block's pre-attention LayerNorm (bit for bit on PyTorch's AVX2
    and AVX-512 builds, through the compiled float32 kernel of ``[fast]``; within 4 ulp of its largest value on
    PyTorch's DEFAULT build, and without numba or under TINYTORCH_REFERENCE=1, whose numpy statistics measured
    2.5) and
    MultiheadAttention's packed in-projection, a linear on the sequence-first view (MKL's bits on every path,
    given PyTorch's LayerNorm output)."""
    import _paths

    rng = np.random.default_rng(threads)
    b, t, c = 8, 32, 32
    x = (rng.standard_normal((b, t, c)) * 1.4).astype(np.float32)  # token + position embeddings
    w, bias = (1 + 0.1 * rng.standard_normal(c)).astype(np.float32), (0.1 * rng.standard_normal(c)).astype(np.float32)
    w_in = (rng.uniform(-1, 1, (3 * c, c)) * np.sqrt(3 / c)).astype(np.float32)
    b_in = (0.02 * rng.standard_normal(3 * c)).astype(np.float32)
    h = [lib.nn.functional.layer_norm(lib.from_numpy(x), (c,), lib.from_numpy(w), lib.from_numpy(bias))
         for lib in (tt, torch)]
    exact_on = _paths.FMA_PATHS if _paths.compiled("layer_norm") else ()
    _paths.assert_bits(h[0].numpy(), h[1].numpy(), ulps=4, scale="max", exact_on=exact_on, what="norm1")
    given = h[1].numpy()
    proj = [lib.nn.functional.linear(lib.from_numpy(given).transpose(0, 1), lib.from_numpy(w_in), lib.from_numpy(b_in))
            for lib in (tt, torch)]
    _same(proj[0], proj[1], "in_proj")


def test_describe_names_mkl(mkl):
    line = tt.backends.cpu.describe()
    assert "GEMMs MKL 2024.2" in line, line
    assert mkl.describe().startswith("MKL 2024.2 (")


def test_import_never_loads_mkl_and_no_mkl_keeps_numpy():
    """``import tinytorch`` loads no MKL; ``TINYTORCH_NO_MKL=1`` keeps numpy's products (and loads none either)."""
    code = ("import tinytorch, numpy as np\n"
            "maps = lambda: open('/proc/self/maps').read()\n"
            "assert 'libmkl_rt' not in maps()\n"
            "a = np.arange(12, dtype=np.float32).reshape(3, 4)\n"
            "got = (tinytorch.from_numpy(a) @ tinytorch.from_numpy(a.T.copy())).numpy()\n"
            "assert np.array_equal(got, a @ a.T)\n"
            "from tinytorch._cpu import mkl_gemm\n"
            "assert mkl_gemm.gemms() is None and 'libmkl_rt' not in maps()\n"
            "assert 'GEMMs' not in tinytorch.backends.cpu.describe()\n")
    env = dict(os.environ, TINYTORCH_NO_MKL="1")
    proc = subprocess.run([sys.executable, "-c", code], env=env, capture_output=True, text=True, timeout=120)
    assert proc.returncode == 0, proc.stderr[-2000:]


@pytest.mark.parametrize("policy", [None, "ACTIVE"])
def test_gnu_openmp_threads_sleep_unless_the_user_chose(mkl, policy):
    """MKL's OpenMP threads spin only briefly (they spun 300,000 rounds between GEMMs while numpy's and the pool's
    threads needed the cores: the 2-thread LSTM step 3x slower than without MKL); a policy the user set is kept,
    and the variable set for libgomp's loading does not stay in the environment. libgomp prints the spin count it
    took as it loads (``OMP_DISPLAY_ENV=VERBOSE``): 300000 with no policy, 3e10 for an active one."""
    code = ("import os, tinytorch\n"
            "maps = lambda: open('/proc/self/maps').read()\n"
            "assert 'libgomp.so.1' not in maps()\n"
            "a = tinytorch.randn(64, 64)\n"
            "a @ a\n"
            "from tinytorch._cpu import mkl_gemm\n"
            "assert mkl_gemm.gemms() is not None\n"
            "print('in environ:', os.environ.get('OMP_WAIT_POLICY'), os.environ.get('GOMP_SPINCOUNT'))\n")
    env = {k: v for k, v in os.environ.items() if k not in ("OMP_WAIT_POLICY", "GOMP_SPINCOUNT")}
    env["OMP_DISPLAY_ENV"] = "VERBOSE"
    if policy is not None:
        env["OMP_WAIT_POLICY"] = policy
    proc = subprocess.run([sys.executable, "-c", code], env=env, capture_output=True, text=True, timeout=120)
    assert proc.returncode == 0, proc.stderr[-2000:]
    spins = "1000" if policy is None else "30000000000"
    assert f"GOMP_SPINCOUNT = '{spins}'" in proc.stderr, proc.stderr[-2000:]
    assert f"in environ: {policy} None" in proc.stdout
