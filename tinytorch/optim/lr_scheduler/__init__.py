"""Learning-rate schedulers, as ``torch.optim.lr_scheduler``: each ``step()`` sets ``group["lr"]``
of every parameter group.

PyTorch keeps them in one module; here the package's files hold one family each (``_base``,
``_lambda``, ``_decay``, ``_cosine``, ``_cyclic``, ``_plateau``, ``_composite``), and every class
says it is ``tinytorch.optim.lr_scheduler.<Name>``, the path PyTorch's classes have, so pickles
and ``repr``s name them as PyTorch's do."""
from ..optimizer import Optimizer  # noqa: F401  (PyTorch's module has it as an attribute too)
from ._base import EPOCH_DEPRECATION_WARNING, LRScheduler, _LRScheduler  # noqa: F401
from ._composite import ChainedScheduler, SequentialLR
from ._cosine import CosineAnnealingLR, CosineAnnealingWarmRestarts
from ._cyclic import CyclicLR, OneCycleLR
from ._decay import ConstantLR, ExponentialLR, LinearLR, MultiStepLR, PolynomialLR, StepLR
from ._lambda import LambdaLR, MultiplicativeLR
from ._plateau import ReduceLROnPlateau

__all__ = ["LambdaLR", "MultiplicativeLR", "StepLR", "MultiStepLR", "ConstantLR", "LinearLR",
           "ExponentialLR", "SequentialLR", "CosineAnnealingLR", "ChainedScheduler", "ReduceLROnPlateau",
           "CyclicLR", "CosineAnnealingWarmRestarts", "OneCycleLR", "PolynomialLR", "LRScheduler"]



def _claim(cls: type) -> None:
    """Give ``cls`` and the functions of its body this module's name, as pickle looks them up."""
    for attr in vars(cls).values():
        fn = getattr(attr, "__func__", attr)  # staticmethod and classmethod hold a function
        if getattr(fn, "__module__", None) == cls.__module__ and hasattr(fn, "__qualname__"):
            fn.__module__ = __name__
    cls.__module__ = __name__


for _name in [*__all__, "_LRScheduler"]:
    _claim(globals()[_name])
del _name
