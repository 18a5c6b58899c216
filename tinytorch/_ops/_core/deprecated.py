"""PyTorch's deprecated ``(Number, Tensor)`` overloads, still met in published code: ``t.add_(2, other)``
(``t += 2 * other``), ``torch.addcmul(t, 0.5, a, b)``, ``m.addmm(beta, alpha, mat1, mat2)``, ...

PyTorch's argument parser keeps them as signatures of their own, and the first call of any of them in a
process warns once (``TORCH_WARN_ONCE``: one warning per process, whichever overload comes first). Each
op here takes its extra positional arguments as ``*legacy`` and, when there are any, hands the call to
``modern``, which reorders the arguments into the current signature and warns with PyTorch's text (the
spelling, ``add_``, ``add`` or ``torch.add``'s, named as PyTorch names it)."""
from __future__ import annotations

import numbers
import sys
import warnings

from ...tensor import Tensor

# an op's rows: spelling -> (deprecated signature, current signatures); "method" is Tensor.X, "inplace" Tensor.X_,
# "function" torch.X
_OUT_DTYPE = "{0}(Tensor input, Tensor {1}, Tensor {2}, torch.dtype out_dtype, *, Number beta = 1, Number alpha = 1, " \
             "Tensor out = None)"


def _scaled(name: str, a: str, b: str, out_dtype: bool = False) -> dict:
    """The table rows of an ``input + alpha * a @ b`` op (addmm, addmv, addr, addbmm, baddbmm)."""
    current = [f"{name}(Tensor input, Tensor {a}, Tensor {b}, *, Number beta = 1, Number alpha = 1, Tensor out = None)"]
    if out_dtype:
        current.append(_OUT_DTYPE.format(name, a, b))
    return {
        "method2": (f"{name}(Number beta, Tensor {a}, Tensor {b})",
                    [f"{name}(Tensor {a}, Tensor {b}, *, Number beta = 1, Number alpha = 1)"]),
        "method3": (f"{name}(Number beta, Number alpha, Tensor {a}, Tensor {b})",
                    [f"{name}(Tensor {a}, Tensor {b}, *, Number beta = 1, Number alpha = 1)"]),
        "inplace2": (f"{name}_(Number beta, Tensor {a}, Tensor {b})",
                     [f"{name}_(Tensor {a}, Tensor {b}, *, Number beta = 1, Number alpha = 1)"]),
        "inplace3": (f"{name}_(Number beta, Number alpha, Tensor {a}, Tensor {b})",
                     [f"{name}_(Tensor {a}, Tensor {b}, *, Number beta = 1, Number alpha = 1)"]),
        "function2": (f"{name}(Number beta, Tensor input, Tensor {a}, Tensor {b}, *, Tensor out = None)", current),
        "function3": (f"{name}(Number beta, Tensor input, Number alpha, Tensor {a}, Tensor {b}, *, Tensor out = None)",
                      current),
    }


def _alpha(name: str) -> dict:
    return {
        "method": (f"{name}(Number alpha, Tensor other)", [f"{name}(Tensor other, *, Number alpha = 1)"]),
        "inplace": (f"{name}_(Number alpha, Tensor other)", [f"{name}_(Tensor other, *, Number alpha = 1)"]),
        "function": (f"{name}(Tensor input, Number alpha, Tensor other, *, Tensor out = None)",
                     [f"{name}(Tensor input, Tensor other, *, Number alpha = 1, Tensor out = None)"]),
    }


def _value(name: str) -> dict:
    return {
        "method": (f"{name}(Number value, Tensor tensor1, Tensor tensor2)",
                   [f"{name}(Tensor tensor1, Tensor tensor2, *, Number value = 1)"]),
        "inplace": (f"{name}_(Number value, Tensor tensor1, Tensor tensor2)",
                    [f"{name}_(Tensor tensor1, Tensor tensor2, *, Number value = 1)"]),
        "function": (f"{name}(Tensor input, Number value, Tensor tensor1, Tensor tensor2, *, Tensor out = None)",
                     [f"{name}(Tensor input, Tensor tensor1, Tensor tensor2, *, Number value = 1, Tensor out = None)"]),
    }


_warned = [False]  # TORCH_WARN_ONCE: one warning per process, for whichever deprecated overload comes first


def _spelling() -> tuple:
    """("function" | "method" | "inplace", the user's frame as ``modern``'s stacklevel) for the op that
    called ``modern``: above ``modern`` are the op, then its caller (the public function ``torch.X``,
    ``apply_inplace`` under ``Tensor.X_``, or the user's code for ``Tensor.X``)."""
    frame = sys._getframe(3)
    level = 3
    while frame is not None and frame.f_globals.get("__name__", "").startswith("tinytorch."):
        code = frame.f_code
        if code.co_name == "public" and code.co_filename.endswith("registry.py"):
            return "function", level + 1
        if code.co_name == "apply_inplace":
            return "inplace", level + 2
        frame = frame.f_back
        level += 1
    return "method", level


def _bad(name: str, args: tuple, how: str):
    """PyTorch's error when the extra positional arguments match no deprecated overload either."""
    expected = 2 if name in ("add", "sub") else 3
    given = len(args)
    if how != "function":  # counted without self, as PyTorch's method parser counts
        expected, given = expected - 1, given - 1
    return TypeError(f"{name}{'_' if how == 'inplace' else ''}() takes {expected} positional argument"
                     f"{'s' if expected != 1 else ''} but {given} were given")


def _number(x) -> bool:
    return isinstance(x, numbers.Number) and not isinstance(x, Tensor)


def modern(name: str, args: tuple, kwargs: dict, operands: tuple = (), out_dtype: bool = False) -> tuple:
    """``(args, kwargs)`` of the current signature for a call of op ``name`` with the deprecated
    positional ``args`` (``kwargs``: the keywords it was given, ``out=`` aside); warns once per process.
    An ``input + alpha * a @ b`` op (addmm...) names its operands ``a`` and ``b`` (``operands``) and whether it
    has an ``out_dtype`` overload, which its warning shows."""
    how, level = _spelling()
    if name in ("add", "sub"):
        # method/inplace (self, alpha, other); function (input, alpha, other)
        if len(args) != 3 or not _number(args[1]) or not isinstance(args[2], Tensor) or kwargs:
            raise _bad(name, args, how)
        key, new = how, ((args[0], args[2]), {"alpha": args[1]})
    elif name in ("addcmul", "addcdiv"):
        if len(args) != 4 or not _number(args[1]) or kwargs:
            raise _bad(name, args, how)
        key, new = how, ((args[0], args[2], args[3]), {"value": args[1]})
    elif how == "function":
        # (beta, input, mat1, mat2) or (beta, input, alpha, mat1, mat2)
        if not _number(args[0]) or kwargs or len(args) not in (4, 5) or (len(args) == 5 and not _number(args[2])):
            raise _bad(name, args, how)
        if len(args) == 4:
            key, new = "function2", ((args[1], args[2], args[3]), {"beta": args[0]})
        else:
            key, new = "function3", ((args[1], args[3], args[4]), {"beta": args[0], "alpha": args[2]})
    else:
        # self, then (beta, mat1, mat2) or (beta, alpha, mat1, mat2)
        if not _number(args[1]) or kwargs or len(args) not in (4, 5) or (len(args) == 5 and not _number(args[2])):
            raise _bad(name, args, how)
        if len(args) == 4:
            key, new = how + "2", ((args[0], args[2], args[3]), {"beta": args[1]})
        else:
            key, new = how + "3", ((args[0], args[3], args[4]), {"beta": args[1], "alpha": args[2]})
    if not _warned[0]:
        _warned[0] = True
        rows = _alpha(name) if name in ("add", "sub") else _value(name) if name in ("addcmul", "addcdiv") else \
            _scaled(name, *operands, out_dtype=out_dtype)
        old, current = rows[key]
        warnings.warn(f"This overload of {old.split('(')[0]} is deprecated:\n\t{old}\nConsider using one of the "
                      "following signatures instead:\n\t" + "\n\t".join(current), UserWarning, stacklevel=level)
    return new
