"""tinytorch.optim: optimizers (SGD, Adam, AdamW) and lr schedulers, as ``torch.optim``."""
from . import lr_scheduler  # noqa: F401
from .adam import Adam, AdamW
from .optimizer import Optimizer
from .sgd import SGD

__all__ = ["Optimizer", "SGD", "Adam", "AdamW", "lr_scheduler"]
