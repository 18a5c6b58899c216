"""The backward engine: iterative, in topological order, one gradient buffer per node.

``Tensor.backward``, ``autograd.backward`` and ``autograd.grad`` all run ``_execute``. It never
recurses (a 150,000-op chain is fine), frees each buffered gradient as soon as it is used, and
releases saved tensors after each node unless the graph is retained. Backward formulas run under
``set_grad_enabled(create_graph)``: with create_graph they record a graph of their own, which is
how second and third derivatives work.

Before the run: the roots' edges and gradients (checked as PyTorch checks them), the dependency count of
every node below the roots, and, for ``autograd.grad`` and ``backward(inputs=...)``, the nodes from which
a wanted one can be reached. Into the leaves (``accumulate_grad``, AccumulateGrad's work): the first
gradient a leaf receives becomes its ``.grad`` without a copy when nothing else can see its memory
(reference counts tell, as in PyTorch); later ones add into it in place; with create_graph the sum is
recorded. Tensor hooks, node pre-hooks and post-accumulate hooks run in PyTorch's order."""
from __future__ import annotations

import sys
import warnings
from heapq import heappop, heappush

import numpy as np

from .._dtype import FLOATING_NP
from .._meta_data import mark_meta, meta_result
from .._oom import reraise_as_runtime_error
from .._quiet_fp import loud, quiet
from .grad_mode import _State, version_counter
from .. import tensor as _tensor
from ..tensor import Size, Tensor, _make
from .node import ACCUMULATE_SEQUENCE_NR, AccumulateGrad, accumulator_of, non_overlapping_and_dense
from ._run_node import _run_node, _run_node_in_anomaly_mode, _tensor_pre_hooks


# -- before the run: the roots' edges and gradients, the dependency counts ----------------------
def _ones_seed(out):
    """backward()'s implicit gradient of a scalar output: a one (a meta output's is a meta one)."""
    shape = out._data.shape  # (a 0-d array made directly: np.ones's Python layer costs about a microsecond)
    seed = _make(np.ones(shape, dtype=out._data.dtype) if shape else np.array(1, dtype=out._data.dtype))
    return mark_meta(seed) if out._meta else seed


def _grad_list(grad_tensors, n: int) -> list:
    """The gradients given for ``n`` outputs, as a list: PyTorch ignores surplus ones and refuses missing ones."""
    if grad_tensors is None:
        return [None] * n
    grads = [grad_tensors] if isinstance(grad_tensors, Tensor) else list(grad_tensors)
    if len(grads) < n:
        raise RuntimeError(f"got {n} tensors and {len(grads)} gradients")
    return grads[:n]


def _make_grads(outputs, grad_outputs):
    """The gradient each output starts from: the caller's (shape checked) or, for a scalar, a one."""
    grads = []
    for i, (out, g) in enumerate(zip(outputs, grad_outputs)):
        if g is None and out._requires_grad:
            if out._data.size != 1:
                raise RuntimeError("grad can be implicitly created only for scalar outputs")
            if out._data.dtype not in FLOATING_NP:
                raise RuntimeError(f"grad can be implicitly created only for real scalar outputs but got {out.dtype}")
            g = (_State.backward_seed or _ones_seed)(out)
        elif g is not None:
            if not isinstance(g, Tensor):
                g = _make(np.asarray(g, dtype=out._data.dtype))
            if g._data.shape != out._data.shape:
                raise RuntimeError(f"Mismatch in shape: grad_output[{i}] has a shape of {Size(g._data.shape)} and "
                                   f"output[{i}] has a shape of {Size(out._data.shape)}.")
        grads.append(g)
    return grads


def _root_edges(outputs):
    for i, t in enumerate(outputs):
        if not t._requires_grad:
            raise RuntimeError(f"element {i} of tensors does not require grad and does not have a grad_fn")
    return [t._edge() for t in outputs]


def _collect(roots):
    """Dependency counts (edges into each node) for the graph below ``roots``; iterative DFS.
    Roots start at 0, so the keys are every node reached. (An ``EdgePair``'s two next nodes are read from its
    attributes: its ``next_functions`` is built on each access; the other nodes' edges are walked as they are,
    without a list of their next nodes made per node.)"""
    deps = {n: 0 for n in roots if n is not None}
    stack = list(deps)
    while stack:
        node = stack.pop()
        for nxt, _ in ((node._na, 0), (node._nb, 0)) if node._pair else node.next_functions:
            if nxt in deps:
                deps[nxt] += 1
            elif nxt is not None:  # (None: an input that needs no gradient)
                deps[nxt] = 1
                stack.append(nxt)
    return deps


def _needed(roots, targets: set) -> set:
    """Nodes from which some target node can be reached (only those run in ``autograd.grad``)."""
    order = []
    visited = set()
    for root in roots:
        if root is None or root in visited:
            continue
        stack = [(root, iter(root.next_functions))]
        visited.add(root)
        while stack:
            node, it = stack[-1]
            advanced = False
            for nxt, _ in it:
                if nxt is not None and nxt not in visited:
                    visited.add(nxt)
                    stack.append((nxt, iter(nxt.next_functions)))
                    advanced = True
                    break
            if not advanced:
                stack.pop()
                order.append(node)
    needed = set()
    for node in order:  # children before parents
        if node in targets or any(nxt in needed for nxt, _ in node.next_functions if nxt is not None):
            needed.add(node)
    return needed


# -- into the leaves: AccumulateGrad's work -------------------------------------------------------
_getrefcount = sys.getrefcount


class _Held:
    __slots__ = ("_data",)


def _counts_in_callee(g) -> tuple:
    d = g._data
    return _getrefcount(g), _getrefcount(d)


def _counts_when_held_once() -> tuple:
    """What getrefcount reports inside a callee, in _steal_or_copy's pattern, for a tensor held only by its caller's
    local and for its array held only by the tensor: 3 and 3 up to Python 3.13; 3.14 counts fewer, its stack
    borrowing references without counting them. Measured once, so the thresholds follow the running interpreter."""
    held = _Held()
    held._data = np.empty(1)
    return _counts_in_callee(held)


_ONLY_G, _ONLY_D = _counts_when_held_once()


def _steal_or_copy(g, like: np.ndarray):
    """A gradient safe to keep as ``.grad``: the array itself when nothing else can see its memory.

    Reference counts tell, as in PyTorch's AccumulateGrad (whose engine hands the gradient over and
    keeps none): g is held by accumulate_grad's local, our argument and getrefcount's; its array by
    g._data, the local and the argument (the counts the running Python reports for that: _ONLY_G, _ONLY_D).
    A view qualifies when its base tensor is held by it alone.
    Only an array that keeps PyTorch's layout contract is kept (``_obeys_layout_contract``): a weight gradient
    arriving transposed is copied, or ``w.grad.view(-1)`` would fail after ``x @ w.t()``. A copy has the leaf's
    own strides where the leaf is non-overlapping and dense, else C order (PyTorch's clone_obey_contract)."""
    d = g._data
    dense = _dense(like)
    if (d.flags.writeable and _obeys_layout_contract(d, like, dense) and _getrefcount(g) <= _ONLY_G
            and _getrefcount(d) <= _ONLY_D):
        base = d.base
        if base is None:
            return _make(d)
        owner = g._base
        if (owner is not None and owner._data is base and base.base is None and type(base) is np.ndarray
                and _getrefcount(owner) <= _ONLY_D and _getrefcount(base) <= _ONLY_D + 1):
            return _make(d)
    if dense and like.size:  # the leaf's strides exactly (a size-1 dim's too)
        out = np.lib.stride_tricks.as_strided(np.empty(like.size, like.dtype), like.shape, like.strides,
                                              writeable=True)
    else:
        out = np.empty(like.shape, like.dtype)
    np.copyto(out, d)
    return _make(out)


def _dense(a: np.ndarray) -> bool:
    """PyTorch's is_non_overlapping_and_dense of ``a`` (C order, the common case, answered by numpy's flag)."""
    if a.flags.c_contiguous:
        return True
    return non_overlapping_and_dense(a.shape, a.strides, a.itemsize)


def _obeys_layout_contract(d: np.ndarray, like: np.ndarray, dense: bool) -> bool:
    """PyTorch's obeys_layout_contract for a gradient ``d`` of a leaf ``like`` (``dense``: the leaf is non-overlapping
    and dense): the leaf's strides; for a leaf that is not dense, C order. Stricter than PyTorch's at a dense leaf's
    size-1 dims, whose strides PyTorch leaves free: some of tinytorch's backward results (a keepdim sum's) do not
    give those dims PyTorch's strides yet, so the leaf's own are the better guess of what PyTorch's ``.grad``
    shows (a (1, n) leaf broadcast over a batch keeps (n, 1))."""
    if dense:
        return d.strides == like.strides
    return d.flags.c_contiguous


# factory.empty_like: factories are ops, which build on this module; _ops/creation/factory.py registers it when
# it loads (``bind_empty_like``)
_empty_like = None


def bind_empty_like(empty_like) -> None:
    global _empty_like
    _empty_like = empty_like


def _copy_in_graph(g):
    """A copy recorded as PyTorch records it (CopyBackwards): never the caller's own tensor."""
    return _empty_like(g).copy_(g)


def _in_dtype_of(g, t):
    """``g`` cast to ``t``'s dtype; a complex gradient of a real tensor keeps its real part (PyTorch)."""
    if g._data.dtype.kind == "c" and t._data.dtype.kind != "c":
        g = g.real
    return g.to(t.dtype)


def _leaf_hooks(var, g):
    """A leaf's tensor hooks (``register_hook``) on the gradient it receives, each given the last one's result."""
    for hook in list(var._hooks.values()):
        new = hook(g)
        if new is not None:
            g = new
    return g


def accumulate_grad(node: AccumulateGrad, g, create_graph: bool) -> None:
    """AccumulateGrad's apply: ``g`` into ``node.variable.grad``, with the leaf's tensor hooks, then the
    node's pre-hooks, the sum, the post-accumulate hooks and the node's hooks (PyTorch's order).

    The engine hands ``g`` over without keeping a reference, so that ``_steal_or_copy`` can tell from
    reference counts whether it may become ``.grad`` as it is."""
    var = node.variable
    if var._hooks:
        g = _leaf_hooks(var, g)
    if node._hooked and node._pre_hooks:
        for hook in list(node._pre_hooks.values()):
            new = hook((g,))
            if new is not None:
                g = new[0]
        new = None
    # what the node's post-hooks are shown, as it arrived (held only when there are such hooks: a
    # reference kept here would make _steal_or_copy copy)
    arrived = (g,) if node._hooked and node._post_hooks else None
    if g._sparse_layout or var._sparse_layout:
        _accumulate_sparse(var, g, create_graph)
    else:
        if g._data.dtype != var._data.dtype:
            g = _in_dtype_of(g, var)
        old = var._grad
        if var._meta:  # a meta leaf's gradient is a meta tensor (the backward ran on its zeros)
            var._grad = g if g._meta else meta_result(_copy_in_graph(g) if create_graph else _make(g._data), var)
        elif old is None:
            var._grad = _copy_in_graph(g) if create_graph else _steal_or_copy(g, var._data)
        elif create_graph or old._requires_grad:
            var._grad = old + g
        else:
            od = old._data
            if od.flags.writeable and od.shape == g._data.shape:
                od += g._data  # in place: the optimizer holds no copy of .grad, but users may (as in PyTorch)
                version_counter(old)[0] += 1
            else:
                var._grad = old + g
    if var._post_acc_hooks:
        for hook in list(var._post_acc_hooks.values()):
            hook(var)
    if arrived is not None:
        for hook in list(node._post_hooks.values()):
            hook((), arrived)


def _accumulate_sparse(var, g, create_graph: bool) -> None:
    """A sparse gradient, or any gradient of a sparse leaf: kept in the layout it arrives in (PyTorch keeps
    torch.mm's dense gradient of a sparse matrix dense) and summed by the layouts' own add, which makes a
    dense sum where PyTorch's is dense; never densified into an array here."""
    old = var._grad
    if old is None:
        var._grad = _copy_in_graph(g) if create_graph and not g._sparse_layout else g.clone()
    elif old._sparse_layout and not g._sparse_layout:
        var._grad = g + old  # dense + sparse: PyTorch refuses sparse + dense
    elif create_graph or old._requires_grad:
        var._grad = old + g
    else:
        old.add_(g)  # in place, as PyTorch's ``variable_grad += new_grad``


def _sum_grads(prev, g):
    """Two gradients arriving at one input of a node, summed (PyTorch's ``InputBuffer::accumulate``); under
    create_graph the sum is recorded. (``tinytorch/_cpu/engine.py`` sums plain arrays without the op's
    dispatch: a value used by many ops gets one sum per use.)"""
    out = prev + g
    if out.is_meta and not out.requires_grad and prev.stride() != g.stride():
        # laid out as numpy lays out the CPU sum (C order where the two disagree), not as an add op's result (the
        # first operand's order): PyTorch's InputBuffer sums into whichever operand it may reuse
        out = out.contiguous()
    return out


def _apart_from_leaf_grads(root_grads: list, seen) -> list:
    """Copy a caller's gradient that shares memory with some leaf's ``.grad`` (``backward(x.grad)``):
    accumulating in place into that ``.grad`` would change the gradient still on its way elsewhere."""
    held = [n.variable._grad._data for n in seen
            if type(n) is AccumulateGrad and n.variable._grad is not None]
    if not held:
        return root_grads
    return [g if g is None or not any(np.may_share_memory(g._data, h) for h in held) else g.clone()
            for g in root_grads]


# -- the ready queue: PyTorch's order ------------------------------------------------------------
class _Sink:
    """A ready AccumulateGrad in the queue. All of them share PyTorch's largest sequence number, so two of them
    must compare neither less nor greater (a tie): ``heapq``'s algorithm is libstdc++'s ``priority_queue``'s
    (sift up on push; on pop, the hole sunk to a leaf then the last entry sifted up), so ties then come out in
    PyTorch's order. A node compared with a node raises; this wrapper never does."""

    __slots__ = ("node",)

    def __init__(self, node) -> None:
        self.node = node

    def __lt__(self, other) -> bool:
        return False


_SINK_KEY = -ACCUMULATE_SEQUENCE_NR


def _entry(node) -> tuple:
    """``node``'s entry in the ready queue, a min-heap: the node made last (largest ``_seq``) first, a leaf's
    AccumulateGrad before every other node (PyTorch's ReadyQueue on its CPU thread)."""
    return (_SINK_KEY, _Sink(node)) if type(node) is AccumulateGrad else (-node._seq, node)


def _execute(root_edges, root_grads, retain_graph: bool, create_graph: bool, capture=None,
             accumulate: bool = True, restrict: set | None = None, user_grads: bool = False):
    """Run backward from ``root_edges``. ``capture`` maps (node, nr) → slot for autograd.grad.

    PyTorch's engine in one loop: ``compute_dependencies`` (``_collect``: edges into each node), then
    nodes taken from ``ready`` (in PyTorch's order, see ``_entry``) once their count falls to zero, each given its
    summed gradient from ``buffers`` (``_into_buffer``), each result added into its next node's buffer. Leaves'
    ``AccumulateGrad`` nodes hand their gradient to ``accumulate_grad`` (above). Gradients are never held
    in a local longer than needed, so that AccumulateGrad can take them over without a copy.

    A micrograd step runs this loop over thousands of 0-d nodes, where the loop's own costs are most of the
    step, so it spends little per node: a node with nothing to check runs its formula inline (the others go
    through ``_step``), an ``EdgePair``'s two edges are read from its attributes, ``_into_buffer``'s common case
    is written out in the loop, and the node made ready last skips the queue when it would come out of it next
    anyway."""
    roots = [n for n, _ in root_edges]
    deps = _collect(roots)
    if user_grads and accumulate:
        root_grads = _apart_from_leaf_grads(root_grads, deps)
    needed = None
    if capture is not None or restrict is not None:  # autograd.grad's filter: only nodes leading to a wanted one
        needed = _needed(roots, {n for n, _ in capture or ()} | (restrict or set()))
    buffers: dict = {}
    for (node, nr), g in zip(root_edges, root_grads):
        if node is not None and g is not None:
            _into_buffer(buffers, node, nr, g)
    g = None
    captured = {}
    # the queue at the start: the roots nothing else leads to, entered as PyTorch's GraphRoot enters them (a root
    # given twice at its last place, where its count from GraphRoot falls to zero)
    ready = []
    for n in reversed(dict.fromkeys(reversed(roots))):
        if n is not None and deps[n] == 0:
            heappush(ready, _entry(n))
    checked = needed is not None or _State.anomaly  # every node then goes through _step
    take, find = buffers.pop, buffers.get
    # backward formulas record a graph only with create_graph; a profile does not see them (they are not
    # PyTorch's backward kernels); numpy's inf/nan warnings stay off (PyTorch's formulas compute those silently)
    prev_mode, recorder, fp_state = _State.enabled, _State.recorder, quiet()
    _State.enabled, _State.recorder = create_graph, None
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
                if capture is not None and node in buffers:  # a wanted leaf: its hooks run, as it is its turn
                    g = find(node)
                    _capture(node, [_leaf_hooks(node.variable, g) if node.variable._hooks else g], capture, captured)
                    g = None
                if accumulate and node in buffers and (restrict is None or node in restrict):
                    accumulate_grad(node, take(node), create_graph)  # handed over: no reference kept here
                else:
                    take(node, None)
                continue
            grads = take(node, None)
            if grads is None:
                out = ()
            elif checked or node._hooked or node._n_outputs != 1:
                out = _step(node, grads, retain_graph, needed, capture, captured)
            else:  # nothing around the formula
                out = node.backward(grads)
                if type(out) is not tuple:
                    out = (out,)
                if not retain_graph:
                    node._release()
            grads = None
            edges = ((node._na, node._nra), (node._nb, node._nrb)) if node._pair else node.next_functions
            if len(out) != len(edges):  # a missing gradient is None
                out = (tuple(out) + (None,) * len(edges))[:len(edges)]
            for (nxt, nr), g in zip(edges, out):
                if nxt is None:
                    continue
                if g is not None:
                    if nxt._n_outputs == 1:  # _into_buffer(buffers, nxt, nr, g), its common case written out
                        prev = find(nxt)
                        buffers[nxt] = g if prev is None else _sum_grads(prev, g)
                    else:
                        _into_buffer(buffers, nxt, nr, g)
                left = deps[nxt] - 1
                deps[nxt] = left
                if left == 0:
                    if held is not None:  # a second node made ready: the first one goes to the queue
                        heappush(ready, _entry(held))
                    held = nxt
            g = prev = out = None  # drop our references, or the next AccumulateGrad would have to copy
            # The node made ready last runs next without the queue when it comes strictly before every queued
            # one: pushing it then popping it would return it and leave the heap as it was (only AccumulateGrads
            # tie, and a held one goes to the queue when one of them is at the top).
            if held is not None and ready:
                if (_SINK_KEY if type(held) is AccumulateGrad else -held._seq) >= ready[0][0]:
                    heappush(ready, _entry(held))
                    held = None
    finally:
        loud(fp_state)
        _State.enabled, _State.recorder = prev_mode, recorder
    return captured


def _into_buffer(buffers: dict, node, nr: int, g) -> None:
    """``g`` into ``node``'s InputBuffer (PyTorch's): the gradient itself for a node with one output, a list of
    ``_n_outputs`` slots for the others; a second gradient for one slot is summed (``_sum_grads``)."""
    if node._n_outputs == 1:
        prev = buffers.get(node)
        buffers[node] = g if prev is None else _sum_grads(prev, g)
    else:
        buf = buffers.setdefault(node, [None] * node._n_outputs)
        buf[nr] = g if buf[nr] is None else _sum_grads(buf[nr], g)


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
        if node not in needed:
            return ()
        if capture is not None:
            if not any(nxt in needed for nxt, _ in node.next_functions if nxt is not None):
                # a wanted input's own node, nothing below it wanted: it does not run, but the hooks of its
                # tensors do (and their retain_grad), before the capture sees the gradient (PyTorch's order)
                _capture(node, _tensor_pre_hooks(node, grads), capture, captured)
                return ()
            _capture(node, grads, capture, captured)  # as it arrived: its tensor hooks run with the node
    out = _run_node_in_anomaly_mode(node, grads, needed) if _State.anomaly else _run_node(node, grads, needed)
    if not retain_graph:
        node._release()
    return out


_warned_create_graph = False


def _warn_create_graph() -> None:
    global _warned_create_graph
    if not _warned_create_graph:
        _warned_create_graph = True
        warnings.warn(
            "Using backward() with create_graph=True will create a reference cycle between the parameter and its "
            "gradient which can cause a memory leak. We recommend using autograd.grad when creating the graph to "
            "avoid this. If you have to use this function, make sure to reset the .grad fields of your parameters "
            "to None after use to break the cycle and avoid the leak.", UserWarning, stacklevel=4)


def _backward_inputs(inputs) -> set:
    """``backward(inputs=...)``: the nodes whose gradients are kept (a non-leaf input's gradient is retained)."""
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
    return restrict


def backward(tensors, grad_tensors=None, retain_graph=None, create_graph: bool = False,
             grad_variables=None, inputs=None) -> None:
    """Accumulate gradients of ``tensors`` into the leaves' ``.grad`` (or only into ``inputs``)."""
    outputs = [tensors] if isinstance(tensors, Tensor) else list(tensors)
    given = _grad_list(grad_variables if grad_tensors is None else grad_tensors, len(outputs))
    if create_graph:
        _warn_create_graph()
    edges = _root_edges(outputs)
    grads = _make_grads(outputs, given)
    restrict = None if inputs is None else _backward_inputs(inputs)
    try:
        run = _State.backward_watch or _execute  # (a graph capture in this thread watches the run)
        run(edges, grads, create_graph if retain_graph is None else retain_graph, create_graph, restrict=restrict,
            user_grads=any(g is not None for g in given))
    except MemoryError as e:  # numpy's, as PyTorch's RuntimeError naming the bytes
        reraise_as_runtime_error(e)


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
    if allow_unused is None:
        allow_unused = materialize_grads
    if retain_graph is None:
        retain_graph = create_graph
    grad_outputs = _grad_list(grad_outputs, len(outputs))
    edges = _root_edges(outputs)
    for t in inputs_t:
        if not t._requires_grad:
            raise RuntimeError("One of the differentiated Tensors does not require grad")
    grads = _make_grads(outputs, grad_outputs)
    in_edges = [t._edge() for t in inputs_t]
    capture = {e: i for i, e in enumerate(in_edges)}
    try:
        captured = (_State.backward_watch or _execute)(edges, grads, retain_graph, create_graph, capture=capture,
                                                       accumulate=False)
    except MemoryError as e:
        reraise_as_runtime_error(e)
    result = []
    for i, (t, e) in enumerate(zip(inputs_t, in_edges)):
        g = captured.get(e)
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
            if t._meta and not g._meta:  # a meta input's gradient is a meta tensor, as .backward() leaves it
                g = meta_result(g, t)
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
