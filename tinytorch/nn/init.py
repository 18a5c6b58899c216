"""``tinytorch.nn.init``: PyTorch's weight initialisers, composed as PyTorch composes them.

Every initialiser fills the tensor in place under no_grad (so it works on parameters that
require grad) and returns it. The draws are PyTorch's (``Tensor.uniform_`` / ``normal_`` with the
same bounds computed in the same Python float arithmetic), so a seeded initialisation gives
PyTorch's weights bit for bit; ``trunc_normal_`` and ``orthogonal_`` take PyTorch's draws but their
final arithmetic (erfinv, QR) may differ in the last bits."""
from __future__ import annotations

import math
import warnings

import numpy as np

from ..autograd.grad_mode import no_grad, version_counter
from .._random.draws import randperm_values, uniform_values
from .._random.engine import _engine
from .._random.normal import normal_values
from ..tensor import Tensor

_LINEAR_FNS = ("linear", "conv1d", "conv2d", "conv3d", "conv_transpose1d", "conv_transpose2d", "conv_transpose3d")

__all__ = ["calculate_gain", "uniform_", "normal_", "trunc_normal_", "constant_", "ones_", "zeros_", "eye_",
           "xavier_uniform_", "xavier_normal_", "kaiming_uniform_", "kaiming_normal_", "orthogonal_", "dirac_",
           "sparse_"]


def calculate_gain(nonlinearity: str, param=None):
    """The recommended gain for a nonlinearity (e.g. sqrt(2) for relu, 5/3 for tanh)."""
    if nonlinearity in _LINEAR_FNS or nonlinearity == "sigmoid":
        return 1
    if nonlinearity == "tanh":
        return 5.0 / 3
    if nonlinearity == "relu":
        return math.sqrt(2.0)
    if nonlinearity == "leaky_relu":
        if param is None:
            slope = 0.01
        elif (not isinstance(param, bool) and isinstance(param, int)) or isinstance(param, float):
            slope = param
        else:
            raise ValueError(f"negative_slope {param} not a valid number")
        return math.sqrt(2.0 / (1 + slope**2))
    if nonlinearity == "selu":
        return 3.0 / 4
    raise ValueError(f"Unsupported nonlinearity {nonlinearity}")


def _calculate_fan_in_and_fan_out(tensor: Tensor) -> tuple:
    """(fan_in, fan_out): dim 1 and dim 0 sizes, times the receptive field (product of dims 2...)."""
    if tensor.dim() < 2:
        raise ValueError("Fan in and fan out can not be computed for tensor with fewer than 2 dimensions")
    fan_out, fan_in, *receptive_field = tensor.shape
    receptive = math.prod(receptive_field)
    return fan_in * receptive, fan_out * receptive


def _calculate_correct_fan(tensor: Tensor, mode: str) -> int:
    mode = mode.lower()
    valid = ["fan_in", "fan_out"]
    if mode not in valid:
        raise ValueError(f"Mode {mode} not supported, please use one of {valid}")
    fan_in, fan_out = _calculate_fan_in_and_fan_out(tensor)
    return fan_in if mode == "fan_in" else fan_out


def uniform_(tensor: Tensor, a: float = 0.0, b: float = 1.0, generator=None) -> Tensor:
    """Fill with U(a, b)."""
    with no_grad():
        return tensor.uniform_(a, b, generator=generator)


def normal_(tensor: Tensor, mean: float = 0.0, std: float = 1.0, generator=None) -> Tensor:
    """Fill with N(mean, std^2)."""
    with no_grad():
        return tensor.normal_(mean, std, generator=generator)


def trunc_normal_(tensor: Tensor, mean: float = 0.0, std: float = 1.0, a: float = -2.0, b: float = 2.0,
                  generator=None) -> Tensor:
    """N(mean, std^2) restricted to [a, b], by rejection as PyTorch does it: when [a, b] holds more than
    30% of the mass, whole-tensor ``normal_`` redraws replace the values outside; otherwise uniform
    proposals on [a, b] are accepted with probability pdf / pdf(mode)."""
    def norm_cdf(x):
        return (1.0 + math.erf(x / math.sqrt(2.0))) / 2.0

    if (mean < a - 2 * std) or (mean > b + 2 * std):
        warnings.warn("mean is more than 2 std from [a, b] in nn.init.trunc_normal_. "
                      "The distribution of values may be incorrect.", stacklevel=2)
    with no_grad():
        p = norm_cdf((b - mean) / std) - norm_cdf((a - mean) / std)
        x = tensor._data
        # every temporary PyTorch makes has the tensor's memory layout: work in memory order
        perm = sorted(range(x.ndim), key=lambda d: -abs(x.strides[d]) if x.shape[d] > 1 else 0)
        contiguous = x.flags.c_contiguous
        n, npd = x.size, x.dtype
        eng = _engine(generator)
        if p > 0.3:
            lo, hi = float(npd.type(a)), float(npd.type(b))
            tensor.normal_(mean, std, generator=generator)
            res = x.transpose(perm).reshape(-1).copy()
            while True:
                mask = (res < lo) | (res > hi)
                if not mask.any():
                    break
                res = np.where(mask, normal_values(eng, n, npd, mean, std, contiguous), res)
        else:
            mode = max(a, min(mean, b))
            log_peak = -0.5 * ((mode - mean) / std) ** 2
            f = npd.type

            def log_pdf(c):
                c = (c - f(mean)) / f(std)
                return (c * c) * f(-0.5) - f(log_peak)

            res = uniform_values(eng, n, npd, a, b)
            # float log of a uniform; PyTorch's vectorised log may differ in the last bit here
            pending = np.log(uniform_values(eng, n, npd, 0.0, 1.0).astype(np.float64)).astype(npd) > log_pdf(res)
            while pending.any():
                cand = uniform_values(eng, n, npd, a, b)
                res = np.where(pending, cand, res)
                accept = np.log(uniform_values(eng, n, npd, 0.0, 1.0).astype(np.float64)).astype(npd) > log_pdf(cand)
                pending = np.where(pending, accept, pending)
        x.transpose(perm)[...] = res.reshape([x.shape[d] for d in perm])
        version_counter(tensor)[0] += 1
    return tensor


def constant_(tensor: Tensor, val: float) -> Tensor:
    """Fill with ``val``."""
    with no_grad():
        return tensor.fill_(val)


def ones_(tensor: Tensor) -> Tensor:
    return constant_(tensor, 1.0)


def zeros_(tensor: Tensor) -> Tensor:
    with no_grad():
        return tensor.zero_()


def eye_(tensor: Tensor) -> Tensor:
    """Fill a 2-d tensor with the identity (ones on the main diagonal)."""
    if tensor.ndim != 2:
        raise ValueError("Only tensors with 2 dimensions are supported")
    with no_grad():
        tensor.zero_()
        np.fill_diagonal(tensor._data, 1)
    return tensor


def dirac_(tensor: Tensor, groups: int = 1) -> Tensor:
    """Fill a 3-, 4- or 5-d convolution weight so that the layer passes its first input channels through (one
    identity per group of output channels)."""
    if tensor.ndim not in (3, 4, 5):
        raise ValueError("Only tensors with 3, 4, or 5 dimensions are supported")
    if tensor.shape[0] % groups != 0:
        raise ValueError("dim 0 must be divisible by groups")
    if tensor.is_meta:
        return tensor
    per_group = tensor.shape[0] // groups
    centre = tuple(n // 2 for n in tensor.shape[2:])
    with no_grad():
        tensor.zero_()
        for g in range(groups):
            for d in range(min(per_group, tensor.shape[1])):
                tensor[(g * per_group + d, d) + centre] = 1
    return tensor


def sparse_(tensor: Tensor, sparsity: float, std: float = 0.01, generator=None) -> Tensor:
    """N(0, std) in a 2-d tensor, then ``ceil(sparsity * rows)`` entries of each column set to zero (Martens,
    2010). As in PyTorch, ``generator`` draws the values, the default generator each column's zeros."""
    if tensor.ndim != 2:
        raise ValueError("Only tensors with 2 dimensions are supported")
    if tensor.is_meta:
        return tensor
    rows, cols = tensor.shape
    zeros = math.ceil(sparsity * rows)
    with no_grad():
        tensor.normal_(0, std, generator=generator)
        for col in range(cols):
            # the default generator's permutation, as ``torch.randperm(rows)`` draws it
            tensor._data[randperm_values(_engine(None), rows)[:zeros], col] = 0
        version_counter(tensor)[0] += 1
    return tensor


def xavier_uniform_(tensor: Tensor, gain: float = 1.0, generator=None) -> Tensor:
    """U(-a, a) with a = gain * sqrt(6 / (fan_in + fan_out)) (Glorot & Bengio)."""
    fan_in, fan_out = _calculate_fan_in_and_fan_out(tensor)
    std = gain * math.sqrt(2.0 / float(fan_in + fan_out))
    bound = math.sqrt(3.0) * std
    return uniform_(tensor, -bound, bound, generator)


def xavier_normal_(tensor: Tensor, gain: float = 1.0, generator=None) -> Tensor:
    """N(0, std^2) with std = gain * sqrt(2 / (fan_in + fan_out))."""
    fan_in, fan_out = _calculate_fan_in_and_fan_out(tensor)
    std = gain * math.sqrt(2.0 / float(fan_in + fan_out))
    return normal_(tensor, 0.0, std, generator)


def _empty_warning(tensor: Tensor) -> bool:
    if 0 in tensor.shape:
        warnings.warn("Initializing zero-element tensors is a no-op", stacklevel=3)
        return True
    return False


def kaiming_uniform_(tensor: Tensor, a: float = 0, mode: str = "fan_in", nonlinearity: str = "leaky_relu",
                     generator=None) -> Tensor:
    """U(-b, b) with b = gain * sqrt(3 / fan) (He et al.); Linear uses a = sqrt(5)."""
    if _empty_warning(tensor):
        return tensor
    fan = _calculate_correct_fan(tensor, mode)
    std = calculate_gain(nonlinearity, a) / math.sqrt(fan)
    bound = math.sqrt(3.0) * std
    return uniform_(tensor, -bound, bound, generator)


def kaiming_normal_(tensor: Tensor, a: float = 0, mode: str = "fan_in", nonlinearity: str = "leaky_relu",
                    generator=None) -> Tensor:
    """N(0, std^2) with std = gain / sqrt(fan)."""
    if _empty_warning(tensor):
        return tensor
    fan = _calculate_correct_fan(tensor, mode)
    std = calculate_gain(nonlinearity, a) / math.sqrt(fan)
    return normal_(tensor, 0.0, std, generator)


def orthogonal_(tensor: Tensor, gain: float = 1.0, generator=None) -> Tensor:
    """A (semi-)orthogonal matrix from the QR decomposition of a Gaussian one, times ``gain``."""
    if tensor.ndim < 2:
        raise ValueError("Only tensors with 2 or more dimensions are supported")
    if tensor.numel() == 0:
        return tensor
    rows = tensor.shape[0]
    cols = tensor.numel() // rows
    # PyTorch's draws: a (rows, cols) normal_ of the tensor's dtype
    flat = tensor.new_empty((rows, cols)).normal_(0, 1, generator=generator)._data.astype(np.float64)
    if rows < cols:
        flat = flat.T
    q, r = np.linalg.qr(flat)
    q = q * np.sign(np.diag(r))  # makes the decomposition unique, so q is uniformly distributed
    if rows < cols:
        q = q.T
    with no_grad():
        tensor._data[...] = (q * gain).reshape(tensor.shape)
        version_counter(tensor)[0] += 1
    return tensor


def _deprecated(fn):
    new_name = fn.__name__
    old_name = new_name[:-1]

    def old(*args, **kwargs):
        warnings.warn(f"`nn.init.{old_name}` is now deprecated in favor of `nn.init.{new_name}`.", FutureWarning,
                      stacklevel=2)
        return fn(*args, **kwargs)
    old.__name__ = old_name
    old.__doc__ = f"Deprecated spelling of ``{new_name}``."
    return old


uniform = _deprecated(uniform_)
normal = _deprecated(normal_)
constant = _deprecated(constant_)
eye = _deprecated(eye_)
xavier_uniform = _deprecated(xavier_uniform_)
xavier_normal = _deprecated(xavier_normal_)
kaiming_uniform = _deprecated(kaiming_uniform_)
kaiming_normal = _deprecated(kaiming_normal_)
orthogonal = _deprecated(orthogonal_)
sparse = _deprecated(sparse_)
dirac = _deprecated(dirac_)
