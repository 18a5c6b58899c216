"""A scalar that writes down how it is computed: fused kernels' code read off the ops' declared formulas.

An op whose elementwise formula is exact IEEE arithmetic declares it once, as a function of one element
(``op(scalar=operator.mul)``, tanh's derivative ``lambda g, x, y: g * (1 - y * y)``). Called on ``Expr`` operands
instead of numbers, the same function returns the Python expression that computes it::

    >>> g, y = Expr("x0", np.dtype(np.float32), names), Expr("x1", np.dtype(np.float32), names)
    >>> str(g * (1 - y * y))
    'x0 * (one - x1 * x1)'

Every step of the formula becomes the same step of the expression, in the same order (parentheses wherever
Python would otherwise group the steps another way: ``a - (b - c)``, ``(a + b) * c``), so each rounds where the
formula rounds. Numbers become constants of the dtype (``one``, ``zero``, or one that ``names`` casts), as the ops
cast a Python number before the arithmetic. numpy's functions reach the class through numpy's protocols:
``np.sqrt(x)`` is written ``np.sqrt(x)``, ``np.where(c, a, b)`` ``a if c else b``, ``np.ones_like(x)`` ``one``.
Anything else (``np.exp``, a Python ``if`` on a value) is refused with a TypeError: no line is written for it."""
from __future__ import annotations

import numpy as np

__all__ = ["Expr"]

# how tightly each form binds, as Python parses it: an operand that binds less tightly is put in parentheses
_IF, _COMPARE, _SUM, _PRODUCT, _SIGN, _ATOM = range(6)
_BINARY = {"+": _SUM, "-": _SUM, "*": _PRODUCT, "/": _PRODUCT,
           "<": _COMPARE, "<=": _COMPARE, ">": _COMPARE, ">=": _COMPARE, "==": _COMPARE, "!=": _COMPARE}
_UFUNCS = {np.add: "+", np.subtract: "-", np.multiply: "*", np.true_divide: "/", np.less: "<",
           np.less_equal: "<=", np.greater: ">", np.greater_equal: ">=", np.equal: "==", np.not_equal: "!="}


class Expr:
    """One element of a tensor of ``dtype`` (a numpy dtype), as the source ``text`` that computes it. ``names``
    turns a number of the formula into the name of the dtype's constant holding it (``one``, ``c0``)."""

    __slots__ = ("text", "dtype", "names", "binds")
    __hash__ = None  # (== writes a comparison)

    def __init__(self, text: str, dtype, names, binds: int = _ATOM):
        self.text, self.dtype, self.names, self.binds = text, dtype, names, binds

    def __str__(self) -> str:
        return self.text

    __repr__ = __str__

    def _of(self, value) -> Expr:
        """``value`` as an operand: an Expr, or a number made a constant of the dtype."""
        if isinstance(value, Expr):
            return value
        if isinstance(value, (int, float, np.integer, np.floating)) and not isinstance(value, (bool, np.bool_)):
            return Expr(self.names(value), self.dtype, self.names)
        raise TypeError(f"a fused line cannot hold {value!r} ({type(value).__name__})")

    def _write(self, op: str, left, right) -> Expr:
        left, right = self._of(left), self._of(right)
        binds = _BINARY[op]
        # left-to-right grouping: the right operand in parentheses at the same level too (a - (b - c))
        lt = left.text if left.binds >= binds else f"({left.text})"
        rt = right.text if right.binds > binds else f"({right.text})"
        if binds == _COMPARE and left.binds == _COMPARE:
            lt = f"({left.text})"  # (Python would chain a < b < c)
        return Expr(f"{lt} {op} {rt}", self.dtype, self.names, binds)

    def __add__(self, other): return self._write("+", self, other)
    def __radd__(self, other): return self._write("+", other, self)
    def __sub__(self, other): return self._write("-", self, other)
    def __rsub__(self, other): return self._write("-", other, self)
    def __mul__(self, other): return self._write("*", self, other)
    def __rmul__(self, other): return self._write("*", other, self)
    def __truediv__(self, other): return self._write("/", self, other)
    def __rtruediv__(self, other): return self._write("/", other, self)
    def __lt__(self, other): return self._write("<", self, other)
    def __le__(self, other): return self._write("<=", self, other)
    def __gt__(self, other): return self._write(">", self, other)
    def __ge__(self, other): return self._write(">=", self, other)
    def __eq__(self, other): return self._write("==", self, other)
    def __ne__(self, other): return self._write("!=", self, other)

    def __neg__(self) -> Expr:
        text = self.text if self.binds >= _SIGN else f"({self.text})"
        return Expr(f"-{text}", self.dtype, self.names, _SIGN)

    def __abs__(self) -> Expr:
        return Expr(f"abs({self.text})", self.dtype, self.names)

    def __bool__(self):
        raise TypeError("a fused line's value has no truth value: a formula branches with np.where, not if")

    def __array_ufunc__(self, ufunc, method, *inputs, **kwargs):
        if method != "__call__" or kwargs:
            return NotImplemented
        if ufunc in _UFUNCS and len(inputs) == 2:
            return self._write(_UFUNCS[ufunc], *inputs)
        if ufunc is np.negative:
            return -self._of(inputs[0])
        if ufunc is np.absolute:
            return abs(self._of(inputs[0]))
        if ufunc is np.sqrt:  # (correctly rounded, in numpy and in numba)
            return Expr(f"np.sqrt({self._of(inputs[0]).text})", self.dtype, self.names)
        return NotImplemented

    def __array_function__(self, func, types, args, kwargs):
        if kwargs:
            return NotImplemented
        if func is np.where and len(args) == 3 and isinstance(args[0], Expr):
            cond, a, b = self._of(args[0]), self._of(args[1]), self._of(args[2])
            a_text = a.text if a.binds > _IF else f"({a.text})"
            b_text = b.text if b.binds >= _IF else f"({b.text})"
            c_text = cond.text if cond.binds > _IF else f"({cond.text})"
            return Expr(f"{a_text} if {c_text} else {b_text}", self.dtype, self.names, _IF)
        if func is np.ones_like and len(args) == 1:
            return self._of(1)
        if func is np.copy and len(args) == 1:
            return self._of(args[0])
        return NotImplemented
