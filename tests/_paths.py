"""The CPU kernel paths the oracle (PyTorch) and tinytorch run here, and the comparison the bit-for-bit
tests use.

PyTorch picks its kernels at start, on three independent axes:

- ATen's vectorised kernels: ``torch.backends.cpu.get_cpu_capability()`` (DEFAULT, AVX2, AVX512; forced
  with ``ATEN_CPU_CAPABILITY=default|avx2|avx512``). The AVX2 and AVX512 builds are compiled with FMA, so
  the compiler fuses ``a * b + c`` into one rounding (add with alpha, addcmul, lerp, the random
  kernels' ``from + (to - from) * u``, the SGD/Adam updates...), and PyTorch's own float32 normal
  kernel (Box-Muller on 16 lanes with avx_mathfun's polynomials) exists only there; the DEFAULT build
  rounds twice and draws float32 normals with glibc's logf/cosf/sinf.
- oneDNN's ISA (``ONEDNN_MAX_CPU_ISA``): float32 gelu and oneDNN's convolutions take the polynomial of
  the widest ISA oneDNN may use, whatever ATen's capability is.
- MKL's code path (``MKL_ENABLE_INSTRUCTIONS``): matmul and LAPACK.

tinytorch never looks at PyTorch: it emulates one path where it emulates a kernel (the FMA builds, and
oneDNN's AVX2 gelu). Its own arrays go through numpy's SIMD kernels (``NPY_DISABLE_CPU_FEATURES``
turns targets off; ``tinytorch.backends.cpu.get_cpu_capability()`` says which level runs) and
numpy's OpenBLAS, which picks its own kernel (``OPENBLAS_CORETYPE``).

``assert_bits`` is the one comparison: bit for bit where the oracle runs a path tinytorch emulates
(``exact_on``), and within a stated ulp bound of PyTorch's answer on the other paths; ``assert_drawn``
is it for values drawn from the same seed. The tests that compare bits carry the ``bitexact`` marker,
so a second CPU path or a second numpy is a few minutes' run::

    ATEN_CPU_CAPABILITY=default pytest -m bitexact       # PyTorch's DEFAULT (no FMA) path
    ATEN_CPU_CAPABILITY=avx2 ONEDNN_MAX_CPU_ISA=AVX2 pytest -m bitexact
    NPY_DISABLE_CPU_FEATURES="X86_V4 AVX512_ICL" OPENBLAS_CORETYPE=Haswell pytest -m bitexact
                                                         # tinytorch's numpy and BLAS as on an AVX2 CPU

(numpy 1.x names its AVX-512 targets AVX512F AVX512CD AVX512_SKX ...: ``np.show_runtime()`` lists
them). ``TINYTORCH_ULP_REPORT=FILE`` turns the bounded comparisons into measurements: each appends its
largest distance to FILE and passes (how the bounds in the tests were found)."""
from __future__ import annotations

import functools
import os
import tempfile

import pytest

import numpy as np

# PyTorch's builds whose multiply-adds are fused (and whose float32 normal_ is the 16-lane AVX2 kernel,
# run on AVX-512 machines too): what tinytorch's kernels emulate
FMA_PATHS = ("AVX2", "AVX512")
# oneDNN's AVX2 float32 gelu is the polynomial tinytorch emulates (_ops/_kernels/gelu_onednn.py)
ONEDNN_GELU_PATHS = ("AVX2",)


@functools.cache
def torch_path() -> str:
    """PyTorch's ATen capability, in three words: "DEFAULT", "AVX2" or "AVX512" (AVX512_VNNI, AMX... are
    AVX512's vector kernels; other CPUs keep PyTorch's name)."""
    torch = pytest.importorskip("torch")

    cap = torch.backends.cpu.get_cpu_capability()
    if cap.startswith("AVX512") or cap == "AMX":
        return "AVX512"
    return "DEFAULT" if cap == "NO AVX" else cap


@functools.cache
def onednn_path() -> str | None:
    """The ISA of the kernel oneDNN runs for a float32 gelu here ("AVX512", "AVX2", "SSE41", "REF", or
    None without oneDNN), read from oneDNN's verbose line for one small gelu."""
    torch = pytest.importorskip("torch")

    if not torch.backends.mkldnn.is_available():
        return None
    fd, path = tempfile.mkstemp()
    saved = os.dup(1)
    try:
        os.dup2(fd, 1)  # oneDNN prints from C, to the process's stdout
        with torch.backends.mkldnn.verbose(torch.backends.mkldnn.VERBOSE_ON):
            torch.nn.functional.gelu(torch.ones(64))
    finally:
        os.dup2(saved, 1)
        os.close(saved)
        os.close(fd)
    with open(path) as f:
        text = f.read()
    os.unlink(path)
    for line in text.splitlines():
        if ",exec," in line and "eltwise" in line:
            impl = next((p for p in line.split(",") if p.startswith(("jit:", "ref"))), "ref").lower()
            # AVX10.1/512 CPUs (Granite Rapids) name their 512-bit kernels jit:avx10_1_512...
            for key, name in (("avx512", "AVX512"), ("avx10_1_512", "AVX512"), ("avx2", "AVX2"), ("sse41", "SSE41")):
                if key in impl:
                    return name
            return "REF"
    return None


@functools.cache
def mkl_path() -> str | None:
    """The ISA of the kernels MKL (PyTorch's BLAS on x86: mm, bmm, affine_grid's product) runs here:
    "AVX512", "AVX2", ... as MKL's verbose header names it, or None without MKL or where the header names no
    ISA (MKL on an AMD CPU says only "Intel(R) Architecture processors"). MKL picks them by the
    CPU it finds (MKL_ENABLE_INSTRUCTIONS caps it), not by ATEN_CPU_CAPABILITY."""
    torch = pytest.importorskip("torch")

    if not torch.backends.mkl.is_available():
        return None
    fd, path = tempfile.mkstemp()
    saved = os.dup(1)
    try:
        os.dup2(fd, 1)  # MKL prints from C, to the process's stdout
        with torch.backends.mkl.verbose(torch.backends.mkl.VERBOSE_ON):
            torch.ones(4, 4).mm(torch.ones(4, 4))
    finally:
        os.dup2(saved, 1)
        os.close(saved)
        os.close(fd)
    with open(path) as f:
        text = f.read()
    os.unlink(path)
    header = next((line for line in text.splitlines() if line.startswith("MKL_VERBOSE") and "architecture" in line), "")
    for key, name in (("AVX-512", "AVX512"), ("AVX2", "AVX2"), ("AVX)", "AVX"), ("SSE4", "SSE4")):
        if key in header:
            return name
    return None


def numpy_path() -> str:
    """The widest x86 level of numpy's own SIMD kernels here (tinytorch's side): AVX512, AVX2, DEFAULT."""
    import tinytorch

    return tinytorch.backends.cpu.get_cpu_capability()


def describe() -> str:
    """One line for the test report's header."""
    import tinytorch

    k = tinytorch.backends.cpu.kernels()
    return (f"kernel paths: PyTorch ATen {torch_path()}, oneDNN {onednn_path()}, MKL {mkl_path()}; tinytorch's numpy "
            f"{numpy_path()} ({' '.join(k['simd']) or 'baseline only'}), {k['blas']}, compiled kernels: {k['compiled']}")


# -- ulps --------------------------------------------------------------------------------------------
def _finfo(dtype):
    try:
        return np.finfo(dtype)
    except ValueError:  # ml_dtypes' bfloat16 and friends
        import ml_dtypes

        return ml_dtypes.finfo(dtype)


def spacing(x: np.ndarray, dtype) -> np.ndarray:
    """The gap between ``dtype``'s numbers at ``|x|`` (a float64 array): its ulp there, subnormals included."""
    fi = _finfo(dtype)
    _, e = np.frexp(np.abs(np.asarray(x, np.float64)))
    return np.ldexp(1.0, np.maximum(e, fi.minexp + 1) - 1 - fi.nmant)


def ulp_distance(actual, expected, scale=0.0) -> np.ndarray:
    """How far ``actual`` lies from ``expected``, in ulps of the dtype at max(|expected|, scale) (so a
    ``scale`` counts small values in the ulps of the quantity they were computed from); 0 where both
    are NaN or equal, inf where only one is NaN or an infinity differs."""
    a, e = np.asarray(actual), np.asarray(expected)
    if a.dtype.kind == "c":
        return np.maximum(ulp_distance(a.real, e.real, scale), ulp_distance(a.imag, e.imag, scale))
    if a.dtype.kind in "iub":
        return np.abs(a.astype(np.float64) - e.astype(np.float64))
    a64, e64 = a.astype(np.float64), e.astype(np.float64)
    with np.errstate(invalid="ignore"):
        diff = np.abs(a64 - e64)
        out = diff / spacing(np.maximum(np.abs(e64), np.abs(np.asarray(scale, np.float64))), e.dtype)
    same = (a64 == e64) | (np.isnan(a64) & np.isnan(e64))
    out = np.where(same, 0.0, out)
    return np.where(~same & (np.isnan(out) | np.isinf(a64) | np.isinf(e64)), np.inf, out)


def _as_array(x) -> np.ndarray:
    if hasattr(x, "detach"):
        x = x.detach()
    if hasattr(x, "numpy"):
        x = x.numpy()
    return np.asarray(x)


def _raw(x: np.ndarray) -> np.ndarray:
    """Each element's bytes as one row (so -0.0 and 0.0 differ, as do NaN payloads)."""
    x = np.ascontiguousarray(x).reshape(-1)
    return x.view(np.uint8).reshape(x.size, x.dtype.itemsize) if x.size else np.zeros((0, x.dtype.itemsize), np.uint8)


def _report(what: str, u: np.ndarray, bound: float) -> bool:
    """With ``TINYTORCH_ULP_REPORT=FILE`` set, every bounded comparison appends its test, its largest
    distance and its bound to FILE and passes (a measuring run, not a test: how the tests' bounds were
    found; run the bit-exact tests on each path with it)."""
    out = os.environ.get("TINYTORCH_ULP_REPORT")
    if not out:
        return False
    if u.size:
        test = os.environ.get("PYTEST_CURRENT_TEST", "?").split(" ")[0]
        with open(out, "a") as f:
            f.write(f"{test}\t{what}\t{torch_path()}\t{float(np.max(u)):.4g}\t{bound}\n")
    return True


def reference_mode() -> bool:
    """Whether tinytorch runs its ops' plain references alone (``TINYTORCH_REFERENCE=1``)."""
    from tinytorch._ops._core.paths import REFERENCE

    return REFERENCE


def compiled(family: str) -> bool:
    """Whether the compiled kernels of ``family`` (numba, the ``[fast]`` extra) run here. The emulations of
    PyTorch's kernels that cost more than numpy's plain formula (float32 LayerNorm's Welford statistics) live
    only there: without them the op takes its reference's steps, and its comparisons take the reference's
    bound."""
    from tinytorch._ops._kernels import compiled as kernels

    return kernels.family(family) is not None


def running(paths, path: str | None = None) -> bool:
    """Whether the oracle's path (PyTorch's ATen capability unless ``path`` names another) is one of
    ``paths`` and tinytorch emulates it: under ``TINYTORCH_REFERENCE=1`` tinytorch runs no CPU path of
    PyTorch's (its ops' plain references), so every comparison takes the bound stated for the other paths."""
    from tinytorch._ops._core.paths import REFERENCE

    return not REFERENCE and (torch_path() if path is None else path) in paths


def assert_bits(actual, expected, *, ulps: float, exact_on=FMA_PATHS, path: str | None = None,
                scale=0.0, nan_payload: bool = True, what: str = "") -> None:
    """``actual`` (tinytorch's) against ``expected`` (PyTorch's): the same dtype and shape; bit for bit
    where the oracle runs one of ``exact_on`` (``path``: the oracle path that decides, PyTorch's ATen
    capability unless given, e.g. ``onednn_path()``) and tinytorch its CPU paths; on any other path
    (and under ``TINYTORCH_REFERENCE=1``) within ``ulps`` ulps, counted
    at max(|expected|, ``scale``) (integers: within ``ulps`` units), NaN where NaN and infinities
    equal. ``scale``: a number or an array (elementwise), or "max": the largest finite |expected| (so
    the bound is an absolute one, ``ulps`` ulps of the array's magnitude: for results of a cancelling
    sum, whose small elements carry the rounding of the large terms). ``nan_payload=False`` lets NaNs
    differ in their payload bits on the exact paths too."""
    a, e = _as_array(actual), _as_array(expected)
    assert a.dtype == e.dtype and a.shape == e.shape, f"{what}: {a.dtype}{a.shape} vs {e.dtype}{e.shape}"
    where = torch_path() if path is None else path
    if running(exact_on, where):
        differ = (_raw(a) != _raw(e)).any(axis=1)
        if not nan_payload and a.dtype.kind in "fc":
            differ &= ~(np.isnan(a) & np.isnan(e)).reshape(-1)
        if differ.any():
            idx = np.flatnonzero(differ)
            fa, fe = a.reshape(-1), e.reshape(-1)
            raise AssertionError(f"{what}: not bit for bit on PyTorch's {where} path (tinytorch follows "
                                 f"{'/'.join(exact_on)} there): {idx.size} of {a.size} differ, first at "
                                 f"{idx[:3]}: {fa[idx[:3]]} vs {fe[idx[:3]]}")
        return
    if isinstance(scale, str):  # "max": the ulps of the largest magnitude PyTorch's array holds
        finite = np.abs(e[np.isfinite(e)].astype(np.complex128 if e.dtype.kind == "c" else np.float64))
        scale = float(finite.max(initial=0.0))
    u = ulp_distance(a, e, scale).reshape(-1)
    bad = np.flatnonzero(~(u <= ulps))
    if _report(what, u, ulps):
        return
    if bad.size:
        fa, fe = a.reshape(-1), e.reshape(-1)
        raise AssertionError(f"{what}: on PyTorch's {where} path (tinytorch follows {'/'.join(exact_on)}) "
                             f"{bad.size} of {a.size} lie beyond the stated bound of {ulps} ulp (max "
                             f"{u[bad].max():.3g}), first at {bad[:3]}: {fa[bad[:3]]} vs {fe[bad[:3]]}")


# -- values drawn from the same seed --------------------------------------------------------------------
# How far a draw may lie from PyTorch's DEFAULT-path draw, in ulps at the draws' scale, by dtype
# (measured over test_random*.py and the nn tests with TINYTORCH_ULP_REPORT: 25, 1, 1 and 1). float32:
# the DEFAULT build's Box-Muller takes 2pi * u2 in double and glibc's logf/cosf/sinf, the AVX2 kernel
# rounds the angle to float32 (up to 2.4e-7 off, times a radius up to 5.8) and takes avx_mathfun's
# polynomials; a uniform's from + (to - from) * u rounds twice there (1 ulp at the range's end; the
# double normal kernel is the same scalar code on every path). Integer draws: exact everywhere.
DRAW_ULPS = {"float32": 32, "float16": 1, "bfloat16": 1, "float64": 1}
# under TINYTORCH_REFERENCE=1 (numpy's log, log1p, cos and sin in place of glibc's, z * std + mean rounded
# twice): float64 normals lie within 2 ulps of PyTorch's (measured over tests/random), float32 ones as above
REFERENCE_DRAW_ULPS = {**DRAW_ULPS, "float64": 2}


def assert_drawn(actual, expected, scale=None, what: str = "draws") -> None:
    """Values drawn from the same seed (random factories, nn.init, module initialisation): bit for bit on
    PyTorch's FMA paths, within ``DRAW_ULPS`` ulp at max(|value|, scale) elsewhere (``scale``: the draws'
    size, |mean| + std or the larger end of the range; by default the largest |value| PyTorch drew).
    float64 arrays that hold float32 values on both sides (a module drawn in the default dtype, then
    ``.double()``) are compared as the float32 values they were drawn as."""
    a, e = _as_array(actual), _as_array(expected)
    if a.dtype == e.dtype == np.float64 and all(
            np.array_equal(v.astype(np.float32).astype(np.float64), v, equal_nan=True) for v in (a, e)):
        a, e = a.astype(np.float32), e.astype(np.float32)
    if scale is None and a.dtype.kind in "fcV":
        scale = float(np.max(np.abs(e.astype(np.complex128 if e.dtype.kind == "c" else np.float64)), initial=0.0))
    part = {"complex64": "float32", "complex128": "float64"}.get(str(a.dtype), str(a.dtype))
    from tinytorch._ops._core.paths import REFERENCE

    bounds = REFERENCE_DRAW_ULPS if REFERENCE else DRAW_ULPS
    assert_bits(a, e, ulps=bounds.get(part, 0), scale=scale or 0.0, what=what)


def adopt_state(ours, theirs) -> bool:
    """Off PyTorch's FMA paths, load PyTorch's module state into tinytorch's module (after its draws were
    checked with ``assert_drawn``), so that what a test compares next (forward values, gradients, at
    tolerances set for equal parameters) starts from the same bits; True when it did."""
    if running(FMA_PATHS):
        return False
    import tinytorch

    ours.load_state_dict({k: tinytorch.tensor(v.detach().numpy().copy()) for k, v in theirs.state_dict().items()})
    return True


# -- the paths the known-difference lists are walked on --------------------------------------------------
def _numpy_avx512_targets() -> list:
    import tinytorch

    return [t for t in tinytorch.backends.cpu.kernels()["simd"] if t.startswith("AVX512") or t == "X86_V4"]


def walk_paths() -> dict:
    """{name: environment settings}: the CPU paths ``tests/_opinfo_update.py`` and
    ``_moduleinfo_update.py`` walk, each in a child process, on top of this machine's own path. An
    AVX2-only machine is imitated whole: PyTorch's ATen, oneDNN and MKL at AVX2, numpy's AVX-512
    targets off and OpenBLAS's Haswell kernel (on an AVX2 machine it is the native path again)."""
    avx2 = {"ATEN_CPU_CAPABILITY": "avx2", "ONEDNN_MAX_CPU_ISA": "AVX2", "MKL_ENABLE_INSTRUCTIONS": "AVX2",
            "OPENBLAS_CORETYPE": "Haswell"}
    if _numpy_avx512_targets():
        avx2["NPY_DISABLE_CPU_FEATURES"] = " ".join(_numpy_avx512_targets())
    return {"native": {}, "aten-avx2": {"ATEN_CPU_CAPABILITY": "avx2"},
            "aten-default": {"ATEN_CPU_CAPABILITY": "default"}, "avx2-machine": avx2}


@functools.cache
def cpu_model() -> str:
    """The CPU's model name as the kernel reports it (/proc/cpuinfo), or the platform's processor string:
    MKL and oneDNN pick kernels by vendor and model, so the lists name the machine a path was walked on."""
    try:
        with open("/proc/cpuinfo") as f:
            for line in f:
                if line.startswith("model name"):
                    return " ".join(line.split(":", 1)[1].split())
    except OSError:
        pass
    import platform

    return platform.processor() or platform.machine() or "unknown CPU"


@functools.cache
def cpu_vendor() -> str:
    """"Intel", "AMD" or the CPU's own vendor string (/proc/cpuinfo), "unknown" where it says none: MKL's vector
    math (vsTanh...) runs other code on each vendor, so a bound measured on one is stated with its vendor."""
    try:
        with open("/proc/cpuinfo") as f:
            for line in f:
                if line.startswith("vendor_id"):
                    vendor = line.split(":", 1)[1].strip()
                    return {"GenuineIntel": "Intel", "AuthenticAMD": "AMD"}.get(vendor, vendor)
    except OSError:
        pass
    return "unknown"


def label() -> str:
    """This process's path in a few words, for the known-difference lists: the CPU, then each library's
    kernel path (a path walked on another CPU is another label, so walking here never rewrites what the
    lists say of the other machines)."""
    import tinytorch

    blas = tinytorch.backends.cpu.kernels()["blas"]
    core = blas.split("(")[1].split(" kernel")[0] if "kernel" in blas else blas
    return (f"{cpu_model()}: PyTorch {torch_path()}, oneDNN {onednn_path()}, MKL {mkl_path()}, "
            f"numpy {numpy_path()}, BLAS {core}")


def walk_everywhere(script: str, args: list, names=None, jobs: int = 2) -> dict:
    """Run ``python script --walk-json OUT *args`` once on each path of ``walk_paths()`` (``names``: a
    subset), ``jobs`` at a time; {path label: the JSON the child wrote}."""
    import json
    import subprocess
    import sys

    todo = [(n, env) for n, env in walk_paths().items() if names is None or n in names]
    results, running_ = {}, []
    here = os.path.dirname(os.path.abspath(__file__))
    while todo or running_:
        while todo and len(running_) < jobs:
            name, env = todo.pop(0)
            fd, out = tempfile.mkstemp(suffix=".json")
            os.close(fd)
            proc = subprocess.Popen([sys.executable, script, "--walk-json", out, *args], cwd=os.path.dirname(here),
                                    env=dict(os.environ, **env))
            running_.append((name, proc, out))
        name, proc, out = running_.pop(0)
        if proc.wait() != 0:
            raise RuntimeError(f"the walk on path {name} failed")
        with open(out) as f:
            got = json.load(f)
        os.unlink(out)
        print(f"{name}: {got['label']}: {sum(len(v) for v in got['diffs'].values())} rows", flush=True)
        results[got["label"]] = got["diffs"]
    return results


def split_known(per_path: dict, old_known: dict, old_dependent: dict, old_paths=()) -> tuple:
    """(KNOWN, PATH_DEPENDENT) from {path label: {entry: {row: reason}}}: a row that differs on every
    path walked goes to KNOWN (entry -> row -> reason: "may only shrink"), one that differs on some
    only to PATH_DEPENDENT (entry -> row -> {"reason", "differs on": [labels]}: allowed to match or
    differ). Reasons already written (by hand) in the old lists are kept. Paths of ``old_paths`` not
    walked now (other machines' paths), and the labels the old path-dependent rows name, keep what the old
    lists say of them: an old KNOWN row differs on each of ``old_paths``, an old path-dependent row on
    those it names."""
    per_path = dict(per_path)
    named = {lb for rows in old_dependent.values() for d in rows.values() for lb in d["differs on"]}
    for lb in sorted(set(old_paths) | named):  # (a hand-written label too: "numpy 2.x with its OpenBLAS ...")
        if lb in per_path:
            continue
        diffs: dict = {}
        for entry, rows in old_known.items():
            diffs.setdefault(entry, {}).update(rows)
        for entry, rows in old_dependent.items():
            for row, d in rows.items():
                if lb in d["differs on"]:
                    diffs.setdefault(entry, {})[row] = d["reason"]
        per_path[lb] = diffs
    labels = sorted(per_path)
    known, dependent = {}, {}
    entries = sorted({e for diffs in per_path.values() for e in diffs})
    for entry in entries:
        rows = sorted({r for diffs in per_path.values() for r in diffs.get(entry, {})})
        for row in rows:
            where = [lb for lb in labels if row in per_path[lb].get(entry, {})]
            seen = per_path[where[0]][entry][row]
            old = old_known.get(entry, {}).get(row) or old_dependent.get(entry, {}).get(row, {}).get("reason")
            if len(where) == len(labels):
                known.setdefault(entry, {})[row] = old or seen
            else:
                dependent.setdefault(entry, {})[row] = {"reason": old or seen, "differs on": where}
    return known, dependent
