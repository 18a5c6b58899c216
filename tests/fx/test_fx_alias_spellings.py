"""Each spelling of an op is its own callable with PyTorch's ``__name__`` (``torch.arctan`` is not ``torch.atan``;
``torch.special.expit`` is ``special_expit``), so fx names and prints a call by the spelling the program used,
against PyTorch 2.13: every registry op's spellings in the torch, special, linalg and fft namespaces and as Tensor
methods, and the code fx's symbolic_trace writes for a program using aliases."""
import pytest

import tinytorch
from tinytorch._ops._core.registry import REGISTRY, method_table

_NAMESPACES = ["", "special", "linalg", "fft"]


def _space(lib, path):
    for part in filter(None, path.split(".")):
        lib = getattr(lib, part)
    return lib


def _declared(space) -> dict:
    """{name: function} of the registry ops' public spellings in a tinytorch namespace."""
    return {n: f for n, f in vars(space).items() if callable(f) and hasattr(f, "_decl") and not n.startswith("_")}


@pytest.mark.parametrize("path", _NAMESPACES)
def test_function_names_as_pytorch(path):
    torch = pytest.importorskip("torch")
    mine, theirs = _declared(_space(tinytorch, path)), _space(torch, path)
    pairs = [(n, f.__name__, getattr(theirs, n).__name__) for n, f in sorted(mine.items())
             if callable(getattr(theirs, n, None)) and hasattr(getattr(theirs, n), "__name__")]
    assert len(pairs) > 20
    assert [p for p in pairs if p[1] != p[2]] == []


@pytest.mark.parametrize("path", _NAMESPACES)
def test_distinct_spellings_are_distinct_objects(path):
    """Two spellings that are two objects in PyTorch are two in tinytorch (an alias is no shared object)."""
    torch = pytest.importorskip("torch")
    mine, theirs = _declared(_space(tinytorch, path)), _space(torch, path)
    names = sorted(n for n in mine if callable(getattr(theirs, n, None)))
    by_object: dict = {}
    for n in names:
        by_object.setdefault(id(mine[n]), []).append(n)
    shared = [group for group in by_object.values() if len(group) > 1
              and len({id(getattr(theirs, n)) for n in group}) > 1]
    assert shared == []


def test_method_names_as_pytorch():
    torch = pytest.importorskip("torch")
    pairs = []
    for decl in REGISTRY.values():
        for attr in method_table(decl):
            if attr.startswith("__") or not callable(getattr(torch.Tensor, attr, None)):
                continue
            pairs.append((attr, getattr(tinytorch.Tensor, attr).__name__, getattr(torch.Tensor, attr).__name__))
    assert len(pairs) > 200
    assert sorted(p for p in pairs if p[1] != p[2]) == []


_PROGRAM = """
class M(torch.nn.Module):
    def forward(self, x):
        a = torch.arctan(x) + torch.atan(x) + torch.special.expit(x) + torch.sigmoid(x) + torch.clip(x, 0, 1)
        b = torch.special.erfcx(x) + torch.linalg.matmul(x, x) + torch.fft.fft(x).real + torch.absolute(x)
        c = torch.concat([x, x]).sum() + torch.subtract(x, 1) + x.arctan() + torch.special.psi(x)
        d = torch.greater(x, 0).float() + torch.divide(x, 2) + torch.negative(x) + torch.swapaxes(x, 0, 1)
        return a + b + c + d
"""


def test_symbolic_trace_names_alias_calls_as_pytorch():
    torch = pytest.importorskip("torch")
    codes = []
    for lib in (tinytorch, torch):
        scope = {"torch": lib}
        exec(_PROGRAM, scope)
        gm = lib.fx.symbolic_trace(scope["M"]())
        x = lib.arange(9.0).reshape(3, 3) / 10
        codes.append((gm.code, str(gm.graph).replace("tinytorch", "torch"), gm(x).flatten().tolist()))
    assert codes[0][:2] == codes[1][:2]
    assert codes[0][2] == pytest.approx(codes[1][2], rel=1e-5)
