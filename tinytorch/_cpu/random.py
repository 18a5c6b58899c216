"""The normal kernels' arithmetic as PyTorch's CPU build does it, bit for bit: glibc's double log, log1p, cos and
sin (``_random/fpmath.py``), the float64 ``z * std + mean`` in one rounding (its FMA builds), and the 16-lane
float32 kernel with its Cephes log and sincos (``avx2_normal.py``, run on AVX2 and AVX-512 machines alike).
Registered onto the named steps of ``_random/normal.py``, which are plain numpy in the reference; cauchy_'s and
log_normal_'s steps (``_ops/random/sampling.py``) take glibc's tan and exp and the one rounding the same way."""
from __future__ import annotations

from .._ops._core import paths
from .._ops.random import sampling
from .._random import normal
from .._random.fpmath import fma64, libm_cos, libm_exp, libm_log, libm_log1p, libm_sin, libm_tan
from .avx2_normal import box_muller

_LIBM = "always: numpy's log, log1p, cos and sin differ from glibc's in the last bit for some inputs"
_BITS = "PyTorch's bits: its scalar and float64 normal kernels call glibc"

paths.kernel(normal, "_log", ulps=1, when=_LIBM, why=_BITS)(libm_log)
paths.kernel(normal, "_log1p", ulps=1, when=_LIBM, why=_BITS)(libm_log1p)
# (numpy 1.x's own SIMD cos and sin, the references there, sit up to 2 ulps from glibc's: measured on numpy 1.24)
paths.kernel(normal, "_cos", ulps=2, when=_LIBM, why=_BITS)(libm_cos)
paths.kernel(normal, "_sin", ulps=2, when=_LIBM, why=_BITS)(libm_sin)
paths.kernel(normal, "_scaled", ulps=None, when="std != 1 or mean != 0 (float64 samples)",
             why="PyTorch's bits on its FMA builds (AVX2, AVX512): one rounding")(fma64)
paths.kernel(normal, "_box_muller_f32", ulps=None, when="float32 (and half) tensors of 16 or more elements",
             why="PyTorch's bits: its AVX2 normal kernel (used on AVX-512 machines too), Cephes' float32 log and "
                 "sincos polynomials with fused multiply-adds")(box_muller)

# (numpy 1.x computes float64 exp with SVML on AVX-512 CPUs, up to 4 ulps from the true value)
paths.kernel(sampling, "_tan", ulps=2, when="always: numpy's tan may differ from glibc's in the last bit",
             why="PyTorch's bits: its cauchy_ kernel calls glibc's tan")(libm_tan)
paths.kernel(sampling, "_exp", ulps=4, when="always: numpy's exp may differ from glibc's in the last bits",
             why="PyTorch's bits: its log_normal_ kernel calls glibc's exp")(libm_exp)
paths.kernel(sampling, "_scaled", ulps=None, when="always (cauchy_'s t * sigma + median, log_normal_'s z * std + mean)",
             why="PyTorch's bits on its FMA builds (AVX2, AVX512): one rounding")(fma64)
