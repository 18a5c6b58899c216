"""as_strided_scatter on views against PyTorch: the window lies in the input's storage, out-of-bounds
windows are refused, and a window past a grad-requiring view's elements is refused in backward."""
import numpy as np
import pytest

import tinytorch as tt
from _compare import raises_alike as _raises_alike, same as _same

from _oracle import torch  # noqa: E402  (PyTorch when a test reads it)


# -- as_strided_scatter on views: the window is in the input's storage ------------------------------
_VIEWS = {"offset rows": lambda t: t[1:], "offset columns": lambda t: t[:, 1:], "transposed": lambda t: t.t(),
          "stepped": lambda t: t[::2], "contiguous": lambda t: t}


@pytest.mark.parametrize("view", list(_VIEWS))
@pytest.mark.parametrize("offset", [None, 0, 1, 3])
def test_as_strided_scatter_of_views(view, offset):
    base = np.arange(12.0).reshape(3, 4)
    src = -np.arange(1.0, 5.0).reshape(2, 2)
    results = []
    for m in (torch, tt):
        inp = _VIEWS[view](m.tensor(base))
        results.append(m.as_strided_scatter(inp, m.tensor(src), (2, 2), (1, 2), offset))
    _same(results[1], results[0])


def test_as_strided_scatter_of_view_out_of_bounds():
    _raises_alike(lambda m: m.as_strided_scatter(m.zeros(3, 4)[1:], m.ones(2, 2), (2, 2), (1, 2), 11))
    _raises_alike(lambda m: m.as_strided_scatter(m.zeros(3, 4)[1:], m.ones(2, 2), (2, 2), (1, 2), 9))


@pytest.mark.parametrize("offset", [2, 6])
def test_as_strided_scatter_of_view_requiring_grad_window_past_its_elements(offset):
    """x[1:] is contiguous (so allowed with grad); the window, in x's storage, may reach past x[1:]'s
    eight elements: the forward works, the backward's read of the contiguous gradient refuses it."""
    results = []
    for m in (torch, tt):
        x = m.arange(12.0).reshape(3, 4).requires_grad_()
        s = m.ones(2, 2, requires_grad=True)
        y = m.as_strided_scatter(x[1:], s, (2, 2), (1, 2), offset)
        try:
            grads = m.autograd.grad(y.sum() * 2, (x, s))
        except RuntimeError as e:
            grads = str(e)
        results.append((y, grads))
    (yt, gt), (yu, gu) = results
    _same(yu, yt)
    if isinstance(gt, str):
        assert gu == gt
    else:
        for a, b in zip(gu, gt):
            _same(a, b)
