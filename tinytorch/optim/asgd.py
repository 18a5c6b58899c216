"""Averaged SGD (Polyak & Juditsky), as ``torch.optim.ASGD``."""
from __future__ import annotations

from typing import Iterable

from ..tensor import Tensor
from ._base import _by_elements, _bump, _check_lr, _GroupOptimizer, _scalar_state, _signed, _to_scalar, _zeros_like

__all__ = ["ASGD", "asgd"]


class ASGD(_GroupOptimizer):
    """SGD with a decaying step size and a running average ``ax`` of the iterates."""

    _group_defaults = dict(foreach=None, maximize=False, differentiable=False, capturable=False)
    _scalar_keys = ("step", "eta", "mu")
    _sparse_name = "ASGD"

    def __init__(self, params: Iterable, lr: float | Tensor = 1e-2, lambd: float = 1e-4,
                 alpha: float = 0.75, t0: float = 1e6, weight_decay: float = 0,
                 foreach: bool | None = None, maximize: bool = False,
                 differentiable: bool = False, capturable: bool = False) -> None:
        _check_lr(lr)
        if not 0.0 <= weight_decay:
            raise ValueError(f"Invalid weight_decay value: {weight_decay}")
        defaults = dict(lr=lr, lambd=lambd, alpha=alpha, t0=t0, weight_decay=weight_decay,
                        foreach=foreach, maximize=maximize, differentiable=differentiable,
                        capturable=capturable)
        super().__init__(params, defaults)

    def _init_state(self, group, p, state):
        state["step"] = _scalar_state(0.0)
        state["eta"] = _scalar_state(_to_scalar(group["lr"]))
        state["mu"] = _scalar_state(1.0)
        state["ax"] = _zeros_like(p)

    def _update_group(self, group, params):
        st = [self.state[p] for p in params]
        asgd(params, [p.grad for p in params], [s["ax"] for s in st], [s["mu"] for s in st],
             [s["eta"] for s in st], [s["step"] for s in st], lambd=group["lambd"],
             lr=group["lr"], t0=group["t0"], alpha=group["alpha"],
             weight_decay=group["weight_decay"], maximize=group["maximize"])


def asgd(params: list[Tensor], grads: list[Tensor], axs: list[Tensor], mus: list[Tensor],
         etas: list[Tensor], state_steps: list[Tensor], foreach: bool | None = None,
         maximize: bool = False, differentiable: bool = False, capturable: bool = False,
         has_complex: bool = False, *, lambd: float, lr: float, t0: float, alpha: float,
         weight_decay: float) -> None:
    """The ASGD update in place; advances ``step``, ``eta`` and ``mu``."""
    lr = _to_scalar(lr)
    for param, grad, ax, mu, eta, step_t in zip(params, grads, axs, mus, etas, state_steps):
        step_t._data[...] += 1
        _bump(step_t)
        eta_value = float(eta._data)
        mu_value = mu._data if float(mu._data) != 1 else None  # (a 0-d array: the average's weight in its dtype)
        _by_elements(_asgd_arrays, (param._data, grad._data, ax._data), lambd, eta_value, mu_value, weight_decay,
                     maximize)
        _bump(param, 2)
        _bump(ax)
        step = float(step_t._data)
        # PyTorch builds the new values as float64 tensors and copies them into the state's dtype
        eta._data[...] = lr / ((1 + lambd * lr * step) ** alpha)
        mu._data[...] = 1 / max(1, step - t0)
        _bump(eta)
        _bump(mu)


def _asgd_arrays(p, g, ax, lambd, eta, mu, weight_decay, maximize) -> None:
    """One ASGD step on arrays, in place: ``eta`` the step size, ``mu`` the running average's weight (None:
    the average restarts at the new iterate)."""
    g = _signed(g, maximize)
    if weight_decay != 0:
        g = g + weight_decay * p
    p[...] = p * (1 - lambd * eta)
    p[...] = p + (-eta) * g
    if mu is not None:
        ax[...] = ax + (p - ax) * mu
    else:
        ax[...] = p
