"""Intra-op parallelism: a pool of Python threads running numpy on disjoint parts of one op.

numpy releases the GIL inside its loops (ufuncs, reductions, copies, BLAS calls), so threads that each
run numpy on their own slice of an array run on separate cores. This module is the one place that
knows about threads: the thread count (``tinytorch.set_num_threads``; PyTorch's default, the physical
cores this process may run on), the pool, and the splitting helpers every parallel kernel uses:

- ``parallel_for(n, body, grain)``: ``body(start, stop)`` on contiguous ranges of ``range(n)``, one per
  thread (at most ``ceil(n / grain)`` of them), the first in the calling thread; ``at::parallel_for``'s
  contract. The ranges partition the work, so a kernel whose ranges write disjoint outputs computes the
  same floats on any number of threads.
- ``split_axis`` / ``elementwise`` / ``copyto``: a ufunc call (or a copy) cut along an axis of its output.
- ``reduce``: a reduction cut along an axis it does not reduce, so each output element is summed by
  the same loop in the same order as on one thread; ``slices``: a row-wise function (softmax) likewise.
- ``matmul``: the GEMMs of linear layers and matmul (OpenBLAS's threads; a batch of small GEMMs is cut
  across the pool), with the time accounting the benchmarks read (``stats``).

GEMMs themselves are never cut: OpenBLAS's sgemm rounds an element differently depending on the block
of rows or columns it computes it in and on its own thread count, so only whole GEMM calls are
distributed (a convolution's chunks of samples, a batch of attention products), each on one BLAS thread.

Work below the grain (scaled to what a region costs on this machine: ``REGION_US``) stays on the calling
thread, and so does every call made while the pool is busy (from inside a parallel region, or from a
second user thread): parallel regions do not nest, as in PyTorch. Within a region BLAS calls run
single-threaded (``blas=True`` asks for it), so the GEMM of each part does not also fan out over
OpenBLAS's threads.

Threads start on the first call that splits work (never at import); a fork (DataLoader workers) leaves
the child without them, and it starts its own if it needs them."""
from __future__ import annotations

import os
import threading
import time
from _queue import SimpleQueue  # queue.SimpleQueue itself, without importing queue.py

import numpy as np

from ..._meta_array import MetaArray
from ..._quiet_fp import silent
from .._core.tensor_iterator import GRAIN  # at::internal::GRAIN_SIZE: below it an op runs on one thread
from .openblas import openblas_library

__all__ = ["GRAIN", "ELEMENTWISE_GRAIN", "SPLIT_FROM", "get_num_threads", "set_num_threads",
           "get_num_interop_threads", "set_num_interop_threads", "parallel_for", "run", "ranges", "elementwise",
           "copyto", "flat_runs", "slices", "split_axis", "reduce", "stats", "matmul", "blas_threads",
           "on_set_num_threads", "REGION_US", "region_cost", "scale", "scaled"]

# A region costs the pool about 10-30 us here (a wake-up per thread and the GIL handed over), as much as
# numpy spends on ~100k float32 elements of a simple ufunc, copy or sum: such streaming work is split
# in parts of at least this many elements
ELEMENTWISE_GRAIN = 1 << 17
# what an op checks before calling a helper here: below this size nothing is split (one comparison on
# the hot path of small tensors)
SPLIT_FROM = 2 * ELEMENTWISE_GRAIN
# The grains above are sized for a region costing about this much (a part of ELEMENTWISE_GRAIN elements of a
# streaming ufunc takes about as long). What a region costs depends on the machine: on a virtual machine a
# sleeping thread's wake-up (and the caller's, when the parts are done) goes through the hypervisor, and a
# region of 2 threads costs 45-90 us beyond its work, so that a 400k-element SGD update cut in two took 76 us
# against 44 on one thread. The pool measures that cost at its first split decision (``region_cost``) and
# every split decision scales its grain by the measured cost over this one (never below 1): where regions
# are slow, only work that pays for them is split. The floats do not depend on it: every split computes
# each element as one thread does.
REGION_US = 12.0

_threads: int | None = None  # intra-op threads; None: not decided yet (read lazily: sysfs, environment)
threads_set = False  # set_num_threads has run (PyTorch's turns MKL's dynamic thread count off then)
_interop: int | None = None
_interop_set = False


def _positive_env(name: str) -> int:
    try:
        n = int(os.environ.get(name, ""))
    except ValueError:
        return 0
    return n if n > 0 else 0


def _physical_cores() -> int:
    """The physical cores among the CPUs this process may run on (PyTorch counts cores, not SMT
    siblings); the CPU count where the topology cannot be read."""
    try:
        cpus = sorted(os.sched_getaffinity(0))
    except (AttributeError, OSError):
        cpus = list(range(os.cpu_count() or 1))
    cores = set()
    for cpu in cpus:
        base = f"/sys/devices/system/cpu/cpu{cpu}/topology/"
        try:
            with open(base + "physical_package_id") as f:
                package = f.read().strip()
            with open(base + "core_id") as f:
                core = f.read().strip()
        except OSError:
            cores.add(("cpu", cpu))
            continue
        cores.add((package, core))
    return max(1, len(cores))


def _default_threads() -> int:
    """PyTorch's intra-op default: OMP_NUM_THREADS (else MKL_NUM_THREADS) when set to a positive
    integer, at most the physical cores available; otherwise those cores."""
    cores = _physical_cores()
    env = _positive_env("OMP_NUM_THREADS") or _positive_env("MKL_NUM_THREADS")
    return min(env, cores) if env else cores


def get_num_threads() -> int:
    """The number of threads intra-op parallel work uses."""
    global _threads
    if _threads is None:
        _threads = _default_threads()
    return _threads


def _check_count(n, name: str) -> int:
    if isinstance(n, bool) or not isinstance(n, (int, np.integer)):
        raise RuntimeError(f"{name} expects an int, but got {type(n).__name__}")
    if n <= 0:
        raise RuntimeError(f"{name} expects a positive integer")
    return int(n)


def set_num_threads(n: int) -> None:
    """Use ``n`` threads for intra-op parallel work, numpy's OpenBLAS included (as PyTorch sets its
    OpenMP and MKL thread counts), and MKL's where it runs the GEMMs (``on_set_num_threads``)."""
    global _threads, threads_set
    _threads = _check_count(n, "set_num_threads")
    threads_set = True
    _blas_set(_threads)
    for fn in _thread_listeners:
        fn(_threads)


_thread_listeners: list = []  # libraries loaded later whose thread count follows set_num_threads (MKL's)


def on_set_num_threads(fn) -> None:
    """Call ``fn(n)`` whenever set_num_threads(n) runs (once per function)."""
    if fn not in _thread_listeners:
        _thread_listeners.append(fn)


def get_num_interop_threads() -> int:
    """The inter-op thread count: PyTorch's default (the physical cores), or what was set."""
    global _interop
    if _interop is None:
        _interop = _physical_cores()
    return _interop


def set_num_interop_threads(n: int) -> None:
    """Set once, before any inter-op work, as in PyTorch (tinytorch runs none: it is recorded)."""
    global _interop, _interop_set
    n = _check_count(n, "set_num_interop_threads")
    if _interop_set:
        raise RuntimeError("Error: cannot set number of interop threads after parallel work has started "
                           "or set_num_interop_threads called")
    _interop, _interop_set = n, True


# -- numpy's OpenBLAS thread count -------------------------------------------------------------------
_blas_calls = None  # (set, get) ctypes functions, or () where there is no OpenBLAS to steer


def _openblas_symbol(lib, name: str, suffixes=("",)):
    """OpenBLAS's function ``name`` in numpy's bundled library: numpy 2's names carry a ``scipy_`` prefix
    (and the 64-bit-index build a ``64_`` suffix on its API), numpy 1.x's neither prefix; None if absent."""
    for prefix in ("scipy_", ""):
        for suffix in suffixes:
            fn = getattr(lib, prefix + name + suffix, None)
            if fn is not None:
                return fn
    return None


def _blas_functions():
    global _blas_calls
    if _blas_calls is None:
        _blas_calls = ()
        lib = openblas_library()
        if lib is not None:
            import ctypes

            setter = _openblas_symbol(lib, "openblas_set_num_threads", ("64_", ""))
            getter = _openblas_symbol(lib, "openblas_get_num_threads", ("64_", ""))
            if setter is not None and getter is not None:
                setter.argtypes, setter.restype = [ctypes.c_int], None
                getter.argtypes, getter.restype = [], ctypes.c_int
                _blas_calls = (setter, getter)
    return _blas_calls


def _blas_set(n: int) -> None:
    calls = _blas_functions()
    if calls:
        calls[0](n)


def blas_threads() -> int | None:
    """OpenBLAS's current thread count, or None where numpy has no OpenBLAS to ask."""
    calls = _blas_functions()
    return calls[1]() if calls else None


# OpenBLAS's idle threads spin for 2**THREAD_TIMEOUT CPU cycles after each threaded call before they sleep
# (its default, 28: about 0.1 s), on the cores this pool's threads need next: on 2 cores a convolution's
# region that follows a threaded GEMM ran no faster on 2 threads than on 1, and a CNN step got slower.
# Shortened to 2**22 cycles (about 1-2 ms: back-to-back GEMMs still find their threads awake) when the
# pool starts, unless the user set OPENBLAS_THREAD_TIMEOUT. OpenBLAS reads the setting from the
# environment when it starts its threads, so it is put there for the moment of re-reading and taken
# out again, and OpenBLAS's threads are stopped and started again. The floats do not change: only how
# long an idle thread waits awake. It happens once, in the first region, from the thread holding the
# pool: a program whose other threads are inside a BLAS call at that moment should set the variable
# itself before numpy loads (then nothing is touched here).
BLAS_SPIN_EXPONENT = 22
_spin_tuned = False


def tune_blas_spin() -> bool:
    """Shorten OpenBLAS's idle spin (once a process, and only where OpenBLAS's threads may start); True
    when it was changed here."""
    global _spin_tuned
    if _spin_tuned:
        return False
    _spin_tuned = True
    if "OPENBLAS_THREAD_TIMEOUT" in os.environ or not _blas_functions():
        return False
    lib = openblas_library()
    read_env = _openblas_symbol(lib, "openblas_read_env")
    shutdown = _openblas_symbol(lib, "blas_thread_shutdown_")
    if read_env is None or shutdown is None:
        return False
    read_env.argtypes, read_env.restype = [], None
    shutdown.argtypes = []
    threads = blas_threads()
    os.environ["OPENBLAS_THREAD_TIMEOUT"] = str(BLAS_SPIN_EXPONENT)
    try:
        read_env()
    finally:
        del os.environ["OPENBLAS_THREAD_TIMEOUT"]
    shutdown()
    _blas_set(threads)  # OpenBLAS starts its threads again, reading the new wait
    return True


# -- the pool ----------------------------------------------------------------------------------------
class _Pool:
    """``size`` daemon threads, each waiting on its own queue; replies come back on one queue."""

    def __init__(self) -> None:
        self.queues: list = []
        self.done = SimpleQueue()
        self.lock = threading.Lock()  # held for a whole region: a busy pool makes callers run alone

    def grow(self, size: int) -> None:
        while len(self.queues) < size:
            q = SimpleQueue()
            threading.Thread(target=_serve, args=(q, self.done), daemon=True,
                             name=f"tinytorch-intraop-{len(self.queues)}").start()
            self.queues.append(q)


_local = threading.local()
_DEFAULT_ERR = np.geterr()  # what a new thread starts with


def _serve(q, done) -> None:
    _local.worker = True  # never split work again from inside a part
    while True:
        task = q.get()
        if task is None:
            return
        body, start, stop, err = task
        try:
            if err is None:
                body(start, stop)
            else:
                with np.errstate(**err):  # the caller's floating-point error handling (numpy's is per thread)
                    body(start, stop)
        except BaseException as exc:  # noqa: BLE001 - handed to the caller, which re-raises it
            done.put(exc)
        else:
            done.put(None)


_pool = _Pool()


def _after_fork() -> None:
    # the child has none of the parent's threads: a fresh pool (started if the child needs one)
    global _pool
    _pool = _Pool()


if hasattr(os, "register_at_fork"):
    os.register_at_fork(after_in_child=_after_fork)


# time accounting for the benchmarks (``stats``): off unless asked for
_accounting = False
_region_s = 0.0
_regions = 0


_gemm_s = 0.0
_gemms = 0
# OpenBLAS runs a GEMM on one thread below m*n*k = 65536 * 4 (SMP_THRESHOLD_MIN * GEMM_MULTITHREAD_THRESHOLD)
_BLAS_THREADS_FROM = 65536 * 4
_BATCH_SPLIT_FROM = 1 << 22  # multiply-adds of a batch of small GEMMs worth a region (~4M: 50-100 us here)


_serial = False  # the accounting's one-core mode: regions run their parts in order on the calling thread
_clock = time.perf_counter  # the accounting's clock: wall time, or the thread's CPU time in the one-core mode


def stats(reset: bool = False, enable: bool | None = None, serial: bool | None = None) -> dict:
    """{"regions": parallel regions run, "seconds": wall time inside them, "gemms": GEMMs through
    ``matmul`` that OpenBLAS ran on several threads, "gemm_seconds": their wall time} since the last
    reset; with ``enable`` the accounting is switched on or off (two clock reads a region or GEMM).

    ``serial=True`` measures on one core what a run on get_num_threads() threads splits: every region
    runs its parts one after the other on the calling thread (the same parts, so the same work and the
    same floats), and every GEMM that OpenBLAS would thread counts, whatever its thread count now. The
    region and GEMM time over the step's time is then the step's parallel fraction (Amdahl's f),
    measured without the noise of a busy machine's scheduling."""
    global _accounting, _region_s, _regions, _gemm_s, _gemms, _serial
    out = {"regions": _regions, "seconds": _region_s, "gemms": _gemms, "gemm_seconds": _gemm_s}
    if reset:
        _region_s, _regions, _gemm_s, _gemms = 0.0, 0, 0.0, 0
    if enable is not None:
        _accounting = bool(enable)
    if serial is not None:
        global _clock
        _serial = bool(serial)
        # one core: the calling thread's CPU time, which a busy machine's other processes do not stretch
        _clock = time.thread_time if _serial else time.perf_counter
    return out


@silent
def matmul(a: np.ndarray, b: np.ndarray) -> np.ndarray:
    """``np.matmul(a, b)``: the GEMMs of linear layers and matmul, which OpenBLAS runs on its threads
    (``set_num_threads`` sets their count). With the accounting on (``stats``), the time of those it
    runs on several threads is counted as time on all threads. Silent about inf and NaN, as PyTorch's
    products are (numpy warns of ``inf * 0``, and of whatever the BLAS kernel's floating-point flags say)."""
    if (type(a) is np.ndarray and a.ndim >= 3 and a.shape[0] >= 2 and a.shape[:-2] == b.shape[:-2]
            and a.size * b.shape[-1] >= _BATCH_SPLIT_FROM
            and a.shape[-2] * a.shape[-1] * b.shape[-1] < _BLAS_THREADS_FROM and _can_split()
            and a.size * b.shape[-1] >= scaled(_BATCH_SPLIT_FROM)):
        # a batch of GEMMs each too small for OpenBLAS's threads (so one-thread calls, the same floats
        # at any thread count): runs of the batch across threads, each GEMM the same call
        out = np.empty(a.shape[:-1] + b.shape[-1:], np.result_type(a.dtype, b.dtype))

        def body(start, stop):
            np.matmul(a[start:stop], b[start:stop], out=out[start:stop])

        run(body, ranges(a.shape[0], 1, min(get_num_threads(), a.shape[0])), blas=True)
        return out
    if not _accounting:
        return np.matmul(a, b)
    global _gemm_s, _gemms
    t0 = _clock()
    out = np.matmul(a, b)
    mnk = (a.shape[-2] if a.ndim > 1 else 1) * (a.shape[-1] if a.ndim else 1) * (b.shape[-1] if b.ndim > 1 else 1)
    if mnk >= _BLAS_THREADS_FROM and not getattr(_local, "worker", False) and (_serial or (blas_threads() or 1) > 1):
        _gemm_s += _clock() - t0
        _gemms += 1
    return out


def ranges(n: int, grain: int = GRAIN, threads: int | None = None) -> list:
    """``range(n)`` cut into at most ``threads`` contiguous (start, stop) parts of at least ``grain``
    (one part when ``n`` is below twice the grain); the parts differ in length by at most one."""
    t = get_num_threads() if threads is None else threads
    parts = max(1, min(t, n // max(grain, 1)))
    if parts == 1:
        return [(0, n)]
    base, extra = divmod(n, parts)
    out, start = [], 0
    for i in range(parts):
        stop = start + base + (i < extra)
        out.append((start, stop))
        start = stop
    return out


def _can_split() -> bool:
    return get_num_threads() > 1 and not getattr(_local, "worker", False)


_costs: dict = {}  # thread count -> a region's cost there in µs, measured or from the environment; None -> pinned


def _measure_region_us(threads: int) -> float | None:
    """What a region on ``threads`` threads costs beyond its work, in µs: the median wall time of regions
    whose parts each compute the same sines on their own small array, less the median time of one part
    computed alone; None while the pool is busy (a region running in another thread). The regions are a
    millisecond apart, the caller busy in between, as in a step: a worker idle that long has gone to sleep
    (a hypervisor keeps an idle virtual CPU polling for a while, so back-to-back regions cost less). A worker
    the system runs on the caller's own core shows as a cost of a whole part: nothing runs in parallel."""
    pool = _pool
    if not pool.lock.acquire(blocking=False):
        return None
    try:
        if not _spin_tuned:  # OpenBLAS's idle threads spinning on the other cores would wake the workers early
            tune_blas_spin()
        pool.grow(threads - 1)
        queues = pool.queues[:threads - 1]
        xs = [np.linspace(0.0, 1.0, 4096) for _ in range(threads)]  # (32 KiB each: compute, not memory)
        ys = [np.empty_like(x) for x in xs]

        def part(k, _):
            np.sin(xs[k], out=ys[k])

        alone, together = [], []
        for i in range(14):  # the first two (threads just started, caches cold) are not counted
            t0 = time.perf_counter()
            while time.perf_counter() - t0 < 1e-3:
                pass
            t0 = time.perf_counter()
            if i % 2:
                part(0, 0)
                alone.append(time.perf_counter() - t0)
                continue
            for k, q in enumerate(queues, 1):
                q.put((part, k, 0, None))
            part(0, 0)
            for _ in queues:
                pool.done.get()
            together.append(time.perf_counter() - t0)
        alone, together = sorted(alone[1:]), sorted(together[1:])
        return max(0.0, together[len(together) // 2] - alone[len(alone) // 2]) * 1e6
    finally:
        pool.lock.release()


def _env_cost() -> float | None:
    try:
        us = float(os.environ.get("TINYTORCH_REGION_US", ""))
    except ValueError:
        return None
    return us if us > 0 else None


def region_cost(us: float | None = None) -> float | None:
    """What a parallel region costs here at the current thread count beyond its work, in µs: measured at the
    first split decision (``_measure_region_us``; ``TINYTORCH_REGION_US``, a positive number, is taken
    instead); None at one thread, and while the pool is busy before a measurement. With ``us``, that cost is
    taken for every thread count from now on (``region_cost(REGION_US)``: the grains as written);
    ``region_cost(0)`` measures again."""
    if us is not None:
        _costs.clear()
        if us > 0:
            _costs[None] = float(us)
        return us or None
    cost = _costs.get(None)
    if cost is None:
        t = get_num_threads()
        if t < 2:
            return None
        cost = _costs.get(t)
        if cost is None:
            cost = _env_cost() or _measure_region_us(t)
            if cost is not None:  # (None: the pool is busy; measured at a later call)
                _costs[t] = cost
    return cost


def scale() -> float:
    """The factor every split decision multiplies its grain by (see REGION_US): the region's cost over the one
    the grains were sized for, never below 1."""
    cost = region_cost()
    return 1.0 if cost is None or cost <= REGION_US else cost / REGION_US


def scaled(grain: int) -> int:
    """``grain`` times this machine's factor (``scale``): the least work a part must have to be split off."""
    s = scale()
    return grain if s == 1.0 else int(grain * s)


def run(body, parts: list, blas: bool = False) -> None:
    """``body(start, stop)`` for each (start, stop) of ``parts``: the first in the calling thread, the
    others in the pool, returning when all are done (the first exception raised is re-raised). With one
    part, or with the pool busy, every part runs here, in order. ``blas``: the parts call BLAS, which then
    runs single-threaded until they finish."""
    if len(parts) < 2 or not _can_split():
        _serially(body, parts, blas)
        return
    if _serial:  # the accounting's one-core measurement (see stats)
        t0 = _clock()
        _local.worker = True
        try:
            _serially(body, parts, blas)
        finally:
            _local.worker = False
        _count_region(t0)
        return
    pool = _pool
    if not pool.lock.acquire(blocking=False):  # a region is running (nested, or another user thread)
        _serially(body, parts, blas)
        return
    try:
        if not _spin_tuned:  # before OpenBLAS's thread count is lowered for the region
            tune_blas_spin()
        t0 = _clock() if _accounting else 0.0
        blas_before = None
        if blas:
            calls = _blas_functions()
            if calls:
                blas_before = calls[1]()
                if blas_before != 1:
                    calls[0](1)
        try:
            pool.grow(len(parts) - 1)
            _local.worker = True  # the caller's own part must not split either
            err = np.geterr()
            err = None if err == _DEFAULT_ERR else err
            for q, (start, stop) in zip(pool.queues, parts[1:]):
                q.put((body, start, stop, err))
            error = None
            try:
                body(*parts[0])
            except BaseException as exc:  # noqa: BLE001 - after the others finish
                error = exc
            finally:
                _local.worker = False
            for _ in range(len(parts) - 1):
                got = pool.done.get()
                if got is not None and error is None:
                    error = got
        finally:
            if blas_before is not None and blas_before != 1:
                _blas_functions()[0](blas_before)
        if _accounting:
            _count_region(t0)
        if error is not None:
            raise error
    finally:
        pool.lock.release()


def _count_region(t0: float) -> None:
    global _region_s, _regions
    _region_s += _clock() - t0
    _regions += 1


def _serially(body, parts: list, blas: bool) -> None:
    """Every part in the calling thread, in order; with ``blas`` also on one BLAS thread, so that the
    products are the same calls with the same floats as when the parts run in parallel (OpenBLAS's
    threaded GEMM rounds differently from its one-thread GEMM)."""
    before = blas_threads() if blas and not getattr(_local, "worker", False) else None
    if before is not None and before != 1:
        _blas_functions()[0](1)
    try:
        for start, stop in parts:
            body(start, stop)
    finally:
        if before is not None and before != 1:
            _blas_functions()[0](before)


def parallel_for(n: int, body, grain: int = GRAIN, blas: bool = False) -> None:
    """``body(start, stop)`` over ``range(n)`` in at most get_num_threads() contiguous parts of at least
    ``grain`` (scaled to this machine's region cost: ``scaled``; see ``run``)."""
    if n < 2 * grain or not _can_split() or n < 2 * (grain := scaled(grain)):
        if n > 0:
            if blas:
                _serially(body, [(0, n)], blas)
            else:
                body(0, n)
        return
    run(body, ranges(n, grain), blas)


def split_axis(shape: tuple, size: int, grain: int, avoid=()) -> int | None:
    """The outermost axis of ``shape`` (not in ``avoid``) long enough to give every thread a part of at
    least two entries, for an array of ``size`` elements; None when it should not be split (too small for
    this machine's regions, one thread, or no such axis)."""
    t = get_num_threads()
    if t < 2 or size < 2 * grain or size < 2 * (grain := scaled(grain)):
        return None
    for axis, length in enumerate(shape):
        if axis not in avoid and length >= 2 * min(t, size // grain):
            return axis
    return None


def _parts_along(length: int, size: int, grain: int) -> list:
    """Parts of an axis of ``length`` of an array of ``size`` elements: as many as threads and grain
    allow, at least two entries each."""
    parts = max(1, min(get_num_threads(), size // scaled(grain), length // 2))
    return ranges(length, 1, parts)


def _index(axis: int, start: int, stop: int) -> tuple:
    return (slice(None),) * axis + (slice(start, stop),)


def elementwise(fn, out: np.ndarray, *inputs, grain: int = ELEMENTWISE_GRAIN, **kwargs):
    """``fn(*inputs, out=out, **kwargs)`` (a ufunc, or any function of arrays that works element by
    element), cut along an axis of ``out`` when it is large: each input is broadcast to ``out``'s shape
    and cut alike (scalars pass through). Returns ``out``. Every element is computed by the same loop on
    any number of threads, so the values do not depend on the split."""
    axis = None if out.size < 2 * grain or type(out) is not np.ndarray or not _can_split() else \
        split_axis(out.shape, out.size, grain)  # (a meta tensor's data-less array: nothing to split)
    if axis is None:
        fn(*inputs, out=out, **kwargs)
        return out
    shape = out.shape
    args = [np.broadcast_to(a, shape) if type(a) is np.ndarray and a.shape != shape else a for a in inputs]

    def body(start, stop):
        idx = _index(axis, start, stop)
        fn(*[a[idx] if type(a) is np.ndarray else a for a in args], out=out[idx], **kwargs)

    run(body, _parts_along(shape[axis], out.size, grain))
    return out


def flat_runs(kernel, *arrays, grain: int = ELEMENTWISE_GRAIN, blas: bool = False) -> None:
    """``kernel(*arrays)`` for a kernel that works element by element on arrays of one size, seen flat (a
    compiled kernel with its outputs among its arguments): on runs of their elements across threads when
    large, each run of every array handed to one call. The arrays a kernel writes must be C-contiguous (a
    flat view of them, not a copy); None passes through as None. On a meta tensor's data-less arrays (the
    outputs made alike, ``np.empty_like``) there is nothing to compute: the kernel is not called."""
    if any(type(a) is MetaArray for a in arrays):
        return
    flats = [None if a is None else a.reshape(-1) for a in arrays]
    parallel_for(flats[0].size, lambda lo, hi: kernel(*(None if f is None else f[lo:hi] for f in flats)),
                 grain=grain, blas=blas)


def copyto(dst: np.ndarray, src, grain: int = ELEMENTWISE_GRAIN) -> None:
    """``np.copyto(dst, src)``, cut along an axis of ``dst`` when it is large (``src`` broadcasts)."""
    axis = None if dst.size < 2 * grain or type(dst) is not np.ndarray or not _can_split() else \
        split_axis(dst.shape, dst.size, grain)
    if axis is None:
        np.copyto(dst, src)
        return
    if type(src) is np.ndarray and src.shape != dst.shape:
        src = np.broadcast_to(src, dst.shape)

    def body(start, stop):
        idx = _index(axis, start, stop)
        np.copyto(dst[idx], src[idx] if type(src) is np.ndarray else src)

    run(body, _parts_along(dst.shape[axis], dst.size, grain))


def slices(fn, x: np.ndarray, avoid: tuple, dtype, grain: int = ELEMENTWISE_GRAIN):
    """``fn(x)`` for a function that computes each slice along the axes ``avoid`` on its own (a softmax
    or a normalisation over those axes) and returns an array of ``x``'s shape: cut along another axis
    of a large ``x``, each part's result written into one array of ``dtype``. None where it does not
    split (the caller computes ``fn(x)`` itself). Every element comes from the same computation on its
    own slice, so the values do not depend on the split (reductions inside ``fn`` keep their order: a
    part keeps each axis at least two long)."""
    if x.size < 2 * grain or type(x) is not np.ndarray or not x.flags.c_contiguous or not _can_split():
        return None  # (see reduce: C order; a meta tensor's data-less array has nothing to split)
    axis = split_axis(x.shape, x.size, grain, avoid=tuple(a % x.ndim for a in avoid))
    if axis is None:
        return None
    out = np.empty(x.shape, dtype)

    def body(start, stop):
        idx = _index(axis, start, stop)
        out[idx] = fn(x[idx])

    run(body, _parts_along(x.shape[axis], x.size, grain))
    return out


def reduce(fn, x: np.ndarray, axis, keepdims: bool = False, out: np.ndarray | None = None,
           grain: int = ELEMENTWISE_GRAIN) -> np.ndarray:
    """``fn(x, axis=axis, keepdims=keepdims)`` (``np.add.reduce``, ``np.maximum.reduce``...; ``axis`` an
    int or a tuple), cut along an axis that is not reduced; the result is written to ``out`` (of the
    result's shape and ``x``'s dtype) or a new array. Each output element is reduced by the same loop in
    the same order as on one thread: ``x`` is C-contiguous (numpy orders and merges a strided array's
    axes by their strides, and a part of a view can merge differently), a part keeps every axis at least
    two long (numpy drops length-1 axes, which could move the reduced axis into the inner loop and
    change its summation), and nothing casts (numpy's buffered casting loops cut at buffer boundaries
    that a split would move). Anything else runs on one thread."""
    axes = tuple(a % x.ndim for a in ((axis,) if isinstance(axis, int) else axis))
    split = None
    if (type(x) is np.ndarray and _can_split() and (out is None or out.dtype == x.dtype) and x.dtype.kind in "fc"
            and x.flags.c_contiguous):
        split = split_axis(x.shape, x.size, grain, avoid=axes)
    if split is None:
        if out is None:
            return fn(x, axis=axes, keepdims=keepdims)
        fn(x, axis=axes, keepdims=keepdims, out=out)
        return out
    if out is None:
        shape = tuple(1 if i in axes else n for i, n in enumerate(x.shape)) if keepdims else \
            tuple(n for i, n in enumerate(x.shape) if i not in axes)
        out = np.empty(shape, x.dtype)
    out_axis = split if keepdims else split - sum(1 for a in axes if a < split)

    def body(start, stop):
        fn(x[_index(split, start, stop)], axis=axes, keepdims=keepdims, out=out[_index(out_axis, start, stop)])

    run(body, _parts_along(x.shape[split], x.size, grain))
    return out
