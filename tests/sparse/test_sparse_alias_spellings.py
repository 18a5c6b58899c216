"""Every spelling of an op reaches its sparse kernel: ``torch.dsmm`` (gpytorch's interpolation calls it),
``torch.arctan``, ``Tensor.absolute``, ``torch.special.expm1`` ... are callables of their own with their own
``__name__`` (as in PyTorch), and a sparse tensor's dispatch must find the op behind each, the values, layout and
errors PyTorch's."""
import pytest
from _sparse_compare import same_or_raises_alike

import tinytorch as tt

tt.tensor([[1.0]]).to_sparse()  # (the sparse dispatch is installed with the first sparse tensor)


def coo(lib):
    return lib.sparse_coo_tensor(lib.tensor([[0, 1, 0, 2], [2, 0, 2, 1]]), lib.tensor([0.5, -0.25, 0.125, 0.75]),
                                 (3, 3))


def dense(lib):
    return lib.arange(6, dtype=lib.float32).reshape(3, 2) / 4


CALLS = {
    "torch.dsmm": lambda lib: lib.dsmm(coo(lib), dense(lib)),
    "torch.spmm": lambda lib: lib.spmm(coo(lib), dense(lib)),
    "torch.arcsin": lambda lib: lib.arcsin(coo(lib)),
    "torch.arctan": lambda lib: lib.arctan(coo(lib)),
    "torch.arcsinh": lambda lib: lib.arcsinh(coo(lib)),
    "torch.arctanh": lambda lib: lib.arctanh(coo(lib)),
    "torch.negative": lambda lib: lib.negative(coo(lib)),
    "torch.absolute": lambda lib: lib.absolute(coo(lib)),
    "torch.fix": lambda lib: lib.fix(coo(lib)),
    "torch.subtract": lambda lib: lib.subtract(coo(lib), coo(lib)),
    "torch.multiply": lambda lib: lib.multiply(coo(lib), coo(lib)),
    "torch.divide": lambda lib: lib.divide(coo(lib), 2.0),
    "torch.true_divide": lambda lib: lib.true_divide(coo(lib), 2.0),
    "torch.swapaxes": lambda lib: lib.swapaxes(coo(lib), 0, 1),
    "torch.swapdims": lambda lib: lib.swapdims(coo(lib), 0, 1),
    "torch.special.expm1": lambda lib: lib.special.expm1(coo(lib)),
    "torch.special.log1p": lambda lib: lib.special.log1p(coo(lib)),
    "torch.special.erf": lambda lib: lib.special.erf(coo(lib)),
    "torch.special.round": lambda lib: lib.special.round(coo(lib)),
    "Tensor.arctan": lambda lib: coo(lib).arctan(),
    "Tensor.absolute": lambda lib: coo(lib).absolute(),
    "Tensor.negative": lambda lib: coo(lib).negative(),
    "Tensor.fix": lambda lib: coo(lib).fix(),
    "Tensor.multiply": lambda lib: coo(lib).multiply(coo(lib)),
    "Tensor.swapaxes": lambda lib: coo(lib).swapaxes(0, 1),
}


@pytest.mark.parametrize("spelling", list(CALLS))
def test_spelling_reaches_the_sparse_kernel(torch, spelling):
    # numpy's float32 asin/asinh/atanh/log1p against PyTorch's SLEEF: the last bits (as in test_sparse_coo.py)
    same_or_raises_alike(torch, CALLS[spelling], rtol=1e-6)
