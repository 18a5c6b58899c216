"""``tinytorch.backends.cpu``: which CPU kernels this process runs.

PyTorch picks one of its CPU paths at start (``torch.backends.cpu.get_cpu_capability()``: DEFAULT, AVX2,
AVX512, ...); tinytorch's arrays go through numpy, which picks its own SIMD kernels per CPU, and through the
BLAS numpy was built with, which picks its own kernel per CPU too. Floats can move by an ulp between any of
these, so every figure a benchmark or a training run prints names the kernels it ran on (``describe()``).
Nothing here is imported by ``import tinytorch`` beyond this module's own names; ctypes is loaded on the
first call that needs it."""
from __future__ import annotations

import glob
import os

import numpy as np

from .._cpu import mkl_gemm
from .._ops._kernels import compiled
from .._ops._kernels.cpu_level import get_cpu_capability, numpy_targets as _numpy_targets

__all__ = ["get_cpu_capability", "kernels", "describe"]


def _blas() -> str:
    """numpy's bundled OpenBLAS: version, the kernel it chose for this CPU, and its thread count (read from
    the library itself); or what numpy's build says where it bundles another BLAS."""
    import ctypes

    libs = os.path.join(os.path.dirname(os.path.dirname(np.__file__)), "numpy.libs")
    for path in sorted(glob.glob(os.path.join(libs, "*openblas*.so*"))):
        try:
            lib = ctypes.CDLL(path)
        except OSError:
            continue
        calls = {}
        for what in ("get_config", "get_corename", "get_num_threads"):
            for prefix in ("scipy_openblas_", "openblas_"):
                fn = next((getattr(lib, prefix + what + suffix, None) for suffix in ("64_", "")
                           if getattr(lib, prefix + what + suffix, None) is not None), None)
                if fn is not None:
                    fn.restype = ctypes.c_char_p if what != "get_num_threads" else ctypes.c_int
                    fn.argtypes = []
                    calls[what] = fn
                    break
        if "get_corename" in calls:
            config = calls["get_config"]().decode() if "get_config" in calls else "OpenBLAS"
            version = config.split()[1] if config.startswith("OpenBLAS ") and len(config.split()) > 1 else "?"
            threads = calls["get_num_threads"]() if "get_num_threads" in calls else "?"
            return f"OpenBLAS {version} ({calls['get_corename']().decode()} kernel, {threads} thread{'' if threads == 1 else 's'})"
    try:
        blas = np.show_config(mode="dicts")["Build Dependencies"]["blas"]  # numpy >= 1.26
        return f"{blas.get('name', 'unknown BLAS')} {blas.get('version', '')}".strip()
    except Exception:  # older numpy prints its configuration instead of returning it
        return "unknown BLAS"


def kernels() -> dict:
    """{"numpy": version, "simd": numpy's dispatch targets this CPU runs, "capability": get_cpu_capability(),
    "blas": numpy's BLAS with its kernel and threads, "gemm": the library of the float32/float64 matrix
    products when it is not numpy's (MKL, the ``[mkl]`` extra: loaded here if installed) or None,
    "compiled": the optional compiled kernels (numba's version, or why there are none; numba itself is not
    imported here)}."""
    return {"numpy": np.__version__, "simd": _numpy_targets(),
            "capability": get_cpu_capability(), "blas": _blas(), "gemm": mkl_gemm.describe(),
            "compiled": compiled.describe()}


def describe() -> str:
    """One line naming the kernels tinytorch's arrays run on, e.g.
    ``numpy 2.4.6 (SIMD AVX512: X86_V3 X86_V4 AVX512_ICL), BLAS OpenBLAS 0.3.31 (Zen kernel, 2 threads),
    GEMMs MKL 2024.2 (GNU OpenMP, 2 threads), compiled kernels: numba 0.68.1`` (no "GEMMs" without the
    ``[mkl]`` extra: numpy's BLAS computes them)."""
    k = kernels()
    gemm = f"GEMMs {k['gemm']}, " if k["gemm"] else ""
    return (f"numpy {k['numpy']} (SIMD {k['capability']}: {' '.join(k['simd']) or 'baseline only'}), BLAS {k['blas']}, "
            f"{gemm}compiled kernels: {k['compiled']}")
