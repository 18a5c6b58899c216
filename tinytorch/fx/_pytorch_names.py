"""The names PyTorch's fx prints for the functions a graph calls, and how PyTorch's Python wrappers hand a call on.

A tinytorch graph holds tinytorch's own functions (``tinytorch.relu`` is a Python function of
``tinytorch._ops.nn.activation``), but ``print(gm.graph)``, ``gm.code`` and ``print_tabular()`` must read as
PyTorch's, where ``torch.relu`` is a C++ builtin named ``torch.relu``. So a tinytorch function is named by the
place tinytorch's namespaces (which mirror PyTorch's) hold it, looked up in the order that gives PyTorch's name
when one object has several places: ``torch.functional`` (what PyTorch writes in Python), ``torch``, the C++
submodule ``torch._C._nn``, ``torch.nn.functional``, then ``torch._C._linalg`` / ``_special`` / ``_fft``.
Everything else (``operator``, builtins, the user's functions) keeps its own module and name, with the package
``tinytorch`` read as ``torch``."""
from __future__ import annotations

import builtins
import functools
import inspect
from typing import NamedTuple

import tinytorch as _tinytorch

from .. import _C, functional as _torch_functional
from ..nn import functional as _F
from ..tensor import Tensor

__all__ = ["qualified_name", "function_name", "target_str", "is_from_torch", "torch_repr", "torch_str",
           "forwarded_call"]


class _Name(NamedTuple):
    module: str  # "torch", "torch.nn.functional", "torch._C._nn", ...
    name: str    # the function's __name__ in PyTorch
    kind: str    # what PyTorch's object is: "method" (a builtin of torch's C++ function table),
    #              "builtin" (a function of a C++ submodule) or "function" (written in Python)


# PyTorch's Python functions whose __name__ is not the name they are found by
_RENAMED = {("torch.nn.functional", "threshold"): "_threshold"}
# the functions that choose between two others by an argument (``return_indices``, ``return_inverse``): PyTorch
# makes each with ``boolean_dispatch``, so its object prints as that helper's inner function
_BOOLEAN_DISPATCH = frozenset({("torch.nn.functional", n) for n in (
    "adaptive_max_pool1d", "adaptive_max_pool2d", "adaptive_max_pool3d", "fractional_max_pool2d",
    "fractional_max_pool3d", "max_pool1d", "max_pool2d", "max_pool3d")}
    | {("torch.functional", n) for n in ("lu", "unique", "unique_consecutive")})
# PyTorch's wrappers that hand a call on otherwise than ``forwarded_call``'s rule: (the parameters passed by
# position, the ones passed by keyword); any other parameter is left out
_HANDOFF = {("torch.nn.functional", "l1_loss"): (("input", "target"), ("size_average", "reduce", "reduction")),
            ("torch.functional", "unravel_index"): (("indices",), ("shape",))}


def _functions(namespace) -> dict:
    return {n: f for n, f in vars(namespace).items()
            if callable(f) and not isinstance(f, type) and not n.startswith("__")}


@functools.cache
def _table() -> dict:
    """{tinytorch function: its _Name}, the first place found winning."""
    places = [(_torch_functional, "torch.functional", lambda f: "function"),
              (_tinytorch, "torch", lambda f: "method" if hasattr(f, "_decl") else "function"),
              (_C._nn, "torch._C._nn", lambda f: "builtin"),
              (_F, "torch.nn.functional", lambda f: "function"),
              (_C._linalg, "torch._C._linalg", lambda f: "builtin"),
              (_C._special, "torch._C._special", lambda f: "builtin"),
              (_C._fft, "torch._C._fft", lambda f: "builtin")]
    table: dict = {}
    for namespace, module, kind in places:
        names = getattr(namespace, "__all__", None) if namespace is _torch_functional else None
        for n, f in _functions(namespace).items():
            if names is not None and n not in names:
                continue
            try:
                table.setdefault(f, _Name(module, _RENAMED.get((module, n), n), kind(f)))
            except TypeError:  # an unhashable callable: never a graph's target
                pass
    return table


def _entry(fn) -> _Name | None:
    try:
        return _table().get(fn)
    except TypeError:
        return None


def _torch_module(module: str) -> str:
    """``tinytorch.fx._symbolic_trace`` -> ``torch.fx._symbolic_trace``: tinytorch's modules mirror PyTorch's."""
    if module == "tinytorch" or module.startswith("tinytorch."):
        return "torch" + module[len("tinytorch"):]
    return module


def qualified_name(fn) -> str:
    """The dotted name PyTorch's fx gives a callable (``torch.relu``, ``torch._C._nn.linear``, ``getattr``,
    ``_operator.add``, ``mymodule.my_function``)."""
    entry = _entry(fn)
    if entry is not None:
        return f"{entry.module}.{entry.name}"
    name = fn.__name__
    if getattr(builtins, name, None) is fn:
        return name
    if getattr(Tensor, name, None) is fn:
        return f"torch.Tensor.{name}"
    if name == "<lambda>":  # a lambda assigned to a module-level name is called by that name
        try:
            name = inspect.getsource(fn).split("=")[0].strip()
        except Exception as e:
            raise RuntimeError("Unable to represent lambda") from e
    module = _torch_module(fn.__module__).replace("torch._ops", "torch.ops")
    return f"{module}.{name}"


def function_name(fn) -> str:
    """PyTorch's ``fn.__name__`` (fx names a call's node after it: ``F.logsigmoid`` makes ``log_sigmoid``)."""
    entry = _entry(fn)
    return entry.name if entry is not None else fn.__name__


def target_str(target) -> str:
    """``str(target)`` as PyTorch's object prints (``print_tabular``'s target column)."""
    entry = _entry(target) if callable(target) else None
    if entry is None:
        return str(target)
    if entry.kind == "method":
        return f"<built-in method {entry.name} of type object at 0x{id(target):x}>"
    if entry.kind == "builtin":
        return f"<built-in function {entry.name}>"
    dispatched = (entry.module, entry.name) in _BOOLEAN_DISPATCH
    return f"<function {'boolean_dispatch.<locals>.fn' if dispatched else entry.name} at 0x{id(target):x}>"


def is_from_torch(obj) -> bool:
    """Whether generated code reaches ``obj`` through ``torch.`` (PyTorch's ``_is_from_torch``)."""
    if callable(obj) and _entry(obj) is not None:
        return True
    module = getattr(obj, "__module__", None)
    if not isinstance(module, str):
        return False
    module = _torch_module(module)
    return module.split(".")[0] == "torch" and not module.startswith(("torch._dynamo.", "torch._inductor."))


def torch_repr(obj) -> str:
    """``repr(obj)`` with tinytorch's own name read as ``torch`` (``tinytorch.float16`` -> ``torch.float16``)."""
    text = repr(obj)
    return "torch" + text[len("tinytorch"):] if text.startswith("tinytorch.") else text


def torch_str(obj) -> str:
    """``str(obj)`` of a node's ``args`` or ``kwargs`` (containers as Python prints them), with ``torch_repr``
    for what is inside (``(x, torch.float64)``)."""
    if isinstance(obj, tuple) and not hasattr(obj, "_fields"):
        inner = ", ".join(map(torch_str, obj))
        return f"({inner},)" if len(obj) == 1 else f"({inner})"
    if isinstance(obj, list):
        return "[" + ", ".join(map(torch_str, obj)) + "]"
    if isinstance(obj, dict):
        return "{" + ", ".join(f"{torch_str(k)}: {torch_str(v)}" for k, v in obj.items()) + "}"
    return torch_repr(obj)


def forwarded_call(fn, args: tuple, kwargs: dict) -> tuple[tuple, dict]:
    """The ``(args, kwargs)`` that PyTorch's own Python function ``fn`` hands to ``__torch_function__``.

    PyTorch's ``torch.nn.functional`` and ``torch.functional`` functions are Python wrappers that pass a call on
    as ``handle_torch_function(F.relu, (input,), input, inplace=inplace)``: the parameters without a default by
    position, every other one by keyword with its value or default, in the signature's order. So fx records
    ``F.relu(x)`` with ``kwargs = {inplace: False}``. PyTorch's C++ builtins (``torch.relu``, ``F.linear``) pass
    the call on as it was made."""
    entry = _entry(fn)
    if entry is None or entry.kind != "function" or entry.module not in ("torch.nn.functional", "torch.functional"):
        return args, kwargs
    signature = inspect.signature(fn)
    bound = signature.bind(*args, **kwargs)
    handoff = _HANDOFF.get((entry.module, entry.name))
    if handoff is not None:
        bound.apply_defaults()
        by_position, by_keyword = handoff
        return tuple(bound.arguments[n] for n in by_position), {n: bound.arguments[n] for n in by_keyword}
    positional, keywords = [], {}
    for p in signature.parameters.values():
        given = p.name in bound.arguments
        if p.kind is p.VAR_POSITIONAL:
            positional.extend(bound.arguments.get(p.name, ()))
        elif p.kind is p.VAR_KEYWORD:
            keywords.update(bound.arguments.get(p.name, {}))
        elif p.default is p.empty and p.kind is not p.KEYWORD_ONLY:
            positional.append(bound.arguments[p.name])
        else:
            keywords[p.name] = bound.arguments[p.name] if given else p.default
    return tuple(positional), keywords
