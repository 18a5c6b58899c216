"""PyTorch's symbolic sizes (``torch.SymInt``, ``SymFloat``, ``SymBool``) and the ``torch.sym_*`` helpers.
Sizes on tinytorch are always concrete Python numbers: the classes exist for ``isinstance`` checks (no value is
ever one) and refuse to be made; the helpers compute on plain numbers, as PyTorch's do outside tracing."""
from __future__ import annotations

import math

__all__ = ["SymInt", "SymFloat", "SymBool", "sym_int", "sym_float", "sym_max", "sym_min", "sym_not", "sym_ite",
           "sym_sqrt", "sym_sum"]


class _Symbolic:
    def __init__(self, node=None):
        raise NotImplementedError(f"tinytorch has no symbolic sizes: torch.{type(self).__name__} is never made "
                                  "(sizes are plain Python numbers)")


class SymInt(_Symbolic):
    pass


class SymFloat(_Symbolic):
    pass


class SymBool(_Symbolic):
    pass


def sym_int(a) -> int:
    """``int(a)``, rounding toward zero."""
    return int(math.trunc(a)) if isinstance(a, float) else int(a)


def sym_float(a) -> float:
    return float(a)


def sym_max(a, b):
    """The larger, a float when either is one."""
    out = max(a, b)
    return float(out) if isinstance(a, float) or isinstance(b, float) else out


def sym_min(a, b):
    """The smaller, a float when either is one."""
    out = min(a, b)
    return float(out) if isinstance(a, float) or isinstance(b, float) else out


def sym_not(a) -> bool:
    return not a


def sym_ite(b, t, f):
    return t if b else f


def sym_sqrt(a) -> float:
    return math.sqrt(a)


def sym_sum(args):
    return sum(args)
