"""Sparse CSR matrices against PyTorch, as a layout that converts: construction, reprs, the conversions to
and from dense and COO, crow/col indices and values, the products with a dense matrix (values and
gradients), sampled_addmm, and PyTorch's errors."""
import numpy as np
import pytest
from _sparse_compare import raises_alike, run_both, same_or_raises_alike

import tinytorch as tt

# a sparse tensor made once: functions looked up before the first one exists (``lib.exp(csr(lib))`` reads
# lib.exp first) would otherwise miss the sparse dispatch that the first sparse tensor installs
tt.tensor([[1.0]]).to_sparse_csr()

CROW, COL, VAL = [0, 1, 3, 3, 5], [2, 0, 2, 1, 3], [3.0, 4.0, 5.0, -1.0, 2.0]


def csr(lib, rg=False, dtype=None):
    v = lib.tensor(VAL, dtype=dtype, requires_grad=rg)
    return lib.sparse_csr_tensor(lib.tensor(CROW), lib.tensor(COL), v, (4, 4))


def dense(lib, shape=(4, 3), seed=1):
    return lib.tensor(np.random.default_rng(seed).standard_normal(shape).astype(np.float32))


CASES = [
    lambda lib: csr(lib),
    lambda lib: [repr(csr(lib)), repr(csr(lib, rg=True)), repr(csr(lib, dtype=lib.float64))],
    lambda lib: lib.sparse_csr_tensor(lib.tensor(CROW), lib.tensor(COL), lib.tensor(VAL)),  # size inferred
    lambda lib: [csr(lib).crow_indices(), csr(lib).col_indices(), csr(lib).values(), csr(lib)._nnz(),
                 csr(lib).sparse_dim(), csr(lib).dense_dim(), str(csr(lib).layout), csr(lib).is_sparse,
                 csr(lib).is_sparse_csr, tuple(csr(lib).shape)],
    lambda lib: csr(lib).to_dense(),
    lambda lib: csr(lib).to_sparse(),
    lambda lib: csr(lib).to_sparse_coo(),
    lambda lib: csr(lib).to_sparse_csr(),
    lambda lib: dense(lib, (4, 4)).relu().to_sparse_csr(),
    lambda lib: dense(lib, (4, 4)).relu().to_sparse(layout=lib.sparse_csr),
    lambda lib: dense(lib, (4, 4)).relu().to_sparse().to_sparse_csr(),
    lambda lib: lib.sparse_coo_tensor(lib.tensor([[1, 0, 1], [2, 1, 2]]), lib.tensor([1.0, 2.0, 3.0]),
                                      (3, 3)).to_sparse_csr(),
    lambda lib: [csr(lib) * 2, 2 * csr(lib), csr(lib).double(), csr(lib).clone(), csr(lib).detach()],
    lambda lib: [csr(lib) @ dense(lib), lib.mm(csr(lib), dense(lib)), lib.sparse.mm(csr(lib), dense(lib)),
                 lib.matmul(csr(lib), dense(lib))],
    lambda lib: [lib.abs(csr(lib)), -csr(lib), csr(lib).relu(), csr(lib).sqrt(), csr(lib).sum(),
                 csr(lib) + csr(lib), csr(lib) * csr(lib), lib.ones(4, 4) + csr(lib)],
]


def test_csr_sin(torch):
    run_both(torch, lambda lib: [csr(lib).sin(), lib.tanh(csr(lib))], rtol=1e-6)  # numpy's float32 sin: last bits


def test_csr_addmm(torch):
    # PyTorch's CSR addmm is MKL's: its sums may round otherwise in the last bit
    run_both(torch, lambda lib: lib.addmm(lib.ones(4, 3), csr(lib), dense(lib)), rtol=1e-6)


@pytest.mark.parametrize("i", range(len(CASES)))
def test_csr_matches_pytorch(torch, i):
    run_both(torch, CASES[i])


PRODUCTS = {
    "sparse.mm": lambda lib, s, d: lib.sparse.mm(s, d),
    "mm": lambda lib, s, d: lib.mm(s, d),
    "@": lambda lib, s, d: s @ d,
    "addmm": lambda lib, s, d: lib.addmm(lib.ones(4, 3), s, d, beta=0.5, alpha=2.0),
}


@pytest.mark.parametrize("name", PRODUCTS)
@pytest.mark.parametrize("grad", ["values", "leaf", "dense only"])
def test_csr_products_and_gradients(torch, name, grad):
    def program(lib):
        v = lib.tensor(VAL, requires_grad=grad == "values")
        s = lib.sparse_csr_tensor(lib.tensor(CROW), lib.tensor(COL), v if grad != "leaf" else lib.tensor(VAL), (4, 4),
                                  requires_grad=grad == "leaf")
        d = dense(lib).requires_grad_()
        out = PRODUCTS[name](lib, s, d)
        out.backward(dense(lib, (4, 3), seed=4))
        return [out, type(out.grad_fn).__name__, d.grad, v.grad if grad == "values" else None,
                s.grad if grad == "leaf" else None]

    # PyTorch's CSR product is MKL's: its sums may round otherwise in the last bit
    same_or_raises_alike(torch, program, rtol=1e-6, atol=1e-7)


def test_csr_graph_nodes(torch):
    def program(lib):
        c = csr(lib, rg=True)
        d = dense(lib, (4, 4)).requires_grad_()
        outs = [c, c.values(), c.to_dense(), d.to_sparse_csr(), d.to_sparse().to_sparse_csr(), c.to_sparse()]
        return [[type(o.grad_fn).__name__ for o in outs], [o.requires_grad for o in outs]]

    run_both(torch, program)


def test_to_dense_gradient_is_csr(torch):
    def program(lib):
        s = lib.sparse_csr_tensor(lib.tensor(CROW), lib.tensor(COL), lib.tensor(VAL), (4, 4), requires_grad=True)
        s.to_dense().pow(2).sum().backward()
        d = dense(lib, (4, 4)).requires_grad_()
        d.to_sparse_csr().to_dense().sum().backward()
        return [s.grad, d.grad]

    run_both(torch, program)


def test_sampled_addmm(torch):
    def program(lib):
        a, b = dense(lib, (4, 5)).requires_grad_(), dense(lib, (5, 4), seed=2).requires_grad_()
        out = lib.sparse.sampled_addmm(csr(lib), a, b, beta=0.5, alpha=2.0)
        out.values().sum().backward()
        return [out, a.grad, b.grad]

    run_both(torch, program, rtol=1e-6)


ERRORS = [
    lambda lib: csr(lib).indices(),
    lambda lib: csr(lib).coalesce(),
    lambda lib: csr(lib)._values(),
    lambda lib: dense(lib).crow_indices(),
    lambda lib: csr(lib) - csr(lib),
    lambda lib: csr(lib) / 2,
    lambda lib: csr(lib).square(),
    lambda lib: csr(lib).sum(0),
    lambda lib: csr(lib).view(-1),
    lambda lib: lib.exp(csr(lib)),
    lambda lib: lib.sparse.sampled_addmm(dense(lib, (4, 4)), dense(lib, (4, 2)), dense(lib, (2, 4))),
]


@pytest.mark.parametrize("i", range(len(ERRORS)))
def test_csr_errors(torch, i):
    raises_alike(torch, ERRORS[i])
