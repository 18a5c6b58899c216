"""Linear-algebra ops on inputs holding inf, -inf and NaN, against PyTorch (one thread): the values, the
gradients, and that no numpy RuntimeWarning reaches the caller. The cases put the non-finite values where the
OpInfo sweep's two samples do not (several rows, both signs, every p)."""
import warnings

import numpy as np
import pytest

import tinytorch as tt

torch = pytest.importorskip("torch")

INF, NAN = np.inf, np.nan


def _poisoned(shape, places, seed=0):
    x = np.random.default_rng(seed).standard_normal(shape).astype(np.float32)
    for idx, value in places:
        x[idx] = value
    return x


def _outputs(out):
    return list(out) if isinstance(out, (tuple, list)) else [out]


def _run(L, fn, arrays, grad=True):
    xs = [L.tensor(a, requires_grad=grad and a.dtype.kind == "f") for a in arrays]
    outs = [o for o in _outputs(fn(L, *xs)) if o.dtype.is_floating_point]
    grads = []
    if grad:
        cot = [L.tensor(np.linspace(-1.0, 1.5, o.numel(), dtype=np.float32).reshape(tuple(o.shape))).to(o.dtype)
               for o in outs]
        got = L.autograd.grad(outs, [x for x in xs if x.requires_grad], cot, allow_unused=True)
        grads = [None if g is None else g.numpy() for g in got]
    return [o.detach().numpy() for o in outs], grads


def _same(got, want, what):
    assert got.shape == want.shape, what
    np.testing.assert_array_equal(np.isnan(got), np.isnan(want), err_msg=f"NaN positions of the {what}")
    np.testing.assert_array_equal(np.isposinf(got), np.isposinf(want), err_msg=f"+inf of the {what}")
    np.testing.assert_array_equal(np.isneginf(got), np.isneginf(want), err_msg=f"-inf of the {what}")
    finite = np.isfinite(want)
    np.testing.assert_allclose(got[finite], want[finite], rtol=1e-4, atol=1e-5, err_msg=what)


def check(fn, arrays, grad=True):
    torch.set_num_threads(1)
    want = _run(torch, fn, arrays, grad)
    with warnings.catch_warnings():
        warnings.simplefilter("error")  # a numpy RuntimeWarning fails the test
        got = _run(tt, fn, arrays, grad)
    for i, (g, w) in enumerate(zip(got[0], want[0])):
        _same(g, w, f"output {i}")
    for i, (g, w) in enumerate(zip(got[1], want[1])):
        if w is None or g is None:
            assert g is None or not np.any(g), f"gradient {i}"
            continue
        _same(g, w, f"gradient {i}")


# -- renorm: a slice whose norm is NaN is left as it is (NaN > maxnorm is false), its gradient the incoming one
@pytest.mark.parametrize("p", [0.5, 1, 2, 3, INF])
@pytest.mark.parametrize("places", [[((1, 2, 0), NAN)], [((0, 0, 0), INF), ((2, 1, 1), -INF)],
                                    [((0, 1, 2), NAN), ((2, 3, 4), INF)]])
def test_renorm_of_slices_holding_inf_nan(p, places):
    x = _poisoned((3, 4, 5), places)
    for dim in (0, 1, -1):
        check(lambda L, t: L.renorm(t, p, dim, 1.5), [x])


# -- cdist / pdist: PyTorch's distance kernels, p by p: the 0-"norm" keeps NaN, cdist's inf-norm passes over a NaN
# coordinate (pdist's keeps it), and the gradient terms are its kernels' (sign(NaN) = NaN, the whole gradient to
# each coordinate at the max, 0 where the distance is 0)
_DIST_CASES = {
    "nan": ([((1, 0), NAN)], []),
    "inf": ([((2, 1), INF)], []),
    "both_signs": ([((0, 0), INF), ((3, 2), -INF)], [((1, 1), INF)]),
    "same_inf": ([((0, 0), INF), ((1, 0), INF)], [((2, 0), INF)]),
    "equal_rows": ([], []),
    "tied_max": ([], []),
}


def _dist_inputs(case):
    a_places, b_places = _DIST_CASES[case]
    a, b = _poisoned((4, 3), a_places, 1), _poisoned((5, 3), b_places, 2)
    if case == "equal_rows":
        a[1] = a[0]
        b[0] = a[0]
    elif case == "tied_max":
        a[0] = [1.0, -1.0, 0.5]
        b[0] = [0.0, 0.0, 0.0]
        a[1] = a[2]
    return a, b


@pytest.mark.parametrize("p", [0, 0.5, 1, 1.5, 2, 3, INF])
@pytest.mark.parametrize("case", sorted(_DIST_CASES))
def test_distances_of_rows_holding_inf_nan(p, case):
    a, b = _dist_inputs(case)
    check(lambda L, x, y: L.cdist(x, y, p=p), [a, b])
    check(lambda L, x, y: L.cdist(x.unsqueeze(0), y.expand(2, 5, 3), p=p), [a, b])
    check(lambda L, x: L.nn.functional.pdist(x, p=p), [np.concatenate([a, b])])


# -- vander: PyTorch's column of ones is new (not x * 0 + 1), and cumprod's gradient along a dim of one element is
# the incoming gradient itself
@pytest.mark.parametrize("n", [2, 3, 5])
@pytest.mark.parametrize("places", [[((0,), INF)], [((1,), NAN)], [((0,), -INF), ((2,), 0.0)], [((3,), 0.0)]])
def test_vander_of_inf_nan(n, places):
    x = _poisoned((4,), places)
    check(lambda L, t: L.linalg.vander(t, N=n), [x])
    check(lambda L, t: L.linalg.vander(t.reshape(2, 2), N=n), [x])


@pytest.mark.parametrize("places", [[((0, 0), INF)], [((1, 0), NAN)], [((0, 0), -INF), ((2, 0), 0.0)]])
def test_cumprod_gradient_of_one_element_lines(places):
    x = _poisoned((3, 1), places)
    check(lambda L, t: t.cumprod(1), [x])
    check(lambda L, t: t.cumprod(1, dtype=L.float64), [x])
    check(lambda L, t: t[0, 0].cumprod(0), [x])


# -- matrix_power: n = 0 is the identity copied into a clone (1 where the input holds inf or NaN, zero gradient)
@pytest.mark.parametrize("n", [0, 1, 2, 3, 5, 6])
@pytest.mark.parametrize("places", [[((0, 0, 0), INF)], [((1, 1, 0), NAN)], [((0, 2, 2), -INF), ((1, 0, 1), INF)]])
def test_matrix_power_of_inf_nan(n, places):
    x = _poisoned((2, 3, 3), places)
    check(lambda L, t: L.linalg.matrix_power(t, n), [x])
    check(lambda L, t: t.mT.matrix_power(n), [x])
