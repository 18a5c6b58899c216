"""``Size`` (a shape that prints as PyTorch's) and ``device`` (only the CPU exists)."""
from __future__ import annotations


class Size(tuple):
    """A tensor's shape: a tuple that prints as ``tinytorch.Size([2, 3])``."""

    def __repr__(self) -> str:
        return f"tinytorch.Size([{', '.join(str(d) for d in self)}])"

    __str__ = __repr__

    def numel(self) -> int:
        n = 1
        for d in self:
            n *= d
        return n

    def __getitem__(self, key):
        out = tuple.__getitem__(self, key)
        return Size(out) if isinstance(key, slice) else out

    def __add__(self, other):
        return Size(tuple.__add__(self, tuple(other)))

    def __radd__(self, other):
        return Size(tuple(other) + tuple(self))

    def __mul__(self, n):
        return Size(tuple.__mul__(self, n))

    __rmul__ = __mul__

    def __reduce__(self):
        return (Size, (tuple(self),))


class device:
    """Only the CPU exists; ``device("cpu")`` and the string "cpu" are accepted wherever PyTorch takes one."""

    __slots__ = ("type", "index")

    def __init__(self, type="cpu", index=None):
        if isinstance(type, device):
            type, index = type.type, type.index
        if type.split(":")[0] != "cpu":
            raise RuntimeError(f"tinytorch runs on the CPU only; got device {type!r}")
        self.type = "cpu"
        self.index = index

    def __repr__(self) -> str:
        return "device(type='cpu')"

    def __str__(self) -> str:
        return "cpu"

    def __eq__(self, other) -> bool:
        return isinstance(other, device) or other == "cpu"

    def __hash__(self) -> int:
        return hash("cpu")
