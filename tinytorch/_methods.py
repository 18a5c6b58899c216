"""Attach the ops to ``Tensor`` as methods and operators (``t.sum()``, ``a + b``, ``t[0] = 1``)."""
from __future__ import annotations


from .ops import inplace, linalg, reduce
from .tensor import Tensor


def _reflect(fn):
    return lambda self, other: fn(other, self)


def _max(self, dim=None, keepdim=False):
    return reduce.max(self, dim, keepdim)


def _min(self, dim=None, keepdim=False):
    return reduce.min(self, dim, keepdim)


def _bind() -> None:
    T = Tensor
    # arithmetic, comparisons, logical and bitwise ops: declared in ops/arith.py, power.py, compare.py
    T.__matmul__ = T.matmul = linalg.matmul
    T.__rmatmul__ = _reflect(linalg.matmul)
    T.mm, T.bmm, T.dot = linalg.mm, linalg.bmm, linalg.dot
    T.__pos__ = lambda self: self
    # reductions
    for name in ("sum", "mean", "var", "std", "argmax", "argmin", "all", "any", "logsumexp", "softmax",
                 "log_softmax", "amax", "amin"):
        setattr(T, name, getattr(reduce, name))
    T.max, T.min = _max, _min
    # in place


_bind()


# -- the rest of the tensor API (scans, sorting, masked/indexed ops, triangles, special functions,
# products, norms, matrix functions), bound here as one block ---------------------------------------
def _bind_more() -> None:
    from .ops import linalg_ext, products, scan, sort, special  # noqa: F401  (declares the special functions)
    from .ops import vector_norm as norm
    from .ops._record import keepdims_alias

    T = Tensor

    def inplace_of(fn):
        def method(self, *args, **kwargs):
            return inplace.apply_inplace(self, fn, *args, **kwargs)
        method.__name__ = fn.__name__ + "_"
        return method

    for mod, names in (
            (scan, ("cumsum", "cumprod", "logcumsumexp", "cummax", "cummin", "prod")),
            (sort, ("sort", "argsort", "msort", "topk", "kthvalue", "median", "nanmedian", "mode", "unique",
                    "unique_consecutive", "bincount", "histc", "count_nonzero", "aminmax")),
            (products, ("outer", "ger", "kron", "cross", "addmm", "addmv", "baddbmm")),
            (norm, ("norm",))):
        for name in names:
            setattr(T, name, getattr(mod, name))
    T.nonzero, T.argwhere = sort.nonzero, sort.argwhere
    T.inverse, T.det, T.logdet, T.slogdet = linalg_ext.inv, linalg_ext.det, linalg_ext.logdet, linalg_ext.slogdet
    T.pinverse = lambda self, rcond=1e-15: linalg_ext.pinv(self, rtol=rcond)
    for fn in (scan.cumsum, scan.cumprod):
        setattr(T, fn.__name__ + "_", inplace_of(fn))
    for fn in (products.addmm, products.addmv, products.baddbmm):
        setattr(T, fn.__name__ + "_", inplace_of(fn))
    # ``keepdims=`` is accepted as an alias of ``keepdim=`` on every reduction, as in PyTorch
    for name in ("max", "min", "argmax", "argmin", "all", "any", "logsumexp", "amax",
                 "amin", "prod", "norm", "median", "nanmedian", "mode", "kthvalue", "aminmax"):
        setattr(T, name, keepdims_alias(getattr(T, name)))


_bind_more()

# views added with the view + in-place machinery (ops/views.py)
Tensor.mv = linalg.mv
