"""The backward engine: iterative, in topological order, one gradient buffer per node.

``Tensor.backward``, ``autograd.backward`` and ``autograd.grad`` all run ``_execute``. It never
recurses (a 150,000-op chain is fine), frees each buffered gradient as soon as it is used, and
releases saved tensors after each node unless the graph is retained. Backward formulas run under
``set_grad_enabled(create_graph)``: with create_graph they record a graph of their own, which is
how second and third derivatives work."""
from __future__ import annotations

import warnings

import numpy as np

from .._oom import reraise_as_runtime_error
from .._quiet_fp import loud, quiet
from .grad_mode import _State
from .. import tensor as _tensor
from ..tensor import Tensor, _make
from .node import AccumulateGrad, accumulator_of
from ._accumulate import _in_dtype_of, accumulate_grad
from ._graph_walk import _check_count, _collect, _make_grads, _needed, _root_edges
from ._run_node import _run_node, _run_node_in_anomaly_mode


def _sum_grads(prev, g):
    """Two gradients arriving at one input of a node, summed (PyTorch's ``InputBuffer::accumulate``); under
    create_graph the sum is recorded. (``tinytorch/_cpu/engine.py`` sums plain arrays without the op's
    dispatch: a value used by many ops gets one sum per use.)"""
    return prev + g


def _apart_from_leaf_grads(root_grads: list, seen) -> list:
    """Copy a caller's gradient that shares memory with some leaf's ``.grad`` (``backward(x.grad)``):
    accumulating in place into that ``.grad`` would change the gradient still on its way elsewhere."""
    held = [n.variable._grad._data for n in seen
            if type(n) is AccumulateGrad and n.variable._grad is not None]
    if not held:
        return root_grads
    return [g if g is None or not any(np.may_share_memory(g._data, h) for h in held) else g.clone()
            for g in root_grads]


def _execute(root_edges, root_grads, retain_graph: bool, create_graph: bool, capture=None,
             accumulate: bool = True, restrict: set | None = None, user_grads: bool = False):
    """Run backward from ``root_edges``. ``capture`` maps (node, nr) → slot for autograd.grad.

    PyTorch's engine in one loop: ``compute_dependencies`` (``_collect``: edges into each node), then
    nodes taken from ``ready`` once their count falls to zero, each given its summed gradient from
    ``buffers`` (PyTorch's ``InputBuffer``: the tensor itself for a node with one output, a list of
    ``_n_outputs`` slots for the others), each result added into its next node's buffer. Leaves'
    ``AccumulateGrad`` nodes hand their gradient to ``_accumulate.accumulate_grad``.

    A micrograd-style graph runs the loop thousands of times a step, so a node with no hooks, one
    output and nothing to check (no ``autograd.grad`` filter, no anomaly mode) runs its backward
    inline; the others go through ``_step``. Gradients are never held in a local longer than needed,
    so that AccumulateGrad can take them over without a copy."""
    roots = [n for n, _ in root_edges]
    deps = _collect(roots)
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
    ready = [n for n in dict.fromkeys(roots) if n is not None and deps.get(n, 0) == 0]
    # one per-run flag: autograd.grad's filter or anomaly mode sends every node through _step
    checked = needed is not None or _State.anomaly
    pop, push, take, find = ready.pop, ready.append, buffers.pop, buffers.get
    prev_mode = _State.enabled
    _State.enabled = create_graph
    # a profile recording this thread does not see the pass's ops: tinytorch's formulas (most run on arrays)
    # are not PyTorch's backward kernels, so their rows would not be PyTorch's
    recorder, _State.recorder = _State.recorder, None
    # numpy's inf/nan warnings off for the whole pass (PyTorch's formulas compute those values silently):
    # one switch per backward instead of one per formula
    fp_state = quiet()
    try:
        while ready:
            node = pop()
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
                        g = _sum_grads(prev, g)
                        prev = None
                    if buf is None:
                        buffers[nxt] = g
                    else:
                        buf[nr] = g
                        buf = None
                left = deps[nxt] - 1
                deps[nxt] = left
                if left == 0:
                    push(nxt)
            g = out = None  # drop our references, or the next AccumulateGrad would have to copy
    finally:
        loud(fp_state)
        _State.enabled = prev_mode
        _State.recorder = recorder
    return captured


def _capture(node, grads: list, capture: dict, captured: dict) -> None:
    """autograd.grad: keep the gradients flowing into the wanted inputs' edges."""
    for nr in range(node._n_outputs):
        if (node, nr) in capture:
            captured[(node, nr)] = grads[nr]


def _step(node, grads, retain_graph: bool, needed, capture, captured) -> tuple:
    """One node's backward where something needs checking: hooks, retained gradients, several outputs,
    ``autograd.grad``'s filter (``needed``, ``capture``) or anomaly mode."""
    grads = [grads] if node._n_outputs == 1 else grads
    if needed is not None:
        if capture is not None:
            _capture(node, grads, capture, captured)
        if node not in needed:
            return ()
        if capture is not None and not any(nxt in needed for nxt, _ in node.next_functions if nxt is not None):
            return ()  # a captured input's own node: nothing below it is wanted
    out = _run_node_in_anomaly_mode(node, grads) if _State.anomaly else _run_node(node, grads)
    if not retain_graph:
        node._release()
    return out


_warned_create_graph = False


def backward(tensors, grad_tensors=None, retain_graph=None, create_graph: bool = False,
             grad_variables=None, inputs=None) -> None:
    """Accumulate gradients of ``tensors`` into the leaves' ``.grad`` (or only into ``inputs``)."""
    global _warned_create_graph
    outputs = [tensors] if isinstance(tensors, Tensor) else list(tensors)
    if grad_tensors is None:
        grad_tensors = grad_variables
    if grad_tensors is None or isinstance(grad_tensors, Tensor):
        grad_tensors = [grad_tensors] * len(outputs) if grad_tensors is None else [grad_tensors]
    grad_tensors = _check_count(outputs, list(grad_tensors))
    if retain_graph is None:
        retain_graph = create_graph
    if create_graph and not _warned_create_graph:
        _warned_create_graph = True
        warnings.warn(
            "Using backward() with create_graph=True will create a reference cycle between the parameter and its "
            "gradient which can cause a memory leak. We recommend using autograd.grad when creating the graph to "
            "avoid this. If you have to use this function, make sure to reset the .grad fields of your parameters "
            "to None after use to break the cycle and avoid the leak.", UserWarning, stacklevel=3)
    edges = _root_edges(outputs)
    grads = _make_grads(outputs, grad_tensors)
    restrict = None
    if inputs is not None:
        inputs = [inputs] if isinstance(inputs, Tensor) else list(inputs)
        if not inputs:
            raise RuntimeError("`inputs` argument to `backward()` cannot be empty.")
        restrict = set()
        for t in inputs:
            if not t._requires_grad:  # PyTorch retains the grad of every input, hence its wording
                raise RuntimeError("can't retain_grad on Tensor that has requires_grad=False")
            if t.grad_fn is None:
                restrict.add(accumulator_of(t))
            else:
                t.retain_grad()
                restrict.add(t.grad_fn)
    keep = [n for n, _ in edges]  # hold the leaves' accumulators alive for the run
    try:
        _execute(edges, grads, retain_graph, create_graph, restrict=restrict,
                 user_grads=any(g is not None for g in grad_tensors))
    except MemoryError as e:  # numpy's, as PyTorch's RuntimeError naming the bytes
        reraise_as_runtime_error(e)
    del keep


def grad(outputs, inputs, grad_outputs=None, retain_graph=None, create_graph: bool = False,
         only_inputs: bool = True, allow_unused=None, is_grads_batched: bool = False,
         materialize_grads: bool = False):
    """Gradients of ``outputs`` with respect to ``inputs``, returned instead of accumulated. With
    ``is_grads_batched`` each grad_output carries a batch of cotangents in its first dimension, and each
    gradient the batch of vector-Jacobian products (computed one cotangent at a time)."""
    if is_grads_batched:
        return _batched_grad(outputs, inputs, grad_outputs, retain_graph, create_graph, allow_unused,
                             materialize_grads)
    single_out = isinstance(outputs, Tensor)
    outputs = [outputs] if single_out else list(outputs)
    inputs_t = [inputs] if isinstance(inputs, Tensor) else list(inputs)
    if grad_outputs is None:
        grad_outputs = [None] * len(outputs)
    elif isinstance(grad_outputs, Tensor):
        grad_outputs = [grad_outputs]
    if allow_unused is None:
        allow_unused = materialize_grads
    if retain_graph is None:
        retain_graph = create_graph
    grad_outputs = _check_count(outputs, list(grad_outputs))
    edges = _root_edges(outputs)
    for t in inputs_t:
        if not t._requires_grad:
            raise RuntimeError("One of the differentiated Tensors does not require grad")
    grads = _make_grads(outputs, grad_outputs)
    in_edges = [t._edge() for t in inputs_t]
    capture = {e: i for i, e in enumerate(in_edges)}
    try:
        captured = _execute(edges, grads, retain_graph, create_graph, capture=capture, accumulate=False)
    except MemoryError as e:
        reraise_as_runtime_error(e)
    result = []
    hooked = set()  # a leaf listed twice runs its hooks once
    for i, (t, e) in enumerate(zip(inputs_t, in_edges)):
        g = captured.get(e)
        if g is not None and t.grad_fn is None and t._hooks and e not in hooked:
            for hook in list(t._hooks.values()):
                new = hook(g)
                if new is not None:
                    g = new
            captured[e] = g
            hooked.add(e)
        if g is None:
            if materialize_grads:
                g = _make(np.zeros(t._data.shape, dtype=t._data.dtype))
            elif not allow_unused:
                raise RuntimeError(f"The differentiated Tensor at index {i} appears to not have been used in the "
                                   "graph. Set allow_unused=True if this is the desired behavior.")
        else:
            if g._data.dtype != t._data.dtype:
                g = _in_dtype_of(g, t)  # as PyTorch's validate_outputs: each input's gradient in its own dtype
            if not create_graph and g._requires_grad:
                g = g.detach()
        result.append(g)
    return tuple(result)


def _batched_grad(outputs, inputs, grad_outputs, retain_graph, create_graph, allow_unused, materialize_grads):
    """``grad(..., is_grads_batched=True)``: one backward per cotangent of the batch, results stacked."""
    outs = [outputs] if isinstance(outputs, Tensor) else list(outputs)
    gos = [grad_outputs] if isinstance(grad_outputs, Tensor) else list(grad_outputs or [None] * len(outs))
    sizes = {g._data.shape[0] for g in gos if g is not None}
    if len(sizes) != 1 or any(g is None for g in gos):
        raise RuntimeError("If `is_grads_batched=True`, we interpret the first dimension of each grad_output as "
                           "the batch dimension. The sizes of the remaining dimensions are expected to match the "
                           "shape of corresponding output.")
    n = sizes.pop()
    per = [grad(outs, inputs, [g[b] for g in gos], retain_graph=True if b < n - 1 else retain_graph,
                create_graph=create_graph, allow_unused=allow_unused, materialize_grads=materialize_grads)
           for b in range(n)]
    res = []
    for i in range(len(per[0]) if per else 0):
        column = [p[i] for p in per]
        if all(c is None for c in column):
            res.append(None)
        elif create_graph:
            res.append(_stack_in_graph(column))
        else:
            like = next(c for c in column if c is not None)._data
            res.append(_make(np.stack([np.zeros_like(like) if c is None else c._data for c in column])))
    return tuple(res)


def _stack_in_graph(column):
    """The stacked gradients, differentiably (create_graph=True): sum over b of e_b * g_b, e_b one-hot
    along a new first dimension (the engine builds on no op module; tensor methods do it)."""
    n = len(column)
    like = next(c for c in column if c is not None)
    out = None
    for b, c in enumerate(column):
        if c is None:
            continue
        onehot = np.zeros((n,) + (1,) * like._data.ndim, dtype=like._data.dtype)
        onehot[b] = 1
        term = c.unsqueeze(0) * _make(onehot)
        out = term if out is None else out + term
    return out


_tensor.bind_backward(backward)
