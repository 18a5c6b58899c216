"""RMSprop (Hinton's lecture 6e), optionally centered and with momentum, as ``torch.optim.RMSprop``."""
from __future__ import annotations

from typing import Iterable

import numpy as np

from ..tensor import Tensor
from ._base import (_by_elements, _bump, _check_lr, _data, _GroupOptimizer, _lerp, _scalar_state, _signed,
                    _to_scalar, _zeros_like)

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
        state_steps[i]._data[...] += 1
        _bump(state_steps[i])
        ga = grad_avgs[i] if centered else None
        buf = momentum_buffer_list[i] if momentum > 0 else None
        _by_elements(_rmsprop_arrays, (param._data, grads[i]._data, square_avgs[i]._data, _data(ga), _data(buf)),
                     lr, alpha, eps, weight_decay, momentum, maximize)
        _bump(param)
        _bump(square_avgs[i], 2)
        if ga is not None:
            _bump(ga)
        if buf is not None:
            _bump(buf, 2)


def _rmsprop_arrays(p, g, sq, ga, buf, lr, alpha, eps, weight_decay, momentum, maximize) -> None:
    """One RMSprop step on arrays, in place: ``ga`` (the gradients' running mean) None unless centered,
    ``buf`` (the momentum buffer) None without momentum."""
    g = _signed(g, maximize)
    if weight_decay != 0:
        g = g + weight_decay * p
    sq[...] = sq * alpha + (1 - alpha) * g * g
    if ga is not None:
        _lerp(ga, g, 1 - alpha)
        avg = np.sqrt(sq - ga * ga)
    else:
        avg = np.sqrt(sq)
    avg = avg + eps
    if buf is not None:
        buf[...] = buf * momentum + g / avg
        p[...] = p + (-lr) * buf
    else:
        p[...] = p + (-lr) * (g / avg)
