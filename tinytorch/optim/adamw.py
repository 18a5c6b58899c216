"""AdamW (Adam with decoupled weight decay, Loshchilov & Hutter), as ``torch.optim.AdamW``: Adam's
update with the weight decay applied to the parameters rather than added to the gradient."""
from __future__ import annotations

from typing import Any, Iterable

from ..tensor import Tensor
from .adam import Adam, adam

__all__ = ["AdamW", "adamw"]


class AdamW(Adam):
    """Adam with weight decay applied to the parameters, not the gradient (Loshchilov & Hutter)."""

    def __init__(self, params: Iterable, lr: float | Tensor = 1e-3,
                 betas: tuple[float, float] = (0.9, 0.999), eps: float = 1e-8,
                 weight_decay: float = 1e-2, amsgrad: bool = False, *, maximize: bool = False,
                 foreach: bool | None = None, capturable: bool = False,
                 differentiable: bool = False, fused: bool | None = None) -> None:
        super().__init__(params, lr, betas, eps, weight_decay, amsgrad, foreach=foreach,
                         maximize=maximize, capturable=capturable, differentiable=differentiable,
                         fused=fused, decoupled_weight_decay=True)

    def __setstate__(self, state: dict[str, Any]) -> None:
        super().__setstate__(state)
        # a state dict saved by Adam must not turn AdamW back into Adam
        for group in self.param_groups:
            group["decoupled_weight_decay"] = True


def adamw(params: list[Tensor], grads: list[Tensor], exp_avgs: list[Tensor],
          exp_avg_sqs: list[Tensor], max_exp_avg_sqs: list[Tensor], state_steps: list[Tensor], *,
          amsgrad: bool, beta1: float, beta2: float, lr: float | Tensor, weight_decay: float,
          eps: float, maximize: bool, **kwargs: Any) -> None:
    """The AdamW update in place: ``adam`` with decoupled weight decay."""
    adam(params, grads, exp_avgs, exp_avg_sqs, max_exp_avg_sqs, state_steps,
         decoupled_weight_decay=True, amsgrad=amsgrad, beta1=beta1, beta2=beta2, lr=lr,
         weight_decay=weight_decay, eps=eps, maximize=maximize, **kwargs)
