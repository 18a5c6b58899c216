"""``torch.return_types``: the classes of the named tuples ops return (``torch.return_types.max``, ``sort``,
``linalg_qr``, ...). Each is declared beside its op (``_ops/_core/return_types.py`` makes them); this module
only names them, so that they print and pickle by PyTorch's path."""
from __future__ import annotations

from ._ops._core.return_types import TYPES


def __getattr__(name: str):
    try:
        return TYPES[name]
    except KeyError:
        raise AttributeError(f"module {__name__!r} has no attribute {name!r}") from None


def __dir__():
    return sorted(TYPES)
