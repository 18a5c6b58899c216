"""2-d grid_sample's CPU path (bilinear and nearest, float32/float64; ``_ops/nn/grid_sample.py`` holds the function as
tinytorch ops, ``_composite``): PyTorch's kernel step by step (``_kernels/grid_sample_2d.py``), forward on the
arrays and backward where no graph of the gradient is wanted. It rounds each step as PyTorch's vectorised kernel
does (fused multiply-adds, the input gradient scattered in the kernel's order), so PyTorch's floats where the
composite is a few ulps away: a spatial transformer trained in float32 on the composite drifts from PyTorch's
losses within an epoch."""
from __future__ import annotations

from .._ops._core import paths
from .._ops._kernels import grid_sample_2d as _gs2d
from .._ops.nn import grid_sample
from ..autograd.grad_mode import _State
from ..tensor import _make

_Node = grid_sample.GridSampler2DBackward0
_FORWARD = {"bilinear": _gs2d.forward, "nearest": _gs2d.nearest_forward}
_BACKWARD = {"bilinear": _gs2d.backward, "nearest": _gs2d.nearest_backward}

# the kernel and the composite round the interpolation otherwise: within these ulps of the program's largest
# magnitude (a weight near 0 or 1 carries the rounding of the coordinate it came from)
_ULPS = 64


@paths.kernel(grid_sample, "_sample_2d_arrays", ulps=_ULPS, scale="program", when="every 2-d bilinear or nearest "
              "grid_sample (float32, float64)", why="PyTorch's floats: its vectorised kernel's roundings")
def sample_2d_arrays(inp, grid, mode, padding, align_corners):
    return _FORWARD[mode](inp, grid, padding, align_corners)


@paths.backward(_Node, ulps=_ULPS, scale="program", when="no graph of the gradient wanted",
                why="PyTorch's floats: its kernel's gradient, in its order")
def sample_2d_backward(node, g):
    if _State.enabled:
        return _Node.formula(node, g)
    inp, grid = node._unpacked_saved
    gi, gg = _BACKWARD[node.mode](g._data, inp._data, grid._data, node.padding, node.align_corners, *node.need)
    return (None if gi is None else _make(gi)), (None if gg is None else _make(gg))
