"""torch.export refuses a program whose control flow depends on a tensor's values, as PyTorch 2.13 does (its
``GuardOnDataDependentSymNode``), instead of exporting the example's branch frozen."""
import numpy as np
import pytest

import tinytorch as tt

from _oracle import torch  # noqa: E402  (PyTorch when a test reads it)


def _branchy(lib, condition):
    class Branchy(lib.nn.Module):
        def forward(self, x):
            if condition(x):
                return x * 2
            return x - 1
    return Branchy()


@pytest.mark.parametrize("condition", [lambda x: x.sum() > 0, lambda x: x.sum(), lambda x: (x > 5).any()],
                         ids=["compare", "truth", "any"])
def test_a_branch_on_the_data_is_refused_as_pytorch(condition):
    seen = []
    for lib in (tt, torch):
        x = lib.tensor(np.array([1.0, 2.0, 3.0], dtype=np.float32))
        with pytest.raises(RuntimeError) as info:
            lib.export.export(_branchy(lib, condition), (x,))
        seen.append(info)
    ours, theirs = seen
    assert type(ours.value).__name__ == type(theirs.value).__name__ == "GuardOnDataDependentSymNode"
    assert type(ours.value).__module__.replace("tinytorch", "torch") == type(theirs.value).__module__
    head = "Could not guard on data-dependent expression Eq(u0, 1) (unhinted: Eq(u0, 1)).  (Size-like symbols: none)"
    assert str(ours.value).startswith(head) and str(theirs.value).startswith(head)
    assert "if condition(x):" in str(ours.value) and "if condition(x):" in str(theirs.value)


def test_a_value_read_is_refused_not_frozen():
    """``x.sum().item()`` is an unbacked symbol in PyTorch's export; tinytorch has none, and refuses rather than
    freeze the example's value into the graph (PyTorch's exported program follows the input: so must ours)."""
    class Scaled(tt.nn.Module):
        def forward(self, x):
            return x * x.sum().item()
    with pytest.raises(NotImplementedError, match="value read into Python"):
        tt.export.export(Scaled(), (tt.ones(3),))


def test_branches_on_sizes_still_export():
    class Sized(tt.nn.Module):
        def forward(self, x):
            return x * 2 if x.shape[0] > 2 else x - 1
    x = tt.ones(3)
    assert tt.equal(tt.export.export(Sized(), (x,)).module()(x), x * 2)
