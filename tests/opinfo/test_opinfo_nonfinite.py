"""PyTorch's op_db with inf, -inf and NaN in the inputs: PyTorch computes the non-finite values its formulas
give, silently; tinytorch must give the same values and gradients, and numpy's floating-point warnings
("invalid value encountered in ...", "divide by zero", "overflow") must not reach the caller.

``tests/nn/test_nn_nonfinite.py`` checks some fifty cases by hand; this sweeps the long tail. For every op_db
entry tinytorch has, the first ``SAMPLES`` float32 samples of the OpInfo walk (``_opinfo.py``) are taken, and
the first floating-point tensor among the sample's arguments is poisoned at fixed positions (``_POISON``). Each
poisoned sample then goes through the walk's own comparison (``_opinfo.compare_sample``): forward values,
and input gradients for a random cotangent where the walk checks gradients, with ``assert_close``'s
``equal_nan=True`` (NaN where PyTorch has NaN, +inf and -inf exactly where PyTorch has them, finite values
close), and a numpy RuntimeWarning raised inside tinytorch turned into an error (a "raises RuntimeWarning"
verdict). Samples the finite walk already knows to differ (``opinfo_known.py``) are left out, so what
fails here is about the non-finite values.

Differences that are not failures of this test are listed in ``NONFINITE_KNOWN`` with one reason each; a
listed row that matches here is reported, not failed (``_known_rows.py``). Rows whose PyTorch result depends on the
CPU path (``ATEN_CPU_CAPABILITY=default|avx2|avx512``) are in ``NONFINITE_EITHER``: they may match or differ.
``python tests/opinfo/test_opinfo_nonfinite.py [SUBSTRING ...]`` prints every difference found."""
from __future__ import annotations

import os
import sys

import numpy as np
import pytest

torch = pytest.importorskip("torch")
pytest.importorskip("expecttest")  # torch.testing._internal needs it
from torch.testing._internal.common_methods_invocations import op_db  # noqa: E402
from torch.testing._internal.opinfo.core import SampleInput  # noqa: E402

sys.path.insert(0, os.path.dirname(os.path.dirname(os.path.abspath(__file__))))
import _known_rows  # noqa: E402
import _opinfo  # noqa: E402
from opinfo_known import KNOWN, PATH_DEPENDENT  # noqa: E402

ENTRIES = [o for o in op_db if not o.name.startswith("_")]
# the first samples of each entry: enough to reach every op's kernel, few enough for a run of seconds
SAMPLES = 2
DTYPES = ("float32",)
# flat positions of the first floating-point tensor and the values put there: "inf" holds both signs (so
# sums meet inf - inf), "nan" one NaN; positions past the tensor's end are left alone
_POISON = {"inf": ((0, np.inf), ("half", -np.inf)), "nan": (("third", np.nan),)}


# -- poisoning a sample ------------------------------------------------------------------------------------
def _positions(n: int, where) -> int | None:
    pos = {"half": n // 2, "third": n // 3}.get(where, where)
    return pos if n and pos < n else None


def _poisoned_tensor(x, kind: str):
    """A new leaf with ``x``'s sizes, strides and storage offset into a copy of its storage (the as_strided
    family counts from the storage's start), holding ``x``'s values with the poison written in."""
    storage = x.untyped_storage().nbytes() // x.element_size()
    with torch.no_grad():
        whole = torch.as_strided(x.detach(), (storage,), (1,), 0).clone()
        y = whole.as_strided(tuple(x.shape), x.stride(), x.storage_offset())
        flat = y.reshape(-1) if y.is_contiguous() else None
        for where, value in _POISON[kind]:
            pos = _positions(y.numel(), where)
            if pos is None:
                continue
            if flat is not None:
                flat[pos] = value
            else:
                y[np.unravel_index(pos, tuple(y.shape))] = value
    return y.requires_grad_(x.requires_grad)


def _first_float(value, torch):
    """The first floating-point tensor in ``value`` (depth first), or None."""
    if isinstance(value, torch.Tensor):
        return value if value.dtype.is_floating_point and value.layout == torch.strided and value.numel() else None
    if isinstance(value, (list, tuple)):
        items = value
    elif isinstance(value, dict):
        items = value.values()
    else:
        return None
    for v in items:
        found = _first_float(v, torch)
        if found is not None:
            return found
    return None


def _replace(value, old, new):
    if value is old:
        return new
    if isinstance(value, list):
        return [_replace(v, old, new) for v in value]
    if isinstance(value, tuple):
        items = [_replace(v, old, new) for v in value]
        return type(value)(*items) if hasattr(value, "_fields") else tuple(items)
    if isinstance(value, dict):
        return {k: _replace(v, old, new) for k, v in value.items()}
    return value


def poisoned(sample, kind: str):
    """``sample`` with its first floating-point tensor replaced by a poisoned copy (every place the same
    tensor object appears gets the same copy), or None when it has no floating-point tensor."""
    target = _first_float((sample.input, sample.args, sample.kwargs), torch)
    if target is None:
        return None
    new = _poisoned_tensor(target, kind)
    return SampleInput(_replace(sample.input, target, new), args=_replace(sample.args, target, new),
                       kwargs=_replace(sample.kwargs, target, new),
                       output_process_fn_grad=sample.output_process_fn_grad,
                       broadcasts_input=sample.broadcasts_input, name=sample.name)


# -- the sweep ---------------------------------------------------------------------------------------------
def sweep_entry(opinfo) -> dict | None:
    """{"float32:0:inf:fwd": verdict} for every poisoned sample (not "ok" only), or None when tinytorch
    lacks the entry. Samples whose finite values already differ (opinfo_known.py) are left out, and so is
    the backward of one whose finite gradients differ."""
    tt_op = _opinfo.tinytorch_op(opinfo, torch)
    if tt_op is None or opinfo.name in _opinfo.CPU_REFUSED:
        return None
    key = _opinfo.entry_id(opinfo)
    known = {**KNOWN.get(key, {}), **PATH_DEPENDENT.get(key, {})}
    out, ran = {}, False
    for dt in DTYPES:
        torch.manual_seed(0)
        backward = _opinfo._differentiable(opinfo, dt, torch)
        for i, sample in enumerate(_opinfo.samples(opinfo, torch, dt, SAMPLES)):
            if f"{dt}:{i}:fwd" in known:
                continue
            for kind in _POISON:
                s = poisoned(sample, kind)
                if s is None:
                    continue
                fwd, bwd = _opinfo.compare_sample(opinfo, tt_op, s, torch,
                                                  backward=backward and f"{dt}:{i}:bwd" not in known)
                if fwd == "absent":
                    continue
                ran = True
                out[f"{dt}:{i}:{kind}:fwd"] = fwd
                if bwd is not None:
                    out[f"{dt}:{i}:{kind}:bwd"] = bwd
    return out if ran else None


def _differences(result: dict) -> dict:
    return {k: v for k, v in result.items() if v not in ("ok", "skip")}


# -- known differences -------------------------------------------------------------------------------------
# entry -> (reason, rows): rows of the sweep where tinytorch's values differ from PyTorch's on every CPU path
# (ATEN_CPU_CAPABILITY default, avx2 and avx512 walked). A listed row that matches here is reported
# (tests/_known_rows.py). No row here is a leaked warning.
_LAPACK = ("LAPACK on a matrix holding inf or NaN: MKL's (PyTorch) and OpenBLAS's (numpy) results past the first "
           "non-finite entry are implementation-defined")
_POLY_NAN = ("x = NaN (n >= 2): PyTorch's recurrence loop stops on isnan(q) before its first step and returns its "
             "uninitialised result variable (the previous element's value here; other garbage, e.g. -8e15 or 6e-40, "
             "elsewhere and on other CPU paths): undefined behaviour, not a value to reproduce; tinytorch gives NaN")
_FFT = ("an inf in a transform: numpy's pocketfft and PyTorch's FFT put NaN and inf in different bins (not traced "
        "further)")

NONFINITE_KNOWN = {
    'fft.fft': (_FFT,
        ('float32:0:inf:fwd', 'float32:1:inf:fwd')),
    'fft.fft2': (_FFT,
        ('float32:0:inf:fwd', 'float32:1:inf:fwd')),
    'fft.fftn': (_FFT,
        ('float32:0:inf:fwd', 'float32:1:inf:fwd')),
    'fft.hfft': (_FFT,
        ('float32:0:inf:fwd',)),
    'fft.hfftn': (_FFT,
        ('float32:1:inf:fwd',)),
    'fft.ifft': (_FFT,
        ('float32:0:inf:fwd', 'float32:1:inf:fwd')),
    'fft.ifft2': (_FFT,
        ('float32:0:inf:fwd', 'float32:1:inf:fwd')),
    'fft.ifftn': (_FFT,
        ('float32:0:inf:fwd', 'float32:1:inf:fwd')),
    'fft.ihfft': (_FFT,
        ('float32:0:inf:fwd', 'float32:1:inf:fwd')),
    'fft.ihfft2': (_FFT,
        ('float32:0:inf:fwd', 'float32:1:inf:fwd')),
    'fft.ihfftn': (_FFT,
        ('float32:0:inf:fwd', 'float32:1:inf:fwd')),
    'fft.irfft': (_FFT,
        ('float32:0:inf:fwd',)),
    'fft.rfft': (_FFT,
        ('float32:0:inf:fwd', 'float32:1:inf:fwd')),
    'fft.rfft2': (_FFT,
        ('float32:0:inf:fwd', 'float32:1:inf:fwd')),
    'fft.rfftn': (_FFT,
        ('float32:0:inf:fwd', 'float32:1:inf:fwd')),
    'geqrf': (_LAPACK,
        ('float32:0:inf:fwd', 'float32:1:inf:fwd')),
    'grid_sampler_3d': ('not traced: the 3-d sampler (a composite of tensor ops) on inf and NaN',
        ('float32:1:inf:fwd', 'float32:1:nan:fwd')),
    'linalg.cholesky_ex': (_LAPACK,
        ('float32:0:inf:fwd', 'float32:0:nan:fwd', 'float32:1:inf:fwd')),
    'linalg.det': ("the gradient goes through the SVD (which refuses NaN, as PyTorch's linalg.svd does); PyTorch's det backward uses LU",
        ('float32:1:inf:bwd', 'float32:1:nan:bwd')),
    'linalg.householder_product': (_LAPACK,
        ('float32:0:inf:bwd', 'float32:0:nan:bwd', 'float32:1:inf:fwd', 'float32:1:nan:fwd')),
    'linalg.ldl_factor_ex': (_LAPACK,
        ('float32:1:nan:fwd',)),
    'linalg.lstsq': (_LAPACK,
        ('float32:1:inf:bwd',)),
    'linalg.lstsq.grad_oriented': (_LAPACK,
        ('float32:1:inf:bwd',)),
    'linalg.lu': (_LAPACK,
        ('float32:0:inf:bwd', 'float32:0:nan:fwd', 'float32:1:inf:fwd')),
    'linalg.lu_factor': (_LAPACK,
        ('float32:0:inf:bwd', 'float32:0:nan:fwd', 'float32:1:inf:fwd')),
    'linalg.lu_factor_ex': (_LAPACK,
        ('float32:0:inf:bwd', 'float32:0:nan:fwd', 'float32:1:inf:fwd')),
    'linalg.lu_solve': (_LAPACK,
        ('float32:0:inf:fwd', 'float32:0:nan:fwd', 'float32:1:inf:fwd', 'float32:1:nan:bwd')),
    'linalg.pinv': (_LAPACK,
        ('float32:0:inf:fwd', 'float32:1:inf:fwd')),
    'linalg.pinv.hermitian': (_LAPACK,
        ('float32:0:inf:fwd',)),
    'linalg.qr': (_LAPACK,
        ('float32:0:inf:fwd', 'float32:1:inf:fwd')),
    'linalg.slogdet': (_LAPACK,
        ('float32:1:nan:fwd',)),
    'linalg.svdvals': (_LAPACK,
        ('float32:0:inf:bwd',)),
    'linalg.tensorinv': (_LAPACK,
        ('float32:0:inf:fwd', 'float32:1:inf:fwd')),
    'linalg.tensorsolve': (_LAPACK,
        ('float32:0:inf:fwd', 'float32:1:inf:fwd')),
    'lu': (_LAPACK,
        ('float32:0:inf:bwd', 'float32:0:nan:fwd', 'float32:1:inf:fwd')),
    'lu_solve': (_LAPACK,
        ('float32:0:inf:fwd', 'float32:1:inf:fwd')),
    'nn.functional.scaled_dot_product_attention': ("a score row holding inf or NaN: PyTorch's flash kernel gives it "
                                                   "zero weights while the keys fit one block, NaN past it",
        ('float32:0:inf:fwd', 'float32:0:nan:fwd', 'float32:1:inf:fwd', 'float32:1:nan:fwd')),
    'norm.nuc': (_LAPACK,
        ('float32:0:inf:bwd', 'float32:1:inf:bwd')),
    'ormqr': (_LAPACK,
        ('float32:0:inf:bwd', 'float32:0:nan:bwd', 'float32:1:inf:bwd', 'float32:1:nan:bwd')),
    'pinverse': (_LAPACK,
        ('float32:0:inf:fwd',)),
    'qr': (_LAPACK,
        ('float32:0:inf:fwd', 'float32:1:inf:fwd')),
    'special.chebyshev_polynomial_u': (_POLY_NAN,
        ('float32:1:nan:fwd',)),
    'special.chebyshev_polynomial_w': (_POLY_NAN,
        ('float32:1:nan:fwd',)),
    'special.laguerre_polynomial_l': (_POLY_NAN,
        ('float32:1:nan:fwd',)),
    'special.legendre_polynomial_p': (_POLY_NAN,
        ('float32:1:nan:fwd',)),
    'special.shifted_chebyshev_polynomial_u': (_POLY_NAN,
        ('float32:1:nan:fwd',)),
    'special.shifted_chebyshev_polynomial_w': (_POLY_NAN,
        ('float32:1:nan:fwd',)),
    'stft': (_FFT,
        ('float32:0:inf:fwd', 'float32:1:inf:fwd')),
}

# rows whose PyTorch result depends on the CPU path (ATen's, or oneDNN's for gelu): they may match or differ
_ELU_NAN = ("PyTorch's elu backward at NaN: the linear side's gradient on AVX512, NaN on DEFAULT and AVX2 "
            "(tinytorch's NaN: the AVX2 path it emulates)")
NONFINITE_EITHER = {
    "nn.functional.elu": (_ELU_NAN, ("float32:0:nan:bwd",)),
    "nn.functional.selu": (_ELU_NAN, ("float32:0:nan:bwd",)),
    "nn.functional.celu": (_ELU_NAN, ("float32:0:nan:bwd",)),
    "nn.functional.gelu": ("gelu(+inf): NaN from oneDNN's AVX-512 kernel, inf from its AVX2 one (tinytorch's steps)",
                           ("float32:0:inf:fwd",)),
}
_CACHE: dict = {}


def _sweep(opinfo):
    key = _opinfo.entry_id(opinfo)
    if key not in _CACHE:
        torch.set_num_threads(1)
        _CACHE[key] = sweep_entry(opinfo)
    return _CACHE[key]


@pytest.mark.parametrize("opinfo", ENTRIES, ids=_opinfo.entry_id)
def test_non_finite_samples_silently_as_pytorch(opinfo):
    result = _sweep(opinfo)
    key = _opinfo.entry_id(opinfo)
    if result is None:
        assert key not in NONFINITE_KNOWN, f"{key} is listed but tinytorch does not have it"
        pytest.skip(f"tinytorch has no {key}")
    found = _differences(result)
    known = set(NONFINITE_KNOWN.get(key, ("", ()))[1])
    either = set(NONFINITE_EITHER.get(key, ("", ()))[1])
    _known_rows.judge("NONFINITE_KNOWN (inf/NaN samples that differ from PyTorch, or warn)", key, found, known, either)


def test_sweep_covers_the_op_db():
    """The sweep reaches the entries and compares the rows it was built on (a floor, raised as it grows): a
    change that made the poisoning or the walk skip everything would otherwise pass."""
    results = [r for r in map(_sweep, ENTRIES) if r is not None]
    compared = sum(v != "skip" for r in results for v in r.values())
    assert len(results) >= 600 and compared >= 3800, (len(results), compared)


if __name__ == "__main__":
    import time

    torch.set_num_threads(1)
    only = sys.argv[1:]
    start, n_entries, n_rows, found = time.perf_counter(), 0, 0, {}
    for o in ENTRIES:
        key = _opinfo.entry_id(o)
        if only and not any(s in key for s in only):
            continue
        result = sweep_entry(o)
        if result is None:
            continue
        n_entries += 1
        n_rows += sum(v != "skip" for v in result.values())
        diffs = _differences(result)
        if diffs:
            found[key] = diffs
            for row, why in diffs.items():
                print(f"{key}  {row}  {why}", flush=True)
    print(f"{n_entries} entries, {n_rows} rows compared, {sum(map(len, found.values()))} differences, "
          f"{time.perf_counter() - start:.1f} s")
