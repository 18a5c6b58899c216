"""pixel_shuffle / pixel_unshuffle (sub-pixel rearrangement between channels and space) and
channel_shuffle: reshapes and permutations, so their gradients are the inverse rearrangements."""
from __future__ import annotations

from ...tensor import Tensor
from .._core.layout import suggested_of
from .._core.registry import op


@op(variants="function functional")
def pixel_shuffle(input: Tensor, upscale_factor: int) -> Tensor:
    """(*, C*r*r, H, W) -> (*, C, H*r, W*r)."""
    if input.ndim < 3:
        raise RuntimeError(f"pixel_shuffle expects input to have at least 3 dimensions, but got input with "
                           f"{input.ndim} dimension(s)")
    r = upscale_factor
    if r <= 0:
        raise RuntimeError(f"pixel_shuffle expects a positive upscale_factor, but got {r}")
    *lead, c, h, w = input.shape
    if c % (r * r):
        raise RuntimeError(f"pixel_shuffle expects its input's 'channel' dimension to be divisible by the square of "
                           f"upscale_factor, but input.size(-3)={c} is not divisible by {r * r}")
    n = len(lead)
    x = input.reshape(*lead, c // (r * r), r, r, h, w)
    order = list(range(n)) + [n, n + 3, n + 1, n + 4, n + 2]
    return _in_input_format(x.permute(*order).reshape(*lead, c // (r * r), h * r, w * r), input)


@op(variants="function functional")
def pixel_unshuffle(input: Tensor, downscale_factor: int) -> Tensor:
    """(*, C, H*r, W*r) -> (*, C*r*r, H, W)."""
    if input.ndim < 3:
        raise RuntimeError(f"pixel_unshuffle expects input to have at least 3 dimensions, but got input with "
                           f"{input.ndim} dimension(s)")
    r = downscale_factor
    if r <= 0:
        raise RuntimeError(f"pixel_unshuffle expects a positive downscale_factor, but got {r}")
    *lead, c, h, w = input.shape
    if h % r:
        raise RuntimeError(f"pixel_unshuffle expects height to be divisible by downscale_factor, but input.size(-2)={h}"
                           f" is not divisible by {r}")
    if w % r:
        raise RuntimeError(f"pixel_unshuffle expects width to be divisible by downscale_factor, but input.size(-1)={w}"
                           f" is not divisible by {r}")
    n = len(lead)
    x = input.reshape(*lead, c, h // r, r, w // r, r)
    order = list(range(n)) + [n, n + 2, n + 4, n + 1, n + 3]
    return _in_input_format(x.permute(*order).reshape(*lead, c * r * r, h // r, w // r), input)


def _in_input_format(out: Tensor, input: Tensor) -> Tensor:
    """``out`` laid out in ``input``'s suggested memory format, as PyTorch's kernels write their result (a
    channels-last input gives a channels-last result; the reshape leaves any other contiguous)."""
    fmt = suggested_of(input._data)
    return out if fmt is None else out.contiguous(memory_format=fmt)


def _channel_shuffle(input: Tensor, groups: int) -> Tensor:
    if input.ndim <= 2:
        raise RuntimeError(f"channel_shuffle expects input to have at least 3 dimensions, but got input with "
                           f"{input.ndim} dimension(s)")
    if groups <= 0:
        raise RuntimeError(f"Number of groups to divide channels in must be positive. Value of groups:{groups}")
    n, c = input.shape[:2]
    if c % groups:
        raise RuntimeError(f"Number of channels must be divisible by groups. Got {c} channels and {groups} groups.")
    rest = tuple(input.shape[2:])
    return input.reshape(n, groups, c // groups, *rest).transpose(1, 2).reshape(n, c, *rest)


@op(variants="function functional")
def channel_shuffle(input: Tensor, groups: int) -> Tensor:
    """Interleave the channels of ``groups`` groups: (N, g*k, ...) read as (N, k, g, ...)."""
    return _channel_shuffle(input, groups)


@op(variants="function functional")
def native_channel_shuffle(input: Tensor, groups: int) -> Tensor:
    """channel_shuffle."""
    return _channel_shuffle(input, groups)
