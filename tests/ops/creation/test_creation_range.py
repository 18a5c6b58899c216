"""``torch.range``, PyTorch's deprecated inclusive range, against PyTorch: values, dtypes, its warning and errors."""
import warnings

import pytest

import tinytorch

CASES = [
    ((1, 4), {}), ((0, 1, 0.25), {}), ((1, 4), {"dtype": "int64"}), ((4, 1, -1), {}), ((1, 2.5), {}),
    ((0, 1, 0.1), {}), ((0, 1, 0.1), {"dtype": "float64"}), ((0, 1, 0.1), {"dtype": "bfloat16"}),
    ((0, 1, 0.1), {"dtype": "float16"}), ((0.5, 3.7), {"dtype": "int64"}), ((0, 10, 3), {"dtype": "int32"}),
    ((3, 0, -1.5), {"dtype": "int64"}), ((-1.5, 2.5), {"dtype": "int64"}), ((0.0, 1.0, 1 / 3), {}),
    ((0, 3), {"dtype": "uint8"}), ((0, 3), {"requires_grad": True}), ((), {"start": 2, "end": 5}),
    ((0, 1e5, 0.1), {}),
    # errors
    ((4, 1), {}), ((1, 4, 0), {}), ((0, float("inf")), {}), ((0, 3), {"dtype": "bool"}),
    ((0, 3), {"dtype": "int64", "requires_grad": True}),
]


def _call(lib, args, kwargs):
    kwargs = {k: getattr(lib, v) if k == "dtype" else v for k, v in kwargs.items()}
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        try:
            r = lib.range(*args, **kwargs)
        except Exception as e:  # noqa: BLE001 - the error is what is compared
            return type(e).__name__, str(e)
    return str(r.dtype).rpartition(".")[2], r.detach().tolist(), r.requires_grad, r.is_leaf


@pytest.mark.parametrize("args, kwargs", CASES)
def test_range_matches_pytorch(args, kwargs):
    torch = pytest.importorskip("torch")
    assert _call(tinytorch, args, kwargs) == _call(torch, args, kwargs)


def test_range_warns_at_the_caller_as_pytorch_does():
    torch = pytest.importorskip("torch")
    seen = []
    for lib in (torch, tinytorch):
        with warnings.catch_warnings(record=True) as caught:
            warnings.simplefilter("always")
            lib.range(0, 2)
        seen.append([(w.category, str(w.message), w.filename) for w in caught])
    assert seen[0] == seen[1]
    assert seen[0][0][2] == __file__


def test_range_out():
    torch = pytest.importorskip("torch")
    results = []
    for lib in (torch, tinytorch):
        out = lib.empty(0)
        with warnings.catch_warnings():
            warnings.simplefilter("ignore")
            r = lib.range(0, 2, out=out)
        results.append((r is out, out.tolist(), str(out.dtype).rpartition(".")[2]))
    assert results[0] == results[1]
