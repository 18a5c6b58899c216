"""The backward engine's CPU paths: its loop with the per-node costs cut (a node with nothing to check run inline,
an EdgePair's edges read from its attributes), the dependency count read off add/sub/mul's two-edge nodes without building
their edge tuples, and two gradients of one shape and dtype summed on their arrays. A micrograd step runs the
engine's loop thousands of times over 0-d tensors, where these calls are most of the cost."""
from __future__ import annotations

from heapq import heappop, heappush

import numpy as np

from .._quiet_fp import ARRAY_OUT as _ARRAY_OUT, F32, F32_MAX, F64, loud, quiet
from ..autograd import engine
from ..autograd.engine import (_SINK_KEY, _Sink, _apart_from_leaf_grads, _capture, _entry, _first_ready, _needed,
                               _step, accumulate_grad)
from ..autograd.node import AccumulateGrad
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


@paths.kernel(engine, "_execute", when="always (the loop below runs every check the reference loop runs)",
              why="speed: a node with nothing to check runs inline, an EdgePair's edges read from its attributes, "
                  "dependency counts and sums through this file's kernels")
def execute(root_edges, root_grads, retain_graph: bool, create_graph: bool, capture=None,
             accumulate: bool = True, restrict: set | None = None, user_grads: bool = False):
    """Run backward from ``root_edges``. ``capture`` maps (node, nr) → slot for autograd.grad.

    PyTorch's engine in one loop: ``compute_dependencies`` (``_collect``: edges into each node), then
    nodes taken from ``ready`` (in PyTorch's order: autograd/engine.py's ``_entry``, inlined) once their count
    falls to zero, each given its summed gradient from
    ``buffers`` (PyTorch's ``InputBuffer``: the tensor itself for a node with one output, a list of
    ``_n_outputs`` slots for the others), each result added into its next node's buffer. Leaves'
    ``AccumulateGrad`` nodes hand their gradient to ``accumulate_grad`` (above).

    A micrograd-style graph runs the loop thousands of times a step, so a node with no hooks, one
    output and nothing to check (no ``autograd.grad`` filter, no anomaly mode) runs its backward
    inline; the others go through ``_step``. Gradients are never held in a local longer than needed,
    so that AccumulateGrad can take them over without a copy."""
    roots = [n for n, _ in root_edges]
    deps = collect(roots)
    if user_grads and accumulate:
        root_grads = _apart_from_leaf_grads(root_grads, deps)
    needed = None
    if capture is not None or restrict is not None:
        targets = {n for n, _ in capture} if capture is not None else set()
        if restrict is not None:
            targets |= restrict
        needed = _needed(roots, targets)
    buffers: dict = {}
    for (node, nr), g in zip(root_edges, root_grads):
        if node is None or g is None:
            continue
        if node._n_outputs == 1:
            prev = buffers.get(node)
            buffers[node] = g if prev is None else prev + g
        else:
            buf = buffers.get(node)
            if buf is None:
                buf = buffers[node] = [None] * node._n_outputs
            buf[nr] = g if buf[nr] is None else buf[nr] + g
    prev = g = None
    captured = {}
    ready = _first_ready(roots, deps)
    # one per-run flag: autograd.grad's filter or anomaly mode sends every node through _step
    checked = needed is not None or _State.anomaly
    take, find = buffers.pop, buffers.get
    prev_mode = _State.enabled
    _State.enabled = create_graph
    # a profile recording this thread does not see the pass's ops: tinytorch's formulas (most run on arrays)
    # are not PyTorch's backward kernels, so their rows would not be PyTorch's
    recorder, _State.recorder = _State.recorder, None
    # numpy's inf/nan warnings off for the whole pass (PyTorch's formulas compute those values silently):
    # one switch per backward instead of one per formula
    fp_state = quiet()
    try:
        held = None  # the last node the previous one made ready, kept off the queue (see the loop's end)
        while True:
            if held is not None:
                node, held = held, None
            elif ready:
                node = heappop(ready)[1]
                if type(node) is _Sink:
                    node = node.node
            else:
                break
            if type(node) is AccumulateGrad:  # a leaf's sink: no edges below it
                if capture is not None and node in buffers:
                    _capture(node, [find(node)], capture, captured)
                if accumulate and node in buffers and (restrict is None or node in restrict):
                    # handed over straight from the buffer: no reference held here (accumulate_grad's
                    # reference count decides whether the gradient can become .grad without a copy)
                    accumulate_grad(node, take(node), create_graph)
                else:
                    take(node, None)
                continue
            grads = take(node, None)  # the node's InputBuffer
            if grads is None:
                out = ()
            elif checked or node._hooked or node._n_outputs != 1:
                out = _step(node, grads, retain_graph, needed, capture, captured)
            else:
                out = node.backward(grads)
                if type(out) is not tuple:
                    out = (out,)
                if not retain_graph:
                    node._release()
            grads = None
            # an EdgePair's edges, read from its attributes (the property would cost a call)
            edges = ((node._na, node._nra), (node._nb, node._nrb)) if node._pair else node.next_functions
            if len(out) != len(edges):
                out = (tuple(out) + (None,) * len(edges))[:len(edges)]
            for (nxt, nr), g in zip(edges, out):
                if nxt is None:
                    continue
                if g is not None:  # into nxt's InputBuffer
                    if nxt._n_outputs == 1:
                        buf, prev = None, find(nxt)
                    else:
                        buf = find(nxt)
                        if buf is None:
                            buf = buffers[nxt] = [None] * nxt._n_outputs
                        prev = buf[nr]
                    if prev is not None:  # InputBuffer::accumulate
                        g = sum_grads(prev, g)
                        prev = None
                    if buf is None:
                        buffers[nxt] = g
                    else:
                        buf[nr] = g
                        buf = None
                left = deps[nxt] - 1
                deps[nxt] = left
                if left == 0:
                    if held is not None:  # a second node made ready: the first one goes to the queue
                        heappush(ready, _entry(held))
                    held = nxt
            g = out = None  # drop our references, or the next AccumulateGrad would have to copy
            # the node made ready last runs next without the queue when it comes before every queued one (a push of
            # a strict first then its pop leave the heap as it was): half the nodes of a micrograd step
            if held is not None and ready:
                if (_SINK_KEY if type(held) is AccumulateGrad else -held._seq) >= ready[0][0]:
                    heappush(ready, _entry(held))
                    held = None
    finally:
        loud(fp_state)
        _State.enabled = prev_mode
        _State.recorder = recorder
    return captured
