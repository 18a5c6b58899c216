"""``tinytorch.nn.functional``: a namespace filled from the op registry (every op declared with an
``nn.functional`` spelling in ``tinytorch/_ops/``: activations, dropout, losses, linear, convolution,
pooling, normalisation, padding, resizing, fold, embedding, ...), plus the spellings that are not
declared ops (yet)."""
from __future__ import annotations

# softmax and log_softmax are reduce.py's ops (declared with the reductions); unfold shares its name
# with the Tensor.unfold view; the distances live with the products
from .._ops.nn.activation_smooth import log_softmax, softmax  # noqa: F401
from .._ops.nn.fold import unfold  # noqa: F401
from .._ops.linalg.products import cosine_similarity, pairwise_distance  # noqa: F401
from .._ops.nn.loss_margin import triplet_margin_with_distance_loss  # noqa: F401  (takes a callable: not an op)
from ..tensor import Tensor  # noqa: F401  (PyTorch's nn.functional has it too)

# every op declared with an nn.functional spelling (tinytorch/_ops/_core/registry.py)
from .._ops._core import registry as _registry  # noqa: E402

globals().update(_registry.namespace("nn.functional"))

# the ops declared functional_apart: PyTorch writes them in torch.nn.functional's own Python, apart from
# torch.X (F.max_pool2d is not torch.max_pool2d, and torch.fx records a call of F.max_pool2d by that function).
# Each gets a spelling of its own here (it routes __torch_function__ as the declared ones do, and runs the same op).
for _decl in list(_registry.REGISTRY.values()):
    if _decl.functional_apart:  # (declared with op(functional_apart=True))
        globals()[_decl.name] = _registry.spelling_of(globals()[_decl.name])


def sigmoid(input: Tensor) -> Tensor:
    """``input.sigmoid()``: PyTorch's F.sigmoid calls the method (so torch.fx records a method call)."""
    return input.sigmoid()


def tanh(input: Tensor) -> Tensor:
    """``input.tanh()``: PyTorch's F.tanh calls the method (so torch.fx records a method call)."""
    return input.tanh()


__all__ = sorted(n for n, v in globals().items()
                 if not n.startswith("_") and callable(v) and n not in ("annotations", "Tensor"))
