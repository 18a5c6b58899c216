"""Adagrad (Duchi et al.), with lr decay and an initial accumulator value, as ``torch.optim.Adagrad``."""
from __future__ import annotations

from typing import Iterable

import numpy as np

from ..tensor import Tensor
from ._base import _by_elements, _bump, _check_lr, _GroupOptimizer, _scalar_state, _signed, _to_scalar, _zeros_like

__all__ = ["Adagrad", "adagrad"]


class Adagrad(_GroupOptimizer):
    """Scale each coordinate by the root of its summed squared gradients."""

    _group_defaults = dict(foreach=None, maximize=False, differentiable=False, fused=None)
    _sparse_name = "Adagrad"

    def __init__(self, params: Iterable, lr: float | Tensor = 1e-2, lr_decay: float = 0,
                 weight_decay: float = 0, initial_accumulator_value: float = 0, eps: float = 1e-10,
                 foreach: bool | None = None, *, maximize: bool = False,
                 differentiable: bool = False, fused: bool | None = None) -> None:
        _check_lr(lr)
        if not 0.0 <= lr_decay:
            raise ValueError(f"Invalid lr_decay value: {lr_decay}")
        if not 0.0 <= weight_decay:
            raise ValueError(f"Invalid weight_decay value: {weight_decay}")
        if not 0.0 <= initial_accumulator_value:
            raise ValueError(f"Invalid initial_accumulator_value value: {initial_accumulator_value}")
        if not 0.0 <= eps:
            raise ValueError(f"Invalid epsilon value: {eps}")
        defaults = dict(lr=lr, lr_decay=lr_decay, eps=eps, weight_decay=weight_decay,
                        initial_accumulator_value=initial_accumulator_value, foreach=foreach,
                        maximize=maximize, differentiable=differentiable, fused=fused)
        super().__init__(params, defaults)
        if fused:
            if differentiable:
                raise RuntimeError("`fused` does not support `differentiable`")
            if foreach:
                raise RuntimeError("`fused` and `foreach` cannot be `True` together.")
        # unlike the others, Adagrad creates its state up front (so share_memory() can share it)
        for group in self.param_groups:
            for p in group["params"]:
                self._init_state(group, p, self.state[p])

    def _init_state(self, group, p, state):
        state["step"] = _scalar_state(0.0)
        state["sum"] = _zeros_like(p, self.defaults["initial_accumulator_value"])

    def share_memory(self) -> None:
        """A no-op here: numpy state is never shared between processes by tinytorch."""

    def _update_group(self, group, params):
        st = [self.state[p] for p in params]
        adagrad(params, [p.grad for p in params], [s["sum"] for s in st], [s["step"] for s in st],
                lr=group["lr"], weight_decay=group["weight_decay"], lr_decay=group["lr_decay"],
                eps=group["eps"], maximize=group["maximize"])


def adagrad(params: list[Tensor], grads: list[Tensor], state_sums: list[Tensor],
            state_steps: list[Tensor], fused: bool | None = None, grad_scale: Tensor | None = None,
            found_inf: Tensor | None = None, has_sparse_grad: bool = False,
            foreach: bool | None = None, differentiable: bool = False, has_complex: bool = False,
            *, lr: float, weight_decay: float, lr_decay: float, eps: float,
            maximize: bool) -> None:
    """The Adagrad update in place; advances ``step``."""
    lr = _to_scalar(lr)
    for param, grad, state_sum, step_t in zip(params, grads, state_sums, state_steps):
        step_t._data[...] += 1
        _bump(step_t)
        step = float(step_t._data)
        clr = lr / (1 + (step - 1) * lr_decay)
        _by_elements(_adagrad_arrays, (param._data, grad._data, state_sum._data), clr, eps, weight_decay, maximize)
        _bump(state_sum)
        _bump(param)


def _adagrad_arrays(p, g, s, clr, eps, weight_decay, maximize) -> None:
    """One Adagrad step on arrays, in place, at the decayed learning rate ``clr``."""
    g = _signed(g, maximize)
    if weight_decay != 0:
        g = g + weight_decay * p
    s[...] = s + g * g
    std = np.sqrt(s) + eps
    p[...] = p + (-clr) * (g / std)
