"""``tinytorch.distributions.transforms``: invertible maps with their log |det J|."""
from __future__ import annotations

from .base import ComposeTransform, IndependentTransform, ReshapeTransform, Transform, identity_transform
from .base import _InverseTransform  # noqa: F401  (PyTorch's ExpTransform().inv is a transforms._InverseTransform)
from .cat_stack import CatTransform, StackTransform
from .elementwise import (AbsTransform, AffineTransform, CumulativeDistributionTransform, ExpTransform,
                          PowerTransform, SigmoidTransform, SoftplusTransform, TanhTransform)
from .matrix import (CorrCholeskyTransform, LowerCholeskyTransform, PositiveDefiniteTransform,
                     SoftmaxTransform, StickBreakingTransform)

__all__ = ["AbsTransform", "AffineTransform", "CatTransform", "ComposeTransform", "CorrCholeskyTransform",
           "CumulativeDistributionTransform", "ExpTransform", "IndependentTransform", "LowerCholeskyTransform",
           "PositiveDefiniteTransform", "PowerTransform", "ReshapeTransform", "SigmoidTransform",
           "SoftplusTransform", "TanhTransform", "SoftmaxTransform", "StackTransform",
           "StickBreakingTransform", "Transform", "identity_transform"]

# PyTorch keeps every transform in one module, torch.distributions.transforms, and its classes print and pickle by
# that path (an inverse too: ExpTransform().inv is a transforms._InverseTransform); ours name this package, which
# holds each of them
for _obj in list(globals().values()):
    if isinstance(_obj, type) and _obj.__module__.startswith(__name__ + "."):
        _obj.__module__ = __name__
del _obj
