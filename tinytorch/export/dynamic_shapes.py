"""``torch.export.Dim`` and ``dynamic_shapes=``: which input sizes an exported program leaves free.

tinytorch has no symbolic sizes: a program is captured on the example inputs, with their numbers. What
``dynamic_shapes`` marks is then found out by running the capture again (``export`` hands this module a ``trace``
function that captures the program on given inputs and returns the graph):

  * **Names.** Each marked size becomes a symbol named as PyTorch names it: ``s<k>`` with ``k`` the SHA-256 of its
    source (``L['x'].size()[0]``) modulo 100, the next free number where two collide (``s77`` for ``x``'s first
    size). One ``Dim`` used twice is one symbol; ``Dim.AUTO``/``Dim.DYNAMIC`` sizes of equal example value share one
    (PyTorch's duck sizing).
  * **Sizes in the graph.** For each symbol the capture runs once more with that size moved by one; a node's size
    that moves with it is written ``a*s77 + b`` from the two runs (``4*s77``, ``s17 + s77``). Sizes that are not
    such a sum (``s77*s27``, ``s77//2``) are not found: they print as the example's number.
  * **Specialisation.** The capture also runs at the ends of the symbol's range (the upper end capped at
    ``2 * size + 2`` where the range is unbounded) and, where the graph there differs from the example's (another
    op taken by a branch on the size, or an error from a size check), bisects for the sizes that give the
    example's graph. One size only: the program specialised it (PyTorch's ``UserError``, "specialized it to be a
    constant"); a narrower range: "Not all values of ... satisfy the generated guard" for a ``Dim``, the range
    narrowed for ``Dim.AUTO``/``Dim.DYNAMIC`` (``Dim.AUTO`` specialised becomes a static size). A branch taken
    only between the probes, or a condition that is not one interval, is not found.
  * **Guards.** ``ep.module()`` checks its inputs as PyTorch's does: a static size equal, a symbol's size in its
    range (the lower end checked above 2), a shared symbol's sizes equal, with PyTorch's ``AssertionError`` text.

A size that flows into an op's arguments (``x.view(x.size(0), -1)``, which PyTorch records with ``sym_size`` nodes)
is refused."""
from __future__ import annotations

import dataclasses
import enum
import hashlib

import numpy as np

from .._dynamo.exc import UserError
from ..tensor import Tensor, _make

__all__ = ["Dim", "ShapesCollection", "UserError"]

_INF = float("inf")
_TAIL = ("\n\nThe error above occurred when calling torch.export.export. If you would like to view some more "
         "information about this error, and get a list of all other errors that may occur in your export call, "
         "you can replace your `export()` call with `draft_export()`.")


class _DimHintType(enum.Enum):
    AUTO = enum.auto()
    STATIC = enum.auto()
    DYNAMIC = enum.auto()


class _DimHint:
    """``Dim.AUTO``, ``Dim.STATIC``, ``Dim.DYNAMIC`` (and ``Dim.AUTO(min=, max=)``)."""

    def __init__(self, type_: _DimHintType, min=None, max=None, _factory: bool = True):  # noqa: A002
        self.type, self.min, self.max, self._factory = type_, min, max, _factory

    def __call__(self, min=None, max=None) -> _DimHint:  # noqa: A002
        if not self._factory:
            raise TypeError(f"'{type(self)}' object is not callable")
        if min is not None and min < 0:
            raise AssertionError(f"min must be non-negative, got {min}")
        if max is not None and max < 0:
            raise AssertionError(f"max must be non-negative, got {max}")
        if min is not None and max is not None and min > max:
            raise AssertionError(f"min must be <= max, got min={min}, max={max}")
        return _DimHint(self.type, min, max, _factory=False)

    def __repr__(self) -> str:
        parts = [self.type.name] + [f"{k}={v}" for k, v in (("min", self.min), ("max", self.max)) if v is not None]
        return f"DimHint({', '.join(parts)})"


class Dim:
    """A named size an exported program leaves free, between ``min`` (0 when not given) and ``max`` (unbounded)."""

    AUTO = _DimHint(_DimHintType.AUTO)
    DYNAMIC = _DimHint(_DimHintType.DYNAMIC)
    STATIC = _DimHint(_DimHintType.STATIC)

    def __init__(self, name: str, *, min: int | None = None, max: int | None = None):  # noqa: A002
        lo = 0 if min is None else min
        hi = _INF if max is None else max
        if not hi > lo:
            raise AssertionError(f"Cannot create Dim with inconsistent min={min}, max={max}")
        if not name.isidentifier():
            raise AssertionError(f"Dim name must be a valid identifier, got {name}")
        self.__name__, self.min, self.max = name, lo, hi

    @staticmethod
    def _readable(name: str, lo, hi) -> str:
        parts = [f"'{name}'"] + ([f"min={lo}"] if lo != 2 else []) + ([f"max={hi}"] if hi != _INF else [])
        return f"Dim({', '.join(parts)})"

    def __repr__(self) -> str:
        return Dim._readable(self.__name__, self.min, self.max)


class ShapesCollection(dict):
    """Dynamic shapes keyed by the input tensors themselves (``dynamic_shapes=collection.dynamic_shapes(...)``)."""

    def __setitem__(self, t, shape):
        super().__setitem__(id(t), shape)

    def __getitem__(self, t):
        return super().__getitem__(id(t))

    def dynamic_shapes(self, m, args, kwargs=None):
        return _map_leaves(args, kwargs, lambda t: self.get(id(t)))


def _map_leaves(args, kwargs, fn):
    def walk(x):
        if isinstance(x, Tensor):
            return fn(x)
        if isinstance(x, (list, tuple)):
            return type(x)(walk(v) for v in x)
        if isinstance(x, dict):
            return {k: walk(v) for k, v in x.items()}
        return None
    return walk(tuple(args)) + tuple(walk(v) for v in (kwargs or {}).values())


# -- symbols and ranges ----------------------------------------------------------------------------------
class Symbol:
    """A symbolic size (``s77``), printed by its name."""

    def __init__(self, name: str):
        self.name = name

    def __repr__(self) -> str:
        return self.name

    __str__ = __repr__


class _IntInfinity:
    def __repr__(self) -> str:
        return "int_oo"


int_oo = _IntInfinity()


@dataclasses.dataclass
class ValueRanges:
    """A symbol's range, printed ``VR[2, 100]`` (``int_oo`` for no upper end)."""
    lower: int
    upper: object

    def __repr__(self) -> str:
        return f"VR[{self.lower}, {self.upper}]"


@dataclasses.dataclass(eq=False)
class _Sym:
    symbol: Symbol
    spec: object            # the Dim or the hint
    value: int              # the example's size
    lo: int
    hi: float
    sources: list           # (leaf index, dim, source "L['x'].size()[0]", shown "x.size()[0]")
    static: bool = False    # Dim.AUTO that the program specialised: a static size after all

    @property
    def name(self) -> str:
        return self.spec.__name__ if isinstance(self.spec, Dim) else self.sources[0][2]


# -- dynamic_shapes, per input leaf -----------------------------------------------------------------------
def leaf_specs(params: list, args: tuple, kwargs: dict, dynamic_shapes) -> list:
    """``[(tensor, path suffix, {dim: Dim or hint})]`` for the user's input leaves, in flattening order.
    ``dynamic_shapes`` is a dict by the forward's parameter names, or a tuple/list in the order of the inputs."""
    names = [params[i] if i < len(params) else f"args_{i}" for i in range(len(args))] + list(kwargs)
    values = list(args) + list(kwargs.values())
    if isinstance(dynamic_shapes, dict):
        unknown = [k for k in dynamic_shapes if k not in names]
        if unknown:
            raise UserError(f"When `dynamic_shapes` is specified as a dict, its top-level keys must be the arg "
                            f"names {names} of `inputs`, but here they are {list(dynamic_shapes)}.")
        specs = [dynamic_shapes.get(n) for n in names]
    elif isinstance(dynamic_shapes, (tuple, list)):
        if len(dynamic_shapes) != len(values):
            raise UserError(f"Expected dynamic_shapes of a {type(values)} to have {len(values)} elements, but "
                            f"got {len(dynamic_shapes)} elements")
        specs = list(dynamic_shapes)
    else:
        raise UserError(f"Unexpected dynamic_shape {dynamic_shapes} of Tensor, try None instead")
    out = []

    def walk(x, spec, path):
        if isinstance(x, Tensor):
            out.append((x, path, _dims(x, spec)))
        elif isinstance(x, (list, tuple)):
            for k, v in enumerate(x):
                walk(v, None if spec is None else spec[k], f"{path}[{k}]")
        elif isinstance(x, dict):
            for k, v in x.items():
                walk(v, None if spec is None else spec[k], f"{path}[{k!r}]")
    for name, x, spec in zip(names, values, specs):
        walk(x, spec, f"[{name!r}]")
    return out


def _dims(t: Tensor, spec) -> dict:
    if spec is None:
        return {}
    if isinstance(spec, dict):
        items = spec.items()
    elif isinstance(spec, (list, tuple)):
        if len(spec) != t.dim():
            raise UserError(f"Expected dynamic shape spec {spec} specified at inputs to have length {t.dim()}")
        items = enumerate(spec)
    else:
        raise UserError(f"Unexpected dynamic_shape {spec} of Tensor, try None instead")
    return {i % max(t.dim(), 1): s for i, s in items
            if s is not None and not (isinstance(s, _DimHint) and s.type is _DimHintType.STATIC)}


def make_symbols(leaves: list) -> list:
    """The symbols of the marked sizes, in the order PyTorch makes them (inputs, then dims): one per size of each
    input tensor (a tensor passed twice has its symbols once); the sizes one ``Dim`` marks are one symbol (see
    ``merge`` for its name)."""
    syms, by_tensor, by_name, used = [], {}, {}, set()
    for index, (t, path, dims) in enumerate(leaves):
        for d, spec in sorted(dims.items()):
            value = int(t.shape[d])
            source = (index, d, f"L{path}.size()[{d}]", f"{_shown(path)}.size()[{d}]")
            if isinstance(spec, Dim):
                lo, hi = spec.min, spec.max
            elif isinstance(spec, _DimHint):
                lo = 2 if spec.min is None else spec.min
                hi = _INF if spec.max is None else spec.max
            else:
                raise UserError(f"Unexpected dimension mapped to index {d} in input tensor shape {spec} specified "
                                f"at inputs, expected a Dim or a DimHint")
            sym = by_tensor.get((id(t), d))
            if sym is not None:
                sym.sources.append(source)
                continue
            k = int(hashlib.sha256(source[2].encode()).hexdigest(), 16) % 100
            while k in used:
                k += 1
            used.add(k)
            sym = _Sym(Symbol(f"s{k}"), spec, value, lo, hi, [source])
            by_tensor[(id(t), d)] = sym
            if isinstance(spec, Dim) and spec.__name__ in by_name:
                merge(syms, by_name[spec.__name__], [sym])
            else:
                syms.append(sym)
                if isinstance(spec, Dim):
                    by_name[spec.__name__] = sym
    return syms


def merge(syms: list, keep, others: list) -> None:
    """``others`` are ``keep`` (one size): their sources join it, under the name that sorts first as text
    (``s24`` before ``s6``: sympy orders symbols by their names)."""
    name = min(s.symbol.name for s in [keep] + others)
    for other in others:
        keep.sources.extend(other.sources)
        if other in syms:
            syms.remove(other)
    keep.sources.sort(key=lambda src: src[:2])
    keep.symbol.name = name


def _shown(path: str) -> str:
    """``"['x'][0]"`` as PyTorch's guards name it: ``x[0]``."""
    end = path.index("]")
    return path[2:end - 1] + path[end + 1:]


def tensor_leaves(args: tuple, kwargs: dict) -> list:
    """The input tensors in ``leaf_specs``'s order."""
    out = []

    def walk(x):
        if isinstance(x, Tensor):
            out.append(x)
        elif isinstance(x, (list, tuple)):
            for v in x:
                walk(v)
        elif isinstance(x, dict):
            for v in x.values():
                walk(v)
    walk(tuple(args) + tuple(kwargs.values()))
    return out


# -- probing the program at other sizes ------------------------------------------------------------------
def _resized(t: Tensor, d: int, n: int) -> Tensor:
    """``t`` with its ``d``-th size ``n``: its values repeated along ``d`` (zeros from an empty one)."""
    x = np.asarray(t._data)
    if x.shape[d]:
        x = np.take(x, np.arange(n) % x.shape[d], axis=d)
    else:
        shape = list(x.shape)
        shape[d] = n
        x = np.zeros(shape, x.dtype)
    out = _make(np.ascontiguousarray(x))
    return out.requires_grad_(t.requires_grad) if t.requires_grad else out


def _signature(graph, with_ints: bool) -> tuple:
    def arg(a):
        if isinstance(a, (list, tuple)):
            return tuple(arg(v) for v in a)
        if isinstance(a, dict):
            return tuple((k, arg(v)) for k, v in a.items())
        if hasattr(a, "op") and hasattr(a, "name"):
            return ("node", a.name)
        if not with_ints and type(a) is int:
            return "int"
        return repr(a)
    return tuple((n.op, str(n.target), arg(n.args), arg(n.kwargs)) for n in graph.nodes)


def _shapes(graph) -> list:
    out = []
    for n in graph.nodes:
        v = n.meta.get("val")
        out.append(tuple(int(s) for s in v.shape) if isinstance(v, Tensor) else None)
    return out


class Prober:
    """Runs ``trace`` on the example inputs with some symbols' sizes changed."""

    def __init__(self, trace, leaves: list, syms: list, base):
        self.trace, self.leaves, self.syms = trace, leaves, syms
        self.base_loose = _signature(base, False)
        self.base_full = _signature(base, True)

    def run(self, values: dict):
        tensors = []
        for index, (t, _, _) in enumerate(self.leaves):
            for sym, n in values.items():
                for i, d, _, _ in sym.sources:
                    if i == index:
                        t = _resized(t, d, n)
            tensors.append(t)
        return self.trace(tensors)

    def same(self, values: dict) -> bool:
        """Whether the program with the symbols at ``values`` runs the example's ops."""
        try:
            graph = self.run(values)
        except Exception:  # noqa: BLE001 - a size check of the program's own failing is what this looks for
            return False
        return _signature(graph, False) == self.base_loose

    def interval(self, sym) -> tuple:
        """The sizes around the example's that give its graph (bisected from the range's ends)."""
        v = sym.value
        lo = max(sym.lo, 2)
        hi = sym.hi if sym.hi != _INF else 2 * v + 2
        low = lo if lo >= v or self.same({sym: lo}) else _bisect(lambda n: not self.same({sym: n}), lo, v)
        high = hi if hi <= v or self.same({sym: hi}) else _bisect(lambda n: self.same({sym: n}), v, hi) - 1
        if sym.hi == _INF and high == hi:
            high = _INF
        return low, high

    def slope(self, sym) -> tuple:
        """The example's graph at ``sym`` moved by one: (the moved size, the node shapes there)."""
        n = sym.value + 1 if sym.value + 1 <= sym.hi else sym.value - 1
        try:
            graph = self.run({sym: n})
        except Exception:  # noqa: BLE001 - then the size is not free, which check() has said already
            return None
        if _signature(graph, False) != self.base_loose:
            return None
        if _signature(graph, True) != self.base_full:
            raise NotImplementedError(
                "tinytorch.export: a dynamic size flows into an op's arguments (as x.view(x.size(0), -1) does); "
                "tinytorch records sizes as numbers and has no sym_size nodes: export with static shapes")
        return n, _shapes(graph)


def _bisect(ok, good: int, bad: int) -> int:
    """With ``ok(good)`` True and ``ok(bad)`` False (``good < bad``), the smallest ``n`` in ``(good, bad]`` with
    ``ok(n)`` False, ``ok`` taken to turn once."""
    while bad - good > 1:
        mid = (good + bad) // 2
        if ok(mid):
            good = mid
        else:
            bad = mid
    return bad


def check(prober: Prober, syms: list) -> None:
    """Narrow each symbol's range to the sizes that run the example's graph; refuse a ``Dim`` (or
    ``Dim.DYNAMIC``) that the program specialised, with PyTorch's message."""
    _check_before_probing(prober, syms)
    _unify(prober, syms)
    for sym in syms:
        low, high = prober.interval(sym)
        if low == high == sym.value:
            if isinstance(sym.spec, _DimHint) and sym.spec.type is _DimHintType.AUTO:
                sym.static = True
                continue
            name = sym.name
            line = _SPECIALIZED.format(name, sym.value)
            fix = f"\nSuggested fixes:\n  {name} = {sym.value}" if isinstance(sym.spec, Dim) else ""
            raise UserError(_violation(name, line) + fix + _TAIL)
        if isinstance(sym.spec, Dim) and (low > max(sym.lo, 2) or high < sym.hi):
            name, src = sym.name, sym.sources[0][2]
            given = ((f"{sym.lo} <= " if sym.lo > 2 else "") + name + (f" <= {sym.hi}" if sym.hi != _INF else ""))
            given = "" if given == name else " " + given
            upper = "IntInfinity()" if high == _INF else high
            line = (f"Not all values of {name} = {src} in the specified range{given} satisfy the generated guard "
                    f"{low} <= {src} and {src} <= {upper}")
            raise UserError(_violation(name, line) + f"\nSuggested fixes:\n  {name} = "
                            f"{Dim._readable(name, low, high)}" + _TAIL)
        if isinstance(sym.spec, _DimHint):
            sym.lo, sym.hi = low, high


_SPECIALIZED = ("You marked {} as dynamic but your code specialized it to be a constant ({}). If you're using "
                "mark_dynamic, either remove it or use maybe_mark_dynamic. If you're using Dim.DYNAMIC, replace it "
                "with either Dim.STATIC or Dim.AUTO.")


def _check_before_probing(prober: Prober, syms: list) -> None:
    """What PyTorch refuses before it looks at ranges, in one error: a ``Dim`` whose example size is 0 or 1 (PyTorch
    specialises those sizes always, so the program cannot be exported with them dynamic: one line per size it
    marks), a ``Dim.DYNAMIC`` likewise (a ``ValueError``), and two ``Dim`` objects the program requires equal (the later
    one is to be written as the earlier)."""
    for sym in syms:
        if isinstance(sym.spec, _DimHint) and sym.spec.type is _DimHintType.DYNAMIC and sym.value in (0, 1):
            where = sym.sources[0][2].replace("L[", "inputs[", 1).replace(".size()[", ".shape[")
            raise ValueError("Found the following conflicts between user-specified ranges and inferred ranges from "
                             f"model tracing:\n- Received user-specified dim hint Dim.DYNAMIC(min={sym.spec.min}, "
                             f"max={sym.spec.max}), but export 0/1 "
                             f"specialized due to hint of {sym.value} for dimension {where}.")
    names, lines, fixes = [], [], []
    dims = [s for s in syms if isinstance(s.spec, Dim)]
    for k, sym in enumerate(dims):
        if sym.value in (0, 1):
            names.append(sym.name)
            lines += [_SPECIALIZED.format(sym.name, sym.value)] * len(sym.sources)
            fixes.append(f"{sym.name} = {sym.value}")
            continue
        moved = sym.value + 1 if sym.value + 1 <= sym.hi else sym.value - 1
        if prober.same({sym: moved}):
            continue
        equal = next((e for e in dims[:k] if e.value == sym.value and prober.same({sym: moved, e: moved})), None)
        if equal is not None:
            names.append(sym.name)
            lines.append(f"The values of {sym.name} = {sym.sources[0][2]} and {equal.name} = "
                         f"{equal.sources[0][2]} must always be equal.")
            fixes.append(f"{sym.name} = {equal.name}")
    if names:
        raise UserError(f'Constraints violated ({", ".join(names)})! For more information, run with '
                        'TORCH_LOGS="+dynamic".\n' + "\n".join(f"  - {line}" for line in lines)
                        + "\nSuggested fixes:\n" + "\n".join(f"  {fix}" for fix in fixes) + _TAIL)


def _unify(prober: Prober, syms: list) -> None:
    """``Dim.AUTO``/``Dim.DYNAMIC`` sizes the program requires equal (``x + y``): a hint's size that cannot move
    alone but moves with the other hints' sizes of its value is one symbol with them, as PyTorch's unification
    makes it."""
    for sym in list(syms):
        if sym not in syms or not isinstance(sym.spec, _DimHint):
            continue
        n = sym.value + 1 if sym.value + 1 <= sym.hi else sym.value - 1
        if prober.same({sym: n}):
            continue
        group = [s for s in syms if s is not sym and isinstance(s.spec, _DimHint) and s.value == sym.value]
        if group and prober.same({s: n for s in [sym] + group}):
            merge(syms, sym, group)


def _violation(name: str, line: str) -> str:
    return (f'Constraints violated ({name})! For more information, run with TORCH_LOGS="+dynamic".\n'
            f"  - {line}")


def symbolic_shapes(prober: Prober, syms: list, base) -> list:
    """Each node's shape with the sizes that move with a symbol written as ``a*s + b`` (None: not a tensor)."""
    syms = [s for s in syms if not s.static]
    base_shapes = _shapes(base)
    slopes = []
    for sym in syms:
        moved = prober.slope(sym)
        if moved is not None:
            slopes.append((sym, moved[0] - sym.value, moved[1]))
    out = []
    for k, shape in enumerate(base_shapes):
        if shape is None:
            out.append(None)
            continue
        dims = []
        for d, size in enumerate(shape):
            terms, rest = [], size
            for sym, step, shapes in slopes:
                delta = shapes[k][d] - size
                if delta:
                    if delta % step:
                        terms = None
                        break
                    a = delta // step
                    terms.append((sym.symbol.name, a))
                    rest -= a * sym.value
            dims.append(size if not terms else _expression(sorted(terms), rest))
        out.append(dims)
    return out


def _expression(terms: list, constant: int) -> str:
    parts = [name if a == 1 else f"{a}*{name}" for name, a in terms]
    text = " + ".join(parts).replace("+ -", "- ")
    if constant > 0:
        text += f" + {constant}"
    elif constant < 0:
        text += f" - {-constant}"
    return text


def range_constraints(syms: list) -> dict:
    return {s.symbol: ValueRanges(s.lo, int_oo if s.hi == _INF else s.hi) for s in syms if not s.static}


def guards(leaves: list, syms: list) -> list:
    """``ep.module()``'s input checks: ``(leaf index, dim, check(size, sizes), message)`` in PyTorch's order."""
    of = {}
    for sym in syms:
        for i, d, _, _ in sym.sources:
            of[(i, d)] = sym
    seen, out = {}, []
    for index, (t, _, _) in enumerate(leaves):
        for d, size in enumerate(t.shape):
            sym = of.get((index, d))
            shown = None
            for s in (sym.sources if sym is not None else ()):
                if s[:2] == (index, d):
                    shown = s[3]
            if shown is None:
                shown = f"{_shown(leaves[index][1])}.size()[{d}]"
            if sym is None or sym.static:
                out.append((index, d, ("==", int(size)), f"{shown} == {int(size)}"))
            elif id(sym) in seen:
                first = seen[id(sym)]
                out.append((index, d, ("same", first[:2]), f"{shown} == {first[2]}"))
            else:
                seen[id(sym)] = (index, d, shown)
                if sym.lo > 2:
                    out.append((index, d, (">=", sym.lo), f"{shown} >= {sym.lo}"))
                if sym.hi != _INF:
                    out.append((index, d, ("<=", sym.hi), f"{shown} <= {sym.hi}"))
    return out


def check_guards(guard_list: list, tensors: list) -> None:
    for index, d, (how, value), message in guard_list:
        t = tensors[index]
        size = t.shape[d] if d < t.dim() else None
        if how == "==":
            ok = size == value
        elif how == ">=":
            ok = size is not None and size >= value
        elif how == "<=":
            ok = size is not None and size <= value
        else:
            other = tensors[value[0]]
            ok = size is not None and value[1] < other.dim() and size == other.shape[value[1]]
        if not ok:
            raise AssertionError(f"Guard failed: {message}")
