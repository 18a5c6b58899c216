"""Intra-op parallelism: the thread-count API (PyTorch's defaults, checks and messages), the pool, and
every parallel kernel giving the same bits on N threads as on one, on generated inputs."""
import _repo
import os
import subprocess
import sys
import threading

import numpy as np
import pytest

import tinytorch as tt
from tinytorch._cpu import mkl_gemm
from tinytorch._ops._core.paths import REFERENCE
from tinytorch._ops._kernels import compiled, parallel

THREADS = (2, 3, 4)  # more threads than cores is legal: the split, not the speed, is what is checked


@pytest.fixture(autouse=True)
def _restore_threads():
    # the threaded numpy path is what these tests split: the compiled kernels ([fast]), where installed,
    # would take some of these ops (GELU, LayerNorm) off it; they have their own comparison tests
    before = tt.get_num_threads()
    with compiled.disabled():
        yield
    tt.set_num_threads(before)


def _at(threads, fn):
    """fn() computed with ``threads`` intra-op threads (then back to the count before)."""
    before = tt.get_num_threads()
    tt.set_num_threads(threads)
    if mkl_gemm.gemms() is not None:
        # with [mkl] the GEMMs are MKL's, whose floats move with its own thread count as PyTorch's do: held at
        # one thread, so that what is compared is tinytorch's splitting
        mkl_gemm.set_threads(1)
    try:
        return fn()
    finally:
        tt.set_num_threads(before)


def _same_bits(a, b):
    a, b = np.asarray(a), np.asarray(b)
    assert a.dtype == b.dtype and a.shape == b.shape
    assert a.tobytes() == b.tobytes(), f"max diff {np.max(np.abs(a.astype(np.float64) - b.astype(np.float64)))}"


def _all_threads_agree(fn):
    """fn() returns arrays (or a tuple of them): the same bits at 1 thread and at each of THREADS."""
    one = _at(1, fn)  # (not the default count: on a machine with cores to spare that splits too)
    one = one if isinstance(one, tuple) else (one,)
    for t in THREADS:
        parallel.stats(reset=True, enable=True)
        try:
            got = _at(t, fn)
        finally:
            regions = parallel.stats(reset=True, enable=False)["regions"]
        # under TINYTORCH_REFERENCE=1 the ops whose split is a CPU path (add/sub/mul, softmax, batched matmul,
        # SGD's gathered update) run their references on one thread: the bits still agree, nothing is split
        assert regions or REFERENCE, "nothing was split: the inputs are too small to test the parallel path"
        got = got if isinstance(got, tuple) else (got,)
        for a, b in zip(one, got):
            _same_bits(a, b)
    return one


# -- the API -------------------------------------------------------------------------------------------
def test_set_and_get_num_threads():
    tt.set_num_threads(3)
    assert tt.get_num_threads() == 3
    tt.set_num_threads(1)
    assert tt.get_num_threads() == 1


def test_set_num_threads_steers_openblas():
    if parallel.blas_threads() is None:
        pytest.skip("numpy has no OpenBLAS to steer here")
    tt.set_num_threads(1)
    assert parallel.blas_threads() == 1
    tt.set_num_threads(2)
    assert parallel.blas_threads() == 2


@pytest.mark.parametrize("value", [0, -1, 2.5, "2", True])
def test_set_num_threads_errors_match_torch(torch, value):
    def error(fn):
        try:
            fn(value)
        except Exception as e:  # noqa: BLE001 - the type and message are compared
            return type(e), str(e)
        return None

    before = torch.get_num_threads()
    try:
        assert error(tt.set_num_threads) == error(torch.set_num_threads) is not None
    finally:
        torch.set_num_threads(before)


_PROBE = ("import sys; sys.path.insert(0, {repo!r}); import {lib} as t; "
          "print(t.get_num_threads(), t.get_num_interop_threads())")


@pytest.mark.parametrize("env", [{}, {"OMP_NUM_THREADS": "1"}, {"OMP_NUM_THREADS": "64"},
                                 {"MKL_NUM_THREADS": "1"}, {"OMP_NUM_THREADS": "x"}])
def test_default_thread_counts_match_torch(torch, env):
    # PyTorch's defaults: the physical cores, or OMP_NUM_THREADS / MKL_NUM_THREADS at most those
    repo = _repo.ROOT
    base = {k: v for k, v in os.environ.items() if k not in ("OMP_NUM_THREADS", "MKL_NUM_THREADS")}
    base.update(env)

    def probe(lib):
        out = subprocess.run([sys.executable, "-c", _PROBE.format(repo=repo, lib=lib)], env=base,
                             capture_output=True, text=True, check=True).stdout.split()
        return out

    assert probe("tinytorch") == probe("torch")


def test_interop_threads_set_once_as_in_torch():
    code = ("import tinytorch as t; n = t.get_num_interop_threads(); t.set_num_interop_threads(3); "
            "assert t.get_num_interop_threads() == 3\n"
            "try:\n    t.set_num_interop_threads(2)\nexcept RuntimeError as e:\n    print(e)")
    out = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, check=True,
                         cwd=_repo.ROOT).stdout.strip()
    assert out == ("Error: cannot set number of interop threads after parallel work has started or "
                   "set_num_interop_threads called")


# -- the pool ------------------------------------------------------------------------------------------
def test_parallel_for_covers_the_range_once_in_contiguous_parts():
    seen = []
    lock = threading.Lock()

    def body(start, stop):
        with lock:
            seen.append((start, stop))

    _at(3, lambda: parallel.parallel_for(10 * parallel.GRAIN, body))
    seen.sort()
    assert len(seen) == 3 and seen[0][0] == 0 and seen[-1][1] == 10 * parallel.GRAIN
    assert all(a[1] == b[0] for a, b in zip(seen, seen[1:]))
    seen.clear()
    _at(3, lambda: parallel.parallel_for(parallel.GRAIN, body))  # below two grains: one part
    assert seen == [(0, parallel.GRAIN)]


def test_parallel_errors_reach_the_caller_and_the_pool_survives():
    def body(start, stop):
        if start:
            raise ValueError("part failed")

    with pytest.raises(ValueError, match="part failed"):
        _at(2, lambda: parallel.run(body, [(0, 1), (1, 2)]))
    out = []
    _at(2, lambda: parallel.run(lambda a, b: out.append(a), [(0, 1), (1, 2)]))
    assert sorted(out) == [0, 1]


def test_nested_regions_run_inline():
    inner = []

    def body(start, stop):
        # a region inside a part runs on that part's thread, in order
        parallel.run(lambda a, b: inner.append((start, a)), [(0, 1), (1, 2)])

    _at(2, lambda: parallel.run(body, [(0, 1), (1, 2)]))
    assert sorted(inner) == [(0, 0), (0, 1), (1, 0), (1, 1)]


def test_parts_call_blas_single_threaded_and_the_count_comes_back():
    if parallel.blas_threads() is None:
        pytest.skip("numpy has no OpenBLAS to steer here")
    seen = []
    _at(2, lambda: parallel.run(lambda a, b: seen.append(parallel.blas_threads()), [(0, 1), (1, 2)], blas=True))
    assert seen == [1, 1]
    assert _at(2, parallel.blas_threads) == 2


_SPIN_PROBE = """
import ctypes, os, sys
sys.path.insert(0, {repo!r})
import numpy as np
import tinytorch as tt
from tinytorch._ops._kernels import openblas, parallel
lib = openblas.openblas_library()
wait = parallel._openblas_symbol(lib, "openblas_thread_timeout")
if wait is None or parallel._openblas_symbol(lib, "blas_thread_shutdown_") is None:
    print("skip"); sys.exit()
wait.restype = ctypes.c_int
tt.set_num_threads(2)
a = np.random.default_rng(0).standard_normal((512, 512), dtype=np.float32)
before = (a @ a).tobytes()
first = wait()
parallel.parallel_for(4, lambda i, j: None, grain=1)  # the pool's first region
print(first, wait(), parallel.blas_threads(), os.environ.get("OPENBLAS_THREAD_TIMEOUT"), (a @ a).tobytes() == before)
"""


def _probe(code: str, var: str, value) -> str:
    """What ``code`` (formatted with the repository's path) prints in a fresh process whose environment has
    ``var`` set to ``value``, or unset for None."""
    env = {k: v for k, v in os.environ.items() if k != var}
    if value is not None:
        env[var] = value
    out = subprocess.run([sys.executable, "-c", code.format(repo=_repo.ROOT)], env=env, capture_output=True,
                         text=True, timeout=600)
    assert out.returncode == 0, out.stderr
    return out.stdout


@pytest.mark.parametrize("env", [None, "10"])
def test_openblas_idle_spin_shortened_when_the_pool_starts(env):
    """OpenBLAS's idle threads spin ~0.1 s after a threaded GEMM, on the cores the pool needs next: the pool's
    first region shortens that wait to 2**22 cycles (OpenBLAS's threads restarted, as many as before, the
    same products), leaves the process's environment as it was, and a wait the user chose alone."""
    if parallel.blas_threads() is None:
        pytest.skip("numpy has no OpenBLAS to steer here")
    out = _probe(_SPIN_PROBE, "OPENBLAS_THREAD_TIMEOUT", env)
    if out.strip() == "skip":
        pytest.skip("this OpenBLAS does not export its thread wait")
    first, after, threads, seen_env, same = out.split()
    assert threads == "2" and same == "True"
    if env is None:
        assert (first, after, seen_env) == ("0", str(parallel.BLAS_SPIN_EXPONENT), "None")
    else:
        assert (first, after, seen_env) == (env, env, env)


def test_fork_child_starts_its_own_pool():
    if not hasattr(os, "fork"):
        pytest.skip("no fork")
    x = np.random.default_rng(0).standard_normal((64, 4096), dtype=np.float32)
    expected = _at(1, lambda: parallel.elementwise(np.exp, np.empty_like(x), x, grain=1))
    _at(2, lambda: parallel.elementwise(np.exp, np.empty_like(x), x, grain=1))  # the parent's pool runs
    r, w = os.pipe()
    pid = os.fork()
    if pid == 0:  # the child: the parent's threads are gone; a region must still complete
        try:
            tt.set_num_threads(2)
            got = parallel.elementwise(np.exp, np.empty_like(x), x, grain=1)
            os.write(w, b"1" if got.tobytes() == expected.tobytes() else b"0")
        finally:
            os._exit(0)
    os.close(w)
    assert os.read(r, 1) == b"1"
    os.waitpid(pid, 0)


# -- the grains follow what a region costs on the machine ------------------------------------------------
_COST_PROBE = """
import sys
sys.path.insert(0, {repo!r})
from tinytorch._ops._kernels import parallel
parallel.set_num_threads(1)
one = (parallel.region_cost(), parallel.scale(), parallel.scaled(1000))
parallel.set_num_threads(2)
cost, factor = parallel.region_cost(), parallel.scale()
print(repr((one, cost, factor, parallel.scaled(1000), parallel.scaled(1000) == int(1000 * factor))))
"""


@pytest.mark.parametrize("env", [None, "48", "3", "x"])
def test_region_cost_measured_once_or_taken_from_the_environment(env):
    """At one thread nothing is measured (no region runs); at two the pool's round trip is measured at the first
    question (a cost in µs, finite and not negative) and the grains scale by it over REGION_US, never below 1;
    TINYTORCH_REGION_US, a positive number, is taken instead (what the suite does), anything else is ignored."""
    one, cost, factor, grain, consistent = eval(_probe(_COST_PROBE, "TINYTORCH_REGION_US", env))
    assert one == (None, 1.0, 1000)
    assert consistent and factor == max(1.0, cost / parallel.REGION_US)
    if env == "48":
        assert (cost, factor, grain) == (48.0, 4.0, 4000)
    elif env == "3":
        assert (cost, factor, grain) == (3.0, 1.0, 1000)
    else:
        assert 0.0 <= cost < 1e6 and factor >= 1.0


def test_the_suite_runs_the_grains_as_written():
    """conftest.py pins the region cost (for this process and the ones it starts) at the one the grains were
    sized for: the split paths the other tests check are taken on every machine."""
    assert float(os.environ["TINYTORCH_REGION_US"]) == parallel.REGION_US
    before = tt.get_num_threads()
    tt.set_num_threads(2)
    try:
        assert parallel.scale() == 1.0 and parallel.scaled(parallel.GRAIN) == parallel.GRAIN
    finally:
        tt.set_num_threads(before)


@pytest.fixture
def _pinned_cost():
    """region_cost(us) pins a cost for the test; the costs known before come back after it."""
    costs = dict(parallel._costs)
    yield parallel.region_cost
    parallel._costs.clear()
    parallel._costs.update(costs)


@pytest.mark.parametrize("op", ["elementwise", "parallel_for", "reduce", "sgd"])
def test_work_is_split_only_where_a_region_pays_for_it(_pinned_cost, op):
    """The same work split at the region cost the grains were written for, and left on one thread where a
    region costs eight times that (as on a virtual machine whose threads sleep between regions): the same bits
    either way. The SGD update is the quickstart's 784x512 weight, which cost twice its one-thread time when
    cut in two on such a machine."""
    n = 4 * parallel.ELEMENTWISE_GRAIN
    x = _RNG.standard_normal(n).astype(np.float32)
    g = _RNG.standard_normal((512, 784)).astype(np.float32)

    def run():
        if op == "elementwise":
            return parallel.elementwise(np.exp, np.empty_like(x), x)
        if op == "parallel_for":
            out = np.empty_like(x)
            parallel.parallel_for(n, lambda a, b: np.sqrt(np.abs(x[a:b]), out=out[a:b]),
                                  grain=parallel.ELEMENTWISE_GRAIN)
            return out
        if op == "reduce":
            return parallel.reduce(np.add.reduce, x.reshape(64, -1), 1)
        w = tt.nn.Parameter(tt.from_numpy(np.ones((512, 784), np.float32)))
        w.grad = tt.from_numpy(g.copy())
        tt.optim.SGD([w], lr=0.01).step()
        return w.detach().numpy()

    results = {}
    for cost in (parallel.REGION_US, 8 * parallel.REGION_US):
        _pinned_cost(cost)
        parallel.stats(reset=True, enable=True)
        try:
            results[cost] = _at(2, run)
        finally:
            results[cost, "regions"] = parallel.stats(reset=True, enable=False)["regions"]
    assert results[8 * parallel.REGION_US, "regions"] == 0
    assert results[parallel.REGION_US, "regions"] or (REFERENCE and op == "sgd")
    _same_bits(results[parallel.REGION_US], results[8 * parallel.REGION_US])


# -- the kernels: 1 thread and N threads give the same bits ---------------------------------------------
_RNG = np.random.default_rng(1234)
# ops whose threads are a CPU path of tinytorch/_cpu: under TINYTORCH_REFERENCE=1 nothing of theirs splits
_CPU_PATH = pytest.mark.skipif(REFERENCE, reason="the threads are a CPU path: TINYTORCH_REFERENCE=1 runs the reference")


def _randn(*shape, dtype=np.float32):
    return _RNG.standard_normal(shape).astype(dtype)


@_CPU_PATH
@pytest.mark.parametrize("dtype", [np.float32, np.float64])
@pytest.mark.parametrize("n,c,o,hw,k,stride,padding,dilation,groups", [
    (64, 1, 32, 28, 3, 1, 0, 1, 1),   # the MNIST net's conv1 (two chunks of samples)
    (16, 32, 64, 26, 3, 1, 0, 1, 1),  # its conv2 (one sample a chunk)
    (24, 8, 12, 40, 3, 2, 1, 1, 1),   # stride 2: the strided col2im
    (8, 6, 12, 40, 5, 1, 2, 2, 3),    # padding, dilation, groups
    (5, 16, 16, 30, 3, 1, 1, 1, 16),  # depthwise
])
def test_conv2d_forward_and_gradients(kernels, dtype, n, c, o, hw, k, stride, padding, dilation, groups):
    x = tt.tensor(_randn(n, c, hw, hw, dtype=dtype), requires_grad=True)
    w = tt.tensor(_randn(o, c // groups, k, k, dtype=dtype), requires_grad=True)
    b = tt.tensor(_randn(o, dtype=dtype), requires_grad=True)

    def run():
        x.grad = w.grad = b.grad = None
        y = tt.nn.functional.conv2d(x, w, b, stride, padding, dilation, groups)
        y.backward(tt.tensor(_RNG_FIXED_GRAD(y.shape, dtype)))
        return y.detach().numpy().copy(), x.grad.numpy().copy(), w.grad.numpy().copy(), b.grad.numpy().copy()

    _all_threads_agree(run)


def _RNG_FIXED_GRAD(shape, dtype):
    return np.random.default_rng(abs(hash(tuple(shape))) % 2**32).standard_normal(tuple(shape)).astype(dtype)


@_CPU_PATH
def test_conv1d_forward_and_gradients(kernels):
    x = tt.tensor(_randn(32, 8, 500), requires_grad=True)
    w = tt.tensor(_randn(16, 8, 5), requires_grad=True)

    def run():
        x.grad = w.grad = None
        y = tt.nn.functional.conv1d(x, w, padding=2)
        y.backward(tt.ones_like(y))
        return y.detach().numpy().copy(), x.grad.numpy().copy(), w.grad.numpy().copy()

    _all_threads_agree(run)


@_CPU_PATH
@pytest.mark.parametrize("shape,k,s,p,d", [
    ((64, 64, 24, 24), 2, 2, 0, 1),   # the MNIST net's pool (unique windows: the split scatter)
    ((8, 32, 40, 40), 3, 2, 1, 1),    # overlapping windows with padding (bincount backward)
    ((4, 48, 37, 41), 3, 3, 1, 2),    # dilation
])
def test_max_pool2d_forward_and_backward(kernels, shape, k, s, p, d):
    x = tt.tensor(_randn(*shape), requires_grad=True)

    def run():
        x.grad = None
        y, idx = tt.nn.functional.max_pool2d(x, k, s, p, d, return_indices=True)
        y.backward(tt.tensor(_RNG_FIXED_GRAD(y.shape, np.float32)))
        return y.detach().numpy().copy(), idx.numpy().copy(), x.grad.numpy().copy()

    _all_threads_agree(run)


@pytest.mark.parametrize("dtype", [np.float32, np.float64])
def test_relu_and_threshold_backward(kernels, dtype):
    x = tt.tensor(_randn(64, 32, 26, 26, dtype=dtype), requires_grad=True)
    x.data[0, 0, 0, :4] = tt.tensor(np.array([0.0, -0.0, np.nan, -np.inf], dtype))

    def run():
        x.grad = None
        y = tt.relu(x)
        y.backward(tt.tensor(_RNG_FIXED_GRAD(y.shape, dtype)))
        return y.detach().numpy().copy(), x.grad.numpy().copy()

    _all_threads_agree(run)


@pytest.mark.parametrize("dtype", [np.float32, np.float64, np.int64])
def test_large_add_sub_mul(dtype):
    a = tt.tensor((_randn(700, 800) * 100).astype(dtype))
    b = tt.tensor((_randn(700, 800) * 100).astype(dtype))

    def run():
        return tuple(t.numpy().copy() for t in (a + b, a - b, a * b, a * 3, 3 * a, a + 2, 2 + a))

    _all_threads_agree(run)


@pytest.mark.parametrize("dims", [(0,), (1,), (2,), (0, 2, 3), (1, 2), (3,), (0, 1, 2)])
@pytest.mark.parametrize("dtype", [np.float32, np.float64])
def test_sum_keeps_each_output_elements_order(dims, dtype):
    # float sums are order-dependent: the same values means the same order per output element
    x = tt.tensor(_randn(33, 40, 25, 27, dtype=dtype) * 1e3)

    def run():
        return x.sum(dims).numpy().copy(), x.sum(dims, keepdim=True).numpy().copy()

    _all_threads_agree(run)


@pytest.mark.parametrize("shape", [(2, 300000), (300000, 2), (3, 2, 100000), (100000, 3, 2)])
def test_sum_of_narrow_shapes(shape):
    x = tt.tensor(_randn(*shape) * 1e3)
    for dims in [(i,) for i in range(len(shape))]:
        one = _at(1, lambda: x.sum(dims).numpy().copy())
        for t in THREADS:
            _same_bits(one, _at(t, lambda: x.sum(dims).numpy().copy()))


@pytest.mark.parametrize("dim", [0, 1, 2, -1])
def test_softmax_and_log_softmax(dim):
    x = tt.tensor(_randn(64, 48, 100) * 10)

    def run():
        return tt.softmax(x, dim).numpy().copy(), tt.log_softmax(x, dim).numpy().copy()

    _all_threads_agree(run)


@pytest.mark.parametrize("causal", [False, True])
def test_attention_forward_and_backward(causal):
    q, k, v = (tt.tensor(_randn(16, 4, 64, 32), requires_grad=True) for _ in range(3))

    def run():
        for t in (q, k, v):
            t.grad = None
        o = tt.nn.functional.scaled_dot_product_attention(q, k, v, is_causal=causal)
        o.backward(tt.tensor(_RNG_FIXED_GRAD(o.shape, np.float32)))
        return (o.detach().numpy().copy(),) + tuple(t.grad.numpy().copy() for t in (q, k, v))

    _all_threads_agree(run)


@pytest.mark.parametrize("shape", [(20000, 64), (9001, 33), (3, 1500, 100), (70000, 64)])
def test_attention_row_sums(shape):
    """The attention kernels' row sums (a BLAS matrix-vector product): OpenBLAS's own threads would cut the
    rows where its thread count puts the cut, and the rows at a cut get other floats (numpy 1.24's OpenBLAS
    at 3 threads on 4096 rows, numpy 2.4's at 20,000); the bits of one matrix-vector product on one thread
    whatever the thread count."""
    from tinytorch._ops._kernels.flash_attention import ROW_SUMS_GRAIN, row_sums

    e = _randn(*shape)
    one = _at(1, lambda: row_sums(e))
    _same_bits(one, _at(1, lambda: np.matmul(e.reshape(-1, shape[-1]), np.ones(shape[-1], e.dtype))).reshape(one.shape))
    for t in THREADS:
        _same_bits(one, _at(t, lambda: row_sums(e)))
    if e.size >= 2 * ROW_SUMS_GRAIN:  # cut across the pool too
        _all_threads_agree(lambda: row_sums(e))


def test_batched_matmul():
    if mkl_gemm.gemms() is not None:
        pytest.skip("with [mkl] a batch of GEMMs is one MKL call (PyTorch's), not tinytorch's split")
    a, b = tt.tensor(_randn(64, 48, 40)), tt.tensor(_randn(64, 40, 56))
    _all_threads_agree(lambda: tt.matmul(a, b).numpy().copy())


@pytest.fixture(params=["numpy", "compiled"])
def kernels(request, _restore_threads):
    """Each test runs on the numpy path and, where numba is installed, on the compiled kernels ([fast]),
    which split their large arrays the same way."""
    if request.param == "compiled":
        if os.environ.get("TINYTORCH_NO_NUMBA", "") not in ("", "0"):
            pytest.skip("TINYTORCH_NO_NUMBA is set")
        compiled.set_enabled(True)  # (the autouse fixture puts the setting back)
        if any(compiled.family(name) is None for name in compiled.FAMILIES):
            pytest.skip("numba is not installed (the [fast] extra)")
    return request.param


def test_gelu_forward_and_backward(kernels):
    x = tt.tensor(_randn(16, 64, 512) * 3, requires_grad=True)

    def run():
        x.grad = None
        y = tt.nn.functional.gelu(x)
        y.backward(tt.tensor(_RNG_FIXED_GRAD(y.shape, np.float32)))
        return y.detach().numpy().copy(), x.grad.numpy().copy()

    _all_threads_agree(run)


def test_dropout_draws_the_same_mask():
    x = tt.tensor(_randn(64, 64, 12, 12), requires_grad=True)

    def run():
        x.grad = None
        tt.manual_seed(7)
        y = tt.nn.functional.dropout(x, 0.25)
        y.backward(tt.ones_like(y))
        return y.detach().numpy().copy(), x.grad.numpy().copy(), tt.randint(0, 2**31, (4,)).numpy()

    _all_threads_agree(run)


@pytest.mark.parametrize("momentum,nesterov", [(0.0, False), (0.9, False), (0.9, True)])
def test_sgd_update(momentum, nesterov):
    def run():
        w = tt.nn.Parameter(tt.tensor(_RNG_FIXED_GRAD((1024, 517), np.float32)))
        opt = tt.optim.SGD([w], lr=0.05, momentum=momentum, nesterov=nesterov, weight_decay=1e-4)
        for i in range(3):
            w.grad = tt.tensor(_RNG_FIXED_GRAD((1024, 517 + 0 * i), np.float32) * (i + 1))
            opt.step()
        return w.detach().numpy().copy()

    _all_threads_agree(run)


@pytest.mark.parametrize("opt", ["adam", "adamw", "adamw_amsgrad_maximize", "adam_l2"])
def test_adam_update(opt, kernels):
    # one parameter above SPLIT_FROM (its update in runs of elements across threads), one below
    shapes = [(600, 512), (7, 5)]

    def run():
        ws = [tt.nn.Parameter(tt.tensor(_RNG_FIXED_GRAD(s, np.float32))) for s in shapes]
        kw = {"adam": {}, "adamw": {"weight_decay": 0.1}, "adam_l2": {"weight_decay": 0.01},
              "adamw_amsgrad_maximize": {"weight_decay": 0.1, "amsgrad": True, "maximize": True}}[opt]
        make = tt.optim.AdamW if opt.startswith("adamw") else tt.optim.Adam
        o = make(ws, lr=0.01, **kw)
        for i in range(3):
            for w, s in zip(ws, shapes):
                w.grad = tt.tensor(_RNG_FIXED_GRAD(s[::-1], np.float32).reshape(s) * (i + 1))
            o.step()
        state = [o.state[w][k].numpy().copy() for w in ws for k in sorted(o.state[w]) if k != "step"]
        return tuple(w.detach().numpy().copy() for w in ws) + tuple(state)

    _all_threads_agree(run)


# the other optimizers, each branch of their updates: one parameter above SPLIT_FROM (updated in runs of its
# elements across threads), one below; seven steps reach RAdam's rectified branch
_ELEMENTWISE_OPTIMIZERS = [
    ("RMSprop", dict(lr=0.01)),
    ("RMSprop", dict(lr=0.005, momentum=0.5, centered=True, weight_decay=0.01, maximize=True)),
    ("Adagrad", dict(lr=0.1, lr_decay=0.01, weight_decay=0.1, initial_accumulator_value=0.1)),
    ("Adadelta", dict(lr=0.5, rho=0.8, weight_decay=0.01, maximize=True)),
    ("Adamax", dict(lr=0.01, weight_decay=0.1)),
    ("NAdam", dict(lr=0.01, weight_decay=0.1)),
    ("NAdam", dict(lr=0.01, weight_decay=0.1, decoupled_weight_decay=True, maximize=True)),
    ("RAdam", dict(lr=0.01, betas=(0.8, 0.9), weight_decay=0.1)),
    ("RAdam", dict(lr=0.01, betas=(0.8, 0.9), weight_decay=0.1, decoupled_weight_decay=True)),
    ("ASGD", dict(lr=0.05, lambd=0.01, t0=3, weight_decay=0.01)),
    ("Rprop", dict(lr=0.01, maximize=True)),
]


@pytest.mark.parametrize("name, kw", _ELEMENTWISE_OPTIMIZERS,
                         ids=[f"{n}-{i}" for i, (n, _) in enumerate(_ELEMENTWISE_OPTIMIZERS)])
def test_elementwise_optimizer_updates(name, kw):
    shapes = [(600, 512), (7, 5)]

    def run():
        ws = [tt.nn.Parameter(tt.tensor(_RNG_FIXED_GRAD(s, np.float32))) for s in shapes]
        o = getattr(tt.optim, name)(ws, **kw)
        for i in range(7):
            for w, s in zip(ws, shapes):  # gradients that change sign between steps (Rprop's branches)
                w.grad = tt.tensor(_RNG_FIXED_GRAD(s[::-1], np.float32).reshape(s) * (i % 3 - 1.2))
            o.step()
        state = [v.numpy().copy() for w in ws for k, v in sorted(o.state[w].items()) if v.numel() > 1]
        return tuple(w.detach().numpy().copy() for w in ws) + tuple(state)

    _all_threads_agree(run)


def test_cnn_training_steps_match_one_thread():
    # pytorch/examples' MNIST network, three SGD steps: every parallel kernel together. OpenBLAS's own
    # threaded GEMM rounds differently from its one-thread GEMM (the linear layers'), so its count is
    # held fixed here: what is compared is tinytorch's splitting.
    nn, F = tt.nn, tt.nn.functional

    def run():
        tt.manual_seed(0)
        convs = nn.Sequential(nn.Conv2d(1, 32, 3), nn.ReLU(), nn.Conv2d(32, 64, 3), nn.ReLU(), nn.MaxPool2d(2),
                              nn.Dropout(0.25), nn.Flatten(), nn.Linear(9216, 128), nn.ReLU(), nn.Dropout(0.5),
                              nn.Linear(128, 10), nn.LogSoftmax(1))
        opt = tt.optim.SGD(convs.parameters(), lr=0.05, momentum=0.9)
        rng = np.random.default_rng(0)
        blas = parallel.blas_threads()
        for _ in range(3):
            if blas is not None:
                parallel._blas_set(1)
            x = tt.tensor(rng.random((64, 1, 28, 28), dtype=np.float32))
            y = tt.tensor(rng.integers(0, 10, 64))
            loss = F.nll_loss(convs(x), y)
            opt.zero_grad()
            loss.backward()
            opt.step()
        return tuple(p.detach().numpy().copy() for p in convs.parameters())

    _all_threads_agree(run)


def test_dataloader_workers_run_one_thread():
    class Probe(tt.data.Dataset):
        def __len__(self):
            return 2

        def __getitem__(self, i):
            return tt.tensor([tt.get_num_threads(), parallel.blas_threads() or 1])

    tt.set_num_threads(2)
    loader = tt.data.DataLoader(Probe(), batch_size=1, num_workers=2)
    assert [b.tolist() for b in loader] == [[[1, 1]], [[1, 1]]]
    assert tt.get_num_threads() == 2  # the main process keeps its count


@pytest.mark.bitexact
@pytest.mark.parametrize("shape", [(512, 784), (401408,), (64, 32, 14, 14)])
def test_plain_sgd_update_of_any_shape(torch, shape):
    # plain SGD takes the gathered BLAS path (add_scaled_many), whose large arrays are split by blocks
    init = _RNG_FIXED_GRAD(shape, np.float32)
    grad = _RNG_FIXED_GRAD(shape[::-1], np.float32).reshape(shape)

    def run():
        w = tt.nn.Parameter(tt.tensor(init.copy()))
        other = tt.nn.Parameter(tt.ones(3))
        opt = tt.optim.SGD([w, other], lr=0.01)
        w.grad, other.grad = tt.tensor(grad), tt.ones(3)
        opt.step()
        return w.detach().numpy().copy()

    got = _all_threads_agree(run)[0]
    tw = torch.nn.Parameter(torch.tensor(init.copy()))
    topt = torch.optim.SGD([tw], lr=0.01)
    tw.grad = torch.tensor(grad)
    topt.step()
    import _paths  # PyTorch's fused update: bit for bit on its FMA paths, within an ulp on the others

    _paths.assert_bits(got, tw.detach().numpy(), ulps=3, scale=1.0, what="SGD update")  # test_mlp_fast_paths' bound


# (the compiled kernel takes one normalised dim, and splits from SPLIT_FROM elements: the last shape)
@pytest.mark.parametrize("shape,k,kernels", [((16, 64, 128), 1, "numpy"), ((1024, 128), 1, "numpy"),
                                             ((8, 3, 500, 7), 2, "numpy"), ((32, 64, 128), 1, "numpy"),
                                             ((32, 64, 128), 1, "compiled")], indirect=["kernels"])
def test_layer_norm_forward_and_backward(shape, k, kernels):
    x = tt.tensor(_randn(*shape), requires_grad=True)
    w, b = (tt.tensor(_randn(*shape[-k:]), requires_grad=True) for _ in range(2))

    def run():
        for t in (x, w, b):
            t.grad = None
        y = tt.nn.functional.layer_norm(x, shape[-k:], w, b)
        y.backward(tt.tensor(_RNG_FIXED_GRAD(y.shape, np.float32)))
        return (y.detach().numpy().copy(),) + tuple(t.grad.numpy().copy() for t in (x, w, b))

    _all_threads_agree(run)


def test_parts_keep_the_callers_floating_point_error_handling():
    # numpy's error state is per thread: a split softmax of rows of -inf warns no more than one thread
    x = tt.tensor(np.full((600, 1000), -np.inf, np.float32))
    import warnings

    with warnings.catch_warnings():
        warnings.simplefilter("error")
        one = _at(1, lambda: tt.softmax(x, 1).numpy().copy())
        for t in THREADS:
            _same_bits(one, _at(t, lambda: tt.softmax(x, 1).numpy().copy()))
    with np.errstate(divide="raise"):
        with pytest.raises(FloatingPointError):
            _at(2, lambda: parallel.elementwise(np.divide, np.empty(600000), np.ones(600000), 0.0))


@pytest.mark.parametrize("view", ["transposed", "strided", "permuted"])
def test_sum_of_non_contiguous_views(view):
    base = tt.tensor(_randn(60, 50, 40, 6) * 1e3)
    x = {"transposed": base.transpose(0, 2), "strided": base[::2, :, ::3],
         "permuted": base.permute(3, 1, 0, 2)}[view]
    for dims in [(0,), (1,), (2,), (3,), (0, 2), (1, 3)]:
        if x[tuple([slice(None)] * x.ndim)].numel() < 2 * parallel.ELEMENTWISE_GRAIN:
            continue
        one = _at(1, lambda: x.sum(dims).numpy().copy())
        for t in THREADS:
            _same_bits(one, _at(t, lambda: x.sum(dims).numpy().copy()))
