"""Activation modules, as ``torch.nn.modules.activation``: each ``forward`` is one call into a
primitive or ``nn.functional``; ``extra_repr`` prints as PyTorch's."""
from __future__ import annotations

import warnings

from ... import _dtype
from ..._ops.creation.factory import empty
from ..._ops.reduce.softmax import log_softmax, softmax
from ..._ops.pointwise.unary import sigmoid, tanh
from ...tensor import Tensor
from .. import functional as F
from .. import init
from ..parameter import Parameter
from .module import Module


def _inplace_str(inplace: bool) -> str:
    return ", inplace=True" if inplace else ""


class ReLU(Module):
    """max(x, 0)."""

    def __init__(self, inplace: bool = False) -> None:
        super().__init__()
        self.inplace = inplace

    def forward(self, input: Tensor) -> Tensor:
        return F.relu(input, inplace=self.inplace)  # as PyTorch's: a tracer that traces through it records F.relu

    def extra_repr(self) -> str:
        return "inplace=True" if self.inplace else ""


class ReLU6(Module):
    """min(max(x, 0), 6)."""

    def __init__(self, inplace: bool = False) -> None:
        super().__init__()
        self.inplace = inplace

    def forward(self, input) -> Tensor:
        return F.relu6(input, self.inplace)

    def extra_repr(self) -> str:
        return "inplace=True" if self.inplace else ""


class LeakyReLU(Module):
    """x where x > 0, else negative_slope * x."""

    def __init__(self, negative_slope: float = 1e-2, inplace: bool = False) -> None:
        super().__init__()
        self.negative_slope = negative_slope
        self.inplace = inplace

    def forward(self, input) -> Tensor:
        return F.leaky_relu(input, self.negative_slope, self.inplace)

    def extra_repr(self) -> str:
        return f"negative_slope={self.negative_slope}{_inplace_str(self.inplace)}"


class Sigmoid(Module):
    """1 / (1 + exp(-x))."""

    def forward(self, input) -> Tensor:
        return sigmoid(input)


class Tanh(Module):
    """tanh(x)."""

    def forward(self, input) -> Tensor:
        return tanh(input)


class GELU(Module):
    """x * Phi(x); ``approximate='tanh'`` for the tanh approximation."""

    def __init__(self, approximate: str = "none") -> None:
        super().__init__()
        self.approximate = approximate

    def forward(self, input) -> Tensor:
        return F.gelu(input, approximate=self.approximate)

    def extra_repr(self) -> str:
        return f"approximate={self.approximate!r}"


class SiLU(Module):
    """x * sigmoid(x)."""

    def __init__(self, inplace: bool = False) -> None:
        super().__init__()
        self.inplace = inplace

    def forward(self, input) -> Tensor:
        return F.silu(input, inplace=self.inplace)

    def extra_repr(self) -> str:
        return "inplace=True" if self.inplace else ""


class ELU(Module):
    """x where x > 0, else alpha * (exp(x) - 1)."""

    def __init__(self, alpha: float = 1.0, inplace: bool = False) -> None:
        super().__init__()
        self.alpha = alpha
        self.inplace = inplace

    def forward(self, input) -> Tensor:
        return F.elu(input, self.alpha, self.inplace)

    def extra_repr(self) -> str:
        return f"alpha={self.alpha}{_inplace_str(self.inplace)}"


class Softplus(Module):
    """log(1 + exp(beta x)) / beta."""

    def __init__(self, beta: float = 1.0, threshold: float = 20.0) -> None:
        super().__init__()
        self.beta = beta
        self.threshold = threshold

    def forward(self, input) -> Tensor:
        return F.softplus(input, self.beta, self.threshold)

    def extra_repr(self) -> str:
        return f"beta={self.beta}, threshold={self.threshold}"


class _SoftmaxBase(Module):
    _fn_name = "softmax"

    def __init__(self, dim: int | None = None) -> None:
        super().__init__()
        self.dim = dim

    def __setstate__(self, state: dict) -> None:
        super().__setstate__(state)
        if not hasattr(self, "dim"):
            self.dim = None

    def _dim_for(self, input) -> int:
        if self.dim is not None:
            return self.dim
        return F._implicit_dim(self._fn_name, input.ndim, 4)

    def extra_repr(self) -> str:
        return f"dim={self.dim}"


class Softmax(_SoftmaxBase):
    """exp(x) / sum(exp(x)) along ``dim``."""

    def forward(self, input) -> Tensor:
        return softmax(input, self._dim_for(input))


class Softmax2d(Module):
    """Softmax over the channels (dim -3) of (N, C, H, W) or (C, H, W)."""

    def forward(self, input) -> Tensor:
        if input.dim() not in (3, 4):
            raise ValueError(f"Softmax2d: expected input to be 3D or 4D, got {input.dim()}D instead")
        return softmax(input, -3)


class LogSoftmax(_SoftmaxBase):
    """log(softmax(x)) along ``dim``."""

    _fn_name = "log_softmax"

    def forward(self, input) -> Tensor:
        return log_softmax(input, self._dim_for(input))


class Softmin(_SoftmaxBase):
    """softmax(-x) along ``dim``."""

    _fn_name = "softmin"

    def forward(self, input) -> Tensor:
        return softmax(-input, self._dim_for(input))


class _InplaceOnly(Module):
    """An activation whose only option is ``inplace`` (not shown by ``extra_repr`` unless said)."""

    _show_inplace = True

    def __init__(self, inplace: bool = False) -> None:
        super().__init__()
        self.inplace = inplace

    def extra_repr(self) -> str:
        return "inplace=True" if self.inplace and self._show_inplace else ""


class Hardtanh(Module):
    """x clamped to [min_val, max_val]."""

    def __init__(self, min_val: float = -1.0, max_val: float = 1.0, inplace: bool = False,
                 min_value: float | None = None, max_value: float | None = None) -> None:
        super().__init__()
        if min_value is not None:
            warnings.warn("keyword argument `min_value` is deprecated and rename to `min_val`",
                          FutureWarning, stacklevel=2)
            min_val = min_value
        if max_value is not None:
            warnings.warn("keyword argument `max_value` is deprecated and rename to `max_val`",
                          FutureWarning, stacklevel=2)
            max_val = max_value
        self.min_val = min_val
        self.max_val = max_val
        self.inplace = inplace
        if not self.max_val > self.min_val:
            raise AssertionError

    def forward(self, input: Tensor) -> Tensor:
        return F.hardtanh(input, self.min_val, self.max_val, self.inplace)

    def extra_repr(self) -> str:
        return f"min_val={self.min_val}, max_val={self.max_val}{_inplace_str(self.inplace)}"


class Hardswish(_InplaceOnly):
    """x * relu6(x + 3) / 6."""

    _show_inplace = False

    def forward(self, input: Tensor) -> Tensor:
        return F.hardswish(input, self.inplace)


class Hardsigmoid(_InplaceOnly):
    """relu6(x + 3) / 6."""

    _show_inplace = False

    def forward(self, input: Tensor) -> Tensor:
        return F.hardsigmoid(input, self.inplace)


class Mish(_InplaceOnly):
    """x * tanh(softplus(x))."""

    def forward(self, input: Tensor) -> Tensor:
        return F.mish(input, self.inplace)


class SELU(_InplaceOnly):
    """scale * elu(x, alpha) with the self-normalising constants."""

    def forward(self, input: Tensor) -> Tensor:
        return F.selu(input, self.inplace)


class CELU(Module):
    """x where x > 0, else alpha * (exp(x / alpha) - 1)."""

    def __init__(self, alpha: float = 1.0, inplace: bool = False) -> None:
        super().__init__()
        self.alpha = alpha
        self.inplace = inplace

    def forward(self, input: Tensor) -> Tensor:
        return F.celu(input, self.alpha, self.inplace)

    def extra_repr(self) -> str:
        return f"alpha={self.alpha}{_inplace_str(self.inplace)}"


class GLU(Module):
    """First half of ``dim`` times the sigmoid of the second half."""

    def __init__(self, dim: int = -1) -> None:
        super().__init__()
        self.dim = dim

    def forward(self, input: Tensor) -> Tensor:
        return F.glu(input, self.dim)

    def extra_repr(self) -> str:
        return f"dim={self.dim}"


class PReLU(Module):
    """x where x > 0, else a * x, with ``a`` learned (one, or one per channel)."""

    def __init__(self, num_parameters: int = 1, init: float = 0.25, device=None,
                 dtype=None) -> None:
        self.num_parameters = num_parameters
        self.init = init
        super().__init__()
        dtype = dtype if dtype is not None else _dtype.get_default_dtype()
        self.weight = Parameter(empty(num_parameters, dtype=dtype, device=device))
        self.reset_parameters()

    def reset_parameters(self) -> None:
        """Every slope back to ``init``."""
        init.constant_(self.weight, self.init)

    def forward(self, input: Tensor) -> Tensor:
        return F.prelu(input, self.weight)

    def extra_repr(self) -> str:
        return f"num_parameters={self.num_parameters}"


class RReLU(Module):
    """Leaky relu with a random slope in [lower, upper] while training, their mean in eval."""

    def __init__(self, lower: float = 1.0 / 8, upper: float = 1.0 / 3,
                 inplace: bool = False) -> None:
        super().__init__()
        self.lower = lower
        self.upper = upper
        self.inplace = inplace

    def forward(self, input: Tensor) -> Tensor:
        return F.rrelu(input, self.lower, self.upper, self.training, self.inplace)

    def extra_repr(self) -> str:
        return f"lower={self.lower}, upper={self.upper}{_inplace_str(self.inplace)}"


class LogSigmoid(Module):
    """log(sigmoid(x))."""

    def forward(self, input: Tensor) -> Tensor:
        return F.logsigmoid(input)


class Softsign(Module):
    """x / (1 + |x|)."""

    def forward(self, input: Tensor) -> Tensor:
        return F.softsign(input)


class Tanhshrink(Module):
    """x - tanh(x)."""

    def forward(self, input: Tensor) -> Tensor:
        return F.tanhshrink(input)


class _Shrink(Module):
    """An activation with one threshold ``lambd`` (PyTorch's two shrink classes are siblings)."""

    def __init__(self, lambd: float = 0.5) -> None:
        super().__init__()
        self.lambd = lambd

    def extra_repr(self) -> str:
        return str(self.lambd)


class Softshrink(_Shrink):
    """Shrink towards 0 by ``lambd``."""

    def forward(self, input: Tensor) -> Tensor:
        return F.softshrink(input, self.lambd)


class Hardshrink(_Shrink):
    """x where |x| > lambd, else 0."""

    def forward(self, input: Tensor) -> Tensor:
        return F.hardshrink(input, self.lambd)


class Threshold(Module):
    """x where x > threshold, else value."""

    def __init__(self, threshold: float, value: float, inplace: bool = False) -> None:
        super().__init__()
        self.threshold = threshold
        self.value = value
        self.inplace = inplace

    def forward(self, input: Tensor) -> Tensor:
        return F.threshold(input, self.threshold, self.value, self.inplace)

    def extra_repr(self) -> str:
        return f"threshold={self.threshold}, value={self.value}{_inplace_str(self.inplace)}"


from ._multihead_attention import MultiheadAttention  # noqa: E402,F401  (PyTorch's home for it)
