"""Rprop (resilient backpropagation, Riedmiller & Braun), as ``torch.optim.Rprop``."""
from __future__ import annotations

from typing import Iterable

import numpy as np

from .._ops.pointwise.complex import real_sign
from ..tensor import Tensor
from ._base import _by_elements, _bump, _check_lr, _GroupOptimizer, _scalar_state, _signed, _to_scalar, _zeros_like

__all__ = ["Rprop", "rprop"]


class Rprop(_GroupOptimizer):
    """Per-coordinate step sizes grown while the gradient keeps its sign, shrunk when it flips."""

    _group_defaults = dict(foreach=None, maximize=False, differentiable=False, capturable=False)
    _sparse_name = "Rprop"

    def __init__(self, params: Iterable, lr: float | Tensor = 1e-2,
                 etas: tuple[float, float] = (0.5, 1.2),
                 step_sizes: tuple[float, float] = (1e-6, 50), *, capturable: bool = False,
                 foreach: bool | None = None, maximize: bool = False,
                 differentiable: bool = False) -> None:
        _check_lr(lr)
        if not 0.0 < etas[0] < 1.0 < etas[1]:
            raise ValueError(f"Invalid eta values: {etas[0]}, {etas[1]}")
        defaults = dict(lr=lr, etas=etas, step_sizes=step_sizes, foreach=foreach,
                        maximize=maximize, differentiable=differentiable, capturable=capturable)
        super().__init__(params, defaults)

    def _init_state(self, group, p, state):
        state["step"] = _scalar_state(0.0)
        state["prev"] = _zeros_like(p)
        state["step_size"] = _wrap_full(p.grad, _to_scalar(group["lr"]))

    def _update_group(self, group, params):
        st = [self.state[p] for p in params]
        etaminus, etaplus = group["etas"]
        step_size_min, step_size_max = group["step_sizes"]
        rprop(params, [p.grad for p in params], [s["prev"] for s in st],
              [s["step_size"] for s in st], [s["step"] for s in st],
              step_size_min=step_size_min, step_size_max=step_size_max, etaminus=etaminus,
              etaplus=etaplus, maximize=group["maximize"])


def _wrap_full(like: Tensor, value: float) -> Tensor:
    return _zeros_like(like, value)


def rprop(params: list[Tensor], grads: list[Tensor], prevs: list[Tensor],
          step_sizes: list[Tensor], state_steps: list[Tensor], foreach: bool | None = None,
          capturable: bool = False, maximize: bool = False, differentiable: bool = False,
          has_complex: bool = False, *, step_size_min: float, step_size_max: float,
          etaminus: float, etaplus: float) -> None:
    """The Rprop update in place; advances ``step``."""
    for param, grad, prev, step_size, step_t in zip(params, grads, prevs, step_sizes,
                                                    state_steps):
        step_t._data[...] += 1
        _bump(step_t)
        _by_elements(_rprop_arrays, (param._data, grad._data, prev._data, step_size._data),
                     step_size_min, step_size_max, etaminus, etaplus, maximize)
        _bump(step_size, 2)
        _bump(param)
        _bump(prev)


def _rprop_arrays(p, g, prev, s, step_size_min, step_size_max, etaminus, etaplus, maximize) -> None:
    """One Rprop step on arrays, in place: ``prev`` the previous step's gradient, ``s`` the step sizes."""
    g = _signed(g, maximize)
    sign = np.sign(g * prev)  # (NaN where PyTorch's is 0: neither branch below takes it, the factor is 1 alike)
    factor = np.where(sign > 0, etaplus, np.where(sign < 0, etaminus, 1)).astype(g.dtype)
    s[...] = np.clip(s * factor, step_size_min, step_size_max)
    g = np.where(factor == g.dtype.type(etaminus), 0, g).astype(g.dtype)
    p[...] = p + (-1) * real_sign(g) * s  # PyTorch's sign, 0 at NaN: a NaN gradient leaves its parameter alone
    prev[...] = g
