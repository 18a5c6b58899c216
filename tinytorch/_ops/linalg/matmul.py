"""Matrix products: matmul (1-d, 2-d, batched with broadcasting; also ``torch.linalg.matmul`` and the
``@`` operator), mm, bmm, mv, dot, with vmap's rule for them, and float8's scaled mm. The products of
arrays are ``_np_matmul``; PyTorch's CPU paths for it are in ``tinytorch/_cpu/products.py``."""
from __future__ import annotations

import math

import numpy as np

from ..._dtype import F8_NP as _F8_NP, FROM_NP, LOWP_NP, NARROW_NP, cpp_name, to_np
from ... import _dtype_casts
from ..._quiet_fp import loud, quiet
from .._core import narrow_dtypes
from ...autograd.grad_mode import _Active, _State
from ...autograd.node import Node, elem_strides
from ...tensor import Tensor, _make
from .._core.batching import at, level_of, phys_of
from .._core.record import record
from .._core.registry import op
from ..._quiet_fp import cast, silent
from .._core.util import as_array, broadcast_shapes, holomorphic_backward
from ...autograd.node import sum_to
from ...autograd.forward_ad import _forward_only, _tangent_of, formula_sum, fw_operand, zero_operand
from ..shape.conversions import contiguous
from ..shape.shape import expand, reshape, squeeze, squeeze_, t, unsafe_view, unsqueeze, view

_PRODUCT = "function method out"


# the C++ type names PyTorch's matmul errors print


def _check_dtypes(a: np.ndarray, b: np.ndarray) -> None:
    if a.dtype != b.dtype:
        da, db = FROM_NP[a.dtype], FROM_NP[b.dtype]
        if a.ndim == 1 and b.ndim == 1:
            raise RuntimeError(f"dot : expected both vectors to have same dtype, but found {da._scalar} and "
                               f"{db._scalar}")
        raise RuntimeError(f"expected m1 and m2 to have the same dtype, but got: {cpp_name(a.dtype)} != "
                           f"{cpp_name(b.dtype)}")


def addmv_dtype_error(x: np.ndarray, a: np.ndarray, v: np.ndarray) -> str:
    """PyTorch's addmv's words for operands of more than one dtype (mv's too, whose result takes the vector's)."""
    return (f"addmv input tensors must have the same dtype, but got {FROM_NP[x.dtype]._scalar}, "
            f"{FROM_NP[a.dtype]._scalar}, and {FROM_NP[v.dtype]._scalar}")


def _matmul_dtypes(a: np.ndarray, b: np.ndarray) -> None:
    """matmul's error for operands of two dtypes, in the words of the kernel PyTorch's matmul reaches: bmm's
    where ``b`` is batched, addmv's for a vector ``b`` after a matrix (or a batch folded into one), else dot's or
    mm's (``_check_dtypes``)."""
    if b.ndim >= 3:
        raise RuntimeError(f"expected scalar type {FROM_NP[a.dtype]._scalar} but found {FROM_NP[b.dtype]._scalar}")
    if b.ndim == 1 and a.ndim >= 2:
        raise RuntimeError(addmv_dtype_error(b, a, b))
    _check_dtypes(a, b)


def _shape_error(a: np.ndarray, b: np.ndarray):
    if a.ndim == 1 and b.ndim == 1:
        return RuntimeError(f"inconsistent tensor size, expected tensor [{a.shape[0]}] and src [{b.shape[0]}] to "
                            f"have the same number of elements, but got {a.shape[0]} and {b.shape[0]} elements "
                            "respectively")
    if a.ndim <= 2 and b.ndim <= 2:
        if a.ndim == 2 and b.ndim == 1:
            return RuntimeError(f"size mismatch, got input ({a.shape[0]}), mat ({a.shape[0]}x{a.shape[1]}), "
                                f"vec ({b.shape[0]})")
        ra = a.shape if a.ndim == 2 else (1, a.shape[0])
        return RuntimeError(f"mat1 and mat2 shapes cannot be multiplied ({ra[0]}x{ra[1]} and "
                            f"{b.shape[0]}x{b.shape[1]})")
    return RuntimeError(f"Expected size for first two dimensions of batch2 tensor to be: "
                        f"[{b.shape[0] if b.ndim > 2 else 1}, {a.shape[-1]}] but got: "
                        f"[{b.shape[0] if b.ndim > 2 else 1}, {b.shape[-2] if b.ndim > 1 else b.shape[0]}].")


def _column_major(shape, strides, itemsize) -> bool:
    """A matrix laid out column by column, as PyTorch tests it (element strides (1, rows))."""
    st = elem_strides(shape, strides, itemsize)
    return st[0] == 1 and st[1] == shape[0]


def product_jvp(node, ta, tb, product, zero_exact: bool = False):
    """A product's forward formula as PyTorch writes it, ``product(self_t, other_p) + product(self_p, other_t)``
    (mm, bmm, mv, dot; matmul's other nodes with matmul). A missing tangent is its operand's zero tensor
    (``zero_operand``), multiplied out: the term records history through the other primal where that requires grad
    (an AddBackward0 with a None edge where neither does), and an infinite primal gives nan, as PyTorch's product of
    a zero tensor does; dot's (``zero_exact``) is zero whatever it multiplies, as PyTorch's dot of a zero tensor.
    The operand the backward does not keep is kept in a dual level (``fw_inputs``). (PyTorch's compiled formula
    runs its second product first: a tangent of another dtype is refused there first.)"""
    a, b = node._unpacked_saved
    kept = node.__dict__.get("fw_inputs")
    if kept is None:  # recorded before the dual level: the terms that have tangents
        return formula_sum(node, None if ta is None else product(ta, b), None if tb is None else product(a, tb))
    a, b = fw_operand(a, kept[0]), fw_operand(b, kept[1])
    second = _product_term(product, a, tb, b, zero_exact, first=False)
    return _product_term(product, ta, b, a, zero_exact, first=True) + second


def _product_term(product, x, y, missing_of, zero_exact: bool, first: bool):
    """``product(x, y)`` with the tangent among them (``x`` where ``first``) replaced by ``missing_of``'s zero tensor
    where it is None."""
    zero = (x if first else y) is None
    if zero:
        x, y = (zero_operand(missing_of), y) if first else (x, zero_operand(missing_of))
    term = product(x, y)
    if zero and zero_exact:
        term._data[...] = 0
    return term


def _product_rule(product, zero_exact: bool = False):
    """The ``jvp`` of a product's node: ``product_jvp`` with its product."""
    def jvp(self, ta, tb):
        return product_jvp(self, ta, tb, product, zero_exact)
    return jvp


class MmBackward0(Node):
    saved_fields = (("mat2", 1), ("mat2_sym_sizes", lambda n: tuple(n.shapes[1])),
                    ("mat2_sym_strides", lambda n: elem_strides(*n.strides[1]) if n.need_b else ()), ("self", 0),
                    ("self_sym_sizes", lambda n: tuple(n.shapes[0])),
                    ("self_sym_strides", lambda n: elem_strides(*n.strides[0]) if n.need_a else ()))

    @holomorphic_backward
    def backward(self, g):
        """PyTorch's ``mm_mat1_backward`` / ``mm_mat2_backward``: an operand that was column-major (a transposed
        matrix, ``w.t()``) gets its gradient as the transpose of the transposed product, in its own layout."""
        a, b = self._unpacked_saved
        sa, sb = self.strides
        ga = gb = None
        if self.need_b:  # mat2's first, as PyTorch's node computes them
            gb = g.t().mm(a).t() if _column_major(*sb) else a.t().mm(g)
        if self.need_a:
            ga = b.mm(g.t()).t() if _column_major(*sa) else g.mm(b.t())
        return ga, gb

    jvp = _product_rule(lambda x, y: x.mm(y))


class _GeneralMatmul(Node):
    """dot's and mv's node: the 1-d operands lifted to matrices."""

    @holomorphic_backward
    def backward(self, g):
        a, b = self._unpacked_saved  # each saved only when the other operand needs a gradient
        sa, sb = self.shapes
        g2 = g
        # b first: for 1-d @ 1-d the gradient is 0-d and becomes (1,) then (1, 1)
        if len(sb) == 1:
            g2 = g2.unsqueeze(-1)
        if len(sa) == 1:
            g2 = g2.unsqueeze(-2)
        ga = gb = None
        if self.need_a:
            b2 = b.unsqueeze(-1) if len(sb) == 1 else b
            ga = sum_to(g2.matmul(b2.mT), (1,) + sa if len(sa) == 1 else sa).reshape(sa)
        if self.need_b:
            a2 = a.unsqueeze(0) if len(sa) == 1 else a
            gb = sum_to(a2.mT.matmul(g2), sb + (1,) if len(sb) == 1 else sb).reshape(sb)
        return ga, gb


def _named(name, fields, **attrs):
    return type(name, (_GeneralMatmul,), {"saved_fields": fields, **attrs})


DotBackward0 = _named("DotBackward0", (("tensor", 1), ("self", 0)), jvp=_product_rule(lambda x, y: x.dot(y), True))
MvBackward0 = _named("MvBackward0", (("vec", 1), ("self", 0)), jvp=_product_rule(lambda x, y: x.mv(y)))


class BmmBackward0(_GeneralMatmul):
    """``bmm``'s node: each gradient one batched product with the other operand transposed (mat2's first, as
    PyTorch's node computes them)."""
    saved_fields = (("mat2", 1), ("self", 0))
    jvp = _product_rule(lambda x, y: x.bmm(y))

    @holomorphic_backward
    def backward(self, g):
        a, b = self._unpacked_saved
        gb = a.transpose(1, 2).bmm(g) if self.need_b else None
        ga = g.bmm(b.transpose(1, 2)) if self.need_a else None
        return ga, gb


_NODES = {(1, 1): DotBackward0, (2, 1): MvBackward0, (2, 2): MmBackward0}  # mm, mv and dot by the operands' ranks


_LOWP_OR_NARROW = LOWP_NP | NARROW_NP


def _np_matmul(a: np.ndarray, b: np.ndarray, a_requires_grad: bool = False, b_requires_grad: bool = False):
    """matmul's product of arrays where it records no graph: its steps as ``_steps`` takes them (which operand
    requires grad decides some folds), each product one ``_np_product``, so that a product has the floats it has
    with a graph (a GEMM rounds each shape of product its own way)."""
    na, nb = a.ndim, b.ndim
    if (na <= 2 and nb <= 2 and not (na == 1 and nb == 2)) or (na == 3 == nb and a.shape[0] == b.shape[0]) \
            or type(a) is not np.ndarray or type(b) is not np.ndarray:  # (a meta array's product: its shape)
        return _np_product(a, b)
    if na == 1 and nb == 2:  # a row
        return _np_product(a.reshape(1, -1), b).reshape(-1)
    if should_fold(a, b, a_requires_grad, b_requires_grad):
        transpose = nb > na
        t1 = np.swapaxes(b, -1, -2) if transpose else a
        t2 = (a.T if na == 2 else a) if transpose else b
        sizes = t1.shape
        out = _np_product(t1.reshape(math.prod(sizes[:-1]), sizes[-1]), t2).reshape(sizes[:-1] + t2.shape[1:])
        return np.ascontiguousarray(np.swapaxes(out, -1, -2)) if transpose and t2.ndim == 2 else out
    if na == 3 and nb == 3:  # batches of one and of more
        if a.shape[0] == 1 and a_requires_grad:
            return _np_matmul(a[0], b, a_requires_grad, b_requires_grad)
        if b.shape[0] == 1 and b_requires_grad:
            return _np_matmul(a, b[0], a_requires_grad, b_requires_grad)
    sa, sb = a.shape, b.shape
    batch = tuple(np.broadcast_shapes(sa[:-2], sb[:-2]))
    count = math.prod(batch)
    n, k, p = sa[-2] if na > 1 else 1, sa[-1], sb[-1] if nb > 1 else 1
    b3 = np.broadcast_to(b, batch + (k, p)[:nb]).reshape(count, k, p)
    out = _np_product(np.broadcast_to(a, batch + (n, k)).reshape(count, n, k), b3)
    return out.reshape(batch + sa[-2:-1] * (na > 1) + sb[-1:] * (nb > 1))


@silent  # inf and NaN compute silently, as PyTorch's products do
def _np_product(a: np.ndarray, b: np.ndarray):
    """One product of matmul's steps (two matrices, a matrix and a vector, two vectors, two batches of matrices of
    one length; ``_np_matmul`` folds the rest): np.matmul as PyTorch's CPU GEMMs compute it for each dtype: half and
    bfloat16 multiply and accumulate in float32 and round once; float8 likewise (complex32 and e8m0 refuse).
    PyTorch's own BLAS calls are a CPU path (``tinytorch/_cpu/products.py``)."""
    if a.dtype in _LOWP_OR_NARROW:
        if a.dtype in NARROW_NP:
            return narrow_dtypes.matmul(a, b, _np_product)
        return cast(_np_product(a.astype(np.float32), b.astype(np.float32)), a.dtype)  # inf past the range
    return np.matmul(a, b)


# -- vmap: the batch dim goes where numpy's broadcasting keeps it ----------------------------------
def _pad_batch(p, k: int, n: int):
    """Insert size-1 logical dims after the batch so a k-dim logical operand has n dims."""
    if k >= n:
        return p
    s = tuple(p.shape)
    return p.reshape(s[:1] + (1,) * (n - k) + s[1:])


def batch_matmul(op, a, b):
    """vmap's rule for matmul (and mm, bmm, dot, mv, whose checks the logical shapes pass first)."""
    lead = level_of((a, b))
    ba, bb = at(a, lead), at(b, lead)
    na, nb = a.dim(), b.dim()
    pa, pb = phys_of(a, lead), phys_of(b, lead)
    if na == 0 or nb == 0:
        raise RuntimeError(f"both arguments to matmul need to be at least 1D, but they are {na}D and {nb}D")
    if ba and bb:
        if na == 1 and nb == 1:
            return lead._wrap((pa * pb).sum(-1))
        if na == 1:
            shape = (lead._bsz,) + tuple(b.shape[:-2]) + (b.shape[-1],)
            return lead._wrap((pa.unsqueeze(-2) @ _pad_batch(pb, nb, 2)).squeeze(-2).reshape(shape))
        if nb == 1:
            return lead._wrap((pa @ pb.unsqueeze(-1)).squeeze(-1))
        n = max(na, nb)
        return lead._wrap(_pad_batch(pa, na, n) @ _pad_batch(pb, nb, n))
    if ba:  # batched @ plain
        if na == 1 and nb >= 3:
            return lead._wrap((pa.reshape((lead._bsz,) + (1,) * (nb - 2) + (1, a.shape[0])) @ pb).squeeze(-2))
        if na >= 2 and nb > na:
            return lead._wrap(_pad_batch(pa, na, nb) @ pb)
        return lead._wrap(pa @ pb)
    # plain @ batched
    if nb == 1:
        if na == 1:
            return lead._wrap(pb @ pa)
        # (.., k, n) @ (B, n) -> (B, .., k): put the batch in the columns
        return lead._wrap((pa @ pb.t()).permute((pa.dim() - 1,) + tuple(range(pa.dim() - 1))))
    if na == 1:
        return lead._wrap((pa.unsqueeze(0) @ pb).squeeze(-2))
    return lead._wrap(pa @ pb if na <= nb else pa @ _pad_batch(pb, nb, max(na, nb)))


def _batch_checked(check):
    """The rule of an op that only adds shape checks to matmul: check the logical shapes, then matmul's rule."""
    def rule(op, a, b):
        check(a.dim(), b.dim())
        return batch_matmul(op, a, b)
    return rule


@op(variants=_PRODUCT, dunders=("__matmul__",), rdunders=("__rmatmul__",), extra=("linalg.matmul",),
    batch=batch_matmul, autocast="lower")
def matmul(input: Tensor, other: Tensor) -> Tensor:
    """Matrix product with NumPy/PyTorch matmul semantics."""
    return _matmul(input, other, None)


def _matmul(a: Tensor, b: Tensor, cls) -> Tensor:
    """matmul, mm, mv, dot (``cls`` None: the node by the operands' ranks) and bmm (``cls``): the checks, then one
    product recorded as one node, or PyTorch's steps where matmul records a graph of more (``_steps``)."""
    if not isinstance(b, Tensor) or not isinstance(a, Tensor):
        raise TypeError(f"matmul(): argument 'other' (position 1) must be Tensor, not {type(b).__name__}")
    ad, bd = a._data, b._data
    if ad.ndim == 0 or bd.ndim == 0:
        raise RuntimeError(f"both arguments to matmul need to be at least 1D, but they are {ad.ndim}D and {bd.ndim}D")
    if ad.dtype != bd.dtype:
        _matmul_dtypes(ad, bd)
    k_b = bd.shape[0] if bd.ndim == 1 else bd.shape[-2]
    if ad.shape[-1] != k_b:
        raise _shape_error(ad, bd)
    if ad.ndim > 2 or bd.ndim > 2:
        broadcast_shapes(ad.shape[:-2], bd.shape[:-2])  # PyTorch's text for clashing batch dims
    if _State.enabled and (a._requires_grad or b._requires_grad):
        if cls is None:
            cls = _NODES.get((ad.ndim, bd.ndim))
            if cls is None:
                return _steps(a, b)
        out = as_array(_np_matmul(ad, bd, a._requires_grad, b._requires_grad))
        # as PyTorch: an operand is saved only for the other's gradient, so modifying it in place
        # afterwards is no error when the other needs none
        saved = (a if b._requires_grad else None, b if a._requires_grad else None)
        if cls is MmBackward0:  # its saved strides: PyTorch keeps each operand's for its own gradient (read lazily)
            return record(out, cls, (a, b), saved, need_a=a._requires_grad, need_b=b._requires_grad,
                          shapes=(ad.shape, bd.shape), **_dual_operands(a, b),
                          strides=((ad.shape, ad.strides, ad.itemsize), (bd.shape, bd.strides, bd.itemsize)))
        return record(out, cls, (a, b), saved, need_a=a._requires_grad, need_b=b._requires_grad,
                      shapes=(ad.shape, bd.shape), **_dual_operands(a, b))
    # no graph: one product of the arrays, which a CPU path folds as the steps below would (the flags decide it)
    return _make(as_array(_np_matmul(ad, bd, *_grad_flags(a, b))))


def records_steps(a: Tensor, b: Tensor) -> bool:
    """Whether ``matmul(a, b)`` records PyTorch's steps (``_steps``: a graph of more than one node), as ``_matmul``
    decides: a graph is recorded and the ranks are not mm's, mv's or dot's."""
    return _State.enabled and (a._requires_grad or b._requires_grad) and (a._data.ndim, b._data.ndim) not in _NODES


def _steps(a: Tensor, b: Tensor) -> Tensor:
    """matmul of a vector by a matrix, or with an operand of 3 or more dims, where autograd records: PyTorch's
    steps (ATen's ``_matmul_impl``), each the op it is, so that the graph is PyTorch's and each gradient that op's
    formula. The larger operand's batch folded into rows for one ``mm`` (``mv``) where ``should_fold`` says so,
    else both operands broadcast to one batch and flattened for one ``bmm``; the product viewed back
    (``_unsafe_view``)."""
    na, nb = a._data.ndim, b._data.ndim
    if na == 1 and nb == 2:  # a row: squeezed in place, as PyTorch's (the result's version is 1)
        return squeeze_(mm(unsqueeze(a, 0), b), 0)
    lifted = _lifted(a, b)
    grad_a, grad_b = _grad_flags(a, b)
    # (inside torch.func.jvp PyTorch folds nothing: its fold test sees functorch's wrappers, which require no grad,
    # where the batch-of-one test below sees the operands' own flags)
    if should_fold(a._data, b._data, grad_a and not lifted, grad_b and not lifted):
        transpose = nb > na  # b's batch folded: (b.mT rows) @ a.t() (or @ a), the product transposed back
        t1 = b.mT if transpose else a
        t2 = (t(a) if na == 2 else a) if transpose else b
        sizes = t1._data.shape
        rows = _reshape(t1, lifted, math.prod(sizes[:-1]), sizes[-1])  # a view, or a copy where b requires grad
        if t2._data.ndim == 1:
            return unsafe_view(mv(rows, t2), list(sizes[:-1]))
        out = unsafe_view(mm(rows, t2), list(sizes[:-1] + t2._data.shape[1:]))
        return contiguous(out.mT) if transpose else out
    sa, sb = a._data.shape, b._data.shape
    if na == 3 and nb == 3 and sa[0] != sb[0]:
        # a batch of one that requires grad is dropped, so that the fold above takes the product
        if sa[0] == 1 and grad_a:
            return _steps(squeeze(a, 0), b)
        if sb[0] == 1 and grad_b:
            return _steps(a, squeeze(b, 0))
    batch = tuple(np.broadcast_shapes(sa[:-2], sb[:-2]))
    count = math.prod(batch)
    n, k, p = sa[-2] if na > 1 else 1, sa[-1], sb[-1] if nb > 1 else 1
    a3 = _reshape(expand(a, batch + (n, k)), lifted, count, n, k)
    if nb == 1:  # the vector as a batch of columns
        out = squeeze(bmm(a3, unsqueeze(_reshape(expand(b, batch + (k,)), lifted, count, k), 2)), -1)
    else:
        out = bmm(a3, _reshape(expand(b, batch + (k, p)), lifted, count, k, p))
    return unsafe_view(out, list(batch + sa[-2:-1] * (na > 1) + sb[-1:] * (nb > 1)))


def should_fold(a: np.ndarray, b: np.ndarray, a_grad: bool, b_grad: bool) -> bool:
    """ATen's ``should_fold``: does matmul fold the batch of its operand of 3 or more dims into the rows of one mm
    (mv) against the other, a matrix or vector? Always where that other operand requires grad (``a_grad``,
    ``b_grad``: its gradient is then one product, not a batch of them summed; the rows may be a copy), else where
    the rows are a view and the result needs no copy back (not a matrix ``a``, whose product comes transposed)."""
    larger_first = a.ndim >= b.ndim
    big, small = (a, b) if larger_first else (b, a)
    if big.ndim < 3 or small.ndim > 2:
        return False
    if b_grad if larger_first else a_grad:
        return True
    if a.ndim == 2:
        return False
    if big.size == 0:
        return True
    shape, st = big.shape, elem_strides(big.shape, big.strides, big.itemsize)
    if not larger_first:  # the rows of b.mT
        shape, st = shape[:-2] + shape[:-3:-1], st[:-2] + st[:-3:-1]
    return all(st[i] == st[i + 1] * shape[i + 1] for i in range(len(shape) - 2))


def _grad_flags(a: Tensor, b: Tensor) -> tuple:
    """PyTorch's ``requires_grad()`` of the operands: in a dual level, a tensor recorded for forward AD alone has
    none."""
    ga, gb = a._requires_grad, b._requires_grad
    if not (ga or gb) or not (_Active.fw and _State.fw_level is not None):
        return ga, gb
    return ga and not _forward_only(a), gb and not _forward_only(b)


def _lifted(a: Tensor, b: Tensor) -> bool:
    """Inside ``torch.func.jvp``, where an operand carries the level's tangent, functorch has wrapped both operands:
    PyTorch's fold test sees wrappers that require no grad, and its reshape views a wrapper (it is
    "subclass-like")."""
    return _Active.fw and _State.fw_jvp and (_tangent_of(a) is not None or _tangent_of(b) is not None)


def _reshape(x: Tensor, lifted: bool, *shape) -> Tensor:
    """``reshape``; of functorch's wrapper (``lifted``) a ``view`` where the strides allow one."""
    if lifted:
        try:
            return view(x, *shape)
        except RuntimeError:
            pass
    return reshape(x, *shape)


def _dual_operands(a: Tensor, b: Tensor) -> dict:
    """In a dual level the node keeps both operands (``fw_inputs``): its forward formula reads both primals
    (``product_jvp``), where its backward keeps each only for the other's gradient."""
    return {"fw_inputs": (a, b)} if _Active.fw and _State.fw_level is not None else {}


def _mm_check(na: int, nb: int) -> None:
    if na != 2:
        raise RuntimeError("self must be a matrix")
    if nb != 2:
        raise RuntimeError("mat2 must be a matrix")


def _bmm_check(na: int, nb: int) -> None:
    if na != 3:
        raise RuntimeError("batch1 must be a 3D tensor")
    if nb != 3:
        raise RuntimeError("batch2 must be a 3D tensor")


def _mv_check(na: int, nb: int) -> None:
    if na != 2 or nb != 1:
        raise RuntimeError(f"vector + matrix @ vector expected, got 1, {na}, {nb}")


def _dot_check(na: int, nb: int) -> None:
    if na != 1 or nb != 1:
        raise RuntimeError(f"1D tensors expected, but got {na}D and {nb}D tensors")


@op(variants=_PRODUCT, batch=_batch_checked(_mm_check), autocast="lower")
def mm(input: Tensor, mat2: Tensor) -> Tensor:
    """2-d matrix product."""
    _mm_check(input._data.ndim, mat2._data.ndim)
    return _matmul(input, mat2, None)


@op(variants=_PRODUCT, batch=_batch_checked(_bmm_check), autocast="lower")
def bmm(input: Tensor, mat2: Tensor) -> Tensor:
    """Batched 3-d matrix product."""
    _bmm_check(input._data.ndim, mat2._data.ndim)
    return _matmul(input, mat2, BmmBackward0)


@op(variants=_PRODUCT, batch=_batch_checked(_mv_check))
def mv(input: Tensor, vec: Tensor) -> Tensor:
    """Matrix @ vector."""
    _mv_check(input._data.ndim, vec._data.ndim)
    return _matmul(input, vec, None)


@op(variants=_PRODUCT, batch=_batch_checked(_dot_check))
def dot(input: Tensor, tensor: Tensor) -> Tensor:
    """The inner product of two 1-d tensors."""
    if input._data.dtype in NARROW_NP:  # float8 / complex32: PyTorch's refusal (narrow_dtypes.py)
        narrow_dtypes.guard(input._data.dtype, "dot", "dot")
    _dot_check(input._data.ndim, tensor._data.ndim)
    return _matmul(input, tensor, None)


def _scaled_config_error(mat_a: Tensor, mat_b: Tensor, scale_a: Tensor, scale_b: Tensor) -> ValueError:
    """PyTorch's error for scales (or operands) its CPU float8 matmul takes in neither recipe."""
    def sizes(t):
        return "[" + ", ".join(str(d) for d in t.shape) + "]"

    def strides(t):
        return "[" + ", ".join(str(d) for d in t.stride()) + "]"
    m = mat_a.shape[0] if mat_a.dim() else 0
    n = mat_b.shape[-1] if mat_b.dim() else 0
    return ValueError(
        "Invalid scaling configuration.\n"
        "- For TensorWise scaling, a and b should be float8, scales should be float and singletons.\n"
        f"- For RowWise scaling, a and b should be float8, scales should be float, scale_a should be ({m}, 1) and "
        f"scale_b should be (1, {n}), and both should be contiguous.\n"
        f"Got mat_a.dtype()={mat_a.dtype._scalar}, scale_a.dtype()={scale_a.dtype._scalar}, "
        f"scale_a.size()={sizes(scale_a)}, scale_a.stride()={strides(scale_a)}, "
        f"mat_b.dtype()={mat_b.dtype._scalar}, scale_b.dtype()={scale_b.dtype._scalar}, "
        f"scale_b.size()={sizes(scale_b)} and scale_b.stride()={strides(scale_b)}")


_F32 = np.dtype(np.float32)


def _as_float(x: np.ndarray) -> np.ndarray:
    if x.dtype == _F32:
        return x
    return _dtype_casts.convert(x, _F32) if x.dtype in NARROW_NP else x.astype(_F32)


def _scaled_matmul(mat_a: Tensor, mat_b: Tensor, scale_a: Tensor, scale_b: Tensor, bias, out_dtype,
                   rowwise: bool | None = None) -> Tensor:
    """PyTorch's CPU float8 matmul: each operand widened to float and multiplied by its scale (a singleton,
    or one per row of a / column of b), the float product of the two (float sums), plus the bias in float,
    rounded once to ``out_dtype`` (a's dtype when None). ``rowwise`` says which recipe _scaled_mm_v2 named."""
    a, b = mat_a._data, mat_b._data
    if a.dtype not in _F8_NP or b.dtype not in _F8_NP:
        raise _scaled_config_error(mat_a, mat_b, scale_a, scale_b)
    if a.ndim != 2:
        raise RuntimeError("mat1 must be a matrix")
    if b.ndim != 2:
        raise RuntimeError("mat2 must be a matrix")
    if a.shape[1] != b.shape[0]:
        raise RuntimeError(f"mat_a and mat_b shapes cannot be multiplied ({a.shape[0]}x{a.shape[1]} and "
                           f"{b.shape[0]}x{b.shape[1]})")
    sa, sb = scale_a._data, scale_b._data
    floats = sa.dtype == _F32 and sb.dtype == _F32
    tensorwise = floats and sa.size == 1 and sb.size == 1
    row = (floats and sa.shape == (a.shape[0], 1) and sb.shape == (1, b.shape[1])
           and scale_a.is_contiguous() and scale_b.is_contiguous())
    if not ((tensorwise and rowwise is not True) or (row and rowwise is not False)):
        raise _scaled_config_error(mat_a, mat_b, scale_a, scale_b)
    fp = quiet()
    try:
        wide_a = _as_float(a) * (sa.reshape(()) if tensorwise else sa)
        wide_b = _as_float(b) * (sb.reshape(()) if tensorwise else sb)
        out = _np_matmul(wide_a, wide_b)
        if bias is not None:
            out = out + _as_float(bias._data)
    finally:
        loud(fp)
    target = a.dtype if out_dtype is None else to_np(out_dtype)
    return _make(_dtype_casts.convert(out, target) if target in NARROW_NP else cast(out, target))


@op(variants="function out")
def _scaled_mm(mat_a: Tensor, mat_b: Tensor, scale_a: Tensor, scale_b: Tensor, bias: Tensor | None = None,
               scale_result: Tensor | None = None, out_dtype=None, use_fast_accum: bool = False) -> Tensor:
    """PyTorch's float8 matmul with tensor-wise or row-wise scales (``_scaled_matmul``); use_fast_accum and
    scale_result change nothing on the CPU."""
    return _scaled_matmul(mat_a, mat_b, scale_a, scale_b, bias, out_dtype)


@op(variants="function")
def _scaled_mm_v2(self: Tensor, mat2: Tensor, scale_a, recipe_a, swizzle_a, scale_b, recipe_b, swizzle_b, bias,
                  out_dtype, contraction_dim=(), use_fast_accum: bool = False) -> Tensor:
    """_scaled_mm with its scaling spelt out: one scale per operand, both TensorWise (0) or both RowWise (1),
    unswizzled (the recipes PyTorch's CPU build runs; the block-wise ones are CUDA's)."""
    recipes = [int(r) for r in recipe_a] + [int(r) for r in recipe_b]
    swizzles = [int(w) for w in swizzle_a] + [int(w) for w in swizzle_b]
    if len(scale_a) != 1 or len(scale_b) != 1 or len(set(recipes)) != 1 or recipes[0] not in (0, 1) or any(swizzles):
        raise _scaled_config_error(self, mat2, scale_a[0], scale_b[0])
    return _scaled_matmul(self, mat2, scale_a[0], scale_b[0], bias, out_dtype, rowwise=recipes[0] == 1)
