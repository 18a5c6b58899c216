"""``tinytorch.nn.modules.utils`` (PyTorch's ``torch.nn.modules.utils``): ``_single``/``_pair``/``_triple``/
``_quadruple``, which repeat a scalar into a tuple and pass an iterable through as a tuple."""
from __future__ import annotations

import collections.abc
from itertools import repeat

__all__ = ["_single", "_pair", "_triple", "_quadruple", "_ntuple", "_reverse_repeat_tuple", "_list_with_default"]


def _ntuple(n, name: str = "parse"):
    def parse(x):
        if isinstance(x, collections.abc.Iterable):
            return tuple(x)
        return tuple(repeat(x, n))

    parse.__name__ = name
    return parse


_single = _ntuple(1, "_single")
_pair = _ntuple(2, "_pair")
_triple = _ntuple(3, "_triple")
_quadruple = _ntuple(4, "_quadruple")


def _reverse_repeat_tuple(t, n):
    """``(1, 2)`` repeated ``n`` times each, in reverse: F.pad's padding from a conv's."""
    return tuple(x for x in reversed(t) for _ in range(n))


def _list_with_default(out_size, defaults):
    import numbers

    if isinstance(out_size, (int, numbers.Integral)):
        return out_size
    if len(defaults) <= len(out_size):
        raise ValueError(f"Input dimension should be at least {len(out_size) + 1}")
    return [v if v is not None else d for v, d in zip(out_size, defaults[-len(out_size):])]
