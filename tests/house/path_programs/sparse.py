"""Programs that reach ``tinytorch/_cpu/sparse.py``'s multiply-add: a sparse-dense product (an axpy per stored
element, several on a row) and a sum of two COO tensors with alpha (on the values both hold)."""
import numpy as np

import tinytorch as tt


def _sparse(rng, rows, cols, dtype):
    """A COO matrix of ``dtype`` with about a third of its entries stored (uncoalesced: one index twice)."""
    keep = rng.random((rows, cols)) < 0.35
    r, c = np.nonzero(keep)
    r, c = np.append(r, r[:1]), np.append(c, c[:1])
    vals = np.asarray(rng.standard_normal(r.size) * 3, dtype=dtype)
    return tt.sparse_coo_tensor(tt.tensor(np.stack([r, c])), tt.tensor(vals), (rows, cols), check_invariants=True)


def _products(rng, dtype, shape):
    k = 2 + (int(np.prod(shape)) if shape else 1) % 7
    s = _sparse(rng, 6, k, dtype)
    d = np.asarray(rng.standard_normal((k, 4)) * 5, dtype=dtype)
    yield "sparse mm", (lambda x: tt.sparse.mm(s, x)), [d]
    t = np.asarray(rng.standard_normal((6, 4)), dtype=dtype)
    yield "sparse addmm, alpha", (lambda x, y: tt.sparse.addmm(y, s, x, beta=0.5, alpha=1.7)), [d, t]


def _sums(rng, dtype, shape):
    a, b = _sparse(rng, 5, 6, dtype), _sparse(rng, 5, 6, dtype)
    x = np.zeros(1, dtype)
    yield "sparse add, alpha", (lambda v: tt.add(a, b, alpha=1.3).to_dense()), [x]
    yield "sparse sub", (lambda v: tt.sub(a.coalesce(), b.coalesce(), alpha=0.7).to_dense()), [x]


PROGRAMS = {"arrays._fma": [_products, _sums]}
