"""Stochastic gradient descent, with momentum, Nesterov momentum, dampening and weight decay.

``sgd`` does PyTorch's single-tensor update with the same float operations in the same order, on
the numpy arrays in place: no Tensor is built per step except a new momentum buffer on the first
one. PyTorch's CPU kernels fuse each ``add(a, b, alpha=)`` into one rounding (FMA); ``_ops._kernels.muladd``
gives the same float32/float64 values (other dtypes: numpy's two roundings, which may differ from
PyTorch's in the last bit)."""
from __future__ import annotations

from typing import Any, Callable, Iterable

import numpy as np

from ..autograd.grad_mode import enable_grad, version_counter
from ..tensor import Tensor
from .._cpu.axpy_many import add_scaled_many
from .._ops._kernels import parallel
from .._ops._kernels.muladd import plus_scaled_into
from ._checks import check_state_shape
from .optimizer import Optimizer, _step_without_grad, _to_scalar, _wrap

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
        # this optimizer's own temporaries, reused from step to step (never shared with another one)
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
    lr = _to_scalar(lr)
    weight_decay = _to_scalar(weight_decay)
    momentum = float(momentum)
    if momentum == 0 and weight_decay == 0 and not maximize and scratch is not None and len(params) > 1:
        # plain SGD, each update ``param.add_(grad, alpha=-lr)``: all of them at once (the same floats;
        # the small parameters share one BLAS call), unless a gradient lives in a parameter's memory
        # (then the order of the updates matters, as in PyTorch's loop)
        ys = [p._data for p in params]
        xs = [g._data for g in d_p_list]
        if not _aliased(ys, xs):
            left = set(add_scaled_many(ys, xs, -lr, scratch))
            for i, p in enumerate(params):
                if i in left:
                    _sgd_one(p, d_p_list[i], None, 0.0, 0.0, lr, 0.0, False, False, scratch)
                else:
                    version_counter(p)[0] += 1
            return
    for i, param in enumerate(params):
        buf = momentum_buffer_list[i] if momentum != 0 else None
        new_buf = _sgd_one(param, d_p_list[i], buf, weight_decay, momentum, lr, float(dampening),
                           nesterov, maximize, scratch)
        if new_buf is not None:
            momentum_buffer_list[i] = new_buf


def _owner(a: np.ndarray) -> int:
    """The id of the array that owns ``a``'s memory (``a`` itself, or the end of its chain of numpy bases)."""
    while a.base is not None and type(a.base) is np.ndarray:
        a = a.base
    return id(a if a.base is None else a.base)


def _aliased(ys: list, xs: list) -> bool:
    """Whether any array of ``xs`` shares its owner with an array of ``ys``, or two of ``ys`` do."""
    owners = {_owner(y) for y in ys}
    return len(owners) < len(ys) or any(_owner(x) in owners for x in xs)


def _scratch_like(a: np.ndarray, scratch: dict | None) -> np.ndarray:
    """A temporary of ``a``'s shape and dtype, reused from the optimizer's ``scratch`` when it has one: a
    fresh array of a weight's size every step costs page faults, which are most of the update's time."""
    if scratch is None:
        return np.empty(a.shape, a.dtype)
    key = (a.shape, a.dtype)
    buf = scratch.get(key)
    if buf is None:
        buf = scratch[key] = np.empty(a.shape, a.dtype)
    return buf


def _sgd_one(param: Tensor, grad: Tensor, buf: Tensor | None, weight_decay: float,
             momentum: float, lr: float, dampening: float, nesterov: bool,
             maximize: bool, scratch: dict | None) -> Tensor | None:
    """Update one parameter; returns the momentum buffer when it was created here."""
    if buf is not None:
        check_state_shape(buf, grad)
    p = param._data
    d = grad._data
    # ``owned``: ``d`` is a scratch array of ours, free to overwrite. Every result gets an explicit
    # ``out`` array because numpy returns scalars, not arrays, for 0-d inputs.
    owned = False
    # a first momentum step keeps ``d`` as the new buffer: then it must be an array of its own
    temp = np.empty_like if momentum != 0 and buf is None else (lambda a: _scratch_like(a, scratch))
    if maximize:
        d = np.negative(d, out=temp(d))
        owned = True
    if weight_decay != 0:  # grad.add(param, alpha=weight_decay)
        d = plus_scaled_into(d if owned else temp(d), d, p, weight_decay, scratch)
        owned = True

    new_buf = None
    if momentum != 0:
        if buf is None:
            b = d if owned else d.copy()
            new_buf = _wrap(b)
            owned = False  # ``d`` is the buffer now
        else:
            b = buf._data
            # momentum in b's dtype (numpy 1.x: float64 for 0-d b); large buffers cut across threads
            parallel.elementwise(np.multiply, b, b, momentum, dtype=b.dtype)
            if dampening == 0:  # alpha 1: the fused and the plain sum are the same
                parallel.elementwise(np.add, b, b, d)
            else:
                plus_scaled_into(b, b, d, 1 - dampening, scratch)
            version_counter(buf)[0] += 2  # mul_ and add_, as PyTorch counts them
        if nesterov:  # grad.add(buf, alpha=momentum)
            d = plus_scaled_into(d if owned else _scratch_like(d, scratch), d, b, momentum, scratch)
        else:
            d = b

    plus_scaled_into(p, p, d, -lr, scratch)  # param.add_(grad, alpha=-lr)
    version_counter(param)[0] += 1
    return new_buf
