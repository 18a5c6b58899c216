"""Forward-mode AD's tangents written as PyTorch 2.13's formulas write them, against PyTorch: the tangent's
``grad_fn`` chain (names through ``next_functions``), dtype and values, and the gradients that flow back through it
(a second-order use), by ``torch.func.jvp`` and by ``autograd.forward_ad`` dual levels. Covers div's, the softmaxes'
(one ``logsumexp_jvp``), layer_norm's and mse_loss's (its decomposition's, over ``aten.mse_loss_backward``), the
products' (mm, matmul, bmm, mv, dot, the addmm family, linear) with an operand without a tangent, in-place ops
through views (values and gradients), primals of which only some require grad, and ``aten.gelu_backward``'s dtypes (GELU's tangent at half and bfloat16)."""
import numpy as np
import pytest

import tinytorch
from _graph_walk import chain  # noqa: E402

RNG = np.random.default_rng(0)
A = RNG.uniform(0.3, 1.5, (3, 4)) * RNG.choice([-1, 1], (3, 4))
B = RNG.uniform(0.3, 1.5, (3, 4))
TA, TB = RNG.standard_normal((3, 4)), RNG.standard_normal((3, 4))


def F(L):
    return L.nn.functional


def _chain(fn):
    return chain(fn, 6)


def _mk(L, src, rg, dtype=None):
    t = L.tensor(src)
    if dtype is not None:
        t = t.to(getattr(L, dtype))
    return t.requires_grad_(True) if rg else t


def _grads(L, tan, leaves):
    wrt = [v for v in leaves if v.requires_grad]
    if not tan.requires_grad or not wrt:
        return None
    gs = L.autograd.grad((tan.double() * tan.double()).sum(), wrt, allow_unused=True)
    out = []
    for g in gs:
        if g is not None and L is not tinytorch and g._is_zerotensor():  # PyTorch's zero gradient of a zero term
            g = L.zeros(g.shape, dtype=g.dtype)
        out.append(None if g is None else g.double().numpy())
    return out


def _tangent(L, f, xs, ts, dual):
    """The tangent of ``f(*xs)`` along ``ts``: by func.jvp, or in a dual level (make_dual / unpack_dual)."""
    if not dual:
        return L.func.jvp(lambda *a: f(L, *a), tuple(xs), tuple(ts))[1]
    fa = L.autograd.forward_ad
    with fa.dual_level():
        return fa.unpack_dual(f(L, *[fa.make_dual(x, t) for x, t in zip(xs, ts)])).tangent


def _compare(ours, theirs, chains=True, grads=True):
    (tan, g), (tan_t, g_t) = ours, theirs
    assert (tan.requires_grad, tan.dtype.__repr__().split(".")[-1]) == \
        (tan_t.requires_grad, tan_t.dtype.__repr__().split(".")[-1])
    if chains:
        assert _chain(tan.grad_fn) == _chain(tan_t.grad_fn)
    np.testing.assert_allclose(tan.detach().double().numpy(), tan_t.detach().double().numpy(), rtol=1e-10, atol=1e-12)
    if grads:
        assert (g is None) == (g_t is None)
        for a, b in zip(g or (), g_t or ()):
            assert (a is None) == (b is None)
            if a is not None:
                np.testing.assert_allclose(a, b, rtol=1e-9, atol=1e-11)


# -- the ops whose tangents follow PyTorch's formulas -----------------------------------------------------------
NAMED = {
    "div": (lambda L, x, y: x / y, 2),
    "div_scalar": (lambda L, x: x / 3.0, 1),
    "div_chain": (lambda L, x, y: (x / y).sin(), 2),  # the quotient an intermediate: its result is gone by then
    "softmax": (lambda L, x: x.softmax(1), 1),
    "softmax0": (lambda L, x: F(L).softmax(x, 0), 1),
    "log_softmax": (lambda L, x: x.log_softmax(1), 1),
    "logsumexp": (lambda L, x: x.logsumexp(1), 1),
    "layer_norm": (lambda L, x: F(L).layer_norm(x, (4,)), 1),
    "layer_norm_affine": (lambda L, x: F(L).layer_norm(x, (4,), L.tensor(B[0]), L.tensor(TB[0])), 1),
    "mse_loss": (lambda L, x, y: F(L).mse_loss(x, y), 2),
    "mse_loss_sum": (lambda L, x, y: F(L).mse_loss(x, y, reduction="sum"), 2),
    "mse_loss_none": (lambda L, x, y: F(L).mse_loss(x, y, reduction="none"), 2),
}
MODES = ("both", "primals", "tangents")
# PyTorch's layer_norm_jvp reads its saved mean and invstd without history (its second derivative through the
# tangent then disagrees with finite differences: test_func_jvp_forward_mode holds tinytorch's to them); tinytorch
# recomputes them from a primal that requires grad, so there the chains and gradients differ by design
WITH_STATS_HISTORY = {"layer_norm", "layer_norm_affine"}
# PyTorch's logsumexp_jvp multiplies its exps in place: in a dual level a backward through the tangent of the
# softmaxes then fails in PyTorch (an exp saved for its own backward was modified); tinytorch's runs
PYTORCH_FAILS_BACKWARD = {"softmax", "softmax0", "log_softmax", "logsumexp"}


def _named(L, name, mode, dual):
    f, n = NAMED[name]
    xs = [_mk(L, A, mode != "tangents"), _mk(L, B, mode != "tangents")][:n]
    ts = [_mk(L, TA, mode != "primals"), _mk(L, TB, mode != "primals")][:n]
    tan = _tangent(L, f, xs, ts, dual)
    grads = None
    if not (dual and L is not tinytorch and name in PYTORCH_FAILS_BACKWARD and mode != "tangents"):
        grads = _grads(L, tan, xs + ts)
    return tan, grads


@pytest.mark.parametrize("dual", [False, True], ids=["jvp", "dual_level"])
@pytest.mark.parametrize("name, mode", [(n, m) for n in NAMED for m in MODES])
def test_tangent_formula_as_pytorch(torch, name, mode, dual):
    ours, theirs = _named(tinytorch, name, mode, dual), _named(torch, name, mode, dual)
    by_design = name in WITH_STATS_HISTORY and mode != "tangents"
    skip_grads = by_design or (dual and name in PYTORCH_FAILS_BACKWARD and mode != "tangents")
    _compare(ours, theirs, chains=not by_design, grads=not skip_grads)


def test_layer_norm_with_tangents_of_weight_and_bias_as_pytorch(torch):
    def run(L):
        r = np.random.default_rng(1)
        x, w, b = (L.tensor(r.standard_normal(s)) for s in ((3, 4), (4,), (4,)))
        ts = [L.tensor(r.standard_normal(s)).requires_grad_(True) for s in ((3, 4), (4,), (4,))]
        tan = L.func.jvp(lambda a, c, d: F(L).layer_norm(a, (4,), c, d), (x, w, b), tuple(ts))[1]
        return tan, _grads(L, tan, ts)

    _compare(run(tinytorch), run(torch))


# -- an operand without a tangent: a number, or a tensor the function closed over -----------------------------------
# PyTorch's formula takes its missing tangent as a zero tensor: mul's ``other_t * self_p`` still records a
# MulBackward0 through the primal that requires grad, and the sum an AddBackward0 (number / tensor is a reciprocal
# times the number)
CONSTANT_OPERAND = {
    "mul_number": lambda L, x: x * 3.0,
    "number_mul": lambda L, x: 3.0 * x,
    "mul_int": lambda L, x: x * 2,
    "rdiv": lambda L, x: 2.0 / x,
    "sin_mul_number": lambda L, x: x.sin() * 3.0,
    "mul_tensor": lambda L, x: x * L.tensor(B),
    "tensor_mul": lambda L, x: L.tensor(B) * x,
    "pow_tensor_exponent": lambda L, x: x.abs() ** L.tensor(B),
    # add's and sub's zero is its operand's: of its dtype (a float32 tensor's, beside a float64 primal's tangent), a
    # number's without promoting
    "add_number": lambda L, x: x * 1.0 + 3.0,
    "sub_number": lambda L, x: x * 1.0 - 3,
    "add_float32": lambda L, x: x * 1.0 + L.tensor(B).float(),
    "float32_sub_alpha": lambda L, x: L.sub(L.tensor(B).float(), x * 1.0, alpha=2),
    "float32_add": lambda L, x: L.tensor(B[0]).float() + x.float() * 1.0,
}


@pytest.mark.parametrize("dual", [False, True], ids=["jvp", "dual_level"])
@pytest.mark.parametrize("name, mode", [(n, m) for n in CONSTANT_OPERAND for m in MODES])
def test_operand_without_tangent_as_pytorch(torch, name, mode, dual):
    def run(L):
        x, t = _mk(L, A, mode != "tangents"), _mk(L, TA, mode != "primals")
        tan = _tangent(L, lambda L, a: CONSTANT_OPERAND[name](L, a), [x], [t], dual)
        return tan, _grads(L, tan, [x, t])

    _compare(run(tinytorch), run(torch))


# -- in-place ops: PyTorch writes the new tangent into the old one (CopyBackwards), its formula reading a clone of the
# old tangent and the written tensor as its primal --------------------------------------------------------------
INPLACE = {
    "relu_": lambda L, x: x.relu_(),
    "sigmoid_": lambda L, x: x.sigmoid_(),
    "sin_": lambda L, x: x.sin_(),
    "mul_number_": lambda L, x: x.mul_(2.0),
    "add_number_": lambda L, x: x.add_(1.0),
    "elu_inplace": lambda L, x: F(L).elu(x, inplace=True),
    "leaky_relu_inplace": lambda L, x: F(L).leaky_relu(x, 0.1, inplace=True),
}


@pytest.mark.parametrize("dual", [False, True], ids=["jvp", "dual_level"])
@pytest.mark.parametrize("name, mode", [(n, m) for n in INPLACE for m in MODES])
def test_inplace_tangent_as_pytorch(torch, name, mode, dual):
    def run(L):
        x, t = _mk(L, A, mode != "tangents"), _mk(L, TA, mode != "primals")
        tan = _tangent(L, lambda L, a: INPLACE[name](L, a.clone()), [x], [t], dual)
        return tan, _grads(L, tan, [x, t])

    _compare(run(tinytorch), run(torch))


def test_inplace_op_leaves_earlier_tangents_as_they_were(torch):
    # tinytorch pushes tangents when they are asked for: the in-place op's tangent is a new tensor, so a result
    # computed from the tensor before the op keeps the tangent it had then, asked for before or after
    def run(L, first):
        fa = L.autograd.forward_ad
        with fa.dual_level():
            y = fa.make_dual(L.tensor(A), L.tensor(TA)).clone()
            z = y * 2.0
            y.sin_()
            order = (y, z) if first == "inplace" else (z, y)
            tans = {id(o): fa.unpack_dual(o).tangent.clone() for o in order}
            return tans[id(y)].numpy(), tans[id(z)].numpy()

    for first in ("inplace", "earlier"):
        for a, b in zip(run(tinytorch, first), run(torch, first)):
            np.testing.assert_allclose(a, b, rtol=1e-12)


# -- in-place ops through views: the base's tangent and the view's -------------------------------------------------
# PyTorch writes the view's new tangent into a view of the base's tangent (CopySlices) and replays the view on it
# (AsStridedBackward0 for the view's); tinytorch pushes the tangent through the base's CopySlices node by its
# backward (double backward): values, requires_grad and the gradients back through the tangent as PyTorch's, not
# the chain. Where the op's formula multiplies a primal by a missing tangent (mul_ by a number or a constant
# tensor) in a dual level whose primal requires grad, PyTorch's tangent records that zero term and tinytorch's has
# no history (its gradient, zero, is None)
R_VIEW = np.random.default_rng(2)
AV, TV, CV = R_VIEW.standard_normal((3, 4)), R_VIEW.standard_normal((3, 4)), R_VIEW.standard_normal((4,))
VIEW_INPLACE = {
    "row_mul_": lambda L, y: y[0].mul_(2.0),
    "row_sin_": lambda L, y: y[0].sin_(),
    "column_add_": lambda L, y: y[:, 1].add_(L.tensor(CV[:3])),
    "view_add_": lambda L, y: y.view(4, 3).add_(1.0),
    "flat_mul_tensor_": lambda L, y: y.view(12).mul_(L.tensor(np.resize(CV, 12))),
    "transpose_exp_": lambda L, y: y.t().exp_(),
    "row_copy_": lambda L, y: y[1].copy_(L.tensor(CV)),
    "rows_relu_": lambda L, y: y[1:].relu_(),
}
NO_ZERO_TERM_HISTORY = {"row_mul_", "flat_mul_tensor_"}


def _view_inplace(L, name, mode, result, dual):
    x, t = _mk(L, AV, mode != "tangents"), _mk(L, TV, mode != "primals")

    def f(L, a):
        y = a * 1.0 if not dual else a.clone()
        v = VIEW_INPLACE[name](L, y)
        return y if result == "base" else v
    tan = _tangent(L, f, [x], [t], dual)
    return tan, _grads(L, tan, [x, t])


@pytest.mark.parametrize("dual", [False, True], ids=["jvp", "dual_level"])
@pytest.mark.parametrize("result", ["base", "view"])
@pytest.mark.parametrize("name, mode", [(n, m) for n in VIEW_INPLACE for m in MODES])
def test_inplace_through_view_tangent_values_as_pytorch(torch, name, mode, result, dual, request):
    if dual and mode != "tangents" and name in NO_ZERO_TERM_HISTORY:
        request.applymarker(pytest.mark.xfail(strict=True, reason="PyTorch's tangent records the zero term"))
    _compare(_view_inplace(tinytorch, name, mode, result, dual), _view_inplace(torch, name, mode, result, dual),
             chains=False)


# -- primals of which only some require grad -----------------------------------------------------------------
MIXED = {
    "mul": lambda L, a, b: a * b,
    "add": lambda L, a, b: a + b,
    "sub": lambda L, a, b: a - b,
    "div": lambda L, a, b: a / b,
    "sin_exp": lambda L, a, b: a.sin() + b.exp(),
    "matmul": lambda L, a, b: a @ b.t(),
    "mse": lambda L, a, b: F(L).mse_loss(a, b),
    "pow": lambda L, a, b: a.abs() ** b,
    "mul_sin": lambda L, a, b: (a * b).sin(),
}


def _mixed(L, name, rg, trg, dual):
    xs = [_mk(L, A, rg[0]), _mk(L, B, rg[1])]
    ts = [_mk(L, TA, trg), _mk(L, TB, False)]
    if dual:
        fa = L.autograd.forward_ad
        with fa.dual_level():
            out = MIXED[name](L, *[fa.make_dual(x, t) for x, t in zip(xs, ts)])
            tan = fa.unpack_dual(out).tangent
    else:
        out, tan = L.func.jvp(lambda *a: MIXED[name](L, *a), tuple(xs), tuple(ts))
    return (tan, _grads(L, tan, xs + ts)), _chain(out.grad_fn)


@pytest.mark.parametrize("dual", [False, True], ids=["jvp", "dual_level"])
@pytest.mark.parametrize("trg", [False, True], ids=["tangent", "tangent_requires_grad"])
@pytest.mark.parametrize("rg", [(True, False), (False, True)], ids=["first_requires_grad", "second_requires_grad"])
@pytest.mark.parametrize("name", sorted(MIXED))
def test_mixed_primals_tangent_as_pytorch(torch, name, rg, trg, dual):
    # the tangent's and the output's edges: to the primal that requires grad, None to the dual of the one that does
    # not (tinytorch records ops on that dual, to push its tangent later, but shows PyTorch's edges), and the
    # gradients through them
    (ours, out_chain), (theirs, out_chain_t) = (_mixed(L, name, rg, trg, dual) for L in (tinytorch, torch))
    _compare(ours, theirs)
    assert out_chain == out_chain_t


@pytest.mark.parametrize("name", sorted(MIXED))
def test_captured_tensor_that_requires_grad(torch, name):
    # the function closes over a tensor that requires grad: the output's node shows None for the dual's edge
    def run(L):
        y = _mk(L, B, True)
        out, tan = L.func.jvp(lambda a: MIXED[name](L, a, y), (_mk(L, A, False),), (L.tensor(TA),))
        return (tan, _grads(L, tan, [y])), _chain(out.grad_fn)

    (ours, out_chain), (theirs, out_chain_t) = run(tinytorch), run(torch)
    _compare(ours, theirs)
    assert out_chain == out_chain_t


# -- products with an operand without a tangent ------------------------------------------------------------------
# PyTorch's formulas (mm's ``self_t.mm(other_p) + self_p.mm(other_t)``, addmm's with ``maybe_multiply(self_t, beta)``
# first, bmm's, mv's, dot's; linear's are addmm's or mm's of W.t()) take the missing tangent as its operand's zero
# tensor and multiply it out: the tangent records an AddBackward0 over a product through the primal that requires
# grad (None for the zero), and a primal with an infinity gives nan there (dot's zero product stays zero)
P = {k: RNG.standard_normal(s) for k, s in (("m34", (3, 4)), ("m45", (4, 5)), ("v4", (4,)), ("v5", (5,)),
                                             ("m54", (5, 4)), ("m35", (3, 5)), ("b234", (2, 3, 4)),
                                             ("b245", (2, 4, 5)))}
# name: (f(L, dual, constant), the dual's and the constant's shapes)
PRODUCTS = {
    "matmul": (lambda L, a, c: a @ c, "m34", "m45"),
    "matmul_constant_first": (lambda L, a, c: c.t() @ a.t(), "m34", "m45"),
    "mm": (lambda L, a, c: L.mm(a, c), "m34", "m45"),
    "mv": (lambda L, a, c: c.t().mv(a), "v4", "m45"),
    "matmul_mv": (lambda L, a, c: a @ c, "m34", "v4"),
    "dot": (lambda L, a, c: a.dot(c), "v4", "v4"),
    "bmm": (lambda L, a, c: a.bmm(c), "b234", "b245"),
    "addmm": (lambda L, a, c: L.addmm(L.tensor(P["v5"]), a, c), "m34", "m45"),
    "addmm_beta_alpha": (lambda L, a, c: L.addmm(L.tensor(P["v5"]), a, c, beta=0.5, alpha=2.0), "m34", "m45"),
    "addmm_dual_input": (lambda L, a, c: L.addmm(a, L.tensor(P["m34"]), c), "m35", "m45"),
    "addmv": (lambda L, a, c: L.addmv(L.tensor(P["v5"]), c.t(), a), "v4", "m45"),
    "baddbmm": (lambda L, a, c: L.baddbmm(L.tensor(P["v5"]), a, c, alpha=3.0), "b234", "b245"),
    "addbmm": (lambda L, a, c: L.addbmm(L.tensor(P["v5"]), a, c), "b234", "b245"),
    "linear": (lambda L, a, c: F(L).linear(a, c), "m34", "m54"),
    "linear_bias": (lambda L, a, c: F(L).linear(a, c, L.tensor(P["v5"])), "m34", "m54"),
    "linear_dual_weight": (lambda L, a, c: F(L).linear(c.t(), a), "m54", "m45"),  # W.t()'s TBackward0 edge: None
    "linear_dual_bias": (lambda L, a, c: F(L).linear(L.tensor(P["m34"]), c, a), "v5", "m54"),
    "linear_3d": (lambda L, a, c: F(L).linear(a, c), "b234", "m54"),  # the view back: _unsafe_view's own node
}
# matmul's other cases: PyTorch's matmul has no formula of its own, each step of its decomposition (unsqueeze or view,
# mm or bmm, the view back) records its tangent, which then ends with the last step's node over the sum; tinytorch's
# matmul is one node (its primal's graph too), whose tangent sums two matmuls: values, requires_grad and gradients
# as PyTorch's, not the chain
PRODUCTS_OTHER_CHAIN = {
    "matmul_vector_first": (lambda L, a, c: c @ a.t(), "m34", "v4"),
    "matmul_batch_matrix": (lambda L, a, c: a @ c, "b234", "m45"),
    "matmul_batches": (lambda L, a, c: a @ c, "b234", "b245"),
}


def _product(L, f, shapes, prg, crg, trg, dual, src=None):
    x, c = _mk(L, P[shapes[0]] if src is None else src, prg), _mk(L, P[shapes[1]], crg)
    t = _mk(L, np.resize(TA, x.shape), trg)
    if dual:
        fa = L.autograd.forward_ad
        with fa.dual_level():
            out = f(L, fa.make_dual(x, t), c)
            tan = fa.unpack_dual(out).tangent
    else:
        out, tan = L.func.jvp(lambda a: f(L, a, c), (x,), (t,))
    return (tan, _grads(L, tan, [x, c, t])), _chain(out.grad_fn)


GRAD_CASES = [(p, c, t) for p in (False, True) for c in (False, True) for t in (False, True)]


@pytest.mark.parametrize("dual", [False, True], ids=["jvp", "dual_level"])
@pytest.mark.parametrize("prg, crg, trg", GRAD_CASES, ids=[f"p{int(p)}c{int(c)}t{int(t)}" for p, c, t in GRAD_CASES])
@pytest.mark.parametrize("name", sorted(PRODUCTS) + sorted(PRODUCTS_OTHER_CHAIN))
def test_product_with_constant_operand_as_pytorch(torch, name, prg, crg, trg, dual):
    f, *shapes = PRODUCTS.get(name) or PRODUCTS_OTHER_CHAIN[name]
    (ours, out_chain), (theirs, out_chain_t) = (_product(L, f, shapes, prg, crg, trg, dual) for L in (tinytorch, torch))
    _compare(ours, theirs, chains=name in PRODUCTS)
    if name in PRODUCTS and (prg or crg or not dual):  # (a dual's result over primals that do not require grad
        assert out_chain == out_chain_t                 # records in tinytorch: forward_ad's account of it)


@pytest.mark.parametrize("name", ["matmul", "mv", "dot", "bmm", "addmm", "linear_bias"])
def test_product_zero_term_of_an_infinite_primal_as_pytorch(torch, name):
    # the zero tensor is multiplied out: inf * 0 gives nan in mm's, mv's, bmm's, addmm's terms; dot's stays zero
    f, a, c = PRODUCTS[name]
    src = P[a].copy()
    src.flat[0] = np.inf
    (ours, _), (theirs, _) = (_product(L, f, (a, c), True, False, False, False, src=src) for L in (tinytorch, torch))
    np.testing.assert_array_equal(np.isnan(ours[0].detach().numpy()), np.isnan(theirs[0].detach().numpy()))
    _compare(ours, theirs, grads=False)


# -- aten.mse_loss_backward: the node mse_loss's tangent records ------------------------------------------------
@pytest.mark.parametrize("reduction", [0, 1, 2])
def test_mse_loss_backward_op_as_pytorch(torch, reduction):
    def run(L):
        g = _mk(L, TA, True)
        x, y = _mk(L, A, True), _mk(L, B, True)
        out = L.ops.aten.mse_loss_backward(g if reduction == 0 else g.sum(), x, y, reduction)
        grads = L.autograd.grad((out * out.detach()).sum(), (g, x, y))
        return (type(out.grad_fn).__name__, out.grad_fn._saved_reduction,
                [t.detach().numpy() for t in (out,) + tuple(grads)])

    ours, theirs = run(tinytorch), run(torch)
    assert ours[:2] == theirs[:2]
    for a, b in zip(ours[2], theirs[2]):
        np.testing.assert_allclose(a, b, rtol=1e-12, atol=1e-14)


# -- GELU at half and bfloat16 -----------------------------------------------------------------------------------
GELU_DTYPES = [("bfloat16", "bfloat16"), ("bfloat16", "float32"), ("float32", "bfloat16"), ("float16", "float16"),
               ("bfloat16", "float64"), ("float32", "float64")]


def _gelu_tangent(L, approximate, primal, tangent):
    x, t = _mk(L, A, False, primal), _mk(L, TA, False, tangent)
    try:
        tan = L.func.jvp(lambda a: F(L).gelu(a, approximate=approximate), (x,), (t,))[1]
    except RuntimeError as e:
        return type(e).__name__, str(e)
    return str(tan.dtype).split(".")[-1], tan.double().numpy()


@pytest.mark.parametrize("approximate", ["none", "tanh"])
@pytest.mark.parametrize("primal, tangent", GELU_DTYPES)
def test_gelu_tangent_dtype_and_values_at_low_precision(torch, approximate, primal, tangent):
    # PyTorch's gelu_backward promotes its operands and computes half/bfloat16 in float32, rounding once (its float32
    # beside a float64 gradient is oneDNN's refusal); the values within an ulp of the result's dtype (a few for
    # float32, whose erf and tanh are not PyTorch's vectorised ones)
    (kind, ours), (kind_t, theirs) = _gelu_tangent(tinytorch, approximate, primal, tangent), \
        _gelu_tangent(torch, approximate, primal, tangent)
    assert kind == kind_t
    if isinstance(ours, str):
        assert ours == theirs
        return
    eps = {"bfloat16": 2 ** -7, "float16": 2 ** -10, "float32": 2 ** -20, "float64": 2 ** -50}[kind]
    np.testing.assert_allclose(ours, theirs, rtol=eps, atol=eps * 1e-3)
