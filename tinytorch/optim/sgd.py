"""Stochastic gradient descent, with momentum, Nesterov momentum, dampening and weight decay.

``SGD`` holds the bookkeeping; ``_sgd`` is PyTorch's single-tensor update (``_single_tensor_sgd``), the same
tensor ops in the same order. Its CPU path (``tinytorch/_cpu/sgd.py``) runs the same operations on the
arrays in place, with PyTorch's fused ``add(alpha=)`` rounding, and plain SGD's many parameters in a few
BLAS calls."""
from __future__ import annotations

from typing import Any, Callable, Iterable

from ..autograd.grad_mode import enable_grad
from ..tensor import Tensor
from .optimizer import Optimizer, _step_without_grad, _to_scalar

__all__ = ["SGD", "sgd"]


class SGD(Optimizer):
    """Stochastic gradient descent (optionally with momentum), PyTorch's ``torch.optim.SGD``."""

    def __init__(self, params: Iterable, lr: float | Tensor = 1e-3, momentum: float = 0,
                 dampening: float = 0, weight_decay: float = 0, nesterov: bool = False, *,
                 maximize: bool = False, foreach: bool | None = None, differentiable: bool = False,
                 fused: bool | None = None) -> None:
        if isinstance(lr, Tensor) and lr.numel() != 1:
            raise ValueError("Tensor lr must be 1-element")
        if lr < 0.0:
            raise ValueError(f"Invalid learning rate: {lr}")
        if momentum < 0.0:
            raise ValueError(f"Invalid momentum value: {momentum}")
        if weight_decay < 0.0:
            raise ValueError(f"Invalid weight_decay value: {weight_decay}")
        defaults = dict(lr=lr, momentum=momentum, dampening=dampening, weight_decay=weight_decay,
                        nesterov=nesterov, maximize=maximize, foreach=foreach,
                        differentiable=differentiable, fused=fused)
        if nesterov and (momentum <= 0 or dampening != 0):
            raise ValueError("Nesterov momentum requires a momentum and zero dampening")
        if fused and foreach:
            raise RuntimeError("`fused` and `foreach` cannot be `True` together.")
        super().__init__(params, defaults)
        # this optimizer's own temporaries, which a CPU path reuses from step to step (never shared)
        self._scratch: dict = {}

    def __setstate__(self, state: dict[str, Any]) -> None:
        super().__setstate__(state)
        self._scratch = {}
        for group in self.param_groups:
            group.setdefault("nesterov", False)
            group.setdefault("maximize", False)
            group.setdefault("foreach", None)
            group.setdefault("differentiable", False)
            group.setdefault("fused", False)

    @_step_without_grad
    def step(self, closure: Callable[[], Any] | None = None):
        """One SGD update of each parameter that has a gradient; returns ``closure()``'s loss."""
        loss = None
        if closure is not None:
            with enable_grad():
                loss = closure()
        state = self.state
        for group in self.param_groups:
            params, grads, buffers = [], [], []
            momentum = group["momentum"]
            for p in group["params"]:
                grad = p.grad
                if grad is not None:
                    params.append(p)
                    grads.append(grad)
                    if momentum != 0:
                        buffers.append(state[p].get("momentum_buffer"))
            if not params:
                continue
            _sgd(params, grads, buffers, group["weight_decay"], momentum, group["lr"], group["dampening"],
                 group["nesterov"], group["maximize"], self._scratch)
            if momentum != 0:
                for p, buf in zip(params, buffers):
                    state[p]["momentum_buffer"] = buf
        return loss


def sgd(params: list[Tensor], d_p_list: list[Tensor], momentum_buffer_list: list[Tensor | None],
        has_sparse_grad: bool = False, foreach: bool | None = None, fused: bool | None = None,
        grad_scale: Tensor | None = None, found_inf: Tensor | None = None, *,
        weight_decay: float, momentum: float, lr: float | Tensor, dampening: float, nesterov: bool,
        maximize: bool) -> None:
    """The SGD update in place; fills ``None`` in ``momentum_buffer_list`` with new buffers."""
    if grad_scale is not None or found_inf is not None:
        raise NotImplementedError("tinytorch's sgd does not take grad_scale or found_inf")
    _sgd(params, d_p_list, momentum_buffer_list, weight_decay, momentum, lr, dampening, nesterov, maximize, None)


def _sgd(params, d_p_list, momentum_buffer_list, weight_decay, momentum, lr, dampening, nesterov, maximize,
         scratch: dict | None) -> None:
    """PyTorch's single-tensor SGD update, in place; ``scratch``: the optimizer's temporaries, for a CPU path."""
    lr, weight_decay, momentum = _to_scalar(lr), _to_scalar(weight_decay), float(momentum)
    for i, param in enumerate(params):
        grad = d_p_list[i] if not maximize else -d_p_list[i]
        if weight_decay != 0:
            grad = grad.add(param, alpha=weight_decay)
        if momentum != 0:
            buf = momentum_buffer_list[i]
            if buf is None:
                buf = momentum_buffer_list[i] = grad.detach().clone()
            else:
                buf.mul_(momentum).add_(grad, alpha=1 - dampening)
            grad = grad.add(buf, alpha=momentum) if nesterov else buf
        param.add_(grad, alpha=-lr)
