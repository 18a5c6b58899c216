"""Compiled kernels (numba), the optional ``[fast]`` extra: the same formulas as the numpy paths of their ops,
fused into one loop each where numpy's per-call floor (about a microsecond a call on small arrays) holds the
step. numpy stays the default and the reference: ``import tinytorch`` never imports numba; the first use
of a family of kernels imports it and compiles (or loads from numba's on-disk cache) that family's
module, and a missing or failing numba leaves every op on its numpy path, silently.

Each kernel computes its op's numpy path's floats bit for bit (``tests/test_compiled_kernels.py`` compares
them on generated inputs): the same operations in the same order and precision, numpy's summation orders
(the pairwise sum of a contiguous row, the running sum down the rows of an axis-0 reduction), and numpy's
own transcendental functions where one is needed (numba's float32 exp/tanh/log are glibc's, which differ
from numpy's SIMD ones, and from PyTorch's, in either direction: they are never used), with one exception,
closer to PyTorch: the float32 LSTM's sigmoid gates take oneDNN's exp, whose floats PyTorch's LSTM gives
(``compiled/rnn.py``); a fused multiply-add
is LLVM's ``llvm.fma``, one rounding, as the numpy path's emulation and PyTorch's kernels compute it.

``TINYTORCH_NO_NUMBA=1`` in the environment keeps every op on numpy; ``set_enabled(False)`` (or
``with disabled():``) does the same for a while within a process, so tests compare both paths side by side.
``report()`` lists each family's load time (numba's import, and the compile or the cache load)."""
from __future__ import annotations

import contextlib
import importlib
import importlib.util
import os
import sys
import time
import warnings

__all__ = ["available", "describe", "disabled", "family", "report", "set_enabled"]

_OFF = os.environ.get("TINYTORCH_NO_NUMBA", "") not in ("", "0")
_families: dict = {}  # name -> its module of compiled kernels, or None where it failed to load
_seconds: dict = {}  # name -> seconds its first load took (numba's import, compile or cache load)
FAMILIES = ("batch_norm", "layer_norm", "gelu", "adam", "rnn", "resample")


def family(name: str):
    """The module of compiled kernels ``name`` (one of ``FAMILIES``), loaded on first use; None where
    numba is missing, fails, or the compiled kernels are switched off (the caller takes its numpy path)."""
    if _OFF:
        return None
    try:
        return _families[name]
    except KeyError:
        return _load(name)


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


def _load(name: str):
    t0 = time.perf_counter()
    module = None
    try:
        with warnings.catch_warnings():  # numba's own warnings (a cache directory it cannot write...) stay quiet
            warnings.simplefilter("ignore")
            _import_numba()
            module = importlib.import_module(f"{__name__}.{name}")
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
