"""What the optimizers beyond SGD and Adam share: hyper-parameter checks, the ``step`` counter,
state creation and the closure-then-update loop.

Each algorithm keeps PyTorch's single-tensor order of float operations; arrays are updated in
place (``a[...] = ...``, which also works for 0-d parameters) and the version counters advance as
PyTorch's in-place ops would advance them."""
from __future__ import annotations

from typing import Any, Callable

import numpy as np

from .. import _dtype
from .._ops._kernels import parallel
from ..autograd.grad_mode import enable_grad, version_counter
from ..tensor import Tensor
from .optimizer import Optimizer, _step_without_grad, _to_scalar, _wrap

__all__ = ["_GroupOptimizer", "_check_lr", "_scalar_state", "_zeros_like", "_signed", "_bump", "_lerp",
           "_to_scalar", "_by_elements", "_data", "_decay_and_moments"]


def _check_lr(lr: Any) -> None:
    if isinstance(lr, Tensor) and lr.numel() != 1:
        raise ValueError("Tensor lr must be 1-element")
    if not 0.0 <= lr:
        raise ValueError(f"Invalid learning rate: {lr}")


def _scalar_state(value: float) -> Tensor:
    """A 0-d state tensor (``step``, ``mu_product``...) in PyTorch's scalar dtype: float64 only
    when that is the default dtype."""
    wide = _dtype.get_default_dtype() is _dtype.float64
    return _wrap(np.asarray(value, dtype=np.float64 if wide else np.float32))


def _zeros_like(p: Tensor, fill: float = 0.0) -> Tensor:
    return _wrap(np.full_like(p._data, fill))


def _data(t: Tensor | None) -> np.ndarray | None:
    return None if t is None else t._data


def _signed(g: np.ndarray, maximize: bool) -> np.ndarray:
    """The gradient array ``g`` to descend along: negated (a copy) when maximizing."""
    return np.negative(g) if maximize else g


def _by_elements(update: Callable, arrays: tuple, *hyper) -> None:
    """``update(*arrays, *hyper)``, an update that works element by element on the parameter, its gradient
    and its state arrays (None passes through as None), the per-group numbers in ``hyper``. Large
    C-contiguous arrays of one size are updated on runs of their flat elements across threads
    (``parallel.flat_runs``), as PyTorch's foreach kernels spread over its threads: every element goes
    through the same operations on any run, so the floats do not depend on the thread count."""
    n = arrays[0].size
    if (n >= parallel.SPLIT_FROM and parallel.get_num_threads() > 1
            and all(a is None or (a.flags.c_contiguous and a.size == n) for a in arrays)):
        parallel.flat_runs(lambda *run: update(*run, *hyper), *arrays)
    else:
        update(*arrays, *hyper)


def _decay_and_moments(p, g, m, v, decay, l2, beta1, beta2, maximize) -> np.ndarray:
    """The start NAdam's and RAdam's array steps share, in place: the weight decay (``decay`` the decoupled
    factor, or None; ``l2`` the coupled one, added to the gradient), then Adam's running mean ``m`` and mean
    square ``v``; returns the gradient used."""
    g = _signed(g, maximize)
    if decay is not None:
        p[...] = p * decay
    elif l2 != 0:
        g = g + l2 * p
    _lerp(m, g, 1 - beta1)
    v[...] = v * beta2 + (1 - beta2) * g * g
    return g


def _lerp(start: np.ndarray, end: np.ndarray, weight: float) -> None:
    """``start.lerp_(end, weight)`` in place, with lerp's two formulas split at weight 0.5."""
    if abs(weight) < 0.5:
        start[...] = start + weight * (end - start)
    else:
        start[...] = end - (end - start) * (1 - weight)


def _bump(t: Tensor, n: int = 1) -> None:
    """Advance ``t``'s version counter as ``n`` in-place ops would."""
    version_counter(t)[0] += n


class _GroupOptimizer(Optimizer):
    """An optimizer whose ``step`` runs the closure, then ``_update_group`` on each parameter group
    with the parameters that have a gradient; subclasses name their per-group defaults."""

    _group_defaults: dict[str, Any] = {}
    _scalar_keys: tuple[str, ...] = ("step",)
    _sparse_name: str = ""

    def __setstate__(self, state: dict[str, Any]) -> None:
        super().__setstate__(state)
        for group in self.param_groups:
            for key, value in self._group_defaults.items():
                group.setdefault(key, value)
            # old checkpoints kept ``step`` (and similar counters) as Python numbers
            for p in group["params"]:
                p_state = self.state.get(p, {})
                for key in self._scalar_keys:
                    if key in p_state and not isinstance(p_state[key], Tensor):
                        p_state[key] = _scalar_state(float(p_state[key]))

    @_step_without_grad
    def step(self, closure: Callable[[], Any] | None = None):
        """One update of each parameter that has a gradient; returns ``closure()``'s loss."""
        loss = None
        if closure is not None:
            with enable_grad():
                loss = closure()
        for group in self.param_groups:
            params = [p for p in group["params"] if p.grad is not None]
            for p in params:
                if getattr(p.grad, "is_sparse", False):
                    raise RuntimeError(f"{self._sparse_name} does not support sparse gradients")
                state = self.state[p]
                if len(state) == 0:
                    self._init_state(group, p, state)
            if params:
                self._update_group(group, params)
        return loss

    def _init_state(self, group: dict, p: Tensor, state: dict) -> None:
        raise NotImplementedError

    def _update_group(self, group: dict, params: list[Tensor]) -> None:
        raise NotImplementedError
