"""Pooling layers: ``MaxPool1d/2d/3d``, ``AvgPool1d/2d/3d``, ``AdaptiveAvgPool1d/2d/3d``,
``AdaptiveMaxPool1d/2d/3d``, ``MaxUnpool1d/2d/3d`` and ``LPPool1d/2d/3d``."""
from __future__ import annotations

from ..._ops.nn import pool as _pool
from ..._ops.nn import pool3d as _pool3d
from ..._ops.nn import fractional_pool as _fractional
from ..._ops.nn import unpool as _unpool
from .module import Module
from ...tensor import Tensor


class _MaxPoolNd(Module):
    def __init__(self, kernel_size, stride=None, padding=0, dilation=1, return_indices: bool = False,
                 ceil_mode: bool = False) -> None:
        super().__init__()
        self.kernel_size = kernel_size
        self.stride = stride if stride is not None else kernel_size
        self.padding, self.dilation = padding, dilation
        self.return_indices, self.ceil_mode = return_indices, ceil_mode

    def extra_repr(self) -> str:
        return (f"kernel_size={self.kernel_size}, stride={self.stride}, padding={self.padding}, "
                f"dilation={self.dilation}, ceil_mode={self.ceil_mode}")


class MaxPool1d(_MaxPoolNd):
    """Max over windows of the last dim of (N, C, L) or (C, L)."""

    def forward(self, input):
        return _pool.max_pool1d(input, self.kernel_size, self.stride, self.padding, self.dilation,
                                ceil_mode=self.ceil_mode, return_indices=self.return_indices)


class MaxPool2d(_MaxPoolNd):
    """Max over (kh, kw) windows of (N, C, H, W) or (C, H, W)."""

    def forward(self, input):
        return _pool.max_pool2d(input, self.kernel_size, self.stride, self.padding, self.dilation,
                                ceil_mode=self.ceil_mode, return_indices=self.return_indices)


def _single(v) -> tuple:
    return tuple(v) if isinstance(v, (tuple, list)) else (v,)


class AvgPool1d(Module):
    """Mean over windows of the last dim of (N, C, L) or (C, L)."""

    def __init__(self, kernel_size, stride=None, padding=0, ceil_mode: bool = False,
                 count_include_pad: bool = True) -> None:
        super().__init__()
        self.kernel_size = _single(kernel_size)
        self.stride = _single(stride if stride is not None else kernel_size)
        self.padding = _single(padding)
        self.ceil_mode, self.count_include_pad = ceil_mode, count_include_pad

    def extra_repr(self) -> str:
        return f"kernel_size={self.kernel_size}, stride={self.stride}, padding={self.padding}"

    def forward(self, input) -> Tensor:
        return _pool.avg_pool1d(input, self.kernel_size, self.stride, self.padding, self.ceil_mode,
                                self.count_include_pad)


class AvgPool2d(Module):
    """Mean over (kh, kw) windows of (N, C, H, W) or (C, H, W)."""

    def __init__(self, kernel_size, stride=None, padding=0, ceil_mode: bool = False, count_include_pad: bool = True,
                 divisor_override=None) -> None:
        super().__init__()
        self.kernel_size = kernel_size
        self.stride = stride if stride is not None else kernel_size
        self.padding, self.ceil_mode = padding, ceil_mode
        self.count_include_pad, self.divisor_override = count_include_pad, divisor_override

    def extra_repr(self) -> str:
        return f"kernel_size={self.kernel_size}, stride={self.stride}, padding={self.padding}"

    def forward(self, input) -> Tensor:
        return _pool.avg_pool2d(input, self.kernel_size, self.stride, self.padding, self.ceil_mode,
                                self.count_include_pad, self.divisor_override)


class _AdaptivePoolNd(Module):
    def __init__(self, output_size) -> None:
        super().__init__()
        self.output_size = output_size

    def extra_repr(self) -> str:
        return f"output_size={self.output_size}"


class AdaptiveAvgPool1d(_AdaptivePoolNd):
    """Mean over ``output_size`` near-equal windows of the last dim."""

    def forward(self, input) -> Tensor:
        return _pool.adaptive_avg_pool1d(input, self.output_size)


class AdaptiveAvgPool2d(_AdaptivePoolNd):
    """Mean over an ``output_size`` grid of near-equal windows of (H, W)."""

    def forward(self, input) -> Tensor:
        return _pool.adaptive_avg_pool2d(input, self.output_size)


class AdaptiveMaxPool2d(_AdaptivePoolNd):
    """Max over an ``output_size`` grid of near-equal windows of (H, W)."""

    def __init__(self, output_size, return_indices: bool = False) -> None:
        super().__init__(output_size)
        self.return_indices = return_indices

    def forward(self, input):
        return _pool.adaptive_max_pool2d(input, self.output_size, self.return_indices)


class MaxPool3d(_MaxPoolNd):
    """Max over (kd, kh, kw) windows of (N, C, D, H, W) or (C, D, H, W)."""

    def forward(self, input):
        return _pool3d.max_pool3d(input, self.kernel_size, self.stride, self.padding, self.dilation,
                                  ceil_mode=self.ceil_mode, return_indices=self.return_indices)


class AvgPool3d(AvgPool2d):
    """Mean over (kd, kh, kw) windows of (N, C, D, H, W) or (C, D, H, W)."""

    def forward(self, input) -> Tensor:
        return _pool3d.avg_pool3d(input, self.kernel_size, self.stride, self.padding, self.ceil_mode,
                                  self.count_include_pad, self.divisor_override)


class AdaptiveAvgPool3d(_AdaptivePoolNd):
    """Mean over an ``output_size`` grid of near-equal windows of (D, H, W)."""

    def forward(self, input) -> Tensor:
        return _pool3d.adaptive_avg_pool3d(input, self.output_size)


class AdaptiveMaxPool1d(AdaptiveMaxPool2d):
    """Max over ``output_size`` near-equal windows of the last dim."""

    def forward(self, input):
        return _pool3d.adaptive_max_pool1d(input, self.output_size, self.return_indices)


class AdaptiveMaxPool3d(AdaptiveMaxPool2d):
    """Max over an ``output_size`` grid of near-equal windows of (D, H, W)."""

    def forward(self, input):
        return _pool3d.adaptive_max_pool3d(input, self.output_size, self.return_indices)


class _MaxUnpoolNd(Module):
    _nd = 2

    def __init__(self, kernel_size, stride=None, padding=0) -> None:
        super().__init__()
        n = self._nd
        tup = (lambda v: tuple(v) if isinstance(v, (tuple, list)) else (v,) * n)  # noqa: E731
        self.kernel_size = tup(kernel_size)
        self.stride = tup(stride if stride is not None else kernel_size)
        self.padding = tup(padding)

    def extra_repr(self) -> str:
        return f"kernel_size={self.kernel_size}, stride={self.stride}, padding={self.padding}"

    def forward(self, input, indices, output_size=None) -> Tensor:
        fn = getattr(_unpool, f"max_unpool{self._nd}d")
        return fn(input, indices, self.kernel_size, self.stride, self.padding, output_size)


class MaxUnpool1d(_MaxUnpoolNd):
    """The partial inverse of MaxPool1d."""

    _nd = 1


class MaxUnpool2d(_MaxUnpoolNd):
    """The partial inverse of MaxPool2d."""

    _nd = 2


class MaxUnpool3d(_MaxUnpoolNd):
    """The partial inverse of MaxPool3d."""

    _nd = 3


class _LPPoolNd(Module):
    _nd = 2

    def __init__(self, norm_type: float, kernel_size, stride=None, ceil_mode: bool = False) -> None:
        super().__init__()
        self.norm_type, self.kernel_size, self.stride, self.ceil_mode = norm_type, kernel_size, stride, ceil_mode

    def extra_repr(self) -> str:
        return ("norm_type={norm_type}, kernel_size={kernel_size}, stride={stride}, "
                "ceil_mode={ceil_mode}".format(**self.__dict__))

    def forward(self, input) -> Tensor:
        fn = getattr(_pool3d, f"lp_pool{self._nd}d")
        return fn(input, float(self.norm_type), self.kernel_size, self.stride, self.ceil_mode)


class LPPool1d(_LPPoolNd):
    """(sum of x^p over each window)^(1/p) along the last dim."""

    _nd = 1


class LPPool2d(_LPPoolNd):
    """(sum of x^p over each (kh, kw) window)^(1/p)."""

    _nd = 2


class LPPool3d(_LPPoolNd):
    """(sum of x^p over each (kd, kh, kw) window)^(1/p)."""

    _nd = 3


def _ntuple_or_none(v, n: int):
    if v is None:
        return None
    return tuple(v) if isinstance(v, (tuple, list)) else (v,) * n


class _FractionalMaxPoolNd(Module):
    _dims = 2

    def __init__(self, kernel_size, output_size=None, output_ratio=None, return_indices: bool = False,
                 _random_samples=None) -> None:
        super().__init__()
        n, cls_name = self._dims, type(self).__name__
        self.kernel_size = _ntuple_or_none(kernel_size, n)
        self.return_indices = return_indices
        self.register_buffer("_random_samples", _random_samples)
        self.output_size = _ntuple_or_none(output_size, n)
        self.output_ratio = _ntuple_or_none(output_ratio, n)
        if output_size is None and output_ratio is None:
            raise ValueError(f"{cls_name} requires specifying either an output size, or a pooling ratio")
        if output_size is not None and output_ratio is not None:
            raise ValueError("only one of output_size and output_ratio may be specified")
        if self.output_ratio is not None and not all(0 < r < 1 for r in self.output_ratio):
            raise ValueError(f"output_ratio must be between 0 and 1 (got {output_ratio})")

    def forward(self, input):
        pool = (_fractional.fractional_max_pool2d if self._dims == 2 else _fractional.fractional_max_pool3d)
        return pool(input, self.kernel_size, self.output_size, self.output_ratio, self.return_indices,
                    _random_samples=self._random_samples)


class FractionalMaxPool2d(_FractionalMaxPoolNd):
    """Max pooling over windows at pseudo-random positions giving ``output_size`` (or ``output_ratio``
    of the input size); the positions come from the random stream unless ``_random_samples`` is given."""

    _dims = 2


class FractionalMaxPool3d(_FractionalMaxPoolNd):
    """The 3-d (T, H, W) fractional max pooling."""

    _dims = 3
