"""matmul's recorded graph against PyTorch's: PyTorch 2.13's matmul is a composite of views, expand, mm / mv / bmm
and _unsafe_view, chosen by the operands' ranks, layouts and which of them requires grad (ATen's ``should_fold``
and its batch-of-one squeeze), so the whole chain of nodes down to the leaves (names, None edges), the result's
strides, version and view status, and the gradients are compared over that grid; forward AD's graphs too."""
import itertools

import numpy as np
import pytest

import tinytorch


def _chain(fn):
    """The graph below ``fn`` as nested [name, [children]] (None for a None edge), to the leaves."""
    if fn is None:
        return None
    return [type(fn).__name__, [_chain(n) for n, _ in fn.next_functions]]


_BATCHES = {1: [()], 2: [()], 3: [(1,), (3,)], 4: [(2, 1)]}


def _shapes():
    for ra, rb in itertools.product(range(1, 5), repeat=2):
        if ra <= 2 and rb <= 2 and (ra, rb) != (1, 2):
            continue  # mm, mv, dot: one node
        for ba, bb in itertools.product(_BATCHES[ra], _BATCHES[rb]):
            try:
                np.broadcast_shapes(ba, bb)
            except ValueError:
                continue
            yield ba + ((3, 4) if ra > 1 else (4,)), bb + ((4, 5) if rb > 1 else (4,))


def _operand(lib, arr, layout, requires_grad):
    """``arr`` as a tensor laid out as ``layout``: "c" contiguous, "t" a transposed view (its last two dims),
    "e" its first dim expanded from one."""
    if layout == "t" and arr.ndim >= 2:
        t = lib.tensor(np.ascontiguousarray(arr.swapaxes(-1, -2))).transpose(-1, -2)
    elif layout == "e" and arr.ndim >= 3:
        t = lib.tensor(np.ascontiguousarray(arr[:1])).expand(*arr.shape)
    else:
        t = lib.tensor(arr)
    return t.detach().requires_grad_(requires_grad)


def _run(lib, a, b, layouts, grads, g):
    ta, tb = _operand(lib, a, layouts[0], grads[0]), _operand(lib, b, layouts[1], grads[1])
    y = ta @ tb
    seen = (_chain(y.grad_fn), tuple(y.shape), y.stride(), y._version, y._base is None)
    y.backward(lib.tensor(g))
    with lib.no_grad():
        plain = (ta @ tb).numpy()
    return seen, y.detach().numpy(), plain, [None if t.grad is None else t.grad.numpy() for t in (ta, tb)]


def test_matmul_graph_and_gradients_are_pytorchs_over_ranks_layouts_and_requires_grad(torch):
    rng = np.random.default_rng(0)
    count = 0
    for sa, sb in _shapes():
        a, b = rng.standard_normal(sa), rng.standard_normal(sb)
        g = rng.standard_normal(np.broadcast_shapes(sa[:-2], sb[:-2]) + sa[-2:-1] * (len(sa) > 1)
                                + sb[-1:] * (len(sb) > 1))
        # each operand alone requiring grad, and both, with layouts that change the folds
        for layouts, grads in (("cc", (True, True)), ("tc", (False, True)), ("ce", (True, False)),
                               ("ct", (True, False)), ("ec", (False, True))):
            ours, y, plain, our_grads = _run(tinytorch, a, b, layouts, grads, g)
            theirs, want, _, their_grads = _run(torch, a, b, layouts, grads, g)
            where = (sa, sb, layouts, grads)
            assert ours == theirs, where
            np.testing.assert_allclose(y, want, rtol=1e-12, atol=1e-12, err_msg=str(where))
            # without a graph the product takes the same steps: the same floats
            assert plain.tobytes() == y.tobytes(), where
            for got, exp in zip(our_grads, their_grads):
                assert (got is None) == (exp is None), where
                if got is not None:
                    np.testing.assert_allclose(got, exp, rtol=1e-12, atol=1e-12, err_msg=str(where))
            count += 1
    assert count > 100


@pytest.mark.parametrize("shapes", [((2, 3, 4), (4, 5)), ((2, 3, 4), (2, 4, 5)), ((3, 4), (2, 4, 5)),
                                    ((4,), (2, 4, 5)), ((2, 3, 4), (4,)), ((1, 2, 3, 4), (2, 4, 5)),
                                    ((4,), (4, 5)), ((1, 3, 4), (2, 4, 5))], ids=str)
def test_matmul_chains_name_pytorchs_steps(torch, shapes):
    """The rows learners print (``UnsafeViewBackward0 -> MmBackward0 -> (ViewBackward0 -> AccumulateGrad, ...)``),
    each operand alone requiring grad too; a graph of the gradient (create_graph) backpropagates as PyTorch's."""
    rng = np.random.default_rng(1)
    a, b = rng.standard_normal(shapes[0]), rng.standard_normal(shapes[1])
    for grads in ((True, True), (True, False), (False, True)):
        out = []
        for lib in (tinytorch, torch):
            ta, tb = lib.tensor(a, requires_grad=grads[0]), lib.tensor(b, requires_grad=grads[1])
            y = ta @ tb
            leaves = [t for t, need in zip((ta, tb), grads) if need]
            first = lib.autograd.grad(y.square().sum(), leaves, create_graph=True)
            second = lib.autograd.grad(sum(f.sum() for f in first), leaves)
            out.append((_chain(y.grad_fn), [_chain(f.grad_fn) is None for f in first],
                        [s.numpy() for s in second]))
        assert out[0][:2] == out[1][:2], (shapes, grads)
        for got, want in zip(out[0][2], out[1][2]):
            np.testing.assert_allclose(got, want, rtol=1e-12, atol=1e-12)


@pytest.mark.parametrize("case", ["matmul_33", "matmul_133", "matmul_13", "matmul_23", "matmul_vr"])
def test_matmul_graphs_under_forward_ad_are_pytorchs(torch, case):
    """torch.func.jvp and a dual level: functorch's wrappers require no grad (so matmul folds nothing) and
    PyTorch's reshape views them; the tangents' graphs are the steps' forward formulas."""
    rng = np.random.default_rng(2)
    a, c, ta3 = rng.standard_normal((2, 3, 4)), rng.standard_normal((2, 4, 5)), rng.standard_normal((2, 3, 4))
    fns = {"matmul_33": lambda x, y: x @ y, "matmul_133": lambda x, y: x[:1] @ y,
           "matmul_13": lambda x, y: x[0][0] @ y, "matmul_23": lambda x, y: y[0].t() @ x.transpose(1, 2), "matmul_vr": lambda x, y: x[0][0] @ y[0]}
    f = fns[case]
    for pg, cg in itertools.product((False, True), repeat=2):
        out = []
        for lib in (tinytorch, torch):
            x, y, t = lib.tensor(a, requires_grad=pg), lib.tensor(c, requires_grad=cg), lib.tensor(ta3)
            primal, tangent = lib.func.jvp(lambda u: f(u, y), (x,), (t,))
            with lib.autograd.forward_ad.dual_level():
                dual = lib.autograd.forward_ad.unpack_dual(f(lib.autograd.forward_ad.make_dual(x, t), y))
            out.append((_chain(primal.grad_fn), _chain(tangent.grad_fn), _chain(dual.tangent.grad_fn),
                        tangent.detach().numpy(), dual.tangent.detach().numpy()))
        assert out[0][:3] == out[1][:3], (case, pg, cg)
        for got, want in zip(out[0][3:], out[1][3:]):
            np.testing.assert_allclose(got, want, rtol=1e-12, atol=1e-12)


def test_matmul_without_a_graph_records_nothing():
    a = tinytorch.randn(2, 3, 4, requires_grad=True)
    b = tinytorch.randn(4, 5, requires_grad=True)
    with tinytorch.no_grad():
        y = a @ b
    assert y.grad_fn is None and not y.requires_grad and y._version == 0
    y = a.detach() @ b.detach()
    assert y.grad_fn is None and not y.requires_grad
