"""``CompiledFunction``: the one autograd node a compiled call's results hang from (``CompiledFunctionBackward``,
as PyTorch's AOTAutograd names it).

Stage 1 (now): the captured graph is replayed op by op with autograd recording as usual, exactly as eager
would run it; then its results are handed out through this one node, which keeps the inner results and the
tensors they were computed from. Its backward asks the engine for the inner graph's gradients
(``autograd.grad`` of the inner results, seeded with the gradients that reached the node) and passes them on to
the node's inputs. The forward values are eager's, and every gradient is computed by the same backward formulas
in the same order, so both equal eager tinytorch bit for bit; the caller sees one node, as in PyTorch.

Stage 2 will replace the inside, not the node: the graph's ops run as fused numba kernels on arrays (no Tensor
and no autograd node per op), and the backward becomes a second, derived graph run the same way. The node, its
name, the guards and the capture stay as they are.

Double backward through a compiled call is refused, as PyTorch's compiled autograd function refuses it."""
from __future__ import annotations

from ..autograd.engine import grad as _grad
from ..autograd.function import Function
from ..autograd.grad_mode import _State
from ..tensor import Tensor

__all__ = ["CompiledFunction", "hide_graph"]


class _Inner:
    """The eager results of one call and the tensors the node differentiates them by."""

    def __init__(self, outputs: list, inputs: list):
        self.outputs, self.inputs = outputs, inputs


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
        if _State.enabled:
            raise RuntimeError("torch.compile with aot_autograd does not currently support double backward")
        inner = ctx.inner
        pairs = [(o, g) for o, g in zip(inner.outputs, grads)
                 if g is not None and isinstance(o, Tensor) and o.requires_grad]
        if not pairs:
            return (None,) * (1 + len(inner.inputs))
        got = _grad([o for o, _ in pairs], inner.inputs, [g for _, g in pairs], retain_graph=True,
                    allow_unused=True)
        return (None, *got)


def hide_graph(outputs: list, inputs: list) -> list:
    """``outputs`` (computed eagerly from ``inputs``) handed out through one ``CompiledFunctionBackward`` node
    when any of them carries a gradient; unchanged otherwise."""
    if not _State.enabled or not any(isinstance(o, Tensor) and o.requires_grad for o in outputs):
        return outputs
    needing = list({id(t): t for t in inputs if t.requires_grad}.values())  # each tensor once: one gradient
    return list(CompiledFunction.apply(_Inner(outputs, needing), *needing))
