"""PyTorch's own GEMMs, the optional ``[mkl]`` extra: Intel MKL (the release PyTorch's CPU wheel links), called
through ctypes the way ATen's CPU kernels call it, so that each float32/float64 product is PyTorch's bit for
bit (numpy's OpenBLAS rounds many shapes differently, and training amplifies the last bit).

What "the way ATen calls it" means, per op (ATen's ``LinearAlgebra.cpp`` and ``CPUBlas.cpp``):

- ``mm`` / ``addmm`` (and ``linear``, which is ``addmm(bias, x, W.t())``): the result is taken as a
  column-major matrix, or as the transpose of one with the operands swapped; each operand is passed as it is
  laid out (transposed or not, its leading dimension from its strides) or copied to a contiguous matrix when
  neither layout fits. With a bias the result is first filled with it and the GEMM adds its product with
  beta = 1 (so the bias is added inside MKL's kernel, as PyTorch's addmm adds it). Degenerate sizes get
  BLAS's normalised leading dimensions (``normalize_last_dims``).
- ``bmm`` / ``baddbmm``: below 400 multiply-adds per matrix a plain loop (a sum in order over the inner
  dimension, one rounding per multiply and per add); batches of contiguous or transposed matrices one
  ``cblas_?gemm_batch`` call; anything else one addmm per matrix.
- ``matmul``: its steps (ATen's folds: a >= 3-d operand against a matrix folded into rows for one ``mm`` when
  the fold is a view or the smaller operand requires grad, else both broadcast and flattened into one ``bmm``)
  are the op's own (``matmul._np_matmul``); each of its products is one ``dot`` / ``mv`` / ``mm`` / ``bmm`` here.

MKL runs on GNU OpenMP (its GNU threading layer), as in PyTorch's wheel: Intel's OpenMP runtime splits some
GEMMs across threads with other floats. Its thread count follows ``tinytorch.set_num_threads``. Nothing here
is imported by ``import tinytorch``: the first GEMM looks for the library (``libmkl_rt.so.2`` of the ``mkl``
wheel, in this environment's ``lib/``), and a missing or failing MKL leaves every product on numpy,
silently. ``TINYTORCH_NO_MKL=1`` keeps numpy's products even where MKL is installed."""
from __future__ import annotations

import os
import sys
from ctypes import c_void_p as _VOID

import numpy as np

from .._quiet_fp import loud, quiet, silent
from .._ops._kernels import compiled as _compiled, parallel

__all__ = ["gemms", "describe", "set_threads", "mm", "addmm", "bmm", "baddbmm", "product"]

_F32, _F64 = np.dtype(np.float32), np.dtype(np.float64)
FLOATS = frozenset((_F32, _F64))  # the dtypes MKL computes here (complex, half and the rest stay numpy's)
_COL, _N, _T = 102, 111, 112  # CBLAS's column-major layout, no-transpose, transpose
_GNU, _SEQUENTIAL = 3, 1  # MKL's threading layers
_SMALL_BMM = 400  # ATen runs bmm/baddbmm of fewer multiply-adds per matrix as a plain loop
_state: dict | None = None  # the loaded library's functions; None: not looked for yet
missing = False  # looked for, and not there (or not working, or switched off): the paths skip the hook then


def _candidates() -> list:
    """Where the ``mkl`` wheel puts ``libmkl_rt.so.2``: the ``lib/`` of this environment's prefix (a venv's,
    the interpreter's, or the user scheme's)."""
    import site

    roots = [sys.prefix, sys.base_prefix, getattr(site, "USER_BASE", None) or ""]
    out = []
    for root in roots:
        path = os.path.join(root, "lib", "libmkl_rt.so.2")
        if root and path not in out and os.path.exists(path):
            out.append(path)
    return out


def _load_gomp(ctypes) -> bool:
    """Loads GNU OpenMP (``libgomp.so.1``, which MKL's GNU threading layer needs loaded); False where it is not there.

    Its waiting threads spin only briefly (``GOMP_SPINCOUNT=1000``, a few microseconds) unless the user chose a
    policy or the library was already loaded. By default they spin for 300,000 rounds after each parallel region,
    and here the work between two GEMMs (numpy's OpenBLAS threads, tinytorch's pool) needs those cores; asleep at
    once (``OMP_WAIT_POLICY=PASSIVE``), each of a run of small GEMMs pays for waking them. On a 2-core AMD EPYC at
    2 threads, wall time a step: the nn.LSTM benchmark 17-23 ms by default, 7.4 ms either way (6.8-7.0 ms without
    MKL); the makemore MLP 0.9-1.7 ms by default, 1.3-1.8 ms at 1000, 3.5-4.6 ms passive (0.83 ms without MKL).
    PyTorch runs all of its parallel work on one OpenMP pool, so its spinning threads find their next region
    instead. libgomp reads the count once, as it loads: the variable is set for that moment only, and child
    processes do not inherit it."""
    try:
        with open("/proc/self/maps") as f:
            loaded = "libgomp.so.1" in f.read()
    except OSError:
        loaded = True  # (unknown: leave the environment alone)
    ours = not loaded and not any(k in os.environ for k in ("OMP_WAIT_POLICY", "GOMP_SPINCOUNT"))
    if ours:
        os.environ["GOMP_SPINCOUNT"] = "1000"
    try:
        ctypes.CDLL("libgomp.so.1", mode=ctypes.RTLD_GLOBAL)
        return True
    except OSError:
        return False
    finally:
        if ours:
            del os.environ["GOMP_SPINCOUNT"]


def _load() -> dict | None:
    import ctypes

    for path in _candidates():
        gnu = _load_gomp(ctypes)
        if not os.path.exists(os.path.join(os.path.dirname(path), "libmkl_gnu_thread.so.2")):
            gnu = False
        try:
            lib = ctypes.CDLL(path)
        except OSError:
            continue
        set_layer = lib.MKL_Set_Threading_Layer
        set_layer.argtypes, set_layer.restype = [ctypes.c_int], ctypes.c_int
        # one layer for the process, chosen before the first call: GNU OpenMP as PyTorch's wheel has it (without
        # libgomp, sequential: PyTorch's floats on one thread)
        if set_layer(_GNU if gnu else _SEQUENTIAL) < 0:
            continue
        real = {_F32: ctypes.c_float, _F64: ctypes.c_double}
        fns = {}
        for dt, c in (("s", _F32), ("d", _F64)):
            # no argtypes: ctypes's conversions of 14 declared arguments cost ~5 us a call, more than a small
            # GEMM; the calls pass Python ints (C ints), ctypes pointers and ctypes reals themselves
            gemm = getattr(lib, f"cblas_{dt}gemm")
            gemm.restype = None
            batch = getattr(lib, f"cblas_{dt}gemm_batch")
            batch.restype = None
            gemv = getattr(lib, f"cblas_{dt}gemv")
            gemv.restype = None
            dot = getattr(lib, f"cblas_{dt}dot")
            dot.restype = real[c]
            fns[c] = (gemm, batch, gemv, dot, real[c])
        set_threads_fn = lib.MKL_Set_Num_Threads
        set_threads_fn.argtypes, set_threads_fn.restype = [ctypes.c_int], None
        set_dynamic = lib.MKL_Set_Dynamic
        set_dynamic.argtypes, set_dynamic.restype = [ctypes.c_int], None
        buf = ctypes.create_string_buffer(256)
        lib.MKL_Get_Version_String(buf, 256)
        words = buf.value.decode(errors="replace").split()
        version = next((w for w in words if w[:1].isdigit()), "?").split("-")[0]
        state = {"lib": lib, "fns": fns, "set_threads": set_threads_fn, "version": version, "path": path,
                 "layer": "GNU OpenMP" if gnu else "sequential", "threads": 1,
                 "set_dynamic": set_dynamic}
        if not _self_check(state):
            continue
        return state
    return None


def _self_check(state: dict) -> bool:
    """A few products against float64 sums: a library that loads but computes nonsense is not used."""
    rng = np.random.default_rng(1)
    global _state
    saved, _state = _state, state
    try:
        for dt in (_F32, _F64):
            a = rng.standard_normal((37, 19)).astype(dt)
            b = rng.standard_normal((19, 23)).astype(dt)
            want = a.astype(np.float64) @ b.astype(np.float64)
            for got in (mm(a, b), mm(a.T.copy().T, b), bmm(a[None].repeat(3, 0), b[None].repeat(3, 0))[2]):
                if not np.allclose(got, want, rtol=1e-4, atol=1e-4):
                    return False
        return True
    except Exception:  # noqa: BLE001 - any failure: not used
        return False
    finally:
        _state = saved


def gemms():
    """This module, with MKL loaded (on the first call), or None where MKL is missing, failing or switched off
    (``TINYTORCH_NO_MKL=1``): the hook through which the ops' float32/float64 products reach MKL."""
    if _state is not None:
        return _MODULE
    if missing:
        return None
    return _first_use()


def _first_use():
    global _state, missing, _data_at
    if os.environ.get("TINYTORCH_NO_MKL", "") not in ("", "0"):
        missing = True
        return None
    try:
        state = _load()
    except Exception:  # noqa: BLE001 - a broken install leaves numpy's products
        state = None
    if state is None:
        missing = True
        return None
    _state = state
    _data_at = _data_field_offset()
    if parallel.threads_set:
        set_threads(parallel.get_num_threads())
    else:  # MKL's own default: its dynamic count on, as in PyTorch until set_num_threads runs
        state["set_threads"](parallel.get_num_threads())
        state["threads"] = parallel.get_num_threads()
    parallel.on_set_num_threads(set_threads)
    return _MODULE


def set_threads(n: int) -> None:
    """MKL's thread count, as PyTorch's ``set_num_threads`` sets it: ``n`` threads, MKL's dynamic count off (so
    MKL splits each GEMM as PyTorch's does, not fewer threads where it judges a product small)."""
    if _state is not None:
        _state["set_threads"](int(n))
        _state["set_dynamic"](0)
        _state["threads"] = int(n)


def describe() -> str | None:
    """"MKL 2024.2 (GNU OpenMP, 2 threads)" where MKL runs the GEMMs, else None."""
    if gemms() is None:
        return None
    t = _state["threads"]
    return f"MKL {_state['version']} ({_state['layer']}, {t} thread{'' if t == 1 else 's'})"


# -- ATen's BLAS calls -----------------------------------------------------------------------------------
def _strides(a: np.ndarray) -> tuple | None:
    """``a``'s strides in elements, or None where they are not whole elements or negative (ATen never has
    those: such an operand is copied)."""
    size = a.itemsize
    out = []
    for s in a.strides:
        q = s // size
        if q < 0 or q * size != s:
            return None
        out.append(q)
    return tuple(out)


def _strides2(a: np.ndarray) -> tuple | None:
    """``_strides`` of a matrix, unrolled (it runs three times a GEMM)."""
    size = a.itemsize
    s0, s1 = a.strides
    q0, q1 = s0 // size, s1 // size
    if q0 < 0 or q1 < 0 or q0 * size != s0 or q1 * size != s1:
        return None
    return q0, q1


def _normal_lds(ta: bool, tb: bool, m: int, n: int, k: int, lda: int, ldb: int, ldc: int) -> tuple:
    """BLAS's normalisation of the leading dimensions of degenerate sizes (``normalize_last_dims``): a dimension
    of one row or column takes the size it would have contiguous."""
    if n == 1:
        ldc = m
    if ta:
        if m == 1:
            lda = k
    elif k == 1:
        lda = m
    if tb:
        if k == 1:
            ldb = n
    elif n == 1:
        ldb = k
    return lda, ldb, ldc


def _gemm(ta: bool, tb: bool, m: int, n: int, k: int, alpha, a: int, lda: int, b: int, ldb: int, beta, c, ldc: int):
    """``cpublas::gemm``: column-major C = alpha op(A) op(B) + beta C on data addresses, after BLAS's
    normalisation of the leading dimensions of degenerate sizes."""
    lda, ldb, ldc = _normal_lds(ta, tb, m, n, k, lda, ldb, ldc)
    gemm, real = _state["fns"][c.dtype][::4]
    gemm(_COL, _T if ta else _N, _T if tb else _N, m, n, k, real(alpha), _VOID(a), lda, _VOID(b), ldb, real(beta),
         _arg(c), ldc)


def _data_field_offset() -> int | None:
    """Where an ndarray's data address lies from the start of its object, so that a GEMM reads it without
    building the array's ``.ctypes`` object (~1 us, three a GEMM): numpy's array struct opens with its ``data``
    field, right after the object header, and CPython's ``id`` is where the object lies. Checked on a few
    arrays against ``.ctypes.data``; None where that does not hold (another interpreter or layout)."""
    offset = object.__basicsize__  # the object header: reference count and type (more on free-threaded builds)
    probe = np.arange(12.0).reshape(3, 4)
    for a in (probe, probe.T, probe[1:, 2:], probe[::-1], np.empty(0, np.float32)):
        if _VOID.from_address(id(a) + offset).value != a.ctypes.data:
            return None
    return offset


_data_at = None  # _data_field_offset(), once MKL is loaded


def _ptr(a: np.ndarray) -> int:
    """``a``'s data address (read from the struct for a plain ndarray only)."""
    if _data_at is not None and type(a) is np.ndarray:
        return _VOID.from_address(id(a) + _data_at).value
    return a.ctypes.data


def _arg(a: np.ndarray) -> _VOID:
    """``a``'s data address as a call's argument: for a plain ndarray the struct's field itself, which ctypes
    reads when the call is made (``a`` lives through the call in the caller's hands)."""
    if _data_at is not None and type(a) is np.ndarray:
        return _VOID.from_address(id(a) + _data_at)
    return _VOID(a.ctypes.data)


def _addmm_into(c: np.ndarray, m1: np.ndarray, m2: np.ndarray, beta, alpha) -> None:
    """ATen's ``addmm_impl_cpu_`` on a C-contiguous 2-d ``c`` that holds the input to add (when beta is not 0):
    c = beta c + alpha m1 m2, with PyTorch's choice of transposes, leading dimensions and copies."""
    rows, cols = c.shape
    if rows == 0 or cols == 0:
        return
    k_all = m1.shape[1]
    if k_all == 0:
        if beta == 0:
            c.fill(0)
        else:
            token = quiet()  # (an overflow to inf silently, as PyTorch's)
            try:
                c *= c.dtype.type(beta)
            finally:
                loud(token)
        return
    if cols > 1 and k_all > 1 and c.strides == (cols * c.itemsize, c.itemsize):
        # the common layouts, decided as the general path below decides them, without working out strides
        # (half of this function's time): no size of 1 but the rows, each operand C-contiguous or the
        # transpose of one, or one row of adjacent elements
        tb = _plain(m1, rows, k_all)
        if tb is not None:
            ta = _plain(m2, k_all, cols)
            if ta is not None:
                gemm, real = _state["fns"][c.dtype][::4]
                gemm(_COL, _T if ta else _N, _T if tb else _N, cols, rows, k_all, real(alpha), _arg(m2),
                     k_all if ta else cols, _arg(m1), rows if tb else k_all, real(beta), _arg(c), cols)
                return
    cs = _strides2(c)
    s1, s2 = _strides2(m1), _strides2(m2)
    if s1 is None:
        m1 = np.ascontiguousarray(m1)
        s1 = _strides2(m1)
    if s2 is None:
        m2 = np.ascontiguousarray(m2)
        s2 = _strides2(m2)
    if cs[0] == 1 and (cols == 1 or cs[1] >= max(1, rows)):
        tc = False
    else:  # C-contiguous: the transposed problem C^T = m2^T m1^T in column-major terms
        tc = True
        m1, m2, s1, s2 = m2, m1, s2, s1
    m = cols if tc else rows
    n = rows if tc else cols
    k = m1.shape[0] if tc else m1.shape[1]
    i0, i1 = (1, 0) if tc else (0, 1)
    if s1[i0] == 1 and s1[i1] >= max(1, m):
        ta = False
    elif s1[i1] == 1 and s1[i0] >= max(1, k):
        ta = True
    else:
        ta = not tc
        m1 = np.ascontiguousarray(m1)
        s1 = _strides2(m1)
    if s2[i0] == 1 and s2[i1] >= max(1, k):
        tb = False
    elif s2[i1] == 1 and s2[i0] >= max(1, n):
        tb = True
    else:
        tb = not tc
        m2 = np.ascontiguousarray(m2)
        s2 = _strides2(m2)
    lda = s1[1 if ta == tc else 0]
    ldb = s2[1 if tb == tc else 0]
    ldc = cs[0 if tc else 1]
    _gemm(ta, tb, m, n, k, alpha, _ptr(m1), lda, _ptr(m2), ldb, beta, c, ldc)


def _plain(a: np.ndarray, rows: int, cols: int) -> bool | None:
    """For ``_addmm_into``'s fast path, with ``cols`` > 1: False where ``a`` is C-contiguous (rows > 1) or one
    row of adjacent elements, True where it is the transpose of a C-contiguous matrix (rows > 1), None
    otherwise (a one-row ``a`` that is not C-contiguous; the general path decides it)."""
    if rows > 1:
        flags = a.flags
        return False if flags.c_contiguous else True if flags.f_contiguous else None
    size = a.itemsize
    return False if a.strides[1] == size and a.strides[0] >= cols * size else None


def mm(a: np.ndarray, b: np.ndarray) -> np.ndarray:
    """``torch.mm`` of two 2-d arrays of one float dtype: a new C-contiguous result."""
    out = np.empty((a.shape[0], b.shape[1]), a.dtype)
    if a.shape[1] == 1 and out.shape[0] > 1 and out.shape[1] > 1 and type(a) is np.ndarray \
            and type(b) is np.ndarray:
        # an inner dimension of 1 (a batch of one's weight gradient): MKL's GEMM writes each element as the one
        # rounded product a[i] * b[j] (signed zeros, infinities and NaNs as the multiply gives them), which the
        # compiled outer product writes too, 1.6x faster on AMD Zen 4 (a row or a column of one is another
        # MKL kernel, whose zeroed accumulator turns -0.0 into +0.0: that stays MKL's)
        outer = _compiled.family("outer")
        if outer is not None:
            outer.outer_into(np.ascontiguousarray(a[:, 0]), np.ascontiguousarray(b[0]), out)
            return out
    _addmm_into(out, a, b, 0.0, 1.0)
    return out


def addmm(inp: np.ndarray, a: np.ndarray, b: np.ndarray, beta=1, alpha=1) -> np.ndarray:
    """``torch.addmm``: beta inp + alpha (a b), ``inp`` broadcast to the result (filled in first, the product
    added by the GEMM with beta)."""
    out = np.empty((a.shape[0], b.shape[1]), a.dtype)
    if beta != 0:
        np.copyto(out, inp, casting="unsafe")
    _addmm_into(out, a, b, beta, alpha)
    return out


def _small_bmm(c: np.ndarray, a: np.ndarray, b: np.ndarray, beta, alpha, is_bmm: bool) -> None:
    """ATen's ``baddbmm_cpu_kernel``: each element a sum in order over k from 0, one rounding per product and
    per addition; then beta c + alpha sum."""
    dt = c.dtype.type
    acc = np.zeros(c.shape, c.dtype)
    for k in range(a.shape[2]):
        acc += a[:, :, k, None] * b[:, None, k, :]
    if is_bmm:
        c[...] = acc
    elif beta == 0:
        np.multiply(acc, dt(alpha), out=c)
    else:
        np.add(c * dt(beta), acc * dt(alpha), out=c)


def _contiguous_or_transposed(s: tuple, shape: tuple) -> bool:
    return (s[2] == 1 and (shape[1] == 1 or s[1] >= shape[2])) or (s[1] == 1 and (shape[2] == 1 or s[2] >= shape[1]))


@silent
def _baddbmm_into(c: np.ndarray, a: np.ndarray, b: np.ndarray, beta, alpha, is_bmm: bool) -> None:
    """ATen's ``bmm_out_or_baddbmm_`` on a C-contiguous 3-d ``c`` (holding the input to add, for baddbmm)."""
    bs, rows, k = a.shape
    cols = b.shape[2]
    if c.size == 0:
        return
    if k == 0:
        if is_bmm or beta == 0:
            c.fill(0)
        else:
            c *= c.dtype.type(beta)
        return
    if k * rows * cols < _SMALL_BMM:
        _small_bmm(c, a, b, beta, alpha, is_bmm)
        return
    sa, sb = _strides(a), _strides(b)
    if sa is None:
        a = np.ascontiguousarray(a)
        sa = _strides(a)
    if sb is None:
        b = np.ascontiguousarray(b)
        sb = _strides(b)
    if _contiguous_or_transposed(sa, a.shape) and _contiguous_or_transposed(sb, b.shape):
        # baddbmm_with_gemm_: C^T = B^T A^T per matrix, column-major
        ta = sb[1] == 1 and sb[2] >= b.shape[1]
        tb = sa[1] == 1 and sa[2] >= a.shape[1]
        m, n = cols, rows
        lda = sb[2 if ta else 1]
        ldb = sa[2 if tb else 1]
        ldc = cols
        if bs == 1:
            _gemm(ta, tb, m, n, k, alpha, _ptr(b), lda, _ptr(a), ldb, beta, c, ldc)
            return
        lda, ldb, ldc = _normal_lds(ta, tb, m, n, k, lda, ldb, ldc)
        if lda >= max(1, k if ta else m) and ldb >= max(1, n if tb else k) and ldc >= max(1, m):
            _gemm_batch(ta, tb, bs, m, n, k, alpha, b, sb[0], lda, a, sa[0], ldb, beta, c, ldc)
            return
        for i in range(bs):
            _gemm(ta, tb, m, n, k, alpha, _ptr(b) + i * sb[0] * b.itemsize, lda, _ptr(a) + i * sa[0] * a.itemsize,
                  ldb, beta, c[i], ldc)
        return
    for i in range(bs):  # one addmm per matrix
        _addmm_into(c[i], a[i], b[i], 0.0 if is_bmm else beta, 1.0 if is_bmm else alpha)


def _gemm_batch(ta, tb, bs, m, n, k, alpha, a, stride_a, lda, b, stride_b, ldb, beta, c, ldc) -> None:
    """MKL's grouped batch GEMM, one group of ``bs`` column-major products (``mkl_gemm_batched``)."""
    batch = _state["fns"][c.dtype][1]
    size = c.itemsize
    ptrs = np.empty((3, bs), np.uintp)
    step = np.arange(bs, dtype=np.uintp)
    ptrs[0] = _ptr(a) + step * np.uintp(stride_a * size)
    ptrs[1] = _ptr(b) + step * np.uintp(stride_b * size)
    ptrs[2] = _ptr(c) + step * np.uintp(m * n * size)
    ints = np.array([_T if ta else _N, _T if tb else _N, m, n, k, lda, ldb, ldc, bs], np.intc)
    scal = np.array([alpha, beta], c.dtype)
    at = _ptr(ints)
    arg = [_VOID(at + i * ints.itemsize) for i in range(9)]  # transa, transb, m, n, k, lda, ldb, ldc, group size
    scal_at, ptrs_at, row = _ptr(scal), _ptr(ptrs), bs * ptrs.itemsize
    batch(_COL, arg[0], arg[1], arg[2], arg[3], arg[4], _VOID(scal_at), _VOID(ptrs_at), arg[5], _VOID(ptrs_at + row),
          arg[6], _VOID(scal_at + scal.itemsize), _VOID(ptrs_at + 2 * row), arg[7], 1, arg[8])


def bmm(a: np.ndarray, b: np.ndarray) -> np.ndarray:
    """``torch.bmm`` of two 3-d arrays of one float dtype: a new C-contiguous result."""
    out = np.empty((a.shape[0], a.shape[1], b.shape[2]), a.dtype)
    _baddbmm_into(out, a, b, 0.0, 1.0, True)
    return out


def baddbmm(inp: np.ndarray, a: np.ndarray, b: np.ndarray, beta=1, alpha=1) -> np.ndarray:
    """``torch.baddbmm``: beta inp + alpha (a b), batch by batch, ``inp`` broadcast to the result."""
    out = np.empty((a.shape[0], a.shape[1], b.shape[2]), a.dtype)
    if beta != 0:
        np.copyto(out, inp, casting="unsafe")
    _baddbmm_into(out, a, b, beta, alpha, False)
    return out


def mv(a: np.ndarray, v: np.ndarray) -> np.ndarray:
    """``torch.mv``: ATen's ``addmv`` with beta 0: ``?gemv`` on the matrix as it is laid out (column-major,
    or row-major as a transposed one), a copy otherwise."""
    rows, cols = a.shape
    out = np.zeros(rows, a.dtype)
    if rows == 0 or cols == 0:
        return out
    sa, sv = _strides(a), _strides(v)
    if sa is None:
        a = np.ascontiguousarray(a)
        sa = _strides(a)
    if sv is None or sv[0] == 0:
        v = np.ascontiguousarray(v)
        sv = _strides(v)
    gemv, real = _state["fns"][a.dtype][2::2]
    if sa[0] == 1 and (cols == 1 or sa[1] >= max(1, rows)):
        trans, m, n, lda = _N, rows, cols, sa[1]
    elif sa[1] == 1 and (rows == 1 or sa[0] >= max(1, cols)):
        trans, m, n, lda = _T, cols, rows, sa[0]
    else:
        a = np.ascontiguousarray(a)
        trans, m, n, lda = _T, cols, rows, cols
    if n == 1:
        lda = m
    lda = max(lda, 1, m)
    gemv(_COL, trans, m, n, real(1.0), _arg(a), lda, _arg(v), max(sv[0], 1), real(0.0), _arg(out), 1)
    return out


def dot(a: np.ndarray, b: np.ndarray) -> np.ndarray:
    """``torch.dot``: ``?dot`` on the two vectors as they are strided."""
    sa, sb = _strides(a), _strides(b)
    if sa is None or a.shape[0] == 1:
        a = np.ascontiguousarray(a)
        sa = (1,)
    if sb is None or b.shape[0] == 1:
        b = np.ascontiguousarray(b)
        sb = (1,)
    fn = _state["fns"][a.dtype][3]
    return np.array(fn(a.shape[0], _arg(a), sa[0], _arg(b), sb[0]), a.dtype)


def product(a: np.ndarray, b: np.ndarray) -> np.ndarray:
    """One product of ``torch.matmul``'s steps (``matmul._np_matmul`` folds the rest, as ATen's ``_matmul_impl``)
    for float32/float64 operands of one dtype whose shapes the caller has checked: dot, mv, mm or bmm."""
    if a.ndim == 1:
        return dot(a, b)
    if b.ndim == 1:
        return mv(a, b)
    return mm(a, b) if a.ndim == 2 else bmm(a, b)


_MODULE = sys.modules[__name__]
