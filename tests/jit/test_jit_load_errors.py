"""``torch.jit.load`` of a path that is missing or a directory: PyTorch's ValueError, checked before opening."""
import pathlib

import pytest

import tinytorch


@pytest.mark.parametrize("path", ["/nonexistent/model.pt", "/tmp", pathlib.Path("/nonexistent/model.pt")])
def test_load_bad_path(path):
    torch = pytest.importorskip("torch")
    with pytest.raises(Exception) as expected:
        torch.jit.load(path)
    with pytest.raises(type(expected.value), match=None) as got:
        tinytorch.jit.load(path)
    assert str(got.value) == str(expected.value)
