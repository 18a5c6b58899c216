"""batch_norm with mixed input / running-stat / weight dtypes, and running stats that require grad,
against PyTorch: result dtypes, values and errors, in training and evaluation."""
import numpy as np
import pytest

import tinytorch as tt
from _compare import outcome as _outcome

from _oracle import torch  # noqa: E402  (PyTorch when a test reads it)


_BN_DTYPES = [  # input, running stats, weight
    ("float32", "float64", None), ("float64", "float32", None), ("float32", "float32", "float64"),
    ("float64", None, "float32"), ("float32", None, "float64"), ("float16", "float32", None),
    ("float16", "float64", None), ("float16", "float16", "float32"), ("float64", "float64", "float32"),
    ("float16", None, "float32"), ("float32", "float16", None), ("bfloat16", "float32", "float32"),
]


@pytest.mark.parametrize("dtypes", _BN_DTYPES)
@pytest.mark.parametrize("training", [True, False])
def test_batch_norm_mixed_dtypes(dtypes, training):
    x = np.linspace(-2, 3, 24).reshape(4, 3, 2)

    def call(m):
        xd, rd, wd = (None if d is None else getattr(m, d) for d in dtypes)
        rm = None if rd is None else m.zeros(3, dtype=rd)
        rv = None if rd is None else m.ones(3, dtype=rd)
        w = None if wd is None else m.full((3,), 1.5, dtype=wd)
        y = m.nn.functional.batch_norm(m.tensor(x, dtype=xd), rm, rv, w, training=training)
        return y.float() if rm is None else m.cat([y.float().flatten(), rm.float(), rv.float()])

    a, b = _outcome(call, tt), _outcome(call, torch)
    assert a[0] == b[0]
    if isinstance(a[1], str):
        assert a == b
    else:
        np.testing.assert_allclose(a[1], b[1], rtol=1e-2, atol=1e-3)



@pytest.mark.parametrize("training", [True, False])
@pytest.mark.parametrize("which", ["running_mean", "running_var"])
@pytest.mark.parametrize("no_grad", [False, True])
def test_batch_norm_running_stats_requiring_grad(training, which, no_grad):
    x = np.linspace(-2, 3, 12).reshape(4, 3)

    def call(m):
        rm = m.zeros(3, requires_grad=which == "running_mean")
        rv = m.ones(3, requires_grad=which == "running_var")
        if no_grad:
            with m.no_grad():
                return m.nn.functional.batch_norm(m.tensor(x, dtype=m.float32), rm, rv, training=training)
        return m.nn.functional.batch_norm(m.tensor(x, dtype=m.float32), rm, rv, training=training)

    a, b = _outcome(call, tt), _outcome(call, torch)
    assert a[0] == b[0]
    if isinstance(a[1], str):
        assert a == b
    else:
        np.testing.assert_allclose(a[1], b[1], rtol=1e-5, atol=1e-6)
