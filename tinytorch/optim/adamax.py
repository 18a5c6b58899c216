"""Adamax (Adam with the infinity norm), as ``torch.optim.Adamax``."""
from __future__ import annotations

from typing import Iterable

import numpy as np

from ..tensor import Tensor
from ._base import (_by_elements, _bump, _check_lr, _GroupOptimizer, _lerp, _scalar_state, _signed, _to_scalar,
                    _zeros_like)

__all__ = ["Adamax", "adamax"]


def _check_betas(betas) -> None:
    if not 0.0 <= betas[0] < 1.0:
        raise ValueError(f"Invalid beta parameter at index 0: {betas[0]}")
    if not 0.0 <= betas[1] < 1.0:
        raise ValueError(f"Invalid beta parameter at index 1: {betas[1]}")


class Adamax(_GroupOptimizer):
    """Adam's first moment over a running maximum of gradient magnitudes."""

    _group_defaults = dict(foreach=None, maximize=False, differentiable=False, capturable=False)
    _sparse_name = "Adamax"

    def __init__(self, params: Iterable, lr: float | Tensor = 2e-3,
                 betas: tuple[float, float] = (0.9, 0.999), eps: float = 1e-8,
                 weight_decay: float = 0, foreach: bool | None = None, *, maximize: bool = False,
                 differentiable: bool = False, capturable: bool = False) -> None:
        _check_lr(lr)
        if not 0.0 <= eps:
            raise ValueError(f"Invalid epsilon value: {eps}")
        _check_betas(betas)
        if not 0.0 <= weight_decay:
            raise ValueError(f"Invalid weight_decay value: {weight_decay}")
        defaults = dict(lr=lr, betas=betas, eps=eps, weight_decay=weight_decay, foreach=foreach,
                        maximize=maximize, differentiable=differentiable, capturable=capturable)
        super().__init__(params, defaults)

    def _init_state(self, group, p, state):
        state["step"] = _scalar_state(0.0)
        state["exp_avg"] = _zeros_like(p)
        state["exp_inf"] = _zeros_like(p)

    def _update_group(self, group, params):
        st = [self.state[p] for p in params]
        beta1, beta2 = group["betas"]
        adamax(params, [p.grad for p in params], [s["exp_avg"] for s in st],
               [s["exp_inf"] for s in st], [s["step"] for s in st], eps=group["eps"],
               beta1=beta1, beta2=beta2, lr=group["lr"], weight_decay=group["weight_decay"],
               maximize=group["maximize"])


def adamax(params: list[Tensor], grads: list[Tensor], exp_avgs: list[Tensor],
           exp_infs: list[Tensor], state_steps: list[Tensor], foreach: bool | None = None,
           maximize: bool = False, differentiable: bool = False, capturable: bool = False,
           has_complex: bool = False, *, eps: float, beta1: float, beta2: float, lr: float,
           weight_decay: float) -> None:
    """The Adamax update in place; advances ``step``."""
    lr = _to_scalar(lr)
    for param, grad, exp_avg, exp_inf, step_t in zip(params, grads, exp_avgs, exp_infs,
                                                     state_steps):
        step_t._data[...] += 1
        _bump(step_t)
        clr = lr / (1 - beta1 ** float(step_t._data))
        _by_elements(_adamax_arrays, (param._data, grad._data, exp_avg._data, exp_inf._data),
                     clr, beta1, beta2, eps, weight_decay, maximize)
        _bump(exp_avg)
        _bump(exp_inf, 2)
        _bump(param)


def _adamax_arrays(p, g, m, inf, clr, beta1, beta2, eps, weight_decay, maximize) -> None:
    """One Adamax step on arrays, in place, at the bias-corrected learning rate ``clr``."""
    g = _signed(g, maximize)
    if weight_decay != 0:
        g = g + weight_decay * p
    _lerp(m, g, 1 - beta1)
    inf[...] = np.maximum(inf * beta2, np.abs(g) + eps)
    p[...] = p + (-clr) * (m / inf)
