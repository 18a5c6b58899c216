"""Forward-mode AD against PyTorch's forward_ad and float64 finite differences, op by op."""
import numpy as np
import pytest

import tinytorch
import tinytorch.autograd.forward_ad as fwAD

torch = pytest.importorskip("torch")
import torch.autograd.forward_ad as tfwAD  # noqa: E402

RNG = np.random.default_rng(3)
# values away from kinks (0 for abs/relu, ties for max) and inside every domain (log, sqrt, pow)
A = RNG.uniform(0.3, 1.7, (3, 4)) * RNG.choice([-1, 1], (3, 4))
POS = RNG.uniform(0.4, 1.8, (3, 4))
PROB = RNG.uniform(0.1, 0.9, (3, 4))
B = RNG.uniform(0.5, 1.5, (4, 4)) * RNG.choice([-1, 1], (4, 4))
T3 = RNG.standard_normal((2, 3, 4))
IDX = np.array([0, 2, 1])


def F(L):
    return L.nn.functional


# name -> (function of (library, dual input), input array)
OPS = {
    "neg": (lambda L, x: -x, A), "exp": (lambda L, x: x.exp(), A), "log": (lambda L, x: x.log(), POS),
    "sqrt": (lambda L, x: x.sqrt(), POS), "sin": (lambda L, x: x.sin(), A), "cos": (lambda L, x: x.cos(), A),
    "tanh": (lambda L, x: x.tanh(), A), "sigmoid": (lambda L, x: x.sigmoid(), A),
    "relu": (lambda L, x: x.relu(), A), "abs": (lambda L, x: x.abs(), A), "log1p": (lambda L, x: x.log1p(), POS),
    "expm1": (lambda L, x: x.expm1(), A), "rsqrt": (lambda L, x: x.rsqrt(), POS),
    "reciprocal": (lambda L, x: x.reciprocal(), A), "log2": (lambda L, x: x.log2(), POS),
    "log10": (lambda L, x: x.log10(), POS), "square": (lambda L, x: x.square(), A),
    "clamp": (lambda L, x: x.clamp(-0.9, 0.8), A), "sign": (lambda L, x: x.sign() * x, A),
    "floor_ceil_round_trunc": (lambda L, x: x.floor() + x.ceil() + x.round() + x.trunc() + x, A),
    "add_scalar_alpha": (lambda L, x: L.add(x, x * 2, alpha=3) + 1.5, A),
    "sub_rsub": (lambda L, x: L.sub(x, x.exp(), alpha=2) - (2 - x), A),
    "mul_broadcast": (lambda L, x: x * L.tensor(B[0]) * x[0], A),
    "div_both": (lambda L, x: x / x.exp() + x / 3 + 3 / x, A),
    "pow": (lambda L, x: x ** 3 + x.abs() ** 0.5 + 2 ** x + x.abs() ** x, A),
    "maximum_minimum": (lambda L, x: L.maximum(x, x.sin()) + L.minimum(x, L.tensor(0.1, dtype=L.float64)), A),
    "where": (lambda L, x: L.where(x > 0, x.exp(), x * 3), A),
    "remainder": (lambda L, x: L.remainder(x, 0.7) + L.remainder(x.exp(), 0.3), A),
    "sum_mean": (lambda L, x: (x.sum(), x.sum(1), x.mean(0, keepdim=True), x.mean()), A),
    "var_std": (lambda L, x: (x.var(), x.std(1), x.var(0, unbiased=False)), A),
    "max_min": (lambda L, x: (x.max(), x.max(1).values, x.min(0).values, x.amax(1), x.amin()), A),
    "logsumexp_softmax": (lambda L, x: (L.logsumexp(x, 1), x.softmax(0), x.log_softmax(1)), A),
    "views": (lambda L, x: (x.view(4, 3), x.reshape(-1), x.flatten(), x.unsqueeze(1).squeeze(1), x.t(), x.T,
                            x.permute(1, 0), x.transpose(0, 1), x.unflatten(1, (2, 2)), x.mT), A),
    "expand_repeat": (lambda L, x: (x[:, :1].expand(3, 5), x.repeat(2, 1), x[0].broadcast_to((2, 4))), A),
    "clone_contiguous_to": (lambda L, x: (x.clone(), x.t().contiguous(), x.to(L.float32) * 1), A),
    "indexing": (lambda L, x: (x[1], x[:, 1:3], x[L.tensor(IDX)], x[x > 0], x[..., None, 0]), A),
    "cat_stack": (lambda L, x: (L.cat([x, x.exp()], 0), L.stack([x, x * 2], 1)), A),
    "split_chunk_unbind": (lambda L, x: (x.split(2, 1)[1], x.chunk(3, 0)[2], x.unbind(1)[3]), A),
    "gather_scatter": (lambda L, x: (x.gather(1, L.tensor([[0, 1], [2, 3], [1, 1]])),
                                     L.zeros(3, 4, dtype=L.float64).scatter(1, L.tensor([[1], [3], [0]]), x)), A),
    "narrow_select": (lambda L, x: (x.narrow(1, 1, 2), x.select(0, 2)), A),
    "matmul": (lambda L, x: (x @ L.tensor(B), x @ x.t(), x[0] @ x[1], L.mm(x, L.tensor(B)),
                             L.bmm(x[None], L.tensor(B)[None]), x[0].dot(x[2])), A),
    "matmul_batched": (lambda L, x: x @ x.transpose(-1, -2), T3),
    "linear": (lambda L, x: (F(L).linear(x, L.tensor(B[:3])), F(L).linear(x, L.tensor(B[:2]), L.tensor(B[0, :2])),
                             F(L).linear(L.tensor(B[:2]), x, x[:, 0])), A),
    "activations": (lambda L, x: (F(L).relu6(x * 5), F(L).leaky_relu(x, 0.2), F(L).gelu(x),
                                  F(L).gelu(x, approximate="tanh"), F(L).silu(x), F(L).elu(x), F(L).softplus(x),
                                  F(L).hardtanh(x, -0.5, 0.5), F(L).softmin(x, 1)), A),
    "losses": (lambda L, x: (F(L).cross_entropy(x, L.tensor(IDX)), F(L).nll_loss(x.log_softmax(1), L.tensor(IDX)),
                             F(L).mse_loss(x, L.tensor(B[:3])), F(L).l1_loss(x, L.tensor(B[:3])),
                             F(L).smooth_l1_loss(x, L.tensor(B[:3])), F(L).huber_loss(x, L.tensor(B[:3]), delta=0.5),
                             F(L).cross_entropy(x, L.tensor(B[:3]).softmax(1)),
                             F(L).cross_entropy(x, L.tensor(IDX), label_smoothing=0.1)), A),
    "bce": (lambda L, x: (F(L).binary_cross_entropy(x, L.tensor(PROB[::-1].copy())),
                          F(L).binary_cross_entropy_with_logits(x, L.tensor(PROB[::-1].copy()))), PROB),
    "setitem_on_result": (lambda L, x: _setitem(L, x), A),
    "inplace_on_view_and_base": (lambda L, x: _inplace_views(x), A),
}

# the primitives with their own forward rule (a ``jvp`` method beside the backward), each form of them
OPS.update({
    "div_by_dual": (lambda L, x: (L.tensor(B[:3]) / x, x / L.tensor(B[:3]), x / x.exp()), A),
    "pow_forms": (lambda L, x: (L.tensor(PROB) ** x, x ** L.tensor(B[:3]), 1.5 ** x, x ** 2.5, x ** 0, x ** x), POS),
    "matmul_one_side": (lambda L, x: (L.tensor(B) @ x.t(), L.tensor(B[0]) @ x.t(), x @ L.tensor(B[0]),
                                      F(L).linear(L.tensor(B[:2]), x), F(L).linear(x, L.tensor(B[:2]))), A),
    "reductions_dims": (lambda L, x: (x.sum((0, 1)), x.sum(1, keepdim=True), x.mean((0,), keepdim=True),
                                      x.amax((0, 1)), x.amin(0, keepdim=True), x.max(1, keepdim=True).values,
                                      x.min(0).values, L.logsumexp(x, (0, 1)), L.logsumexp(x, 0, keepdim=True)), T3),
    "threshold_relu_clamp": (lambda L, x: (F(L).threshold(x, 0.2, -1.0), F(L).relu(x), x.clamp(min=-0.5),
                                           x.clamp(max=0.5), L.clamp(x, -0.5, 0.5)), A),
    "softmax_3d": (lambda L, x: (x.softmax(0), x.log_softmax(-1), F(L).softmax(x, 1), F(L).log_softmax(x, 2)), T3),
    "cat_stack_mixed": (lambda L, x: (L.cat([L.tensor(B[:1]), x, x[:1]], 0), L.stack([L.tensor(B[:3]), x], 2),
                                      L.cat([x, L.tensor(B[:3])], 1), L.stack([x, x.exp()])), A),
    "where_one_side": (lambda L, x: (L.where(x > 0, x, L.tensor(B[:3])), L.where(x > 0, 2.0, x)), A),
    "nll_forms": (lambda L, x: (F(L).cross_entropy(x, L.tensor(IDX), reduction="none"),
                                F(L).nll_loss(x.log_softmax(1), L.tensor(IDX), reduction="sum"),
                                F(L).cross_entropy(x, L.tensor(IDX), reduction="sum"),
                                F(L).cross_entropy(x.reshape(1, 3, 2, 2), L.tensor([[[0, 1], [2, 0]]]))), A),
    "views_3d": (lambda L, x: (x[:1].squeeze(), x.unsqueeze(-1), x.view(6, 4), x.permute(2, 0, 1), x.transpose(0, 2),
                               x[:, None].expand(2, 5, 3, 4), x.reshape(4, -1), x.squeeze(0)), T3),
    "index_forms": (lambda L, x: (x[L.tensor([[0, 1], [2, 2]])], x[:, L.tensor([3, 0])], x[1:, ::2],
                                  x[x.abs() > 1], x[0, 1]), A),
    "mse_forms": (lambda L, x: tuple(F(L).mse_loss(a, b, reduction=r) for r in ("none", "sum", "mean")
                                     for a, b in ((x, L.tensor(B[:3])), (L.tensor(B[:3]), x), (x, x.exp())))
                  + (x.var((0, 1)), x.std(0, keepdim=True)), A),
    "extremum_remainder_forms": (lambda L, x: (L.maximum(x, x), L.maximum(L.tensor(B[:3]), x), L.minimum(x, x.exp()),
                                               L.minimum(L.tensor(B[:3]), x), L.remainder(L.tensor(B[:3]) * 3, x),
                                               L.remainder(x * 5, x.exp())), A),
    "split_repeat_forms": (lambda L, x: (x.split([1, 3], 1)[1], x.unbind(0)[2], x.repeat(2, 1, 2), x.chunk(2, 1)[0]),
                           A),
})
# entries built only from those primitives: their tangents never take the double-backward route
EXPLICIT = ["neg", "exp", "log", "sqrt", "sin", "cos", "tanh", "sigmoid", "relu", "abs", "log1p", "expm1",
            "reciprocal", "square", "clamp", "add_scalar_alpha", "mul_broadcast", "div_both", "pow", "where",
            "sum_mean", "max_min", "logsumexp_softmax", "views", "indexing", "cat_stack", "matmul", "matmul_batched",
            "linear", "div_by_dual", "pow_forms", "matmul_one_side", "reductions_dims", "threshold_relu_clamp",
            "softmax_3d", "cat_stack_mixed", "where_one_side", "nll_forms", "views_3d", "index_forms",
            "sign", "log2", "log10", "rsqrt", "sub_rsub", "clone_contiguous_to", "floor_ceil_round_trunc", "var_std",
            "activations", "losses", "mse_forms", "maximum_minimum", "remainder", "expand_repeat",
            "split_chunk_unbind", "extremum_remainder_forms", "split_repeat_forms"]


def _inplace_views(x):
    y = x * 2
    y[:, 1].mul_(x[:, 0])  # the base's history becomes CopySlices
    v = y[1:]
    y.relu_()  # the other view's history is regenerated through the in-place op
    return y.sum(1), v * 1


def _setitem(L, x):
    y = x * 1
    y[0] = x[1].exp()
    z = x * 2
    z[:, 1] = 0.5
    return y, z


def _tuple(x):
    return x if isinstance(x, tuple) else (x,)


def _tangents_tiny(fn, x, t):
    with fwAD.dual_level():
        outs = _tuple(fn(tinytorch, fwAD.make_dual(tinytorch.tensor(x), tinytorch.tensor(t))))
        return [fwAD.unpack_dual(o) for o in outs]


def _tangents_torch(fn, x, t):
    with tfwAD.dual_level():
        outs = _tuple(fn(torch, tfwAD.make_dual(torch.tensor(x), torch.tensor(t))))
        return [tfwAD.unpack_dual(o) for o in outs]


def _finite_differences(fn, x, t, eps=1e-6):
    plus = _tuple(fn(tinytorch, tinytorch.tensor(x + eps * t)))
    minus = _tuple(fn(tinytorch, tinytorch.tensor(x - eps * t)))
    return [(p.numpy() - m.numpy()) / (2 * eps) for p, m in zip(plus, minus)]


@pytest.mark.parametrize("name", list(OPS))
def test_tangents_vs_torch_and_finite_differences(name):
    fn, x = OPS[name]
    t = RNG.standard_normal(x.shape)
    ours = _tangents_tiny(fn, x, t)
    theirs = _tangents_torch(fn, x, t)
    # a float32 result needs a larger step for its rounding to stay small against the difference
    fd = _finite_differences(fn, x, t, eps=1e-2 if name == "clone_contiguous_to" else 1e-6)
    assert len(ours) == len(theirs)
    for (p, tan), (tp, ttan), d in zip(ours, theirs, fd):
        np.testing.assert_allclose(p.numpy(), tp.numpy(), rtol=1e-12, atol=1e-12)
        assert tan is not None and not tan.requires_grad
        assert tuple(tan.shape) == tuple(ttan.shape) and str(tan.dtype)[10:] == str(ttan.dtype)[6:]
        np.testing.assert_allclose(tan.numpy(), ttan.numpy(), rtol=1e-10, atol=1e-10)
        tol = 1e-5 if tan.dtype == tinytorch.float64 else 1e-2  # a float32 result rounds the differences
        np.testing.assert_allclose(tan.numpy(), d, rtol=tol, atol=tol)


@pytest.mark.parametrize("name", EXPLICIT)
def test_common_primitives_have_their_own_rule(name, monkeypatch):
    from tinytorch.autograd import forward_ad as mod

    def refuse(node, ins):
        raise AssertionError(f"{node.name()} fell back to the double-backward rule")
    monkeypatch.setattr(mod, "_double_backward_rule", refuse)
    fn, x = OPS[name]
    for _, tan in _tangents_tiny(fn, x, RNG.standard_normal(x.shape)):
        assert tan is not None


def test_explicit_rules_agree_with_the_generic_rule(monkeypatch):
    # the nodes' jvp methods and the double-backward rule they shortcut give the same tangents
    from tinytorch.autograd import forward_ad as mod

    fn = lambda L, x: (x.exp() * x.sin() + x.tanh() - x.sigmoid() * x.abs() + x.sqrt().log()).sum()  # noqa: E731
    x, t = POS, RNG.standard_normal(POS.shape)
    with_rules = _tangents_tiny(fn, x, t)[0].tangent

    def generic(node, ins):
        with tinytorch.enable_grad():
            out = mod._double_backward_rule(node, ins)
        out = out if isinstance(out, tuple) else (out,)
        return tuple(mod._fit(t, m) for t, m in zip(out, mod._out_meta(node) or [None] * len(out)))

    monkeypatch.setattr(mod, "_apply_rule", generic)
    generic_tangent = _tangents_tiny(fn, x, t)[0].tangent
    np.testing.assert_allclose(with_rules.numpy(), generic_tangent.numpy(), rtol=1e-12)


def test_custom_function_jvp_and_fallback():
    res = []
    for L, fw in ((tinytorch, fwAD), (torch, tfwAD)):
        class Cube(L.autograd.Function):
            @staticmethod
            def forward(ctx, a, k):
                ctx.save_for_backward(a)
                ctx.save_for_forward(a)
                ctx.k = k
                return a ** 3 * k

            @staticmethod
            def backward(ctx, g):
                (a,) = ctx.saved_tensors
                return 3 * a ** 2 * g * ctx.k, None

            @staticmethod
            def jvp(ctx, ta, tk):
                (a,) = ctx.saved_tensors
                return 3 * a ** 2 * ta * ctx.k

        with fw.dual_level():
            d = fw.make_dual(L.tensor(A[0]), L.tensor(B[0]))
            res.append(fw.unpack_dual(Cube.apply(d, 2.0).sin()).tangent.numpy())
    np.testing.assert_allclose(res[0], res[1], rtol=1e-12)

    class NoJvp(tinytorch.autograd.Function):  # tinytorch falls back to the backward
        @staticmethod
        def forward(ctx, a):
            ctx.save_for_backward(a)
            return a.exp()

        @staticmethod
        def backward(ctx, g):
            (a,) = ctx.saved_tensors
            return g * a.exp()
    with fwAD.dual_level():
        d = fwAD.make_dual(tinytorch.tensor(A[0]), tinytorch.tensor(B[0]))
        tan = fwAD.unpack_dual(NoJvp.apply(d)).tangent
    np.testing.assert_allclose(tan.numpy(), np.exp(A[0]) * B[0], rtol=1e-12)


def test_requires_grad_primal_and_forward_over_reverse():
    res = []
    for L, fw in ((tinytorch, fwAD), (torch, tfwAD)):
        a = L.tensor(A, requires_grad=True)
        with fw.dual_level():
            d = fw.make_dual(a, L.tensor(B[:3]))
            p, tan = fw.unpack_dual((d.sin() * d).sum())
            (g,) = L.autograd.grad(tan, a)  # d/da of the directional derivative: a Hessian-vector product
            res.append((p.item(), tan.item(), g.numpy(), p.requires_grad))
    assert res[0][0] == pytest.approx(res[1][0], rel=1e-12) and res[0][1] == pytest.approx(res[1][1], rel=1e-12)
    np.testing.assert_allclose(res[0][2], res[1][2], rtol=1e-12)
    assert res[0][3] == res[1][3]


def test_levels_and_errors():
    x = tinytorch.ones(3)
    with pytest.raises(RuntimeError, match="no level exists"):
        fwAD.make_dual(x, x)
    with fwAD.dual_level():
        with pytest.raises(RuntimeError, match=r"Tensor is of size \[3\] while the given forward gradient is of "
                                               r"size \[2\]"):
            fwAD.make_dual(x, tinytorch.ones(2))
        with pytest.raises(RuntimeError, match="Nested forward mode AD is not supported"):
            with fwAD.dual_level():
                pass
        d = fwAD.make_dual(x, tinytorch.ones(3))
        y = d * 2
        assert fwAD.unpack_dual(x).tangent is None
        assert isinstance(fwAD.unpack_dual(y), fwAD.UnpackedDualTensor)
    # outside the level the tangent is gone, and the internals are as they were
    assert fwAD.unpack_dual(y).tangent is None
    import tinytorch._ops.pointwise.unary as unary
    from tinytorch.tensor import _make
    assert unary._make is _make and _make.__module__ == "tinytorch.tensor"


def test_long_chain_unpacked_every_step_is_linear():
    with fwAD.dual_level():
        z = fwAD.make_dual(tinytorch.tensor(0.1, dtype=tinytorch.float64), tinytorch.tensor(1.0, dtype=tinytorch.float64))
        for _ in range(2000):
            z = z * 1.0001 + 0.001
            tan = fwAD.unpack_dual(z).tangent  # cached per node: no re-walk of the chain
    assert tan.item() == pytest.approx(1.0001 ** 2000, rel=1e-9)


def test_maximum_minimum_ties_split_the_tangents_as_torch():
    # at a tie PyTorch's forward rule averages the two tangents (no finite difference exists there)
    res = []
    for L, fw in ((tinytorch, fwAD), (torch, tfwAD)):
        with fw.dual_level():
            x = fw.make_dual(L.tensor(A), L.tensor(B[:3]))
            outs = (L.maximum(x, L.tensor(A)), L.minimum(L.tensor(A), x), L.maximum(x, x * 1), L.minimum(x, x.exp()))
            res.append([fw.unpack_dual(o).tangent.numpy() for o in outs])
    for a, b in zip(*res):
        np.testing.assert_allclose(a, b, rtol=1e-12, atol=1e-12)


def _graph_names(fn, depth=0, out=None):
    """The node names below ``fn`` (depth first), as a graph walker meets them."""
    out = [] if out is None else out
    if fn is None or depth > 8:
        out.append(None)
        return out
    out.append(fn.name())
    for f, _ in fn.next_functions:
        _graph_names(f, depth + 1, out)
    return out


@pytest.mark.parametrize("bias", [True, False])
@pytest.mark.parametrize("dual_params,dual_input", [(True, False), (False, True), (True, True)])
def test_dual_linear_tangent_records_history_as_pytorch(bias, dual_params, dual_input):
    # PyTorch computes the tangent of addmm/mm with its formula on the primals, a missing tangent a zero tensor:
    # where a parameter requires grad the tangent has autograd history (through its _fw_primal node), prints
    # with grad_fn, and backpropagates; a dual tensor prints its tangent
    def run(L, ad):
        L.manual_seed(0)
        model = L.nn.Linear(3, 2, bias=bias)
        x = L.randn(4, 3)
        params = dict(model.named_parameters())
        with ad.dual_level():
            if dual_params:
                for name, p in params.items():
                    delattr(model, name)
                    setattr(model, name, ad.make_dual(p, L.rand_like(p)))
            if dual_input:
                x = ad.make_dual(x, L.ones_like(x))
            out = model(x)
            tangent = ad.unpack_dual(out).tangent
            seen = (repr(out), repr(tangent), _graph_names(tangent.grad_fn), tangent.requires_grad)
            if tangent.requires_grad:
                tangent.sum().backward()
        grads = [None if p.grad is None else p.grad.numpy().tolist() for p in params.values()]
        return seen, grads
    ours, theirs = run(tinytorch, fwAD), run(torch, tfwAD)
    assert ours[0][0].replace("tinytorch", "torch") == theirs[0][0]
    assert ours[0][1:] == theirs[0][1:]
    assert ours[1] == theirs[1]


def test_dual_tensor_repr_as_pytorch():
    def run(L, ad):
        with ad.dual_level():
            return repr(ad.make_dual(L.tensor([[1.0, -2.0, 3.0], [0.5, 4.0, -1.5]]), L.ones(2, 3)))
    assert run(tinytorch, fwAD) == run(torch, tfwAD)


# a tangent computed through a tensor that requires grad (w, W: not dual) records history there, its last node the
# last op of PyTorch's forward formula: an absent tangent is a zero tensor in PyTorch's formulas, so mul's
# ``other_t * self_p + self_t * other_p`` ends with an add even where one term is zero
CAPTURED = {
    "mul": lambda L, x, w, W: x * w,
    "mul_reversed": lambda L, x, w, W: w * x,
    "sin_of_mul": lambda L, x, w, W: L.sin(x * w),
    "mv": lambda L, x, w, W: W @ x,
    "mm": lambda L, x, w, W: W @ x.unsqueeze(1),
    "sum": lambda L, x, w, W: (x * w).sum(),
    "sum_dim": lambda L, x, w, W: (x * w).sum(0, keepdim=True),
    "mean": lambda L, x, w, W: (x * w).mean(),
    "chain": lambda L, x, w, W: L.tanh(W @ x + w).exp().sum(),
    "add": lambda L, x, w, W: x + w,
    "sub_both": lambda L, x, w, W: x * w - x,
    "div": lambda L, x, w, W: x / w,
    "div_reversed": lambda L, x, w, W: w / x,
    "exp_times": lambda L, x, w, W: L.exp(x) * w,
    "relu": lambda L, x, w, W: L.relu(x * w),
}


def _captured_tangent(L, ad, name):
    L.manual_seed(0)
    w = L.tensor([0.5, -1.5, 2.0], requires_grad=True)
    W = L.tensor([[0.5, -1.0, 0.25], [1.0, 2.0, -0.5], [0.0, 1.5, 1.0]], requires_grad=True)
    x, v = L.tensor([0.3, -0.7, 1.1]), L.tensor([-0.0, 1.0, -2.0])
    with ad.dual_level():
        t = ad.unpack_dual(CAPTURED[name](L, ad.make_dual(x, v), w, W)).tangent
        return t.requires_grad, None if t.grad_fn is None else type(t.grad_fn).__name__, t.detach().numpy()


@pytest.mark.parametrize("name", sorted(CAPTURED))
def test_tangent_through_a_captured_tensor_has_pytorchs_node(name):
    ours, theirs = _captured_tangent(tinytorch, fwAD, name), _captured_tangent(torch, tfwAD, name)
    assert ours[:2] == theirs[:2]
    np.testing.assert_array_equal(np.signbit(ours[2]), np.signbit(theirs[2]))  # (a zero term keeps -0.0)
    np.testing.assert_allclose(ours[2], theirs[2], rtol=1e-6)
