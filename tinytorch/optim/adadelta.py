"""Adadelta (Zeiler), as ``torch.optim.Adadelta``."""
from __future__ import annotations

from typing import Iterable

import numpy as np

from ..tensor import Tensor
from ._base import _by_elements, _bump, _check_lr, _GroupOptimizer, _scalar_state, _signed, _to_scalar, _zeros_like

__all__ = ["Adadelta", "adadelta"]


class Adadelta(_GroupOptimizer):
    """Steps scaled by the ratio of running RMS of updates to running RMS of gradients."""

    _group_defaults = dict(foreach=None, maximize=False, differentiable=False, capturable=False)
    _sparse_name = "Adadelta"

    def __init__(self, params: Iterable, lr: float | Tensor = 1.0, rho: float = 0.9,
                 eps: float = 1e-6, weight_decay: float = 0, foreach: bool | None = None, *,
                 capturable: bool = False, maximize: bool = False,
                 differentiable: bool = False) -> None:
        _check_lr(lr)
        if not 0.0 <= rho <= 1.0:
            raise ValueError(f"Invalid rho value: {rho}")
        if not 0.0 <= eps:
            raise ValueError(f"Invalid epsilon value: {eps}")
        if not 0.0 <= weight_decay:
            raise ValueError(f"Invalid weight_decay value: {weight_decay}")
        defaults = dict(lr=lr, rho=rho, eps=eps, weight_decay=weight_decay, maximize=maximize,
                        capturable=capturable, foreach=foreach, differentiable=differentiable)
        super().__init__(params, defaults)

    def _init_state(self, group, p, state):
        state["step"] = _scalar_state(0.0)
        state["square_avg"] = _zeros_like(p)
        state["acc_delta"] = _zeros_like(p)

    def _update_group(self, group, params):
        st = [self.state[p] for p in params]
        adadelta(params, [p.grad for p in params], [s["square_avg"] for s in st],
                 [s["acc_delta"] for s in st], [s["step"] for s in st], lr=group["lr"],
                 rho=group["rho"], eps=group["eps"], weight_decay=group["weight_decay"],
                 maximize=group["maximize"])


def adadelta(params: list[Tensor], grads: list[Tensor], square_avgs: list[Tensor],
             acc_deltas: list[Tensor], state_steps: list[Tensor], capturable: bool = False,
             foreach: bool | None = None, differentiable: bool = False, has_complex: bool = False,
             *, lr: float, rho: float, eps: float, weight_decay: float, maximize: bool) -> None:
    """The Adadelta update in place; advances ``step``."""
    lr = _to_scalar(lr)
    for param, grad, square_avg, acc_delta, step_t in zip(params, grads, square_avgs, acc_deltas,
                                                          state_steps):
        step_t._data[...] += 1
        _bump(step_t)
        _by_elements(_adadelta_arrays, (param._data, grad._data, square_avg._data, acc_delta._data),
                     lr, rho, eps, weight_decay, maximize)
        _bump(square_avg, 2)
        _bump(acc_delta, 2)
        _bump(param)


def _adadelta_arrays(p, g, sq, acc, lr, rho, eps, weight_decay, maximize) -> None:
    """One Adadelta step on arrays, in place."""
    g = _signed(g, maximize)
    if weight_decay != 0:
        g = g + weight_decay * p
    sq[...] = sq * rho + (1 - rho) * g * g
    std = np.sqrt(sq + eps)
    delta = np.sqrt(acc + eps) / std * g
    acc[...] = acc * rho + (1 - rho) * delta * delta
    p[...] = p + (-lr) * delta
