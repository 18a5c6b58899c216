"""Convolution layers: ``Conv1d/2d/3d``, ``ConvTranspose1d/2d/3d``, with PyTorch's constructor
arguments, attributes, default initialisation and ``extra_repr``."""
from __future__ import annotations

import math

from ... import _dtype
from ..._ops.creation.factory import empty
from ..._ops.nn import conv as _conv
from ..._ops.nn import conv3d as _conv3d
from ..._ops.nn._conv_pad import pad_for_conv
from .. import init
from ..parameter import Parameter, UninitializedParameter
from .lazy import LazyModuleMixin
from .module import Module
from ...tensor import Tensor

# sets, as PyTorch's messages print them (their order follows the string hashes of the process)
_PADDING_MODES = {"zeros", "reflect", "replicate", "circular"}
_PADDING_STRINGS = {"same", "valid"}


def _ntuple(v, n: int) -> tuple:
    if isinstance(v, (tuple, list)):
        return tuple(v)
    return (v,) * n


class _ConvNd(Module):
    __constants__ = ["stride", "padding", "dilation", "groups", "padding_mode", "output_padding", "in_channels",
                     "out_channels", "kernel_size"]

    def __init__(self, in_channels, out_channels, kernel_size, stride, padding, dilation, transposed, output_padding,
                 groups, bias, padding_mode, device=None, dtype=None, nd: int = 2) -> None:
        super().__init__()
        if groups <= 0:
            raise ValueError("groups must be a positive integer")
        if in_channels % groups != 0:
            raise ValueError("in_channels must be divisible by groups")
        if out_channels % groups != 0:
            raise ValueError("out_channels must be divisible by groups")
        if isinstance(padding, str):
            if padding not in _PADDING_STRINGS:
                raise ValueError(f"Invalid padding string {padding!r}, should be one of {_PADDING_STRINGS}")
            if padding == "same" and any(s != 1 for s in stride):
                raise ValueError("padding='same' is not supported for strided convolutions")
        if padding_mode not in _PADDING_MODES:
            raise ValueError(f"padding_mode must be one of {_PADDING_MODES}, but got padding_mode='{padding_mode}'")
        self.in_channels, self.out_channels = in_channels, out_channels
        self.kernel_size, self.stride, self.padding, self.dilation = kernel_size, stride, padding, dilation
        self.transposed, self.output_padding, self.groups, self.padding_mode = (transposed, output_padding, groups,
                                                                              padding_mode)
        if isinstance(padding, str):
            # F.pad's order (last dim first) for the non-zeros padding modes; 'same' puts the odd one right
            self._reversed_padding_repeated_twice = [0, 0] * len(kernel_size)
            if padding == "same":
                for d, k, i in zip(dilation, kernel_size, range(len(kernel_size) - 1, -1, -1)):
                    total = d * (k - 1)
                    left = total // 2
                    self._reversed_padding_repeated_twice[2 * i] = left
                    self._reversed_padding_repeated_twice[2 * i + 1] = total - left
        else:
            self._reversed_padding_repeated_twice = tuple(p for p in reversed(padding) for _ in range(2))
        dtype = dtype if dtype is not None else _dtype.get_default_dtype()
        shape = ((in_channels, out_channels // groups) if transposed else (out_channels, in_channels // groups))
        self.weight = Parameter(empty(shape + tuple(kernel_size), dtype=dtype, device=device))
        if bias:
            self.bias = Parameter(empty(out_channels, dtype=dtype, device=device))
        else:
            self.register_parameter("bias", None)
        self.reset_parameters()

    def reset_parameters(self) -> None:
        """kaiming_uniform_(a=sqrt(5)) for the weight, U(-1/sqrt(fan_in), 1/sqrt(fan_in)) for the bias."""
        init.kaiming_uniform_(self.weight, a=math.sqrt(5))
        if self.bias is not None:
            fan_in, _ = init._calculate_fan_in_and_fan_out(self.weight)
            if fan_in != 0:
                bound = 1 / math.sqrt(fan_in)
                init.uniform_(self.bias, -bound, bound)

    def extra_repr(self) -> str:
        s = "{in_channels}, {out_channels}, kernel_size={kernel_size}, stride={stride}"
        if self.padding != (0,) * len(self.padding):
            s += ", padding={padding}"
        if self.dilation != (1,) * len(self.dilation):
            s += ", dilation={dilation}"
        if self.output_padding != (0,) * len(self.output_padding):
            s += ", output_padding={output_padding}"
        if self.groups != 1:
            s += ", groups={groups}"
        if self.bias is None:
            s += ", bias=False"
        if self.padding_mode != "zeros":
            s += ", padding_mode={padding_mode}"
        return s.format(**self.__dict__)

    def _conv_forward(self, input, weight, bias, fn):
        if self.padding_mode != "zeros":
            padded = pad_for_conv(input, self._reversed_padding_repeated_twice, self.padding_mode)
            return fn(padded, weight, bias, self.stride, (0,) * len(self.kernel_size), self.dilation, self.groups)
        return fn(input, weight, bias, self.stride, self.padding, self.dilation, self.groups)


class Conv1d(_ConvNd):
    """1-d convolution over (N, C_in, L) or (C_in, L) inputs."""

    def __init__(self, in_channels: int, out_channels: int, kernel_size, stride=1, padding=0, dilation=1,
                 groups: int = 1, bias: bool = True, padding_mode: str = "zeros", device=None, dtype=None) -> None:
        padding = padding if isinstance(padding, str) else _ntuple(padding, 1)
        super().__init__(in_channels, out_channels, _ntuple(kernel_size, 1), _ntuple(stride, 1), padding,
                         _ntuple(dilation, 1), False, (0,), groups, bias, padding_mode, device, dtype)

    def forward(self, input) -> Tensor:
        return self._conv_forward(input, self.weight, self.bias, _conv.conv1d)


class Conv2d(_ConvNd):
    """2-d convolution over (N, C_in, H, W) or (C_in, H, W) inputs."""

    def __init__(self, in_channels: int, out_channels: int, kernel_size, stride=1, padding=0, dilation=1,
                 groups: int = 1, bias: bool = True, padding_mode: str = "zeros", device=None, dtype=None) -> None:
        padding = padding if isinstance(padding, str) else _ntuple(padding, 2)
        super().__init__(in_channels, out_channels, _ntuple(kernel_size, 2), _ntuple(stride, 2), padding,
                         _ntuple(dilation, 2), False, (0, 0), groups, bias, padding_mode, device, dtype)

    def forward(self, input) -> Tensor:
        return self._conv_forward(input, self.weight, self.bias, _conv.conv2d)


class Conv3d(_ConvNd):
    """3-d convolution over (N, C_in, D, H, W) or (C_in, D, H, W) inputs."""

    def __init__(self, in_channels: int, out_channels: int, kernel_size, stride=1, padding=0, dilation=1,
                 groups: int = 1, bias: bool = True, padding_mode: str = "zeros", device=None, dtype=None) -> None:
        padding = padding if isinstance(padding, str) else _ntuple(padding, 3)
        super().__init__(in_channels, out_channels, _ntuple(kernel_size, 3), _ntuple(stride, 3), padding,
                         _ntuple(dilation, 3), False, (0, 0, 0), groups, bias, padding_mode, device, dtype)

    def forward(self, input) -> Tensor:
        return self._conv_forward(input, self.weight, self.bias, _conv3d.conv3d)


class _ConvTransposeNd(_ConvNd):
    """The adjoint of a convolution: weight (C_in, C_out/groups, *kernel)."""

    _nd = 2

    def __init__(self, in_channels: int, out_channels: int, kernel_size, stride=1, padding=0, output_padding=0,
                 groups: int = 1, bias: bool = True, dilation=1, padding_mode: str = "zeros", device=None,
                 dtype=None) -> None:
        if padding_mode != "zeros":
            raise ValueError(f'Only "zeros" padding mode is supported for {type(self).__name__}')
        n = self._nd
        super().__init__(in_channels, out_channels, _ntuple(kernel_size, n), _ntuple(stride, n), _ntuple(padding, n),
                         _ntuple(dilation, n), True, _ntuple(output_padding, n), groups, bias, padding_mode, device,
                         dtype)

    def _output_padding(self, input, output_size) -> tuple:
        if output_size is None:
            return self.output_padding
        n = self._nd
        output_size = list(output_size)
        if len(output_size) == n + 2 or (len(output_size) == n + 1 and input.ndim == n + 1):
            output_size = output_size[-n:]
        if len(output_size) != n:
            raise ValueError(f"ConvTranspose{n}D: for {input.ndim}D input, output_size must have {n} or "
                             f"{n + 2} elements (got {len(output_size)})")
        least = [(input.shape[-n + d] - 1) * self.stride[d] - 2 * self.padding[d]
                 + self.dilation[d] * (self.kernel_size[d] - 1) + 1 for d in range(n)]
        most = [least[d] + self.stride[d] - 1 for d in range(n)]
        for d in range(n):
            if not least[d] <= output_size[d] <= most[d]:
                raise ValueError(f"requested an output size of {output_size}, but valid sizes range from {least} to "
                                 f"{most} (for an input of {input.shape[-n:]})")
        return tuple(output_size[d] - least[d] for d in range(n))

    def forward(self, input, output_size=None) -> Tensor:
        output_padding = self._output_padding(input, output_size)
        return self._transposed(input, self.weight, self.bias, self.stride, self.padding, output_padding,
                                self.groups, self.dilation)


class ConvTranspose1d(_ConvTransposeNd):
    """The adjoint of Conv1d: weight (C_in, C_out/groups, k)."""

    _nd = 1
    _transposed = staticmethod(_conv.conv_transpose1d)


class ConvTranspose2d(_ConvTransposeNd):
    """The adjoint of Conv2d (a "deconvolution"): weight (C_in, C_out/groups, kh, kw)."""

    _nd = 2
    _transposed = staticmethod(_conv.conv_transpose2d)


class ConvTranspose3d(_ConvTransposeNd):
    """The adjoint of Conv3d: weight (C_in, C_out/groups, kd, kh, kw)."""

    _nd = 3
    _transposed = staticmethod(_conv3d.conv_transpose3d)


# -- lazy convolutions: in_channels from the first input ------------------------------------------
class _LazyConvXdMixin(LazyModuleMixin):
    _spatial = 2

    def _lazy_parameters(self, out_channels: int, bias: bool, device, dtype) -> None:
        self.weight = UninitializedParameter(device=device, dtype=dtype)
        self.out_channels = out_channels
        if bias:
            self.bias = UninitializedParameter(device=device, dtype=dtype)

    def reset_parameters(self) -> None:
        if not self.has_uninitialized_params() and self.in_channels != 0:
            super().reset_parameters()

    def _get_in_channels(self, input) -> int:
        unbatched = self._spatial + 1
        if input.dim() not in (unbatched, unbatched + 1):
            raise RuntimeError(f"Expected {unbatched}D (unbatched) or {unbatched + 1}D (batched) input to "
                               f"{type(self).__name__}, but got input of size: {input.shape}")
        return input.shape[1] if input.dim() == unbatched + 1 else input.shape[0]

    def initialize_parameters(self, input, *args, **kwargs) -> None:
        if self.has_uninitialized_params():
            self.in_channels = self._get_in_channels(input)
            if self.in_channels % self.groups != 0:
                raise ValueError("in_channels must be divisible by groups")
            if self.transposed:
                shape = (self.in_channels, self.out_channels // self.groups)
            else:
                shape = (self.out_channels, self.in_channels // self.groups)
            self.weight.materialize(shape + tuple(self.kernel_size))
            if self.bias is not None:
                self.bias.materialize((self.out_channels,))
            self.reset_parameters()


def _lazy_conv(base, spatial: int):
    class LazyConv(_LazyConvXdMixin, base):
        cls_to_become = base
        _spatial = spatial

        def __init__(self, out_channels: int, kernel_size, stride=1, padding=0, dilation=1, groups: int = 1,
                     bias: bool = True, padding_mode: str = "zeros", device=None, dtype=None) -> None:
            super().__init__(0, 0, kernel_size, stride, padding, dilation, groups, False, padding_mode, device, dtype)
            self._lazy_parameters(out_channels, bias, device, dtype)

    return LazyConv


def _lazy_conv_transpose(base, spatial: int):
    class LazyConvTranspose(_LazyConvXdMixin, base):
        cls_to_become = base
        _spatial = spatial

        def __init__(self, out_channels: int, kernel_size, stride=1, padding=0, output_padding=0, groups: int = 1,
                     bias: bool = True, dilation=1, padding_mode: str = "zeros", device=None, dtype=None) -> None:
            super().__init__(0, 0, kernel_size, stride, padding, output_padding, groups, False, dilation,
                             padding_mode, device, dtype)
            self._lazy_parameters(out_channels, bias, device, dtype)

    return LazyConvTranspose


def _named(cls, name: str, doc: str):
    cls.__name__ = cls.__qualname__ = name
    cls.__doc__ = doc
    return cls


LazyConv1d = _named(_lazy_conv(Conv1d, 1), "LazyConv1d", "A Conv1d whose in_channels come from its first input.")
LazyConv2d = _named(_lazy_conv(Conv2d, 2), "LazyConv2d", "A Conv2d whose in_channels come from its first input.")
LazyConv3d = _named(_lazy_conv(Conv3d, 3), "LazyConv3d", "A Conv3d whose in_channels come from its first input.")
LazyConvTranspose1d = _named(_lazy_conv_transpose(ConvTranspose1d, 1), "LazyConvTranspose1d",
                             "A ConvTranspose1d whose in_channels come from its first input.")
LazyConvTranspose2d = _named(_lazy_conv_transpose(ConvTranspose2d, 2), "LazyConvTranspose2d",
                             "A ConvTranspose2d whose in_channels come from its first input.")
LazyConvTranspose3d = _named(_lazy_conv_transpose(ConvTranspose3d, 3), "LazyConvTranspose3d",
                             "A ConvTranspose3d whose in_channels come from its first input.")
