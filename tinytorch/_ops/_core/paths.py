"""The second layer: PyTorch's CPU paths, registered onto the ops' declarations.

An op file says what the op is (its declaration, a reference forward in plain numpy with PyTorch's checks,
the backward formula once in tinytorch ops). Everything that exists to be fast or to give PyTorch's bits on
a given CPU path lives in ``tinytorch/_cpu/`` and registers itself here, with a guard saying when it
applies; the op files never import it. PyTorch is built the same way: ``native_functions.yaml`` and
``derivatives.yaml`` say what an op is, ``aten/src/ATen/native/cpu/`` holds the kernels.

Three kinds of path:

- ``forward(key, when=...)``: a function with the op's signature that runs instead of the reference and
  calls ``reference(key)`` itself wherever its guard says no. It is bound where the reference was (the
  ``Tensor`` methods and operators, and the public function's call), at import, so a call costs what it
  cost before the split.
- ``backward(NodeClass, when=...)``: a node's ``backward`` on arrays, used when no graph of the gradient
  is wanted; it calls the formula (kept as ``NodeClass.formula``) wherever its guard says no.
- ``kernel(module, name, when=...)``: one step of a reference that its op file calls by a module-level
  name (``arith._scaled_sum``: ``a + alpha * b``), replaced by a kernel that computes the same step the way
  a PyTorch CPU path does (one fused rounding, a compiled loop, threads).

With ``TINYTORCH_REFERENCE=1`` in the environment, ``tinytorch/_cpu`` registers nothing: every op runs
its reference, which is complete on its own (only slower, and a few ulps from PyTorch where a path
emulates PyTorch's rounding). ``PATHS`` lists what was registered, for ``python -m tinytorch.explain`` and
for the test that holds each path to its reference (``tests/house/test_house_second_layer.py``)."""
from __future__ import annotations

import contextlib
import os
from dataclasses import dataclass, field

from .registry import _OUT_OVERLAP, REGISTRY, _bind_methods

__all__ = ["REFERENCE", "PATHS", "Path", "forward", "backward", "kernel", "off", "reference", "reference_kernel"]

REFERENCE = os.environ.get("TINYTORCH_REFERENCE", "") not in ("", "0")


@dataclass
class Path:
    """One registered path: what it runs on (an op key or a node class), when, and how close it stays."""
    target: str          # "mul" (an op's key), "MulBackward0" (a node class), "arith._scaled_sum" (a step)
    kind: str            # "forward", "backward" or "kernel"
    fn: object
    when: str            # the guard, in words: where the path applies (elsewhere it calls the reference)
    ulps: int | None = 0  # 0: the reference's floats; N: within N ulps of them; None: within float rounding
    why: str = ""        # what it is for: speed, PyTorch's bits on a path, or both
    # "max": the ulps counted at each result's largest magnitude, not at each value (a path that sums in
    # another order: a cancelling sum's small results carry the rounding of its large terms); "program": at
    # the largest magnitude a program holds, its inputs and all its results (a path whose statistics round
    # otherwise: a mean near zero, or a gradient that cancels, carries the rounding of the inputs' magnitude)
    scale: str = ""
    undo: object = field(default=None, repr=False)  # puts the reference back (``off``)
    redo: object = field(default=None, repr=False)  # binds the path again

    @property
    def where(self) -> str:
        code = getattr(self.fn, "__code__", None)
        return f"{self.fn.__module__}:{code.co_firstlineno}" if code else self.fn.__module__


PATHS: dict = {}   # target -> [Path], in registration order
_REFERENCES: dict = {}  # op key -> the reference implementation, as the op file declared it


def reference(key: str):
    """The op's reference implementation (what its file declares), whatever path is bound now."""
    decl = REGISTRY[key]
    return _REFERENCES.get(key, decl.impl)


def _bind(decl, fn) -> None:
    """Make ``fn`` what every spelling of ``decl`` calls: the methods and operators (bound on ``Tensor``) and
    the public function, which holds its implementation in a closure cell (pointed at ``fn`` here, so
    callers that imported the public function before this ran call the path too)."""
    if decl.impl in _OUT_OVERLAP:  # out='s overlap rule is the op's, whichever function computes it
        _OUT_OVERLAP[fn] = _OUT_OVERLAP[decl.impl]
    decl.impl = fn
    public = decl.public
    public.__closure__[public.__code__.co_freevars.index("impl")].cell_contents = fn
    _bind_methods(decl)


def forward(key: str, *, when: str, ulps: int = 0, why: str = "", scale: str = ""):
    """Register the decorated function as a forward path of op ``key`` (a ``REGISTRY`` key)."""
    def register(fn):
        decl = REGISTRY[key]
        _REFERENCES.setdefault(key, decl.impl)
        before = decl.impl
        PATHS.setdefault(key, []).append(Path(key, "forward", fn, when, ulps, why, scale, lambda: _bind(decl, before),
                                              lambda: _bind(decl, fn)))
        _bind(decl, fn)
        return fn
    return register


def backward(node_cls, *, when: str, ulps: int = 0, why: str = "", scale: str = ""):
    """Register the decorated function as ``node_cls.backward``; the formula stays as ``node_cls.formula``."""
    def register(fn):
        if "formula" not in node_cls.__dict__:
            node_cls.formula = node_cls.backward
        before = node_cls.backward
        PATHS.setdefault(node_cls.__name__, []).append(
            Path(node_cls.__name__, "backward", fn, when, ulps, why, scale, lambda: setattr(node_cls, "backward", before),
                 lambda: setattr(node_cls, "backward", fn)))
        node_cls.backward = fn
        return fn
    return register


def kernel(module, name: str, *, when: str, ulps: int = 0, why: str = "", scale: str = ""):
    """Register the decorated function as ``module.<name>``, a step of an op's reference; the reference step
    stays available as ``reference_kernel(module, name)``."""
    def register(fn):
        target = f"{module.__name__.rpartition('.')[2]}.{name}"
        before = getattr(module, name)
        _KERNELS.setdefault(target, before)
        PATHS.setdefault(target, []).append(Path(target, "kernel", fn, when, ulps, why, scale,
                                                 lambda: setattr(module, name, before),
                                                 lambda: setattr(module, name, fn)))
        setattr(module, name, fn)
        return fn
    return register


_KERNELS: dict = {}  # "arith._scaled_sum" -> the reference step


def reference_kernel(module, name: str):
    """The reference step ``module.<name>`` as its op file wrote it, whatever kernel is bound now."""
    return _KERNELS.get(f"{module.__name__.rpartition('.')[2]}.{name}", getattr(module, name))


@contextlib.contextmanager
def off(path: Path):
    """Inside the block, ``path`` is not bound: what it replaced runs (for the tests that hold each path to
    its reference, and for a reader comparing the two)."""
    path.undo()
    try:
        yield
    finally:
        path.redo()
