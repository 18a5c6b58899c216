"""Pooling: max_pool1d/2d, avg_pool1d/2d, adaptive_avg_pool1d/2d, adaptive_max_pool2d.

Forwards are numpy over strided window views (no loop over pixels); PyTorch's CPU path (max pooling's
separable passes, threads and compiled 2x2 windows, the adaptive windows' running sums) registers onto
``_window_max``, ``_positions``, ``_scatter_unique`` and ``_window_sums`` from ``tinytorch/_cpu/pool.py``.
Each backward is a primitive whose own backward is again a pooling op, so gradients of any order are
tinytorch ops: max pooling scatters the gradient to the recorded argmax positions (its adjoint gathers
from them), average pooling spreads it over each window (its adjoint is the average pooling itself). The
1-d forms run the 2-d ones on an unsqueezed height of 1, which is also what PyTorch records.

Adaptive pooling: output cell i of n covers input rows floor(i*H/n) to ceil((i+1)*H/n), as in PyTorch.
Average pooling sums each window (in float64) and spreads gradients back window by window; max pooling
loops over the output cells (windows differ in size), and shares max pooling's scatter/gather backward."""
from __future__ import annotations

import itertools

import numpy as np
from numpy.lib.stride_tricks import as_strided

from ..._dtype import FLOATING_NP, FROM_NP, cpp_name
from ..._meta_array import MetaArray
from ..._quiet_fp import silent
from ...autograd.grad_mode import _State
from ...autograd.node import Node
from ...tensor import Tensor, _make
from .._core.layout import as_format, input_format, suggested_of
from .._core.record import Edge, record
from .._core.registry import aten_only, op
from .._core.util import c_order


def _pair(v, name="kernel_size"):
    if isinstance(v, int):
        return (v, v)
    v = tuple(v)
    return v * 2 if len(v) == 1 else v


def _stride_omitted(stride) -> bool:
    """Whether a pool's ``stride`` was left out (None, or PyTorch's empty list): it is the kernel size then,
    and the node shows the stride argument as None."""
    return stride is None or (not isinstance(stride, int) and len(stride) == 0)


def _out_size(n: int, k: int, s: int, p: int, d: int, ceil: bool) -> int:
    """PyTorch's pooling_output_shape: the last window must start inside the input or left padding."""
    if s == 0:
        raise RuntimeError("stride should not be zero")
    num = n + 2 * p - d * (k - 1) - 1 + (s - 1 if ceil else 0)
    out = num // s + 1
    if ceil and (out - 1) * s >= n + p:
        out -= 1
    return out


def _as4(x: np.ndarray) -> np.ndarray:
    return x if x.ndim == 4 else x[None]


def _padded(x: np.ndarray, p, need, fill) -> np.ndarray:
    """x with ``p[i]`` entries of ``fill`` before each of its last ``len(p)`` dims and as many after as the
    windows reach (``need[i]`` in all)."""
    n = len(p)
    size = x.shape[-n:]
    full = tuple(max(size[i] + 2 * p[i], need[i]) for i in range(n))
    if full == size:
        return x
    out = np.full(x.shape[:-n] + full, fill, x.dtype)
    out[(...,) + tuple(slice(p[i], p[i] + size[i]) for i in range(n))] = x
    return out


def _windows(xp: np.ndarray, k, s, d, out_hw) -> np.ndarray:
    n, c = xp.shape[:2]
    s0, s1, s2, s3 = xp.strides
    return as_strided(xp, (n, c, out_hw[0], out_hw[1], k[0], k[1]),
                      (s0, s1, s2 * s[0], s3 * s[1], s2 * d[0], s3 * d[1]), writeable=False)


def _batch_mode(shape, nd: int, head: str = "") -> None:
    """PyTorch's check of a pooled input: (nd+1)-d with no empty dim, or (nd+2)-d whose batch alone may be empty."""
    if not ((len(shape) == nd + 1 and all(shape)) or (len(shape) == nd + 2 and all(shape[1:]))):
        raise RuntimeError(f"{head}Expected {nd + 1}D or {nd + 2}D (batch mode) tensor with optional 0 dim batch size "
                           f"for input, but got:{list(shape)}")


def _dims_between(input: Tensor, lo: int, hi: int, name: str) -> None:
    """PyTorch's argument check of the 1-d pools (``checkDimRange``)."""
    if not lo <= input.ndim <= hi:
        raise RuntimeError(f"Expected {lo} to {hi} dimensions, but got {input.ndim}-dimensional tensor for argument #1 "
                           f"'self' (while checking arguments for {name})")


def _no_empty_dim(shape, text: str, start: int = 1) -> None:
    """PyTorch's check that no dim from ``start`` on is empty (a batch of 0 is fine): ``text`` is its message,
    with ``{shape}`` and the empty ``{dim}`` in it."""
    for i in range(start, len(shape)):
        if shape[i] == 0:
            raise RuntimeError(text.format(shape=list(shape), dim=i))


def _adaptive_empty(name: str) -> str:
    return (name + "(): Expected input to have non-zero size for non-batch dimensions, but input has sizes {shape} "
            "with dimension {dim} being empty")


def _check_pool(x: np.ndarray, k, s, p, d, out_hw, dilation_text=True):
    if any(v == 0 for v in s):
        raise RuntimeError("stride should not be zero")
    if any(pi > ((ki - 1) * di + 1) // 2 for pi, ki, di in zip(p, k, d)):
        pi, ki, di = next((pi, ki, di) for pi, ki, di in zip(p, k, d) if pi > ((ki - 1) * di + 1) // 2)
        raise RuntimeError(f"pad should be at most half of effective kernel size, but got pad={pi}, kernel_size={ki} "
                           f"and dilation={di}")
    if any(o < 1 for o in out_hw):
        c, h, w = x.shape[-3:]
        raise RuntimeError(f"Given input size: ({c}x{h}x{w}). Calculated output size: ({c}x{out_hw[0]}x{out_hw[1]}). "
                           "Output size is too small")


# -- max pooling ----------------------------------------------------------------------------------
class _MaxScatter(Node):
    """grad_input = the gradient scattered to the argmax positions; its own gradient gathers."""

    def backward(self, h):
        return _gather(h, self.flat, self.out_shape), _zeros_for_input(self, h)


def _zeros_for_input(node, h: Tensor):
    """PyTorch's pooling backward kernels take the pooled input too, with derivative zeros_like(self):
    a second derivative through a pooling is 0 for the input, not "not used in the graph"."""
    if len(node.next_functions) < 2 or node.next_functions[1][0] is None:
        return None
    return _make(np.zeros_like(h._data, shape=node.in_shape, order="C"))  # (a meta h: meta)


def _pooled_input(node):
    """The pooled input of a pooling's node (its first edge), as an input of the node's own backward's
    node: None when that edge leads nowhere, or when no graph of the gradient is recorded (nothing then
    needs it)."""
    e = node.next_functions[0]
    return Edge(e) if e[0] is not None and _State.enabled else None


class _MaxGather(Node):
    def backward(self, g):
        return (_scatter(g, self.flat, self.in_shape, self.unique, self.scatter_name),)


def _gather(t: Tensor, flat: np.ndarray, out_shape) -> Tensor:
    return record(t._data.reshape(-1)[flat].reshape(out_shape), _MaxGather, (t,), flat=flat, in_shape=t._data.shape,
                  unique=True, scatter_name="_MaxScatter")


def _scatter(g: Tensor, flat: np.ndarray, in_shape, unique: bool, name: str, x=None, nd: int = 2, fmt=None) -> Tensor:
    """``g`` scattered (summed) to the ``flat`` positions of an ``in_shape`` array; ``x``: the pooled input
    (a tensor or its ``Edge``), which the node's gradient gives zeros, when it requires grad; ``nd``: the
    number of pooled dims (the indices the node shows run over their product)."""
    size = int(np.prod(in_shape))
    if type(g._data) is MetaArray:  # a meta gradient: the input's shape only, nothing scattered
        out = MetaArray((size,), g._data.dtype)
    elif unique:
        out = _scatter_unique(g._data, flat, size)
    else:
        out = np.bincount(flat, weights=g._data.reshape(-1), minlength=size).astype(g._data.dtype, copy=False)
    return record(as_format(out.reshape(in_shape), fmt), _SCATTER_NODES[name], (g,) if x is None else (g, x), flat=flat,
                  out_shape=g._data.shape, in_shape=tuple(in_shape), nd=nd)


def _scatter_unique(gd: np.ndarray, flat: np.ndarray, size: int) -> np.ndarray:
    """Flat zeros of ``size`` with ``gd``'s entries written at the ``flat`` positions, which are distinct."""
    out = np.zeros(size, gd.dtype)
    out[flat] = gd.reshape(-1)
    return out


def _result1(node) -> Tensor:
    """The argmax positions (int64, per H*W plane, or D*H*W volume) PyTorch's max-pooling node keeps as its
    second result."""
    plane = int(np.prod(node.in_shape[-node.nd:]))
    return _make((node.flat % plane).reshape(node.out_shape))


def _named(name, base, saved_fields=None):
    return type(name, (base,), {} if saved_fields is None else {"saved_fields": saved_fields})


# the double-backward nodes keep the argmax positions, as PyTorch's do (``_saved_indices``)
_SCATTER_NODES = {n: _named(n, _MaxScatter, None if n == "_MaxScatter" else (("indices", _result1),))
                  for n in ("_MaxScatter", "MaxPool2DWithIndicesBackwardBackward0",
                            "AdaptiveMaxPool2DBackwardBackward0", "MaxPool3DWithIndicesBackwardBackward0",
                            "AdaptiveMaxPool3DBackwardBackward0")}


def _arg(i: int):
    """One of the pooling arguments a node keeps as PyTorch's (``node.args``: kernel_size, stride (None:
    ``()``), padding, dilation, ceil_mode, count_include_pad, divisor_override)."""
    def get(node):
        args = getattr(node, "args", None)
        if args is None:
            return None
        v = args[i]
        return () if i == 1 and v is None else v
    return get


class MaxPool2DWithIndicesBackward0(Node):
    _scatter_name = "MaxPool2DWithIndicesBackwardBackward0"
    nd = 2  # the number of pooled dims
    in_fmt = None  # the input's memory format, its gradient's (``input_format``)
    saved_fields = (("self", 0), ("ceil_mode", _arg(4)), ("dilation", _arg(3)), ("kernel_size", _arg(0)),
                    ("padding", _arg(2)), ("result1", _result1), ("stride", _arg(1)))

    def backward(self, g):
        return (_scatter(g, self.flat, self.in_shape, self.unique, self._scatter_name, _pooled_input(self), self.nd,
                         self.in_fmt),)


class AdaptiveMaxPool2DBackward0(MaxPool2DWithIndicesBackward0):
    _scatter_name = "AdaptiveMaxPool2DBackwardBackward0"
    saved_fields = (("self", 0), ("result1", _result1))


class MaxPool3DWithIndicesBackward0(MaxPool2DWithIndicesBackward0):
    _scatter_name = "MaxPool3DWithIndicesBackwardBackward0"
    nd = 3


class AdaptiveMaxPool3DBackward0(AdaptiveMaxPool2DBackward0):
    _scatter_name = "AdaptiveMaxPool3DBackwardBackward0"
    nd = 3


def _record_max(input: Tensor, vals: np.ndarray, idx: np.ndarray, node_cls, unique: bool, args=None,
                in_fmt=None) -> Tensor:
    """The pooled values, recorded as ``node_cls`` when a graph is wanted: the node keeps the input (as
    PyTorch's, so modifying it in place fails backward) and the argmax positions in the whole input, from
    ``idx``, each one's position in its own pooled plane (or volume); ``in_fmt``: the memory format of the input's
    gradient."""
    if not (_State.enabled and input._requires_grad):
        return _make(vals)  # nothing recorded: nothing of the node made
    x = input._data
    plane = int(np.prod(x.shape[-node_cls.nd:]))
    planes = int(np.prod(x.shape[:-node_cls.nd]))
    rows = idx.reshape(planes, idx.size // max(planes, 1))  # (-1 cannot tell a batch of 0's row length)
    flat = (rows + (np.arange(planes, dtype=np.int64) * plane)[:, None]).reshape(-1)
    return record(vals, node_cls, (input,), (input,), flat=flat, in_shape=x.shape, unique=unique,
                  out_shape=vals.shape, args=args, in_fmt=in_fmt)


def _corner_index(shape4, w: int, s, p, plane: int) -> np.ndarray:
    """int64 (N, C, Ho, Wo): the flat index of each window's top-left corner in the whole input."""
    n, c, ho, wo = shape4
    corner = (np.arange(ho, dtype=np.int64)[:, None] * s[0] - p[0]) * w + np.arange(wo) * s[1] - p[1]
    return (np.arange(n * c, dtype=np.int64) * plane).reshape(n, c, 1, 1) + corner


def _positions(local: np.ndarray, w: int, s, p, plane: int) -> np.ndarray:
    """The flat positions in the whole input (int64) of the maxima whose offsets from their windows' corners
    are ``local`` (N, C, Ho, Wo), in an input ``w`` wide with ``plane`` entries a plane."""
    return (_corner_index(local.shape, w, s, p, plane) + local).reshape(-1)


def _max_result(input: Tensor, vals: np.ndarray, local: np.ndarray, s, p, node_cls, unique: bool,
                return_indices: bool, args=None):
    """Wrap the values (and int64 indices into each H*W plane); the node keeps flat indices.

    ``local`` is each argmax's flat offset from its window's top-left corner."""
    x = input._data
    out_shape = vals.shape if x.ndim == 4 else vals.shape[1:]
    plane = x.shape[-1] * x.shape[-2]
    fmt = input_format(x)  # a channels-last input: channels-last results and gradient, as PyTorch's kernels
    meta = type(local) is MetaArray  # a meta tensor: the positions' shapes only, no corner indexed
    if not (_State.enabled and input._requires_grad):
        out = _make(as_format(vals.reshape(out_shape), fmt))  # nothing recorded: nothing of the node made
    else:
        # the node keeps the argmax positions in the whole input, and the input as PyTorch's does (modifying it
        # in place then fails backward)
        flat = MetaArray((local.size,), np.int64) if meta else _positions(local, x.shape[-1], s, p, plane)
        out = record(as_format(vals.reshape(out_shape), fmt), node_cls, (input,), (input,), flat=flat,
                     in_shape=x.shape, unique=unique, out_shape=out_shape, args=args, in_fmt=fmt)
    if not return_indices:
        return out
    idx = local if meta else _corner_index((1, 1) + vals.shape[2:], x.shape[-1], s, p, plane) + local
    return out, _make(as_format(idx.reshape(out_shape), fmt))


def _window_max(xp: np.ndarray, k, s, d, out_hw, w: int):
    """Each window's maximum and its first (row-major) argmax's offset from the window's corner in an input
    ``w`` wide (int64); a window that holds a NaN has it for its maximum (its first, as numpy's argmax)."""
    win = _windows(xp, k, s, d, out_hw).reshape(*xp.shape[:2], *out_hw, k[0] * k[1])
    a = win.argmax(axis=-1)
    vals = np.take_along_axis(win, a[..., None], axis=-1)[..., 0]
    return vals, (a // k[1]) * (d[0] * w) + (a % k[1]) * d[1]


@op(variants="function functional", functional_apart=True)
def max_pool2d(input: Tensor, kernel_size, stride=None, padding=0, dilation=1, ceil_mode: bool = False,
               return_indices: bool = False):
    """Max over (kh, kw) windows of (N, C, H, W) or (C, H, W); with the argmax positions on request."""
    x = input._data
    if x.ndim not in (3, 4):
        raise RuntimeError("non-empty 3D or 4D (batch mode) tensor expected for input")
    _batch_mode(x.shape, 2)
    k = _pair(kernel_size)
    s = k if _stride_omitted(stride) else _pair(stride)
    p, d = _pair(padding), _pair(dilation)
    h, w = x.shape[-2:]
    out_hw = tuple(_out_size((h, w)[i], k[i], s[i], p[i], d[i], ceil_mode) for i in range(2))
    _check_pool(x, k, s, p, d, out_hw)
    x4 = _as4(x)
    if x.size == 0:  # a batch of 0: no windows
        empty = np.zeros(x4.shape[:2] + out_hw, np.int64)
        return _max_result(input, empty.astype(x.dtype), empty, s, p, MaxPool2DWithIndicesBackward0, True,
                           return_indices, (k, None if _stride_omitted(stride) else s, p, d, bool(ceil_mode)))
    if type(x) is MetaArray:  # a meta tensor: the results' shapes only, no window read
        vals, local = MetaArray(x4.shape[:2] + out_hw, x.dtype), MetaArray(x4.shape[:2] + out_hw, np.int64)
        return _max_result(input, vals, local, s, p, MaxPool2DWithIndicesBackward0, True, return_indices,
                           (k, None if _stride_omitted(stride) else s, p, d, bool(ceil_mode)))
    need = tuple((out_hw[i] - 1) * s[i] + d[i] * (k[i] - 1) + 1 for i in range(2))
    fill = -np.inf if x.dtype in FLOATING_NP else np.iinfo(x.dtype).min
    xp = _padded(x4, p, need, fill)
    vals, local = _window_max(xp, k, s, d, out_hw, w)
    if p[0] or p[1]:
        lowest = vals == fill  # only there can a padding tap be the (first) maximum
        if lowest.any():
            local = np.where(lowest, _first_inside(out_hw, s, p, d, w), local)
    unique = all(si >= (ki - 1) * di + 1 for si, ki, di in zip(s, k, d))
    return _max_result(input, vals, local, s, p, MaxPool2DWithIndicesBackward0, unique, return_indices,
                       (k, None if _stride_omitted(stride) else s,
                        p, d, bool(ceil_mode)))


def _first_inside(out_hw, s, p, d, w: int) -> np.ndarray:
    """(Ho, Wo): each window's first tap inside the input, as an offset from its corner. PyTorch's kernel
    starts every window's argmax there, so a window whose values are all the lowest (-inf) points at it,
    never at the padding."""
    skip = [np.maximum(p[i] - np.arange(out_hw[i]) * s[i], 0) for i in range(2)]  # padding before the input
    rows, cols = ((skip[i] + d[i] - 1) // d[i] * d[i] for i in range(2))  # whole dilation steps past it
    return rows[:, None] * w + cols


@op(variants="function functional", functional_apart=True)
def max_pool1d(input: Tensor, kernel_size, stride=None, padding=0, dilation=1, ceil_mode: bool = False,
               return_indices: bool = False):
    """Max over windows of the last dim of (N, C, L) or (C, L)."""
    if return_indices:  # then PyTorch's max_pool1d_with_indices checks
        _dims_between(input, 2, 3, "max_pool1d")
    else:
        _batch_mode(input.shape, 1, "max_pool1d: ")
    one = lambda v: (1, v if isinstance(v, int) else tuple(v)[0])  # noqa: E731
    s = None if _stride_omitted(stride) else one(stride)
    if not return_indices:
        k, pp, dd = one(kernel_size)[1], one(padding)[1], one(dilation)[1]
        n = _out_size(input.shape[-1], k, k if s is None else s[1], pp, dd, ceil_mode)
        if n < 1:
            raise RuntimeError(f"max_pool1d() Invalid computed output size: {n}")
    out = max_pool2d(input.unsqueeze(-2), one(kernel_size), s if s is not None else one(kernel_size),
                     (0, one(padding)[1]), one(dilation), ceil_mode, return_indices)
    if return_indices:
        return out[0].squeeze(-2), out[1].squeeze(-2)
    return out.squeeze(-2)


# -- average pooling ------------------------------------------------------------------------------
def _divisor(n, k, s, p, out, count_include_pad):
    """Per output position along one dim: the window length counted by the mean."""
    start = np.arange(out) * s - p
    end = np.minimum(start + k, n + p)
    size = end - start
    if not count_include_pad:
        size = np.minimum(end, n) - np.maximum(start, 0)
    return size


class AvgPool2DBackward0(Node):
    saved_fields = (("self", 0), ("ceil_mode", _arg(4)), ("count_include_pad", _arg(5)),
                    ("divisor_override", _arg(6)), ("kernel_size", _arg(0)), ("padding", _arg(2)),
                    ("stride", _arg(1)))

    in_fmt = None  # the input's memory format, its gradient's (``input_format``)

    def backward(self, g):
        return (_avg_spread(g, self.cfg, self.in_shape, _pooled_input(self), self.args, self.in_fmt),)


class AvgPool2DBackwardBackward0(Node):
    saved_fields = AvgPool2DBackward0.saved_fields[1:]  # the pooling arguments, as PyTorch's keeps them

    def backward(self, h):
        return _avg_pool(h, self.cfg), _zeros_for_input(self, h)


class AvgPool3DBackward0(AvgPool2DBackward0):
    pass


class AvgPool3DBackwardBackward0(AvgPool2DBackwardBackward0):
    pass


# per number of pooled dims: the forward's node and its backward's node, named as PyTorch's
_AVG_NODES = {2: (AvgPool2DBackward0, AvgPool2DBackwardBackward0), 3: (AvgPool3DBackward0, AvgPool3DBackwardBackward0)}


def _taps(cfg):
    """Per kernel offset, the index of the padded input's entries that offset reads for every output (the
    windows' corners stepped by ``offset``), over the last ``len(k)`` dims."""
    k, s, _, out, _ = cfg
    for offs in itertools.product(*(range(ki) for ki in k)):
        yield (...,) + tuple(slice(o, o + (out[i] - 1) * s[i] + 1, s[i]) for i, o in enumerate(offs))


@silent
def _avg_pool(input: Tensor, cfg, args=None) -> Tensor:
    """Average pooling over the last ``len(k)`` dims: the zero-padded input's taps summed, then divided by
    ``div`` (per output, or PyTorch's divisor_override)."""
    k, s, p, out, div = cfg
    x = input._data
    if type(x) is MetaArray:  # a meta tensor: the result's shape only, no tap read
        acc = MetaArray(x.shape[:-len(k)] + tuple(out), x.dtype)
        return record(acc, _AVG_NODES[len(k)][0], (input,), (input,) if args is not None else (), cfg=cfg,
                      in_shape=x.shape, args=args)
    xp = _padded(x, p, tuple((out[i] - 1) * s[i] + k[i] for i in range(len(k))), 0)
    acc = np.zeros(x.shape[:-len(k)] + tuple(out), x.dtype)
    for tap in _taps(cfg):
        acc += xp[tap]
    if acc.dtype.kind in "iu":
        # integer pooling divides as C++ does: the quotient truncated toward zero
        acc = np.sign(acc) * np.sign(div) * (np.abs(acc) // np.abs(div))
    else:
        acc /= div
    fmt = input_format(x)  # a channels-last input: a channels-last result and gradient, as PyTorch's kernels
    # the public op's node keeps the input, as PyTorch's does
    return record(as_format(acc, fmt), _AVG_NODES[len(k)][0], (input,), (input,) if args is not None else (),
                  cfg=cfg, in_shape=x.shape, args=args, in_fmt=fmt)


def _avg_spread(g: Tensor, cfg, in_shape, x=None, args=None, fmt=None) -> Tensor:
    """The adjoint of ``_avg_pool``: each output's gradient over ``div`` added to every tap of its window,
    the padding cut off."""
    k, s, p, out, div = cfg
    n = len(k)
    gd = g._data / div
    size = in_shape[-n:]
    acc = np.zeros_like(gd, shape=gd.shape[:-n] + tuple(max(size[i] + 2 * p[i], (out[i] - 1) * s[i] + k[i])
                                                        for i in range(n)), order="C")  # (a meta gd: meta)
    for tap in _taps(cfg):
        acc[tap] += gd
    res = as_format(c_order(acc[(...,) + tuple(slice(p[i], p[i] + size[i]) for i in range(n))]).reshape(in_shape), fmt)
    return record(res, _AVG_NODES[n][1], (g,) if x is None else (g, x), cfg=cfg, in_shape=tuple(in_shape),
                  args=args)


@op(variants="functional")
def avg_pool2d(input: Tensor, kernel_size, stride=None, padding=0, ceil_mode: bool = False,
               count_include_pad: bool = True, divisor_override=None) -> Tensor:
    """Mean over (kh, kw) windows of (N, C, H, W) or (C, H, W)."""
    x = input._data
    if x.ndim < 3:  # PyTorch reads the input's size(-3) first
        raise IndexError(f"Dimension out of range (expected to be in range of [{-max(x.ndim, 1)}, "
                         f"{max(x.ndim, 1) - 1}], but got -3)")
    _batch_mode(x.shape, 2)
    cfg = _avg2d_cfg(x, kernel_size, stride, padding, ceil_mode, count_include_pad, divisor_override)
    args = (cfg[0], None if _stride_omitted(stride) else cfg[1], cfg[2], None,
            bool(ceil_mode), bool(count_include_pad), divisor_override)
    return _avg_pool(input, cfg, args)


def _avg2d_cfg(x, kernel_size, stride, padding, ceil_mode, count_include_pad, divisor_override) -> tuple:
    """(kernel, stride, padding, output size, divisors) of a 2-d average pooling of the array ``x``, checked."""
    k = _pair(kernel_size)
    s = k if _stride_omitted(stride) else _pair(stride)
    p = _pair(padding)
    h, w = x.shape[-2:]
    out_hw = tuple(_out_size((h, w)[i], k[i], s[i], p[i], 1, ceil_mode) for i in range(2))
    _check_pool(x, k, s, p, (1, 1), out_hw)
    if divisor_override is not None:
        if divisor_override == 0:
            raise RuntimeError("divisor must be not zero")
        div = np.asarray(divisor_override, x.dtype)
    elif type(x) is MetaArray:  # a meta tensor: an output plane of divisors, none computed
        div = MetaArray(out_hw, x.dtype, value=np.ones((), x.dtype))
    else:
        dh = _divisor(h, k[0], s[0], p[0], out_hw[0], count_include_pad)
        dw = _divisor(w, k[1], s[1], p[1], out_hw[1], count_include_pad)
        div = (dh[:, None] * dw[None, :]).astype(x.dtype)
    return k, s, p, out_hw, div


@aten_only("avg_pool2d_backward", recorded=True)
def avg_pool2d_backward(grad_output: Tensor, self: Tensor, kernel_size, stride, padding, ceil_mode: bool,
                        count_include_pad: bool, divisor_override) -> Tensor:
    """``torch.ops.aten.avg_pool2d_backward``: each output's gradient over its divisor, spread over its window
    (the node's formula, from the forward's arguments)."""
    cfg = _avg2d_cfg(self._data, kernel_size, stride, padding, ceil_mode, count_include_pad, divisor_override)
    return _avg_spread(grad_output, cfg, self._data.shape)


@op(variants="function functional")
def avg_pool1d(input: Tensor, kernel_size, stride=None, padding=0, ceil_mode: bool = False,
               count_include_pad: bool = True) -> Tensor:
    """Mean over windows of the last dim of (N, C, L) or (C, L)."""
    _dims_between(input, 2, 3, "avg_pool1d")
    one = lambda v: (1, v if isinstance(v, int) else tuple(v)[0])  # noqa: E731
    s = None if _stride_omitted(stride) else one(stride)
    x = input.unsqueeze(-2)
    s = one(kernel_size) if s is None else s  # as PyTorch's avg_pool1d hands avg_pool2d the kernel for stride
    return avg_pool2d(x, one(kernel_size), s, (0, one(padding)[1]), ceil_mode, count_include_pad).squeeze(-2)


@op(variants="function functional", functional_apart=True)
def max_pool1d_with_indices(input: Tensor, kernel_size, stride=None, padding=0, dilation=1, ceil_mode: bool = False,
                            return_indices: bool = True):
    """max_pool1d that also returns the argmax positions."""
    return max_pool1d(input, kernel_size, stride, padding, dilation, ceil_mode, True)


@op(variants="functional")
def max_pool2d_with_indices(input: Tensor, kernel_size, stride=None, padding=0, dilation=1, ceil_mode: bool = False,
                            return_indices: bool = True):
    """max_pool2d that also returns the argmax positions."""
    return max_pool2d(input, kernel_size, stride, padding, dilation, ceil_mode, True)


def _check_dim_sizes(t: np.ndarray, expected: tuple) -> None:
    """PyTorch's check_dim_size on the gradient and the indices of a pooling backward."""
    for i, n in enumerate(expected):
        if t.ndim != len(expected) or t.shape[i] != n:
            got = t.shape[i] if i < t.ndim else "?"
            raise RuntimeError(f"Expected a tensor of dimension {len(expected)} and tensor.size[{i}] == {n} but got: "
                               f"dimension {t.ndim} and tensor.size[{i}] = {got}")


@aten_only("max_pool2d_with_indices_backward", recorded=True)
def max_pool2d_with_indices_backward(grad_output: Tensor, input: Tensor, kernel_size, stride, padding, dilation,
                                     ceil_mode: bool, indices: Tensor) -> Tensor:
    """``torch.ops.aten.max_pool2d_with_indices_backward``: ``grad_output`` scattered (summed) into the input's
    shape at the argmax positions ``indices`` (per H*W plane) that max_pool2d_with_indices returned. Its node,
    MaxPool2DWithIndicesBackwardBackward0, gathers from them, and gives the input zeros."""
    x = input._data
    if x.ndim not in (3, 4) or x.size == 0:
        raise RuntimeError("non-empty 3D or 4D (batch mode) tensor expected for input")
    k = _pair(kernel_size)
    s = k if _stride_omitted(stride) else _pair(stride)
    p, d = _pair(padding), _pair(dilation)
    h, w = x.shape[-2:]
    out_hw = tuple(_out_size((h, w)[i], k[i], s[i], p[i], d[i], ceil_mode) for i in range(2))
    _check_pool(x, k, s, p, d, out_hw)
    g = grad_output._data
    if g.dtype != x.dtype:
        raise RuntimeError(f"expected dtype {cpp_name(x.dtype)} for `gradOutput` but got dtype {cpp_name(g.dtype)}")
    expected = x.shape[:-2] + out_hw
    _check_dim_sizes(g, expected)
    _check_dim_sizes(indices._data, expected)
    if indices._data.dtype != np.int64:
        raise RuntimeError(f"expected scalar type Long but found {FROM_NP[indices._data.dtype]._scalar}")
    planes = int(np.prod(x.shape[:-2]))
    rows = indices._data.reshape(planes, indices._data.size // max(planes, 1))
    flat = rows + (np.arange(planes, dtype=np.int64) * (h * w))[:, None]
    unique = all(si >= (ki - 1) * di + 1 for si, ki, di in zip(s, k, d))
    return _scatter(grad_output, flat.reshape(-1), x.shape, unique, "MaxPool2DWithIndicesBackwardBackward0",
                    input if input._requires_grad else None)


def _adaptive_size(output_size, hw):
    o = _pair(output_size) if output_size is not None else (None, None)
    return tuple(hw[i] if o[i] is None else int(o[i]) for i in range(2))


def _bounds(n: int, out: int):
    i = np.arange(out)
    return (i * n) // out, -((-(i + 1) * n) // out)


class AdaptiveAvgPool2DBackward0(Node):
    saved_fields = (("self", 0),)
    in_fmt = None  # the input's memory format, its gradient's (``input_format``)

    def backward(self, g):
        return (_adaptive_spread(g, self.in_shape, len(self.out_size), self.in_fmt),)


class AdaptiveAvgPool2DBackwardBackward0(Node):
    def backward(self, h):
        return (_adaptive_avg(h, self.out_size),)


class AdaptiveAvgPool3DBackward0(AdaptiveAvgPool2DBackward0):
    pass


class AdaptiveAvgPool3DBackwardBackward0(AdaptiveAvgPool2DBackwardBackward0):
    pass


# per number of pooled dims: the forward's node and its backward's node, named as PyTorch's
_ADAPTIVE_AVG_NODES = {2: (AdaptiveAvgPool2DBackward0, AdaptiveAvgPool2DBackwardBackward0),
                       3: (AdaptiveAvgPool3DBackward0, AdaptiveAvgPool3DBackwardBackward0)}


def _window_sums(x: np.ndarray, bounds) -> np.ndarray:
    """Each window's sum on its own (float64), one pooled dim at a time over the last ``len(bounds)`` dims:
    an inf or NaN stays in the windows that hold it, as in PyTorch's per-window sums. ``bounds``: per dim,
    (starts, ends). One ``reduceat`` a dim: it sums the segments between consecutive indices, so the
    indices interleave starts and ends and every other segment (end_i to start_i+1) is dropped; a zero row
    appended lets an end equal to the length be an index."""
    out = x
    for i, (starts, ends) in enumerate(bounds):
        axis = x.ndim - len(bounds) + i
        pad = np.zeros(out.shape[:axis] + (1,) + out.shape[axis + 1:], np.float64)
        out = np.concatenate([out, pad], axis=axis, dtype=np.float64)
        idx = np.stack([starts, ends], axis=1).reshape(-1)
        out = np.add.reduceat(out, idx, axis=axis)
        out = out[(slice(None),) * axis + (slice(None, None, 2),)]
    return out


def _window_areas(bounds) -> np.ndarray:
    """The number of entries in each window: the outer product of the windows' lengths along each dim."""
    area = np.ones((), np.int64)
    for starts, ends in bounds:
        area = np.multiply.outer(area, ends - starts)
    return area


@silent
def _adaptive_avg(input: Tensor, out_size) -> Tensor:
    """Adaptive average pooling over the last ``len(out_size)`` dims, recorded as PyTorch's node."""
    x = input._data
    n = len(out_size)
    bounds = [_bounds(x.shape[x.ndim - n + i], out_size[i]) for i in range(n)]
    out = (_window_sums(x, bounds) / _window_areas(bounds)).astype(x.dtype)
    fmt = input_format(x)  # a channels-last input: a channels-last result and gradient, as PyTorch's kernels
    # the input kept, as PyTorch's node does
    return record(as_format(out, fmt), _ADAPTIVE_AVG_NODES[n][0], (input,), (input,), in_shape=x.shape,
                  out_size=tuple(out_size), in_fmt=fmt)


@silent
def _adaptive_spread(g: Tensor, in_shape, n: int, fmt=None) -> Tensor:
    """Each output cell's gradient spread evenly over its window, windows added where they overlap: one
    pooled dim at a time (float64), so an inf or NaN reaches only its own window, as in PyTorch."""
    gd = g._data
    out_size = gd.shape[-n:]
    bounds = [_bounds(in_shape[len(in_shape) - n + i], out_size[i]) for i in range(n)]
    cur = gd / _window_areas(bounds)
    for i, (starts, ends) in enumerate(bounds):
        axis = gd.ndim - n + i
        spread = np.zeros_like(cur, shape=cur.shape[:axis] + (in_shape[len(in_shape) - n + i],) + cur.shape[axis + 1:],
                               dtype=np.float64, order="C")  # (a meta gradient: meta)
        lead = (slice(None),) * axis
        for j in range(len(starts)):
            spread[lead + (slice(starts[j], ends[j]),)] += cur[lead + (slice(j, j + 1),)]
        cur = spread
    return record(as_format(cur.astype(gd.dtype).reshape(in_shape), fmt), _ADAPTIVE_AVG_NODES[n][1], (g,),
                  out_size=out_size)


@op(variants="functional")
def adaptive_avg_pool2d(input: Tensor, output_size) -> Tensor:
    """Mean over the windows that split (H, W) into ``output_size`` cells as evenly as possible."""
    if input.ndim not in (3, 4):
        raise RuntimeError(f"adaptive_avg_pool2d(): Expected 3D or 4D tensor, but got {list(input.shape)}")
    _no_empty_dim(input.shape, _adaptive_empty("adaptive_avg_pool2d"), input.ndim - 2)  # only (H, W) checked
    out_hw = _adaptive_size(output_size, input.shape[-2:])
    if out_hw == (1, 1):
        return one_cell_mean(input, (-1, -2))
    return _adaptive_avg(input, out_hw)


def one_cell_mean(input: Tensor, dims: tuple) -> Tensor:
    """An adaptive average pooling to one cell as PyTorch's shortcut: the mean over the spatial ``dims``, kept
    (recorded as MeanBackward1); a channels-last input's result then re-strided in place to channels-last
    strides ``(C, 1, C, ...)``, as ATen's ``as_strided_`` does (a reduction's own result is C-ordered)."""
    out = input.mean(dims, keepdim=True)
    if suggested_of(input._data) is not None:
        c = input.shape[1]
        out.as_strided_(out.shape, (c, 1) + (c,) * (input.ndim - 2))
    return out


@op(variants="function functional")
def adaptive_avg_pool1d(input: Tensor, output_size) -> Tensor:
    """adaptive_avg_pool2d over the last dim of (N, C, L) or (C, L)."""
    _dims_between(input, 2, 3, "adaptive_avg_pool1d")
    o = output_size if isinstance(output_size, int) else tuple(output_size)[0]
    x = input.unsqueeze(-2)
    _no_empty_dim(x.shape, _adaptive_empty("adaptive_avg_pool2d"), x.ndim - 2)  # PyTorch's 2-d op checks
    return _adaptive_avg(x, (1, o)).squeeze(-2)


@op(variants="functional")
def adaptive_max_pool2d(input: Tensor, output_size, return_indices: bool = False):
    """Max over the windows that split (H, W) into ``output_size`` cells as evenly as possible."""
    x = input._data
    if x.ndim not in (3, 4):
        raise RuntimeError(f"adaptive_max_pool2d(): Expected 3D or 4D tensor, but got: {list(x.shape)}")
    _no_empty_dim(x.shape, _adaptive_empty("adaptive_max_pool2d"))
    h, w = x.shape[-2:]
    oh, ow = _adaptive_size(output_size, (h, w))
    x4 = _as4(x)
    if x.size == 0:  # a batch of 0
        empty = np.zeros(x4.shape[:2] + (oh, ow), np.int64)
        return _max_result(input, empty.astype(x.dtype), empty, (0, 0), (0, 0), AdaptiveMaxPool2DBackward0, True,
                           return_indices)
    if type(x) is MetaArray:  # a meta tensor: the results' shapes only, no window read
        vals, idx = MetaArray(x4.shape[:2] + (oh, ow), x.dtype), MetaArray(x4.shape[:2] + (oh, ow), np.int64)
        return _max_result(input, vals, idx, (0, 0), (0, 0), AdaptiveMaxPool2DBackward0, h % oh == 0 and w % ow == 0,
                           return_indices)
    (hs, he), (ws, we) = _bounds(h, oh), _bounds(w, ow)
    vals = np.empty((*x4.shape[:2], oh, ow), x.dtype)
    idx = np.empty((*x4.shape[:2], oh, ow), np.int64)
    for i in range(oh):  # one loop per output cell: adaptive windows differ in size
        for j in range(ow):
            win = x4[:, :, hs[i]:he[i], ws[j]:we[j]].reshape(*x4.shape[:2], -1)
            a = win.argmax(axis=-1)
            vals[:, :, i, j] = np.take_along_axis(win, a[..., None], axis=-1)[..., 0]
            idx[:, :, i, j] = (hs[i] + a // (we[j] - ws[j])) * w + ws[j] + a % (we[j] - ws[j])
    unique = h % oh == 0 and w % ow == 0
    # corners at 0: the local offsets are then the indices themselves
    return _max_result(input, vals, idx, (0, 0), (0, 0), AdaptiveMaxPool2DBackward0, unique, return_indices)


@op(variants="functional")
def adaptive_max_pool2d_with_indices(input: Tensor, output_size, return_indices: bool = True):
    """adaptive_max_pool2d that also returns the argmax positions."""
    return adaptive_max_pool2d(input, output_size, True)
