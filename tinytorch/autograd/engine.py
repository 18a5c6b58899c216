"""The backward engine: iterative, in topological order, one gradient buffer per node.

``Tensor.backward``, ``autograd.backward`` and ``autograd.grad`` all run ``_execute``. It never
recurses (a 150,000-op chain is fine), frees each buffered gradient as soon as it is used, and
releases saved tensors after each node unless the graph is retained. Backward formulas run under
``set_grad_enabled(create_graph)``: with create_graph they record a graph of their own, which is
how second and third derivatives work."""
from __future__ import annotations

import sys
import warnings

import numpy as np

from .._oom import reraise_as_runtime_error
from .._quiet_fp import loud, quiet
from .grad_mode import _State
from .. import tensor as _tensor
from ..tensor import Tensor, _make
from .node import AccumulateGrad, accumulator_of
from ._accumulate import _accumulate, _accumulate_hooked, _in_dtype_of, _sum_arrays
from ._graph_walk import _check_count, _collect, _make_grads, _needed, _root_edges
from ._run_node import _run_node, _run_node_in_anomaly_mode
from .._quiet_fp import ARRAY_OUT as _ARRAY_OUT

# 0-d float32/float64 gradient sums as Python floats: the same bits as numpy's (_ops/_core/binary.py
# says why), where float32 holds the sum without numpy's cast warning
_F32, _F64 = np.dtype(np.float32), np.dtype(np.float64)
_F32_MAX = float(np.finfo(np.float32).max)
_getrefcount = sys.getrefcount


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
    """Run backward from ``root_edges``. ``capture`` maps (node, nr) → slot for autograd.grad."""
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
        buf = buffers.get(node)
        if buf is None:
            buf = buffers[node] = [None] * node._n_outputs
        buf[nr] = g if buf[nr] is None else buf[nr] + g
    captured = {}
    ready = [n for n in dict.fromkeys(roots) if n is not None and deps.get(n, 0) == 0]
    prev_mode = _State.enabled
    _State.enabled = create_graph
    # numpy's inf/nan warnings off for the whole pass (PyTorch's formulas compute those values silently):
    # one switch per backward instead of one per formula
    fp_state = quiet()
    try:
        if needed is None and not _State.anomaly:
            _run_plain(ready, buffers, deps, retain_graph, create_graph, accumulate, restrict)
            ready = ()
        while ready:
            node = ready.pop()
            grads = buffers.pop(node, None)
            if grads is None:
                run = False
            elif node._n_outputs == 1:
                run = grads[0] is not None
            else:
                run = any(g is not None for g in grads)
            if needed is not None:
                run = run and node in needed
                if capture is not None and grads is not None:
                    for nr in range(node._n_outputs):
                        if (node, nr) in capture:
                            captured[(node, nr)] = grads[nr]
            out = ()
            if run:
                if type(node) is AccumulateGrad:
                    if accumulate and (restrict is None or node in restrict):
                        if node._pre_hooks is None and node._post_hooks is None:
                            _accumulate(node.variable, grads[0], create_graph)
                        else:
                            _accumulate_hooked(node, grads[0], create_graph)
                elif capture is not None and not any(nxt in needed for nxt, _ in node.next_functions
                                                     if nxt is not None):
                    pass  # a captured input's own node: nothing below it is wanted
                else:
                    if _State.anomaly:
                        out = _run_node_in_anomaly_mode(node, grads)
                    elif (node._tensor_pre_hooks or node._retained or node._pre_hooks or node._post_hooks
                          or node._n_outputs != 1):
                        out = _run_node(node, grads)
                    else:
                        out = node.backward(grads[0])
                        if type(out) is not tuple:
                            out = (out,)
                    if not retain_graph:
                        node._release()
            grads = None
            n_out = len(out)
            for i, (nxt, nr) in enumerate(node.next_functions):
                if nxt is None:
                    continue
                if i < n_out:
                    g = out[i]
                    if g is not None:
                        buf = buffers.get(nxt)
                        if buf is None:
                            buf = buffers[nxt] = [None] * nxt._n_outputs
                            buf[nr] = g
                        else:
                            prev = buf[nr]
                            buf[nr] = g if prev is None else prev + g
                left = deps[nxt] - 1
                deps[nxt] = left
                if left == 0:
                    ready.append(nxt)
            g = out = None  # drop our references, or the next AccumulateGrad would have to copy
    finally:
        loud(fp_state)
        _State.enabled = prev_mode
    return captured


def _run_plain(ready: list, buffers: dict, deps: dict, retain_graph: bool, create_graph: bool, accumulate: bool,
               restrict) -> None:
    """``_execute``'s loop for ``backward()`` outside anomaly mode (no capture, every node wanted): the
    same steps, with the checks those cases need left out.

    A micrograd-style graph runs this loop thousands of times a step, so the common case is spelled
    out inline: one node flag for hooks, the release of saved tensors, the sum of two gradients of one
    shape and dtype (the numpy sum ``_sum_arrays`` computes), and a single-output node's gradient held
    in ``buffers`` itself rather than in a one-element list. Gradients are never held in a local
    longer than needed, so that AccumulateGrad can still take them over without a copy."""
    for node, buf in buffers.items():  # the roots' buffers, made by _execute as lists
        if node._n_outputs == 1:
            buffers[node] = buf[0]
    pop, push, take, find = ready.pop, ready.append, buffers.pop, buffers.get
    ndarray = np.ndarray
    add = np.add
    while ready:
        node = pop()
        if type(node) is AccumulateGrad:  # no next_functions
            g = take(node, None)
            if g is not None and accumulate and (restrict is None or node in restrict):
                var = node.variable
                if (var._grad is None and not create_graph and not var._hooks and node._pre_hooks is None
                        and node._post_hooks is None):
                    # _accumulate's first gradient, inline: kept without a copy when only ``g`` holds it
                    # (and ``d``, ``g._data`` and getrefcount's argument its array; _steal_or_copy says why)
                    d, like = g._data, var._data
                    if (d.base is None and d.dtype == like.dtype and d.strides == like.strides and d.flags.writeable
                            and _getrefcount(g) <= 2 and _getrefcount(d) <= 3):
                        var._grad = _make(d)
                        g = d = like = None
                        if var._post_acc_hooks:
                            for hook in list(var._post_acc_hooks.values()):
                                hook(var)
                        continue
                    d = like = None
                # held by a one-element list, as in _execute: _steal_or_copy's reference count expects it
                grads = [g]
                g = None
                if node._pre_hooks is None and node._post_hooks is None:
                    _accumulate(node.variable, grads[0], create_graph)
                else:
                    _accumulate_hooked(node, grads[0], create_graph)
                grads = None
            g = None
            continue
        out = ()
        if node._n_outputs != 1:
            grads = take(node, None)
            if grads is not None and any(g is not None for g in grads):
                out = _run_node(node, grads)
                if not retain_graph:
                    node._release()
            grads = None
        else:
            g = take(node, None)
            if g is not None:
                if node._hooked:
                    out = _run_node(node, [g])
                    g = None
                    if not retain_graph:
                        node._release()
                else:
                    out = node.backward(g)
                    g = None
                    if type(out) is not tuple:
                        out = (out,)
                    if not retain_graph:
                        node._freed = True
                        if node._saves_pair:  # the _saved property's setter, inline
                            node._sa = node._sb = None
                        else:
                            node._saved = ()
                        if node._release_extra is not None:
                            node._release_extra()
        # an EdgePair's edges, read from its attributes (the property would cost a call)
        edges = ((node._na, node._nra), (node._nb, node._nrb)) if node._pair else node.next_functions
        if len(out) != len(edges):
            out = (tuple(out) + (None,) * len(edges))[:len(edges)]
        for (nxt, nr), g in zip(edges, out):
            if nxt is None:
                continue
            if g is not None:
                if nxt._n_outputs == 1:
                    prev = find(nxt)
                    if prev is None:
                        buffers[nxt] = g
                    elif create_graph:
                        buffers[nxt] = prev + g
                    else:
                        pd, gd = prev._data, g._data
                        dt = pd.dtype
                        if pd.shape == gd.shape and dt == gd.dtype and type(prev) is Tensor and type(g) is Tensor:
                            prev = None
                            if not pd.ndim and (dt is _F32 or dt is _F64):
                                # as Python floats, as _ops/pointwise/arith.py adds 0-d operands
                                # (see _ops/_core/binary._F32_MAX)
                                r = float(pd) + float(gd)
                                if dt is _F64 or -_F32_MAX <= r <= _F32_MAX:
                                    prev = pd.copy()
                                    prev[()] = r
                            if prev is None:
                                prev = add(pd, gd, out=_ARRAY_OUT)
                                if type(prev) is not ndarray:
                                    prev = np.asarray(prev)
                            buffers[nxt] = _make(prev)
                        else:
                            buffers[nxt] = prev + g
                        prev = pd = gd = None
                else:
                    buf = find(nxt)
                    if buf is None:
                        buf = buffers[nxt] = [None] * nxt._n_outputs
                        buf[nr] = g
                    else:
                        prev = buf[nr]
                        if prev is None:
                            buf[nr] = g
                        elif create_graph:
                            buf[nr] = prev + g
                        else:
                            buf[nr] = _sum_arrays(prev, g)
                        prev = None
            left = deps[nxt] - 1
            deps[nxt] = left
            if left == 0:
                push(nxt)
        g = out = None  # drop our references, or the next AccumulateGrad would have to copy


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
    """Gradients of ``outputs`` with respect to ``inputs``, returned instead of accumulated."""
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


_tensor._run_backward = backward
