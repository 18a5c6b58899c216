"""CosineSimilarity and PairwiseDistance: thin modules over ``nn.functional``'s
``cosine_similarity`` and ``pairwise_distance`` (the functions live with the tensor ops)."""
from __future__ import annotations

from ...tensor import Tensor
from .. import functional as F
from .module import Module


class PairwiseDistance(Module):
    """||x1 - x2 + eps||_p along the last dimension."""

    def __init__(self, p: float = 2.0, eps: float = 1e-6, keepdim: bool = False) -> None:
        super().__init__()
        self.norm = p
        self.eps = eps
        self.keepdim = keepdim

    def forward(self, x1: Tensor, x2: Tensor) -> Tensor:
        return F.pairwise_distance(x1, x2, self.norm, self.eps, self.keepdim)


class CosineSimilarity(Module):
    """Cosine of the angle between x1 and x2 along ``dim``."""

    def __init__(self, dim: int = 1, eps: float = 1e-8) -> None:
        super().__init__()
        self.dim = dim
        self.eps = eps

    def forward(self, x1: Tensor, x2: Tensor) -> Tensor:
        return F.cosine_similarity(x1, x2, self.dim, self.eps)
