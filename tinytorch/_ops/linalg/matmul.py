"""Matrix products: matmul (1-d, 2-d, batched with broadcasting; also ``torch.linalg.matmul`` and the
``@`` operator), mm, bmm, mv, dot, with vmap's rule for them, and float8's scaled mm. The products of
arrays are ``_np_matmul``; PyTorch's CPU paths for it are in ``tinytorch/_cpu/products.py``."""
from __future__ import annotations

import numpy as np

from ..._dtype import F8_NP as _F8_NP, FROM_NP, LOWP_NP, NARROW_NP, cpp_name, to_np
from ... import _dtype_casts
from ..._quiet_fp import loud, quiet
from .._core import narrow_dtypes
from ...autograd.grad_mode import _Active, _State
from ...autograd.node import AccumulateGrad, Node, elem_strides, u64
from ...tensor import Tensor, _make
from .._core.batching import at, level_of, phys_of
from .._core.record import record
from .._core.registry import op
from ..._quiet_fp import cast, silent
from .._core.util import as_array, broadcast_shapes, holomorphic_backward
from ...autograd.node import sum_to
from ...autograd.forward_ad import formula_sum, fw_operand, zero_operand

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
    """Any other matmul: 1-d operands are lifted to matrices, batch dims broadcast."""

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
        lay_a, lay_b = _grad_layouts(self.geoms, self.need_a)
        return _laid_out(ga, lay_a), _laid_out(gb, lay_b)

    # the products of the tangents as mm's formula takes them. (PyTorch's matmul has no formula: its steps (views,
    # mm or bmm, the view back) each record theirs, so its tangent's graph ends with the last step's node over an
    # AddBackward0 of two products; tinytorch's matmul is one node, and so is each of its tangent's products.)
    jvp = _product_rule(lambda x, y: x.matmul(y))


def _grad_layouts(geoms, a_grad: bool) -> tuple:
    """How PyTorch's matmul lays out each operand's gradient where it folds the product into one mm (or mv):
    "T" each matrix column-major (a transpose of a C-ordered array), "C" C order, None as the formula gives it
    (C order). ``geoms``: each operand's (shape, strides, itemsize). A 2-d operand of the mm keeps its own
    layout (``mm_mat1_backward``/``mm_mat2_backward``: a column-major one gets the transposed product); the
    folded operand's gradient is laid out as its folded rows were: C order, or, for a batch folded transposed
    (``b.mT`` for a 2-d or 1-d ``a``), the transpose of its rows."""
    (sa, ta, ia), (sb, tb, ib) = geoms
    na, nb = len(sa), len(sb)
    if na == 3 == nb and sa[0] != sb[0] and 1 in (sa[0], sb[0]):  # a batch of one squeezed away, then folded
        if sb[0] == 1:
            return None, ("T1" if _column_major(sb[1:], tb[1:], ib) else "C1")
        if not a_grad:
            return None, None
        lay_a, lay_b = _grad_layouts(((sa[1:], ta[1:], ia), (sb, tb, ib)), a_grad)
        return lay_a + "1", lay_b
    if nb == 2 and na != 2:  # a's rows times the matrix b (always folded where b needs a gradient)
        return None, ("T" if _column_major(sb, tb, ib) else "C")
    if na <= 2 and nb >= 3 and (a_grad or na == 1 and _rows_view(sb, tb, ib, transposed=True) is not None):
        # b's matrices transposed and folded into rows: (b.mT rows) @ a.t() (a.t() mv for a 1-d a)
        rows = _rows_view(sb, tb, ib, transposed=True)
        lay_b = "C" if rows is not None and _column_major(*rows) else "T"
        lay_a = None if na == 1 else ("C" if elem_strides(sa, ta, ia) == (sa[1], 1) else "T")
        return lay_a, lay_b
    return None, None


def _rows_view(shape, strides, itemsize, transposed=False):
    """The (shape, strides, itemsize) of the array's rows, ``reshape(-1, shape[-1])`` (of its ``mT`` if
    ``transposed``), where that reshape is a view; None where it copies."""
    st = list(elem_strides(shape, strides, itemsize))
    shape = list(shape)
    if transposed:
        shape[-2:], st[-2:] = shape[:-3:-1], st[:-3:-1]
    keep = [(n, s) for n, s in zip(shape[:-1], st[:-1]) if n != 1]
    if any(s != s2 * n2 for (n, s), (n2, s2) in zip(keep, keep[1:])):
        return None
    rows = int(np.prod(shape[:-1]))
    inner = keep[-1][1] if keep else shape[-1] * st[-1]
    return (rows, shape[-1]), (inner * itemsize, st[-1] * itemsize), itemsize


def _laid_out(t, layout):
    """``t`` with its values in the layout ``_grad_layouts`` names ("T": each matrix column-major; "T1", "C1": a
    batch of one unsqueezed in front of the matrix so laid out)."""
    if t is None or layout is None:
        return t
    if layout.endswith("1"):
        return _laid_out(t.squeeze(0), layout[0]).unsqueeze(0)
    return t.mT.contiguous().mT if layout == "T" else t.contiguous()


def _named(name, fields, **attrs):
    return type(name, (_GeneralMatmul,), {"saved_fields": fields, **attrs})


# PyTorch's saved values of the node its matmul ends with (the collapsed steps before it are not nodes here)
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


UnsafeViewBackward0 = _named("UnsafeViewBackward0", (("self_sym_sizes", lambda n: _folded_shape(n)),))
SqueezeBackward4 = _named("SqueezeBackward4", (("dim", lambda n: 0),
                                                ("self_sym_sizes", lambda n: (1,) + tuple(n.shapes[1][1:]))))
CloneBackward0 = _named("CloneBackward0", ())
TransposeBackward0 = _named("TransposeBackward0", (("dim0", lambda n: u64(-2)), ("dim1", lambda n: u64(-1))))


def _folded_shape(node) -> tuple:
    """The product's shape before PyTorch's matmul views it as the result (its batch dims folded)."""
    sa, sb = node.shapes
    if len(sb) <= 2:  # a folded into rows
        rows = int(np.prod(sa[:-1]))
        return (rows, sb[-1]) if len(sb) == 2 else (rows,)
    return tuple(np.broadcast_shapes(sa[:-2], sb[:-2])) + (sa[-2] if len(sa) > 1 else 1, sb[-1])


def _node_cls(a: Tensor, b: Tensor):
    """The node PyTorch's matmul ends with: its last step depends on the ranks and on who requires grad."""
    sa, sb = a._data.shape, b._data.shape
    if len(sa) <= 2 and len(sb) <= 2:
        return {(1, 1): DotBackward0, (2, 1): MvBackward0, (1, 2): SqueezeBackward4,
                (2, 2): MmBackward0}[len(sa), len(sb)]
    if len(sa) == 3 and len(sb) == 3 and sa[0] != sb[0] and sa[0] == 1 and a._requires_grad:
        sa = sa[1:]  # PyTorch squeezes a batch of one that requires grad, then folds
    if len(sa) == 2 and len(sb) >= 3 and a._requires_grad:
        # folded as (b.mT @ a.t()).mT.contiguous(): a copy unless the transpose already is contiguous
        if sa[0] <= 1 or sb[-1] <= 1 or int(np.prod(sb[:-2])) == 0:
            return TransposeBackward0
        return CloneBackward0
    return UnsafeViewBackward0


_LOWP_OR_NARROW = LOWP_NP | NARROW_NP


@silent  # inf and NaN compute silently, as PyTorch's products do
def _np_matmul(a: np.ndarray, b: np.ndarray, a_requires_grad: bool = False, b_requires_grad: bool = False):
    """np.matmul on the arrays of a product, as PyTorch's CPU GEMMs compute it for each dtype: half and
    bfloat16 multiply and accumulate in float32 and round once; float8 likewise (complex32 and e8m0 refuse).
    Which operand requires grad decides how PyTorch folds batched operands into one GEMM (its floats, not
    its values: a CPU path that calls PyTorch's own BLAS follows it; ``tinytorch/_cpu/products.py``)."""
    if a.dtype in _LOWP_OR_NARROW:
        if a.dtype in NARROW_NP:
            return narrow_dtypes.matmul(a, b, _np_matmul)
        return cast(_np_matmul(a.astype(np.float32), b.astype(np.float32)), a.dtype)  # inf past the range
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
    out = as_array(_np_matmul(ad, bd, a._requires_grad, b._requires_grad))
    if _State.enabled and (a._requires_grad or b._requires_grad):
        if cls is None:
            cls = _node_cls(a, b)
        # as PyTorch: an operand is saved only for the other's gradient, so modifying it in place
        # afterwards is no error when the other needs none
        saved_b = b if a._requires_grad else None
        folds_b = bd.ndim >= 3 and (ad.ndim <= 2 or (ad.ndim == 3 and ad.shape[0] == 1 != bd.shape[0]))
        if saved_b is not None and folds_b:
            # PyTorch folds b into a matrix here, saving a copy; b's edge is held until the node holds it
            # (the copy refers to a leaf's accumulator weakly, and nothing else may refer to it yet)
            edge_b = b._edge()
            saved_b = _copy_keeping_history(b, edge_b)
        saved = (a if b._requires_grad else None, saved_b)
        if cls is MmBackward0:  # its saved strides: PyTorch keeps each operand's for its own gradient (read lazily)
            return record(out, cls, (a, b), saved, need_a=a._requires_grad, need_b=b._requires_grad,
                          shapes=(ad.shape, bd.shape), **_dual_operands(a, b),
                          strides=((ad.shape, ad.strides, ad.itemsize), (bd.shape, bd.strides, bd.itemsize)))
        return record(out, cls, (a, b), saved, need_a=a._requires_grad, need_b=b._requires_grad,
                      shapes=(ad.shape, bd.shape), **_dual_operands(a, b),
                      geoms=((ad.shape, ad.strides, ad.itemsize), (bd.shape, bd.strides, bd.itemsize)))
    return _make(out)


def _dual_operands(a: Tensor, b: Tensor) -> dict:
    """In a dual level the node keeps both operands (``fw_inputs``): its forward formula reads both primals
    (``product_jvp``), where its backward keeps each only for the other's gradient."""
    return {"fw_inputs": (a, b)} if _Active.fw and _State.fw_level is not None else {}


def _copy_keeping_history(t: Tensor, edge: tuple) -> Tensor:
    """A copy of ``t``'s values that leads to ``t``'s graph edge ``edge``."""
    import weakref
    c = _make(t._data.copy())
    node, nr = edge
    if type(node) is AccumulateGrad:
        c._requires_grad = True
        c._accumulator = weakref.ref(node)
    elif node is not None:
        c.grad_fn, c._output_nr, c._requires_grad = node, nr, True
    return c


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
