"""Side effects: what a compiled program does besides computing tensors, which a replay of its graph would skip.

The capture runs the program once; a later call that passes the guards replays only the recorded ops. So
whatever else the program does must happen at every call or the call must not be replayed. PyTorch's Dynamo
replays some of it (list mutation, attribute writes) after the graph and breaks the graph at the rest (``print``);
tinytorch breaks the graph at all of it, so such a call runs eagerly every time (``fullgraph=True``: PyTorch's
``Unsupported`` where it has one). Met while capturing:

  - ``print`` called by the user's code (``Watch``, which sees each call of a builtin through ``sys.setprofile``
    while the capture runs: nothing is watched at the replays);
  - a list, dict, set or deque mutated by the user's code through its methods (``append``, ``update``...) when it
    was reachable before the call (from the program's globals, closure, arguments or modules), so outlives it;
    a list the program makes and fills itself (``outs.append(y)``) is no side effect;
  - a Python value the program reads and writes (``counter += 1``, ``self.steps += 1``, ``cfg[k] = v``):
    ``python_reads.PythonReads`` finds it changed after the capture's run;
  - an op writing through ``out=`` (the recording keeps the value computed, not the write) or drawing from an
    explicit ``torch.Generator`` (its state belongs to no graph; PyTorch breaks there too): ``op_side_effect``."""
from __future__ import annotations

import ast
import builtins
import collections
import linecache
import sys

from .._random.engine import Generator
from ..fx.experimental._capture import PACKAGE
from ..tensor import Tensor
from .python_reads import attributes, library_module

__all__ = ["TEXTS", "Watch", "op_side_effect", "print_text"]

# PyTorch's Unsupported texts for these graph breaks (the lines after the first), where it has one
_LOGGING_HINT = ("  Hint: If you are attempting to call a logging function (e.g. `print`), you can try adding it to "
                 "`torch._dynamo.config.reorderable_logging_functions`.")
TEXTS = {
    # (where print's arguments are not all constants or names: PyTorch names their types, print_text below)
    "print": "  Explanation: Dynamo does not know how to trace builtin operator `print`.\n" + _LOGGING_HINT,
    "generator": ("  Explanation: Missing `as_proxy()` implementation for some arg/kwarg.\n\n\n"
                  "  Developer debug context: call_function args: a torch.Generator"),
}

_MUTATORS = {
    list: {"append", "extend", "insert", "pop", "remove", "clear", "sort", "reverse", "__setitem__",
           "__delitem__", "__iadd__", "__imul__"},
    dict: {"update", "pop", "popitem", "setdefault", "clear", "__setitem__", "__delitem__", "__ior__"},
    set: {"add", "discard", "remove", "pop", "clear", "update", "difference_update", "intersection_update",
          "symmetric_difference_update", "__ior__", "__iand__", "__isub__", "__ixor__"},
    collections.deque: {"append", "appendleft", "extend", "extendleft", "pop", "popleft", "clear", "rotate",
                        "remove", "insert", "__setitem__", "__delitem__", "__iadd__"},
}
_DEPTH = 4           # containers and objects followed from the program's names
_BUDGET = 100_000    # items looked at, at most


def op_side_effect(kwargs: dict) -> tuple | None:
    """(reason, kind) where an op call's arguments make it a side effect a graph cannot replay, else None."""
    if kwargs.get("out") is not None:
        return "an op writing through out=", "out"
    if isinstance(kwargs.get("generator"), Generator):
        return "Failed to convert args/kwargs to proxy", "generator"
    return None


class Watch:
    """``with Watch(capture, starts):`` while a capture runs: a ``print`` or a mutation of a container reachable
    from ``starts`` (the program's globals, closure values, arguments, modules), called from the user's code, is
    a graph break of ``capture``."""

    def __init__(self, capture, starts):
        self.capture, self.starts = capture, starts
        self.outside = None  # ids of the containers reachable from starts (found at the first mutation seen)

    def __enter__(self):
        self.previous = sys.getprofile()
        sys.setprofile(self._event)
        return self

    def __exit__(self, *exc):
        sys.setprofile(self.previous)
        return False

    def _event(self, frame, event, arg) -> None:
        if event != "c_call" or frame.f_code.co_filename.startswith(PACKAGE):
            return
        if arg is print:
            self.capture.graph_break("Failed to trace builtin operator", "print", text=print_text(frame))
            return
        owner = getattr(arg, "__self__", None)
        names = _MUTATORS.get(type(owner))
        if names is not None and arg.__name__ in names and id(owner) in self._outside():
            self.capture.graph_break(f"a side effect: {type(owner).__name__}.{arg.__name__} on a container the "
                                     "program did not make", "mutation")

    def _outside(self) -> set:
        if self.outside is None:
            self.outside = _containers(self.starts)
        return self.outside


_VARIABLE = {"Tensor": "tensor.TensorVariable"}  # dynamo's tracker class of an argument, by its type's name


def print_text(frame) -> str:
    """PyTorch's text for ``print(...)`` called at ``frame``'s current instruction: its positional arguments'
    types as Dynamo names them (read from the call's source: constants, f-strings and names, nothing evaluated),
    else the text without them."""
    arguments = _call_arguments(frame)
    if arguments is None:
        return TEXTS["print"]
    types, has_kwargs = arguments
    classes = ", ".join(f"<class 'torch._dynamo.variables.{_VARIABLE.get(t, 'constant.ConstantVariable')}'>"
                        for t in types)
    return (f"  Explanation: Dynamo does not know how to trace builtin operator `print` with argument types {types} "
            f"(has_kwargs {has_kwargs})\n"
            f"  Hint: Avoid calling builtin `print` with argument types {types}. Consider using an equivalent "
            "alternative function/method to `print`.\n" + _LOGGING_HINT + "\n"
            "  Hint: Please report an issue to PyTorch.\n\n"
            f"  Developer debug context: builtin print [{classes}] {has_kwargs}\n\n"
            " For more details about this graph break, please visit: "
            "https://meta-pytorch.github.io/compile-graph-break-site/gb/gb0059.html")


def _call_arguments(frame) -> tuple | None:
    """(the type names of the positional arguments, whether keywords were given) of the call ``frame`` is making,
    from its source; None where an argument is another expression (its type would need evaluating it)."""
    try:
        line, end, col, end_col = list(frame.f_code.co_positions())[frame.f_lasti // 2]
        lines = [linecache.getline(frame.f_code.co_filename, n).encode() for n in range(line, end + 1)]
        lines[-1] = lines[-1][:end_col]
        lines[0] = lines[0][col:]
        call = ast.parse(b"".join(lines).decode().strip(), mode="eval").body
    except (IndexError, TypeError, ValueError, SyntaxError):
        return None
    if not isinstance(call, ast.Call):
        return None
    missing = object()

    def named(name: str):
        return frame.f_locals.get(name, frame.f_globals.get(name, vars(builtins).get(name, missing)))
    types = []
    for a in call.args:
        if isinstance(a, ast.Constant):
            value = a.value
        elif isinstance(a, ast.JoinedStr):
            value = ""
        elif isinstance(a, ast.Name):
            value = named(a.id)
        elif (isinstance(a, ast.Subscript) and isinstance(a.value, ast.Attribute) and a.value.attr == "shape"
              and isinstance(a.value.value, ast.Name) and isinstance(named(a.value.value.id), Tensor)):
            value = 0  # a tensor's size (x.shape[0]): an int
        else:
            return None
        if value is missing:
            return None
        if isinstance(value, Tensor):
            types.append("Tensor")
        elif value is None or type(value) in (str, int, float, bool):
            types.append(type(value).__name__)
        else:
            return None
    return types, bool(call.keywords)


def _containers(starts) -> set:
    """The ids of the lists, dicts, sets and deques reachable from ``starts``, through containers and the
    attributes of objects, a few levels down."""
    found: set = set()
    seen: set = set()
    budget = [_BUDGET]
    todo = [(value, _DEPTH) for value in starts]
    while todo and budget[0] > 0:
        value, depth = todo.pop()
        budget[0] -= 1
        if id(value) in seen or depth < 0:
            continue
        seen.add(id(value))
        kind = type(value)
        if kind in _MUTATORS:
            found.add(id(value))
        if kind in (list, tuple, set, frozenset, collections.deque):
            todo += [(v, depth - 1) for v in value]
        elif kind is dict:
            todo += [(v, depth - 1) for v in value.values()]
        elif not isinstance(value, type) and not callable(value) and not library_module(value):
            attrs = attributes(value)
            if attrs is not None:
                todo += [(v, depth - 1) for v in list(attrs.values())]
    return found
