"""Reductions of inputs holding inf, -inf and NaN, against PyTorch (one thread, as the nonfinite OpInfo sweep):
the values, the gradients, and that no numpy RuntimeWarning reaches the caller. Each case puts the non-finite
values where PyTorch's own order of operations decides the result (first or last in a reduced row, alone or
with another), which the sweep's two samples reach only in part."""
import warnings

import numpy as np
import pytest
from _nonfinite_compare import INF, NAN, check, poisoned, same

import tinytorch as tt

from _oracle import torch  # noqa: E402  (PyTorch when a test reads it)



# -- var_mean / std_mean: PyTorch's one-thread Welford update, in which an inf keeps the mean infinite only as
# the row's last element
_ROWS = {
    "inf_first": [((0, 0), INF)],
    "inf_last": [((0, 4), INF)],
    "neg_inf_middle": [((1, 2), -INF)],
    "inf_last_and_first": [((2, 0), INF), ((2, 4), -INF)],
    "two_inf_end": [((3, 3), INF), ((3, 4), INF)],
    "nan_last": [((0, 4), NAN)],
}


@pytest.mark.parametrize("fn", ["var_mean", "std_mean"])
@pytest.mark.parametrize("rows", sorted(_ROWS))
def test_moments_of_rows_holding_inf(fn, rows):
    x = poisoned((4, 5), _ROWS[rows])
    check(lambda L, t: getattr(L, fn)(t, 1), [x])
    check(lambda L, t: getattr(L, fn)(t.t(), 0, keepdim=True, correction=0), [x])
    check(lambda L, t: getattr(L, fn)(t), [x])
    check(lambda L, t: getattr(L, fn)(t[:, :4]), [x])  # the row's last element is not the tensor's


def test_moments_over_several_dims_holding_inf():
    # one inf at the end of every reduced dim (the last element of its row), one elsewhere
    x = poisoned((3, 4, 5), [((2, 1, 4), INF), ((0, 2, 3), -INF)])
    for dims in ((0, 2), (2, 0), (0, 1), (1,)):
        check(lambda L, t: L.var_mean(t, dims), [x])
        check(lambda L, t: L.std_mean(t.permute(2, 0, 1), tuple((d + 1) % 3 for d in dims)), [x])


# -- prod: PyTorch's gradient is g * result / x without zeros (inf / inf = NaN beside an inf factor), the product
# of the others where a zero is, and zeros for a full product with several zeros (unless a graph is recorded)
_PROD = {
    "inf": [[2.0, INF, 3.0], [1.0, 2.0, 3.0]],
    "two_inf": [[INF, -INF, 1.0], [1.0, 2.0, 3.0]],
    "nan": [[2.0, NAN, 3.0], [1.0, 2.0, 3.0]],
    "inf_and_zero_elsewhere": [[2.0, INF, 3.0], [0.0, 2.0, 3.0]],
    "inf_and_zero": [[0.0, INF, 3.0], [1.0, 2.0, 3.0]],
    "first_nan_and_zero_elsewhere": [[NAN, 1.0, 2.0], [0.0, 1.0, 1.0]],
    "two_zeros_and_inf": [[0.0, 0.0, INF], [1.0, 2.0, 3.0]],
}


@pytest.mark.parametrize("case", sorted(_PROD))
@pytest.mark.parametrize("dim", [None, 0, 1])
def test_prod_gradient_with_inf_nan_and_zeros(case, dim):
    x = np.array(_PROD[case], np.float32)
    check(lambda L, t: t.prod() if dim is None else t.prod(dim), [x])
    check(lambda L, t: t.prod(dim if dim is not None else 1, keepdim=True), [x])


@pytest.mark.parametrize("case", sorted(_PROD))
def test_prod_gradient_with_a_graph_recorded(case):
    """With create_graph PyTorch takes the products of the others for every zero count."""
    x = np.array(_PROD[case], np.float32)

    def grads(L):
        t = L.tensor(x, requires_grad=True)
        out = [L.autograd.grad(t.prod(), t, create_graph=True)[0], L.autograd.grad(t.prod(1).sum(), t,
                                                                                     create_graph=True)[0]]
        return [o.detach().numpy() for o in out]
    with warnings.catch_warnings():
        warnings.simplefilter("error")
        got = grads(tt)
    for g, w in zip(got, grads(torch)):
        same(g, w, "gradient")


# -- aminmax: PyTorch shares each extreme's gradient among the elements equal to it, by a product with the mask;
# a NaN extreme equals nothing, so its row's gradient is g / 0 * 0: NaN throughout
@pytest.mark.parametrize("places", [[((0, 1), NAN)], [((0, 1), NAN), ((1, 0), INF)], [((2, 2), -INF), ((2, 3), -INF)],
                                    [((1, 1), INF), ((3, 4), NAN)]])
def test_aminmax_gradient_at_nan_and_inf(places):
    x = poisoned((4, 5), places)
    check(lambda L, t: L.aminmax(t), [x])
    check(lambda L, t: L.aminmax(t, dim=1), [x])
    check(lambda L, t: L.aminmax(t, dim=0, keepdim=True), [x])
    check(lambda L, t: (L.amax(t, 1), L.amin(t, (0, 1))), [x])


# -- quantile / nanquantile: PyTorch reads a slice holding NaN at its last sorted (NaN) element (quantile), an
# all-NaN slice at its first (nanquantile), so the NaN result's gradient goes to that element
_QUANTILE_ROWS = {
    "one_nan": [((0, 2), NAN)],
    "nans": [((0, 2), NAN), ((0, 4), NAN), ((1, 0), NAN)],
    "all_nan_row": [((2, i), NAN) for i in range(5)] + [((3, 1), INF)],
    "inf": [((1, 3), INF), ((1, 1), -INF)],
}


@pytest.mark.parametrize("fn", ["quantile", "nanquantile"])
@pytest.mark.parametrize("rows", sorted(_QUANTILE_ROWS))
@pytest.mark.parametrize("interpolation", ["linear", "lower", "higher", "midpoint", "nearest"])
def test_quantile_gradient_with_nan(fn, rows, interpolation):
    x = poisoned((4, 5), _QUANTILE_ROWS[rows])
    q = np.array([0.0, 0.3, 0.5, 1.0], np.float32)
    check(lambda L, t: getattr(L, fn)(t, 0.4, dim=1, interpolation=interpolation), [x])
    check(lambda L, t, qt: getattr(L, fn)(t, qt, dim=0, keepdim=True, interpolation=interpolation), [x, q])
    if fn == "nanquantile" or np.isnan(x).sum() < 2:
        # (quantile of all 20 elements with several NaNs: which NaN PyTorch's unstable sort puts last, and so
        # which one gets the gradient, is its sort's order of ties; tinytorch's sort keeps their order)
        check(lambda L, t: getattr(L, fn)(t, 0.7, interpolation=interpolation), [x])
    check(lambda L, t: getattr(L, fn)(t[2], 0.5, interpolation=interpolation), [x])


# -- cumprod: PyTorch's gradient is g * y's reversed sum over x without zeros; with zeros (no graph recorded) each
# line in three parts (before its first zero, at it, after it) that read only their own elements; with a graph,
# the products of the others
@pytest.mark.parametrize("seed", range(6))
@pytest.mark.parametrize("create_graph", [False, True])
def test_cumprod_gradient_with_zeros_inf_nan(seed, create_graph):
    rng = np.random.default_rng(seed)
    x = rng.standard_normal((4, 7)).astype(np.float32)
    u = rng.random(x.shape)
    x[u < 0.2] = 0.0
    x[(u >= 0.2) & (u < 0.28)] = INF
    x[(u >= 0.28) & (u < 0.33)] = -INF
    x[(u >= 0.33) & (u < 0.36)] = NAN
    g = rng.standard_normal(x.shape).astype(np.float32)

    def grads(L):
        t = L.tensor(x, requires_grad=True)
        return [L.autograd.grad(t.cumprod(d), t, L.tensor(g), create_graph=create_graph)[0].detach().numpy()
                for d in (0, 1)]
    with warnings.catch_warnings():
        warnings.simplefilter("error")
        got = grads(tt)
    for a, b in zip(got, grads(torch)):
        same(a, b, "gradient")
