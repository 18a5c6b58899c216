"""``torch.cond(pred, true_fn, false_fn, operands)``, run eagerly."""
from ..tensor import Tensor

__all__ = ["cond"]


def cond(pred, true_fn, false_fn, operands=()):
    """``true_fn(*operands)`` where ``pred`` (a bool, or a tensor of one element) holds, else
    ``false_fn(*operands)``."""
    if isinstance(pred, Tensor):
        if pred.numel() != 1:
            raise RuntimeError(f"Expected pred to be bool or single-element tensor, but got {pred}.")
        pred = bool(pred.item())
    elif not isinstance(pred, bool):
        raise RuntimeError(f"Expected pred to be bool or tensor, but got {pred}.")
    return (true_fn if pred else false_fn)(*operands)
