"""What PyTorch's Python argument parser accepts beyond an op's own parameter names, applied to a call of a
public function (``torch.X``) that its implementation refused with a TypeError, and to a call of a method
(``x.sum(axis=1)``: ``parsed_method`` below).

PyTorch's parser (``python_arg_parser.cpp``) takes numpy's spellings of four parameters (``axis`` for
``dim``, ``keepdims`` for ``keepdim``, ``x``/``a``/``x1`` for ``input``, ``x2`` for ``other``), a list
parameter by its name (``zeros(size=(2, 3))``, ``permute(t, dims=(1, 0))``) and the tensor options every
factory has (``layout=``, ``pin_memory=``). Here the implementations name only their own parameters, and the
public function asks ``respell`` for the call in their names only when the implementation refused it: that
happens before the implementation runs, so the call can be made again, and the common call pays nothing.
``respell`` also gives an argument-type error (``to_np``'s "argument 'dtype' must be torch.dtype, not str")
PyTorch's ``name(): `` prefix: the outermost public function's name, as PyTorch's parser sees only that call."""
from __future__ import annotations

import builtins
import functools
import inspect
import threading
import types

_NUMPY_NAMES = {"axis": "dim", "keepdims": "keepdim", "x": "input", "a": "input", "x1": "input", "x2": "other"}
_FACTORY_OPTIONS = frozenset({"layout", "pin_memory"})


def strided_only(layout, pin_memory) -> None:
    """Factories take PyTorch's ``layout=`` and ``pin_memory=``: tinytorch makes strided tensors on the CPU."""
    if layout is not None and getattr(layout, "name", "strided") != "strided":
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


@functools.lru_cache(maxsize=None)
def _parameters(impl) -> tuple | None:
    """(names taken by keyword, the ``*name`` parameter or None, the positional parameters' names before it,
    whether the implementation takes ``device=``, its names for PyTorch's ``input`` and ``other``); None when it
    takes ``**kwargs`` (it names no set), or Python cannot read its signature."""
    fn = inspect.unwrap(impl)
    code = getattr(fn, "__code__", None)
    if code is not None and not hasattr(fn, "__signature__"):  # read off the code: inspect.signature costs ~40 us
        if code.co_flags & inspect.CO_VARKEYWORDS:
            return None
        n, k = code.co_argcount, code.co_kwonlyargcount
        positional = list(code.co_varnames[:n])
        named = set(code.co_varnames[:n + k])
        star = code.co_varnames[n + k] if code.co_flags & inspect.CO_VARARGS else None
    else:
        try:
            params = inspect.signature(fn).parameters.values()
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
    # PyTorch's input and other, where the implementation names its first two parameters with a letter (add's a, b)
    own = {"input": positional[0] if positional else None,
           "other": positional[1] if len(positional) > 1 and len(positional[1]) == 1 else None}
    own = {k: (k if k in named else v) for k, v in own.items()}
    return frozenset(named), star, tuple(positional), "device" in named, own


def _placed(found: tuple, args: tuple, kwargs: dict):
    """``(args, kwargs)`` with each keyword the implementation does not name moved where PyTorch's parser would
    take it, and the first keyword that goes nowhere (None when every one found its place)."""
    named, star, positional, factory, own = found
    args, kwargs = list(args), dict(kwargs)
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
            return tuple(args), kwargs, key
    return tuple(args), kwargs, None


def named_argument_error(error: TypeError, name: str) -> TypeError:
    """``error`` with PyTorch's ``name(): `` prefix where it is an argument-type error (``to_np``'s "argument
    'dtype' must be torch.dtype, not str"), else ``error`` itself."""
    bare = getattr(error, "argument_error", None)
    if bare is None:
        return error
    named = TypeError(f"{name}(): {bare}")
    named.argument_error = bare  # an enclosing public function names itself instead
    return named


def respell(decl, args: tuple, kwargs: dict, error: TypeError):
    """``(args, kwargs)`` in the implementation's own names when PyTorch's parser would have taken the call,
    or None when nothing here applies (the caller re-raises ``error``). An argument-type error is raised again
    with PyTorch's ``name(): `` prefix."""
    named = named_argument_error(error, decl.name)
    if named is not error:
        raise named from None
    if callable(decl.python_function) and error.__traceback__ is not None and error.__traceback__.tb_next is None:
        # Python refused the call before the implementation ran (no frame of it in the traceback): its words, under
        # the name of the function PyTorch's boolean_dispatch picks for these arguments
        own = f"{decl.impl.__qualname__}()"
        text = str(error)
        if text.startswith(own):
            raise TypeError(f"{decl.python_function(args, kwargs)}(){text[len(own):]}") from None
    # nn.functional's ops are Python functions in PyTorch too, and so are a few torch.X (``python_function``):
    # no parser reads their keywords (torch.norm(x, axis=1) is refused)
    if not kwargs or decl.namespace == "" or decl.python_function:
        return None
    found = _parameters(decl.impl)
    if found is None or all(k in found[0] for k in kwargs):
        return None
    args, kwargs, refused = _placed(found, args, kwargs)
    return (args, kwargs) if refused is None else None


# -- methods ---------------------------------------------------------------------------------------
# PyTorch's parser reads a method's arguments as it reads the function's (``x.sum(axis=1)``,
# ``x.mean(0, keepdims=True)``), but ``Tensor.X`` is the implementation itself, called with nothing between: a
# call Python refuses never reaches any code of ours, and no try/except can see it. So a method with a ``dim`` or
# ``keepdim`` parameter is a function made from the implementation's signature (its own parameters and defaults)
# plus ``**spellings``: given none, it calls the implementation as it was called (one more plain call, which
# Python inlines: ~60 ns measured); given some, it places them as the function path does (``_placing``). Every
# other method stays the implementation itself, under the name PyTorch's errors give it (``_respellable`` says why).
#
# A made method is written on its first call, not at import: compiling ~100 of them from their text costs
# ``import tinytorch`` ~0.1 s, half its budget, for methods most programs never call with a numpy spelling.
# Until then the function on Tensor runs ``_first_call``'s code, which writes the method's own code into that
# same function object (``written``) and calls it. So Tensor holds one plain function per method from the start
# (the modes that swap methods, the meta device, the stub find it in ``vars(Tensor)`` and compare it by
# identity), with its name, docstring and ``__wrapped__`` (``inspect.signature`` shows the implementation's
# parameters), and every call after the first runs the written code with nothing in between.


class _Unset:
    """The default a generated method gives a required parameter, so that a call leaving it out reaches
    ``_placing`` (a spelling may name it: ``x.unsqueeze(axis=0)``)."""
    __slots__ = ()

    def __repr__(self):
        return "<required>"


_UNSET = _Unset()
_METHODS: dict = {}  # (function, name) -> its method
_WRITING = threading.Lock()


def parsed_method(fn, name: str):
    """``Tensor.<name>`` calling ``fn(self, ...)``, as PyTorch's parser reads a method's arguments: with numpy's
    spellings of ``dim``/``keepdim`` taken, and its errors naming it ``name()``; written on its first call. ``fn``
    itself (under that name) where it has neither parameter, or it takes ``**kwargs`` (it reads every keyword
    itself); named ``Tensor.<name>`` where it takes nothing beyond ``self`` (PyTorch: "Tensor.abs() takes no
    keyword arguments")."""
    made = _METHODS.get((fn, name))
    if made is None:
        found = _parameters(fn)
        if found is not None and _respellable(found):
            made = _unwritten(fn, name)
        elif found is not None and found[1] is None and len(found[0]) <= 1:
            made = renamed(fn, f"Tensor.{name}")
        else:
            made = renamed(fn, name)
        _METHODS[(fn, name)] = made
    return made


def _respellable(found: tuple) -> bool:
    """Whether a method with these parameters gets a function around its implementation: where it has ``dim`` or
    ``keepdim``, whose numpy spellings ``axis``/``keepdims`` the textbooks use. The other spellings PyTorch's
    parser takes in a method are left out, as each would cost a call more on the methods models call most:
    ``x2`` and ``other`` where the implementation names it with a letter (``x.add(x2=y)``, ``x.mul(other=y)``:
    add, mul, sub, div run bare), and a list parameter by its name (``x.reshape(shape=(3, 2))``: spreading
    ``*shape`` again costs ~0.1-0.25 us a call; ``torch.reshape(x, shape=...)`` takes it). Numpy's spellings of
    ``input`` would name ``self`` in a method: PyTorch refuses them too."""
    return "dim" in found[0] or "keepdim" in found[0]


def _first_call(self, *args, **kwargs):
    """The code of a made method until its first call (``_unwritten``): write the method's own, then run it."""
    return write__(method__)(self, *args, **kwargs)  # noqa: F821 (the method's own globals: _unwritten)


def _unwritten(fn, name: str):
    """The function ``Tensor.<name>`` will be for good, running ``_first_call``'s code until its first call: its
    globals hold what ``written`` needs to write its code."""
    scope = {"__builtins__": builtins, "write__": written, "fn__": fn, "name__": name}
    method = scope["method__"] = types.FunctionType(_first_call.__code__, scope, name)
    method.__doc__, method.__module__, method.__qualname__ = fn.__doc__, fn.__module__, name
    method.__wrapped__ = fn  # (inspect.signature shows the implementation's parameters)
    method._spelling_of = getattr(fn, "_spelling_of", fn)
    return method


def written(method):
    """``method`` (made by ``parsed_method``) with its own code written in place of ``_first_call``'s, once."""
    with _WRITING:
        if method.__code__ is _first_call.__code__:
            scope = method.__globals__
            fn = scope["fn__"]
            made = _generate(fn, scope["name__"], list(signature(inspect.unwrap(fn)).parameters.values())[1:], scope)
            method.__defaults__, method.__kwdefaults__ = made.__defaults__, made.__kwdefaults__
            method.__code__ = made.__code__  # (last: a call meanwhile still runs _first_call, which waits here)
    return method


def renamed(fn, qualname: str):
    """``fn`` as a function object of its own whose ``__qualname__`` (the name Python's argument errors give it) is
    ``qualname``; ``fn`` itself where it has that name or is no plain function."""
    if not isinstance(fn, types.FunctionType) or fn.__qualname__ == qualname:
        return fn
    copy = types.FunctionType(fn.__code__, fn.__globals__, fn.__name__, fn.__defaults__, fn.__closure__)
    copy.__kwdefaults__ = fn.__kwdefaults__
    copy.__dict__.update(fn.__dict__)
    copy.__doc__, copy.__module__, copy.__qualname__ = fn.__doc__, fn.__module__, qualname
    copy.__wrapped__ = fn
    copy._spelling_of = getattr(fn, "_spelling_of", fn)
    return copy


def _generate(fn, name: str, params: list, scope: dict):
    """The method, made from ``fn``'s signature in the globals ``scope``: ``def name(self, <fn's parameters>,
    **spellings)``, which calls ``fn`` as it was called, or hands a call with other spellings (or a required
    argument left out) to ``_placing``."""
    heads, positional, kwonly, required, star = ["self"], [], [], [], None
    last_positional_only = max((i for i, p in enumerate(params) if p.kind is p.POSITIONAL_ONLY), default=None)
    for i, p in enumerate(params):
        if p.kind is p.VAR_POSITIONAL:
            star = p.name
            heads.append("*" + p.name)
            continue
        if p.kind is p.KEYWORD_ONLY:
            if star is None and "*" not in heads:
                heads.append("*")
            kwonly.append(p.name)
        else:
            positional.append(p.name)
        heads.append(p.name)
        if i == last_positional_only:
            heads.append("/")
        if p.default is p.empty:
            required.append(p.name)
    heads.append("**spellings__")
    given = ", ".join(["self"] + positional)
    keywords = "".join(f", {k}={k}" for k in kwonly)
    body = [f"def {name}({', '.join(heads)}):",
            f"    if spellings__{''.join(f' or {r} is unset__' for r in required)}:",
            f"        return placing__(how__, self, ({''.join(f'{v}, ' for v in positional)}), {star or '()'}, "
            f"{{{', '.join(f'{k!r}: {k}' for k in kwonly)}}}, spellings__)",
            "    try:"]
    if star:  # (a star call costs more: made only when there is something to spread)
        body += [f"        if {star}:", f"            return fn__({given}, *{star}{keywords})"]
    body += [f"        return fn__({given}{keywords})",
             "    except TypeError as error:",
             "        if getattr(error, 'argument_error', None) is None:",
             "            raise",
             f"        raise named__(error, {name!r}) from None"]
    scope.update(fn__=fn, unset__=_UNSET, placing__=_placing, how__=(fn, name, tuple(params)),
                 named__=named_argument_error)
    exec("\n".join(body), scope)  # noqa: S102 (text made here from a signature, as dataclasses make their __init__)
    method = scope[name]
    method.__defaults__ = tuple(_UNSET if p.default is p.empty else p.default for p in params
                                if p.kind in (p.POSITIONAL_ONLY, p.POSITIONAL_OR_KEYWORD)) or None
    method.__kwdefaults__ = {p.name: (_UNSET if p.default is p.empty else p.default) for p in params
                             if p.kind is p.KEYWORD_ONLY} or None
    return method


def respell_method(fn, name: str, args: tuple, kwargs: dict, error: TypeError):
    """For a method that takes ``*args, **kwargs`` and hands them to ``fn`` (the in-place ``X_`` made from the
    op): the call in ``fn``'s names where PyTorch's parser would take it, None where no keyword needs placing
    (the caller re-raises ``error``); PyTorch's TypeError for a keyword that spells nothing."""
    named = named_argument_error(error, name)
    if named is not error:
        raise named from None
    found = _parameters(fn)
    if found is None or all(k in found[0] for k in kwargs):
        return None
    if found[1] is None and len(found[0]) <= 1:
        raise TypeError(f"Tensor.{name}() takes no keyword arguments") from None
    args, kwargs, refused = _placed(found, args, kwargs)
    if refused is not None:
        raise TypeError(f"{name}() got an unexpected keyword argument '{refused}'") from None
    return args, kwargs


def _placing(how, self, values: tuple, star: tuple, keywords: dict, spellings: dict):
    """A method call that named a keyword the implementation does not, or left out a required argument: the call
    in the implementation's names where PyTorch's parser would take it, else PyTorch's TypeError (a required
    argument missing first, then the keyword that spells nothing)."""
    fn, name, params = how
    args, kwargs, gap = [self], {}, False
    for p, value in zip(params, values):
        if star:  # every one was given by position
            args.append(value)
        elif value is _UNSET or value is p.default:  # not given (or given as its default: the same call)
            gap = True
        elif gap:
            kwargs[p.name] = value
        else:
            args.append(value)
    args.extend(star)
    defaults = {p.name: p.default for p in params}
    kwargs.update((k, v) for k, v in keywords.items() if v is not _UNSET and v is not defaults[k])
    kwargs.update(spellings)
    args, kwargs, refused = _placed(_parameters(fn), tuple(args), kwargs)
    missing = [_TORCH_NAMES.get(p.name, p.name) for i, p in enumerate(params, 1)
               if p.default is p.empty and p.kind is not p.VAR_POSITIONAL and p.name not in kwargs
               and (p.kind is p.KEYWORD_ONLY or i >= len(args))]
    if missing:  # PyTorch's text, with its plural as it writes it
        quoted = ", ".join('"' + m + '"' for m in missing)
        plural = "s" if len(missing) == 1 else ""
        raise TypeError(f"{name}() missing {len(missing)} required positional argument{plural}: {quoted}")
    if refused is not None:
        raise TypeError(f"{name}() got an unexpected keyword argument '{refused}'")
    try:
        return fn(*args, **kwargs)
    except TypeError as error:
        named = named_argument_error(error, name)
        if named is error:
            raise
        raise named from None


_TORCH_NAMES = {"a": "input", "b": "other"}  # the implementations' letters for PyTorch's names
