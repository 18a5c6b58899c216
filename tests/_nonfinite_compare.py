"""One comparison for the hand-written non-finite tests (tests/ops/*/test_*_nonfinite.py): a function run by
PyTorch (one thread, as the nonfinite OpInfo sweep) and by tinytorch on the same arrays holding inf, -inf and
NaN must give NaN, +inf and -inf at the same places and close finite values, for its floating outputs and for
the gradients of every input for a fixed cotangent; and no numpy RuntimeWarning may reach the caller."""
import warnings

import numpy as np
import pytest

import tinytorch as tt

INF, NAN = np.inf, np.nan


def grid(shape, seed=0) -> np.ndarray:
    return np.random.default_rng(seed).standard_normal(shape).astype(np.float32)


def poisoned(shape, places, seed=0) -> np.ndarray:
    """A float32 standard-normal array with ``value`` written at each ``(index, value)`` of ``places``."""
    x = grid(shape, seed)
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
        got = L.autograd.grad([o for o in outs if o.requires_grad], [x for x in xs if x.requires_grad],
                              [c for c, o in zip(cot, outs) if o.requires_grad], allow_unused=True)
        grads = [None if g is None else g.numpy() for g in got]
    return [o.detach().numpy() for o in outs], grads


def same(got, want, what, rtol=1e-5, atol=1e-5):
    assert got.shape == want.shape, what
    np.testing.assert_array_equal(np.isnan(got), np.isnan(want), err_msg=f"NaN positions of the {what}")
    np.testing.assert_array_equal(np.isposinf(got), np.isposinf(want), err_msg=f"+inf of the {what}")
    np.testing.assert_array_equal(np.isneginf(got), np.isneginf(want), err_msg=f"-inf of the {what}")
    finite = np.isfinite(want)
    np.testing.assert_allclose(got[finite], want[finite], rtol=rtol, atol=atol, err_msg=what)


def check(fn, arrays, grad=True, rtol=1e-5, atol=1e-5):
    """``fn(lib, *tensors)`` on ``arrays`` in PyTorch and in tinytorch: outputs and input gradients alike."""
    torch = pytest.importorskip("torch")
    torch.set_num_threads(1)
    want = _run(torch, fn, arrays, grad)
    with warnings.catch_warnings():
        warnings.simplefilter("error")  # a numpy RuntimeWarning fails the test
        got = _run(tt, fn, arrays, grad)
    assert len(got[0]) == len(want[0]), "the number of floating outputs"
    for i, (g, w) in enumerate(zip(got[0], want[0])):
        same(g, w, f"output {i}", rtol, atol)
    assert len(got[1]) == len(want[1]), "the number of input gradients"
    for i, (g, w) in enumerate(zip(got[1], want[1])):
        if w is None or g is None:
            # an input one library leaves unused gets from the other no gradient or an all-zero one
            given = g if w is None else w
            assert given is None or not np.any(given), f"gradient {i}: None in one library, nonzero in the other"
            continue
        same(g, w, f"gradient {i}", rtol, atol)
