"""The rest of the tensor API against PyTorch, one row per op: scans, sorting and selection,
masked and indexed ops, triangles and diagonals, rearrangements, special functions, products,
distances, norms and matrix functions.

Each row's ``fn(T, *xs)`` is written once against the torch API and run with ``T`` = tinytorch and
``T`` = torch on the same inputs: values and dtypes (float32 and float64), ``grad_fn`` names,
gradients of a random weighting of the outputs, second derivatives, and tinytorch's own gradcheck /
gradgradcheck in float64. Inputs are distinct values away from each row's kinks, so sorting and
selection have no ties and finite differences never straddle one."""
import numpy as np
import pytest

import tinytorch
from tinytorch.autograd import gradcheck, gradgradcheck


class Row:
    def __init__(self, name, fn, shapes, lo=-2.0, hi=2.0, avoid=(), grad=True, gradgrad=True, prep=None, tol=None,
                 names=True):
        self.name, self.fn, self.shapes, self.lo, self.hi, self.avoid = name, fn, shapes, lo, hi, avoid
        self.grad, self.gradgrad, self.prep, self.tol, self.names = grad, gradgrad, prep, tol, names


def _inputs(row, seed):
    rng = np.random.default_rng(seed)
    sizes = [int(np.prod(s)) for s in row.shapes]
    n = max(sum(sizes), 1)
    width = (row.hi - row.lo) / n
    vals = row.lo + width * (rng.permutation(n) + rng.uniform(0.25, 0.75, n))
    for k in row.avoid:
        near = np.abs(vals - k) < 0.05
        vals[near] += np.where(vals[near] >= k, 0.08, -0.08)
    out, start = [], 0
    for s, size in zip(row.shapes, sizes):
        a = vals[start:start + size].reshape(s)
        out.append(row.prep(a) if row.prep else a)
        start += size
    return out


def _outs(o):
    if isinstance(o, (tuple, list)):
        return [x for x in o]
    return [o]


def _np(t):
    return t.detach().numpy(force=True) if hasattr(t, "numpy") else np.asarray(t)


def _spd(a):
    """A symmetric positive-definite matrix from any square one."""
    return a @ a.T + a.shape[0] * np.eye(a.shape[0])


def _sym(a):
    return (a + a.T) / 2


M = np.array([[True, False, True], [False, False, True]])
I2 = [[0, 2, 0], [1, 0, 1]]

ROWS = [
    # scans and products
    Row("cumsum", lambda T, a: a.cumsum(1), [(2, 3)]),
    Row("cumsum_neg_dim", lambda T, a: T.cumsum(a, dim=-1), [(4,)]),
    Row("cumprod", lambda T, a: a.cumprod(0), [(3, 2)], avoid=(0,)),
    Row("cumprod_zero", lambda T, a: (a * T.tensor([1.0, 0.0, 1.0, 1.0], dtype=a.dtype)).cumprod(0), [(4,)]),
    Row("logcumsumexp", lambda T, a: a.logcumsumexp(1), [(2, 3)]),
    Row("cummax", lambda T, a: a.cummax(1), [(2, 4)], gradgrad=False),
    Row("cummin", lambda T, a: T.cummin(a, 0), [(4, 2)], gradgrad=False),
    Row("prod", lambda T, a: a.prod(), [(2, 3)]),
    Row("prod_dim", lambda T, a: a.prod(1, keepdim=True), [(2, 3)]),
    Row("prod_dim_zero", lambda T, a: (a * T.tensor([[1.0, 0.0, 1.0]], dtype=a.dtype)).prod(-1), [(2, 3)]),
    Row("prod_two_zeros", lambda T, a: (a * T.tensor([0.0, 0.0, 1.0], dtype=a.dtype)).prod(), [(3,)]),
    # sorting and selection
    Row("sort", lambda T, a: a.sort(1), [(2, 4)], gradgrad=False),
    Row("sort_desc", lambda T, a: T.sort(a, dim=0, descending=True), [(3, 2)], gradgrad=False),
    Row("argsort", lambda T, a: a.argsort(-1, descending=True), [(2, 3)], grad=False),
    Row("msort", lambda T, a: T.msort(a), [(3, 2)], gradgrad=False),
    Row("topk", lambda T, a: a.topk(2), [(2, 4)], gradgrad=False),
    Row("topk_smallest", lambda T, a: T.topk(a, 2, dim=0, largest=False), [(3, 2)], gradgrad=False),
    Row("kthvalue", lambda T, a: a.kthvalue(2, 1), [(2, 4)], gradgrad=False),
    Row("kthvalue_keepdim", lambda T, a: T.kthvalue(a, 1, 0, keepdim=True), [(3, 2)], gradgrad=False),
    Row("median", lambda T, a: a.median(), [(2, 3)], gradgrad=False),
    Row("median_dim", lambda T, a: a.median(1), [(2, 4)], gradgrad=False),
    Row("nanmedian_dim", lambda T, a: T.nanmedian(a, 0, keepdim=True), [(3, 2)], gradgrad=False),
    Row("mode", lambda T, a: a.round().mode(1), [(2, 5)], lo=-2.4, hi=2.4, grad=False),
    Row("aminmax", lambda T, a: T.aminmax(a), [(2, 3)], gradgrad=False),
    Row("aminmax_dim", lambda T, a: T.aminmax(a, dim=1, keepdim=True), [(2, 3)], gradgrad=False),
    Row("unique", lambda T, a: T.unique(a.round(), return_inverse=True, return_counts=True), [(2, 5)], lo=-2.4,
        hi=2.4, grad=False),
    Row("unique_dim", lambda T, a: T.unique(a.round().clamp(-1, 1), dim=0, return_counts=True), [(4, 1)],
        grad=False),
    Row("unique_consecutive", lambda T, a: T.unique_consecutive(a.round(), return_inverse=True,
                                                                 return_counts=True), [(6,)], grad=False),
    Row("histc", lambda T, a: T.histc(a, bins=4, min=-2, max=2), [(7,)], grad=False),
    Row("count_nonzero", lambda T, a: T.count_nonzero(a.round(), dim=1), [(2, 4)], grad=False),
    # masked and indexed
    Row("masked_fill", lambda T, a: a.masked_fill(T.tensor(M), -1.5), [(2, 3)]),
    Row("masked_fill_bcast", lambda T, a: T.masked_fill(a, T.tensor([True, False, True]), 0.0), [(2, 3)]),
    Row("masked_fill_tensor", lambda T, a, v: a.masked_fill(T.tensor(M), v), [(2, 3), ()]),
    Row("masked_select", lambda T, a: a.masked_select(T.tensor(M)), [(2, 3)]),
    Row("masked_select_bcast", lambda T, a: T.masked_select(a, T.tensor([[True], [False]])), [(2, 3)]),
    Row("masked_scatter", lambda T, a, s: a.masked_scatter(T.tensor(M), s), [(2, 3), (4,)]),
    Row("index_select", lambda T, a: a.index_select(1, T.tensor([2, 0, 2])), [(2, 3)]),
    Row("index_select_dim0", lambda T, a: T.index_select(a, 0, T.tensor([1])), [(2, 3)]),
    Row("index_add", lambda T, a, s: a.index_add(0, T.tensor([1, 0, 1]), s, alpha=2), [(2, 3), (3, 3)]),
    Row("index_copy", lambda T, a, s: a.index_copy(1, T.tensor([2, 0]), s), [(2, 3), (2, 2)]),
    Row("index_fill", lambda T, a: a.index_fill(1, T.tensor([0, 2]), -1.0), [(2, 3)]),
    Row("index_fill_tensor", lambda T, a, v: a.index_fill(0, T.tensor([1]), v), [(2, 3), ()]),
    Row("take", lambda T, a: a.take(T.tensor([[0, 5], [-1, 2]])), [(2, 3)]),
    Row("take_along_dim", lambda T, a: a.take_along_dim(T.tensor(I2), 1), [(2, 3)]),
    Row("take_along_dim_bcast", lambda T, a: T.take_along_dim(a, T.tensor([[0], [2]]), dim=1), [(2, 3)]),
    Row("take_along_dim_flat", lambda T, a: T.take_along_dim(a, T.tensor([4, 1])), [(2, 3)]),
    # range and list indexing
    Row("index_range", lambda T, a: a[range(3), T.tensor([0, 2, 1])], [(3, 3)]),
    Row("index_range_list", lambda T, a: a[range(1, 3), [0, 2]], [(3, 3)]),
    # triangles and diagonals
    Row("tril", lambda T, a: a.tril(), [(3, 3)]),
    Row("tril_k", lambda T, a: T.tril(a, -1), [(2, 3, 4)]),
    Row("triu", lambda T, a: a.triu(1), [(3, 4)]),
    Row("diag_vec", lambda T, a: a.diag(), [(3,)]),
    Row("diag_vec_offset", lambda T, a: T.diag(a, -1), [(2,)]),
    Row("diag_mat", lambda T, a: a.diag(1), [(3, 4)]),
    Row("diagonal", lambda T, a: a.diagonal(), [(3, 4)]),
    Row("diagonal_dims", lambda T, a: T.diagonal(a, -1, 0, 2), [(3, 2, 4)]),
    Row("diag_embed", lambda T, a: a.diag_embed(), [(2, 3)]),
    Row("diag_embed_offset", lambda T, a: T.diag_embed(a, 1, 0, 2), [(2, 3)]),
    Row("trace", lambda T, a: a.trace(), [(3, 4)]),
    # rearrangements
    Row("flip", lambda T, a: a.flip(0, 2), [(2, 3, 2)]),
    Row("flip_tuple", lambda T, a: T.flip(a, (-1,)), [(2, 3)]),
    Row("fliplr", lambda T, a: T.fliplr(a), [(2, 3)]),
    Row("flipud", lambda T, a: a.flipud(), [(2, 3)]),
    Row("roll", lambda T, a: a.roll(1, 0), [(3, 2)]),
    Row("roll_flat", lambda T, a: T.roll(a, -2), [(2, 3)]),
    Row("roll_dims", lambda T, a: a.roll((1, -1), (0, 1)), [(2, 3)]),
    Row("movedim", lambda T, a: a.movedim(0, -1), [(2, 3, 4)]),
    Row("movedim_many", lambda T, a: T.movedim(a, (0, 1), (2, 0)), [(2, 3, 4)]),
    Row("moveaxis", lambda T, a: T.moveaxis(a, 1, 0), [(2, 3)]),
    Row("swapaxes", lambda T, a: a.swapaxes(0, 2), [(2, 3, 1)]),
    Row("tile", lambda T, a: a.tile((2,)), [(2, 3)]),
    Row("tile_more", lambda T, a: T.tile(a, (2, 1, 2)), [(3,)]),
    Row("repeat_interleave", lambda T, a: a.repeat_interleave(2), [(2, 3)]),
    Row("repeat_interleave_dim", lambda T, a: T.repeat_interleave(a, 3, dim=1), [(2, 2)]),
    Row("repeat_interleave_tensor", lambda T, a: a.repeat_interleave(T.tensor([1, 0, 2]), dim=0), [(3, 2)]),
    Row("meshgrid_ij", lambda T, a, b: T.meshgrid(a, b, indexing="ij"), [(2,), (3,)]),
    Row("meshgrid_xy", lambda T, a, b: T.meshgrid(a, b, indexing="xy"), [(2,), (3,)]),
    Row("cartesian_prod", lambda T, a, b: T.cartesian_prod(a, b), [(2,), (3,)]),
    Row("broadcast_to", lambda T, a: a.broadcast_to((2, 3)), [(3,)]),
    Row("unflatten", lambda T, a: a.unflatten(1, (2, 2)), [(3, 4)]),
    # special functions
    Row("erf", lambda T, a: a.erf(), [(7,)], lo=-3, hi=3),
    Row("erf_wide", lambda T, a: T.erf(a), [(9,)], lo=-6, hi=6),
    Row("erfc", lambda T, a: a.erfc(), [(9,)], lo=-3, hi=6),
    Row("erfinv", lambda T, a: a.erfinv(), [(9,)], lo=-0.999, hi=0.999),
    Row("lgamma", lambda T, a: a.lgamma(), [(9,)], lo=0.1, hi=12),
    Row("lgamma_negative", lambda T, a: T.lgamma(a), [(6,)], lo=-3, hi=0, avoid=(-3, -2, -1, 0)),
    Row("digamma", lambda T, a: a.digamma(), [(9,)], lo=0.05, hi=20),
    Row("digamma_negative", lambda T, a: T.digamma(a), [(6,)], lo=-3, hi=0, avoid=(-3, -2, -1, 0)),
    # PyTorch's float64 polygamma keeps about 1e-9 (a short asymptotic series from x = 6)
    Row("polygamma1", lambda T, a: T.polygamma(1, a), [(6,)], lo=0.2, hi=12, tol=(1e-8, 1e-10)),
    Row("polygamma3", lambda T, a: a.polygamma(3), [(6,)], lo=0.5, hi=12, tol=(1e-8, 1e-10)),
    Row("logit", lambda T, a: a.logit(), [(6,)], lo=0.05, hi=0.95),
    Row("logit_eps", lambda T, a: T.logit(a, eps=0.2), [(6,)], lo=0.02, hi=0.98, avoid=(0.2, 0.8)),
    Row("sinh", lambda T, a: a.sinh(), [(2, 3)]),
    Row("cosh", lambda T, a: T.cosh(a), [(2, 3)]),
    Row("asin", lambda T, a: a.asin(), [(5,)], lo=-0.9, hi=0.9),
    Row("acos", lambda T, a: T.acos(a), [(5,)], lo=-0.9, hi=0.9),
    Row("atan", lambda T, a: a.atan(), [(5,)]),
    Row("arctan", lambda T, a: T.arctan(a), [(2,)]),
    Row("tan", lambda T, a: a.tan(), [(5,)], lo=-1.3, hi=1.3),
    Row("asinh", lambda T, a: a.asinh(), [(4,)]),
    Row("acosh", lambda T, a: a.acosh(), [(4,)], lo=1.2, hi=3),
    Row("atanh", lambda T, a: a.atanh(), [(4,)], lo=-0.9, hi=0.9),
    Row("round_decimals", lambda T, a: a.round(decimals=1), [(6,)], avoid=(-1.95, -1.85, -0.05, 0.05, 1.85, 1.95)),
    Row("round_neg_decimals", lambda T, a: T.round(a * 100, decimals=-1), [(6,)]),
    Row("frac", lambda T, a: a.frac(), [(6,)], avoid=(-2, -1, 0, 1, 2)),
    Row("nan_to_num", lambda T, a: (a * 1e308 * 1e10).nan_to_num(posinf=9.0, neginf=-9.0) + a.nan_to_num(), [(6,)],
        avoid=(0,)),
    Row("nan_to_num_values", lambda T, a: (a.round() / a.round().abs()).log().nan_to_num(nan=2.0, neginf=-3.0),
        [(6,)], grad=False),
    Row("atan2", lambda T, a, b: T.atan2(a, b), [(2, 3), (3,)]),
    Row("hypot", lambda T, a, b: a.hypot(b), [(2, 3), (2, 1)]),
    Row("lerp", lambda T, a, b: T.lerp(a, b, 0.3), [(2, 3), (3,)]),
    Row("lerp_tensor", lambda T, a, b, w: a.lerp(b, w), [(2, 3), (2, 3), (3,)]),
    Row("logaddexp", lambda T, a, b: T.logaddexp(a, b), [(2, 3), (3,)]),
    Row("logaddexp2", lambda T, a, b: T.logaddexp2(a, b), [(2, 3), (2, 3)]),
    Row("xlogy", lambda T, a, b: T.xlogy(a, b), [(2, 3), (3,)], lo=0.2, hi=3.0),
    Row("igamma_value", lambda T, x: T.special.gammainc(T.full_like(x, 2.5), x) + T.full_like(x, 0.7).igamma(x), [(2, 3)],
        lo=0.2, hi=6.0),
    Row("mvlgamma", lambda T, a: a.mvlgamma(3) + T.special.multigammaln(a, 1), [(5,)], lo=1.2, hi=4.0),
    Row("xlogy_numbers", lambda T, a: T.special.xlogy(a, 2.5) + T.xlogy(1.5, a), [(4,)], lo=0.2, hi=3.0),
    # products
    Row("outer", lambda T, a, b: T.outer(a, b), [(3,), (2,)]),
    Row("kron", lambda T, a, b: T.kron(a, b), [(2, 2), (2, 3)]),
    Row("kron_ranks", lambda T, a, b: a.kron(b), [(2,), (2, 3)]),
    Row("cross", lambda T, a, b: T.linalg.cross(a, b), [(2, 3), (2, 3)]),
    Row("cross_dim", lambda T, a, b: T.cross(a, b, dim=0), [(3, 2), (3, 1)]),
    Row("einsum_mm", lambda T, a, b: T.einsum("ij,jk->ik", a, b), [(2, 3), (3, 2)]),
    Row("einsum_trace", lambda T, a: T.einsum("ii", a), [(3, 3)]),
    Row("einsum_diag", lambda T, a: T.einsum("ii->i", a), [(3, 3)]),
    Row("einsum_sum", lambda T, a: T.einsum("ij->", a), [(2, 3)]),
    Row("einsum_transpose", lambda T, a: T.einsum("ij->ji", a), [(2, 3)]),
    Row("einsum_bmm", lambda T, a, b: T.einsum("bij,bjk->bik", a, b), [(2, 2, 3), (2, 3, 2)]),
    Row("einsum_outer", lambda T, a, b: T.einsum("i,j->ij", a, b), [(3,), (2,)]),
    Row("einsum_ellipsis", lambda T, a, b: T.einsum("...ij,...jk", a, b), [(2, 2, 3), (3, 2)]),
    Row("einsum_attention", lambda T, q, k: T.einsum("bhqd,bhkd->bhqk", q, k), [(1, 2, 3, 2), (1, 2, 2, 2)]),
    Row("einsum_three", lambda T, a, b, c: T.einsum("ij,jk,k->i", a, b, c), [(2, 3), (3, 2), (2,)]),
    Row("einsum_list", lambda T, a, b: T.einsum("i,i->", [a, b]), [(3,), (3,)]),
    Row("einsum_repeat_pair", lambda T, a, b: T.einsum("iij,jk->ik", a, b), [(2, 2, 3), (3, 2)]),
    Row("einsum_broadcast", lambda T, a, b: T.einsum("...j,...j->...", a, b), [(2, 1, 3), (4, 3)]),
    Row("einsum_upper", lambda T, a, b: T.einsum("Ab,bA->A", a, b), [(2, 3), (3, 2)]),
    Row("einsum_summed_alone", lambda T, a, b: T.einsum("ij,kl->ik", a, b), [(2, 3), (2, 2)]),
    Row("einsum_four", lambda T, a, b, c, d: T.einsum("ab,bc,cd,d->a", a, b, c, d), [(2, 2), (2, 3), (3, 2), (2,)]),
    Row("tensordot", lambda T, a, b: T.tensordot(a, b, dims=([1], [0])), [(2, 3), (3, 2)]),
    Row("tensordot_int", lambda T, a, b: T.tensordot(a, b, 2), [(2, 3, 2), (3, 2, 2)]),
    Row("tensordot_zero", lambda T, a, b: T.tensordot(a, b, 0), [(2,), (3,)]),
    Row("addmm", lambda T, i, a, b: T.addmm(i, a, b, beta=0.5, alpha=2), [(3,), (2, 4), (4, 3)]),
    Row("addmm_default", lambda T, i, a, b: i.addmm(a, b), [(2, 3), (2, 4), (4, 3)]),
    Row("addmv", lambda T, i, a, v: T.addmv(i, a, v, alpha=-1), [(2,), (2, 3), (3,)]),
    Row("baddbmm", lambda T, i, a, b: T.baddbmm(i, a, b, beta=2), [(2, 1, 2), (2, 2, 3), (2, 3, 2)]),
    # PyTorch has no second derivative of cdist: only tinytorch's gradgradcheck runs for these rows
    Row("cdist", lambda T, a, b: T.cdist(a, b), [(3, 2), (2, 2)], names=True),
    Row("cdist_p1", lambda T, a, b: T.cdist(a, b, p=1), [(3, 2), (2, 2)], gradgrad=False),
    Row("cdist_p3_batched", lambda T, a, b: T.cdist(a, b, p=3), [(2, 2, 3), (2, 3, 3)]),
    Row("cosine_similarity", lambda T, a, b: T.cosine_similarity(a, b), [(2, 3), (2, 3)]),
    Row("cosine_similarity_dim", lambda T, a, b: T.nn.functional.cosine_similarity(a, b, dim=-1), [(2, 3), (3,)]),
    Row("pairwise_distance", lambda T, a, b: T.pairwise_distance(a, b), [(2, 3), (2, 3)]),
    Row("pairwise_distance_p1", lambda T, a, b: T.nn.functional.pairwise_distance(a, b, p=1, keepdim=True),
        [(2, 3), (2, 3)], gradgrad=False),
    # norms
    Row("norm", lambda T, a: a.norm(), [(2, 3)]),
    Row("norm_p1_dim", lambda T, a: a.norm(1, dim=1), [(2, 3)], gradgrad=False),
    Row("norm_p3_keepdim", lambda T, a: T.norm(a, 3, dim=0, keepdim=True), [(2, 3)]),
    Row("norm_fro_dims", lambda T, a: a.norm("fro", dim=(0, 1)), [(2, 3)]),
    Row("prod_keepdims_alias", lambda T, a: T.prod(a, 1, keepdims=True) + a.median(0, keepdims=True)[0], [(2, 3)],
        gradgrad=False),
    Row("vector_norm", lambda T, a: T.linalg.vector_norm(a), [(2, 3)]),
    Row("vector_norm_inf", lambda T, a: T.linalg.vector_norm(a, float("inf"), dim=1), [(2, 3)], gradgrad=False),
    Row("vector_norm_neg_inf", lambda T, a: T.linalg.vector_norm(a, -float("inf")), [(2, 3)], gradgrad=False),
    Row("vector_norm_0", lambda T, a: T.linalg.vector_norm(a, 0), [(2, 3)], gradgrad=False),
    Row("vector_norm_half", lambda T, a: T.linalg.vector_norm(a, 0.5, dim=(0, 1)), [(2, 3)]),
    Row("linalg_norm", lambda T, a: T.linalg.norm(a), [(2, 3)]),
    Row("linalg_norm_ord1", lambda T, a: T.linalg.norm(a, 1), [(4,)], gradgrad=False),
    Row("linalg_norm_matrix_inf", lambda T, a: T.linalg.norm(a, float("inf")), [(2, 3)], gradgrad=False),
    Row("matrix_norm_fro", lambda T, a: T.linalg.matrix_norm(a), [(2, 2, 3)]),
    Row("matrix_norm_1", lambda T, a: T.linalg.matrix_norm(a, 1), [(3, 3)], gradgrad=False),
    Row("matrix_norm_nuc", lambda T, a: T.linalg.matrix_norm(a, "nuc"), [(3, 2)]),
    Row("matrix_norm_2", lambda T, a: T.linalg.matrix_norm(a, 2, keepdim=True), [(2, 3)]),
    Row("keepdims_sum", lambda T, a: a.sum(1, keepdims=True) + T.mean(a, 0, keepdims=True), [(2, 3)]),
    Row("keepdims_max", lambda T, a: a.max(1, keepdims=True)[0] + T.amax(a, 0, keepdims=True), [(2, 3)],
        gradgrad=False),
    # matrix functions
    Row("inv", lambda T, a: T.linalg.inv(a), [(3, 3)], prep=_spd),
    Row("inverse_batched", lambda T, a: T.inverse(a + 3 * T.eye(3, dtype=a.dtype)), [(2, 3, 3)]),
    Row("det", lambda T, a: T.linalg.det(a), [(3, 3)], prep=_spd),
    Row("det_method", lambda T, a: (a + 2 * T.eye(2, dtype=a.dtype)).det(), [(2, 2, 2)]),
    Row("det_singular", lambda T, a, b: T.linalg.det(a @ b), [(3, 2), (2, 3)], gradgrad=False),
    Row("slogdet", lambda T, a: T.linalg.slogdet(a), [(3, 3)], prep=_spd),
    Row("logdet", lambda T, a: T.logdet(a), [(3, 3)], prep=_spd),
    Row("solve", lambda T, a, b: T.linalg.solve(a, b), [(3, 3), (3, 2)]),
    Row("solve_vector", lambda T, a, b: T.linalg.solve(a + 4 * T.eye(3, dtype=a.dtype), b), [(3, 3), (3,)]),
    Row("cholesky", lambda T, a: T.linalg.cholesky(a @ a.mT + 3 * T.eye(3, dtype=a.dtype)), [(3, 3)]),
    Row("cholesky_upper", lambda T, a: T.linalg.cholesky(a.mT @ a + T.eye(3, dtype=a.dtype), upper=True), [(3, 3)]),
    Row("qr", lambda T, a: T.linalg.qr(a), [(4, 3)]),
    Row("qr_square", lambda T, a: T.linalg.qr(a), [(3, 3)]),
    Row("qr_wide", lambda T, a: T.linalg.qr(a), [(2, 4)]),
    Row("svd_full_invariant", lambda T, a: _svd_full_invariant(T, a), [(4, 2)]),
    Row("svdvals", lambda T, a: T.linalg.svdvals(a), [(3, 2)]),
    Row("svd_reduced_invariant", lambda T, a: _svd_invariant(T, a), [(4, 3)]),
    Row("svd_wide_invariant", lambda T, a: _svd_invariant(T, a), [(2, 3)]),
    Row("eigh_values", lambda T, a: T.linalg.eigvalsh(a + a.mT), [(3, 3)]),
    Row("eigh_invariant", lambda T, a: _eigh_invariant(T, a + a.mT), [(3, 3)]),
    Row("pinv", lambda T, a: T.linalg.pinv(a), [(3, 2)]),
    Row("pinv_wide", lambda T, a: T.pinverse(a), [(2, 3)]),
]


def _svd_invariant(T, a):
    """Outputs of svd that do not depend on the signs LAPACK picks for the singular vectors."""
    U, S, Vh = T.linalg.svd(a, full_matrices=False)
    return S, U * U, Vh * Vh, (U * (S * S + 1).unsqueeze(-2)) @ Vh


def _svd_full_invariant(T, a):
    U, S, Vh = T.linalg.svd(a)
    k = S.shape[-1]
    return S, U[:, :k] * U[:, :k], (U[:, :k] * (S * S + 1)) @ Vh[:k]


def _eigh_invariant(T, a):
    w, V = T.linalg.eigh(a)
    return w, V * V, (V * w) @ V.mT


CASES = [pytest.param(r, id=r.name) for r in ROWS]
GRAD = [c for c in CASES if c.values[0].grad]
GRADGRAD = [c for c in GRAD if c.values[0].gradgrad]
TORCH_GRADGRAD = [c for c in GRADGRAD if not c.values[0].name.startswith("cdist")]


def _prep_inputs(row, seed):
    xs = _inputs(row, seed)
    if row.name == "solve":  # keep A well away from singular
        xs[0] = xs[0] + 4 * np.eye(3)
    return xs


def _run(T, row, arrays, dtype, weights=None):
    xs = [T.tensor(a, dtype=dtype, requires_grad=row.grad) for a in arrays]
    outs = _outs(row.fn(T, *xs))
    names = [None if getattr(o, "grad_fn", None) is None else type(o.grad_fn).__name__ for o in outs]
    grads = None
    diff = [o for o in outs if getattr(o, "requires_grad", False)]
    if row.grad and diff:
        rng = np.random.default_rng(7)
        loss = sum((o * T.tensor(rng.standard_normal(tuple(o.shape)), dtype=dtype)).sum() for o in diff)
        grads = [None if g is None else _np(g) for g in T.autograd.grad(loss, xs, allow_unused=True)]
    return outs, names, grads


@pytest.mark.parametrize("dtype", ["float64", "float32"])
@pytest.mark.parametrize("row", CASES)
def test_vs_torch(row, dtype, torch):
    arrays = _prep_inputs(row, 0)
    t_outs, t_names, t_grads = _run(torch, row, arrays, getattr(torch, dtype))
    o_outs, o_names, o_grads = _run(tinytorch, row, arrays, getattr(tinytorch, dtype))
    if row.names:
        assert o_names == t_names
    rtol, atol = (1e-10, 1e-12) if dtype == "float64" else (2e-5, 2e-6)
    if row.tol and dtype == "float64":
        rtol, atol = row.tol
    assert len(o_outs) == len(t_outs)
    for o, t in zip(o_outs, t_outs):
        assert str(o.dtype).split(".")[-1] == str(t.dtype).split(".")[-1] and tuple(o.shape) == tuple(t.shape)
        assert o.requires_grad == t.requires_grad
        np.testing.assert_allclose(_np(o), _np(t), rtol=rtol, atol=atol)
    assert (o_grads is None) == (t_grads is None)
    for og, tg in zip(o_grads or [], t_grads or []):
        assert (og is None) == (tg is None)
        if tg is not None:
            np.testing.assert_allclose(og, tg, rtol=rtol * 10, atol=atol * 10)


def _float_outs(fn):
    return lambda *xs: tuple(o for o in _outs(fn(*xs)) if o.is_floating_point())


@pytest.mark.parametrize("row", GRAD)
def test_gradcheck(row):
    xs = [tinytorch.tensor(a, requires_grad=True) for a in _prep_inputs(row, 1)]
    assert gradcheck(_float_outs(lambda *t: row.fn(tinytorch, *t)), xs)


@pytest.mark.parametrize("row", GRADGRAD)
def test_gradgradcheck(row):
    tinytorch.manual_seed(0)
    xs = [tinytorch.tensor(a, requires_grad=True) for a in _prep_inputs(row, 2)]
    assert gradgradcheck(_float_outs(lambda *t: row.fn(tinytorch, *t)), xs)


@pytest.mark.parametrize("row", TORCH_GRADGRAD)
def test_double_backward_vs_torch(row, torch):
    arrays = _prep_inputs(row, 3)
    res = []
    for T in (torch, tinytorch):
        xs = [T.tensor(a, requires_grad=True) for a in arrays]
        outs = [o for o in _outs(row.fn(T, *xs)) if o.requires_grad]
        rng = np.random.default_rng(11)
        loss = sum((o * T.tensor(rng.standard_normal(tuple(o.shape)))).sum() for o in outs)
        g1 = [g for g in T.autograd.grad(loss, xs, create_graph=True, allow_unused=True) if g is not None]
        g1 = [g for g in g1 if g.requires_grad]
        if not g1:
            res.append(None)
            continue
        s = sum((g * T.tensor(rng.standard_normal(tuple(g.shape)))).sum() for g in g1)
        res.append([None if g is None else _np(g) for g in T.autograd.grad(s, xs, allow_unused=True)])
    t_res, o_res = res
    if t_res is None or o_res is None:
        assert all(g is None or not g.any() for g in (t_res or o_res or []))
        return
    for og, tg in zip(o_res, t_res):
        if tg is None or og is None:
            assert (tg is None or not tg.any()) and (og is None or not og.any())
        else:
            np.testing.assert_allclose(og, tg, rtol=1e-8, atol=1e-10)
