"""polygamma against PyTorch on non-finite, pole and half-precision inputs (the shift recurrence once
looped forever on -inf), and trigamma for every half and bfloat16 value."""
import warnings

import numpy as np
import pytest

import tinytorch as tt
from _compare import same as _same

from _oracle import torch  # noqa: E402  (PyTorch when a test reads it)


# -- polygamma: non-finite, pole and half inputs (the shift recurrence looped forever on -inf) -------
def _np_dtype(name):
    """numpy's dtype for a tinytorch dtype name; bfloat16's comes from the optional ml_dtypes (skip without it)."""
    if name == "bfloat16":
        return pytest.importorskip("ml_dtypes").bfloat16
    return {"float16": np.float16, "float32": np.float32, "float64": np.float64}[name]


_SPECIAL = [-np.inf, np.inf, np.nan, 0.0, -0.0, -1.0, -3.0, -1e30, -3e9, 1e30, -5.5, 0.25, 2.5, 7.0, 40.0]


@pytest.mark.parametrize("n", [1, 2, 3, 4])
@pytest.mark.parametrize("dtype", ["float16", "bfloat16", "float32", "float64"])
def test_polygamma_special_values(n, dtype):
    v = np.array(_SPECIAL)
    with np.errstate(all="ignore"):  # numpy's cast warns at 1e30 -> inf and at NaN
        x = tt.tensor(v.astype(_np_dtype(dtype)))
    with warnings.catch_warnings():
        warnings.simplefilter("error")  # the library never prints: no numpy overflow warnings either
        ours = tt.polygamma(n, x)
    theirs = torch.polygamma(n, torch.tensor(v).to(getattr(torch, dtype)))
    finite = np.isfinite(theirs.double().numpy())
    assert np.array_equal(np.isfinite(ours.double().numpy()), finite)
    np.testing.assert_array_equal(ours.double().numpy()[~finite], theirs.double().numpy()[~finite])
    # PyTorch's n >= 2 runs its zeta series in the half types' float32 opmath, tinytorch in float64
    rtol = {"float16": 1e-2, "bfloat16": 1e-2, "float32": 1e-5, "float64": 1e-10}[dtype]
    _same(ours[tt.tensor(finite)], theirs[torch.tensor(finite)], rtol=rtol, atol=1e-6 if n > 1 else 0)


@pytest.mark.parametrize("dtype", ["float16", "bfloat16"])
def test_trigamma_half_every_value(dtype):
    """polygamma(1, x) for half inputs as PyTorch computes it (in float32, rounded once): every value."""
    bits = torch.arange(-2 ** 15, 2 ** 15, dtype=torch.int32).to(torch.int16)
    x = bits.view(getattr(torch, dtype))
    theirs = torch.polygamma(1, x).float().numpy()
    with np.errstate(all="ignore"):
        ours = tt.polygamma(1, tt.tensor(x.float().numpy().astype(_np_dtype(dtype)))).float().numpy()
    np.testing.assert_array_equal(ours, theirs)
