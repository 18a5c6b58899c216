"""Two-edge graph nodes (add, sub, mul) and their fast construction.

A micrograd step records thousands of these on 0-d tensors, where bookkeeping is the whole cost: an
``EdgePair`` keeps its two edges as attributes instead of three tuples (each tuple that outlives the
forward is one more object for Python's garbage collector to walk), and ``binary_node`` builds one
without the generic constructor's calls."""
from __future__ import annotations

from .grad_mode import _Active
from .node import Node


class EdgePair(Node):
    """A node with exactly two edges, kept as four attributes (``_na, _nra, _nb, _nrb``) instead of
    three tuples: ``next_functions`` is built on access, as PyTorch builds it from its C++ edges. The
    graph of a micrograd step is thousands of these (add, sub, mul), and each tuple that outlives the
    forward is one more object for Python's garbage collector to walk. The backward engine reads
    the attributes directly."""

    _pair = True
    _na = _nb = None
    _nra = _nrb = 0
    _instance_attrs = ("_na", "_nra", "_nb", "_nrb")

    @property
    def next_functions(self) -> tuple:
        return ((self._na, self._nra), (self._nb, self._nrb))

    @next_functions.setter
    def next_functions(self, edges) -> None:
        (na, nra), (nb, nrb) = edges
        self._na, self._nb = na, nb
        if nra != self._nra:
            self._nra = nra
        if nrb != self._nrb:
            self._nrb = nrb


class SavedPair(EdgePair):
    """An ``EdgePair`` that saves up to two of its inputs (mul), each with its version, as four
    attributes (``_sa, _sb, _va, _vb``) instead of two tuples: one fewer object per node for the
    garbage collector. ``_saved`` and ``_versions_of_saved`` read and write them as the tuples every
    other node keeps, so the generic machinery (``_unpacked_saved``, pack hooks, release) works
    unchanged; the hot paths (``binary_node``, the node's backward, the engine's release) use the
    attributes."""

    _sa = _sb = _va = _vb = None
    _saves_pair = True
    _instance_attrs = ("_sa", "_va", "_sb", "_vb")

    @property
    def _saved(self) -> tuple:
        return () if self._freed else (self._sa, self._sb)

    @_saved.setter
    def _saved(self, saved) -> None:
        self._sa, self._sb = saved if saved else (None, None)

    @property
    def _versions_of_saved(self) -> tuple:
        return (self._va, self._vb)

    def _release(self) -> None:
        """``Node._release`` with the attributes written directly (the property would cost a call)."""
        self._freed = True
        self._sa = self._sb = None
        if self._release_extra is not None:
            self._release_extra()

    @_versions_of_saved.setter
    def _versions_of_saved(self, versions) -> None:
        self._va, self._vb = versions if versions else (None, None)


_new = object.__new__


_NO_EDGE = (None, 0)


def binary_node(cls, a, b, save_a, save_b):
    """``cls((a._edge(), b._edge()))`` for an ``EdgePair`` class (``a`` or ``b`` None for a number),
    saving ``save_a``/``save_b`` (each an input or None; a ``SavedPair`` class when any is given) as
    ``_save_inputs`` does, with fewer calls: the
    forward of a small op (``x * y`` on 0-d tensors) costs a few microseconds in all, and building its
    node was a third of that."""
    if _Active.anomaly or _Active.saved_hooks:
        node = cls((_NO_EDGE if a is None else a._edge(), _NO_EDGE if b is None else b._edge()))
        if save_a is not None or save_b is not None:
            node._save_inputs(save_a, save_b)
        return node
    node = _new(cls)
    # each edge as Tensor._edge makes it; a leaf's live accumulator (the common case) read inline
    if a is not None:  # None: a number, no edge
        fn = a.grad_fn
        if fn is not None:
            node._na = fn
            if a._output_nr:
                node._nra = a._output_nr
        elif a._requires_grad:
            ref = a._accumulator
            fn = ref() if ref is not None and a._base is None else None
            if fn is not None:
                node._na = fn
            else:
                node._na = a._edge()[0]
    if b is not None:
        fn = b.grad_fn
        if fn is not None:
            node._nb = fn
            if b._output_nr:
                node._nrb = b._output_nr
        elif b._requires_grad:
            ref = b._accumulator
            fn = ref() if ref is not None and b._base is None else None
            if fn is not None:
                node._nb = fn
            else:
                node._nb = b._edge()[0]
    # a SavedPair's saves as its attributes (each a tensor's version counter is read once)
    if save_a is not None:
        node._sa = save_a
        node._va = save_a._vc[0]
    if save_b is not None:
        node._sb = save_b
        node._vb = save_b._vc[0]
    return node
