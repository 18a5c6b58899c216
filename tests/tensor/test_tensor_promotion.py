"""Type promotion against PyTorch: every pair of dtypes, with and without dims, with Python and numpy scalars,
and the in-place casting rule (RELIABILITY row 48)."""
import itertools

import numpy as np
import pytest

import tinytorch

NAMES = ["bool", "uint8", "int8", "int16", "int32", "int64", "float16", "float32", "float64"]
SCALARS = [True, 3, 2.5]


def _make(T, name: str, dims: bool):
    data = [1, 0] if dims else 1
    return T.tensor(data, dtype=getattr(T, name))


def _dtype_name(t) -> str:
    return str(t.dtype).split(".")[-1]


@pytest.mark.parametrize("a_dims, b_dims", [(True, True), (True, False), (False, True), (False, False)])
def test_result_type_of_every_pair_matches_torch(a_dims, b_dims, torch):
    mismatches = []
    for a, b in itertools.product(NAMES, NAMES):
        for op in ("add", "mul", "maximum"):
            want = _dtype_name(getattr(torch, op)(_make(torch, a, a_dims), _make(torch, b, b_dims)))
            got = _dtype_name(getattr(tinytorch, op)(_make(tinytorch, a, a_dims), _make(tinytorch, b, b_dims)))
            if got != want:
                mismatches.append((op, a, b, got, want))
    assert mismatches == []


@pytest.mark.parametrize("dims", [True, False])
def test_tensor_with_python_scalar_matches_torch(dims, torch):
    mismatches = []
    for name, s in itertools.product(NAMES, SCALARS):
        for expr in ("x + s", "s + x", "x * s", "s * x", "x / s", "x ** s" if name != "bool" else "x * s"):
            got, want = (_dtype_name(eval(expr, {"x": _make(T, name, dims), "s": s}))
                         for T in (tinytorch, torch))
            if got != want:
                mismatches.append((expr, name, s, got, want))
    assert mismatches == []


def test_reliability_row_48():
    f32 = tinytorch.ones(3)
    assert (f32 + 1.5).dtype == tinytorch.float32
    assert (f32 + tinytorch.tensor(2.0, dtype=tinytorch.float64)).dtype == tinytorch.float32
    assert (f32 + tinytorch.ones(3, dtype=tinytorch.float64)).dtype == tinytorch.float64
    assert (tinytorch.tensor([1, 2]) / 2).dtype == tinytorch.float32
    assert tinytorch.tensor([1.0]).dtype == tinytorch.float32
    int_t = tinytorch.tensor([1, 2])
    with pytest.raises(RuntimeError, match="^result type Float can't be cast to the desired output type Long$"):
        int_t += 1.5
    assert int_t.tolist() == [1, 2]


@pytest.mark.parametrize("target, source", [("int64", "float32"), ("bool", "int64"), ("uint8", "float64"),
                                            ("int32", "int64"), ("float32", "float64"), ("float16", "int8")])
def test_inplace_cast_rule_matches_torch(target, source, torch):
    outcome = []
    for T in (torch, tinytorch):
        x, y = _make(T, target, True), _make(T, source, True)
        try:
            x.add_(y)
            outcome.append((_dtype_name(x), x.tolist()))
        except RuntimeError as e:
            outcome.append(str(e))
    assert outcome[1] == outcome[0]


@pytest.mark.parametrize("name", NAMES)
def test_dtype_objects(name, torch):
    d = getattr(tinytorch, name)
    td = getattr(torch, name)
    assert repr(d) == repr(td).replace("torch.", "tinytorch.")
    assert d.is_floating_point == td.is_floating_point and d.is_signed == td.is_signed
    assert d.itemsize == td.itemsize
    assert tinytorch.tensor([1], dtype=d).dtype is d
    assert tinytorch.from_numpy(np.zeros(2, d.np)).dtype is d


def test_dtype_aliases():
    assert tinytorch.float is tinytorch.float32 and tinytorch.double is tinytorch.float64
    assert tinytorch.long is tinytorch.int64 and tinytorch.int is tinytorch.int32
    assert tinytorch.half is tinytorch.float16 and tinytorch.short is tinytorch.int16
    assert tinytorch.get_default_dtype() is tinytorch.float32


def test_default_dtype_is_restored_and_used():
    try:
        tinytorch.set_default_dtype(tinytorch.float64)
        assert tinytorch.tensor([1.5]).dtype == tinytorch.float64
        assert tinytorch.zeros(2).dtype == tinytorch.float64
        assert (tinytorch.tensor([1, 2]) / 2).dtype == tinytorch.float64
    finally:
        tinytorch.set_default_dtype(tinytorch.float32)
    assert tinytorch.tensor([1.5]).dtype == tinytorch.float32
    with pytest.raises(TypeError):
        tinytorch.set_default_dtype(tinytorch.int64)


# -- values, dtypes and errors of binary ops for every pair of dtypes -----------------------------
VALUES = {"bool": [True, False, True], "uint8": [250, 3, 0], "int8": [-128, 100, 7], "int16": [-3, 300, 7],
          "int32": [-5, 2 ** 20, 9], "int64": [-7, 2 ** 40, 3], "float16": [1.5, -2.25, 1000.0],
          "float32": [0.1, -3.5, 1e10], "float64": [1e-300, -2.5, 3.0]}
BINARY_OPS = ["a + b", "a - b", "a * b", "a / b", "a // b", "a % b", "T.maximum(a, b)", "T.minimum(a, b)", "a == b",
              "a < b", "T.where(a > 0, a, b)", "T.cat([a, b])", "T.stack([a, b])", "a & b", "a | b", "a ^ b", "a @ b"]


def _outcome(T, src: str, a_name: str, b_name: str):
    a = T.tensor(VALUES[a_name], dtype=getattr(T, a_name))
    b = T.tensor(VALUES[b_name], dtype=getattr(T, b_name))
    try:
        out = eval(src, {"T": T, "a": a, "b": b})
    except Exception as e:  # noqa: BLE001 - the error is what is compared
        return type(e).__name__, str(e)
    # repr of the list: NaN compares equal to NaN, and -0.0 differs from 0.0
    return _dtype_name(out), repr(out.tolist())


@pytest.mark.parametrize("src", BINARY_OPS)
def test_binary_ops_on_every_dtype_pair_match_torch(src, torch):
    mismatches = []
    for a, b in itertools.product(NAMES, NAMES):
        if src == "a @ b" and a == b == "bool":
            continue  # PyTorch has no bool dot; tinytorch computes one
        got, want = _outcome(tinytorch, src, a, b), _outcome(torch, src, a, b)
        if got != want:
            mismatches.append((a, b, got, want))
    assert mismatches == []


@pytest.mark.parametrize("src", ["float32", "float64", "float16", "bfloat16"])
def test_casts_of_nan_inf_and_out_of_range_floats_match_torch(src, torch):
    """Floats that the target cannot hold (NaN, infinities, values past its range) convert as PyTorch's CPU
    casts convert them, and silently: numpy's "invalid value encountered in cast" is not PyTorch's."""
    import warnings
    values = [np.nan, 1e30, -1e30, np.inf, -np.inf, 2.5, -2.5, 300.7, -129.5, 70000.0, 3e9, -3e9]
    for dst in ("int64", "int32", "int16", "int8", "uint8", "bool", "float16", "bfloat16", "float32"):
        got = []
        for T in (tinytorch, torch):
            with warnings.catch_warnings():
                warnings.simplefilter("error")
                got.append(T.tensor(values).to(getattr(T, src)).to(getattr(T, dst)).tolist())
        assert all(a == b or (a != a and b != b) for a, b in zip(*got)), (src, dst, got)


@pytest.mark.parametrize("scalar", [np.float64(2.5), np.complex128(1j), np.float32(2.5), np.int64(2), np.bool_(True)])
@pytest.mark.parametrize("op", ["t * s", "s * t", "ti + s", "s - t", "t / s", "ti * s", "ti - s", "tb * s"])
def test_numpy_scalars_promote_as_pytorch(scalar, op):
    torch = pytest.importorskip("torch")

    def result(lib):
        t, ti, tb = lib.ones(2), lib.ones(2, dtype=lib.int64), lib.ones(2, dtype=lib.bool)
        out = eval(op, {"t": t, "ti": ti, "tb": tb, "s": scalar})
        return str(out.dtype).split(".")[-1], out.tolist()

    assert result(tinytorch) == result(torch)
