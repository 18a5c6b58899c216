"""Views addressed by strides: ``as_strided`` (any size/stride/offset into the storage) and
``Tensor.unfold`` (sliding windows along one dimension).

Both are numpy ``as_strided`` views of the input's storage. Their gradient needs no formula of its
own: each output element is some input element, so the node keeps, for every output element, the
flat index of the input element it reads, and backward adds the gradient back at those indices
(``index_zeros_put``, a tinytorch op, so double backward works). Windows that overlap read an input
element several times, and the adds accumulate, as PyTorch's UnfoldBackward0 does."""
from __future__ import annotations

import numpy as np

from ... import storage as storage_mod
from ...autograd.grad_mode import _State, check_inference_inplace, version_counter
from ...autograd.node import Node, u64
from ...tensor import Tensor, _wrap_dim
from . import views as _views
from ..._dtype import cpp_name
from .._core.record import inplace_node, legacy_name, record
from .._core.registry import op
from ._adjoint import index_zeros_put
from .._core.record import NotImplementedBackward
from .._core.util import strided as _strided
from ..._meta_array import MetaArray


class _ReadsPositions(Node):
    """Output element k reads input element ``pos[k]`` (flat, C order; ``numel`` for a storage element
    outside the input, whose gradient is dropped); elements read by no output element get zero, those
    read twice get both gradients."""

    def backward(self, g):
        if type(self) is AsStridedBackward0 and self.pos.size == 0:
            # an empty view reads nothing: PyTorch's formula returns fresh zeros, outside the graph
            return (g.new_zeros(self.shape),)
        flat = index_zeros_put((self.numel + 1,), (self.pos.reshape(-1),), g.reshape(-1), True)
        return (flat[:self.numel].reshape(self.shape),)


class AsStridedBackward0(_ReadsPositions):
    saved_fields = (("size", "size_arg"), ("storage_offset", "offset_arg"), ("stride", "stride_arg"))
    pass


class UnfoldBackward0(_ReadsPositions):
    saved_fields = (("dimension", lambda n: u64(n.dimension_arg)), ("self_sym_sizes", lambda n: tuple(n.shape)),
                    ("size", lambda n: u64(n.size_arg)), ("step", lambda n: u64(n.step_arg)))
    pass


def _positions(input: Tensor, pos: np.ndarray) -> dict:
    """What a ``_ReadsPositions`` node knows of the view: the input element each element reads."""
    return {"pos": pos, "numel": int(input._data.size), "shape": input._data.shape}


def _storage(input: Tensor):
    """(flat storage array, input's offset into it, input's strides in elements). The storage is the
    root base's array when that is C-contiguous (a view then shares it); otherwise the input's own
    elements, copied in C order."""
    root = input if input._base is None else input._base
    data = root._data
    home = root.__dict__.get("_set_storage")  # the storage Tensor.set_ pointed it at
    if home is not None and home.dtype == input._data.dtype and storage_mod._inside(input._data, home):
        data = home
    if data.flags.c_contiguous and data.size:
        item = data.itemsize
        off = (_views.address(input._data) - _views.address(data)) // item
        return data.reshape(-1), off, tuple(s // item for s in input._data.strides)
    flat = np.ascontiguousarray(input._data).reshape(-1)
    return flat, 0, _contiguous_strides(input._data.shape)


def _contiguous_strides(shape) -> tuple:
    out, acc = [], 1
    for n in reversed(tuple(shape)):
        out.append(acc)
        acc *= max(int(n), 1)
    return tuple(reversed(out))


def _offsets(shape: tuple, strides: tuple, start: int) -> np.ndarray:
    out = np.full(shape, start, dtype=np.intp)
    for d, (n, s) in enumerate(zip(shape, strides)):
        if n > 1 and s:
            out = out + (np.arange(n, dtype=np.intp) * s).reshape((n,) + (1,) * (len(shape) - d - 1))
    return out


def _strided_view(input: Tensor, size, stride, storage_offset):
    size, stride = tuple(int(s) for s in size), tuple(int(s) for s in stride)
    if len(size) != len(stride):
        raise RuntimeError("mismatch in length of strides and shape")
    if any(s < 0 for s in stride):
        raise RuntimeError("as_strided: Negative strides are not supported at the moment, got strides: "
                           f"[{', '.join(map(str, stride))}]")
    storage, own_off, own_strides = _storage(input)
    off = own_off if storage_offset is None else int(storage_offset)
    if off < 0:
        raise RuntimeError(f"Tensor: invalid storage offset {off}")
    need = 0 if 0 in size else off + 1 + sum((n - 1) * s for n, s in zip(size, stride))
    if need > storage.size:
        item = storage.itemsize
        raise RuntimeError(f"setStorage: sizes [{', '.join(map(str, size))}], strides [{', '.join(map(str, stride))}],"
                           f" storage offset {off}, and itemsize {item} requiring a storage size of {need * item} are "
                           f"out of bounds for storage of size {storage.size * item}")
    base = storage[off:] if off < storage.size else storage[:0]
    out = _strided(base, size, tuple(s * storage.itemsize for s in stride), writeable=True) if need else \
        np.empty(size, dtype=storage.dtype)
    if type(storage) is MetaArray:  # a meta tensor: which element each reads is no shape, and nothing is read
        return out, MetaArray(size, np.intp)
    # each output element's storage position, mapped to the input element stored there (numel: none)
    where = _offsets(tuple(input._data.shape), own_strides, own_off).reshape(-1)
    inverse = np.full(storage.size, where.size, dtype=np.intp)
    inverse[where] = np.arange(where.size, dtype=np.intp)
    pos = inverse[_offsets(size, stride, off)] if need else np.zeros(size, dtype=np.intp)
    return out, pos


def as_strided_(self: Tensor, size, stride, storage_offset: int | None = None) -> Tensor:
    """``self`` re-pointed at the given geometry of its storage (its history is not changed)."""
    self._data, _ = _strided_view(self, size, stride, storage_offset)
    return self


def _as_strided_inverse(call, base, value, src, *args):
    """A write into ``base.as_strided(size, stride, offset)``: ``as_strided_scatter`` puts it into the base."""
    return call("as_strided_scatter.default", base, src, *args)


@op(variants="function method inplace torch_inplace", inplace=as_strided_, view_inverse=_as_strided_inverse)
def as_strided(input: Tensor, size, stride, storage_offset: int | None = None) -> Tensor:
    """A view of the input's storage with the given sizes, strides (in elements) and offset."""
    out, pos = _strided_view(input, size, stride, storage_offset)
    # the arguments as given: PyTorch's saved values show them
    return record(out, AsStridedBackward0, (input,), view_of=input, **_positions(input, pos),
                  size_arg=tuple(int(s) for s in size), stride_arg=tuple(int(s) for s in stride),
                  offset_arg=storage_offset)


@op("unfold", variants="method")
def unfold(input: Tensor, dimension: int, size: int, step: int) -> Tensor:
    """Every window of ``size`` elements along ``dimension``, ``step`` apart, as a new last dimension."""
    x = input._data
    nd = x.ndim
    d = _wrap_dim(dimension, max(nd, 1))
    length = x.shape[d] if nd else 1
    if size > length:
        raise RuntimeError(f"maximum size for tensor at dimension {d} is {length} but size is {size}")
    if step <= 0:
        raise RuntimeError(f"step is {step} but must be > 0")
    if size < 0:
        raise RuntimeError(f"size is {size} but must be >= 0")
    count = (length - size) // step + 1
    if nd == 0:
        pos = np.zeros(1, dtype=np.intp)
        return record(_strided(x, (1,), (x.itemsize,), writeable=True), UnfoldBackward0, (input,), view_of=input,
                      **_positions(input, pos), dimension_arg=dimension, size_arg=size, step_arg=step)
    shape = x.shape[:d] + (count,) + x.shape[d + 1:] + (size,)
    strides = x.strides[:d] + (x.strides[d] * step,) + x.strides[d + 1:] + (x.strides[d],)
    out = _strided(x, shape, strides, writeable=True)
    if type(x) is MetaArray:  # a meta tensor: the windows' shape only
        return record(out, UnfoldBackward0, (input,), view_of=input, pos=MetaArray(shape, np.intp),
                      numel=x.size, shape=x.shape, dimension_arg=dimension, size_arg=size, step_arg=step)
    idx = np.arange(x.size, dtype=np.intp).reshape(x.shape)
    pos = _strided(idx, shape, idx.strides[:d] + (idx.strides[d] * step,) + idx.strides[d + 1:] + (idx.strides[d],))
    return record(out, UnfoldBackward0, (input,), view_of=input, **_positions(input, pos), dimension_arg=dimension,
                  size_arg=size, step_arg=step)


@op("resize_", variants="method", no_batch="it changes its argument's shape in place", meta="resizes")
def resize_(self: Tensor, *sizes, memory_format=None) -> Tensor:
    """``self`` given the shape ``sizes`` in place: its elements in order, the first ones kept, new ones
    uninitialised (zero here)."""
    shape = tuple(int(s) for s in (sizes[0] if len(sizes) == 1 and isinstance(sizes[0], (tuple, list)) else sizes))
    if any(s < 0 for s in shape):
        raise RuntimeError(f"Trying to create tensor with negative dimension {min(shape)}: "
                           f"[{', '.join(map(str, shape))}]")
    if self._requires_grad:
        raise RuntimeError("cannot resize variables that require grad")
    n = int(np.prod(shape, dtype=np.int64))
    flat = self._data.reshape(-1)
    if type(flat) is MetaArray:  # a meta tensor: its new shape, contiguous, nothing kept
        data = MetaArray(shape, flat.dtype)
    elif n <= flat.size:
        data = np.ascontiguousarray(flat[:n]).reshape(shape)
    else:
        data = np.concatenate([flat, np.zeros(n - flat.size, dtype=flat.dtype)]).reshape(shape)
    self._data = data
    version_counter(self)[0] += 1
    return self


@op("resize_as_", variants="function method", no_batch="it changes its argument's shape in place", meta="resizes")
def resize_as_(input: Tensor, the_template: Tensor, *, memory_format=None) -> Tensor:
    """``input`` resized in place to ``the_template``'s shape."""
    return resize_(input, tuple(the_template.shape))


# -- set_: point a tensor at another storage ----------------------------------------------------------
_SET_SIGNATURES = ("()", "(torch.Storage source)",
                   "(torch.Storage source, int storage_offset, tuple of ints size, tuple of ints stride = None)",
                   "(Tensor source)",
                   "(Tensor source, int storage_offset, tuple of ints size, tuple of ints stride = None)")


def _set_signature_error(args: tuple) -> TypeError:
    """PyTorch's text for arguments no set_ overload takes (one argument of a wrong type: each
    one-argument overload says why it did not match)."""
    got = ", ".join("Tensor" if isinstance(a, Tensor) else type(a).__name__ for a in args)
    lines = []
    for sig in _SET_SIGNATURES:
        lines.append(f" * {sig}")
        if len(args) == 1 and "," not in sig:
            lines.append(f"      didn't match because some of the arguments have invalid types: (!{got}!)")
    return TypeError(f"set_() received an invalid combination of arguments - got ({got}), but expected one of:\n"
                     + "\n".join(lines) + "\n")


def _storage_elements(self: Tensor, source) -> np.ndarray:
    """The storage's memory as a flat array of ``self``'s dtype (an UntypedStorage's bytes are
    reinterpreted; a TypedStorage must hold ``self``'s dtype)."""
    dt = self._data.dtype
    if isinstance(source, storage_mod.TypedStorage):
        if source._array.dtype != dt:
            raise RuntimeError(f"Expected a Storage of type {cpp_name(dt)} or an UntypedStorage, but got type "
                               f"{legacy_name(source._array.dtype)} for argument 1 'storage'")
        return source._array
    raw = source._bytes
    return raw[:raw.size - raw.size % dt.itemsize].view(dt)


def _strided_into(home: np.ndarray, offset, size, stride) -> np.ndarray:
    """``size``/``stride`` elements of ``home`` from ``offset`` on, sharing its memory."""
    offset = int(offset)
    shape = tuple(int(n) for n in size)
    strides = tuple(int(n) for n in stride) if stride is not None else None
    if offset < 0:
        raise RuntimeError(f"Tensor: invalid storage offset {offset}")
    if strides is None or not strides and shape:
        strides = tuple(int(np.prod(shape[i + 1:], dtype=np.int64)) for i in range(len(shape)))
    if len(strides) != len(shape):
        raise RuntimeError(f"unequal size length ({len(shape)}) and stride length ({len(strides)})")
    if any(n < 0 for n in shape):
        raise RuntimeError(f"Trying to create tensor with negative dimension {min(shape)}: "
                           f"[{', '.join(map(str, shape))}]")
    needed = offset + (1 + sum((n - 1) * st for n, st in zip(shape, strides)) if all(shape) else 0)
    if needed > home.size:
        # PyTorch would grow the storage; memory tinytorch's arrays share cannot grow
        raise RuntimeError("Trying to resize storage that is not resizable")
    if not all(shape):
        return np.empty(shape, dtype=home.dtype)
    return _strided(home[offset:], shape, tuple(st * home.itemsize for st in strides), writeable=True)


@op("set_", variants="method", no_batch="it points its argument at another storage")
def set_(self: Tensor, source=None, storage_offset=None, size=None, stride=None) -> Tensor:
    """``self`` pointed at ``source``'s memory: a tensor's (its elements, shape and strides), a storage
    (all of it, or ``size``/``stride`` from ``storage_offset``), or a new empty storage. Writes
    through either are seen by both; ``self`` keeps its identity and version counter."""
    given = tuple(a for a in (source, storage_offset, size, stride) if a is not None)
    is_storage = isinstance(source, (storage_mod.UntypedStorage, storage_mod.TypedStorage))
    if source is not None and not (isinstance(source, Tensor) or is_storage):
        raise _set_signature_error(given)
    if storage_offset is None and (size is not None or stride is not None) or \
            storage_offset is not None and size is None:
        raise _set_signature_error(given)
    dt = self._data.dtype
    if isinstance(source, Tensor) and source._data.dtype != dt:
        raise RuntimeError(f"Could not set tensor of type {cpp_name(source._data.dtype)} to a tensor of type "
                           f"{cpp_name(dt)}")
    check_inference_inplace(self)
    recording = _State.enabled and (self._requires_grad or isinstance(source, Tensor) and source._requires_grad)
    if recording:
        _views.check_inplace(self, True)
    if source is None:
        data, home = np.empty((0,), dtype=dt), None
    elif storage_offset is None and isinstance(source, Tensor):
        data = source._data
        flat, copied = storage_mod._root_array(source)
        home = None if copied else flat
    else:
        flat = storage_mod._root_array(source)[0] if isinstance(source, Tensor) else None
        home = flat if flat is not None else _storage_elements(self, source)
        if storage_offset is None:
            data = home
        else:
            data = _strided_into(home, storage_offset, size, stride)
    if self._base is not None:
        # no longer a view of its base's memory: a counter and a history of its own
        self._base = None
        self._vc = [self._vc[0]]
    self._data = data
    self.__dict__["_set_storage"] = home  # what untyped_storage()/storage_offset() now report
    version_counter(self)[0] += 1
    if recording:
        fn = inplace_node(NotImplementedBackward, (self, source if isinstance(source, Tensor) else None), op="set_")
        self.grad_fn, self._output_nr, self._requires_grad = fn, 0, True
    return self
