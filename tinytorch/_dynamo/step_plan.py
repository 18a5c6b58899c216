"""A compiled training step's ``loss.backward()`` run as its plan, without the engine's loop around it.

A replayed step (``train_step.py``) hands its results out through one ``CompiledFunctionBackward`` node whose edges
lead straight to the parameters' ``AccumulateGrad`` sinks, so the graph ``loss.backward()`` walks is always the
same two levels::

    loss --CompiledFunctionBackward--> AccumulateGrad(W1), AccumulateGrad(b1), ...

The engine spends its loop on that walk at every step: dependency counts, a ready queue, input buffers, the node's
generic ``Function`` backward. ``backward_inline`` does what the engine would do for this one graph, in order,
with the engine's own pieces: the seed (``engine._make_grads``), the backward plan under the engine's modes (no
graph of the gradient, no profiler rows, numpy's inf/nan warnings off), the node released as a backward without
``retain_graph`` releases it, and each gradient handed to ``engine.accumulate_grad`` without a reference kept, so
that ``.grad`` takes the plan's array over as it does eagerly. Every float is the plan's, so ``.grad``, and the
parameters and optimizer state the replayed ``step()`` then writes from it, are eager's bit for bit.

Anything that makes the walk observable takes the engine instead (``backward_inline`` returns False having done
nothing): a hook on the loss, its node or a leaf (their order is the engine's to keep), ``retain_grad`` on the
loss, ``retain_graph``, anomaly mode, a leaf's gradient already there (the sum into it is the engine's), more
than one output carrying a gradient, a graph already freed (the engine raises PyTorch's error), or
``Tensor.backward`` rebound (a trace recording the backward)."""
from __future__ import annotations

import sys

from .._oom import reraise_as_runtime_error
from .._quiet_fp import loud, quiet
from ..autograd import engine as _engine
from ..autograd.grad_mode import _State
from ..autograd.node import AccumulateGrad
from .compiled_function import _Planned

__all__ = ["backward_inline"]

_PLANNED_NODE = _Planned._backward_cls
_tensor = sys.modules["tinytorch.tensor"]  # (the module: the package's ``tensor`` is the factory function)


def _plain_leaf_edges(node) -> bool:
    """Whether every edge of ``node`` ends in nothing or in a leaf's sink that only sums: no hooks anywhere on
    the way, no gradient there yet."""
    for nxt, _ in node.next_functions:
        if nxt is None:
            continue
        if type(nxt) is not AccumulateGrad or nxt._hooked:
            return False
        var = nxt.variable
        if var._grad is not None or var._hooks or var._post_acc_hooks or var._sparse_layout or var._meta:
            return False
    return True


def backward_inline(loss, retain_graph) -> bool:
    """``loss.backward(retain_graph=retain_graph)`` for a replayed step's loss, done here where the engine's walk
    is the plain one above; False, with nothing done, where the engine must run it."""
    node = loss.grad_fn
    if (type(node) is not _PLANNED_NODE or retain_graph or node._hooked or node._freed or node.saved is None
            or loss._retains_grad or _State.anomaly or _tensor._run_backward is not _engine.backward):
        return False
    plans = node.plans
    if sum(plans.out_grad) != 1 or not plans.out_grad[loss._output_nr] or not _plain_leaf_edges(node):
        return False
    seed = _engine._make_grads([loss], [None])
    prev_mode, recorder, fp_state = _State.enabled, _State.recorder, quiet()
    _State.enabled, _State.recorder = False, None
    try:
        got = list(plans.backward.run(*node.saved, *seed))
        del seed
        node._release()  # (the saved values go, as after an engine's backward without retain_graph)
        edges = node.next_functions
        need = plans.need
        # each gradient handed over with no reference left here: accumulate_grad's reference count then lets
        # .grad take the plan's array, as it takes the engine's
        for k in range(len(got) - 1, -1, -1):
            sink = edges[need[k]][0]
            if sink is None:
                got.pop()
            else:
                _engine.accumulate_grad(sink, got.pop(), False)
    except MemoryError as e:  # numpy's, as the engine reports it
        reraise_as_runtime_error(e)
    finally:
        _State.enabled, _State.recorder = prev_mode, recorder
        loud(fp_state)
    return True
