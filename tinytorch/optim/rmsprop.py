"""RMSprop (Hinton's lecture 6e), optionally centered and with momentum, as ``torch.optim.RMSprop``."""
from __future__ import annotations

from typing import Iterable

import numpy as np

from ..tensor import Tensor
from ._base import (_bump, _check_lr, _grad_of, _GroupOptimizer, _lerp, _scalar_state, _to_scalar,
                    _zeros_like)

__all__ = ["RMSprop", "rmsprop"]


class RMSprop(_GroupOptimizer):
    """Divide the gradient by a running root-mean-square of recent gradients."""

    _group_defaults = dict(momentum=0, centered=False, foreach=None, maximize=False,
                           differentiable=False, capturable=False)
    _sparse_name = "RMSprop"

    def __init__(self, params: Iterable, lr: float | Tensor = 1e-2, alpha: float = 0.99,
                 eps: float = 1e-8, weight_decay: float = 0, momentum: float = 0,
                 centered: bool = False, capturable: bool = False, foreach: bool | None = None,
                 maximize: bool = False, differentiable: bool = False) -> None:
        _check_lr(lr)
        if not 0.0 <= eps:
            raise ValueError(f"Invalid epsilon value: {eps}")
        if not 0.0 <= momentum:
            raise ValueError(f"Invalid momentum value: {momentum}")
        if not 0.0 <= weight_decay:
            raise ValueError(f"Invalid weight_decay value: {weight_decay}")
        if not 0.0 <= alpha:
            raise ValueError(f"Invalid alpha value: {alpha}")
        defaults = dict(lr=lr, momentum=momentum, alpha=alpha, eps=eps, centered=centered,
                        weight_decay=weight_decay, capturable=capturable, foreach=foreach,
                        maximize=maximize, differentiable=differentiable)
        super().__init__(params, defaults)

    def _init_state(self, group, p, state):
        state["step"] = _scalar_state(0.0)
        state["square_avg"] = _zeros_like(p)
        if group["momentum"] > 0:
            state["momentum_buffer"] = _zeros_like(p)
        if group["centered"]:
            state["grad_avg"] = _zeros_like(p)

    def _update_group(self, group, params):
        st = [self.state[p] for p in params]
        rmsprop(params, [p.grad for p in params], [s["square_avg"] for s in st],
                [s.get("grad_avg") for s in st], [s.get("momentum_buffer") for s in st],
                [s["step"] for s in st], lr=group["lr"], alpha=group["alpha"], eps=group["eps"],
                weight_decay=group["weight_decay"], momentum=group["momentum"],
                centered=group["centered"], maximize=group["maximize"])


def rmsprop(params: list[Tensor], grads: list[Tensor], square_avgs: list[Tensor],
            grad_avgs: list[Tensor], momentum_buffer_list: list[Tensor], state_steps: list[Tensor],
            foreach: bool | None = None, maximize: bool = False, differentiable: bool = False,
            capturable: bool = False, has_complex: bool = False, *, lr: float, alpha: float,
            eps: float, weight_decay: float, momentum: float, centered: bool) -> None:
    """The RMSprop update in place; advances ``step``."""
    lr = _to_scalar(lr)
    for i, param in enumerate(params):
        p = param._data
        g = _grad_of(grads[i], maximize)
        state_steps[i]._data[...] += 1
        _bump(state_steps[i])
        if weight_decay != 0:
            g = g + weight_decay * p
        sq = square_avgs[i]
        sq._data[...] = sq._data * alpha + (1 - alpha) * g * g
        _bump(sq, 2)
        if centered:
            ga = grad_avgs[i]
            _lerp(ga._data, g, 1 - alpha)
            _bump(ga)
            avg = np.sqrt(sq._data - ga._data * ga._data)
        else:
            avg = np.sqrt(sq._data)
        avg = avg + eps
        if momentum > 0:
            buf = momentum_buffer_list[i]
            buf._data[...] = buf._data * momentum + g / avg
            _bump(buf, 2)
            p[...] = p + (-lr) * buf._data
        else:
            p[...] = p + (-lr) * (g / avg)
        _bump(param)
