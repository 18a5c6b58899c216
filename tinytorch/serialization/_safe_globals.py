"""The classes and functions a user allows a weights-only load to build, as PyTorch keeps them.

``add_safe_globals([cls, ...])`` adds to one process-wide set, ``safe_globals([...])`` adds for the
length of a ``with`` block, ``get_safe_globals()`` lists the set, ``clear_safe_globals()`` empties
it. Each entry is an object, named in a checkpoint by ``{__module__}.{__qualname__}``, or a pair
``(object, "full.path")`` naming it by that path. A checkpoint written by PyTorch names
``torch.nn.modules.linear.Linear`` where tinytorch's class is
``tinytorch.nn.modules.linear.Linear``: allowing the one allows the other."""
from __future__ import annotations

import sys
from typing import Any, Callable, Union

Entry = Union[Callable, "tuple[Callable, str]"]

_marked: set = set()


def add_safe_globals(safe_globals: list[Entry]) -> None:
    """Mark the given globals as safe for a ``weights_only`` load: functions in it may be called
    and classes instantiated, with their state set, while unpickling."""
    global _marked
    _marked = _marked | set(safe_globals)


def get_safe_globals() -> list[Entry]:
    """The globals a user marked safe for a ``weights_only`` load."""
    return list(_marked)


def clear_safe_globals() -> None:
    """Forget every global marked safe for a ``weights_only`` load."""
    global _marked
    _marked = set()


class safe_globals:
    """Context manager that marks globals safe for ``weights_only`` loads inside its block."""

    def __init__(self, safe_globals: list[Entry]):
        self.safe_globals = safe_globals

    def __enter__(self) -> None:
        add_safe_globals(self.safe_globals)

    def __exit__(self, *exc: Any) -> None:
        global _marked
        _marked = _marked - set(self.safe_globals)


safe_globals.__module__ = "tinytorch.serialization"  # PyTorch's module: the package re-exports it


def allowed() -> dict:
    """Full path -> object for every marked global, as PyTorch checks them (pairs are checked)."""
    out = {}
    for entry in _marked:
        if isinstance(entry, tuple):
            if len(entry) != 2:
                raise ValueError(f"Expected tuple of length 2 (global, str of callable full path), "
                                 f"but got tuple of length: {len(entry)}")
            if type(entry[1]) is not str:
                raise TypeError(f"Expected second item in tuple to be str of callable full path, "
                                f"but got: {type(entry[1])}")
            obj, name = entry
            out[name] = obj
        else:
            out[f"{entry.__module__}.{entry.__qualname__}"] = entry
    return out


def lookup(full_path: str, table: dict) -> Any:
    """The allowed object a checkpoint's global names, or None. ``torch.X`` finds tinytorch.X;
    a path under tinytorch (or torch) that leads, through modules already imported, to an allowed
    object finds it too: ``F.relu`` is made in ``tinytorch._ops`` and published in
    ``tinytorch.nn.functional``, where checkpoints name it. Nothing is imported."""
    if full_path in table:
        return table[full_path]
    if full_path.startswith("torch."):
        full_path = "tiny" + full_path
        if full_path in table:
            return table[full_path]
    if not full_path.startswith("tinytorch.") or not table:
        return None
    module, _, name = full_path.rpartition(".")
    while module and module not in sys.modules:  # a class nested in a class: Outer.Inner
        module, _, outer = module.rpartition(".")
        name = f"{outer}.{name}"
    found = sys.modules.get(module)
    for part in name.split("."):
        found = getattr(found, part, None)
    allowed_ids = {id(obj) for obj in table.values()}
    return found if found is not None and id(found) in allowed_ids else None
