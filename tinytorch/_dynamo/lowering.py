"""What a plan runs for an ATen op, where that can skip the op's public function.

A plan (``replay.py``) runs with autograd off, on inputs whose checks already passed when the graph was
traced at these shapes. For the ops a training step repeats most, the public function's argument checks,
dispatch and dtype cases cost more than the numpy work; a lowering goes straight to the array step the op
itself computes with, behind a guard for the common case, and calls the op otherwise::

    aten.t        a view of x._data.T            (a 2-d transpose; other ranks: the op)
    aten.addmm    linear's _addmm(x, W, b)       (what F.linear runs eagerly for x @ W.t() + b)
    aten.mm       matmul's _np_matmul(a, b)      (what mm runs)

The array steps are read from their modules at each call (``matmul._np_matmul``), so a CPU path registered
onto them (``tinytorch/_cpu``), or the reference under ``TINYTORCH_REFERENCE=1``, is the one that runs, as
in the eager op. Each lowering gives its op's floats bit for bit; ``tests/compile/test_compile_plans.py``
holds them to the ops on random inputs."""
from __future__ import annotations

import numpy as np

from .._op_namespace import ops
from .._ops.linalg import matmul as _matmul
from .._ops.nn import activation as _activation, linear as _linear
from ..tensor import _make, _view_of

__all__ = ["LOWERINGS", "lowering"]

LOWERINGS: dict = {}  # "aten.<op>.<overload>" -> a function of the node's arguments


def lowering(*names: str):
    def register(fn):
        for name in names:
            LOWERINGS[name] = fn
        return fn
    return register


_REAL = (np.dtype(np.float32), np.dtype(np.float64))


def _fallback(target):
    return target._packet._fn


@lowering("aten.t.default")
def _t(x):
    a = x._data
    if a.ndim == 2:
        return _view_of(x, a.T)
    return _T(x)


@lowering("aten.detach.default")
def _detach(x):
    return _make(x._data)


@lowering("aten.view.default", "aten._unsafe_view.default")
def _view(x, size):
    a = x._data
    if a.flags.c_contiguous:  # a row-major array reshapes to any size of its count as a view
        return _view_of(x, a.reshape(size))
    return _VIEW(x, size)


@lowering("aten.mm.default")
def _mm(a, b):
    ad, bd = a._data, b._data
    if ad.ndim == 2 and bd.ndim == 2 and ad.dtype in _REAL and bd.dtype == ad.dtype:
        return _make(np.asarray(_matmul._np_matmul(ad, bd, a._requires_grad, b._requires_grad)))
    return _MM(a, b)


@lowering("aten.addmm.default")
def _addmm(bias, x, wt, *, beta=1, alpha=1):
    b, xd, w = bias._data, x._data, wt._data.T
    if (beta == 1 and alpha == 1 and xd.ndim == 2 and w.ndim == 2 and b.ndim == 1 and xd.dtype in _REAL
            and w.dtype == xd.dtype == b.dtype and w.flags.c_contiguous):
        return _make(_linear._addmm(xd, w, b))
    return _ADDMM(bias, x, wt, beta=beta, alpha=alpha)


@lowering("aten.relu.default")
def _relu(x):
    return _make(_activation._relu(x._data))


@lowering("aten.threshold_backward.default")
def _threshold_backward(g, y, threshold):
    gd, yd = g._data, y._data
    if threshold == 0 and gd.dtype in _REAL and yd.dtype == gd.dtype:
        return _make(_activation._threshold_backward_array(gd, yd))
    return _THRESHOLD_BACKWARD(g, y, threshold)


def _op(name: str):
    packet, overload = name.split(".")[1:]
    return getattr(getattr(ops.aten, packet), overload)._packet._fn


_T, _VIEW, _MM, _ADDMM, _THRESHOLD_BACKWARD = (_op(n) for n in (
    "aten.t.default", "aten.view.default", "aten.mm.default", "aten.addmm.default", "aten.threshold_backward.default"))
