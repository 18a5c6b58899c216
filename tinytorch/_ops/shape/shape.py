"""Shape ops: views sharing storage and version counter with their input (view, reshape, squeeze,
permute, transpose, expand, diagonal, ...), their in-place forms (``squeeze_``, ``t_``, ...) and repeat.

A new view op computes a numpy view of ``input._data`` (never a copy: slicing, ``as_strided``,
transposes, ``np.broadcast_to`` ...) and returns ``record(out, NodeCls, (input,), view_of=input, ...)``,
which ends in ``tensor._view_of``; in-place ops on it and on its base then work as in PyTorch with
nothing more to write (see ``views.py``). Joining, splitting and gather live in ``join.py``; clone,
contiguous and the dtype casts in ``conversions.py``."""
from __future__ import annotations

import numpy as np

from ... import _dtype
from ... import storage as _storage
from ...autograd.grad_mode import _State, check_inference_inplace, version_counter
from ...autograd.node import Node, elem_strides, u64
from ..._meta_array import MetaArray
from ...tensor import Tensor, _make, _new, _view_of, _wrap_dim, register_attribute
from . import _batching as rules
from . import views as _views
from .._core.record import record
from .._core.registry import aten_only, op
from .._core.util import strided
from ...autograd.node import sum_to
from ...autograd.forward_ad import _out_shape, _tangent_of


class CloneBackward0(Node):
    def backward(self, g):
        return (g,)

    def jvp(self, t):
        return t.clone()  # PyTorch's formula (auto_linear): clone(self_t), a CloneBackward0 where it records


def _unary_result(input: Tensor, out: np.ndarray, node_cls, is_view: bool, **attrs):
    """``record`` for a one-input op whose result is a view of ``input`` (``is_view``) or a copy (kept for
    the callers outside this family)."""
    return record(out, node_cls, (input,), view_of=input if is_view else None, **attrs)


def _shape_arg(shape, name: str = "", param: str = "") -> tuple:
    """The sizes given as ``*shape`` or as one sequence; none at all is PyTorch's TypeError for ``name``'s
    required ``param`` (``x.reshape()``: a 0-d tensor would take an empty shape silently)."""
    if len(shape) == 1 and isinstance(shape[0], (tuple, list)):
        shape = shape[0]
    elif not shape and name:
        raise missing_argument(name, param)
    return tuple(map(int, shape))


def missing_argument(name: str, param: str) -> TypeError:
    """PyTorch's parser's words for a required argument left out, its plural included (``python_arg_parser.cpp``
    writes "arguments" for one)."""
    return TypeError(f'{name}() missing 1 required positional arguments: "{param}"')


class ViewBackward0(Node):
    saved_fields = (("self_sym_sizes", lambda n: tuple(n.in_shape)),)

    def backward(self, g):
        return (g.reshape(self.in_shape),)

    def jvp(self, t):
        # PyTorch's formula (auto_linear): view(self_t), a ViewBackward0 (an expanded tangent's too), where the
        # tangent's strides allow one; else its reshape
        shape, x = _out_shape(self), t._data
        out = x.reshape(shape)
        if out.base is not None and (out.base is x or out.base is x.base):
            return view(t, shape)
        return t.reshape(shape)


class UnsafeViewBackward0(ViewBackward0):
    def jvp(self, t):
        # PyTorch's formula (auto_linear): _unsafe_view(self_t), recorded as this node where the tangent has history
        return unsafe_view(t, _out_shape(self))


@aten_only("_unsafe_view", recorded=True)
def unsafe_view(input: Tensor, size) -> Tensor:
    """PyTorch's ``_unsafe_view``: ``input`` (a fresh result no one else holds) reshaped without becoming a view
    of it, so its history is this node and nothing tracks it as an alias (``reshape``'s copy, ``matmul``'s
    result); a graph capture records it as its ATen node."""
    x = input._data
    return record(x.reshape(tuple(size)), UnsafeViewBackward0, (input,), in_shape=x.shape)


class ReshapeAliasBackward0(ViewBackward0):
    def jvp(self, t):
        return t.reshape(_out_shape(self))


def _infer_shape(shape: tuple, numel: int, in_shape) -> tuple:
    neg = shape.count(-1)
    if neg > 1:
        raise RuntimeError("only one dimension can be inferred")
    known = 1
    for s in shape:
        if s != -1:
            if s < 0:
                raise RuntimeError(f"invalid shape dimension {s}")
            known *= s
    if neg:
        if known == 0 or numel % known:
            raise RuntimeError(f"shape '[{', '.join(map(str, shape))}]' is invalid for input of size {numel}")
        i = shape.index(-1)
        shape = shape[:i] + (numel // known,) + shape[i + 1:]
    elif known != numel:
        raise RuntimeError(f"shape '[{', '.join(map(str, shape))}]' is invalid for input of size {numel}")
    return shape


if np.lib.NumpyVersion(np.__version__) >= "2.1.0":
    def _view_as(x: np.ndarray, shape: tuple) -> np.ndarray:
        """x's memory under a new shape, never a copy: ValueError where the strides cannot express it."""
        return x.reshape(shape, copy=False)
else:  # numpy < 2.1: reshape has no copy=; setting .shape (deprecated from 2.5) is the no-copy spelling there
    def _view_as(x: np.ndarray, shape: tuple) -> np.ndarray:
        """x's memory under a new shape, never a copy: AttributeError where the strides cannot express it."""
        out = x.view()
        out.shape = shape
        return out


def viewed(x: np.ndarray, shape: tuple) -> np.ndarray:
    """``x``'s memory under ``shape`` (its size), never a copy; PyTorch's error where the strides cannot express it."""
    try:
        return _view_as(x, shape)
    except (AttributeError, ValueError):
        raise RuntimeError("view size is not compatible with input tensor's size and stride (at least one "
                           "dimension spans across two contiguous subspaces). Use .reshape(...) instead.") from None


def _view_inverse(call, base, value, src, size):
    """A write into ``base.view(size)``: the view's new values viewed back in the base's sizes."""
    return call("view.default", src, list(value.shape))


@op(variants="method", batch=rules.view, view_inverse=_view_inverse)
def view(input: Tensor, *shape, **given) -> Tensor:
    """Same storage, new shape; fails where strides make that impossible (use reshape). ``view(dtype)``
    reads the same bytes as another dtype."""
    if given:  # PyTorch's two overloads by keyword, view(size=...) and view(dtype=...); no ATen argument of its own
        name, value = given.popitem()
        if given or name not in ("size", "dtype") or shape:
            raise TypeError(f"view() got an unexpected keyword argument '{name}'")
        shape = (value,)
    if len(shape) == 1 and isinstance(shape[0], _dtype.dtype):
        return _view_dtype(input, shape[0])
    if not shape:
        raise TypeError(f"view() received an invalid combination of arguments - got (), but expected one of:\n"
                        f" * ({_dtype.SHOWN_AS[0]}.dtype dtype)\n * (tuple of ints size)\n")
    x = input._data
    out = viewed(x, _infer_shape(_shape_arg(shape), x.size, x.shape))
    if _State.enabled and input._requires_grad:
        return record(out, ViewBackward0, (input,), view_of=input, in_shape=x.shape)
    return _view_of(input, out)


def _view_dtype(input: Tensor, dtype) -> Tensor:
    """PyTorch's view_dtype: no view in autograd's sense (no graph, no ``_base``) but the same storage and
    version counter, as ``detach``; a different element size rescales the last dim, under PyTorch's checks."""
    x = input._data
    new_np = _dtype.to_np(dtype)
    if new_np != x.dtype:
        if getattr(input, "_is_conj", False):
            raise RuntimeError("torch.Tensor.view is not supported for conjugate view tensors when converting "
                               "to a different dtype.")
        old_size, new_size = x.itemsize, new_np.itemsize
        if old_size != new_size:
            what = f"to view {input.dtype._scalar} as {dtype._scalar} (different element sizes)"
            if x.ndim == 0:
                raise RuntimeError(f"self.dim() cannot be 0 {what}")
            strides = input.stride()
            if new_size > old_size:
                ratio = new_size // old_size
                if x.shape[-1] % ratio:
                    raise RuntimeError(f"self.size(-1) must be divisible by {ratio} {what}, but got {x.shape[-1]}")
                offset = _storage.storage_offset(input)
                if offset % ratio:
                    raise RuntimeError(f"self.storage_offset() must be divisible by {ratio} {what}, but got {offset}")
            if strides[-1] != 1:
                raise RuntimeError(f"self.stride(-1) must be 1 {what}, but got {strides[-1]}")
            if new_size > old_size:
                for d, st in enumerate(strides[:-1]):
                    if st % ratio:
                        raise RuntimeError(f"self.stride({d}) must be divisible by {ratio} {what}, but got {st}")
            if x.strides[-1] != old_size:  # a last dim of size 0 or 1, whose numpy stride may be anything
                x = strided(x, strides=x.strides[:-1] + (old_size,), writeable=x.flags.writeable)
        x = x.view(new_np)
    t = _new(Tensor)
    t._data = x
    t._vc = version_counter(input)
    return t


@op(variants="function method", batch=rules.reshape)
def reshape(input: Tensor, *shape) -> Tensor:
    """New shape; a view when the strides allow, else a copy."""
    x = input._data
    shape = _infer_shape(_shape_arg(shape, "reshape", "shape"), x.size, x.shape)
    # PyTorch: a view of a contiguous tensor is ViewBackward0 (even when nothing changes), a view of
    # a strided one ReshapeAliasBackward0, and a copy UnsafeViewBackward0
    view_cls = ViewBackward0 if x.flags.c_contiguous else ReshapeAliasBackward0
    if shape == x.shape:
        out = x.view()
    else:
        out = x.reshape(shape)
        if out.base is None or (out.base is not x and out.base is not x.base):  # a copy
            if _State.enabled and input._requires_grad:  # PyTorch records it: UnsafeViewBackward0 <- CloneBackward0
                copied = record(x.copy(), CloneBackward0, (input,))  # (C-ordered; a meta array's stays data-less)
                return record(out, UnsafeViewBackward0, (copied,), in_shape=x.shape)
            return _make(out)
    if _State.enabled and input._requires_grad:
        if view_cls is ReshapeAliasBackward0 and _State.fw_jvp and _tangent_of(input) is not None:
            view_cls = ViewBackward0  # functorch's wrapper is "subclass-like": PyTorch's reshape calls view on it
        return record(out, view_cls, (input,), view_of=input, in_shape=x.shape)
    return _view_of(input, out)


@op(variants="method", batch=rules.reshape_as)
def view_as(input: Tensor, other: Tensor) -> Tensor:
    return view(input, other.shape)


@op(variants="method", batch=rules.reshape_as)
def reshape_as(input: Tensor, other: Tensor) -> Tensor:
    return reshape(input, other.shape)


@op(variants="function method", batch=rules.flatten)
def flatten(input: Tensor, start_dim: int = 0, end_dim: int = -1) -> Tensor:
    """Merge dims ``start_dim..end_dim`` into one."""
    x = input._data
    if x.ndim == 0:
        return reshape(input, 1)
    s, e = _wrap_dim(start_dim, x.ndim), _wrap_dim(end_dim, x.ndim)
    if s > e:
        raise RuntimeError("flatten() has invalid args: start_dim cannot come after end_dim")
    if s == e:
        return input
    n = 1
    for d in x.shape[s:e + 1]:
        n *= d
    return reshape(input, x.shape[:s] + (n,) + x.shape[e + 1:])


@op(variants="function method", batch=rules.unflatten, python_method=True)
def unflatten(input: Tensor, dim: int, sizes) -> Tensor:
    x = input._data
    d = _wrap_dim(dim, x.ndim)
    return reshape(input, x.shape[:d] + tuple(sizes) + x.shape[d + 1:])


_SIZES = ("self_sym_sizes", lambda n: tuple(n.in_shape))


class SqueezeBackward0(Node):
    saved_fields = (("self_sym_sizes", lambda n: tuple(n.in_shape)),)

    def backward(self, g):
        # PyTorch's unsqueeze_to: each size-1 dim the squeeze removed, put back by an unsqueeze (in order)
        for d in self.axes:
            g = g.unsqueeze(d)
        return (g,)

    def jvp(self, t):
        # PyTorch's formula (auto_linear): the same squeeze of the tangent, its node named as this one (an in-place
        # squeeze_'s too)
        if tuple(t.shape) != tuple(self.in_shape):
            return t.reshape(_out_shape(self))
        out = squeeze(t, self.dim_arg)
        if out.grad_fn is not None:
            out.grad_fn.__class__ = type(self)
        return out


class _UnsqueezeNode(SqueezeBackward0):
    def backward(self, g):
        return (g.squeeze(self.dim_arg),)  # PyTorch's grad.squeeze(dim)

    def jvp(self, t):
        return t.reshape(_out_shape(self))


# 0: every size-1 dim, 1: one dim, 2: a list of dims; 3, 4, 5: the same in place (squeeze_)
_DIM = ("dim", lambda n: u64(n.__dict__.get("dim_arg")))  # the dim (or dims) as given
_SQUEEZE_FIELDS = {"SqueezeBackward1": (_DIM, _SIZES), "SqueezeBackward2": (_DIM, _SIZES),
                   "SqueezeBackward3": (_SIZES,),
                   "SqueezeBackward4": (_DIM, _SIZES), "SqueezeBackward5": (_DIM, _SIZES),
                   "UnsqueezeBackward0": (_DIM,), "UnsqueezeBackward1": (_DIM,)}
SqueezeBackward1, SqueezeBackward2, SqueezeBackward3, SqueezeBackward4, SqueezeBackward5, UnsqueezeBackward0, \
    UnsqueezeBackward1 = (type(n, (_UnsqueezeNode if n.startswith("Un") else SqueezeBackward0,),
                               {"saved_fields": _SQUEEZE_FIELDS[n]}) for n in (
        "SqueezeBackward1", "SqueezeBackward2", "SqueezeBackward3", "SqueezeBackward4", "SqueezeBackward5",
        "UnsqueezeBackward0", "UnsqueezeBackward1"))


def _inplace_view(self: Tensor, view_op, node_cls, *args) -> Tensor:
    """``self`` becomes ``view_op(self, *args)`` in place (squeeze_, t_, ...): it keeps its storage
    and version counter (bumped, as PyTorch does), and its history becomes the view's node, named as
    PyTorch names the in-place form (``node_cls``, a subclass of the view's node)."""
    check_inference_inplace(self)
    if _State.enabled:
        _views.check_inplace(self, self._requires_grad)
    res = view_op(self, *args)
    self._data = res._data
    version_counter(self)[0] += 1
    fn = res.grad_fn
    if fn is not None:
        fn.__class__ = node_cls  # same backward, PyTorch's name for the in-place form
        self.grad_fn, self._output_nr = fn, 0
    # the bumped version makes PyTorch regenerate the storage's other views (and forbid the
    # split/unbind ones) when they are next used
    _views.refresh(self._vc)
    if fn is not None and self._base is not None:
        self.grad_fn, self._output_nr = fn, 0  # its own history is the view op's node
    return self


def squeeze_(self: Tensor, dim=None) -> Tensor:
    cls = SqueezeBackward3 if dim is None else SqueezeBackward5 if isinstance(dim, (tuple, list)) else \
        SqueezeBackward4
    return _inplace_view(self, squeeze, cls, dim)


def _squeeze_inverse(call, base, value, src, dims=None):
    """A write into ``base.squeeze(dims)``: the dims it dropped (those of size 1 among ``dims``) put back."""
    dims = range(value.dim()) if dims is None else [dims] if isinstance(dims, int) else dims
    for d in sorted({d % value.dim() for d in dims}) if value.dim() else []:
        if value.shape[d] == 1:
            src = call("unsqueeze.default", src, d)
    return src


@op(variants="function method inplace", inplace=squeeze_, batch=rules.squeeze, view_inverse=_squeeze_inverse)
def squeeze(input: Tensor, dim=None) -> Tensor:
    """Drop size-1 dims (only ``dim`` when given; other sizes are left alone, as PyTorch)."""
    x = input._data
    if dim is None:
        axes = tuple(i for i, s in enumerate(x.shape) if s == 1)
        cls = SqueezeBackward0
    else:
        listed = isinstance(dim, (tuple, list))
        dims = dim if listed else (dim,)
        axes = tuple(d for d in (_wrap_dim(d, x.ndim) for d in dims) if x.ndim and x.shape[d] == 1)
        cls = SqueezeBackward2 if listed else SqueezeBackward1
    out = x.squeeze(axes) if axes else x.view()
    if _State.enabled and input._requires_grad:
        return record(out, cls, (input,), view_of=input, in_shape=x.shape, dim_arg=dim, axes=sorted(set(axes)))
    return _view_of(input, out)


def unsqueeze_(self: Tensor, dim: int) -> Tensor:
    return _inplace_view(self, unsqueeze, UnsqueezeBackward1, dim)


def unsqueezed(x: np.ndarray, d: int) -> np.ndarray:
    """``x`` with a size-1 dim inserted at ``d`` (in range): a view with PyTorch's strides."""
    # np.expand_dims's reshape (a view), without its Python layers
    y = x.reshape(x.shape[:d] + (1,) + x.shape[d:])
    # PyTorch keeps every stride and gives the new dim the next dim's extent (size * stride), 1 at the
    # end; numpy's reshape may pick others for size-1 dims
    xs = x.strides
    if not x.size and type(x) is not MetaArray:  # an empty array's strides as its tensor reports them
        xs = tuple(s * x.itemsize for s in elem_strides(x.shape, xs, x.itemsize))
    strides = xs[:d] + ((xs[d] * x.shape[d]) if d < x.ndim else x.itemsize,) + xs[d:]
    if y.strides != strides:
        y = strided(y, strides=strides, writeable=y.flags.writeable)
    return y


def _unsqueeze_inverse(call, base, value, src, dim):
    """A write into ``base.unsqueeze(dim)``: the new dim squeezed away again."""
    return call("squeeze.dims", src, [dim])


@op(variants="function method inplace", inplace=unsqueeze_, batch=rules.unsqueeze, view_inverse=_unsqueeze_inverse)
def unsqueeze(input: Tensor, dim: int) -> Tensor:
    """Insert a size-1 dim at ``dim``."""
    x = input._data
    y = unsqueezed(x, _wrap_dim(dim, x.ndim + 1))
    if _State.enabled and input._requires_grad:
        return record(y, UnsqueezeBackward0, (input,), view_of=input, in_shape=x.shape, dim_arg=dim)
    return _view_of(input, y)


class PermuteBackward0(Node):
    saved_fields = (("dims", lambda n: u64(n.dims_arg)),)

    def backward(self, g):
        return (g.permute(self.inverse),)

    def jvp(self, t):
        return t.permute(tuple(int(i) for i in np.argsort(self.inverse)))


def _permute_inverse(call, base, value, src, dims):
    """A write into ``base.permute(dims)``: permuted back by the inverse permutation (the view's dim ``i`` was the
    base's ``dims[i]``, so the base's ``dims[i]`` is the view's ``i``: ``argsort``)."""
    return call("permute.default", src, [int(i) for i in np.argsort([d % max(value.dim(), 1) for d in dims])])


@op(variants="function method", batch=rules.permute, view_inverse=_permute_inverse)
def permute(input: Tensor, *dims) -> Tensor:
    """Reorder dims (a view)."""
    x = input._data
    given = _shape_arg(dims, "permute", "dims")
    # PyTorch's order of checks: the count, then each dim's range, then repeats
    if len(given) != x.ndim:
        raise RuntimeError(f"permute(sparse_coo): number of dimensions in the tensor input does not match the "
                           f"length of the desired ordering of dimensions i.e. input.dim() = {x.ndim} is not "
                           f"equal to len(dims) = {len(given)}")
    dims = tuple(_wrap_dim(d, x.ndim) for d in given)
    if len(set(dims)) != len(dims):
        raise RuntimeError("permute(): duplicate dims are not allowed.")
    inverse = [0] * len(dims)  # in Python: np.argsort of a few ints costs several microseconds
    for i, d in enumerate(dims):
        inverse[d] = i
    out = x.transpose(dims)
    if _State.enabled and input._requires_grad:
        return record(out, PermuteBackward0, (input,), view_of=input, inverse=tuple(inverse), dims_arg=given)
    return _view_of(input, out)


class TransposeBackward0(Node):
    saved_fields = (("dim0", lambda n: u64(n.__dict__.get("dims_arg", (n.d0, n.d1))[0])),
                    ("dim1", lambda n: u64(n.__dict__.get("dims_arg", (n.d0, n.d1))[1])))

    def backward(self, g):
        return (g.transpose(self.d0, self.d1),)

    def jvp(self, t):
        return t.transpose(self.d0, self.d1)


class TransposeBackward1(TransposeBackward0):
    """transpose_ (and swapaxes_, swapdims_)."""


class TBackward0(Node):
    def backward(self, g):
        return (g.t(),)

    def jvp(self, t):
        return None if t is None else t.t()


class TBackward1(TBackward0):
    """t_."""


def transpose_(self: Tensor, dim0: int, dim1: int) -> Tensor:
    return _inplace_view(self, transpose, TransposeBackward1, dim0, dim1)


@op(variants="function method inplace", inplace=transpose_, aliases=("swapaxes", "swapdims"), batch=rules.transpose)
def transpose(input: Tensor, dim0: int, dim1: int) -> Tensor:
    """Swap two dims (a view)."""
    x = input._data
    n = x.ndim
    if n == 0:
        _wrap_dim(dim0, 0), _wrap_dim(dim1, 0)
        d0 = d1 = 0
        out = x.view()
    else:
        d0, d1 = _wrap_dim(dim0, n), _wrap_dim(dim1, n)
        out = x.swapaxes(d0, d1)
    if _State.enabled and input._requires_grad:
        return record(out, TransposeBackward0, (input,), view_of=input, d0=d0, d1=d1, dims_arg=(dim0, dim1))
    return _view_of(input, out)


def t_(self: Tensor) -> Tensor:
    return _inplace_view(self, t, TBackward1)


@op(variants="function method inplace", inplace=t_, batch=rules.t)
def t(input: Tensor) -> Tensor:
    """Transpose a matrix (0-d and 1-d tensors come back as they are)."""
    x = input._data
    if x.ndim > 2:
        raise RuntimeError(f"t() expects a tensor with <= 2 dimensions, but self is {x.ndim}D")
    if _State.enabled and input._requires_grad:
        return record(x.T, TBackward0, (input,), view_of=input)
    return _view_of(input, x.T)


def T(input: Tensor) -> Tensor:
    # PyTorch records ``.T`` as a permute at every rank, matrices included
    return permute(input, tuple(range(input.dim() - 1, -1, -1)))


def mT(input: Tensor) -> Tensor:
    if input.dim() < 2:
        raise RuntimeError(f"tensor.mT is only supported on matrices or batches of matrices. Got "
                           f"{input.dim()}-D tensor.")
    return transpose(input, -2, -1)


# properties, not ops (PyTorch has no torch.T); under vmap they reach permute's and transpose's rules
register_attribute("T", property(T))
register_attribute("mT", property(mT))


class ExpandBackward0(Node):
    saved_fields = (("self_sym_sizes", lambda n: tuple(n.in_shape)),)

    def backward(self, g):
        return (sum_to(g, self.in_shape),)

    def jvp(self, t):
        return t.expand(_out_shape(self))


def _expanded_strides(x, target: tuple, lead: int) -> tuple:
    """PyTorch's strides (in bytes) for ``x`` expanded to ``target`` (``lead`` new dims in front): a dim kept at
    its size keeps its stride (a size-1 dim's too); a grown one gets 0; a new one of size 1 gets the extent
    (size * stride) of the dim after it, as unsqueeze does. A 0-d tensor's dims all get 0."""
    if x.ndim == 0:
        return (0,) * len(target)
    src = elem_strides(x.shape, x.strides, x.itemsize, type(x) is not MetaArray)
    out = [0] * len(target)
    for i in range(len(target) - 1, -1, -1):
        if i >= lead:
            out[i] = src[i - lead] if x.shape[i - lead] == target[i] else 0
        elif target[i] == 1:
            out[i] = target[i + 1] * out[i + 1]
    return tuple(s * x.itemsize for s in out)


@op(variants="method", batch=rules.expand,
    view_inverse="an expanded element is many of the view's: a write into it has no one value to give the base")
def expand(input: Tensor, *size) -> Tensor:
    """Broadcast to ``size`` without copying (-1 keeps a dim)."""
    x = input._data
    sizes = _shape_arg(size, "expand", "size")
    lead = len(sizes) - x.ndim
    if lead < 0:
        raise RuntimeError(f"expand({_dtype.SHOWN_AS[0]}.{input.dtype._legacy}{{[{', '.join(map(str, x.shape))}]}}, "
                           f"size=[{', '.join(map(str, sizes))}]): "
                           f"the number of sizes provided ({len(sizes)}) must be greater or equal to the number of "
                           f"dimensions in the tensor ({x.ndim})")
    target = tuple(x.shape[i - lead] if s == -1 and i >= lead else s for i, s in enumerate(sizes))
    if target == x.shape:
        out = x.view()
        if _State.enabled and input._requires_grad:
            return record(out, ExpandBackward0, (input,), view_of=input, in_shape=x.shape)
        return _view_of(input, out)
    for i in range(len(sizes) - 1, -1, -1):  # PyTorch reports the rightmost bad dim
        if i < lead:
            if sizes[i] < 0:
                raise RuntimeError(f"The expanded size of the tensor ({sizes[i]}) isn't allowed in a leading, "
                                   f"non-existing dimension {i}")
        elif x.shape[i - lead] != 1 and x.shape[i - lead] != target[i]:
            raise RuntimeError(f"The expanded size of the tensor ({target[i]}) must match the existing size "
                               f"({x.shape[i - lead]}) at non-singleton dimension {i}.  Target sizes: "
                               f"[{', '.join(map(str, sizes))}].  Tensor sizes: [{', '.join(map(str, x.shape))}]")
    if x.size and 1 not in target and type(x) is not MetaArray:
        out = np.broadcast_to(x, target)  # numpy's strides are PyTorch's here: no size-1 dim in the result, none empty
    else:
        out = strided(x, target, _expanded_strides(x, target, lead), writeable=False)
    if _State.enabled and input._requires_grad:
        return record(out, ExpandBackward0, (input,), view_of=input, in_shape=x.shape)
    return _view_of(input, out)


class DiagonalBackward0(Node):
    saved_fields = (("dim1", lambda n: u64(n.dims_arg[0])), ("dim2", lambda n: u64(n.dims_arg[1])),
                    ("offset", lambda n: u64(n.offset)), ("self_sym_sizes", lambda n: tuple(n.in_shape)))

    def backward(self, g):
        out = np.zeros_like(g._data, shape=self.in_shape, order="C")  # (a meta g: a meta result)
        diagonal(_make(out), self.offset, self.dim1, self.dim2)._data[...] = g._data
        return (record(out, DiagonalBackwardBackward0, (g,), offset=self.offset, dim1=self.dim1, dim2=self.dim2),)


class DiagonalBackwardBackward0(Node):
    def backward(self, gg):
        return (diagonal(gg, self.offset, self.dim1, self.dim2),)


def _diagonal_inverse(call, base, value, src, *args):
    """A write into ``base.diagonal(*args)``: ``diagonal_scatter`` puts the new diagonal into the base."""
    return call("diagonal_scatter.default", base, src, *args)


@op(variants="function method", batch=rules.diagonal, view_inverse=_diagonal_inverse)
def diagonal(input: Tensor, offset: int = 0, dim1: int = 0, dim2: int = 1) -> Tensor:
    """The diagonal of the (dim1, dim2) planes, as a view; its dim comes last."""
    x = input._data
    d1, d2 = _wrap_dim(dim1, x.ndim), _wrap_dim(dim2, x.ndim)
    if d1 == d2:
        raise RuntimeError(f"diagonal dimensions cannot be identical {dim1}, {dim2}")
    if offset >= 0:
        length = max(0, min(x.shape[d1], x.shape[d2] - offset))
        start = x[(slice(None),) * d2 + (slice(min(offset, x.shape[d2]), None),)]
    else:
        length = max(0, min(x.shape[d1] + offset, x.shape[d2]))
        start = x[(slice(None),) * d1 + (slice(min(-offset, x.shape[d1]), None),)]
    keep = [i for i in range(x.ndim) if i not in (d1, d2)]
    shape = tuple(x.shape[i] for i in keep) + (length,)
    strides = tuple(x.strides[i] for i in keep) + (x.strides[d1] + x.strides[d2],)
    out = strided(start, shape, strides, writeable=x.flags.writeable)
    return record(out, DiagonalBackward0, (input,), view_of=input, in_shape=x.shape, offset=offset, dim1=d1, dim2=d2,
                  dims_arg=(dim1, dim2))


class RepeatBackward0(Node):
    saved_fields = (("repeats", lambda n: u64(n.sizes)), ("self_sym_sizes", lambda n: tuple(n.in_shape)))

    def backward(self, g):
        # each repeated dim splits into (copies, size); summing the copies undoes the tiling
        split = tuple(v for n, s in zip(self.sizes, self.lifted) for v in (n, s))
        copies = tuple(range(0, len(split), 2))
        return (g.reshape(split).sum(copies).reshape(self.in_shape),)

    def jvp(self, t):
        return t.repeat(self.sizes)


@op(variants="method", batch=rules.repeat)
def repeat(input: Tensor, *repeats) -> Tensor:
    """Tile the tensor ``repeats[i]`` times along each dim (new leading dims when there are more of them)."""
    x = input._data
    sizes = _shape_arg(repeats, "repeat", "repeats")
    if len(sizes) < x.ndim:
        raise RuntimeError("Number of dimensions of repeat dims can not be smaller than number of dimensions of tensor")
    lifted = (1,) * (len(sizes) - x.ndim) + x.shape
    return record(np.tile(x.reshape(lifted), sizes), RepeatBackward0, (input,), sizes=sizes, lifted=lifted,
                  in_shape=x.shape)


@op(variants="method", batch=rules.expand_as)
def expand_as(input: Tensor, other: Tensor) -> Tensor:
    return expand(input, other._data.shape)


@op(variants="function method", batch=rules.expand)
def broadcast_to(input: Tensor, size) -> Tensor:
    return expand(input, tuple(size))
