"""Compiled kernels (numba), the optional ``[fast]`` extra: the same formulas as the numpy paths of their ops,
fused into one loop each where numpy's per-call floor (about a microsecond a call on small arrays) holds the
step. numpy stays the default and the reference: ``import tinytorch`` never imports numba; the first use
of a family of kernels imports it and compiles (or loads from numba's on-disk cache) that family's
module, and a missing or failing numba leaves every op on its numpy path, silently.

Each kernel computes its op's numpy path's floats bit for bit (``tests/ops/_kernels/test_kernels_compiled.py`` compares
them on generated inputs): the same operations in the same order and precision, numpy's summation orders
(the pairwise sum of a contiguous row, the running sum down the rows of an axis-0 reduction), and numpy's
own transcendental functions where one is needed (numba's float32 exp/tanh/log are glibc's, which differ
from numpy's SIMD ones, and from PyTorch's, in either direction: they are never used), with one exception,
closer to PyTorch: the float32 LSTM's sigmoid gates take oneDNN's exp, whose floats PyTorch's LSTM gives
(``compiled/rnn.py``); and three emulations of PyTorch's kernels that live only here: nll_loss's cascade of partial
sums over targets some of which are ignored (``compiled/cross_entropy.py``'s ``cascade_kept``; the numpy path
follows it only where every target counts, and takes numpy's sum otherwise: its emulation cost 1.3-2x), float32
LayerNorm's forward
is PyTorch's kernel (``compiled/layer_norm.py``'s ``pytorch_forward_into``), the numpy path the reference's steps
(the emulation in numpy passes cost 3.5-9x the plain formula), and a floating sum or mean is ATen's cascade sum
(``compiled/cascade_sum.py``, held to PyTorch's bits by ``tests/ops/reduce/test_reduce_cascade_sum.py``), the
numpy path numpy's pairwise sums; a fused multiply-add
is LLVM's ``llvm.fma``, one rounding, as the numpy path's emulation and PyTorch's kernels compute it.

``TINYTORCH_NO_NUMBA=1`` in the environment keeps every op on numpy; ``set_enabled(False)`` (or
``with disabled():``) does the same for a while within a process, so tests compare both paths side by side.
``report()`` lists each family's load time (numba's import, and the compile or the cache load)."""
from __future__ import annotations

import contextlib
import hashlib
import importlib
import importlib.util
import os
import shutil
import sys
import time
import warnings

import numpy as np

__all__ = ["FLOATS", "NONE", "available", "describe", "disabled", "family", "loaded_family", "report", "set_enabled"]

_OFF = os.environ.get("TINYTORCH_NO_NUMBA", "") not in ("", "0")
_families: dict = {}  # name -> its module of compiled kernels, or None where it failed to load
_seconds: dict = {}  # name -> seconds its first load took (numba's import, compile or cache load)
FAMILIES = ("batch_norm", "layer_norm", "gelu", "adam", "rnn", "resample", "conv", "relu", "pool", "mersenne_twister",
            "reduce", "outer", "cross_entropy", "cascade_sum")
FLOATS = (np.dtype(np.float32), np.dtype(np.float64))  # the dtypes every kernel is compiled for
NONE = {t: np.empty(0, t) for t in FLOATS}  # a kernel's "None" for an optional 1-d argument (a bias)


def family(name: str):
    """The module of compiled kernels ``name`` (one of ``FAMILIES``), loaded on first use; None where
    numba is missing, fails, or the compiled kernels are switched off (the caller takes its numpy path)."""
    if _OFF:
        return None
    try:
        return _families[name]
    except KeyError:
        return _load(name)


def loaded_family(name: str):
    """``family(name)`` where numba is already in use in this process (another family has loaded), else None
    without importing it: for kernels whose savings are worth less than numba's import (0.3 s and more),
    such as the generator's (``compiled/mersenne_twister.py``), which ride along with the ones that are."""
    if _OFF or (name not in _families and not any(m is not None for m in _families.values())):
        return None
    return family(name)


def _import_numba() -> None:
    """``import numba``, and its registry of numpy functions without importing SciPy's linalg package: numba
    checks for a BLAS by importing ``scipy.linalg.cython_blas`` there (0.3 to 0.9 s here, more than the
    rest of a first use), which no kernel here needs. The check is answered by whether SciPy is installed
    (what numba's answer comes to, SciPy's BLAS being part of it) and numba's own check put back after."""
    import numba  # noqa: F401

    if "numba.np.arraymath" in sys.modules:
        return
    try:
        import numba.np.linalg as linalg
    except ImportError:
        return
    real = getattr(linalg, "ensure_blas", None)
    if real is None:
        return

    def scipy_installed() -> None:
        if importlib.util.find_spec("scipy") is None:
            raise ImportError("scipy 0.16+ is required for linear algebra")

    linalg.ensure_blas = scipy_installed
    try:
        import numba.np.arraymath as arraymath
    finally:
        linalg.ensure_blas = real
    if getattr(arraymath, "ensure_blas", None) is scipy_installed:
        arraymath.ensure_blas = real


_HERE = os.path.dirname(os.path.abspath(__file__))
# the sources the compiled code is made from: this package's modules, and the constants gelu.py takes
_SOURCES = ("gelu_onednn.py",)
_CACHE_PREFIX = "tinytorch-kernels-"


def fingerprint(directory: str = _HERE, extra: tuple = _SOURCES) -> str:
    """A hash of the kernels' sources: every ``.py`` file of ``directory`` and the ``extra`` files of its
    parent, names and contents."""
    h = hashlib.sha256()
    paths = sorted(os.path.join(directory, f) for f in os.listdir(directory) if f.endswith(".py"))
    for path in paths + [os.path.join(os.path.dirname(directory), f) for f in extra]:
        h.update(os.path.basename(path).encode() + b"\0")
        with open(path, "rb") as f:
            h.update(f.read())
    return h.hexdigest()[:16]


def cache_dir() -> str:
    """Where numba caches these kernels: a directory named by their sources' ``fingerprint``, under
    ``NUMBA_CACHE_DIR`` where it is set, else under this package's ``__pycache__``.

    numba checks a cached function against its own file's time stamp only, not the files it calls into: a
    change to ``_common.py`` alone (the pairwise sum, the FMA) would leave every kernel that inlines it on
    the old machine code. A directory per version of all the sources makes any change a fresh compile."""
    base = os.environ.get("NUMBA_CACHE_DIR") or os.path.join(_HERE, "__pycache__")
    return os.path.join(base, _CACHE_PREFIX + fingerprint())


def _prune(keep: str) -> None:
    """Remove this package's caches of other versions of the sources (only in its own ``__pycache__``: a
    shared NUMBA_CACHE_DIR may hold another installation's)."""
    parent = os.path.dirname(keep)
    if parent != os.path.join(_HERE, "__pycache__"):
        return
    try:
        stale = [d for d in os.listdir(parent) if d.startswith(_CACHE_PREFIX) and d != os.path.basename(keep)]
    except OSError:
        return
    for d in stale:
        shutil.rmtree(os.path.join(parent, d), ignore_errors=True)


def _load(name: str):
    t0 = time.perf_counter()
    module = None
    try:
        with warnings.catch_warnings():  # numba's own warnings (a cache directory it cannot write...) stay quiet
            warnings.simplefilter("ignore")
            _import_numba()
            from numba.core import config

            # numba reads its cache directory when a module's kernels are defined: ours only, for this import
            # (a directory it cannot write makes numba fall back to its usual places)
            before, config.CACHE_DIR = config.CACHE_DIR, cache_dir()
            try:
                if not _families:
                    _prune(config.CACHE_DIR)
                module = importlib.import_module(f"{__name__}.{name}")
            finally:
                config.CACHE_DIR = before
    except Exception:  # noqa: BLE001  (numba missing, or failing to compile: the numpy path, silently)
        module = None
    _families[name] = module
    _seconds[name] = time.perf_counter() - t0
    return module


def available() -> bool:
    """Whether compiled kernels run here: switched on, and numba importable and working (this imports numba)."""
    return family("batch_norm") is not None


def set_enabled(flag: bool) -> bool:
    """Switch the compiled kernels on or off for this process; returns the previous setting."""
    global _OFF
    previous = not _OFF
    _OFF = not flag
    return previous


@contextlib.contextmanager
def disabled():
    """Every op on its numpy path inside the block."""
    previous = set_enabled(False)
    try:
        yield
    finally:
        set_enabled(previous)


def report() -> dict:
    """{family: seconds of its first load, or None where it failed to load} for the families used so far."""
    return {name: (_seconds[name] if _families.get(name) is not None else None) for name in _seconds}


def describe() -> str:
    """A few words on the compiled kernels of this process, without importing numba: "numba 0.68.1",
    "numba 0.68.1 (failed to load: numpy path)", "off (TINYTORCH_NO_NUMBA)" or "none (numba not installed)"."""
    if _OFF:
        return "off (TINYTORCH_NO_NUMBA)" if os.environ.get("TINYTORCH_NO_NUMBA", "") not in ("", "0") else "off"
    try:
        from importlib.metadata import PackageNotFoundError, version

        found = f"numba {version('numba')}"
    except PackageNotFoundError:
        return "none (numba not installed)"
    except Exception:  # noqa: BLE001  (no metadata: say what an import would say)
        found = "numba" if importlib.util.find_spec("numba") else None
        if found is None:
            return "none (numba not installed)"
    if any(m is None for m in _families.values()):
        return f"{found} (failed to load: numpy path)"
    return found
