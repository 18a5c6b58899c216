"""``torch.__config__``: what this build is made of, in PyTorch's layout. tinytorch is Python on numpy: no
CUDA, MKL, oneDNN or OpenMP, so the build settings libraries grep for say OFF (PyG reads ``USE_MKL=OFF`` to
keep away from MKL-only sparse kernels)."""
from __future__ import annotations

import os

from .backends import cpu as _cpu
from ._ops._kernels.parallel import get_num_interop_threads, get_num_threads
from .version import __version__, tinytorch_version

__all__ = ["show", "parallel_info"]


def show() -> str:
    """The build's components and settings (PyTorch's ``torch.__config__.show()`` layout)."""
    return (f"tinytorch {tinytorch_version} (the PyTorch {__version__.split('+')[0]} API) built with:\n"
            f"  - {_cpu.describe()}\n"
            "  - CPU capability usage: " + _cpu.kernels()["capability"] + "\n"
            "  - Build settings: BLAS_INFO=numpy, USE_CUDA=OFF, USE_CUDNN=OFF, USE_MKL=OFF, USE_MKLDNN=OFF, "
            "USE_NCCL=OFF, USE_OPENMP=OFF, \n")


def parallel_info() -> str:
    """The thread counts ops run with (PyTorch's ``torch.__config__.parallel_info()`` layout)."""
    return (f"ATen/Parallel:\n\tat::get_num_threads() : {get_num_threads()}\n"
            f"\tat::get_num_interop_threads() : {get_num_interop_threads()}\n"
            f"std::thread::hardware_concurrency() : {os.cpu_count()}\nEnvironment variables:\n"
            "ATen parallel backend: tinytorch (numpy and its BLAS)\n")
