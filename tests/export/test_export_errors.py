"""What export refuses, against PyTorch 2.13: a ``Dim`` whose example size is 0 or 1, two ``Dim`` objects the
program needs equal, a ``Dim.DYNAMIC`` at size 1, and an exported program's module called with inputs of another
structure (types by module path and name: PyTorch's ``UserError`` is ``torch._dynamo.exc.UserError``, which
``except`` clauses name; and messages)."""
import pytest

import tinytorch


def _error(lib, build):
    """``(type's path, message)`` of what ``build(lib)`` raises, or None when it returns."""
    try:
        build(lib)
    except Exception as e:  # noqa: BLE001 - the error is what is compared
        path = f"{type(e).__module__}.{type(e).__qualname__}".replace("tinytorch", "torch", 1)
        return path, str(e).replace("tinytorch", "torch")
    return None


def _models(lib):
    class Scale(lib.nn.Module):
        def forward(self, x):
            return x * 2

    class Add(lib.nn.Module):
        def forward(self, x, y):
            return x + y

    class MatMul(lib.nn.Module):
        def forward(self, x, y):
            return x @ y
    return Scale(), Add(), MatMul()


def _export(case):
    def build(lib):
        scale, add, matmul = _models(lib)
        Dim = lib.export.Dim
        if case == "one":
            return lib.export.export(scale, (lib.ones(1, 3),), dynamic_shapes={"x": {0: Dim("b")}})
        if case == "zero":
            return lib.export.export(scale, (lib.ones(0, 3),), dynamic_shapes={"x": {0: Dim("b")}})
        if case == "one_with_min":
            return lib.export.export(scale, (lib.ones(1, 3),), dynamic_shapes={"x": {0: Dim("b", min=1)}})
        if case == "two_ones":
            return lib.export.export(scale, (lib.ones(1, 1),), dynamic_shapes={"x": {0: Dim("b"), 1: Dim("c")}})
        if case == "one_shared":  # one tensor passed twice: its size named once, told once per place
            x = lib.ones(1, 3)
            return lib.export.export(add, (x, x), dynamic_shapes={"x": {0: Dim("b")}, "y": {0: Dim("b")}})
        if case == "ones_in_add":
            return lib.export.export(add, (lib.ones(1, 3), lib.ones(1, 3)),
                                     dynamic_shapes={"x": {0: Dim("b")}, "y": {0: Dim("c")}})
        if case == "equal":
            return lib.export.export(matmul, (lib.ones(4, 3), lib.ones(3, 5)),
                                     dynamic_shapes={"x": {1: Dim("a")}, "y": {0: Dim("b")}})
        if case == "equal_named_later_first":
            return lib.export.export(matmul, (lib.ones(4, 3), lib.ones(3, 5)),
                                     dynamic_shapes={"x": {1: Dim("z")}, "y": {0: Dim("a")}})
        if case == "equal_in_add":
            return lib.export.export(add, (lib.ones(4, 3), lib.ones(4, 3)),
                                     dynamic_shapes={"x": {0: Dim("b")}, "y": {0: Dim("c")}})
        if case == "one_and_equal":
            return lib.export.export(matmul, (lib.ones(1, 3), lib.ones(3, 1)),
                                     dynamic_shapes={"x": {0: Dim("b"), 1: Dim("c")}, "y": {0: Dim("d")}})
        if case == "dynamic_one":
            return lib.export.export(scale, (lib.ones(1, 3),), dynamic_shapes={"x": {0: Dim.DYNAMIC(max=7)}})
        if case == "fine":
            return lib.export.export(matmul, (lib.ones(4, 3), lib.ones(3, 5)),
                                     dynamic_shapes={"x": {0: Dim("a")}, "y": {1: Dim("b")}})
        raise AssertionError(case)
    return build


@pytest.mark.parametrize("case", ["one", "zero", "one_with_min", "two_ones", "one_shared", "ones_in_add", "equal",
                                  "equal_named_later_first", "equal_in_add", "one_and_equal", "dynamic_one",
                                  "fine"])
def test_dim_errors_as_pytorch(case):
    torch = pytest.importorskip("torch")
    expected = _error(torch, _export(case))
    assert _error(tinytorch, _export(case)) == expected


@pytest.mark.parametrize("call", [lambda m, x: m(x, x, x), lambda m, x: m(x), lambda m, x: m(x, y=x),
                                  lambda m, x: m([x, x]), lambda m, x: m(x, x)])
def test_module_called_with_other_inputs(call):
    """An exported program's module refuses inputs structured otherwise than the example's (an extra argument):
    PyTorch's ValueError with both tree specs printed."""
    torch = pytest.importorskip("torch")

    def run(lib):
        _, add, _ = _models(lib)
        x = lib.ones(2, 3)
        return call(lib.export.export(add, (x, x)).module(), x)
    expected = _error(torch, run)
    assert _error(tinytorch, run) == expected


def test_treespec_repr_as_pytorch():
    pytest.importorskip("torch")
    from torch.utils import _pytree as tp

    from tinytorch.utils import _pytree as tt
    tree = ((1, 2, {"a": 3, "b": [4, (5,)]}), {"k": [6]}, [])
    assert repr(tt.tree_flatten(tree)[1]) == repr(tp.tree_flatten(tree)[1])
