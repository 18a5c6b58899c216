"""PyTorch's symbolic sizes (``torch.SymInt``, ``SymFloat``, ``SymBool``) and the ``torch.sym_*`` helpers.
Sizes on tinytorch are always concrete Python numbers: the classes refuse to be made by users, and the helpers
compute on plain numbers, as PyTorch's do outside tracing.

One place makes them: ``torch.export`` gives a tensor's value read into Python (``x.sum().item()``) an unbacked
symbol (``u0`` for an integer, ``zuf0`` for a float), as PyTorch's export does. Such a value holds the example's
number (to run the program on) and its node in the graph being captured; arithmetic and comparisons with it
write ``operator`` nodes (``mul = item * 2``) through the capture's ``tracer``, and reading it as a Python
number or truth value (``int(n)``, ``if n > 0``), which would freeze the example's number, raises PyTorch's
``GuardOnDataDependentSymNode`` there (``tinytorch/export/_unbacked.py``)."""
from __future__ import annotations

import math
import operator

__all__ = ["SymInt", "SymFloat", "SymBool", "sym_int", "sym_float", "sym_max", "sym_min", "sym_not", "sym_ite",
           "sym_sqrt", "sym_sum"]


class _Symbolic:
    # set by _made: the example's number, the graph node, the printed expression and the capture's tracer
    __slots__ = ("_value", "node", "_expr", "_tracer")

    def __init__(self, node=None):
        raise NotImplementedError(f"tinytorch has no symbolic sizes: torch.{type(self).__name__} is never made "
                                  "(sizes are plain Python numbers)")

    @classmethod
    def _made(cls, value, node, expr: str, tracer):
        """A value of the graph being captured (only a capture makes one)."""
        out = object.__new__(cls)
        out._value, out.node, out._expr, out._tracer = value, node, expr, tracer
        return out

    def __repr__(self) -> str:
        return self._expr

    def _binary(self, fn, other, swap: bool = False):
        if not isinstance(other, (_Symbolic, int, float, bool)):
            return NotImplemented
        return self._tracer.binary(fn, (other, self) if swap else (self, other))

    # arithmetic and comparisons: a node of the graph (the capture's tracer writes it)
    def __add__(self, o): return self._binary(operator.add, o)
    def __radd__(self, o): return self._binary(operator.add, o, True)
    def __sub__(self, o): return self._binary(operator.sub, o)
    def __rsub__(self, o): return self._binary(operator.sub, o, True)
    def __mul__(self, o): return self._binary(operator.mul, o)
    def __rmul__(self, o): return self._binary(operator.mul, o, True)
    def __truediv__(self, o): return self._binary(operator.truediv, o)
    def __rtruediv__(self, o): return self._binary(operator.truediv, o, True)
    def __floordiv__(self, o): return self._binary(operator.floordiv, o)
    def __rfloordiv__(self, o): return self._binary(operator.floordiv, o, True)
    def __mod__(self, o): return self._binary(operator.mod, o)
    def __rmod__(self, o): return self._binary(operator.mod, o, True)
    def __pow__(self, o): return self._binary(operator.pow, o)
    def __rpow__(self, o): return self._binary(operator.pow, o, True)
    def __lt__(self, o): return self._binary(operator.lt, o)
    def __le__(self, o): return self._binary(operator.le, o)
    def __gt__(self, o): return self._binary(operator.gt, o)
    def __ge__(self, o): return self._binary(operator.ge, o)
    def __eq__(self, o): return self._binary(operator.eq, o)
    def __ne__(self, o): return self._binary(operator.ne, o)
    def __neg__(self): return self._tracer.unary(operator.neg, self)
    def __abs__(self): return self._tracer.unary(abs, self)

    def __hash__(self):  # its value is unknown: no dict key or set member
        return self._tracer.guard(self, "bool")

    # a Python number or truth value of it would freeze the example's: refused where the program asks
    def __bool__(self): return self._tracer.guard(self, "bool")
    def __int__(self): return self._tracer.guard(self, "int")
    def __index__(self): return self._tracer.guard(self, "int")
    def __float__(self): return self._tracer.guard(self, "float")
    def __round__(self, n=None): return self._tracer.guard(self, "int")
    def __trunc__(self): return self._tracer.guard(self, "int")


def concrete(value):
    """``value`` with every unbacked symbol in it (in lists, tuples, dicts, slices) replaced by the example's
    number: what an op runs on while the capture records the symbols."""
    if isinstance(value, _Symbolic):
        return value._value
    if isinstance(value, (list, tuple)) and has_symbols(value):
        if hasattr(value, "_fields"):  # a named tuple
            return type(value)(*(concrete(v) for v in value))
        return type(value)(concrete(v) for v in value)
    if type(value) is dict:
        return {k: concrete(v) for k, v in value.items()}
    if isinstance(value, slice):
        return slice(concrete(value.start), concrete(value.stop), concrete(value.step))
    return value


def has_symbols(value) -> bool:
    """Whether ``value`` holds an unbacked symbol (in lists, tuples, dicts, slices)."""
    if isinstance(value, _Symbolic):
        return True
    if isinstance(value, (list, tuple)):
        return any(has_symbols(v) for v in value)
    if type(value) is dict:
        return any(has_symbols(v) for v in value.values())
    if isinstance(value, slice):
        return has_symbols((value.start, value.stop, value.step))
    return False


class SymInt(_Symbolic):
    __slots__ = ()

    def __hash__(self):
        raise TypeError("unhashable type: non-nested SymInt")


class SymFloat(_Symbolic):
    __slots__ = ()


class SymBool(_Symbolic):
    __slots__ = ()


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
