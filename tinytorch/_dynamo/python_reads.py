"""The Python values a compiled program reads: what its graph takes as fixed besides its tensors.

A capture runs the program once; a number it reads from Python (a global ``SCALE``, a closure variable, a module's
``self.temperature``, a config object's ``cfg.eps``) reaches the ops as a constant of the graph. PyTorch's Dynamo
guards each such value (``G['SCALE'] == 2.0``) and captures again when one changes; so does tinytorch:
``PythonReads.of`` lists, before the capture runs, every place the program's code can read a value from, found
from the code itself (the names it uses), and ``check`` compares them with their values at the capture, at each
call (one identity or equality test each: a handful for a usual program).

Where a value is read from:
  - the function's globals and closure variables (``G['SCALE']``, ``scale``), and those of the Python functions it
    calls by a global name, followed a few levels down (a helper reading a global of its own);
  - the attributes of an object so reached that the code names (``G['cfg'].eps``; a Python module's too);
  - for a compiled module, and a module the program reaches by a global or closure name, each module of its
    tree: the attributes its ``forward`` and the methods that forward calls name (``L['self'].temperature``, a
    ``Dropout``'s ``p``); the ``training`` flags are ``guards.py``'s.

Only values that can be compared cheaply and surely are guarded: None, numbers, strings, dtypes and devices,
short tuples/lists/dicts/sets of those (compared with a copy taken at the capture), and functions and classes (by
identity: a helper bound anew changes the program). A tensor is the graph's input (``capture.free_tensors``), a
module a ``capture.Root``. The same snapshot, taken again after the capture's run, tells the values the program
itself wrote (``counter += 1``, ``self.steps += 1``, ``history.append(...)`` on a short list): a replay would not
write them, so that call is a graph break (``side_effects.py``)."""
from __future__ import annotations

import sys
import types

from .._dtype import dtype
from .._size import device
from ..nn.modules.module import Module

__all__ = ["PythonReads", "attributes"]

_CONSTANTS = (type(None), bool, int, float, complex, str, bytes, dtype, device)
_SHORT = 32        # a container longer than this is not copied at each capture nor compared at each call
_DEPTH = 3         # helper functions followed below the compiled one
_COPIED = (list, dict, set)  # kept as a copy: compared by equality (the others by identity first)
_MISSING = object()
_EMPTY: dict = {}  # the attributes of an object no longer found
_PACKAGE = __name__.split(".")[0]


def _snapshot(value):
    """The value as the guard keeps it (a copy of a short container of constants), or _MISSING: not guarded."""
    kind = type(value)
    if kind in _CONSTANTS or kind in (types.FunctionType, type):
        return value
    if kind in (tuple, list, set, frozenset) and len(value) <= _SHORT and all(type(v) in _CONSTANTS for v in value):
        return kind(value)
    if kind is dict and len(value) <= _SHORT and all(type(k) in _CONSTANTS and type(v) in _CONSTANTS
                                                      for k, v in value.items()):
        return dict(value)
    return _MISSING


def _same(now, then) -> bool:
    if now is then:
        return True
    if type(now) is not type(then):
        return False
    try:
        return bool(now == then) or (now != now and then != then)  # (a NaN stays the same NaN)
    except Exception:  # noqa: BLE001 - a value that cannot be compared is taken as changed
        return False


def _names(code: types.CodeType) -> set:
    """Every name a code object and the code nested in it (lambdas, comprehensions, inner functions) use."""
    names = set(code.co_names)
    for const in code.co_consts:
        if isinstance(const, types.CodeType):
            names |= _names(const)
    return names


def _library(obj) -> bool:
    """Code or objects of tinytorch itself, Python's own or numpy's: their globals are no user's settings."""
    module = getattr(obj, "__module__", None) or ""
    return module.split(".")[0] in (_PACKAGE, "builtins", "numpy", "functools", "typing", "abc")


def library_module(value) -> bool:
    """A Python module of tinytorch's, numpy's or the standard library's: no user's setting or container lies
    inside (and its attributes are not walked: some warn when read, as ``distributed.reduce_op``)."""
    return isinstance(value, types.ModuleType) and value.__name__.split(".")[0] in (
        _PACKAGE, "numpy", "math", "builtins", *sys.stdlib_module_names)


class PythonReads:
    """The places a program reads Python values from, and the values there at the capture."""

    def __init__(self):
        # (the dict holding it, or a function giving the dict now; key; value kept; the name in guards' words)
        self.slots: list = []
        self.cells: list = []    # (closure cell, value kept, name)
        self._seen: set = set()
        self._fast = None        # the generated test of the common case (``_write_fast``)

    @classmethod
    def of(cls, fn, module: Module | None) -> "PythonReads":
        """The reads of ``fn`` (for a compiled module: its ``__call__``, with ``module``, whose tree it runs)."""
        reads = cls()
        reads._function(fn, _DEPTH)
        owner = module if module is not None else getattr(fn, "__self__", None)
        if isinstance(owner, Module):
            reads._modules(owner, "L['self']")
        elif owner is not None and not _library(type(owner)):
            reads._object(owner, "L['self'].", _method_names(type(owner), fn))
        return reads

    def _modules(self, root: Module, name: str, reach=None) -> None:
        """The attributes each module of ``root``'s tree reads in its forward, and those forwards' globals.
        ``reach``: how to find ``root`` now (a module reached by a global name is read through it at each call)."""
        for path, m in root.named_modules():
            self._function(type(m).forward, _DEPTH)
            found = None
            if reach is not None:
                parts = path.split(".") if path else []
                found = lambda parts=parts: _submodule(reach(), parts)  # noqa: E731
            prefix = f"{name}.{path}." if path else f"{name}."
            self._object(m, prefix, _method_names(type(m), type(m).forward), found)

    def _function(self, fn, depth: int) -> None:
        fn = getattr(fn, "__func__", fn)
        code = getattr(fn, "__code__", None)
        if code is None or id(code) in self._seen or _library(fn):
            return
        self._seen.add(id(code))
        names = _names(code)
        glob = getattr(fn, "__globals__", {})
        for name in sorted(names & glob.keys()):  # (the nested code's too: a comprehension reads globals)
            self._value(glob, name, f"G['{name}']", names, depth)
        for name, cell in zip(code.co_freevars, fn.__closure__ or ()):
            try:
                value = cell.cell_contents
            except ValueError:  # a cell not yet filled
                continue
            kept = _snapshot(value)
            if kept is not _MISSING:
                self.cells.append((cell, kept, name))
            self._follow(value, name, names, depth, lambda cell=cell: _contents(cell))

    def _value(self, holder: dict, key: str, name: str, names: set, depth: int) -> None:
        value = holder[key]
        kept = _snapshot(value)
        if kept is not _MISSING:
            self.slots.append((holder, key, kept, name))
        self._follow(value, name, names, depth, lambda: holder.get(key))

    def _follow(self, value, name: str, names: set, depth: int, reach) -> None:
        """A helper function's own reads, and the named attributes of an object or Python module, read through
        ``reach`` (the object bound to the name now: one bound anew is then compared, not the old one)."""
        if type(value) is types.FunctionType:
            if depth > 0:
                self._function(value, depth - 1)
        elif isinstance(value, Module):  # a module the program calls by a global or closure name
            self._modules(value, name, reach)
        elif isinstance(value, types.ModuleType):
            if not library_module(value):
                self._object(value, f"{name}.", names, reach)
        elif not isinstance(value, (Module, type)) and not callable(value) and not _library(type(value)):
            self._object(value, f"{name}.", names, reach)

    def _object(self, obj, prefix: str, names: set, reach=None) -> None:
        """The attributes of ``obj`` that ``names`` holds; ``reach``: how to find the object now, where it is
        bound to a name (its attributes are then looked up in the object found at each call)."""
        if id(obj) in self._seen:
            return
        self._seen.add(id(obj))
        attrs = attributes(obj)
        if attrs is None:
            return
        own = _module_own() if isinstance(obj, Module) else ()
        for key in names & attrs.keys():
            if key not in own:  # (a Module's own tables and training flag: guards.py's)
                kept = _snapshot(attrs[key])
                if kept is not _MISSING:
                    holder = attrs if reach is None else (lambda reach=reach: attributes(reach()))
                    self.slots.append((holder, key, kept, prefix + key))

    def check(self) -> str | None:
        """None while every value is as at the capture; else the first changed one, in PyTorch's words. The
        common case is one generated expression of identity tests (``_fast``)."""
        if self._fast is None:
            self._fast = self._write_fast()
        try:
            if self._fast():
                return None
        except ValueError:  # a closure cell emptied
            pass
        return self._slow()

    def _slow(self) -> str | None:
        """Each value compared in full; where all are equal (a number bound anew to an equal one), the objects
        now there become the ones the fast test expects."""
        for k, (holder, key, kept, name) in enumerate(self.slots):
            now = (holder if type(holder) is dict else holder() or _EMPTY).get(key, _MISSING)
            if now is not kept and not _same(now, kept):
                return f"{name} == {kept!r}"
            if type(now) not in _COPIED:
                self.slots[k] = (holder, key, now, name)
        for k, (cell, kept, name) in enumerate(self.cells):
            try:
                now = cell.cell_contents
            except ValueError:
                now = _MISSING
            if now is not kept and not _same(now, kept):
                return f"{name} == {kept!r}"
            if type(now) not in _COPIED:
                self.cells[k] = (cell, now, name)
        self._fast = None
        return None

    def _write_fast(self):
        """``lambda: h0.get('p', M) is k0 and ...``: one test per value, its identity (a copied container: its
        equality), with no loop around them."""
        env = {"_M": _MISSING, "_E": _EMPTY, "_same": _same}
        terms = ["True"]
        for k, (holder, key, kept, _) in enumerate(self.slots):
            env[f"h{k}"], env[f"k{k}"] = holder, kept
            now = f"h{k}.get({key!r}, _M)" if type(holder) is dict else f"(h{k}() or _E).get({key!r}, _M)"
            terms.append(f"_same({now}, k{k})" if type(kept) in _COPIED else f"{now} is k{k}")
        for k, (cell, kept, _) in enumerate(self.cells):
            env[f"c{k}"], env[f"v{k}"] = cell, kept
            now = f"c{k}.cell_contents"
            terms.append(f"_same({now}, v{k})" if type(kept) in _COPIED else f"{now} is v{k}")
        return eval("lambda: " + " and ".join(terms), env)  # noqa: S307 - the expression written just above

    def __bool__(self) -> bool:
        return bool(self.slots or self.cells)


def _contents(cell):
    try:
        return cell.cell_contents
    except ValueError:  # a cell emptied
        return None


def _submodule(module, parts: list):
    """``module``'s submodule at ``parts`` (through the children's tables), or None where there is none now."""
    for part in parts:
        children = getattr(module, "__dict__", {}).get("_modules")
        if not children or part not in children:
            return None
        module = children[part]
    return module


_OWN: list = []


def _module_own() -> frozenset:
    """The attributes every Module has (its tables of parameters, buffers, children and hooks, ``training``)."""
    if not _OWN:
        _OWN.append(frozenset(vars(Module())))
    return _OWN[0]


def attributes(obj) -> dict | None:
    """``vars(obj)``, or None for an object without one or that refuses to show it (a proxy that raises)."""
    try:
        return vars(obj)
    except Exception:  # noqa: BLE001
        return None


def _method_names(cls, method) -> set:
    """The names used by ``method`` of ``cls`` (a module's ``forward``) and by the methods of ``cls`` it names,
    followed through: the attributes a call of it can read from its object."""
    names: set = set()
    todo = [getattr(method, "__func__", method)]
    seen: set = set()
    while todo:
        code = getattr(todo.pop(), "__code__", None)
        if code is None or id(code) in seen:
            continue
        seen.add(id(code))
        found = _names(code)
        names |= found
        todo += [getattr(cls, n) for n in found if type(getattr(cls, n, None)) is types.FunctionType]
    return names
