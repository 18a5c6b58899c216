"""``torch.jit.trace`` of a function that uses numpy (or SciPy) results, against PyTorch 2.13: a tensor made from
data (``from_numpy``, ``tensor``, ``as_tensor``) is held as a constant of the trace with PyTorch's TracerWarning, and
numpy scalars as numbers, so the traced function runs again on new inputs with the values PyTorch's trace gives; the
warning names the user's line, as PyTorch's."""
import os
import warnings

import numpy as np
import pytest

import tinytorch

_C = np.array([1.0, 2.0, 3.0], dtype=np.float32)

CASES = {
    "from_numpy": lambda lib: lambda x: x * lib.from_numpy(_C),
    "tensor": lambda lib: lambda x: x + lib.tensor(_C),
    "as_tensor": lambda lib: lambda x: x + lib.as_tensor(_C),
    "tensor_of_list": lambda lib: lambda x: x + lib.tensor([1.0, 2.0, 3.0]),
    "float32_scalar": lambda lib: lambda x: x * np.float32(2.5),
    "float64_scalar": lambda lib: lambda x: x * np.float64(2.5),
    "int64_scalar": lambda lib: lambda x: x + np.int64(3),
    "index_array": lambda lib: lambda x: x[np.array([2, 0])] * 2,
    "scipy_result": lambda lib: lambda x: x + lib.tensor(np.cumsum(_C) ** 0.5),
}


def _run(lib, case):
    with warnings.catch_warnings(record=True) as caught:
        warnings.simplefilter("always")
        warnings.filterwarnings("ignore", category=DeprecationWarning)  # jit.trace's own deprecation
        traced = lib.jit.trace(CASES[case](lib), lib.ones(3))
    outs = [traced(lib.full((3,), v)) for v in (2.0, -1.5)]
    # each warning where PyTorch's points: the user's line that made the value (this file's CASES)
    told = sorted({(w.category.__name__, str(w.message), os.path.basename(w.filename), w.lineno) for w in caught})
    return [(o.tolist(), str(o.dtype).split(".")[-1]) for o in outs], told


@pytest.mark.parametrize("case", sorted(CASES))
def test_numpy_values_are_constants_of_the_trace(case):
    torch = pytest.importorskip("torch")
    assert _run(tinytorch, case) == _run(torch, case)
