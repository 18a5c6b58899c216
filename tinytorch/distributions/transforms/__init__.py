"""``tinytorch.distributions.transforms``: invertible maps with their log |det J|."""
from __future__ import annotations

from .base import ComposeTransform, IndependentTransform, ReshapeTransform, Transform, identity_transform
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
