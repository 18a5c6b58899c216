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
``Tensor.backward`` rebound (a trace recording the backward).

**Plain SGD fused into the backward** (``FusedSgd``). A step that ends ``loss.backward(); opt.step();
opt.zero_grad()`` (or ``model.zero_grad()``) with plain SGD (no momentum, weight decay or maximize) leaves no
gradient anyone can read: ``.grad`` is None before the step and after it. Eagerly, each weight's gradient is still
written out in full (at batch 1 an outer product ``g x^T``, megabytes), then read again by the update
``w.add_(grad, alpha=-lr)``. Here the backward plan is made once more with each such outer product replaced by
``outer_fma_into``, which adds each product into the weight as it makes it: ``fma(-lr, g[i] * x[j], w[i, j])``,
the product rounded as the plan rounds it and the sum rounded once as SGD's fused add rounds it, so the same bits
without the product stored. The other gradients (biases, a batch's GEMMs) go through SGD's own update (``_sgd``,
the function ``step()`` calls). Versions count as eagerly (one per parameter updated); ``.grad`` stays None. Each
step checks what the plan assumes (the optimizer's class and groups, every parameter's gradient None and
hook-free, the learning rate read anew from ``param_groups``); any other case runs the calls as recorded."""
from __future__ import annotations

import sys

import numpy as np

from .._oom import reraise_as_runtime_error
from .._ops._core import paths
from .._ops._kernels import compiled as _compiled
from .._quiet_fp import loud, quiet
from ..autograd import engine as _engine
from ..autograd.grad_mode import NO_VERSION, _State, version_counter
from ..autograd.node import AccumulateGrad
from ..nn.modules.module import Module
from ..optim import sgd as _sgd_ops
from ..optim.sgd import SGD
from .compiled_function import _Planned
from .replay import Plan

__all__ = ["FusedSgd", "backward_inline"]

_PLANNED_NODE = _Planned._backward_cls
_tensor = sys.modules["tinytorch.tensor"]  # (the module: the package's ``tensor`` is the factory function)


def _plain_leaf_edges(node) -> bool:
    """Whether every edge of ``node`` ends in nothing or in a leaf's sink of its own that only sums: no hooks
    anywhere on the way, no gradient there yet, no leaf reached twice (the engine sums such gradients first)."""
    seen = set()
    for nxt, _ in node.next_functions:
        if nxt is None:
            continue
        if type(nxt) is not AccumulateGrad or nxt._hooked or id(nxt) in seen:
            return False
        seen.add(id(nxt))
        var = nxt.variable
        if var._grad is not None or var._hooks or var._post_acc_hooks or var._sparse_layout or var._meta:
            return False
    return True


def _plain_walk(loss, retain_graph) -> bool:
    """Whether ``loss.backward()`` would walk only the plain graph above (see the module's docstring)."""
    node = loss.grad_fn
    if (type(node) is not _PLANNED_NODE or retain_graph or node._hooked or node._freed or node.saved is None
            or loss._retains_grad or _State.anomaly or _tensor._run_backward is not _engine.backward):
        return False
    plans = node.plans
    return sum(plans.out_grad) == 1 and plans.out_grad[loss._output_nr] and _plain_leaf_edges(node)


def backward_inline(loss, retain_graph) -> bool:
    """``loss.backward(retain_graph=retain_graph)`` for a replayed step's loss, done here where the engine's walk
    is the plain one above; False, with nothing done, where the engine must run it."""
    if not _plain_walk(loss, retain_graph):
        return False
    node = loss.grad_fn
    plans = node.plans
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


def sgd_outer_vectors(a, b):
    """What the backward plan gives in place of a weight's gradient ``mm(a, b)`` of a column ``a`` and a row
    ``b``: copies of the two vectors, for the update made once the plan has run (when nothing reads the weights
    any more, and a vector that is itself a weight's may be updated)."""
    return a._data[:, 0].copy(), b._data[0].copy()


_FLOATS = (np.dtype(np.float32), np.dtype(np.float64))


def _outer_products(part, need: list) -> dict:
    """{backward output node: its dtype} for each gradient that is a plain outer product: ``mm`` of an (m, 1)
    column and a (1, n) row of float32/float64, read by nothing but the plan's output."""
    found = {}
    for k, node in enumerate(part.bw_outputs):
        if (getattr(node, "op", None) != "call_function" or str(node.target) != "aten.mm.default" or node.kwargs
                or len(node.users) != 1):
            continue
        vals = [getattr(a, "meta", {}).get("val") for a in node.args]
        if len(vals) != 2 or any(getattr(v, "ndim", None) != 2 for v in vals):
            continue
        dtypes = {getattr(v._data, "dtype", None) for v in vals}
        if vals[0].shape[1] == 1 and vals[1].shape[0] == 1 and len(dtypes) == 1 and dtypes <= set(_FLOATS):
            found[node] = dtypes.pop()
    return found


class FusedSgd:
    """A replayed step ``loss.backward(); opt.step(); opt.zero_grad()`` with plain SGD, run as one backward plan
    that updates the weights (see the module's docstring). Made once per captured step (``make``); ``run`` does
    the three calls, or returns False with nothing done where this step is not one it can run."""

    def __init__(self, after: list):
        self.backward, self.step, self.zero = after
        # id(AOTPlans) -> (them, backward Plan, {output position fused: dtype}, outer_fma_into) or None
        self.fused: dict = {}

    @classmethod
    def make(cls, program):
        """The fused step for ``program`` (its calls after the graph, ``program.step``), or None where they are
        not exactly backward, step, zero_grad(set_to_none=True)."""
        before, after, _ = program.step
        if before or [c.name for c in after] != ["backward", "step", "zero_grad"]:
            return None
        backward, step, zero = after
        if backward.retain or step.args or any(a is not True for a in zero.args):
            return None
        if paths.REFERENCE:
            return None  # (the reference's update is the add op's, which need not round as an FMA does)
        return cls(after)

    def _planned(self, plans):
        got = self.fused.get(id(plans), False)
        if got is False:
            got = None
            partition = getattr(plans, "partition", None)
            if partition is not None:
                part, gm = partition
                outer = _outer_products(part, plans.need)
                kernels = _compiled.family("outer") if outer else None  # (numba's, loaded where it serves)
                if kernels is None:  # (a batch's GEMMs, or no numba: the plan as it is, its gradients to SGD's)
                    got = (plans, plans.backward, {}, None)
                else:
                    bw = Plan("backward", part.saved + part.tangents, part.backward, part.bw_outputs, attrs=gm,
                              calls={n: sgd_outer_vectors for n in outer})
                    at = {k: outer[n] for k, n in enumerate(part.bw_outputs) if n in outer}
                    got = (plans, bw, at, kernels.outer_fma_into)
            self.fused[id(plans)] = got
        return got

    def _groups(self, opt, primals: list, need: list):
        """{primal index: lr} for the parameters the backward differentiates, where ``opt`` is plain SGD over
        them and nothing is unusual; None otherwise."""
        if type(opt) is not SGD or "step" in vars(opt):
            return None
        lr_of = {}
        for group in opt.param_groups:
            lr = group["lr"]
            if (group["momentum"] != 0 or group["weight_decay"] != 0 or group["maximize"] or type(lr) not in (float, int)
                    or not 0 < lr < float("inf")):
                return None
            for p in group["params"]:
                if p._grad is not None:
                    return None
                lr_of[id(p)] = lr
        found = {}
        for i in need:
            p = primals[i]
            lr = lr_of.get(id(p))
            if (lr is None or p.grad_fn is not None or p._vc is NO_VERSION or p._hooks or p._post_acc_hooks
                    or not p._data.flags.c_contiguous or not p._data.flags.writeable):
                return None
            found[i] = lr
        return found

    def _zeroed(self, obj, opt, primals: list, need: list) -> bool:
        """Whether the ``zero_grad`` call drops the gradient of every parameter the backward reaches, and has
        no other gradient to drop."""
        if obj is opt:
            return True
        if not isinstance(obj, Module):
            return False
        mine = set()
        for p in obj.parameters():
            if p._grad is not None:
                return False
            mine.add(id(p))
        return all(id(primals[i]) in mine for i in need)

    def run(self, leaves: list, outputs: list) -> bool:
        loss = outputs[self.backward.output]
        if not _plain_walk(loss, None):
            return False
        node = loss.grad_fn
        got = self._planned(node.plans)
        if got is None:
            return False
        plans, bw, at, kernel = got
        if plans is not node.plans:
            return False
        primals = [e[0].variable if e[0] is not None else None for e in node.next_functions]
        if any(p is None for p in (primals[i] for i in plans.need)):
            return False
        opt = self.step.read(leaves)
        lrs = self._groups(opt, primals, plans.need)
        if (lrs is None or not self._zeroed(self.zero.read(leaves), opt, primals, plans.need)
                or any(primals[plans.need[k]]._data.dtype != dtype for k, dtype in at.items())):
            return False
        seed = _engine._make_grads([loss], [None])
        prev_mode, recorder, fp_state = _State.enabled, _State.recorder, quiet()
        _State.enabled, _State.recorder = False, None
        try:
            grads = bw.run(*node.saved, *seed)
            node._release()
            rest: dict = {}  # lr -> (parameters, gradients) for SGD's own update
            for k, i in enumerate(plans.need):
                p = primals[i]
                if k not in at:
                    pair = rest.setdefault(lrs[i], ([], []))
                    pair[0].append(p)
                    pair[1].append(grads[k])
                    continue
                u, v = grads[k]
                w = p._data
                kernel(u, v, w.dtype.type(-lrs[i]), w)  # w.add_(u v^T, alpha=-lr)
                version_counter(p)[0] += 1
            grads = None
            for lr, (params, gs) in rest.items():
                _sgd_ops._sgd(params, gs, [], 0, 0, lr, 0, False, False, opt._scratch)
        except MemoryError as e:
            reraise_as_runtime_error(e)
        finally:
            _State.enabled, _State.recorder = prev_mode, recorder
            loud(fp_state)
        return True
