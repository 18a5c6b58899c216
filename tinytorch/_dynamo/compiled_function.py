"""``CompiledFunction``: the one autograd node a compiled call's results hang from (``CompiledFunctionBackward``,
as PyTorch's AOTAutograd names it).

Inside, one of two ways:

  - **Stage 2, planned** (``AOTPlans``): at the first call the captured graph becomes a joint graph of the
    forward and its backward, cut in two (``tinytorch/_functorch/aot_autograd.py``); each half is written out as
    one Python function (``replay.Plan``). The node's forward runs the forward plan (no autograd node per op) and
    keeps the values the backward reads; its backward runs the backward plan on them and the gradients that
    reached the node. Each op computes with its own formula and CPU path, and the backward runs the formulas the
    engine would run, in the engine's order, so values and gradients equal eager tinytorch's bit for bit.
  - **Stage 1, through autograd** (``_Inner``), where no joint graph could be made (a backward computed on
    arrays only, which ``make_fx`` cannot see): the graph is replayed op by op with autograd recording as usual;
    its results are handed out through this one node, which keeps the inner results and the tensors they came
    from, and its backward asks the engine for the inner graph's gradients (``autograd.grad`` of the inner
    results, seeded with the gradients that reached the node).

Double backward through a compiled call is refused, as PyTorch's compiled autograd function refuses it."""
from __future__ import annotations

from ..autograd.engine import grad as _grad
from ..autograd.function import Function
from ..autograd.node import _FREED_MSG
from ..autograd.grad_mode import _State, no_grad
from ..tensor import Tensor

__all__ = ["AOTPlans", "CompiledFunction", "hide_graph", "run_planned"]


class _Inner:
    """The eager results of one call and the tensors the node differentiates them by."""

    def __init__(self, outputs: list, inputs: list):
        self.outputs, self.inputs = outputs, inputs


class AOTPlans:
    """The forward and backward plans of one compiled graph at one set of input shapes. ``need``: positions of
    the primals the backward differentiates; ``out_grad``: which outputs carry a gradient; ``n_out``: how many
    of the forward plan's results are the program's outputs (the rest are saved for the backward)."""

    def __init__(self, forward, backward, need: list, out_grad: list, n_out: int, n_primals: int):
        self.forward, self.backward = forward, backward
        self.need, self.out_grad, self.n_out, self.n_primals = need, out_grad, n_out, n_primals


def _refuse_double_backward() -> None:
    if _State.enabled:  # a graph of the gradient asked for: PyTorch's compiled node refuses it
        raise RuntimeError("torch.compile with aot_autograd does not currently support double backward")


class _Planned(Function):
    @staticmethod
    def forward(ctx, plans: AOTPlans, *primals):
        results = plans.forward.run(*primals)
        ctx.plans, ctx.saved = plans, results[plans.n_out:]
        outs = results[:plans.n_out]
        ctx.mark_non_differentiable(*[o for o, g in zip(outs, plans.out_grad) if not g and isinstance(o, Tensor)])
        return tuple(outs)

    @staticmethod
    def backward(ctx, *grads):
        _refuse_double_backward()
        if ctx.saved is None:  # freed by an earlier backward that did not retain the graph
            raise RuntimeError(_FREED_MSG)
        plans = ctx.plans
        tangents = [g for g, carries in zip(grads, plans.out_grad) if carries]
        got = plans.backward.run(*ctx.saved, *tangents)
        out = [None] * (1 + plans.n_primals)
        for i, g in zip(plans.need, got):
            out[1 + i] = g
        return tuple(out)


def _drop_saved(ctx) -> None:
    ctx.saved = None  # the forward's values, freed with the graph (the engine calls this without retain_graph)


_Planned._backward_cls._release_extra = _drop_saved
_Planned.__name__ = _Planned.__qualname__ = "CompiledFunction"
_Planned._backward_cls.__name__ = _Planned._backward_cls.__qualname__ = "CompiledFunctionBackward"


def run_planned(plans: AOTPlans, primals: list) -> list:
    """The program's outputs computed by the plans; through one ``CompiledFunctionBackward`` node when a
    gradient can flow, by the forward plan alone otherwise."""
    if _State.enabled and any(t.requires_grad for t in primals):
        return list(_Planned.apply(plans, *primals))
    with no_grad():
        return list(plans.forward.run(*primals)[:plans.n_out])


class CompiledFunction(Function):
    @staticmethod
    def forward(ctx, inner: _Inner, *inputs):
        ctx.inner = inner
        ctx.set_materialize_grads(False)
        out = []
        for o in inner.outputs:
            if isinstance(o, Tensor):
                out.append(o.detach())
            else:
                out.append(o)
        ctx.mark_non_differentiable(*[d for d, o in zip(out, inner.outputs)
                                      if isinstance(o, Tensor) and not o.requires_grad])
        return tuple(out)

    @staticmethod
    def backward(ctx, *grads):
        _refuse_double_backward()
        inner = ctx.inner
        if inner is None:  # freed by an earlier backward that did not retain the graph
            raise RuntimeError(_FREED_MSG)
        pairs = [(o, g) for o, g in zip(inner.outputs, grads)
                 if g is not None and isinstance(o, Tensor) and o.requires_grad]
        if not pairs:
            return (None,) * (1 + len(inner.inputs))
        got = _grad([o for o, _ in pairs], inner.inputs, [g for _, g in pairs], retain_graph=True,
                    allow_unused=True)
        return (None, *got)


def _drop_inner(ctx) -> None:
    # the inner graph is kept across the engine's call (retain_graph=True above) for a caller that retains the
    # outer one; without that, it goes with the outer graph, so a second backward fails as it does eagerly
    ctx.inner = None


CompiledFunction._backward_cls._release_extra = _drop_inner


def hide_graph(outputs: list, inputs: list) -> list:
    """``outputs`` (computed eagerly from ``inputs``) handed out through one ``CompiledFunctionBackward`` node
    when any of them carries a gradient; unchanged otherwise."""
    if not _State.enabled or not any(isinstance(o, Tensor) and o.requires_grad for o in outputs):
        return outputs
    needing = list({id(t): t for t in inputs if t.requires_grad}.values())  # each tensor once: one gradient
    return list(CompiledFunction.apply(_Inner(outputs, needing), *needing))
