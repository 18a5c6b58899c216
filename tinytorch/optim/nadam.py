"""NAdam (Adam with Nesterov momentum, Dozat), as ``torch.optim.NAdam``."""
from __future__ import annotations

from typing import Iterable

import numpy as np

from ..tensor import Tensor
from ._base import (_by_elements, _bump, _check_lr, _decay_and_moments, _GroupOptimizer, _scalar_state,
                    _to_scalar, _zeros_like)
from .adamax import _check_betas

__all__ = ["NAdam", "nadam"]


class NAdam(_GroupOptimizer):
    """Adam with a Nesterov look-ahead and a decaying momentum schedule."""

    _group_defaults = dict(maximize=False, foreach=None, capturable=False, differentiable=False,
                           decoupled_weight_decay=False)
    _scalar_keys = ("step", "mu_product")
    _sparse_name = "NAdam"

    def __init__(self, params: Iterable, lr: float | Tensor = 2e-3,
                 betas: tuple[float, float] = (0.9, 0.999), eps: float = 1e-8,
                 weight_decay: float = 0, momentum_decay: float = 4e-3,
                 decoupled_weight_decay: bool = False, *, foreach: bool | None = None,
                 maximize: bool = False, capturable: bool = False,
                 differentiable: bool = False) -> None:
        _check_lr(lr)
        if not 0.0 <= eps:
            raise ValueError(f"Invalid epsilon value: {eps}")
        _check_betas(betas)
        if not 0.0 <= weight_decay:
            raise ValueError(f"Invalid weight_decay value: {weight_decay}")
        if not 0.0 <= momentum_decay:
            raise ValueError(f"Invalid momentum_decay value: {momentum_decay}")
        defaults = dict(lr=lr, betas=betas, eps=eps, weight_decay=weight_decay,
                        momentum_decay=momentum_decay,
                        decoupled_weight_decay=decoupled_weight_decay, maximize=maximize,
                        foreach=foreach, capturable=capturable, differentiable=differentiable)
        super().__init__(params, defaults)

    def _init_state(self, group, p, state):
        state["step"] = _scalar_state(0.0)
        state["mu_product"] = _scalar_state(1.0)
        state["exp_avg"] = _zeros_like(p)
        state["exp_avg_sq"] = _zeros_like(p)

    def _update_group(self, group, params):
        st = [self.state[p] for p in params]
        beta1, beta2 = group["betas"]
        nadam(params, [p.grad for p in params], [s["exp_avg"] for s in st],
              [s["exp_avg_sq"] for s in st], [s["mu_product"] for s in st],
              [s["step"] for s in st], beta1=beta1, beta2=beta2, lr=group["lr"],
              weight_decay=group["weight_decay"], momentum_decay=group["momentum_decay"],
              eps=group["eps"], decoupled_weight_decay=group["decoupled_weight_decay"],
              maximize=group["maximize"])


def nadam(params: list[Tensor], grads: list[Tensor], exp_avgs: list[Tensor],
          exp_avg_sqs: list[Tensor], mu_products: list[Tensor], state_steps: list[Tensor],
          decoupled_weight_decay: bool = False, foreach: bool | None = None,
          capturable: bool = False, differentiable: bool = False, has_complex: bool = False,
          maximize: bool = False, *, beta1: float, beta2: float, lr: float, weight_decay: float,
          momentum_decay: float, eps: float) -> None:
    """The NAdam update in place; advances ``step`` and ``mu_product``."""
    lr = _to_scalar(lr)
    for i, param in enumerate(params):
        exp_avg, exp_avg_sq, mu_product, step_t = (exp_avgs[i], exp_avg_sqs[i], mu_products[i],
                                                   state_steps[i])
        step_t._data[...] += 1
        _bump(step_t)
        step = float(step_t._data)
        bias_correction2 = 1 - beta2 ** step
        mu = beta1 * (1.0 - 0.5 * (0.96 ** (step * momentum_decay)))
        mu_next = beta1 * (1.0 - 0.5 * (0.96 ** ((step + 1) * momentum_decay)))
        # the product lives in the state tensor's dtype (float32 unless the default is float64)
        prod = mu_product._data
        prod[...] = prod * prod.dtype.type(mu)  # mu in that dtype, as numpy 2 casts it (numpy 1.x: float64)
        _bump(mu_product)
        mu_prod = float(mu_product._data)
        mu_product_next = mu_prod * mu_next
        grad_coef = -lr * (1.0 - mu) / (1.0 - mu_prod)
        avg_coef = (-lr * mu_next) / (1.0 - mu_product_next)
        decay = (1 - lr * weight_decay) if weight_decay != 0 and decoupled_weight_decay else None
        l2 = weight_decay if not decoupled_weight_decay else 0
        _by_elements(_nadam_arrays, (param._data, grads[i]._data, exp_avg._data, exp_avg_sq._data),
                     decay, l2, beta1, beta2, bias_correction2, eps, grad_coef, avg_coef, maximize)
        _bump(exp_avg)
        _bump(exp_avg_sq, 2)
        _bump(param, 3 if decay is not None else 2)


def _nadam_arrays(p, g, m, v, decay, l2, beta1, beta2, bias_correction2, eps, grad_coef, avg_coef,
                  maximize) -> None:
    """One NAdam step on arrays, in place: ``decay`` the decoupled weight decay's factor (or None), ``l2``
    the coupled weight decay, ``grad_coef`` and ``avg_coef`` the step's weights of the gradient and of the
    running mean (from the momentum schedule)."""
    g = _decay_and_moments(p, g, m, v, decay, l2, beta1, beta2, maximize)
    denom = np.sqrt(v / bias_correction2) + eps
    p[...] = p + grad_coef * (g / denom)
    p[...] = p + avg_coef * (m / denom)
