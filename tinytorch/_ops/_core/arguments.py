"""What PyTorch's Python argument parser accepts beyond an op's own parameter names, applied to a call of a
public function (``torch.X``) that its implementation refused with a TypeError.

PyTorch's parser (``python_arg_parser.cpp``) takes numpy's spellings of four parameters (``axis`` for
``dim``, ``keepdims`` for ``keepdim``, ``x``/``a``/``x1`` for ``input``, ``x2`` for ``other``), a list
parameter by its name (``zeros(size=(2, 3))``, ``permute(t, dims=(1, 0))``) and the tensor options every
factory has (``layout=``, ``pin_memory=``). Here the implementations name only their own parameters, and the
public function asks ``respell`` for the call in their names only when the implementation refused it: that
happens before the implementation runs, so the call can be made again, and the common call pays nothing.
``respell`` also gives an argument-type error (``to_np``'s "argument 'dtype' must be torch.dtype, not str")
PyTorch's ``name(): `` prefix: the outermost public function's name, as PyTorch's parser sees only that call."""
from __future__ import annotations

import functools
import inspect

_NUMPY_NAMES = {"axis": "dim", "keepdims": "keepdim", "x": "input", "a": "input", "x1": "input", "x2": "other"}
_FACTORY_OPTIONS = frozenset({"layout", "pin_memory"})


def strided_only(layout, pin_memory) -> None:
    """Factories take PyTorch's ``layout=`` and ``pin_memory=``: tinytorch makes strided tensors on the CPU."""
    if layout is not None and getattr(layout, "_name", "strided") != "strided":
        raise NotImplementedError(f"tinytorch has no sparse tensors: layout={layout!r} is not supported")
    if pin_memory:
        raise RuntimeError("pin_memory=True requires a CUDA or other accelerator backend; no pinned memory allocator "
                           "is available on this system.")


@functools.lru_cache(maxsize=None)
def signature(fn):
    """``inspect.signature(fn)``, once per function (None for one Python cannot read): how the recorders that
    name a call's arguments (the profiler's input shapes, the graph capture's ATen arguments) bind them."""
    try:
        return inspect.signature(fn)
    except (TypeError, ValueError):
        return None


def _parameters(impl) -> tuple | None:
    """(names taken by keyword, the ``*name`` parameter or None, the positional parameters' names before it,
    whether the implementation takes ``device=``, its names for PyTorch's ``input`` and ``other``); None when it
    takes ``**kwargs`` (it names no set)."""
    try:
        params = inspect.signature(inspect.unwrap(impl)).parameters.values()
    except (TypeError, ValueError):
        return None
    named, star, positional = set(), None, []
    for p in params:
        if p.kind is p.VAR_KEYWORD:
            return None
        if p.kind is p.VAR_POSITIONAL:
            star = p.name
        else:
            named.add(p.name)
            if star is None and p.kind is not p.KEYWORD_ONLY:
                positional.append(p.name)
    # PyTorch's input and other, where the implementation names its first two parameters otherwise (add's a, b)
    own = {"input": positional[0] if positional else None, "other": positional[1] if len(positional) > 1 else None}
    own = {k: (k if k in named else v) for k, v in own.items()}
    return frozenset(named), star, tuple(positional), "device" in named, own


_CACHE: dict = {}


def respell(decl, args: tuple, kwargs: dict, error: TypeError):
    """``(args, kwargs)`` in the implementation's own names when PyTorch's parser would have taken the call,
    or None when nothing here applies (the caller re-raises ``error``). An argument-type error is raised again
    with PyTorch's ``name(): `` prefix."""
    bare = getattr(error, "argument_error", None)
    if bare is not None:
        named = TypeError(f"{decl.name}(): {bare}")
        named.argument_error = bare  # an enclosing public function names itself instead
        raise named from None
    if not kwargs or decl.namespace == "":  # nn.functional's ops are Python functions in PyTorch too
        return None
    found = _CACHE.get(decl)
    if found is None:
        found = _CACHE[decl] = _parameters(decl.impl) or ()
    if not found:
        return None
    named, star, positional, factory, own = found
    args, kwargs, changed = list(args), dict(kwargs), False
    given = positional[:len(args)]  # a parameter given by position takes no spelling of it (sum(x, 0, axis=0))
    for key in [k for k in kwargs if k not in named]:
        target = own.get(key) or own.get(_NUMPY_NAMES.get(key)) or _NUMPY_NAMES.get(key)
        if target in named and target not in kwargs and target not in given:
            kwargs[target] = kwargs.pop(key)
        elif key == star and len(args) == len(positional):
            value = kwargs.pop(key)
            args.append(tuple(value) if isinstance(value, list) else value)
        elif key in _FACTORY_OPTIONS and factory:
            value = kwargs.pop(key)
            strided_only(value if key == "layout" else None, value if key == "pin_memory" else False)
        else:
            return None
        changed = True
    return (tuple(args), kwargs) if changed else None
