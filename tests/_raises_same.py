"""One check shared by the nn surface tests: a call raises in tinytorch as it does in PyTorch."""
import pytest


def raises_same(fn_torch, fn_tt):
    """``fn_tt()`` raises the type ``fn_torch()`` raises, with PyTorch's message ("tinytorch" read as "torch")."""
    with pytest.raises(Exception) as expected:
        fn_torch()
    with pytest.raises(type(expected.value)) as got:
        fn_tt()
    assert str(got.value).replace("tinytorch", "torch") == str(expected.value)
