"""The backward engine's CPU paths: the dependency count read off add/sub/mul's two-edge nodes without building
their edge tuples, and two gradients of one shape and dtype summed on their arrays. A micrograd step runs the
engine's loop thousands of times over 0-d tensors, where these calls are most of the cost."""
from __future__ import annotations

import numpy as np

from .._quiet_fp import ARRAY_OUT as _ARRAY_OUT, F32, F32_MAX, F64
from ..autograd import engine
from ..autograd.grad_mode import _State
from ..tensor import Tensor, _make
from .._ops._core import paths

_sum_ref = paths.reference_kernel(engine, "_sum_grads")


@paths.kernel(engine, "_sum_grads", when="no graph of the gradient wanted; two plain tensors of one shape and dtype",
              why="speed: the add op's sum without its dispatch; 0-d floats as Python floats, as add sums them")
def sum_grads(prev, g):
    pd, gd = prev._data, g._data
    dt = pd.dtype
    if _State.enabled or pd.shape != gd.shape or dt != gd.dtype or type(prev) is not Tensor or type(g) is not Tensor:
        return _sum_ref(prev, g)
    if not pd.ndim and (dt is F32 or dt is F64):
        r = float(pd) + float(gd)
        if dt is F64 or -F32_MAX <= r <= F32_MAX:  # _quiet_fp.zero_dim, inline
            out = pd.copy()
            out[()] = r
            return _make(out)
    out = np.add(pd, gd, out=_ARRAY_OUT)
    return _make(out if type(out) is np.ndarray else np.asarray(out))


@paths.kernel(engine, "_collect", when="always (a node of any other class is read through next_functions)",
              why="speed: an EdgePair's two edges read from its attributes, no tuples and no property call")
def collect(roots):
    deps = {n: 0 for n in roots if n is not None}
    stack = list(deps)
    get = deps.get
    push = stack.append
    while stack:
        node = stack.pop()
        if node._pair:
            nxt = node._na
            if nxt is not None:
                c = get(nxt)
                if c is None:
                    deps[nxt] = 1
                    push(nxt)
                else:
                    deps[nxt] = c + 1
            nxt = node._nb
            if nxt is not None:
                c = get(nxt)
                if c is None:
                    deps[nxt] = 1
                    push(nxt)
                else:
                    deps[nxt] = c + 1
            continue
        for nxt, _ in node.next_functions:
            if nxt is not None:
                c = get(nxt)
                if c is None:
                    deps[nxt] = 1
                    push(nxt)
                else:
                    deps[nxt] = c + 1
    return deps
