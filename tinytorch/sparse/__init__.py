"""``tinytorch.sparse``: the sparse products and sums (``mm``, ``addmm``, ``sum``, ``sampled_addmm``) declared in
``_ops/sparse/ops.py``; the rest of PyTorch's namespace that tinytorch lacks raises, naming that."""
from __future__ import annotations

__all__ = ["mm", "sum", "softmax", "log_softmax", "addmm", "sampled_addmm", "spdiags", "to_sparse_semi_structured",
           "check_sparse_tensor_invariants"]

_MISSING = "not supported by tinytorch (its sparse tensors are COO, and CSR as a layout that converts)"


def _unsupported(name: str):
    def fn(*args, **kwargs):
        raise NotImplementedError(f"tinytorch.{name}: {_MISSING}")
    fn.__name__ = fn.__qualname__ = name.rpartition(".")[2]
    fn.__doc__ = f"Not supported: {_MISSING}."
    return fn


softmax = _unsupported("sparse.softmax")
log_softmax = _unsupported("sparse.log_softmax")
spdiags = _unsupported("sparse.spdiags")
to_sparse_semi_structured = _unsupported("sparse.to_sparse_semi_structured")


class check_sparse_tensor_invariants:
    """Accepted (a context manager and decorator); tinytorch checks a sparse tensor's indices as it makes it."""

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


# every op declared in torch.sparse (tinytorch/_ops/_core/registry.py)
from .._ops._core import registry as _registry  # noqa: E402

globals().update(_registry.namespace("sparse"))
