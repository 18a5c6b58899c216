"""``torch.func.jvp``'s outputs, against PyTorch 2.13: which of the primal output and the tangent output require
grad and carry a grad_fn (the primal output only where it depends on a tensor from outside that requires grad,
then as an alias, AliasBackward0; the tangent also where the tangent input does), their values, and the gradients
that flow back through them."""
import pytest

import tinytorch

CASES = {
    "closure": lambda lib, p, x, v, xr, vr: lib.func.jvp(lambda a: (a * p).sin(), (x,), (v,)),
    "plain": lambda lib, p, x, v, xr, vr: lib.func.jvp(lib.sin, (x,), (v,)),
    "primal_requires_grad": lambda lib, p, x, v, xr, vr: lib.func.jvp(lib.sin, (xr,), (v,)),
    "tangent_requires_grad": lambda lib, p, x, v, xr, vr: lib.func.jvp(lib.sin, (x,), (vr,)),
    "both_require_grad": lambda lib, p, x, v, xr, vr: lib.func.jvp(lambda a: a * a, (xr,), (vr,)),
    "linear_tangent_requires_grad": lambda lib, p, x, v, xr, vr: lib.func.jvp(lambda a: a * 3, (x,), (vr,)),
    "exp": lambda lib, p, x, v, xr, vr: lib.func.jvp(lib.exp, (xr,), (v,)),
}


def _run(lib, case):
    p = lib.tensor([0.5, -1.0, 2.0], requires_grad=True)
    x, v = lib.tensor([0.1, 0.2, 0.3]), lib.tensor([1.0, -2.0, 0.5])
    xr, vr = x.clone().requires_grad_(True), v.clone().requires_grad_(True)
    out, tan = CASES[case](lib, p, x, v, xr, vr)
    # (the primal output's node by name: an alias of the inner result, as PyTorch unwraps it)
    flags = [(t.requires_grad, t.grad_fn is not None) for t in (out, tan)] + [type(out.grad_fn).__name__]
    values = [t.detach().tolist() for t in (out, tan)]
    live = [t for t in (out, tan) if t.requires_grad]
    if live:
        sum(t.sum() for t in live).backward()
    grads = [None if g is None else g.tolist() for g in (p.grad, xr.grad, vr.grad)]
    return flags, values, grads


@pytest.mark.parametrize("case", sorted(CASES))
def test_jvp_outputs_require_grad_as_pytorch(case):
    torch = pytest.importorskip("torch")
    flags, values, grads = _run(tinytorch, case)
    flags_t, values_t, grads_t = _run(torch, case)
    assert flags == flags_t
    for a, b in zip(values + grads, values_t + grads_t):
        assert (a is None) == (b is None)
        if a is not None:
            assert a == pytest.approx(b, rel=1e-6, abs=1e-7)


def _chain(fn, depth=4):
    if fn is None or depth == 0:
        return None if fn is None else type(fn).__name__
    return [type(fn).__name__, [_chain(n, depth - 1) for n, _ in fn.next_functions]]


def _dual_then_requires_grad(lib):
    # a dual of a primal that does not require grad, then requires_grad_(): a leaf that requires grad, whose ops record
    # edges to it (and whose gradient reaches it), still carrying its tangent
    fa = lib.autograd.forward_ad
    with fa.dual_level():
        d = fa.make_dual(lib.tensor([0.5, -1.0, 2.0]), lib.tensor([1.0, 2.0, 3.0]))
        d.requires_grad_()
        y = d.sin() * d
        tan = fa.unpack_dual(y).tangent
        (g,) = lib.autograd.grad(y.sum(), d)
        return _chain(y.grad_fn), tan.tolist(), g.tolist()


def test_dual_made_to_require_grad_as_pytorch():
    torch = pytest.importorskip("torch")
    (chain, tan, g), (chain_t, tan_t, g_t) = _dual_then_requires_grad(tinytorch), _dual_then_requires_grad(torch)
    assert chain == chain_t
    assert tan == pytest.approx(tan_t, rel=1e-6) and g == pytest.approx(g_t, rel=1e-6)


def _forward_only_edges(lib):
    # ops on a dual whose primal does not require grad, beside a tensor that does: PyTorch's node shows None for the
    # dual's edge (and for an op on the dual alone), and a backward reaches the tensor that requires grad only
    fa = lib.autograd.forward_ad
    w = lib.tensor([1.5, -0.5, 0.25], requires_grad=True)
    with fa.dual_level():
        d = fa.make_dual(lib.tensor([0.5, -1.0, 2.0]), lib.tensor([1.0, 2.0, 3.0]))
        y = (d.exp() * w + d) / (w * d.cos())
        tan = fa.unpack_dual(y).tangent
        (g,) = lib.autograd.grad(y.sum(), w)
        return _chain(y.grad_fn, 5), _chain(tan.grad_fn, 5), tan.tolist(), g.tolist()


def test_forward_only_edges_show_none_as_pytorch():
    torch = pytest.importorskip("torch")
    ours, theirs = _forward_only_edges(tinytorch), _forward_only_edges(torch)
    assert ours[:2] == theirs[:2]
    for a, b in zip(ours[2:], theirs[2:]):
        assert a == pytest.approx(b, rel=1e-6)
