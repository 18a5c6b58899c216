"""Intra-op parallelism: the thread-count API (PyTorch's defaults, checks and messages), the pool, and
every parallel kernel giving the same bits on N threads as on one, on generated inputs."""
import os
import subprocess
import sys
import threading

import numpy as np
import pytest

import tinytorch as tt
from tinytorch._ops._kernels import parallel

THREADS = (2, 3, 4)  # more threads than cores is legal: the split, not the speed, is what is checked


@pytest.fixture(autouse=True)
def _restore_threads():
    before = tt.get_num_threads()
    yield
    tt.set_num_threads(before)


def _at(threads, fn):
    """fn() computed with ``threads`` intra-op threads (then back to the count before)."""
    before = tt.get_num_threads()
    tt.set_num_threads(threads)
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
    one = fn()
    one = one if isinstance(one, tuple) else (one,)
    for t in THREADS:
        parallel.stats(reset=True, enable=True)
        try:
            got = _at(t, fn)
        finally:
            regions = parallel.stats(reset=True, enable=False)["regions"]
        assert regions, "nothing was split: the inputs are too small to test the parallel path"
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
    repo = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))
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
                         cwd=os.path.dirname(os.path.dirname(os.path.abspath(__file__)))).stdout.strip()
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


# -- the kernels: 1 thread and N threads give the same bits ---------------------------------------------
_RNG = np.random.default_rng(1234)


def _randn(*shape, dtype=np.float32):
    return _RNG.standard_normal(shape).astype(dtype)


@pytest.mark.parametrize("dtype", [np.float32, np.float64])
@pytest.mark.parametrize("n,c,o,hw,k,stride,padding,dilation,groups", [
    (64, 1, 32, 28, 3, 1, 0, 1, 1),   # the MNIST net's conv1 (two chunks of samples)
    (16, 32, 64, 26, 3, 1, 0, 1, 1),  # its conv2 (one sample a chunk)
    (24, 8, 12, 40, 3, 2, 1, 1, 1),   # stride 2: the strided col2im
    (8, 6, 12, 40, 5, 1, 2, 2, 3),    # padding, dilation, groups
    (5, 16, 16, 30, 3, 1, 1, 1, 16),  # depthwise
])
def test_conv2d_forward_and_gradients(dtype, n, c, o, hw, k, stride, padding, dilation, groups):
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


def test_conv1d_forward_and_gradients():
    x = tt.tensor(_randn(32, 8, 500), requires_grad=True)
    w = tt.tensor(_randn(16, 8, 5), requires_grad=True)

    def run():
        x.grad = w.grad = None
        y = tt.nn.functional.conv1d(x, w, padding=2)
        y.backward(tt.ones_like(y))
        return y.detach().numpy().copy(), x.grad.numpy().copy(), w.grad.numpy().copy()

    _all_threads_agree(run)
