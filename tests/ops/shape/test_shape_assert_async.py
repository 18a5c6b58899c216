"""``torch._assert_async`` (kornia's ColorJiggle calls it) against PyTorch: silent on a nonzero one-element tensor,
PyTorch's errors for zero, for more or fewer elements and for arguments of the wrong type."""
import pytest

import tinytorch

INPUTS = [
    ("tensor", True), ("tensor", 1), ("tensor", [1.0]), ("tensor", 0.5), ("tensor", float("nan")), ("tensor", 1j),
    ("tensor", False), ("tensor", 0), ("tensor", 0.0), ("tensor", [[0]]), ("tensor", 0j), ("tensor", []),
    ("tensor", [1, 1]), ("bare", True),
]


def _call(lib, kind, value, *msg):
    arg = lib.tensor(value) if kind == "tensor" else value
    try:
        return ("returned", lib._assert_async(arg, *msg))
    except Exception as e:  # noqa: BLE001 - the error is what is compared
        return type(e).__name__, str(e)


@pytest.mark.parametrize("kind, value", INPUTS)
@pytest.mark.parametrize("msg", [(), ("the check's own words",)])
def test_assert_async_matches_pytorch(kind, value, msg):
    torch = pytest.importorskip("torch")
    assert _call(tinytorch, kind, value, *msg) == _call(torch, kind, value, *msg)


def test_assert_async_message_must_be_a_string():
    torch = pytest.importorskip("torch")
    assert _call(tinytorch, "tensor", 0, 3) == _call(torch, "tensor", 0, 3)
