"""Convolution: conv1d, conv2d, conv_transpose1d and conv_transpose2d.

Three primitives share one geometry (kernel, stride, padding, dilation, groups, the size of the
convolution's input): the convolution ``y = conv(x, w)``, its input gradient ``x = conv_t(y, w)``
and its weight gradient ``w = conv_w(x, y)``. Each is bilinear, and the backward of each is made of
the other two, so gradients of any order are tinytorch ops. The forwards are plain numpy over the
windows of the zero-padded input (a sliding-window view): conv sums each window times the weights,
conv_w sums y times the windows over the output positions, conv_t adds y times the weights back where
each window lies. 1-d convolutions run as 2-d ones with a height of 1, recorded as one node, as PyTorch
does. PyTorch's CPU path (im2col: the windows copied into columns a few samples at a time, one matrix
product a chunk, threads, compiled copies) registers onto ``_conv_arrays``, ``_conv_t_arrays``,
``_conv_w_arrays`` and ``ConvolutionBackward0`` from ``tinytorch/_cpu/conv.py``."""
from __future__ import annotations

import warnings

import numpy as np
from numpy.lib.stride_tricks import sliding_window_view

from ... import _meta_data
from ..._dtype import FROM_NP, SHOWN_AS, cpp_name
from ..._meta_array import MetaArray
from ..._quiet_fp import silent
from ...autograd.grad_mode import _State
from ...autograd.node import Node, u64
from ...tensor import Tensor, _make
from .._core.layout import arranged, channels_last, format_strides, kept_or_format_strides, suggested_format
from .._core.record import record
from .._core.registry import aten_only, op
from ..pointwise.complex import view_as_real
from ._conv_pad import pad_for_conv as _pad  # even kernels: PyTorch pads the extra zero on the right first


class _Geometry:
    """Kernel, stride, padding, dilation and groups of a 2-d convolution (a 1-d one has height 1), its
    input's H and W, its output's, and the zero-padded size every window fits in."""

    __slots__ = ("k", "s", "p", "d", "groups", "hw", "out_hw", "one_d", "pad_hw", "layout")

    def __init__(self, k, s, p, d, groups, hw, one_d, out_hw=None):
        self.k, self.s, self.p, self.d, self.groups, self.hw, self.one_d = k, s, p, d, groups, hw, one_d
        self.layout = {}  # each primitive's result strides, where a channels-last convolution sets them (_lay_out)
        # a transposed convolution names its input's size: with output_padding >= stride (legal below the
        # dilation) the formula would count one more window than that input has
        self.out_hw = out_hw or tuple((hw[i] + 2 * p[i] - d[i] * (k[i] - 1) - 1) // s[i] + 1 for i in range(2))
        # tall and wide enough for every window, even where output_padding adds rows the input never had
        self.pad_hw = tuple(max(hw[i] + 2 * p[i], (self.out_hw[i] - 1) * s[i] + d[i] * (k[i] - 1) + 1)
                            for i in range(2))


# -- the memory format of a convolution's results ---------------------------------------------------
def _as4_strides(t: Tensor) -> tuple:
    """``t``'s strides as PyTorch's 2-d view of a 1-d convolution's operand sees them (``unsqueeze(2)``)."""
    st = t.stride()
    return st if t.ndim == 4 else st[:2] + (t.shape[2] * st[2],) + st[2:]


def _lay_out(geo: _Geometry, x: Tensor, w: Tensor, transposed: bool, input_counts: bool = True) -> None:
    """The rule PyTorch's CPU convolutions lay their results out by, noted on ``geo`` for the three primitives.

    The convolution runs channels-last where its input or its weight suggests it (``suggest_memory_format``; a
    1-d convolution's input is made contiguous first, so only its weight can): its output is then a fresh
    channels-last tensor, and the input's and the weight's gradients come back channels-last too, a fresh one
    on oneDNN, elsewhere the operand's own strides where it already is channels-last (a size-1 dim's kept:
    PyTorch's native kernels fill ``empty_like(operand.contiguous(channels_last))``). Otherwise nothing is
    arranged: every result stays C-ordered. The numbers are the same either way; only their order in memory."""
    if type(x._data) is MetaArray or type(w._data) is MetaArray:
        geo.layout = _meta_layout(x, w, transposed) if input_counts else {}
        return
    x4 = tuple(x.shape) if x.ndim == 4 else tuple(x.shape[:2]) + (1,) + tuple(x.shape[2:])
    w4 = tuple(w.shape) if w.ndim == 4 else tuple(w.shape[:2]) + (1,) + tuple(w.shape[2:])
    xs = _as4_strides(x) if input_counts else format_strides(x4, None)
    fmt = suggested_format(x4, xs) if input_counts else None
    fmt = fmt or suggested_format(w4, _as4_strides(w))
    if fmt is None:
        geo.layout = {}
        return
    fresh = _onednn(x._data, w._data, geo.groups)
    y4 = (x4[0], w4[1] * geo.groups if transposed else w4[0]) + (geo.hw if transposed else geo.out_hw)
    kept = (lambda shape, st: format_strides(shape, fmt)) if fresh else (
        lambda shape, st: kept_or_format_strides(shape, st, fmt))
    drop = (lambda st: st[:2] + st[3:]) if geo.one_d else (lambda st: st)
    out, gx, gw = (drop(format_strides(y4, fmt)), drop(kept(x4, xs)), drop(kept(w4, _as4_strides(w))))
    # which primitive makes which: a transposed convolution's output is conv_t's, its input's gradient conv's
    geo.layout = {"conv_t": out, "conv": gx, "conv_w": gw} if transposed else {"conv": out, "conv_t": gx,
                                                                                "conv_w": gw}


def meta_grad_format(x: Tensor, w: Tensor):
    """The memory format of a convolution's input and weight gradients on meta tensors (PyTorch's meta
    ``convolution_backward``, the GPU backends' rule): channels-last where the input or the weight suggests it
    (4-d), else channels_last_3d where either does (5-d), else None (contiguous). The output stays C-ordered there."""
    fx = suggested_format(tuple(x.shape), x.stride())
    fw = suggested_format(tuple(w.shape), w.stride())
    return channels_last if channels_last in (fx, fw) else fx or fw


def meta_grad_strides(shape: tuple, fmt) -> tuple:
    """The strides of ``new_empty(shape).to(memory_format=fmt)``: C order's where that already suggests ``fmt``
    (``to`` then copies nothing), else ``fmt``'s own."""
    c = format_strides(shape, None)
    return c if suggested_format(shape, c) is fmt else format_strides(shape, fmt)


def _meta_layout(x: Tensor, w: Tensor, transposed: bool) -> dict:
    """``geo.layout`` on meta tensors (a 2-d convolution's: a 1-d one's operands are 3-d there, contiguous): the
    gradients in ``meta_grad_format``, the output C-ordered."""
    fmt = meta_grad_format(x, w)
    if fmt is None:
        return {}
    gx, gw = meta_grad_strides(tuple(x.shape), fmt), meta_grad_strides(tuple(w.shape), fmt)
    return {"conv": gx, "conv_w": gw} if transposed else {"conv_t": gx, "conv_w": gw}


# -- the three bilinear forwards on arrays ---------------------------------------------------------
def _as4(a: np.ndarray, one_d: bool) -> np.ndarray:
    return a[:, :, None, :] if one_d else a


def _from4(a: np.ndarray, one_d: bool) -> np.ndarray:
    return a[:, :, 0, :] if one_d else a


def _padded(x4: np.ndarray, geo: _Geometry) -> np.ndarray:
    """x4 inside zeros of the padded size every window fits in."""
    (n, c, h, w), (ph, pw) = x4.shape, geo.p
    xp = np.zeros((n, c) + geo.pad_hw, x4.dtype)
    xp[:, :, ph:ph + h, pw:pw + w] = x4
    return xp


def _windows(xp: np.ndarray, geo: _Geometry, writeable: bool = False) -> np.ndarray:
    """(N, groups, C/groups, Ho, Wo, kh, kw): the window of the padded ``xp`` each output position reads, a view."""
    (kh, kw), (sh, sw), (dh, dw), (ho, wo) = geo.k, geo.s, geo.d, geo.out_hw
    span = sliding_window_view(xp, ((kh - 1) * dh + 1, (kw - 1) * dw + 1), (2, 3), writeable=writeable)
    return _grouped(span[:, :, :(ho - 1) * sh + 1:sh, :(wo - 1) * sw + 1:sw, ::dh, ::dw], geo.groups, 1)


def _grouped(a: np.ndarray, g: int, axis: int) -> np.ndarray:
    """``a`` with its ``axis`` split into (g, size/g): the channels of each group."""
    return a.reshape(a.shape[:axis] + (g, a.shape[axis] // g) + a.shape[axis + 1:])


@silent  # (PyTorch's convolutions compute inf * 0 silently)
def _conv_arrays(x, w, b, geo):
    """y (N, O, Ho, Wo) = w * x + b: each output the sum over its window of the input times the weights."""
    win, wg = _windows(_padded(_as4(x, geo.one_d), geo), geo), _grouped(_as4(w, geo.one_d), geo.groups, 0)
    y = np.concatenate([np.tensordot(wg[i], win[:, i], ((1, 2, 3), (1, 4, 5))) for i in range(geo.groups)])
    # (O, N, Ho, Wo) -> (N, O, Ho, Wo), copied even for one sample: numpy calls the transposed batch of one
    # contiguous already, but its strides would not be PyTorch's (a size-1 dim's stride is the rest's size)
    y = y.transpose(1, 0, 2, 3).copy()
    if b is not None:
        y += b[:, None, None]
    return _from4(y, geo.one_d)


@silent
def _conv_t_arrays(y, w, geo):
    """x (N, C, H, W) such that <x, h> = <y, conv(h, w)>: the input gradient of conv. Each output position's
    y times the weights is a window of input, added back where that window lies, one kernel offset at a time
    (an offset's windows never overlap)."""
    yg, wg = _grouped(_as4(y, geo.one_d), geo.groups, 1), _grouped(_as4(w, geo.one_d), geo.groups, 0)
    # (groups, C/groups, kh, kw, N, Ho, Wo)
    cols = np.stack([np.tensordot(wg[i], yg[:, i], (0, 1)) for i in range(geo.groups)])
    n, c = yg.shape[0], wg.shape[2] * geo.groups
    img = np.zeros((n, c) + geo.pad_hw, y.dtype)
    win = _windows(img, geo, writeable=True)
    for i, j in np.ndindex(*geo.k):
        win[..., i, j] += cols[:, :, i, j].transpose(2, 0, 1, 3, 4)
    (ph, pw), (h, wd) = geo.p, geo.hw
    return _from4(np.ascontiguousarray(img[:, :, ph:ph + h, pw:pw + wd]), geo.one_d)


@silent
def _conv_w_arrays(x, y, geo):
    """w (O, C/g, kh, kw) such that <w, v> = <y, conv(x, v)>: the weight gradient of conv, each weight the sum
    over output positions of y times the input its window reads there."""
    win, yg = _windows(_padded(_as4(x, geo.one_d), geo), geo), _grouped(_as4(y, geo.one_d), geo.groups, 1)
    gw = np.concatenate([np.tensordot(yg[:, i], win[:, i], ((0, 2, 3), (0, 2, 3))) for i in range(geo.groups)])
    return gw.reshape(gw.shape[:2] + ((geo.k[1],) if geo.one_d else geo.k))


def _conv_grads_arrays(g, x, w, geo) -> tuple:
    """Both of conv's gradients on arrays, the input's and the weight's (each from the gradient ``g``)."""
    return _conv_t_arrays(g, w, geo), _conv_w_arrays(x, g, geo)


# -- nodes ----------------------------------------------------------------------------------------
def _conv_field(i: int):
    """One of PyTorch's saved convolution arguments, from what the public function noted (``conv_args``)."""
    return lambda n: n.__dict__.get("conv_args", (None,) * 7)[i]


# PyTorch's ConvolutionBackward0 values: the arguments of aten::convolution (1-d ones as PyTorch sees them)
_CONV_FIELDS = (("bias_sym_sizes_opt", _conv_field(0)), ("dilation", _conv_field(1)), ("groups", _conv_field(2)),
                ("input", 0), ("output_padding", _conv_field(3)), ("padding", _conv_field(4)),
                ("stride", _conv_field(5)), ("transposed", _conv_field(6)), ("weight", 1))


def _note_conv_args(t: Tensor, bias, stride, padding, dilation, groups, output_padding, transposed) -> Tensor:
    """The arguments PyTorch's node shows, on ``t``'s node (a convolution just recorded)."""
    fn = t.grad_fn
    if fn is not None and type(fn).__name__ == "ConvolutionBackward0":
        fn.conv_args = ((0,) if bias is None else tuple(bias.shape), u64(tuple(dilation)), u64(groups),
                        u64(tuple(output_padding)), u64(tuple(padding)), u64(tuple(stride)), transposed)
    return t


def _bias_grad(g: Tensor, geo: _Geometry) -> Tensor:
    return g.sum((0, 2) if geo.one_d else (0, 2, 3))


@aten_only("convolution_backward", recorded=True)
def convolution_backward(grad_output: Tensor, input: Tensor, weight: Tensor, bias_sizes, stride, padding, dilation,
                         transposed: bool, output_padding, groups: int, output_mask) -> tuple:
    """``torch.ops.aten.convolution_backward`` of a 1-d or 2-d convolution: the input's, the weight's and the bias's
    gradients where ``output_mask`` asks for them (None elsewhere), from conv's two other primitives."""
    if transposed:
        raise NotImplementedError("tinytorch's aten.convolution_backward takes convolutions, not transposed ones")
    geo = _conv_geometry(input.shape, weight.shape, stride, padding, dilation, groups)
    _lay_out(geo, input, weight, False, input_counts=input.ndim != 3)
    if output_mask[0] and output_mask[1] and not _State.enabled:  # as the node computes them
        gx, gw = _conv_grads_arrays(grad_output._data, input._data, weight._data, geo)
        return (_make(arranged(gx, geo.layout.get("conv_t"))), _make(arranged(gw, geo.layout.get("conv_w"))),
                _bias_grad(grad_output, geo) if output_mask[2] else None)
    return (_conv_t(grad_output, weight, geo) if output_mask[0] else None,
            _conv_w(input, grad_output, geo) if output_mask[1] else None,
            _bias_grad(grad_output, geo) if output_mask[2] else None)


class ConvolutionBackward0(Node):
    saved_fields = _CONV_FIELDS
    """y = conv(x, w) + b."""
    def backward(self, g):
        x, w = self._unpacked_saved
        args = self.__dict__.get("conv_args")
        if not _State.array_backward and args is not None and not args[6]:  # a graph capture: PyTorch's operator
            bias_sizes, dilation, groups, output_padding, padding, stride, _ = args  # (non-negative: u64 keeps them)
            return convolution_backward(g, x, w, list(bias_sizes), list(stride), list(padding), list(dilation), False,
                                        list(output_padding), groups, list(self.need))
        if self.need[0] and self.need[1] and not _State.enabled and type(g._data) is not MetaArray:
            # no graph of the gradient: on the arrays (meta tensors take the shape-only path below)
            gx, gw = _conv_grads_arrays(g._data, x._data, w._data, self.geo)
            layout = self.geo.layout
            gx, gw = _make(arranged(gx, layout.get("conv_t"))), _make(arranged(gw, layout.get("conv_w")))
        else:
            gx = _conv_t(g, w, self.geo) if self.need[0] else None
            gw = _conv_w(x, g, self.geo) if self.need[1] else None
        return gx, gw, _bias_grad(g, self.geo) if self.need[2] else None


class _ConvTransposeNode(Node):
    """x = conv_t(y, w) (+ b for the public conv_transpose2d)."""

    def backward(self, h):
        y, w = self._unpacked_saved
        gy = _conv(h, w, None, self.geo) if self.need[0] else None
        gw = _conv_w(h, y, self.geo) if self.need[1] else None
        return gy, gw, _bias_grad(h, self.geo) if self.need[2] else None


class _ConvWeightNode(Node):
    """w = conv_w(x, y)."""

    def backward(self, v):
        x, y = self._unpacked_saved
        gx = _conv_t(y, v, self.geo) if self.need[0] else None
        gy = _conv(x, v, None, self.geo) if self.need[1] else None
        return gx, gy


class ConvolutionBackwardBackward0(_ConvTransposeNode):
    pass


class _ConvWeightBackward(_ConvWeightNode):
    pass


_ConvWeightBackward.__name__ = _ConvWeightBackward.__qualname__ = "ConvolutionBackwardBackward0"


def _meta_result(x, w, shape4, strides=None) -> MetaArray | None:
    """On meta tensors (``x`` or ``w`` data-less) the result's array: its shape only (``shape4`` in the 2-d layout;
    a 1-d convolution drops its height), so no size is too large to run; laid out with element ``strides`` (None:
    C order)."""
    if type(x) is not MetaArray and type(w) is not MetaArray:
        return None
    dtype = np.result_type(x.dtype, w.dtype)
    shape = shape4[:2] + shape4[3:] if len(shape4) == 4 and x.ndim == 3 else shape4
    return MetaArray(shape, dtype, None if strides is None else tuple(st * dtype.itemsize for st in strides))


def _flagged(t: Tensor, inputs: tuple) -> Tensor:
    """``t`` flagged a meta tensor where its array is data-less (a gradient made below the public ops), and a fake
    one where its ``inputs`` are, as the meta path flags an op's results."""
    if type(t._data) is MetaArray:
        _meta_data.mark_meta(t)
        fake = _meta_data.fake_hook()
        if fake is not None:
            fake[1]([t], list(inputs), None)
    return t


def _conv(x: Tensor, w: Tensor, b, geo) -> Tensor:
    xa, wa = x._data, w._data
    out = _meta_result(xa, wa, (xa.shape[0], wa.shape[0]) + geo.out_hw, geo.layout.get("conv"))
    if out is None:
        out = arranged(_conv_arrays(xa, wa, None if b is None else b._data, geo), geo.layout.get("conv"))
    need = (x._requires_grad, w._requires_grad, b is not None and b._requires_grad)
    # x and w both kept, as PyTorch's node keeps them (its one formula reads both)
    return record(out, ConvolutionBackward0, (x, w, b), (x, w), geo=geo, need=need)


def _conv_t(y: Tensor, w: Tensor, geo, b=None, cls=ConvolutionBackwardBackward0) -> Tensor:
    ya, wa = y._data, w._data
    out = _meta_result(ya, wa, (ya.shape[0], wa.shape[1] * geo.groups) + geo.hw, geo.layout.get("conv_t"))
    if out is None:
        out = arranged(_conv_t_arrays(ya, wa, geo), geo.layout.get("conv_t"))
    if b is not None and type(out) is not MetaArray:
        out += b._data[:, None] if geo.one_d else b._data[:, None, None]
    need = (y._requires_grad, w._requires_grad, b is not None and b._requires_grad)
    return _flagged(record(out, cls, (y, w, b), (y if need[1] else None, w if need[0] else None), geo=geo,
                           need=need), (y, w))


def _conv_w(x: Tensor, y: Tensor, geo) -> Tensor:
    xa, ya = x._data, y._data
    out = _meta_result(xa, ya, (ya.shape[1], xa.shape[1] // geo.groups) + geo.k, geo.layout.get("conv_w"))
    if out is None:
        out = arranged(_conv_w_arrays(xa, ya, geo), geo.layout.get("conv_w"))
    return _flagged(record(out, _ConvWeightBackward, (x, y), (x, y), geo=geo,
                           need=(x._requires_grad, y._requires_grad)), (x, y))


# -- argument checks and the public functions ---------------------------------------------------
def _tuple(v, n: int, name: str) -> tuple:
    if isinstance(v, int):
        return (v,) * n
    v = tuple(v)
    if len(v) == 1:
        return v * n
    if len(v) != n:
        raise RuntimeError(f"expected {name} to be a single integer value or a list of {n} values to match the "
                           f"convolution dimensions, but got {name}={list(v)}")
    return v


def _dims(shape) -> str:
    return "[" + ", ".join(str(s) for s in shape) + "]"


def _legacy(a: np.ndarray) -> str:
    if a.dtype.kind == "c":  # PyTorch names complex tensor types by their dispatch key
        return f"CPU{FROM_NP[a.dtype]._scalar}Type"
    return f"{SHOWN_AS[0]}.{FROM_NP[a.dtype]._legacy}"


def _onednn(x: np.ndarray, w: np.ndarray, groups: int) -> bool:
    """Whether PyTorch's CPU convolution runs these operands on oneDNN (its ``use_mkldnn``): float32 only, then
    a batch, groups, kernels wider than 3x3 or an input of more than 20480 elements in its first four dims
    (a 1-d convolution seen as a 2-d one of height 1). The dtype errors a learner meets (a float64 batch into a
    float32 model) are worded by the path taken. (PyTorch also keeps a 1x1 kernel, unstrided and undilated, on a
    batch under 16 off oneDNN when it runs one thread: its default is more, and that case is read as such here.)"""
    if x.dtype != np.float32 or x.ndim < 3 or w.ndim < 3:
        return False
    xs = x.shape[:2] + (1,) + x.shape[2:] if x.ndim == 3 else x.shape
    ws = w.shape[:2] + (1,) + w.shape[2:] if w.ndim == 3 else w.shape
    return groups > 1 or (ws[-1] > 3 and ws[-2] > 3) or xs[0] > 1 or xs[0] * xs[1] * xs[2] * xs[3] > 20480


def _check(x: np.ndarray, w: np.ndarray, b, stride, padding, dilation, groups, transposed: bool, nd: int):
    real = x.dtype.kind != "c"
    # PyTorch's convolution checks the bias first (a transposed one's only on oneDNN, below)
    if real and not transposed and b is not None and b.dtype != x.dtype:
        raise RuntimeError(f"Input type ({cpp_name(x.dtype)}) and bias type ({cpp_name(b.dtype)}) should be the same")
    if x.dtype != w.dtype:
        if real and not _onednn(x, w, groups):  # the native kernel's words
            raise RuntimeError(f"expected scalar type {FROM_NP[x.dtype]._scalar} but found "
                               f"{FROM_NP[w.dtype]._scalar}")
        # PyTorch's complex input path tests the weight's type before its MKLDNN alternative
        tail = " or input should be a MKLDNN tensor and weight is a dense tensor" if real else ""
        raise RuntimeError(f"Input type ({_legacy(x)}) and weight type ({_legacy(w)}) should be the same{tail}")
    if b is not None and b.dtype != x.dtype:
        if real and _onednn(x, w, groups):
            raise RuntimeError(f"Input type ({_legacy(x)}) and bias type ({_legacy(b)}) should be the same or input "
                               "should be a MKLDNN tensor and bias is a dense tensor")
        # (PyTorch's native transposed kernel adds a bias of another dtype; refused here)
        raise RuntimeError(f"Input type ({cpp_name(x.dtype)}) and bias type ({cpp_name(b.dtype)}) should be the same")
    if any(s <= 0 for s in stride):
        raise RuntimeError("non-positive stride is not supported")
    if any(p < 0 for p in padding):
        raise RuntimeError("negative padding is not supported")
    if any(d <= 0 for d in dilation):
        raise RuntimeError("non-positive dilation is not supported")
    if groups <= 0:
        raise RuntimeError("non-positive groups is not supported")
    if w.ndim != nd + 2:
        raise RuntimeError("weight should have at least three dimensions" if w.ndim < 3 else
                           f"Expected {nd + 2}-dimensional input for {nd + 2}-dimensional weight {_dims(w.shape)}, "
                           f"but got {x.ndim}-dimensional input of size {_dims(x.shape)} instead")
    if w.shape[0] < groups:
        raise RuntimeError(f"Given groups={groups}, expected weight to be at least {groups} at dimension 0, but got "
                           f"weight of size {_dims(w.shape)} instead")
    if w.shape[0] % groups:  # (PyTorch's message prints the sizes in double brackets)
        raise RuntimeError(f"Given groups={groups}, expected weight to be divisible by {groups} at dimension 0, but "
                           f"got weight of size [{_dims(w.shape)}] instead")
    c_w = w.shape[0] if transposed else w.shape[1] * groups
    if x.shape[1] != c_w:
        head = "Given transposed=1, weight of size" if transposed else f"Given groups={groups}, weight of size"
        raise RuntimeError(f"{head} {_dims(w.shape)}, expected input{_dims(x.shape)} to have {c_w} channels, but got "
                           f"{x.shape[1]} channels instead")
    out_c = w.shape[1] * groups if transposed else w.shape[0]
    if b is not None and (b.ndim != 1 or b.shape[0] != out_c):
        raise RuntimeError(f"Given weight of size {_dims(w.shape)}, expected bias to be 1-dimensional with {out_c} "
                           f"elements, but got bias of size {_dims(b.shape)} instead")
    if not transposed:
        sizes = [x.shape[2 + i] + 2 * padding[i] for i in range(nd)]
        ks = [dilation[i] * (w.shape[2 + i] - 1) + 1 for i in range(nd)]
        if any(s < k for s, k in zip(sizes, ks)):
            raise RuntimeError(f"Calculated padded input size per channel: ({' x '.join(map(str, sizes))}). Kernel "
                               f"size: ({' x '.join(map(str, ks))}). Kernel size can't be greater than actual input "
                               "size")
    if x.size == 0 and x.shape[0] and x.shape[1]:  # PyTorch runs empty batches and channels, no other empty input
        shape = x.shape[:2] + (1,) + x.shape[2:] if nd == 1 else x.shape  # (its 1-d convolutions are 2-d ones)
        raise RuntimeError(f"Only zero batch or zero channel inputs are supported, but got input shape: {_dims(shape)}")


def _real_parts(t: Tensor):
    pair = view_as_real(t)
    return pair.select(-1, 0), pair.select(-1, 1)


def complex_conv(conv, input: Tensor, weight: Tensor, bias) -> Tensor:
    """A complex convolution as three real ones (Karatsuba, as PyTorch's CPU kernels compute it), so that
    its values round alike and its gradients follow PyTorch's convention through view_as_real:
    a = conv(xr, wr) + br, b = conv(xi, wi), c = conv(xr + xi, wr + wi) + br + bi;
    out = (a - b) + i (c - a - b). ``conv(x, w, b)`` is the real convolution with the geometry bound."""
    xr, xi = _real_parts(input)
    wr, wi = _real_parts(weight)
    br = bi = None
    if bias is not None:
        br, bi = _real_parts(bias)
    a = conv(xr, wr, br)
    b = conv(xi, wi, None)
    c = conv(xr + xi, wr + wi, None if bias is None else br + bi)
    return (a - b) + ((c - a) - b) * 1j


def _same_padding(w_shape, dilation, nd: int):
    """Per dim (left, right) zeros that keep the size; the right side gets the odd one."""
    total = [dilation[i] * (w_shape[2 + i] - 1) for i in range(nd)]
    return [(t // 2, t - t // 2) for t in total]


def _conv_geometry(x_shape, w_shape, stride, padding, dilation, groups) -> _Geometry:
    """A 1-d or 2-d convolution's geometry (a 1-d one as 2-d of height 1) from its arguments."""
    one = len(w_shape) == 3
    return _Geometry(((1,) if one else ()) + tuple(w_shape[2:]), ((1,) if one else ()) + tuple(stride),
                     ((0,) if one else ()) + tuple(padding), ((1,) if one else ()) + tuple(dilation), groups,
                     ((1,) if one else ()) + tuple(x_shape[2:]), one)


def _convnd(input: Tensor, weight: Tensor, bias, stride, padding, dilation, groups, nd: int) -> Tensor:
    name = f"conv{nd}d"
    if input.ndim not in (nd + 1, nd + 2):
        raise RuntimeError(f"Expected {nd + 1}D (unbatched) or {nd + 2}D (batched) input to {name}, but got input of "
                           f"size: {_dims(input.shape)}")
    if input.ndim == nd + 1:
        return _convnd(input.unsqueeze(0), weight, bias, stride, padding, dilation, groups, nd).squeeze(0)
    stride, dilation = _tuple(stride, nd, "stride"), _tuple(dilation, nd, "dilation")
    if isinstance(padding, str):
        if padding not in ("valid", "same"):
            raise ValueError(f"Invalid padding string '{padding}', should be one of ['valid', 'same']")
        if padding == "same" and any(s != 1 for s in stride):
            raise RuntimeError("padding='same' is not supported for strided convolutions")
        pads = [(0, 0)] * nd if padding == "valid" else _same_padding(weight.shape, dilation, nd)
        if any(lo != hi for lo, hi in pads):
            warnings.warn("Using padding='same' with even kernel lengths and odd dilation may require a zero-padded "
                          "copy of the input be created", stacklevel=3)

            flat = [v for lo, hi in reversed(pads) for v in (0, hi - lo)]
            input = _pad(input, flat, "constant")
        padding = tuple(lo for lo, _ in pads)
    padding = _tuple(padding, nd, "padding")
    x, w = input._data, weight._data
    _check(x, w, None if bias is None else bias._data, stride, padding, dilation, groups, False, nd)
    geo = _conv_geometry(x.shape, w.shape, stride, padding, dilation, groups)
    if x.dtype.kind == "c":
        return complex_conv(lambda xs, ws, bs: _conv(xs, ws, bs, geo), input, weight, bias)
    _lay_out(geo, input, weight, False, input_counts=nd != 1)
    return _note_conv_args(_conv(input, weight, bias, geo), bias, stride, padding, dilation, groups, (0,) * nd, False)


@op(variants="function functional", autocast="lower")
def conv1d(input: Tensor, weight: Tensor, bias: Tensor | None = None, stride=1, padding=0, dilation=1,
           groups: int = 1) -> Tensor:
    """1-d cross-correlation of (N, C, L) with weight (O, C/groups, k)."""
    return _convnd(input, weight, bias, stride, padding, dilation, groups, 1)


@op(variants="function functional", autocast="lower")
def conv2d(input: Tensor, weight: Tensor, bias: Tensor | None = None, stride=1, padding=0, dilation=1,
           groups: int = 1) -> Tensor:
    """2-d cross-correlation of (N, C, H, W) with weight (O, C/groups, kh, kw)."""
    return _convnd(input, weight, bias, stride, padding, dilation, groups, 2)


@op(variants="function functional", autocast="lower")
def conv_transpose2d(input: Tensor, weight: Tensor, bias: Tensor | None = None, stride=1, padding=0,
                     output_padding=0, groups: int = 1, dilation=1) -> Tensor:
    """The adjoint of conv2d: (N, C_in, H, W) with weight (C_in, C_out/groups, kh, kw)."""
    return _conv_transpose2d(input, weight, bias, stride, padding, output_padding, groups, dilation)


def _conv_transpose2d(input: Tensor, weight: Tensor, bias, stride, padding, output_padding, groups: int, dilation,
                      input_counts: bool = True) -> Tensor:
    """conv_transpose2d; ``input_counts=False``: a 1-d one's input, which PyTorch makes contiguous (``_lay_out``)."""
    if input.ndim not in (3, 4):
        raise RuntimeError(f"Expected 3D (unbatched) or 4D (batched) input to conv_transpose2d, but got input of "
                           f"size: {_dims(input.shape)}")
    if input.ndim == 3:
        return conv_transpose2d(input.unsqueeze(0), weight, bias, stride, padding, output_padding, groups,
                                dilation).squeeze(0)
    stride, padding = _tuple(stride, 2, "stride"), _tuple(padding, 2, "padding")
    dilation, output_padding = _tuple(dilation, 2, "dilation"), _tuple(output_padding, 2, "output_padding")
    x, w = input._data, weight._data
    _check(x, w, None if bias is None else bias._data, stride, padding, dilation, groups, True, 2)
    if any(op >= s and op >= d for op, s, d in zip(output_padding, stride, dilation)):
        raise RuntimeError("output padding must be smaller than either stride or dilation, but got "
                           f"output_padding_height: {output_padding[0]} output_padding_width: {output_padding[1]} "
                           f"stride_height: {stride[0]} stride_width: {stride[1]} dilation_height: {dilation[0]} "
                           f"dilation_width: {dilation[1]}")
    hw = tuple((x.shape[2 + i] - 1) * stride[i] - 2 * padding[i] + dilation[i] * (w.shape[2 + i] - 1)
               + output_padding[i] + 1 for i in range(2))
    if any(s <= 0 for s in hw):
        raise RuntimeError(f"Given input size per channel: ({x.shape[2]} x {x.shape[3]}). Calculated output size per "
                           f"channel: ({hw[0]} x {hw[1]}). Output size is too small")
    geo = _Geometry(tuple(w.shape[2:]), stride, padding, dilation, groups, hw, False, tuple(x.shape[2:]))
    if x.dtype.kind == "c":
        return complex_conv(lambda ys, ws, bs: _conv_t(ys, ws, geo, bs, ConvolutionBackward0Transposed), input,
                            weight, bias)
    _lay_out(geo, input, weight, True, input_counts)
    return _note_conv_args(_conv_t(input, weight, geo, bias, ConvolutionBackward0Transposed), bias, stride, padding,
                           dilation, groups, output_padding, True)


class ConvolutionBackward0Transposed(_ConvTransposeNode):
    saved_fields = _CONV_FIELDS


ConvolutionBackward0Transposed.__name__ = ConvolutionBackward0Transposed.__qualname__ = "ConvolutionBackward0"


def _check_output_padding(output_padding, stride, dilation, names):
    if any(o >= s and o >= d for o, s, d in zip(output_padding, stride, dilation)):
        parts = [f"output_padding_{n}: {o}" for n, o in zip(names, output_padding)]
        parts += [f"stride_{n}: {s}" for n, s in zip(names, stride)]
        parts += [f"dilation_{n}: {d}" for n, d in zip(names, dilation)]
        raise RuntimeError("output padding must be smaller than either stride or dilation, but got " + " ".join(parts))


@op(variants="function functional", autocast="lower")
def conv_transpose1d(input: Tensor, weight: Tensor, bias: Tensor | None = None, stride=1, padding=0,
                     output_padding=0, groups: int = 1, dilation=1) -> Tensor:
    """The adjoint of conv1d: (N, C_in, L) with weight (C_in, C_out/groups, k), as a 2-d one of height 1."""
    if input.ndim not in (2, 3):
        raise RuntimeError(f"Expected 2D (unbatched) or 3D (batched) input to conv_transpose1d, but got input of "
                           f"size: {_dims(input.shape)}")
    if input.ndim == 2:
        return conv_transpose1d(input.unsqueeze(0), weight, bias, stride, padding, output_padding, groups,
                                dilation).squeeze(0)
    stride, padding = _tuple(stride, 1, "stride"), _tuple(padding, 1, "padding")
    dilation, output_padding = _tuple(dilation, 1, "dilation"), _tuple(output_padding, 1, "output_padding")
    _check(input._data, weight._data, None if bias is None else bias._data, stride, padding, dilation, groups,
           True, 1)
    if input._data.dtype.kind == "c":
        return complex_conv(lambda ys, ws, bs: conv_transpose1d(ys, ws, bs, stride, padding, output_padding, groups,
                                                                dilation), input, weight, bias)
    out = _conv_transpose2d(input.unsqueeze(2), weight.unsqueeze(2), bias, (1,) + stride, (0,) + padding,
                            (0,) + output_padding, groups, (1,) + dilation, input_counts=False)
    return out.squeeze(2)
