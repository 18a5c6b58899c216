"""Which x86 vector level this CPU runs, in PyTorch's words (``AVX512``, ``AVX2``, ``DEFAULT``), read from numpy's
own SIMD dispatch; and the level PyTorch's kernels take here (its ``ATEN_CPU_CAPABILITY`` variable, else the CPU's).
Kernels that replay one of PyTorch's CPU paths ask it; ``tinytorch.backends.cpu`` publishes it."""
from __future__ import annotations

import os


def numpy_targets() -> list:
    """numpy's SIMD dispatch targets that run here: those it was built with, less those the CPU lacks or
    ``NPY_DISABLE_CPU_FEATURES`` turned off."""
    try:  # numpy 2
        from numpy._core import _multiarray_umath as umath
    except ImportError:  # numpy 1.x
        from numpy.core import _multiarray_umath as umath
    found = getattr(umath, "__cpu_features__", {})
    return [t for t in getattr(umath, "__cpu_dispatch__", []) if found.get(t)]


def get_cpu_capability() -> str:
    """The widest x86 vector level numpy's own kernels run at here, in PyTorch's words: "AVX512", "AVX2" or
    "DEFAULT" (other CPUs, or features disabled with ``NPY_DISABLE_CPU_FEATURES``). It tells which numpy
    kernels tinytorch runs; PyTorch's own choice is ``torch.backends.cpu.get_cpu_capability()``."""
    targets = numpy_targets()
    if any(t.startswith("AVX512") or t == "X86_V4" for t in targets):
        return "AVX512"
    if any(t in ("AVX2", "X86_V3") for t in targets):
        return "AVX2"
    return "DEFAULT"


def pytorch_level() -> str:
    """The path PyTorch takes here: the widest the CPU has unless ``ATEN_CPU_CAPABILITY`` names another (numpy's
    detection of the CPU stands in for PyTorch's)."""
    return os.environ.get("ATEN_CPU_CAPABILITY", "").upper() or get_cpu_capability()
