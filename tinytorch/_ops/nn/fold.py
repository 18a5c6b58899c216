"""``unfold`` (im2col) and ``fold`` (col2im), each the other's adjoint.

Both loop over the kernel's kh*kw offsets only: each offset is one strided slice of the (padded) image,
copied into the columns (unfold) or added back from them (fold), so no Python loop ever runs over
pixels. ``Im2ColBackward0`` folds the gradient and ``Col2ImBackward0`` unfolds it, so derivatives of
every order stay in these two ops."""
from __future__ import annotations

import numpy as np

from ...autograd.node import Node
from ...tensor import Tensor
from .._core.record import record
from .._core.registry import op
from .norm import _float_only


def _pair(v, name: str) -> tuple:
    if isinstance(v, (list, tuple)):
        if len(v) != 2:
            raise RuntimeError(f"It is expected {name} equals to 2, but got size {len(v)}")
        return int(v[0]), int(v[1])
    return int(v), int(v)


def _check_args(kernel, dilation, padding, stride) -> None:
    if kernel[0] <= 0 or kernel[1] <= 0:
        raise RuntimeError(f"kernel size should be greater than zero, but got kernel_height: {kernel[0]} "
                           f"kernel_width: {kernel[1]}")
    if stride[0] <= 0 or stride[1] <= 0:
        raise RuntimeError(f"stride should be greater than zero, but got stride_height: {stride[0]} "
                           f"stride_width: {stride[1]}")
    if dilation[0] <= 0 or dilation[1] <= 0:
        raise RuntimeError(f"dilation should be greater than zero, but got dilation_height: {dilation[0]} "
                           f"dilation_width: {dilation[1]}")
    if padding[0] < 0 or padding[1] < 0:
        raise RuntimeError(f"padding should be non-negative, but got pad_height: {padding[0]} "
                           f"pad_width: {padding[1]}")


def _blocks(size, kernel, dilation, padding, stride) -> tuple:
    return tuple((size[i] + 2 * padding[i] - dilation[i] * (kernel[i] - 1) - 1) // stride[i] + 1 for i in (0, 1))


def _offsets(kernel, dilation, stride, blocks):
    """(i, j, row slice, col slice) of each kernel offset within the padded image."""
    for i in range(kernel[0]):
        rows = slice(i * dilation[0], i * dilation[0] + stride[0] * (blocks[0] - 1) + 1, stride[0])
        for j in range(kernel[1]):
            yield i, j, rows, slice(j * dilation[1], j * dilation[1] + stride[1] * (blocks[1] - 1) + 1, stride[1])


def _im2col(x: np.ndarray, kernel, dilation, padding, stride, blocks) -> np.ndarray:
    n, c, h, w = x.shape
    if padding != (0, 0):
        xp = np.zeros((n, c, h + 2 * padding[0], w + 2 * padding[1]), dtype=x.dtype)
        xp[:, :, padding[0]:padding[0] + h, padding[1]:padding[1] + w] = x
    else:
        xp = x
    cols = np.empty((n, c, kernel[0], kernel[1], blocks[0], blocks[1]), dtype=x.dtype)
    for i, j, rows, cs in _offsets(kernel, dilation, stride, blocks):
        cols[:, :, i, j] = xp[:, :, rows, cs]
    return cols.reshape(n, c * kernel[0] * kernel[1], blocks[0] * blocks[1])


def _col2im(cols: np.ndarray, size, kernel, dilation, padding, stride, blocks) -> np.ndarray:
    n = cols.shape[0]
    c = cols.shape[1] // (kernel[0] * kernel[1])
    cols = cols.reshape(n, c, kernel[0], kernel[1], blocks[0], blocks[1])
    out = np.zeros((n, c, size[0] + 2 * padding[0], size[1] + 2 * padding[1]), dtype=cols.dtype)
    for i, j, rows, cs in _offsets(kernel, dilation, stride, blocks):
        out[:, :, rows, cs] += cols[:, :, i, j]
    return np.ascontiguousarray(out[:, :, padding[0]:padding[0] + size[0], padding[1]:padding[1] + size[1]])


class Im2ColBackward0(Node):
    saved_fields = (("dilation", "dilation"), ("kernel_size", "kernel"), ("padding", "padding"),
                    ("self_sym_argsize_minus_1", lambda n: n.size[1]),
                    ("self_sym_argsize_minus_2", lambda n: n.size[0]), ("stride", "stride"))

    def backward(self, g):
        return (fold(g, self.size, self.kernel, self.dilation, self.padding, self.stride),)


class Col2ImBackward0(Node):
    saved_fields = (("dilation", "dilation"), ("kernel_size", "kernel"), ("padding", "padding"), ("stride", "stride"))

    def backward(self, g):
        return (unfold(g, self.kernel, self.dilation, self.padding, self.stride),)


def _check_dtype(x: np.ndarray, kernel: str) -> None:
    """PyTorch's im2col/col2im kernels take floating, complex and bool (copied, or OR-ed where blocks
    overlap) input; integers raise its NotImplementedError."""
    if x.dtype != np.bool_:
        _float_only(x, kernel)


def _dims(shape) -> str:
    return "[" + ", ".join(str(s) for s in shape) + "]"


@op(variants="functional")
def unfold(input: Tensor, kernel_size, dilation=1, padding=0, stride=1) -> Tensor:
    """Sliding local blocks of a (N, C, H, W) or (C, H, W) input as columns: (N, C*kh*kw, L)."""
    x = input._data
    _check_dtype(x, "im2col_out_cpu")
    if 0 < x.ndim < 3:  # PyTorch reads the spatial sizes before checking the rank
        raise IndexError(f"Dimension out of range (expected to be in range of [-{x.ndim}, {x.ndim - 1}], but got "
                         f"{x.ndim})")
    if x.ndim not in (3, 4) or any(s == 0 for s in x.shape[1 if x.ndim == 4 else 0:]):
        raise RuntimeError(f"Expected 3D or 4D (batch mode) tensor with possibly 0 batch size and other non-zero "
                           f"dimensions for input, but got: {_dims(x.shape)}")
    kernel, dilation = _pair(kernel_size, "kernel_size"), _pair(dilation, "dilation")
    padding, stride = _pair(padding, "padding"), _pair(stride, "stride")
    _check_args(kernel, dilation, padding, stride)
    batched = x.ndim == 4
    xb = x if batched else x[None]
    size = xb.shape[2:]
    blocks = _blocks(size, kernel, dilation, padding, stride)
    if blocks[0] < 1 or blocks[1] < 1:
        raise RuntimeError(f"Given input with spatial size ({size[0]}, {size[1]}), kernel_size=({kernel[0]}, "
                           f"{kernel[1]}), dilation=({dilation[0]}, {dilation[1]}), padding=({padding[0]}, "
                           f"{padding[1]}), calculated shape of the array of sliding blocks as ({blocks[0]}, "
                           f"{blocks[1]}), but its components must be at least one.")
    out = _im2col(xb, kernel, dilation, padding, stride, blocks)
    return record(out if batched else out[0], Im2ColBackward0, (input,), size=size, kernel=kernel, dilation=dilation,
                  padding=padding, stride=stride)


@op(variants="functional")
def fold(input: Tensor, output_size, kernel_size, dilation=1, padding=0, stride=1) -> Tensor:
    """Sum columns (N, C*kh*kw, L) back into an image (N, C, H, W): the adjoint of ``unfold``."""
    x = input._data
    if x.ndim not in (2, 3) or any(s == 0 for s in x.shape[1 if x.ndim == 3 else 0:]):
        raise RuntimeError(f"Expected 2D or 3D (batch mode) tensor for input with possibly 0 batch size and "
                           f"non-zero dimensions for input, but got: {_dims(x.shape)}")
    size, kernel = _pair(output_size, "output_size"), _pair(kernel_size, "kernel_size")
    dilation, padding, stride = _pair(dilation, "dilation"), _pair(padding, "padding"), _pair(stride, "stride")
    _check_args(kernel, dilation, padding, stride)
    batched = x.ndim == 3
    xb = x if batched else x[None]
    if xb.shape[1] % (kernel[0] * kernel[1]):
        raise RuntimeError(f"Expected size of input's dimension 1 to be divisible by the product of kernel_size, but "
                           f"got input.size(1)={xb.shape[1]} and kernel_size=({kernel[0]}, {kernel[1]}).")
    blocks = _blocks(size, kernel, dilation, padding, stride)
    if blocks[0] * blocks[1] != xb.shape[2]:
        raise RuntimeError(f"Given output_size=({size[0]}, {size[1]}), kernel_size=({kernel[0]}, {kernel[1]}), "
                           f"dilation=({dilation[0]}, {dilation[1]}), padding=({padding[0]}, {padding[1]}), "
                           f"stride=({stride[0]}, {stride[1]}), expected size of input's dimension 2 to match the "
                           f"calculated number of sliding blocks {blocks[0]} * {blocks[1]} = {blocks[0] * blocks[1]}, "
                           f"but got input.size(2)={xb.shape[2]}.")
    _check_dtype(x, "col2im_out_cpu")
    out = _col2im(xb, size, kernel, dilation, padding, stride, blocks)
    return record(out if batched else out[0], Col2ImBackward0, (input,), kernel=kernel, dilation=dilation,
                  padding=padding, stride=stride)
