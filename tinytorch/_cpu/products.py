"""The matrix products' CPU paths: matmul's array product, linear's and addmm's as PyTorch's CPU build computes
them, linear's gradient on the saved arrays, and linear's rows made without view's dispatch; cross's
components with the fused multiply-add PyTorch's vector builds compile into its scalar kernel.

PyTorch multiplies float32/float64 matrices with MKL; where the ``[mkl]`` extra is installed (``mkl_gemm.py``,
loaded on the first product) these paths make ATen's own MKL calls, so the floats are PyTorch's. Without it
the products are numpy's OpenBLAS GEMMs (through ``parallel.matmul``, which cuts a batch of small GEMMs across
threads and keeps the benchmarks' time accounting), whose floats are the reference's; an inner dimension of 1
is computed as the outer product it is (PyTorch's signed zeros, which a GEMM's zeroed accumulator turns into
+0.0, and ~10x less time than OpenBLAS takes for such a GEMM)."""
from __future__ import annotations

import numpy as np

from .._dtype import LOWP_NP, NARROW_NP, complex64, complex128
from .._quiet_fp import loud, quiet, silent
from .._random.fpmath import fma64_into
from ..autograd.grad_mode import _Active, _State
from ..tensor import _make
from .._ops._core import paths
from .._ops._core.registry import CAPTURE as _CAPTURE
from .._ops._core.record import record
from .._ops._kernels import compiled as _compiled
from .._ops._kernels.cpu_level import pytorch_level
from .._ops._kernels.muladd import fma32_into
from .._ops._kernels.parallel import matmul as _gemm
from .._ops.linalg import matmul as matmul_ops, products as products_ops
from .._ops.nn.linear import _LinearAddmm, addmm_grads
from .._ops.nn import linear as linear_ops
from .._ops.reduce import reduce as _reduce
from .._ops.shape.shape import UnsafeViewBackward0, ViewBackward0
from .blas_outer import blas_outer
from . import mkl_gemm

_LOWP_OR_NARROW = LOWP_NP | NARROW_NP
_BLAS_OUTER_FROM = 65536  # elements: below, the ctypes call and the fill cost more than numpy's loop
_MKL = "MKL's GEMMs as ATen calls them where the [mkl] extra is installed (float32/float64 of one dtype)"

_np_product_ref = paths.reference_kernel(matmul_ops, "_np_product")


@paths.kernel(matmul_ops, "_np_product", ulps=None,
              when=f"{_MKL}; else an inner dimension of 1 as an outer product (from 65536 2-d elements the "
                   "compiled kernel where numba is on, else the BLAS's ?ger), and OpenBLAS's GEMM through "
                   "parallel.matmul", why="PyTorch's bits and speed")
def np_product(a, b):
    mkl = None if mkl_gemm.missing else mkl_gemm.gemms()
    if mkl is not None and a.dtype in mkl.FLOATS and b.dtype == a.dtype and type(a) is np.ndarray \
            and type(b) is np.ndarray:
        return mkl.product(a, b)
    if a.dtype in _LOWP_OR_NARROW:
        return _np_product_ref(a, b)  # (its float32 product comes back here)
    if a.ndim >= 2 and b.ndim >= 2 and a.shape[-1] == 1:
        if a.ndim == 2 and b.ndim == 2 and a.shape[0] * b.shape[1] >= _BLAS_OUTER_FROM and type(a) is np.ndarray \
                and type(b) is np.ndarray:  # (a meta array's product: numpy's multiply gives its shape)
            # numpy's broadcast multiply runs its inner loop per row without SIMD: the compiled kernel writes
            # each product once (3.5x faster than the BLAS's rank-1 update on a -0.0 fill, which is 1.7x
            # faster than numpy; einsum, faster too, turns -0.0 products into +0.0)
            fast = _compiled.family("outer") if a.dtype in _compiled.FLOATS and b.dtype == a.dtype else None
            if fast is not None:
                out = np.empty((a.shape[0], b.shape[1]), a.dtype)
                fast.outer_into(np.ascontiguousarray(a[:, 0]), np.ascontiguousarray(b[0]), out)
                return out
            out = blas_outer(a[:, 0], b[0])
            if out is not None:
                return out
        # row-major as a GEMM's result is (numpy would follow transposed operands' layout, and the
        # layout decides the order in which a later random fill, e.g. dropout's, draws); inf * 0 is NaN
        # silently, as PyTorch's product
        fp = quiet()
        try:
            return np.multiply(a, b, order="C")
        finally:
            loud(fp)
    return _gemm(a, b)


_addmm_ref = paths.reference_kernel(linear_ops, "_addmm")


@paths.kernel(linear_ops, "_addmm", ulps=None,
              when=f"{_MKL}: addmm(b, x, W.t()), the bias added inside the GEMM; else OpenBLAS's GEMM through "
                   "parallel.matmul, 3 to 64 rows against a weight of at least 128 outputs as W @ x.T",
              why="PyTorch's bits (MKL); speed (W @ x.T: 1.3-1.9x faster there; the same dot products, which "
                  "OpenBLAS's Haswell kernels, picked on AMD Zen 5, sum in another order than x @ W.T's)")
def addmm(x, w, b):
    if x.dtype in LOWP_NP:
        return _addmm_ref(x, w, b)
    mkl = None if mkl_gemm.missing else mkl_gemm.gemms()
    if mkl is not None and x.dtype in mkl.FLOATS:
        return mkl.mm(x, w.T) if b is None else mkl.addmm(b, x, w.T)
    out = _gemm(w, x.T).T.copy() if 2 < x.shape[0] <= 64 and w.shape[0] >= 128 else _gemm(x, w.T)
    if b is not None:
        fp = quiet()  # inf - inf: NaN, silently, as PyTorch's addmm
        try:
            out += b  # in place: the product is a fresh array
        finally:
            loud(fp)
    return out


_addmul_ref = paths.reference_kernel(products_ops, "_addmul_arrays")


@paths.kernel(products_ops, "_addmul_arrays", ulps=None, when=f"{_MKL}, with an input of that dtype: addmm, baddbmm",
              why="PyTorch's bits: the GEMM adds the scaled input inside its kernel (beta), as ATen calls it")
def addmul_arrays(x, a, b, beta, alpha):
    mkl = None if mkl_gemm.missing else mkl_gemm.gemms()
    if mkl is not None and a.dtype in mkl.FLOATS and b.dtype == a.dtype == x.dtype and a.ndim == b.ndim:
        return (mkl.addmm if a.ndim == 2 else mkl.baddbmm)(x, a, b, beta, alpha)
    return _addmul_ref(x, a, b, beta, alpha)


# gradients left to the formula: half/bfloat16 widen their products to float32 there, and complex ones take
# conjugates (PyTorch's convention, ``holomorphic_backward``)
_FORMULA_GRAD = LOWP_NP | {complex64.np, complex128.np}


@paths.backward(_LinearAddmm, when="no graph of the gradient wanted; real gradients, not half or bfloat16",
                why="speed: the formula (addmm_grads) on the saved arrays, with matmul's array product")
def linear_backward(self, g):
    if _State.enabled or g._data.dtype in _FORMULA_GRAD:
        return _LinearAddmm.formula(self, g)
    x, w = self._unpacked_saved
    gb, gx, w_rows = addmm_grads(g._data, None if x is None else x._data, None if w is None else w._data.T,
                                 self.need_b, self.need_x, self.need_w, matmul_ops._np_matmul, _transposed,
                                 _sum_rows, flip=_rows_as_they_are)
    return (None if gb is None else _make(gb), None if gx is None else _make(gx),
            None if w_rows is None else _make(w_rows).t())


def _sum_rows(g: np.ndarray) -> np.ndarray:
    # the sum op's own step (PyTorch's cascade where the [fast] path sums), as the formula's ``g.sum(0)`` and a
    # compiled step's plan sum it: numpy's ``g.sum(0)`` adds the rows in another order
    return _reduce._sum_array(g, (0,), False, g.dtype)


def _rows_as_they_are(rows: np.ndarray) -> np.ndarray:
    return rows


def _transposed(a: np.ndarray) -> np.ndarray:
    return a.T  # (np.transpose's Python layer costs 0.3 us a call, two a layer)


_linear_ref = paths.reference("F.linear")
_linear = linear_ops.linear  # the public function: its profiler row, subclass and transform dispatch


@paths.forward("F.linear", when="a C-contiguous input of 3 or more dims (or 1-d with a bias), a last dim of at "
               "least 1, a 2-d weight, a 1-d bias or none, no transform active and no graph capture (which records "
               "the reference's view of the rows)",
               why="speed: the input's rows and the result made by their view nodes directly, without view's "
                   "shape inference and transform dispatch (about 4 us a call)")
def linear(input, weight, bias=None):
    x = input._data
    if ((x.ndim >= 3 or (x.ndim == 1 and bias is not None)) and x.flags.c_contiguous and x.shape[-1]
            and weight._data.ndim == 2 and (bias is None or bias._data.ndim == 1)
            and not (_Active.transforms and _State.transforms) and _CAPTURE[0] is None):
        rows = _linear(record(x.reshape(-1, x.shape[-1]), ViewBackward0, (input,), view_of=input, in_shape=x.shape),
                       weight, bias)
        r = rows._data
        shape = x.shape[:-1] + (weight._data.shape[0],)
        if bias is None:
            return record(r.reshape(shape), UnsafeViewBackward0, (rows,), in_shape=r.shape)
        return record(r.reshape(shape), ViewBackward0, (rows,), view_of=rows, in_shape=r.shape)
    return _linear_ref(input, weight, bias)


_cross_ref = paths.reference_kernel(products_ops, "_cross_values")


@paths.kernel(products_ops, "_cross_values", ulps=None,
              when="float32/float64 where PyTorch's CPU path is AVX2 or AVX512 (cpu_level.pytorch_level())",
              why="PyTorch's bits: its vector builds compile the kernel's x[j] * y[k] - x[k] * y[j] with the first "
                  "product fused into the subtraction (one FMA after the second product's rounding)")
@silent
def cross_values(x, y, d):
    if x.dtype not in (np.float32, np.float64) or type(x) is not np.ndarray or type(y) is not np.ndarray \
            or pytorch_level() == "DEFAULT":
        return _cross_ref(x, y, d)
    xs, ys = np.moveaxis(x, d, 0), np.moveaxis(y, d, 0)
    # the three components at once: x[j] * y[k] fused with -(x[k] * y[j]), (i, j, k) cyclic
    first, second = [1, 2, 0], [2, 0, 1]
    xj, yk = xs[first], ys[second]
    subtracted = -(xs[second] * ys[first])  # rounded in the tensors' dtype: the kernel's second product
    out = np.empty(xj.shape, x.dtype)
    if x.dtype == np.float32:
        fma32_into(out, xj, yk, subtracted, np.empty(out.shape), np.empty(out.shape, np.int64))
    else:
        fma64_into(out, xj, yk, subtracted, [np.empty(out.shape) for _ in range(5)])
    return np.ascontiguousarray(np.moveaxis(out, 0, d))
