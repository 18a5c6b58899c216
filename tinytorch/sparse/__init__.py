"""``tinytorch.sparse``: tinytorch has no sparse tensors (each tensor is one dense numpy array).
Every constructor and function here raises, naming that, instead of silently densifying."""
from __future__ import annotations

from .._tensor.members import SPARSE_UNSUPPORTED

__all__ = ["mm", "sum", "softmax", "log_softmax", "addmm", "spdiags", "to_sparse_semi_structured",
           "check_sparse_tensor_invariants"]


def _unsupported(name: str):
    def fn(*args, **kwargs):
        raise NotImplementedError(f"tinytorch.{name}: {SPARSE_UNSUPPORTED}")
    fn.__name__ = fn.__qualname__ = name.rpartition(".")[2]
    fn.__doc__ = f"Not supported: {SPARSE_UNSUPPORTED}."
    return fn


mm = _unsupported("sparse.mm")
sum = _unsupported("sparse.sum")  # noqa: A001
softmax = _unsupported("sparse.softmax")
log_softmax = _unsupported("sparse.log_softmax")
addmm = _unsupported("sparse.addmm")
spdiags = _unsupported("sparse.spdiags")
to_sparse_semi_structured = _unsupported("sparse.to_sparse_semi_structured")


class check_sparse_tensor_invariants:
    """Accepted (a context manager and decorator): there are no sparse tensors to check."""

    def __init__(self, enable: bool = True):
        self.enable = enable

    def __enter__(self):
        return self

    def __exit__(self, *exc):
        return False

    def __call__(self, fn):
        return fn

    @staticmethod
    def is_enabled() -> bool:
        return False


sparse_coo_tensor = _unsupported("sparse_coo_tensor")
sparse_csr_tensor = _unsupported("sparse_csr_tensor")
sparse_csc_tensor = _unsupported("sparse_csc_tensor")
sparse_compressed_tensor = _unsupported("sparse_compressed_tensor")
