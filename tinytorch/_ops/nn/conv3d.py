"""3-d convolution and the 3-d transposed convolution, composed of the 2-d kernels of
``conv.py``: a 3-d convolution is a sum over the kernel's depth offsets of 2-d convolutions of
the input's depth slices (taken as a batch), and its adjoint places each 2-d transposed
convolution at its depth offset. Every piece is a tinytorch op, so gradients of any order follow."""
from __future__ import annotations

import warnings


from ...autograd.node import Node
from ...tensor import Tensor
from .._core.layout import channels_last_3d, contiguous_format, format_strides, suggested_format
from .._core.record import record
from .._core.registry import op
from .conv import (_check, _check_output_padding, _dims, _onednn, _tuple, complex_conv, conv2d, conv_transpose2d,
                   meta_grad_format)
from ..shape.join import cat
from .pad import constant_pad_nd


def _same_pads(weight_shape, dilation, nd: int):
    total = [dilation[i] * (weight_shape[2 + i] - 1) for i in range(nd)]
    return [(t // 2, t - t // 2) for t in total]


def _layout(input: Tensor, weight: Tensor, groups: int) -> tuple:
    """The memory formats of a 3-d convolution's output and of its gradients. PyTorch's CPU rule: channels_last_3d
    for all three where the input or the weight suggests it and the convolution runs on oneDNN (its native 3-d
    kernels know no other: float64, a small float32 one), else contiguous_format; each then comes fresh in that
    format. On meta tensors the output is contiguous and the gradients follow the meta ``convolution_backward``'s
    rule (``meta_grad_format``: channels_last_3d where either operand suggests it, oneDNN or not)."""
    if input._meta or weight._meta:
        return contiguous_format, meta_grad_format(input, weight) or contiguous_format
    if not _onednn(input._data, weight._data, groups):
        return contiguous_format, contiguous_format
    cl = suggested_format(tuple(input.shape), input.stride()) or suggested_format(tuple(weight.shape), weight.stride())
    fmt = channels_last_3d if cl is channels_last_3d else contiguous_format
    return fmt, fmt


def _fresh(out: Tensor, fmt) -> Tensor:
    """``out`` with the strides of a fresh tensor in memory format ``fmt`` (a size-1 dim's too), as PyTorch's
    convolution allocates its result: a copy only where ``out`` has others."""
    if tuple(out.stride()) == format_strides(tuple(out.shape), None if fmt is contiguous_format else fmt):
        return out
    return out.clone(memory_format=fmt)


class _WeightGradLayoutNode(Node):
    """The weight itself; its gradient (summed from the kernel's depth slices, C-ordered) laid out as ``fmt``."""

    def backward(self, g):
        return (g.contiguous(memory_format=self.fmt),)


def _weight_grad_in(weight: Tensor, fmt) -> Tensor:
    """``weight`` (the same array) whose gradient comes back in memory format ``fmt``."""
    if fmt is contiguous_format:
        return weight
    return record(weight._data, _WeightGradLayoutNode, (weight,), fmt=fmt)


def _depth_pad(x: Tensor, before: int, after: int) -> Tensor:
    """Zeros before/after along dim 1 of (N, D, C, H, W)."""
    if before == 0 and after == 0:
        return x
    return constant_pad_nd(x, (0, 0, 0, 0, 0, 0, before, after))


@op(variants="function functional", autocast="lower")
def conv3d(input: Tensor, weight: Tensor, bias: Tensor | None = None, stride=1, padding=0, dilation=1,
           groups: int = 1) -> Tensor:
    """3-d cross-correlation of (N, C, D, H, W) with weight (O, C/groups, kd, kh, kw)."""
    if input.ndim not in (4, 5):
        raise RuntimeError(f"Expected 4D (unbatched) or 5D (batched) input to conv3d, but got input of size: "
                           f"{_dims(input.shape)}")
    if input.ndim == 4:
        return conv3d(input.unsqueeze(0), weight, bias, stride, padding, dilation, groups).squeeze(0)
    stride, dilation = _tuple(stride, 3, "stride"), _tuple(dilation, 3, "dilation")
    if isinstance(padding, str):
        if padding not in ("valid", "same"):
            raise ValueError(f"Invalid padding string '{padding}', should be one of ['valid', 'same']")
        if padding == "same" and any(s != 1 for s in stride):
            raise RuntimeError("padding='same' is not supported for strided convolutions")
        pads = [(0, 0)] * 3 if padding == "valid" else _same_pads(weight.shape, dilation, 3)
        if any(lo != hi for lo, hi in pads):
            warnings.warn("Using padding='same' with even kernel lengths and odd dilation may require a zero-padded "
                          "copy of the input be created", stacklevel=3)
            input = constant_pad_nd(input, [v for lo, hi in reversed(pads) for v in (0, hi - lo)])
        padding = tuple(lo for lo, _ in pads)
    padding = _tuple(padding, 3, "padding")
    _check(input._data, weight._data, None if bias is None else bias._data, stride, padding, dilation, groups,
           False, 3)
    if input._data.dtype.kind == "c":
        return complex_conv(lambda xs, ws, bs: conv3d(xs, ws, bs, stride, padding, dilation, groups), input, weight,
                            bias)
    n, c, d, h, w = input.shape
    fmt, grad_fmt = _layout(input, weight, groups)
    weight = _weight_grad_in(weight, grad_fmt)
    # the depth slices as a batch (N, D, C, H, W), a copy whose gradient goes back in ``grad_fmt``, as PyTorch's
    x = _depth_pad(_depth_as_batch(input, grad_fmt).reshape(n, d, c, h, w), padding[0], padding[0])
    kd, sd, dd = weight.shape[2], stride[0], dilation[0]
    d_out = (x.shape[1] - dd * (kd - 1) - 1) // sd + 1
    total = None
    for i in range(kd):
        start = i * dd
        sl = x[:, start:start + sd * (d_out - 1) + 1:sd].reshape(n * d_out, c, h, w)  # (N * Do, C, H, W)
        y = conv2d(sl, weight[:, :, i], None, stride[1:], padding[1:], dilation[1:], groups)
        total = y if total is None else total + y
    out = total.reshape(n, d_out, *total.shape[1:]).permute(0, 2, 1, 3, 4)
    if bias is not None:
        out = out + bias.reshape(-1, 1, 1, 1)
    return _fresh(out, fmt)


def _spread_depth(y: Tensor, stride: int) -> Tensor:
    """(N, D, ...) -> (N, (D-1)*stride+1, ...) with stride-1 zero slices between the input's slices."""
    if stride == 1:
        return y
    zeros = y.new_zeros((y.shape[0], y.shape[1], stride - 1) + tuple(y.shape[2:]))  # (meta for a meta y)
    spread = cat([y.unsqueeze(2), zeros], 2).reshape(y.shape[0], y.shape[1] * stride, *y.shape[2:])
    return spread[:, :(y.shape[1] - 1) * stride + 1]


def _place(y: Tensor, before: int, after: int) -> Tensor:
    """Zeros before/after along dim 1 of (N, D, C, H, W)."""
    parts = []
    shape = tuple(y.shape)
    if before:
        parts.append(y.new_zeros((shape[0], before) + shape[2:]))
    parts.append(y)
    if after:
        parts.append(y.new_zeros((shape[0], after) + shape[2:]))
    return cat(parts, 1) if len(parts) > 1 else y


class _DepthAsBatchNode(Node):
    """(N, C, D, H, W) -> (N * D, C, H, W). The gradient goes back a fresh tensor in the convolution's memory format
    (``_layout``: C order, or channels_last_3d), as PyTorch's convolution gives it (undoing the permute as a view
    would keep the batch's order in memory, and ``contiguous`` would keep a size-1 dim's stride)."""

    def backward(self, g):
        n, c, d, h, w = self.in_shape
        return (g.reshape(n, d, c, h, w).permute(0, 2, 1, 3, 4).clone(memory_format=self.fmt),)


def _depth_as_batch(x: Tensor, fmt=contiguous_format) -> Tensor:
    """The depth slices of (N, C, D, H, W) as one batch of 2-d inputs (N * D, C, H, W), a copy; its gradient
    goes back in memory format ``fmt``."""
    n, c, d, h, w = x.shape
    return record(x._data.transpose(0, 2, 1, 3, 4).copy().reshape(n * d, c, h, w), _DepthAsBatchNode, (x,),
                  in_shape=(n, c, d, h, w), fmt=fmt)


@op(variants="function functional", autocast="lower")
def conv_transpose3d(input: Tensor, weight: Tensor, bias: Tensor | None = None, stride=1, padding=0,
                     output_padding=0, groups: int = 1, dilation=1) -> Tensor:
    """The adjoint of conv3d: (N, C_in, D, H, W) with weight (C_in, C_out/groups, kd, kh, kw)."""
    if input.ndim not in (4, 5):
        raise RuntimeError(f"Expected 4D (unbatched) or 5D (batched) input to conv_transpose3d, but got input of "
                           f"size: {_dims(input.shape)}")
    if input.ndim == 4:
        return conv_transpose3d(input.unsqueeze(0), weight, bias, stride, padding, output_padding, groups,
                                dilation).squeeze(0)
    stride, padding = _tuple(stride, 3, "stride"), _tuple(padding, 3, "padding")
    dilation, output_padding = _tuple(dilation, 3, "dilation"), _tuple(output_padding, 3, "output_padding")
    _check(input._data, weight._data, None if bias is None else bias._data, stride, padding, dilation, groups,
           True, 3)
    _check_output_padding(output_padding, stride, dilation, ("depth", "height", "width"))
    n, d_in, kd = input.shape[0], input.shape[2], weight.shape[2]
    sd, pd, dd, od = stride[0], padding[0], dilation[0], output_padding[0]
    sizes = [(input.shape[2 + i] - 1) * stride[i] - 2 * padding[i] + dilation[i] * (weight.shape[2 + i] - 1)
             + output_padding[i] + 1 for i in range(3)]
    if any(s <= 0 for s in sizes):
        raise RuntimeError(f"Given input size per channel: ({' x '.join(str(s) for s in input.shape[2:])}). "
                           f"Calculated output size per channel: ({' x '.join(map(str, sizes))}). Output size is "
                           "too small")
    if input._data.dtype.kind == "c":
        return complex_conv(lambda ys, ws, bs: conv_transpose3d(ys, ws, bs, stride, padding, output_padding, groups,
                                                                dilation), input, weight, bias)
    fmt, grad_fmt = _layout(input, weight, groups)
    weight = _weight_grad_in(weight, grad_fmt)
    flat = _depth_as_batch(input, grad_fmt)
    spread_len = (d_in - 1) * sd + 1
    full = spread_len + dd * (kd - 1) + od
    total = None
    for i in range(kd):
        y = conv_transpose2d(flat, weight[:, :, i], None, stride[1:], padding[1:], output_padding[1:], groups,
                             dilation[1:])
        y = _spread_depth(y.reshape(n, d_in, *y.shape[1:]), sd)
        y = _place(y, i * dd, full - spread_len - i * dd)
        total = y if total is None else total + y
    out = total[:, pd:pd + sizes[0]].permute(0, 2, 1, 3, 4)
    if bias is not None:
        out = out + bias.reshape(-1, 1, 1, 1)
    return _fresh(out, fmt)
