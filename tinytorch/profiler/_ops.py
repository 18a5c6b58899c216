"""Op rows for the profiler: while a profile records, every declared op's public spellings (``torch.X``,
``Tensor.X`` and its operators, ``nn.functional.X``, ``linalg.X``, ...) are swapped for timing wrappers
that record an ``aten::name`` range, and put back when the last profile stops. Only calls made through
those spellings are seen: an op called inside another op's implementation is not a row of its own
(PyTorch also shows such nested kernels, e.g. ``aten::mm`` under ``aten::matmul``)."""
from __future__ import annotations

import sys

from .._ops._core.registry import REGISTRY, method_table
from ..tensor import Tensor

_saved: list = []  # (owner, attribute, original) while instrumented


def _aten_name(decl, spelling: str) -> str:
    if spelling.startswith("__"):  # operators: __add__, __radd__ -> add; __iadd__ -> add_
        return f"aten::{decl.name}_" if spelling.startswith("__i") else f"aten::{decl.name}"
    prefix = "" if decl.namespace in ("", "torch") else decl.namespace.replace(".", "_").replace("nn_functional_",
                                                                                               "") + "_"
    if decl.namespace == "nn.functional":
        prefix = ""
    return f"aten::{prefix}{spelling}"


def _wrap(fn, name: str, record):
    def timed(*args, **kwargs):
        with record(name):
            return fn(*args, **kwargs)
    timed.__name__, timed.__qualname__, timed.__doc__ = fn.__name__, fn.__qualname__, fn.__doc__
    timed.__wrapped__ = fn
    return timed


def _patch(owner, attr: str, name: str, record) -> None:
    current = (vars(owner) if isinstance(owner, type) else owner.__dict__).get(attr)
    if not callable(current) or isinstance(current, type) or getattr(current, "_timed", False):
        return  # properties, classes and what is already timed stay as they are
    wrapped = _wrap(current, name, record)
    wrapped._timed = True
    _saved.append((owner, attr, current))
    setattr(owner, attr, wrapped)


def instrument(record) -> None:
    """Swap in the timing wrappers (once, for the outermost profile)."""
    if _saved:
        return
    package = __name__.split(".")[0]
    for decl in list(REGISTRY.values()):
        for attr in method_table(decl):
            if attr in vars(Tensor):
                _patch(Tensor, attr, _aten_name(decl, attr), record)
        module = sys.modules.get(package if decl.namespace in ("", "torch") else f"{package}.{decl.namespace}")
        if module is None:
            continue
        for spelling, words in decl.variants.items():
            if "function" in words or "functional" in words:
                if getattr(module, spelling, None) is not None:
                    _patch(module, spelling, _aten_name(decl, spelling), record)
        if decl.namespace in ("", "torch"):
            functional = sys.modules.get(f"{package}.nn.functional")
            for spelling, words in decl.variants.items():
                if "functional" in words and functional is not None:
                    _patch(functional, spelling, _aten_name(decl, spelling), record)


def restore() -> None:
    while _saved:
        owner, attr, original = _saved.pop()
        setattr(owner, attr, original)
