"""arange's, linspace's and logspace's arithmetic as PyTorch's CPU kernels do it: each ``a * b + c`` of arange's
vector blocks and of linspace's two halves in one rounding (its FMA builds, AVX2 and AVX512, contract them), and
logspace's powers by glibc's pow. Registered onto the named steps of ``_ops/creation/factory.py``, which are
plain numpy in the reference."""
from __future__ import annotations

from .._ops._core import paths
from .._ops.creation import factory
from .._random.fpmath import fma64, libm_pow

# (two roundings against one: within an ulp or two of the range's largest bound, where a value near zero is the
# difference of two large ones)
paths.kernel(factory, "_fma", ulps=2, scale="max", when="always (arange's and linspace's float ranges)",
             why="PyTorch's bits on its FMA builds (AVX2, AVX512): one rounding")(fma64)
# (numpy 1.x computes float64 pow with SVML on AVX-512 CPUs, up to 4 ulps from the true value)
paths.kernel(factory, "_pow", ulps=4, when="always: numpy's pow may differ from glibc's in the last bits",
             why="PyTorch's bits: its logspace kernel calls glibc's pow")(libm_pow)
