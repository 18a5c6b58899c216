"""Run one snippet under PyTorch and under tinytorch and compare everything a user can see.

A snippet is a function of the library module (``lambda lib: ...``). Its outcome is what it returned
(tensors reduced to values, dtype, shape and autograd flags), or the exception type and message it
raised, plus every warning it emitted. "tinytorch." is spelt "torch." before comparing, and the
"(Triggered internally at ...)" suffix PyTorch appends to C++ warnings is dropped. This module holds
no tests; the test_autograd_* files import it."""

from __future__ import annotations

import warnings

import numpy as np

import tinytorch
from _messages import normalise  # noqa: F401  (the test_autograd_* files import it from here too)

# Both libraries give this warning once per process, so whether a snippet sees it depends on which tests
# ran before in the same worker; test_autograd_higher_order checks it on its own with the flags reset.
_ONCE_PER_PROCESS = ("Using backward() with create_graph=True will create a reference cycle",)


class TensorView:
    """What a user sees of a tensor: values, dtype, shape, and its autograd state."""

    def __init__(self, t):
        self.values = np.array(t.detach().tolist(), dtype=np.float64)
        self.dtype = str(t.dtype).replace("tinytorch.", "torch.")
        self.shape = tuple(t.shape)
        self.requires_grad = t.requires_grad
        self.is_leaf = t.is_leaf
        self.grad_fn = None if t.grad_fn is None else type(t.grad_fn).__name__

    def __eq__(self, other) -> bool:
        if not isinstance(other, TensorView):
            return NotImplemented
        meta = (self.dtype, self.shape, self.requires_grad, self.is_leaf, self.grad_fn)
        other_meta = (other.dtype, other.shape, other.requires_grad, other.is_leaf, other.grad_fn)
        return meta == other_meta and np.allclose(
            self.values, other.values, rtol=1e-5, atol=1e-6, equal_nan=True
        )

    def __repr__(self) -> str:
        return (
            f"TensorView({self.values.tolist()}, dtype={self.dtype}, shape={self.shape}, "
            f"requires_grad={self.requires_grad}, is_leaf={self.is_leaf}, grad_fn={self.grad_fn})"
        )


def view(value, lib):
    """``value`` with every tensor (of ``lib``) replaced by a comparable TensorView."""
    if isinstance(value, lib.Tensor):
        return TensorView(value)
    if isinstance(value, (list, tuple)):
        return type(value)(view(v, lib) for v in value)
    if isinstance(value, dict):
        return {k: view(v, lib) for k, v in value.items()}
    if isinstance(value, str):
        return normalise(value)
    if isinstance(value, float) and not np.isnan(value):
        return round(value, 5)
    return value


def observe(snippet, lib):
    """(outcome, warnings) of ``snippet(lib)``: ('returned', value) or ('raised', type, text)."""
    with warnings.catch_warnings(record=True) as caught:
        warnings.simplefilter("always")
        try:
            outcome = ("returned", view(snippet(lib), lib))
        except Exception as exc:  # the exception itself is what is being compared
            outcome = ("raised", type(exc).__name__, normalise(str(exc)))
    seen = [(w.category.__name__, normalise(str(w.message))) for w in caught
            if not str(w.message).startswith(_ONCE_PER_PROCESS)]
    return outcome, seen


def assert_same(snippet, torch):
    """``snippet`` behaves identically under PyTorch and tinytorch; returns tinytorch's outcome."""
    expected = observe(snippet, torch)
    got = observe(snippet, tinytorch)
    assert got == expected, f"\ntinytorch: {got}\npytorch:   {expected}"
    return got


def raises_same(snippet, torch):
    """Like ``assert_same``, and the snippet must raise (so the test cannot pass vacuously)."""
    got = assert_same(snippet, torch)
    assert got[0][0] == "raised", f"expected an exception, got {got}"
    return got[0][2]


def warns_same(snippet, torch):
    """Like ``assert_same``, and at least one warning must be emitted."""
    got = assert_same(snippet, torch)
    assert got[1], "expected a warning"
    return got[1]
