"""torch.serialization.get_unsafe_globals_in_checkpoint (the globals a weights-only load would refuse, read
statically) and torch.load of what is no file object (bytes, a bytearray), as PyTorch."""
import collections
import functools
import io

import pytest

import tinytorch

from _oracle import torch  # noqa: E402  (PyTorch when a test reads it)


@pytest.fixture
def checkpoint(tmp_path):
    path = tmp_path / "mixed.pt"
    torch.save({"w": torch.ones(2), "order": collections.OrderedDict(a=1), "layer": torch.nn.Linear(2, 2),
                "fn": functools.partial}, path)
    return path


def test_unsafe_globals_of_a_pytorch_checkpoint(checkpoint):
    want = torch.serialization.get_unsafe_globals_in_checkpoint(checkpoint)
    assert sorted(tinytorch.serialization.get_unsafe_globals_in_checkpoint(checkpoint)) == sorted(want)
    assert sorted(tinytorch.serialization.get_unsafe_globals_in_checkpoint(str(checkpoint))) == sorted(want)
    with open(checkpoint, "rb") as f:
        assert sorted(tinytorch.serialization.get_unsafe_globals_in_checkpoint(f)) == sorted(want)


def test_safe_globals_are_left_out(checkpoint):
    with torch.serialization.safe_globals([torch.nn.Linear]):
        want = torch.serialization.get_unsafe_globals_in_checkpoint(checkpoint)
    with tinytorch.serialization.safe_globals([tinytorch.nn.Linear]):
        got = tinytorch.serialization.get_unsafe_globals_in_checkpoint(checkpoint)
    assert sorted(got) == sorted(want) == ["functools.partial"]


def test_weights_only_checkpoint_has_none():
    buf = io.BytesIO()
    torch.save({"w": torch.ones(2), "n": 3}, buf)
    buf.seek(0)
    assert tinytorch.serialization.get_unsafe_globals_in_checkpoint(buf) == []
    assert "get_unsafe_globals_in_checkpoint" in tinytorch.serialization.__all__


def test_unsafe_globals_of_no_checkpoint():
    with pytest.raises(ValueError) as want:
        torch.serialization.get_unsafe_globals_in_checkpoint(io.BytesIO(b"hello"))
    with pytest.raises(ValueError) as got:
        tinytorch.serialization.get_unsafe_globals_in_checkpoint(io.BytesIO(b"hello"))
    assert str(got.value) == str(want.value)


class _ReadOnly:
    """A stream that can only be read (no seek, no tell)."""

    def __init__(self, data):
        self._inner = io.BytesIO(data)

    def read(self, n=-1):
        return self._inner.read(n)


@pytest.mark.parametrize("kind", [bytes, bytearray, memoryview, lambda data: 5, _ReadOnly])
def test_load_of_what_is_no_file(kind):
    buf = io.BytesIO()
    torch.save({"w": torch.ones(2)}, buf)
    with pytest.raises(AttributeError) as want:
        torch.load(kind(buf.getvalue()))
    with pytest.raises(AttributeError) as got:
        tinytorch.load(kind(buf.getvalue()))
    assert str(got.value) == str(want.value)
