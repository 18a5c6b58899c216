"""The padding convolution modules need: zeros, reflect, replicate and circular over the last dims.

Private to conv: the public ``F.pad`` lives elsewhere. The non-constant modes are an index map per
padded dim (the same map ``np.pad`` would build); their gradient sums the padded gradient back
through the map's one-hot matrix, and that sum's own gradient is the padding again."""
from __future__ import annotations

import numpy as np

from ...autograd.node import Node
from ...tensor import Tensor
from .._core.record import record
from .pad import constant_pad_nd

_NP_MODE = {"reflect": "reflect", "replicate": "edge", "circular": "wrap"}


def _maps(shape, pad, mode):
    """{axis: (padded -> source index map)} for the dims ``pad`` (F.pad order: last dim first) covers."""
    out = {}
    for i in range(len(pad) // 2):
        ax = len(shape) - 1 - i
        lo, hi = pad[2 * i], pad[2 * i + 1]
        if lo or hi:
            out[ax] = np.pad(np.arange(shape[ax]), (lo, hi), mode=_NP_MODE[mode])
    return out


def _gather(x: np.ndarray, maps: dict) -> np.ndarray:
    for ax, m in maps.items():
        x = np.take(x, m, axis=ax)
    return x


def _scatter(g: np.ndarray, maps: dict, shape) -> np.ndarray:
    for ax, m in maps.items():
        onehot = np.zeros((m.size, shape[ax]), g.dtype)
        onehot[np.arange(m.size), m] = 1
        g = np.moveaxis(np.moveaxis(g, ax, -1) @ onehot, -1, ax)
    return np.ascontiguousarray(g)


class _PadNode(Node):
    def backward(self, g):
        return (_apply(g, self.maps, self.in_shape, _UnpadNode, scatter=True),)


class _UnpadNode(Node):
    def backward(self, g):
        return (_apply(g, self.maps, None, _PadNode, scatter=False),)


def _apply(t: Tensor, maps, shape, node_cls, scatter: bool) -> Tensor:
    out = _scatter(t._data, maps, shape) if scatter else np.ascontiguousarray(_gather(t._data, maps))
    return record(out, node_cls, (t,), maps=maps, in_shape=t._data.shape)


_NAMED = {}  # PyTorch's node name -> the padding node class under that name


def _named(name: str):
    cls = _NAMED.get(name)
    if cls is None:
        cls = _NAMED[name] = type(name, (_PadNode,), {"__module__": __name__})
    return cls


def pad_for_conv(input: Tensor, pad, mode: str) -> Tensor:
    """``input`` padded as F.pad(input, pad, mode) would (mode 'constant' pads zeros)."""
    x = input._data
    n = len(pad) // 2
    if mode == "constant":  # F.pad's own op, its gradient a crop by the same op (a new tensor, as PyTorch's)
        return constant_pad_nd(input, pad, 0)
    dims = f"{n}D" if n in (1, 2, 3) else "Nd"
    name = {"reflect": f"ReflectionPad{dims}Backward0", "replicate": f"ReplicationPad{dims}Backward0",
            "circular": "CopySlices"}[mode]
    return _apply(input, _maps(x.shape, pad, mode), x.shape, _named(name), scatter=False)
