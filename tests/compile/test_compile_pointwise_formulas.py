"""Each line of a fused elementwise kernel is its op's declared formula (``op(scalar=...)``), written by running the
formula on symbolic values (``tinytorch/_dynamo/expr.py``), never typed again. Held to:

  - every declared op's generated function (the 0-d form on numpy scalars, and the numba loop over arrays where
    numba is there) against the eager op, bit for bit (NaN for NaN), float32 and float64, on random values with
    -0.0, infinities, NaN and subnormals, with each later operand a tensor or a Python number;
  - a formula declared otherwise (the same maths, other roundings) giving other floats: the comparison sees it;
  - ``Expr`` writing a formula's steps in their order (parentheses where Python would group them otherwise)."""
import inspect

import numpy as np
import pytest

import tinytorch as tt
from tinytorch._dynamo import pointwise
from tinytorch._dynamo.expr import Expr
from tinytorch._ops._core import paths
from tinytorch._ops._core.registry import ATEN_ONLY, REGISTRY, scalar_formula
from tinytorch._ops._kernels import compiled as _compiled
from tinytorch.fx import Graph

_NUMBERS = [0, 1, 2, 3, 7, -1, -2, 0.5, -0.5, 1.0, 0.0, -0.0, 2.5, 0.1, 1e30]  # (pow's special exponents among them)
_ARRAY_NUMBERS = [0, 0.5, 2]  # (the array form runs the same lines: a few numbers, each a numba compile)


def _declared() -> dict:
    """name -> the op's function, for every op declaring a formula on one element."""
    ops = {d.name: d.public for d in REGISTRY.values() if "scalar" in d.rules}
    ops.update({n: f for n, f in ATEN_ONLY.items() if getattr(f, "scalar", None) is not None})
    return ops


def test_the_fused_ops_are_the_declared_ones():
    want = {"add", "sub", "mul", "div", "rsub", "neg", "relu", "threshold_backward", "sqrt", "abs", "rsqrt",
            "reciprocal", "tanh_backward", "sigmoid_backward"}
    # pow: its products and roots while its CPU path computes them so (not the reference's power)
    assert set(_declared()) == want | (set() if paths.REFERENCE else {"pow"})


@pytest.mark.parametrize("name", sorted(_declared()))
def test_in_place_forms_are_never_fused(name):
    """``neg_`` writes its input: a fused line would compute its value and drop the write."""
    if not hasattr(tt.ops.aten, name + "_"):
        pytest.skip(f"no {name}_")
    kinds = ("t",) + (2,) * (_arity(scalar_formula(_declared()[name])) - 1)
    assert _generated(name, kinds, (), np.float32) is not None
    assert scalar_formula(getattr(tt.ops.aten, name + "_").default._packet._fn) is None
    assert _generated(name + "_", kinds, (), np.float32) is None


def _values(rng, n: int, dtype) -> np.ndarray:
    a = np.asarray(rng.standard_normal(n) * 3, dtype=dtype)
    tiny = np.finfo(dtype).tiny / 4  # (a subnormal)
    specials = np.array([-0.0, 0.0, np.inf, -np.inf, np.nan, tiny, -tiny, 1.0, -1.0, 0.5], dtype)
    picks = rng.integers(0, n, n // 3)
    a[picks] = rng.choice(specials, picks.size)
    return a


def _same(a: np.ndarray, b: np.ndarray) -> bool:
    """The same floats bit for bit (-0.0 apart from +0.0), NaN where NaN (a NaN's sign and payload are left open,
    as ``test_compile_pointwise.py`` says why)."""
    if a.dtype != b.dtype or a.shape != b.shape:
        return False
    nan_a, nan_b = np.isnan(a), np.isnan(b)
    return np.array_equal(nan_a, nan_b) and np.where(nan_a, 0, a).tobytes() == np.where(nan_b, 0, b).tobytes()


def _arity(formula) -> int:
    if isinstance(formula, np.ufunc):
        return formula.nin
    return len(inspect.signature(formula).parameters)


def _operand_kinds(n: int, numbers: list) -> list:
    """The operands of a call: the first a tensor; then all tensors, or one later operand a number."""
    kinds = [("t",) * n]
    for i in range(1, n):
        kinds += [("t",) * i + (v,) + ("t",) * (n - i - 1) for v in numbers]
    return kinds


def _generated(name: str, kinds: tuple, shape: tuple, dtype):
    """The fused function ``pointwise`` generates for one call of op ``name`` with operands ``kinds`` ("t": a
    tensor of ``shape``), or None where the fusion takes no such call."""
    tdt = tt.from_numpy(np.zeros((), dtype)).dtype
    graph = Graph()
    args, inputs = [], []
    for k, kind in enumerate(kinds):
        if kind == "t":
            p = graph.placeholder(f"in{k}")
            p.meta["val"] = tt.zeros(shape, dtype=tdt)
            args.append(p)
            inputs.append(p)
        else:
            args.append(kind)
    node = graph.call_function(getattr(tt.ops.aten, name).default, tuple(args))
    node.meta["val"] = tt.zeros(shape, dtype=tdt)
    key = (shape, np.dtype(dtype))
    if not pointwise._fusable(node, key):
        return None
    return pointwise._generate([node], inputs, [node], shape, np.dtype(dtype))


def _agrees(name: str, dtype, shape: tuple, numbers: list) -> int:
    """How many calls of op ``name`` were held to the eager op (each later operand a tensor, or one of ``numbers``);
    raises AssertionError at the first call whose generated function gives other floats."""
    op = _declared()[name]
    rng = np.random.default_rng(len(name))
    n = int(np.prod(shape)) if shape else 96  # (0-d: that many calls)
    checked = 0
    for kinds in _operand_kinds(_arity(scalar_formula(op)), numbers):
        arrays = [_values(rng, n, dtype) for kind in kinds if kind == "t"]
        try:
            _call(op, kinds, [tt.tensor(a[0]) for a in arrays])
        except (RuntimeError, TypeError, AttributeError):  # (a call the op refuses never reaches a graph)
            continue
        fused = _generated(name, kinds, shape, dtype)
        if fused is None:  # (pow's other exponents; a number the dtype does not hold)
            continue
        if shape == ():
            for i in range(n):
                tensors = [tt.tensor(a[i]) for a in arrays]
                want, got = _call(op, kinds, tensors), fused(*tensors)[0]
                assert _same(want.numpy(), got.numpy()), (name, kinds, [a[i] for a in arrays], want, got)
        else:
            tensors = [tt.tensor(a.reshape(shape)) for a in arrays]
            want, got = _call(op, kinds, tensors), fused(*tensors)[0]
            assert _same(want.numpy(), got.numpy()), (name, kinds)
        checked += 1
    return checked


def _call(op, kinds, tensors):
    it = iter(tensors)
    with np.errstate(all="ignore"):  # (tanh_backward on arrays warns of inf * 0 where PyTorch does not)
        return op(*[next(it) if kind == "t" else kind for kind in kinds])


@pytest.mark.parametrize("dtype", [np.float32, np.float64])
@pytest.mark.parametrize("name", sorted(_declared()))
def test_each_generated_line_gives_its_ops_floats(name, dtype):
    assert _agrees(name, dtype, (), _NUMBERS) > 0


@pytest.mark.parametrize("dtype", [np.float32, np.float64])
@pytest.mark.parametrize("name", sorted(_declared()))
def test_each_generated_loop_gives_its_ops_floats(name, dtype):
    if not _compiled.available():
        pytest.skip("the array form needs numba (the compiled kernels)")
    assert _agrees(name, dtype, (48,), _ARRAY_NUMBERS) > 0


def test_a_formula_declared_otherwise_is_seen(monkeypatch):
    """The same maths rounded otherwise, declared in the formula's place: the generated code follows the
    declaration, and the comparison with the op fails."""
    monkeypatch.setitem(REGISTRY["div"].rules, "scalar", lambda a, b: a * (1 / b))
    with pytest.raises(AssertionError):
        _agrees("div", np.float32, (), [])
    monkeypatch.setattr(ATEN_ONLY["tanh_backward"], "scalar", lambda g, y: g * ((1 - y) * (1 + y)))
    with pytest.raises(AssertionError):
        _agrees("tanh_backward", np.float32, (), [])


def test_the_line_is_the_declared_formula(monkeypatch):
    fused = _generated("tanh_backward", ("t", "t"), (), np.float32)
    assert fused is not None
    monkeypatch.setattr(ATEN_ONLY["tanh_backward"], "scalar", lambda g, y: g - y)
    got = _generated("tanh_backward", ("t", "t"), (), np.float32)(tt.tensor(3.0), tt.tensor(0.5))[0]
    assert got.item() == 2.5


# -- Expr ------------------------------------------------------------------------------------------
_FORMULAS = [
    lambda a, b, c: a - (b - c),
    lambda a, b, c: a - b - c,
    lambda a, b, c: a / (b * c),
    lambda a, b, c: a / b * c,
    lambda a, b, c: -(a * b) + c,
    lambda a, b, c: a * -b - c * (a + b),
    lambda a, b, c: (a + b) * (c - a) / (b - -c),
    lambda a, b, c: np.where(a < b, a - c, b * 2.5),
    lambda a, b, c: np.where(a <= 0, 0, np.where(b > c, a, c)) - 1,
    lambda a, b, c: np.where(np.where(a < 0, a, b) >= c, a, b),
    lambda a, b, c: 1 / np.sqrt(abs(a)) - 3 * b + np.negative(c),
    lambda a, b, c: a.dtype.type(1) / (a + b) + np.ones_like(c) - np.copy(c),
    lambda a, b, c: 0.1 * a + 1e-3 / (b * b * b),
]


@pytest.mark.parametrize("dtype", [np.float32, np.float64])
@pytest.mark.parametrize("k", range(len(_FORMULAS)))
def test_expr_writes_a_formulas_steps_in_order(k, dtype):
    """Each formula's text, run on numpy scalars, gives the formula's own floats on the same scalars."""
    formula = _FORMULAS[k]
    consts: dict = {}
    text = formula(*[Expr(f"x{i}", np.dtype(dtype), pointwise._constant_names(np.dtype(dtype), consts))
                     for i in range(3)]).text
    scope = {"np": np, "zero": dtype(0), "one": dtype(1), **{c: dtype(float(v)) for v, c in consts.items()}}
    code = compile(text, "<formula>", "eval")
    rng = np.random.default_rng(k)
    values = [_values(rng, 200, dtype) for _ in range(3)]
    with np.errstate(all="ignore"):
        for a, b, c in zip(*values):
            # (on one-element arrays: numpy 1.x's scalar arithmetic with a Python float computes in float64)
            want = np.asarray(formula(*(np.array([v]) for v in (a, b, c)))[0], dtype=dtype)
            got = np.asarray(eval(code, {**scope, "x0": a, "x1": b, "x2": c}))  # noqa: S307 - the written formula
            assert _same(want, got), (text, a, b, c, want, got)


def test_expr_refuses_what_it_cannot_write():
    x = Expr("x0", np.dtype(np.float32), pointwise._constant_names(np.dtype(np.float32), {}))
    with pytest.raises(TypeError):
        np.exp(x)
    with pytest.raises(TypeError, match="no truth value"):
        bool(x < 0)
    with pytest.raises(TypeError):
        x + "a"
