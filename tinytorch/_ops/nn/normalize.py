"""``nn.functional.normalize``, made as PyTorch makes it of public ops: the p-norm along ``dim`` (at::norm's
``NormBackward1``), ``clamp_min`` and a division, so each is recorded (make_fx, export, torch.compile) and
differentiated by its own formula."""
from __future__ import annotations

from ...tensor import Tensor
from .._core.registry import op
from ..linalg.norms import NormBackward1, vector_norm
from ..pointwise.clamp import clamp_min


def _batch_normalize(op, input, p=2.0, dim=1, eps=1e-12, out=None):
    """vmap: the norm along the logical dim's physical place."""
    if out is not None:
        raise RuntimeError("vmap: normalize(out=) is not supported inside tinytorch.func.vmap")
    return input._wrap(op(input._phys, p, input._ld(dim), eps))


@op(variants="functional", batch=_batch_normalize)
def normalize(input: Tensor, p: float = 2.0, dim: int = 1, eps: float = 1e-12,
              out: Tensor | None = None) -> Tensor:
    """input / max(||input||_p, eps) along ``dim``."""
    denom = clamp_min(vector_norm(input, p, dim, True, _node=NormBackward1), eps).expand_as(input)
    result = input / denom
    return result if out is None else out.copy_(result)
