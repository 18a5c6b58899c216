"""``python -m tinytorch.explain OP``: where an op's idea is written, and what runs instead of it.

Prints the op's declaration (the file and line, its spellings), its reference forward and the backward
formulas of the nodes it records, the CPU paths registered onto it with the guard of each
(``tinytorch/_cpu``, see ``_ops/_core/paths.py``), and the test files that name it. ``OP`` is a name as a
PyTorch user writes it: ``mul``, ``torch.mul``, ``Tensor.mul``, ``nn.functional.layer_norm``, ``F.gelu``,
``linalg.norm``, or an ATen operator tinytorch declares for its graphs alone: ``ops.aten.mkldnn_rnn_layer`` (the
oneDNN LSTM layer that ``nn.LSTM`` runs). With ``--brief``: only the places, not the code."""
from __future__ import annotations

import inspect
import os
import re
import sys

import tinytorch  # noqa: F401  (declares every op and registers the paths)
from tinytorch._ops._core.paths import PATHS, REFERENCE, reference, reference_kernel
from tinytorch._ops._core.registry import ATEN_ONLY, REGISTRY
from tinytorch.autograd.node import Node


_ATEN = "ops.aten."  # the key of an ATen-only operator: ``ops.aten.<name>`` (``ATEN_ONLY[name]``)


def find(name: str):
    """The ``REGISTRY`` key of the op a user calls ``name`` (``ops.aten.<name>`` for an operator declared only as
    ``torch.ops.aten.<name>``), or None."""
    name = name.removeprefix("torch.")
    for prefix, key_prefix in (("nn.functional.", "F."), ("F.", "F."), ("Tensor.", "Tensor.")):
        if name.startswith(prefix):
            short = name[len(prefix):]
            break
    else:
        short, key_prefix = name, ""
    if name in REGISTRY:
        return name
    if key_prefix + short in REGISTRY:
        return key_prefix + short
    for key, decl in REGISTRY.items():  # an alias, a method, an nn.functional spelling, a dunder
        if short in decl.variants or short in decl.dunders + decl.rdunders + decl.idunders:
            if key_prefix in ("", "Tensor.") or any("functional" in w for w in decl.variants.values()):
                return key
    aten = name.removeprefix(_ATEN).partition(".")[0]  # (an overload named: mkldnn_rnn_layer.default)
    return _ATEN + aten if aten in ATEN_ONLY else None


def _where(fn) -> str:
    fn = inspect.unwrap(fn)
    try:
        path = inspect.getsourcefile(fn)
        line = inspect.getsourcelines(fn)[1]
    except (TypeError, OSError):
        return getattr(fn, "__module__", "?")
    return f"{os.path.relpath(path, os.path.dirname(os.path.dirname(tinytorch.__file__)))}:{line}"


def _source(fn) -> str:
    try:
        return inspect.getsource(inspect.unwrap(fn))
    except (TypeError, OSError):
        return "    (no source)\n"


_CALL = re.compile(r"\b(?:(\w+)\.)?(\w+)\(")
_SUPER = re.compile(r"\bsuper\(\)\.(\w+)\(")


def reached(fn, limit: int = 200) -> list:
    """``fn`` and the functions of its own module it calls, however deep (each once, in the order met): the steps
    a CPU path can be bound onto lie anywhere below the op's reference (conv2d's reference calls ``_convnd``,
    which calls ``_conv``, which calls the step ``_conv_arrays`` that ``_cpu/conv.py`` replaces), and below a node's
    formula through its own methods (``self._backward_arrays``). Calls are read
    from the source; a call into another module (a shared helper, ``matmul._np_matmul``) is a step of its own,
    not followed (the helpers every op shares would otherwise bring every op's paths)."""
    seen, order, todo = set(), [], [inspect.unwrap(fn)]
    while todo and len(order) < limit:
        f = todo.pop(0)
        if id(f) in seen:
            continue
        seen.add(id(f))
        order.append(f)
        scope = getattr(f, "__globals__", {})
        for owner, name in _CALL.findall(_source(f)):
            target = scope.get(name) if not owner else getattr(scope.get(owner), name, None)
            if owner == "self" and "." in f.__qualname__:  # a method of the node's own class (its array steps)
                target = getattr(scope.get(f.__qualname__.partition(".")[0]), name, None)
            if isinstance(target, type) and issubclass(target, Node):
                target = target.__dict__.get("formula", target.backward)
            if owner and inspect.ismodule(scope.get(owner)):
                target = reference_kernel(scope[owner], name)  # a step a kernel is bound onto: its reference
            elif not owner and f.__module__ in sys.modules:
                target = reference_kernel(sys.modules[f.__module__], name) if hasattr(
                    sys.modules[f.__module__], name) else target
            target = inspect.unwrap(target) if callable(target) else None
            # the same module, or the random engine's steps a sampling op calls into
            if inspect.isfunction(target) and id(target) not in seen and (
                    target.__module__ == f.__module__ or target.__module__.startswith("tinytorch._random.")):
                todo.append(target)
        owner = scope.get(f.__qualname__.partition(".")[0]) if "." in f.__qualname__ else None
        for name in _SUPER.findall(_source(f)) if isinstance(owner, type) else ():  # a node's base class's step
            target = getattr(super(owner, owner), name, None)
            if inspect.isfunction(target) and id(target) not in seen and target.__module__ == f.__module__:
                todo.append(target)
    return order


def nodes_of(fn) -> list:
    """The node classes the reference records, however deep its calls go, in the order they are met."""
    found = []
    for f in reached(fn):
        module = sys.modules.get(f.__module__)
        for word in re.findall(r"\b([A-Z]\w*Backward\w*)\b", _source(f)):
            cls = getattr(module, word, None)
            if isinstance(cls, type) and issubclass(cls, Node) and cls not in found:
                found.append(cls)
    return found


def paths_of(key: str, ref, nodes: list) -> list:
    """The paths on the op itself, on the nodes it records, and on every step its reference reaches by name
    (the steps of its own calls and of its nodes' formulas, however deep)."""
    found = list(PATHS.get(key, ()))
    for cls in nodes:
        found += PATHS.get(cls.__name__, ())
    calls = set()
    for start in [ref] + [cls.__dict__.get("formula", cls.backward) for cls in nodes]:
        for f in reached(start):
            short = f.__module__.rpartition(".")[2]
            for owner, name in _CALL.findall(_source(f)):
                module = getattr(f, "__globals__", {}).get(owner) if owner else None
                calls.add((getattr(module, "__name__", short).rpartition(".")[2] if owner else short, name))
    for target, ps in PATHS.items():
        module, _, step = target.partition(".")
        if step and (module, step) in calls:
            found += [p for p in ps if p not in found]
    return found


def tests_naming(op_name: str, limit: int = 8) -> list:
    """Test files of a source checkout that call the op by name, most mentions first."""
    root = os.path.join(os.path.dirname(os.path.dirname(tinytorch.__file__)), "tests")
    if not os.path.isdir(root):
        return []
    pattern = re.compile(rf"[.\"']{re.escape(op_name)}\b")
    counts = []
    for folder, _, files in os.walk(root):
        for f in files:
            if f.startswith("test_") and f.endswith(".py"):
                path = os.path.join(folder, f)
                with open(path, encoding="utf-8") as fh:
                    n = len(pattern.findall(fh.read()))
                if n:
                    counts.append((n, os.path.relpath(path, os.path.dirname(root))))
    return [f"{p} ({n})" for n, p in sorted(counts, key=lambda c: (-c[0], c[1]))[:limit]]


def declared(key: str) -> tuple:
    """(its reference, its qualified name, its spellings, its name) of the op ``find`` gave ``key`` for."""
    if key.startswith(_ATEN):
        name = key[len(_ATEN):]
        return inspect.unwrap(ATEN_ONLY[name]), f"torch.{key}", {f"torch.{key}"}, name
    decl = REGISTRY[key]
    return reference(key), decl.qualname, decl.spellings(), decl.name


def explain(name: str, source: bool = True) -> str:
    key = find(name)
    if key is None:
        raise SystemExit(f"tinytorch declares no op named {name!r}")
    ref, qualname, spellings, op_name = declared(key)
    lines = [f"{qualname}: declared at {_where(ref)}",
             f"  spellings: {', '.join(sorted(spellings))}"]
    if source:
        lines += ["", "reference forward:", _source(ref).rstrip()]
    nodes = nodes_of(ref)
    for cls in nodes:
        formula = cls.__dict__.get("formula", cls.backward)
        lines += ["", f"{cls.__name__}: backward formula at {_where(formula)}"]
        if source:
            lines.append(_source(formula).rstrip())
    found = paths_of(key, ref, nodes)
    lines += ["", "CPU paths registered onto it" + (" (none: TINYTORCH_REFERENCE=1)" if REFERENCE else ":")]
    for p in found:
        bound = ("the reference's floats" if p.ulps == 0 else "within float rounding of the reference"
                 if p.ulps is None else f"within {p.ulps} ulp of the reference"
                 + {"max": " (counted at its largest value)",
                    "program": " (counted at the largest value of its inputs and results)"}.get(p.scale, ""))
        lines.append(f"  {p.kind} {p.target} -> {p.where}\n    when: {p.when}\n    why: {p.why}\n    gives: {bound}")
    if not found and not REFERENCE:
        lines.append("  none: the reference runs")
    tests = tests_naming(op_name)
    if tests:
        lines += ["", "tests that call it (mentions):"] + [f"  {t}" for t in tests]
    return "\n".join(lines)


def main(argv=None) -> None:
    argv = sys.argv[1:] if argv is None else argv
    brief = "--brief" in argv
    names = [a for a in argv if not a.startswith("--")]
    if not names:
        raise SystemExit("usage: python -m tinytorch.explain OP [OP ...] [--brief]   (e.g. mul, F.layer_norm)")
    print("\n\n".join(explain(n, source=not brief) for n in names))


__all__ = ["declared", "explain", "find", "main"]

if __name__ == "__main__":
    main()
