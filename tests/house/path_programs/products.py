"""Programs that reach the paths of ``tinytorch/_cpu/products.py`` (matmul's array product, linear's and
addmm's, linear's gradient on arrays, linear's rows, cross): target -> [make(rng, dtype, shape) yielding
(name, fn, arrays)].

Every product and sum here is exact: the inputs are quarters in [-2, 2] (alpha and beta too), and each
output has 2**j + 1 elements (or one), so that the test's cotangent, ``linspace(-1, 1, n)``, steps by a power
of two. A path that calls another BLAS (MKL, where the ``[mkl]`` extra is installed) sums in another order
than numpy's, and only exact sums agree whatever the order: what the programs hold each path to is its
layouts, transposes, folds, bias, alpha and beta. Their rounding against PyTorch's is the bit-exact tests'
part (``tests/ops/_kernels/test_kernels_mkl.py``, ``tests/nn/test_nn_linear.py``)."""
import numpy as np

import tinytorch as tt

F = tt.nn.functional

# (rows, inner, columns) by the rank of the shape the test passes: rows * columns = 2**j + 1
_SIZES = {0: (3, 4, 3), 1: (3, 6, 11), 2: (5, 7, 13), 3: (3, 5, 43)}


def _arrays(rng, dtype, *shapes):
    return [np.asarray(rng.integers(-8, 9, s) / 4, dtype=dtype) for s in shapes]


def _matmuls(rng, dtype, shape):
    m, k, n = _SIZES[len(shape)]
    yield "mm", (lambda a, b: a @ b), _arrays(rng, dtype, (m, k), (k, n))
    yield "batched", (lambda a, b: a @ b), _arrays(rng, dtype, (3, 9, k), (3, k, 19))
    yield "broadcast rows", (lambda a, b: a @ b), _arrays(rng, dtype, (3, 9, k), (k, 19))
    yield "vectors", (lambda a, b: a @ b), _arrays(rng, dtype, (k,), (k,))
    yield "matrix-vector", (lambda a, b: a.mv(b)), _arrays(rng, dtype, (m, k), (k,))
    yield "transposed", (lambda a, b: a.t() @ b.t()), _arrays(rng, dtype, (k, m), (n, k))
    yield "inner dim 1", (lambda a, b: a @ b), _arrays(rng, dtype, (m, 1), (1, n))
    yield "inner dim 1, batched", (lambda a, b: a @ b), _arrays(rng, dtype, (3, 3, 1), (3, 1, 57))
    # the BLAS's outer product (from 65536 elements): its forward only (sums this long are not exact)
    yield "inner dim 1, large", (lambda a, b: (a @ b).detach()), _arrays(rng, dtype, (256, 1), (1, 260))


def _linears(rng, dtype, shape):
    m, k, n = _SIZES[len(shape)]
    yield "bias", F.linear, _arrays(rng, dtype, (m, k), (n, k), (n,))
    yield "no bias", F.linear, _arrays(rng, dtype, (m, k), (n, k))
    yield "few rows, wide weight", F.linear, _arrays(rng, dtype, (3, k), (171, k), (171,))
    yield "batch of one", F.linear, _arrays(rng, dtype, (1, 300), (257, 300), (257,))
    yield "input only", (lambda x, w, b: F.linear(x, w.detach(), b.detach())), _arrays(rng, dtype, (m, k), (n, k),
                                                                                        (n,))
    yield "weight only", (lambda x, w: F.linear(x.detach(), w)), _arrays(rng, dtype, (m, k), (n, k))


def _linear_rows(rng, dtype, shape):
    m, k, n = _SIZES[len(shape)]
    yield "3-d", F.linear, _arrays(rng, dtype, (3, 3, k), (57, k), (57,))
    yield "3-d, no bias", F.linear, _arrays(rng, dtype, (3, 3, k), (57, k))
    yield "4-d", F.linear, _arrays(rng, dtype, (3, 1, 3, k), (57, k), (57,))
    yield "1-d", F.linear, _arrays(rng, dtype, (k,), (n, k), (n,))
    yield "strided", (lambda x, w, b: F.linear(x.transpose(0, 1), w, b)), _arrays(rng, dtype, (3, 3, k), (57, k),
                                                                                   (57,))
    yield "2-d", F.linear, _arrays(rng, dtype, (m, k), (n, k), (n,))


def _addmuls(rng, dtype, shape):
    m, k, n = _SIZES[len(shape)]
    yield "addmm", (lambda c, a, b: tt.addmm(c, a, b, beta=0.5, alpha=-2.0)), _arrays(rng, dtype, (m, n), (m, k),
                                                                                        (k, n))
    yield "addmm, broadcast", (lambda c, a, b: tt.addmm(c, a, b)), _arrays(rng, dtype, (n,), (m, k), (k, n))
    yield "addmm, beta 0", (lambda c, a, b: tt.addmm(c, a, b, beta=0)), _arrays(rng, dtype, (m, n), (m, k), (k, n))
    yield "baddbmm", (lambda c, a, b: tt.baddbmm(c, a, b, alpha=0.25)), _arrays(rng, dtype, (3, 9, 19), (3, 9, k),
                                                                                   (3, k, 19))
    yield "addmv", (lambda c, a, b: tt.addmv(c, a, b, beta=2)), _arrays(rng, dtype, (m,), (m, k), (k,))


def _crosses(rng, dtype, shape):
    # exact products (quarters): the fused and the rounded differences agree, so this holds the path's layouts
    yield "linalg.cross", (lambda a, b: tt.linalg.cross(a, b)), _arrays(rng, dtype, (4, 3), (4, 3))
    yield "cross, dim 0, broadcast", (lambda a, b: tt.cross(a, b, dim=0)), _arrays(rng, dtype, (3, 1, 5), (3, 2, 5))
    yield "cross, strided", (lambda a, b: tt.linalg.cross(a.transpose(0, 1), b.transpose(0, 1), dim=0)), \
        _arrays(rng, dtype, (2, 3), (2, 3))


PROGRAMS = {
    "matmul._np_product": [_matmuls, _linears],
    "linear._addmm": [_linears],
    "AddmmBackward0": [_linears, _linear_rows],
    "F.linear": [_linear_rows],
    "products._addmul_arrays": [_addmuls],
    "products._cross_values": [_crosses],
}
