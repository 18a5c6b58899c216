"""One row per op: forward vs numpy, gradcheck and gradgradcheck in float64, and forward, gradients,
second derivatives and grad_fn names vs PyTorch (float32), on scalar, broadcast and size-1 shapes.

Each row's ``fn(T, *xs)`` is written once against the torch API and run with ``T`` = tinytorch or
torch; ``ref(*arrays)`` is the numpy reference. Inputs are drawn so that no two values are within
a few hundredths of each other or of a row's kinks, so finite differences never straddle a tie."""
import numpy as np
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st
from hypothesis.extra import numpy as hnp

import tinytorch
from tinytorch.autograd import GradcheckError, gradcheck, gradgradcheck


class Row:
    """One op: ``fn(T, *xs)``, its numpy ``ref``, the input shapes to try, the input range, points to
    keep away from (kinks), and whether gradients / second derivatives are checked."""

    def __init__(self, name, fn, ref, shapes, lo=-2.0, hi=2.0, avoid=(), grad=True, gradgrad=True):
        self.name, self.fn, self.ref, self.shapes = name, fn, ref, shapes
        self.lo, self.hi, self.avoid, self.grad, self.gradgrad = lo, hi, avoid, grad, gradgrad


def _inputs(row: Row, shapes, seed: int) -> list:
    """float64 arrays whose values all sit in distinct bins of [lo, hi), away from the row's kinks."""
    rng = np.random.default_rng(seed)
    sizes = [int(np.prod(s)) for s in shapes]
    n = sum(sizes)
    width = (row.hi - row.lo) / n
    vals = row.lo + width * (rng.permutation(n) + rng.uniform(0.25, 0.75, n))
    for k in row.avoid:
        near = np.abs(vals - k) < 0.05
        vals[near] += np.where(vals[near] >= k, 0.08, -0.08)
    out, start = [], 0
    for s, size in zip(shapes, sizes):
        out.append(vals[start:start + size].reshape(s))
        start += size
    return out


def _outs(o) -> list:
    return list(o) if isinstance(o, (tuple, list)) else [o]


def _float_outs(fn):
    """``fn`` with only its floating outputs (indices from max(dim) have no gradient to check)."""
    return lambda *xs: tuple(o for o in _outs(fn(*xs)) if o.is_floating_point())


def _np(t) -> np.ndarray:
    # force: PyTorch hands back zero gradients as ZeroTensors, which refuse a plain numpy()
    return t.detach().numpy(force=True)


UNARY = [(), (1,), (3, 1), (2, 3, 2)]
BINARY = [((), ()), ((3, 1), (1, 4)), ((2, 3), (3,)), ((1,), (2, 1)), ((), (2, 3)), ((2, 1, 2), (2, 3, 1))]
DIMS = [(1,), (3, 1), (2, 3, 2)]   # reductions along dim 0 / -1
MULTI = [(2, 3), (1, 4), (2, 1, 3)]
un = [(s,) for s in UNARY]
dims = [(s,) for s in DIMS]
multi = [(s,) for s in MULTI]
MASK = np.array([[True, False, True], [False, False, True]])


def _np_softmax(a, d):
    e = np.exp(a - a.max(axis=d, keepdims=True))
    return e / e.sum(axis=d, keepdims=True)


def _np_setitem(a, key, v):
    b = a * 1.0
    b[key] = v
    return b


def _tt_setitem(T, a, key, v):
    b = a * 1.0
    b[key] = v
    return b


def _np_split(a, sizes, axis):
    return tuple(np.split(a, np.cumsum(sizes)[:-1], axis=axis))


ROWS = [
    # arithmetic, reflected and scalar forms
    Row("add", lambda T, a, b: a + b, np.add, BINARY),
    Row("add_alpha", lambda T, a, b: T.add(a, b, alpha=2.5), lambda a, b: a + 2.5 * b, BINARY[:3]),
    Row("sub", lambda T, a, b: a - b, np.subtract, BINARY),
    Row("sub_alpha", lambda T, a, b: T.sub(a, b, alpha=0.5), lambda a, b: a - 0.5 * b, BINARY[:3]),
    Row("mul", lambda T, a, b: a * b, np.multiply, BINARY),
    Row("div", lambda T, a, b: a / b, np.divide, BINARY, lo=0.5),
    Row("pow", lambda T, a, b: a ** b, np.power, BINARY, lo=0.5),
    Row("add_scalar", lambda T, a: a + 2.5, lambda a: a + 2.5, un),
    Row("radd_scalar", lambda T, a: 2 + a, lambda a: 2 + a, un),
    Row("sub_scalar", lambda T, a: a - 2.5, lambda a: a - 2.5, un),
    Row("rsub_scalar", lambda T, a: 2.5 - a, lambda a: 2.5 - a, un),
    Row("rsub_int", lambda T, a: 3 - a, lambda a: 3 - a, un[:2]),
    Row("mul_scalar", lambda T, a: a * 2.5, lambda a: a * 2.5, un),
    Row("rmul_scalar", lambda T, a: 3 * a, lambda a: 3 * a, un),
    Row("div_scalar", lambda T, a: a / 2.5, lambda a: a / 2.5, un),
    Row("rdiv_scalar", lambda T, a: 2.5 / a, lambda a: 2.5 / a, un, lo=0.5),
    Row("pow_2", lambda T, a: a ** 2, lambda a: a ** 2, un),
    Row("pow_3", lambda T, a: a ** 3, lambda a: a ** 3, un),
    Row("pow_frac", lambda T, a: a ** 2.5, lambda a: a ** 2.5, un, lo=0.5),
    Row("pow_neg", lambda T, a: a ** -1.5, lambda a: a ** -1.5, un, lo=0.5),
    Row("pow_0", lambda T, a: a ** 0, lambda a: a ** 0, un[:2]),
    Row("rpow", lambda T, a: 2.5 ** a, lambda a: 2.5 ** a, un),
    Row("remainder", lambda T, a, b: a % b, np.mod, BINARY[:4], lo=0.5),
    Row("remainder_scalar", lambda T, a: a % 0.75, lambda a: np.mod(a, 0.75), un, avoid=(-1.5, -0.75, 0, 0.75, 1.5)),
    Row("div_floor", lambda T, a, b: a.div(b, rounding_mode="floor"), lambda a, b: np.floor_divide(a, b), BINARY[:2],
        lo=0.5),
    Row("div_trunc", lambda T, a: a.div(0.7, rounding_mode="trunc"), lambda a: np.trunc(a / 0.7), un,
        avoid=(-1.4, -0.7, 0, 0.7, 1.4)),
    Row("neg", lambda T, a: -a, np.negative, un),
    Row("abs", lambda T, a: a.abs(), np.abs, un, avoid=(0,)),
    Row("exp", lambda T, a: a.exp(), np.exp, un),
    Row("log", lambda T, a: a.log(), np.log, un, lo=0.2),
    Row("sqrt", lambda T, a: a.sqrt(), np.sqrt, un, lo=0.2),
    Row("sin", lambda T, a: a.sin(), np.sin, un),
    Row("cos", lambda T, a: T.cos(a), np.cos, un),
    Row("tanh", lambda T, a: a.tanh(), np.tanh, un),
    Row("sigmoid", lambda T, a: T.sigmoid(a), lambda a: 1 / (1 + np.exp(-a)), un),
    Row("log2", lambda T, a: a.log2(), np.log2, un, lo=0.2),
    Row("log10", lambda T, a: T.log10(a), np.log10, un, lo=0.2),
    Row("log1p", lambda T, a: a.log1p(), np.log1p, un, lo=-0.8),
    Row("expm1", lambda T, a: a.expm1(), np.expm1, un),
    Row("rsqrt", lambda T, a: a.rsqrt(), lambda a: 1 / np.sqrt(a), un, lo=0.2),
    Row("reciprocal", lambda T, a: a.reciprocal(), lambda a: 1 / a, un, lo=0.2),
    Row("square", lambda T, a: a.square(), np.square, un),
    Row("relu", lambda T, a: a.relu(), lambda a: np.maximum(a, 0), un, avoid=(0,)),
    Row("clamp_min", lambda T, a: a.clamp(min=-0.5), lambda a: np.maximum(a, -0.5), un, avoid=(-0.5,)),
    Row("clamp_max", lambda T, a: T.clamp(a, max=0.5), lambda a: np.minimum(a, 0.5), un, avoid=(0.5,)),
    Row("clamp", lambda T, a: a.clamp(-0.5, 0.5), lambda a: np.clip(a, -0.5, 0.5), un, avoid=(-0.5, 0.5)),
    Row("clamp_tensors", lambda T, a, lo, hi: a.clamp(lo, hi - 1), lambda a, lo, hi: np.minimum(np.maximum(a, lo), hi - 1),
        [((2, 3), (3,), (2, 1)), ((), (), ()), ((3,), (1,), (3,))]),
    Row("clamp_min_tensor", lambda T, a, lo: T.clamp(a, min=lo), np.maximum, BINARY[:3]),
    Row("maximum", lambda T, a, b: T.maximum(a, b), np.maximum, BINARY),
    Row("minimum", lambda T, a, b: T.minimum(a, b), np.minimum, BINARY),
    Row("where", lambda T, a, b: T.where(a > 0, a, b), lambda a, b: np.where(a > 0, a, b), BINARY, avoid=(0,)),
    Row("where_scalar", lambda T, a: T.where(a > 0, a, 0.5), lambda a: np.where(a > 0, a, 0.5), un, avoid=(0,)),
    # reductions
    Row("sum", lambda T, a: a.sum(), np.sum, un),
    Row("sum_dim", lambda T, a: a.sum(0), lambda a: a.sum(0), dims),
    Row("sum_keepdim", lambda T, a: a.sum(-1, keepdim=True), lambda a: a.sum(-1, keepdims=True), dims),
    Row("sum_dims", lambda T, a: a.sum((0, 2)), lambda a: a.sum((0, 2)), [((2, 3, 2),), ((1, 2, 1),)]),
    Row("sum_scalar_dim", lambda T, a: a.sum(0), lambda a: a, [((),)]),
    Row("mean", lambda T, a: a.mean(), np.mean, un),
    Row("mean_dim", lambda T, a: a.mean(-1), lambda a: a.mean(-1), dims),
    Row("mean_keepdim", lambda T, a: T.mean(a, (0, 1), keepdim=True), lambda a: a.mean((0, 1), keepdims=True),
        [((3, 1),), ((2, 3, 2),)]),
    Row("var", lambda T, a: a.var(), lambda a: a.var(ddof=1), multi),
    Row("var_dim", lambda T, a: a.var(-1, keepdim=True), lambda a: a.var(-1, ddof=1, keepdims=True), multi),
    Row("var_biased", lambda T, a: a.var(0, unbiased=False), lambda a: a.var(0), [((2, 3),), ((3, 1),)]),
    Row("var_correction0", lambda T, a: a.var(correction=0), lambda a: a.var(), multi[:1]),
    Row("std", lambda T, a: a.std(), lambda a: a.std(ddof=1), multi),
    Row("std_dim", lambda T, a: a.std(1), lambda a: a.std(1, ddof=1), multi[:2] + [((2, 3, 1),)]),
    Row("max", lambda T, a: a.max(), np.max, un),
    Row("min", lambda T, a: T.min(a), np.min, un),
    Row("max_dim", lambda T, a: a.max(-1), lambda a: (a.max(-1), a.argmax(-1)), dims),
    Row("max_keepdim", lambda T, a: a.max(0, keepdim=True),
        lambda a: (a.max(0, keepdims=True), a.argmax(0, keepdims=True)), dims),
    Row("min_dim", lambda T, a: T.min(a, 0), lambda a: (a.min(0), a.argmin(0)), dims),
    Row("min_keepdim", lambda T, a: a.min(-1, keepdim=True),
        lambda a: (a.min(-1, keepdims=True), a.argmin(-1, keepdims=True)), dims),
    Row("amax", lambda T, a: a.amax(), np.max, un),
    Row("amax_dims", lambda T, a: a.amax((0, -1), keepdim=True), lambda a: a.max((0, -1), keepdims=True), dims[1:]),
    Row("amin_dim", lambda T, a: a.amin(-1), lambda a: a.min(-1), dims),
    Row("argmax", lambda T, a: a.argmax(), np.argmax, un, grad=False),
    Row("argmax_dim", lambda T, a: T.argmax(a, 1, keepdim=True), lambda a: a.argmax(1, keepdims=True),
        [((3, 1),), ((2, 3, 2),)], grad=False),
    Row("argmin", lambda T, a: a.argmin(), np.argmin, un, grad=False),
    Row("argmin_dim", lambda T, a: a.argmin(0), lambda a: a.argmin(0), dims, grad=False),
    Row("logsumexp", lambda T, a: a.logsumexp(-1), lambda a: np.log(np.exp(a).sum(-1)), dims),
    Row("logsumexp_keepdim", lambda T, a: T.logsumexp(a, (0, 1), keepdim=True),
        lambda a: np.log(np.exp(a).sum((0, 1), keepdims=True)), [((3, 1),), ((2, 3, 2),)]),
    Row("softmax", lambda T, a: a.softmax(-1), lambda a: _np_softmax(a, -1), dims + [((),)]),
    Row("softmax_dim0", lambda T, a: T.softmax(a, 0), lambda a: _np_softmax(a, 0), dims),
    Row("log_softmax", lambda T, a: a.log_softmax(-1), lambda a: np.log(_np_softmax(a, -1)), dims),
    Row("log_softmax_dim1", lambda T, a: T.log_softmax(a, 1), lambda a: np.log(_np_softmax(a, 1)),
        [((3, 1),), ((2, 3, 2),)]),
    # matmul
    Row("matmul", lambda T, a, b: a @ b, np.matmul,
        [((3,), (3,)), ((2, 3), (3, 4)), ((3,), (3, 2)), ((2, 3), (3,)), ((2, 2, 3), (2, 3, 2)),
         ((2, 2, 3), (3, 2)), ((2, 3), (2, 3, 2)), ((1, 2, 3), (4, 3, 2)), ((2, 1, 2, 3), (3, 3, 1)),
         ((3,), (2, 3, 2)), ((2, 2, 3), (3,)), ((1, 3), (2, 3, 2))]),
    Row("mm", lambda T, a, b: T.mm(a, b), np.matmul, [((2, 3), (3, 1))]),
    Row("bmm", lambda T, a, b: a.bmm(b), np.matmul, [((2, 2, 3), (2, 3, 2))]),
    # shapes
    Row("reshape", lambda T, a: a.reshape(-1, 2), lambda a: a.reshape(-1, 2), [((2, 3, 2),), ((1, 2),)]),
    Row("reshape_scalar", lambda T, a: a.reshape(1, 1), lambda a: a.reshape(1, 1), [((),)]),
    Row("view", lambda T, a: a.view(3, 4), lambda a: a.reshape(3, 4), [((2, 3, 2),)]),
    Row("view_same", lambda T, a: a.view(2, 3), lambda a: a, [((2, 3),)]),
    Row("flatten", lambda T, a: a.flatten(), lambda a: a.reshape(-1), [((),), ((2, 3, 2),)]),
    Row("flatten_range", lambda T, a: T.flatten(a, 1), lambda a: a.reshape(a.shape[0], -1), [((2, 3, 2),)]),
    Row("squeeze", lambda T, a: a.squeeze(), np.squeeze, un + [((1, 3, 1),)]),
    Row("squeeze_dim", lambda T, a: a.squeeze(-1), lambda a: a.squeeze(-1), [((3, 1),), ((1, 3, 1),)]),
    Row("squeeze_noop", lambda T, a: a.squeeze(0), lambda a: a, [((2, 3),)]),
    Row("unsqueeze", lambda T, a: a.unsqueeze(-1), lambda a: a[..., None], un),
    Row("unsqueeze_0", lambda T, a: T.unsqueeze(a, 0), lambda a: a[None], un),
    Row("permute", lambda T, a: a.permute(2, 0, 1), lambda a: a.transpose(2, 0, 1), [((2, 3, 2),), ((1, 2, 1),)]),
    Row("transpose", lambda T, a: a.transpose(0, -1), lambda a: np.swapaxes(a, 0, -1), [((2, 3, 2),), ((3, 1),)]),
    Row("t", lambda T, a: a.t(), lambda a: a.T, [((2, 3),), ((3,),), ((),)]),
    Row("T", lambda T, a: a.T, lambda a: a.T, [((2, 3),), ((1, 3),)]),
    Row("expand", lambda T, a: a.expand(2, 3, 4), lambda a: np.broadcast_to(a, (2, 3, 4)), [((3, 1),), ((),)]),
    Row("expand_keep", lambda T, a: a.expand(-1, 2), lambda a: np.broadcast_to(a, (3, 2)), [((3, 1),)]),
    Row("contiguous", lambda T, a: a.t().contiguous(), lambda a: a.T, [((2, 3),)]),
    Row("reshape_strided_view", lambda T, a: a.t().reshape(3, 1, 2), lambda a: a.T.reshape(3, 1, 2), [((2, 3),)]),
    Row("reshape_strided_copy", lambda T, a: a.t().reshape(6), lambda a: a.T.reshape(6), [((2, 3),)]),
    Row("flatten_strided", lambda T, a: a[:, ::2].flatten(), lambda a: a[:, ::2].reshape(-1), [((2, 4),)]),
    Row("repeat", lambda T, a: a.repeat(2, 1, 3), lambda a: np.tile(a, (2, 1, 3)), [((2, 3),), ((),), ((1,),)]),
    Row("strided_inputs", lambda T, a, b: a.t() * b[::2] + (a.t() @ b[::2].t()).sum(),
        lambda a, b: a.T * b[::2] + (a.T @ b[::2].T).sum(), [((2, 3), (6, 2))]),
    Row("clone", lambda T, a: a.clone(), lambda a: a, un),
    # indexing
    Row("index_int", lambda T, a: a[1], lambda a: a[1], [((2, 3, 2),), ((2, 1),)]),
    Row("index_ints", lambda T, a: a[-1, 0], lambda a: a[-1, 0], [((2, 3, 2),)]),
    Row("index_slice", lambda T, a: a[1:], lambda a: a[1:], [((3, 1),), ((2, 3, 2),)]),
    Row("index_step", lambda T, a: a[::2, 1:3], lambda a: a[::2, 1:3], [((3, 4),)]),
    Row("index_full_slice", lambda T, a: a[:], lambda a: a[:], [((2, 3),)]),
    Row("index_int_slice", lambda T, a: a[1, :], lambda a: a[1, :], [((2, 3),)]),
    Row("index_slice_int", lambda T, a: a[:, 1], lambda a: a[:, 1], [((2, 3),)]),
    Row("index_none", lambda T, a: a[None, :, None], lambda a: a[None, :, None], [((3,),), ((2, 3),)]),
    Row("index_ellipsis", lambda T, a: a[..., 1], lambda a: a[..., 1], [((2, 3, 2),)]),
    Row("index_ellipsis_only", lambda T, a: a[...], lambda a: a, un[:2]),
    Row("index_mask", lambda T, a: a[T.tensor(MASK)], lambda a: a[MASK], [((2, 3),)]),
    Row("index_mask_rows", lambda T, a: a[T.tensor([True, False, True])], lambda a: a[[0, 2]], [((3, 2),)]),
    Row("index_tensor_repeat", lambda T, a: a[T.tensor([0, 2, 0, 0])], lambda a: a[[0, 2, 0, 0]],
        [((3,),), ((3, 2),)]),
    Row("index_tensor_2d", lambda T, a: a[T.tensor([[1, 1], [0, 2]]), 1:], lambda a: a[[[1, 1], [0, 2]], 1:],
        [((3, 3),)]),
    Row("index_two_tensors", lambda T, a: a[T.tensor([0, 1, 1]), T.tensor([2, 0, 2])],
        lambda a: a[[0, 1, 1], [2, 0, 2]], [((2, 3),)]),
    Row("setitem", lambda T, a, v: _tt_setitem(T, a, (slice(1, None), 0), v),
        lambda a, v: _np_setitem(a, (slice(1, None), 0), v), [((3, 2), (2,)), ((3, 2), ()), ((3, 2), (1,))]),
    Row("setitem_mask", lambda T, a, v: _tt_setitem(T, a, T.tensor(MASK), v),
        lambda a, v: _np_setitem(a, MASK, v), [((2, 3), (3,)), ((2, 3), ())]),
    Row("setitem_index", lambda T, a, v: _tt_setitem(T, a, T.tensor([2, 0]), v),
        lambda a, v: _np_setitem(a, [2, 0], v), [((3, 2), (2, 2)), ((3, 2), (2,))]),
    Row("setitem_scalar", lambda T, a: _tt_setitem(T, a, 1, 0.5), lambda a: _np_setitem(a, 1, 0.5), [((3, 2),)]),
    Row("setitem_leading_ones", lambda T, a, v: _tt_setitem(T, a, 0, v), lambda a, v: _np_setitem(a, 0, v),
        [((2, 3), (1, 1, 3))]),
    Row("setitem_whole", lambda T, a, v: _tt_setitem(T, a, (slice(None), ...), v),
        lambda a, v: _np_setitem(a, (slice(None), ...), v), [((2, 3), ()), ((2, 3), (3,))]),
    # joining and splitting
    Row("cat", lambda T, a, b: T.cat([a, b]), lambda a, b: np.concatenate([a, b]), [((2, 3), (1, 3)), ((2,), (3,))]),
    Row("cat_dim", lambda T, a, b: T.cat((a, b, a), dim=-1), lambda a, b: np.concatenate([a, b, a], -1),
        [((2, 1), (2, 3))]),
    Row("stack", lambda T, a, b: T.stack([a, b]), lambda a, b: np.stack([a, b]), [((), ()), ((2, 3), (2, 3))]),
    Row("stack_dim", lambda T, a, b: T.stack([a, b, a], dim=-1), lambda a, b: np.stack([a, b, a], -1),
        [((2, 1), (2, 1))]),
    Row("split", lambda T, a: a.split(2), lambda a: _np_split(a, [2, 2, 1], 0), [((5, 2),)]),
    Row("split_sizes", lambda T, a: T.split(a, [1, 3], dim=1), lambda a: _np_split(a, [1, 3], 1), [((2, 4),)]),
    Row("split_one_used", lambda T, a: a.split(2)[1], lambda a: a[2:4], [((5,),)]),
    Row("chunk", lambda T, a: a.chunk(3, -1), lambda a: _np_split(a, [2, 2, 1], -1), [((2, 5),)]),
    Row("unbind", lambda T, a: a.unbind(1), lambda a: tuple(np.moveaxis(a, 1, 0)), [((2, 3),), ((2, 1, 2),)]),
    Row("gather", lambda T, a: a.gather(1, T.tensor([[0, 0, 2], [1, 0, 1]])),
        lambda a: np.take_along_axis(a, np.array([[0, 0, 2], [1, 0, 1]]), 1), [((2, 3),)]),
    Row("gather_dim0", lambda T, a: T.gather(a, 0, T.tensor([[1], [1], [0]])),
        lambda a: a[[[1], [1], [0]], [[0], [0], [0]]], [((2, 2),)]),
    # dtype casts
    Row("to_float64", lambda T, a: a.to(T.float32).to(T.float64), lambda a: a.astype(np.float32), un[:3],
        grad=False),
    Row("double", lambda T, a: a.float().double(), lambda a: a.astype(np.float32), [((2, 3),)], grad=False),
    Row("float", lambda T, a: a.float() * 2, lambda a: a.astype(np.float32) * 2, [((2, 3),)], grad=False),
    Row("long", lambda T, a: a.long(), lambda a: a.astype(np.int64), [((2, 3),)], lo=-5, hi=5, grad=False),
    Row("int", lambda T, a: a.int(), lambda a: a.astype(np.int32), [((2, 3),)], lo=-5, hi=5, grad=False),
    Row("bool", lambda T, a: a.bool(), lambda a: a.astype(bool), [((2, 3),)], avoid=(0,), grad=False),
]
CASES = [pytest.param(r, s, i, id=f"{r.name}-{'x'.join(str(list(x)) for x in s)}")
         for r in ROWS for i, s in enumerate(r.shapes)]
GRAD_CASES = [c for c in CASES if c.values[0].grad]
GRADGRAD_CASES = [c for c in GRAD_CASES if c.values[0].gradgrad]


@pytest.mark.parametrize("row, shapes, i", CASES)
def test_forward_vs_numpy(row, shapes, i):
    arrays = _inputs(row, shapes, i)
    outs = _outs(row.fn(tinytorch, *[tinytorch.tensor(a) for a in arrays]))
    refs = _outs(row.ref(*[a.copy() for a in arrays]))
    assert len(outs) == len(refs)
    for o, r in zip(outs, refs):
        r = np.asarray(r)
        assert isinstance(o._data, np.ndarray) and o.shape == r.shape
        if r.dtype.kind == "f":
            np.testing.assert_allclose(o.numpy(), r, rtol=1e-12, atol=1e-12)
        else:
            np.testing.assert_array_equal(o.numpy(), r)
            assert o.dtype.np == r.dtype


@pytest.mark.parametrize("row, shapes, i", GRAD_CASES)
def test_gradcheck(row, shapes, i):
    xs = [tinytorch.tensor(a, requires_grad=True) for a in _inputs(row, shapes, i)]
    assert gradcheck(_float_outs(lambda *t: row.fn(tinytorch, *t)), xs)


@pytest.mark.parametrize("row, shapes, i", GRADGRAD_CASES)
def test_gradgradcheck(row, shapes, i):
    tinytorch.manual_seed(i)
    xs = [tinytorch.tensor(a, requires_grad=True) for a in _inputs(row, shapes, i)]
    assert gradgradcheck(_float_outs(lambda *t: row.fn(tinytorch, *t)), xs)


def _run(T, row, arrays, grad_outputs):
    """Forward, then one weighted backward; (outputs, input grads, grad_fn names)."""
    xs = [T.tensor(a.astype(np.float32), requires_grad=True) for a in arrays]
    outs = _outs(row.fn(T, *xs))
    names = [None if o.grad_fn is None else type(o.grad_fn).__name__ for o in outs]
    diff = [(o, w) for o, w in zip(outs, grad_outputs) if o.requires_grad]
    grads = []
    if diff:
        loss = sum((o * T.tensor(w)).sum() for o, w in diff)
        grads = T.autograd.grad(loss, xs, allow_unused=True)
    return outs, [None if g is None else _np(g) for g in grads], names


@pytest.mark.parametrize("row, shapes, i", CASES)
def test_vs_torch(row, shapes, i, torch):
    arrays = _inputs(row, shapes, i)
    ref_outs = _outs(row.fn(torch, *[torch.tensor(a.astype(np.float32)) for a in arrays]))
    w = [np.random.default_rng(i).standard_normal(tuple(o.shape)).astype(np.float32) for o in ref_outs]
    t_outs, t_grads, t_names = _run(torch, row, arrays, w)
    o_outs, o_grads, o_names = _run(tinytorch, row, arrays, w)
    assert o_names == t_names
    for o, t in zip(o_outs, t_outs):
        assert o.dtype.name == str(t.dtype).replace("torch.", "") and tuple(o.shape) == tuple(t.shape)
        assert o.requires_grad == t.requires_grad and o.is_leaf == t.is_leaf
        np.testing.assert_allclose(_np(o), _np(t), rtol=1e-5, atol=1e-6)
    assert [g is None for g in o_grads] == [g is None for g in t_grads]
    for og, tg in zip(o_grads, t_grads):
        if tg is not None:
            assert og.dtype == tg.dtype
            np.testing.assert_allclose(og, tg, rtol=1e-5, atol=1e-6)


@pytest.mark.parametrize("row, shapes, i", GRADGRAD_CASES)
def test_double_backward_vs_torch(row, shapes, i, torch):
    """d/dx <v, d/dx <w, f(x)>> in float32 against PyTorch's."""
    arrays = _inputs(row, shapes, i)
    res = []
    for T in (torch, tinytorch):
        xs = [T.tensor(a.astype(np.float32), requires_grad=True) for a in arrays]
        outs = [o for o in _outs(row.fn(T, *xs)) if o.requires_grad]
        rng = np.random.default_rng(100 + i)
        loss = sum((o * T.tensor(rng.standard_normal(tuple(o.shape)).astype(np.float32))).sum() for o in outs)
        g1 = [g for g in T.autograd.grad(loss, xs, create_graph=True, allow_unused=True) if g is not None]
        g1 = [g for g in g1 if g.requires_grad]
        if not g1:
            res.append(None)
            continue
        s = sum((g * T.tensor(rng.standard_normal(tuple(g.shape)).astype(np.float32))).sum() for g in g1)
        g2 = T.autograd.grad(s, xs, allow_unused=True)
        res.append([None if g is None else _np(g) for g in g2])
    t_res, o_res = res
    if t_res is None or o_res is None:  # a linear op: no second derivative on one side must mean zeros on the other
        assert (t_res is None and o_res is None) or all(g is None or not g.any() for g in (t_res or o_res))
        return
    for og, tg in zip(o_res, t_res):
        if tg is None or og is None:
            assert (tg is None or not tg.any()) and (og is None or not og.any())
        else:
            np.testing.assert_allclose(og, tg, rtol=1e-5, atol=1e-6)


# -- comparisons --------------------------------------------------------------------------------
CMP = [("eq", np.equal), ("ne", np.not_equal), ("lt", np.less), ("le", np.less_equal), ("gt", np.greater),
       ("ge", np.greater_equal)]


@pytest.mark.parametrize("name, ufunc", CMP)
@pytest.mark.parametrize("shapes", BINARY[:4], ids=str)
def test_comparisons(name, ufunc, shapes, torch):
    a, b = (np.round(x) for x in _inputs(Row("", None, None, None, lo=-3, hi=3), shapes, 0))
    b = np.broadcast_to(b, np.broadcast_shapes(a.shape, b.shape)).copy()
    b.reshape(-1)[::2] = np.broadcast_to(a, b.shape).reshape(-1)[::2]  # some ties
    x, y = tinytorch.tensor(a, requires_grad=True), tinytorch.tensor(b)
    for out, ref in [(getattr(x, name)(y), ufunc(a, b)), (getattr(tinytorch, name)(x, 0.5), ufunc(a, 0.5)),
                     ({"eq": x == y, "ne": x != y, "lt": x < y, "le": x <= y, "gt": x > y, "ge": x >= y}[name],
                      ufunc(a, b))]:
        assert out.dtype == tinytorch.bool and not out.requires_grad and out.grad_fn is None
        np.testing.assert_array_equal(out.numpy(), ref)
    t_out = getattr(torch.tensor(a), name)(torch.tensor(b))
    np.testing.assert_array_equal(getattr(x, name)(y).numpy(), t_out.numpy())


# -- ties and kinks: PyTorch's conventions where the derivative is not defined -------------------
TIES = [
    ("max_ties", lambda T, x, y: x.max(), [1.0, 3.0, 3.0], [0.0, 0.0, 0.0]),
    ("min_ties", lambda T, x, y: x.min(), [1.0, 1.0, 3.0], [0.0, 0.0, 0.0]),
    ("max_dim_ties", lambda T, x, y: x.max(0)[0] * 1 + x.max(0)[1], [1.0, 3.0, 3.0], [0.0, 0.0, 0.0]),
    ("maximum_ties", lambda T, x, y: T.maximum(x, y), [1.0, 3.0, 3.0], [1.0, 2.0, 3.0]),
    ("minimum_ties", lambda T, x, y: T.minimum(x, y), [1.0, 3.0, 3.0], [1.0, 2.0, 3.0]),
    ("kinks", lambda T, x, y: x.clamp(-1, 1) + 2 * x.relu() + 4 * x.abs() + 8 * x.clamp(min=0),
     [-1.0, 0.0, 1.0], [0.0, 0.0, 0.0]),
    ("amax_ties", lambda T, x, y: x.amax() + x.amin(), [1.0, 3.0, 3.0], [0.0, 0.0, 0.0]),
    ("clamp_tensor_ties", lambda T, x, y: x.clamp(y, y + 1), [1.0, 2.0, 3.0], [1.0, 1.0, 3.0]),
    ("nan_inputs", lambda T, x, y: T.maximum(x, y) + T.minimum(x, y) + x.max(),
     [1.0, float("nan"), 2.0], [1.0, 1.0, float("nan")]),
    # where PyTorch masks an inf gradient it writes 0, not inf * 0 = NaN
    ("masked_inf", lambda T, x, y: (x.relu() + x.clamp(0, 1.5) + x.clamp(y, y + 1) + T.maximum(x, y)
                                     + x.max()) * float("inf"), [1.0, -1.0, 2.0], [0.0, 0.0, 3.0]),
    ("std_of_constants", lambda T, x, y: x.std() + y.var(), [0.5, 0.5, 0.5], [2.0, 2.0, 2.0]),
    ("var_without_dof", lambda T, x, y: x.reshape(1, 3).var(0) + x.reshape(1, 3).std(0), [1.0, 2.0, 3.0],
     [0.0, 0.0, 0.0]),
]


@pytest.mark.parametrize("name, fn, a, b", TIES, ids=[t[0] for t in TIES])
def test_ties_vs_torch(name, fn, a, b, torch):
    res = []
    for T in (torch, tinytorch):
        x, y = T.tensor(a, requires_grad=True), T.tensor(b, requires_grad=True)
        out = fn(T, x, y)
        out.sum().backward()
        res.append((_np(out), _np(x.grad), None if y.grad is None else _np(y.grad)))
    for t_val, o_val in zip(*res):
        assert (t_val is None) == (o_val is None)
        if t_val is not None:
            np.testing.assert_array_equal(o_val, t_val)


# -- higher derivatives -------------------------------------------------------------------------
def _sig(x):
    return 1 / (1 + np.exp(-x))


THIRD = [
    ("cube", lambda x: x ** 3, lambda x: 6 + 0 * x),
    ("exp", lambda x: x.exp(), np.exp),
    ("tanh", lambda x: x.tanh(), lambda x: -2 * (1 - np.tanh(x) ** 2) * (1 - 3 * np.tanh(x) ** 2)),
    ("sigmoid", lambda x: x.sigmoid(), lambda x: _sig(x) * (1 - _sig(x)) * (1 - 6 * _sig(x) + 6 * _sig(x) ** 2)),
]


@pytest.mark.parametrize("name, f, d3", THIRD, ids=[t[0] for t in THIRD])
def test_third_derivative(name, f, d3):
    a = np.array([-1.5, -0.3, 0.0, 0.7, 2.0])
    x = tinytorch.tensor(a, requires_grad=True)
    (g1,) = tinytorch.autograd.grad(f(x).sum(), x, create_graph=True)
    (g2,) = tinytorch.autograd.grad(g1.sum(), x, create_graph=True)
    (g3,) = tinytorch.autograd.grad(g2.sum(), x)
    np.testing.assert_allclose(g3.numpy(), d3(a), rtol=1e-10, atol=1e-12)


def test_gradcheck_catches_a_wrong_backward():
    class Twice(tinytorch.autograd.Function):
        @staticmethod
        def forward(ctx, x):
            return x * 2

        @staticmethod
        def backward(ctx, g):
            return g * 2.01

    x = tinytorch.tensor([0.5, -1.0], dtype=tinytorch.float64, requires_grad=True)
    with pytest.raises(GradcheckError):
        gradcheck(Twice.apply, (x,))
    assert gradcheck(Twice.apply, (x,), raise_exception=False) is False


# -- broadcasting properties over random shapes -------------------------------------------------
def _np_sum_to(g: np.ndarray, shape: tuple) -> np.ndarray:
    lead = g.ndim - len(shape)
    g = g.sum(axis=tuple(range(lead)))
    return g.sum(axis=tuple(i for i, s in enumerate(shape) if s == 1), keepdims=True)


BROADCAST_OPS = [("add", np.add), ("sub", np.subtract), ("mul", np.multiply), ("div", np.divide),
                 ("pow", np.power), ("maximum", np.maximum), ("minimum", np.minimum), ("lt", np.less),
                 ("ge", np.greater_equal)]


@settings(max_examples=60, deadline=None, derandomize=True)
@given(data=st.data(), op=st.sampled_from(BROADCAST_OPS), dtype=st.sampled_from([np.float32, np.float64]))
def test_broadcast_binary_forward_matches_numpy(data, op, dtype):
    name, ufunc = op
    shapes = data.draw(hnp.mutually_broadcastable_shapes(num_shapes=2, max_dims=4, max_side=3))
    elements = st.floats(0.25, 4, width=32)  # positive and away from 0: pow and div are defined
    a, b = (data.draw(hnp.arrays(dtype, s, elements=elements)) for s in shapes.input_shapes)
    out = getattr(tinytorch, name)(tinytorch.from_numpy(a), tinytorch.from_numpy(b))
    ref = ufunc(a, b)
    assert out.shape == tinytorch.Size(shapes.result_shape) and out.dtype.np == ref.dtype
    np.testing.assert_array_equal(out.numpy(), ref)


@settings(max_examples=40, deadline=None, derandomize=True)
@given(data=st.data())
def test_broadcast_mul_gradient_sums_back_to_each_shape(data):
    shapes = data.draw(hnp.mutually_broadcastable_shapes(num_shapes=2, max_dims=4, max_side=3))
    a, b = (data.draw(hnp.arrays(np.float64, s, elements=st.floats(-4, 4))) for s in shapes.input_shapes)
    w = data.draw(hnp.arrays(np.float64, shapes.result_shape, elements=st.floats(-4, 4)))
    x, y = tinytorch.tensor(a, requires_grad=True), tinytorch.tensor(b, requires_grad=True)
    ((x * y) * tinytorch.tensor(w)).sum().backward()
    full = np.broadcast_shapes(a.shape, b.shape)
    np.testing.assert_allclose(x.grad.numpy(), _np_sum_to(w * np.broadcast_to(b, full), a.shape).reshape(a.shape))
    np.testing.assert_allclose(y.grad.numpy(), _np_sum_to(w * np.broadcast_to(a, full), b.shape).reshape(b.shape))

