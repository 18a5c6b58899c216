"""TorchScript's deprecation warnings as PyTorch gives them: the same messages, and like PyTorch's named by no
caller (Python's default filters show a DeprecationWarning only where ``__main__`` triggers it, so a program run
as a script prints none of them, on PyTorch as here)."""
import warnings

import pytest

import tinytorch


def _calls(lib, tmp_path):
    class Cell(lib.nn.Module):
        def __init__(self):
            super().__init__()
            self.linear = lib.nn.Linear(2, 2)

        def forward(self, x):
            return self.linear(x).relu()

    def double(x):
        return x * 2

    x = lib.ones(1, 2)
    traced = lib.jit.trace(Cell(), (x,))
    lib.jit.trace(double, (x,))
    lib.jit.script(double)
    lib.jit.trace_module(Cell(), {"forward": (x,)})
    path = str(tmp_path / f"{lib.__name__}.pt")
    traced.save(path)  # the program's own save: no warning on PyTorch
    lib.jit.save(traced, path)
    lib.jit.load(path)


def _warned(lib, tmp_path):
    with warnings.catch_warnings(record=True) as caught:
        warnings.simplefilter("always")
        _calls(lib, tmp_path)
    return ({(w.category.__name__, str(w.message)) for w in caught if "deprecated" in str(w.message)},
            [w.filename for w in caught if w.filename == __file__])


def test_jit_deprecations_as_pytorch(tmp_path):
    torch = pytest.importorskip("torch")
    ours, theirs = _warned(tinytorch, tmp_path), _warned(torch, tmp_path)
    assert ours[0] == theirs[0] and len(ours[0]) == 5
    assert ours[1] == theirs[1] == []  # none names this file (the caller)
