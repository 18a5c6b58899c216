"""``ChannelShuffle``: interleave the channels of its groups (ShuffleNet)."""
from __future__ import annotations

from ..._ops.nn import pixel_shuffle as _ps
from .module import Module


class ChannelShuffle(Module):
    """(N, g*k, ...) with its channels read as (k, g)."""

    __constants__ = ["groups"]

    def __init__(self, groups: int) -> None:
        super().__init__()
        self.groups = groups

    def forward(self, input):
        return _ps.channel_shuffle(input, self.groups)

    def extra_repr(self) -> str:
        return f"groups={self.groups}"
