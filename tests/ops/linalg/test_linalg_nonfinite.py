"""Linear-algebra ops on inputs holding inf, -inf and NaN, against PyTorch (one thread): the values, the
gradients, and that no numpy RuntimeWarning reaches the caller. The cases put the non-finite values where the
OpInfo sweep's two samples do not (several rows, both signs, every p)."""
import functools

import numpy as np
import pytest
from _nonfinite_compare import INF, NAN, poisoned
from _nonfinite_compare import check as _check

check = functools.partial(_check, rtol=1e-4)  # (products of several rows: float32 rounding a little wider)



# -- renorm: a slice whose norm is NaN is left as it is (NaN > maxnorm is false), its gradient the incoming one
@pytest.mark.parametrize("p", [0.5, 1, 2, 3, INF])
@pytest.mark.parametrize("places", [[((1, 2, 0), NAN)], [((0, 0, 0), INF), ((2, 1, 1), -INF)],
                                    [((0, 1, 2), NAN), ((2, 3, 4), INF)]])
def test_renorm_of_slices_holding_inf_nan(p, places):
    x = poisoned((3, 4, 5), places)
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
    a, b = poisoned((4, 3), a_places, 1), poisoned((5, 3), b_places, 2)
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
    x = poisoned((4,), places)
    check(lambda L, t: L.linalg.vander(t, N=n), [x])
    check(lambda L, t: L.linalg.vander(t.reshape(2, 2), N=n), [x])


@pytest.mark.parametrize("places", [[((0, 0), INF)], [((1, 0), NAN)], [((0, 0), -INF), ((2, 0), 0.0)]])
def test_cumprod_gradient_of_one_element_lines(places):
    x = poisoned((3, 1), places)
    check(lambda L, t: t.cumprod(1), [x])
    check(lambda L, t: t.cumprod(1, dtype=L.float64), [x])
    check(lambda L, t: t[0, 0].cumprod(0), [x])


# -- matrix_power: n = 0 is the identity copied into a clone (1 where the input holds inf or NaN, zero gradient)
@pytest.mark.parametrize("n", [0, 1, 2, 3, 5, 6])
@pytest.mark.parametrize("places", [[((0, 0, 0), INF)], [((1, 1, 0), NAN)], [((0, 2, 2), -INF), ((1, 0, 1), INF)]])
def test_matrix_power_of_inf_nan(n, places):
    x = poisoned((2, 3, 3), places)
    check(lambda L, t: L.linalg.matrix_power(t, n), [x])
    check(lambda L, t: t.mT.matrix_power(n), [x])
