"""RAdam (rectified Adam, Liu et al.), as ``torch.optim.RAdam``."""
from __future__ import annotations

from typing import Iterable

import numpy as np

from ..tensor import Tensor
from ._base import (_by_elements, _bump, _check_lr, _decay_and_moments, _GroupOptimizer, _scalar_state,
                    _to_scalar, _zeros_like)
from .adamax import _check_betas

__all__ = ["RAdam", "radam"]


class RAdam(_GroupOptimizer):
    """Adam whose adaptive step is switched on only once the variance estimate is tractable."""

    _group_defaults = dict(foreach=None, maximize=False, differentiable=False,
                           decoupled_weight_decay=False, capturable=False)
    _sparse_name = "RAdam"

    def __init__(self, params: Iterable, lr: float | Tensor = 1e-3,
                 betas: tuple[float, float] = (0.9, 0.999), eps: float = 1e-8,
                 weight_decay: float = 0, decoupled_weight_decay: bool = False, *,
                 foreach: bool | None = None, maximize: bool = False, capturable: bool = False,
                 differentiable: bool = False) -> None:
        _check_lr(lr)
        if not 0.0 <= eps:
            raise ValueError(f"Invalid epsilon value: {eps}")
        _check_betas(betas)
        if not 0.0 <= weight_decay:
            raise ValueError(f"Invalid weight_decay value: {weight_decay}")
        defaults = dict(lr=lr, betas=betas, eps=eps, weight_decay=weight_decay, maximize=maximize,
                        foreach=foreach, capturable=capturable,
                        decoupled_weight_decay=decoupled_weight_decay,
                        differentiable=differentiable)
        super().__init__(params, defaults)

    def _init_state(self, group, p, state):
        state["step"] = _scalar_state(0.0)
        state["exp_avg"] = _zeros_like(p)
        state["exp_avg_sq"] = _zeros_like(p)

    def _update_group(self, group, params):
        st = [self.state[p] for p in params]
        beta1, beta2 = group["betas"]
        radam(params, [p.grad for p in params], [s["exp_avg"] for s in st],
              [s["exp_avg_sq"] for s in st], [s["step"] for s in st], beta1=beta1, beta2=beta2,
              lr=group["lr"], weight_decay=group["weight_decay"], eps=group["eps"],
              decoupled_weight_decay=group["decoupled_weight_decay"],
              maximize=group["maximize"])


def radam(params: list[Tensor], grads: list[Tensor], exp_avgs: list[Tensor],
          exp_avg_sqs: list[Tensor], state_steps: list[Tensor],
          decoupled_weight_decay: bool = False, foreach: bool | None = None,
          differentiable: bool = False, capturable: bool = False, has_complex: bool = False,
          maximize: bool = False, *, beta1: float, beta2: float, lr: float, weight_decay: float,
          eps: float) -> None:
    """The RAdam update in place; advances ``step``."""
    lr = _to_scalar(lr)
    for i, param in enumerate(params):
        exp_avg, exp_avg_sq, step_t = exp_avgs[i], exp_avg_sqs[i], state_steps[i]
        step_t._data[...] += 1
        _bump(step_t)
        step = float(step_t._data)
        bias_correction1 = 1 - beta1 ** step
        bias_correction2 = 1 - beta2 ** step
        rho_inf = 2 / (1 - beta2) - 1
        rho_t = rho_inf - 2 * step * (beta2 ** step) / bias_correction2
        # the variance is tractable past 5 degrees of freedom: then the rectified adaptive step
        rect = (((rho_t - 4) * (rho_t - 2) * rho_inf / ((rho_inf - 4) * (rho_inf - 2) * rho_t)) ** 0.5
                if rho_t > 5.0 else None)
        decay = (1 - lr * weight_decay) if weight_decay != 0 and decoupled_weight_decay else None
        l2 = weight_decay if not decoupled_weight_decay else 0
        _by_elements(_radam_arrays, (param._data, grads[i]._data, exp_avg._data, exp_avg_sq._data),
                     decay, l2, lr, beta1, beta2, bias_correction1, bias_correction2, rect, eps, maximize)
        _bump(exp_avg)
        _bump(exp_avg_sq, 2)
        _bump(param, 2 if decay is not None else 1)


def _radam_arrays(p, g, m, v, decay, l2, lr, beta1, beta2, bias_correction1, bias_correction2, rect, eps,
                  maximize) -> None:
    """One RAdam step on arrays, in place: ``decay`` the decoupled weight decay's factor (or None), ``l2``
    the coupled weight decay, ``rect`` the variance rectification (None: a plain momentum step)."""
    _decay_and_moments(p, g, m, v, decay, l2, beta1, beta2, maximize)
    corrected = m / bias_correction1
    if rect is not None:
        adaptive = (bias_correction2 ** 0.5) / (np.sqrt(v) + eps)
        p[...] = p - corrected * lr * adaptive * rect
    else:
        p[...] = p - corrected * lr
