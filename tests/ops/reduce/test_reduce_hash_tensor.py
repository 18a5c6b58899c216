"""hash_tensor against PyTorch: the XOR of the elements' 64-bit patterns over the reduced dims, for every
dtype its kernel takes (floats widened to float64, integers and bools to int64), dims and keepdim, and
PyTorch's errors (unknown mode, empty input without dim, an empty reduced dim, the dtypes it refuses)."""
import numpy as np
import pytest

import tinytorch as tt

from _compare import outcome

from _oracle import torch  # noqa: E402  (PyTorch when a test reads it)

DTYPES = ["float32", "float64", "float16", "bfloat16", "int8", "int16", "int32", "int64", "uint8", "bool",
          "uint16", "complex64"]
CASES = [((2, 3), {}), ((2, 3), {"dim": 1}), ((2, 3), {"dim": 0, "keepdim": True}), ((2, 3), {"dim": []}),
         ((2, 3, 4), {"dim": (0, 2)}), ((), {}), ((), {"dim": 0}), ((5,), {"dim": -1}), ((0,), {}),
         ((0, 3), {"dim": 1}), ((0, 3), {"dim": 0}), ((2, 0, 3), {"dim": (0, 2)}), ((2, 3), {"mode": 1})]


@pytest.mark.parametrize("dtype", DTYPES)
@pytest.mark.parametrize("k", range(len(CASES)))
def test_hash_tensor_matches_pytorch(dtype, k):
    shape, kwargs = CASES[k]
    rng = np.random.default_rng(k)
    values = rng.standard_normal(shape) * 50
    if dtype.startswith(("float", "complex")):  # (bfloat16's NaN from float64 is PyTorch's 0xFFFF: not here)
        values.flat[:2] = [np.nan, -0.0][:values.size]

    def run(lib):
        t = lib.tensor(values).to(getattr(lib, dtype))
        out = lib.hash_tensor(t, **kwargs)
        assert out.tolist() == t.hash_tensor(**kwargs).tolist() and tuple(out.shape) == tuple(np.shape(out.tolist()))
        return out

    assert outcome(run, tt) == outcome(run, torch)
