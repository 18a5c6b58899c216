"""``torch.__config__``: how this build is made and how it runs in parallel, as text (bug reports, environment
dumps and launchers print or parse it). tinytorch has no compiled core: the build is numpy, its BLAS and the
optional compiled kernels (``backends.cpu.kernels()``); the ``Build settings`` line keeps PyTorch's
``KEY=VALUE, `` form, so a check such as ``"USE_MPI=ON" in show()`` reads tinytorch's answer."""
from __future__ import annotations

import importlib.util
import os

from ._ops._kernels.parallel import get_num_interop_threads, get_num_threads
from .backends.cpu import kernels
from .version import __version__

__all__ = ["show", "parallel_info"]


def _settings() -> str:
    mpi = "ON" if importlib.util.find_spec("mpi4py") is not None else "OFF"  # the one distributed backend
    blas = kernels()["blas"].split(" ")[0].lower()
    settings = {"BLAS_INFO": blas, "BUILD_TYPE": "Release", "LAPACK_INFO": blas,
                "TORCH_VERSION": str(__version__).split("+")[0], "USE_CUDA": "0", "USE_CUDNN": "OFF",
                "USE_GLOO": "OFF", "USE_MKL": "OFF", "USE_MKLDNN": "OFF", "USE_MPI": mpi, "USE_NCCL": "OFF",
                "USE_NNPACK": "OFF", "USE_OPENMP": "OFF", "USE_ROCM": "OFF", "USE_XPU": "OFF"}
    return "".join(f"{k}={v}, " for k, v in settings.items())


def show() -> str:
    """What tinytorch computes with here: numpy and its SIMD targets, the BLAS, the compiled kernels."""
    k = kernels()
    return ("tinytorch built with:\n"
            f"  - numpy {k['numpy']} (SIMD: {' '.join(k['simd']) or 'baseline only'})\n"
            f"  - BLAS and LAPACK: {k['blas']}\n"
            f"  - compiled kernels: {k['compiled']}\n"
            f"  - CPU capability usage: {k['capability']}\n"
            f"  - Build settings: {_settings()}\n")


def parallel_info() -> str:
    """The threads tinytorch's kernels use, and the variables that set them, in PyTorch's layout (its
    ``ATen/Parallel`` and ``at::get_num_threads()`` lines, which launchers grep)."""
    names = ("OMP_NUM_THREADS", "OPENBLAS_NUM_THREADS", "MKL_NUM_THREADS", "NUMBA_NUM_THREADS")
    env = "".join(f"\t{n} : {os.environ.get(n, '[not set]')}\n" for n in names)
    return ("ATen/Parallel:\n"
            f"\tat::get_num_threads() : {get_num_threads()}\n"
            f"\tat::get_num_interop_threads() : {get_num_interop_threads()}\n"
            f"BLAS: {kernels()['blas']}\n"
            f"std::thread::hardware_concurrency() : {os.cpu_count()}\n"
            f"Environment variables:\n{env}"
            "ATen parallel backend: tinytorch (numpy and its BLAS)\n")


def _cxx_flags() -> str:
    """PyTorch's C++ compiler flags: tinytorch compiles no C++, so there are none."""
    return ""
