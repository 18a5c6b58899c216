"""``MetaArray``: what a meta tensor holds in place of a numpy array. A shape, a dtype and strides, and no buffer.

The ops run their numpy code on it unchanged. numpy hands these arrays to ``__array_ufunc__`` and
``__array_function__``, and both work out the result's shape and dtype without computing anything:

- a ufunc takes the broadcast shape, PyTorch's layout for a new result (``_ufunc_order``: TensorIterator's
  order, the same CPU result's), and its dtype from the same ufunc run on one-element stand-ins of the
  operands' dtypes;
- a reduction or ``matmul`` takes its shape from numpy's rules;
- reshapes, transposes and basic indexing are views. Their strides are computed as numpy computes them.

A ``MetaArray`` of 10**13 elements costs a few hundred bytes. It stands for an array whose elements all hold
one value (``value``: zero for a meta tensor's own array), so the op's numpy code can read values too: every
result is worked out on one-element stand-ins holding those values, which gives its dtype and its own value at
once (``exp`` of a meta array holds one, a comparison ``True``). A branch on values (``if np.isfinite(x).all()``,
``float(x)`` of one element) then takes the path it takes on such an array, a check of values passes as on
zeros, and what numpy function ``MetaArray`` does not implement reads ``__array__``: the value broadcast to its
shape with zero strides, one element in memory (that function's own result is still allocated: the ops' tests
on huge meta tensors find them). numpy.linalg's and numpy.fft's functions are the exception: their results'
shapes are worked out from small stand-ins (``_linalg``, ``_fft``). (``np.asarray`` of a meta array reads it too:
the ops' numpy code takes ``_ops/_core/util.py``'s ``as_array`` instead.) A boolean mask of its own selects all
the elements it covers or none, as on such an array. An attribute it lacks, or a read of a value that could size a
result (``int``, an index, ``tolist``, a real array's mask), raises ``NeedsData``. The meta op wrapper
(``_meta.py``) catches that and runs the op once more on zeros of its meta inputs. A graph tracer would build its
fake tensors on the same class. Numpy only: every layer can use it."""
from __future__ import annotations

import inspect
import math
import operator

import numpy as np
from numpy.lib.mixins import NDArrayOperatorsMixin


class NeedsData(Exception):
    """An op read a value of a meta tensor, or used an array feature ``MetaArray`` lacks."""


def c_strides(shape, itemsize: int) -> tuple:
    strides, step = [], itemsize
    for n in reversed(shape):
        strides.append(step)
        step *= max(n, 1)
    return tuple(reversed(strides))


class _Flags:
    __slots__ = ("c_contiguous", "f_contiguous")
    writeable = aligned = owndata = True

    def __init__(self, a: "MetaArray") -> None:
        self.c_contiguous = _contiguous(a.shape, a.strides, a.itemsize, reversed)
        self.f_contiguous = _contiguous(a.shape, a.strides, a.itemsize, iter)

    contiguous = property(lambda self: self.c_contiguous)

    def __getitem__(self, key: str) -> bool:
        return {"C_CONTIGUOUS": self.c_contiguous, "F_CONTIGUOUS": self.f_contiguous, "WRITEABLE": True,
                "OWNDATA": True, "ALIGNED": True}[key]


def _contiguous(shape, strides, itemsize, order) -> bool:
    if 0 in shape:
        return True
    step = itemsize
    for n, s in order(list(zip(shape, strides))):
        if n != 1 and s != step:
            return False
        step *= n
    return True


def _stand_in(x):
    """A one-element array of ``x``'s dtype and rank holding its value (a real array's: its first element, or
    zero when it has none) for numpy to resolve a dtype and a value on, or ``x`` itself when it is a number or a
    0-d array (whose value numpy 1.x's value-based casting reads)."""
    if type(x) is MetaArray:
        return np.full((1,) * x.ndim, x.value, x.dtype)
    if isinstance(x, np.ndarray) and x.ndim:
        return x[(slice(0, 1),) * x.ndim] if x.size else np.zeros((1,) * x.ndim, x.dtype)
    return x


def _read_through(a) -> bool:
    """Whether ``a`` is laid out as a ``MetaArray``'s value given to numpy (``__array__``: one element, zero
    strides), handed back by numpy code that took it for a fresh array (``np.asarray`` of a result): its
    layout is then a new array's."""
    return type(a) is np.ndarray and a.size > 1 and all(s == 0 or n == 1 for n, s in zip(a.shape, a.strides))


def _c_ordered(shape, strides) -> bool:
    """numpy's C_CONTIGUOUS flag of element ``strides`` (size-1 dims aside)."""
    return _contiguous(shape, strides, 1, reversed)


def _dense(shape, order) -> tuple:
    """Dense element strides with the dims in ``order`` (innermost first), each past the ones before."""
    out, step = [0] * len(shape), 1
    for d in order:
        out[d] = step
        step *= shape[d]
    return tuple(out)


def iterator_dim_order(shape, operands) -> list:
    """The dims of ``shape``, fastest first, as PyTorch's TensorIterator orders them (``reorder_dimensions``);
    ``operands``: each operand's strides (any unit, 0 where broadcast), in TensorIterator's operand order,
    allocated outputs left out. An insertion sort, fastest dim first, starting from the reversed dims; a pair of
    dims is ordered by the first operand whose strides there are both non-zero: the smaller stride goes first,
    and for equal strides the smaller dim; an operand with a zero stride at either dim tells nothing."""
    def should_swap(d0: int, d1: int) -> int:
        for st in operands:
            s0, s1 = st[d0], st[d1]
            if s0 == 0 or s1 == 0:
                continue
            if s0 != s1:
                return -1 if s0 < s1 else 1
            if shape[d0] > shape[d1]:
                return 1
        return 0

    perm = list(range(len(shape) - 1, -1, -1))
    for i in range(1, len(perm)):
        d1 = i
        for d0 in range(i - 1, -1, -1):
            c = should_swap(perm[d0], perm[d1])
            if c > 0:
                perm[d0], perm[d1] = perm[d1], perm[d0]
                d1 = d0
            elif c < 0:
                break
    return perm


def _CHANNELS_INNERMOST(pairs: list) -> list:
    """A 4-d tensor's (size, stride) pairs in channels-last order, innermost first (``_contiguous``'s order)."""
    return [pairs[1], pairs[3], pairs[2], pairs[0]]


def _dense_nonoverlapping(shape, strides) -> bool:
    expected = 1
    for _empty, st, n in sorted((n == 0, st, n) for n, st in zip(shape, strides) if n != 1):
        if st != expected:
            return False
        expected *= n
    return True


def iterator_order(shape: tuple, operands, meta: bool = False) -> tuple | None:
    """The element strides PyTorch gives a new elementwise result of ``shape`` over ``operands`` (each ``(shape,
    element strides)``, in the op's operand order; a 0-d one, or a binary op's number as ``((), ())``, counts as
    broadcast everywhere), or None where that is C order for want of anything to order (a result of rank < 2 or
    empty, no operand of rank >= 1).

    On CPU (TensorIterator), operands all of the result's shape first (``compute_fast_setup_type``): all
    contiguous, C order; all channels-last (4-d), channels-last; all dense with one set of strides, those. Else
    the dims ordered by ``iterator_dim_order`` (the first operand that tells decides: ``t + x`` takes ``t``'s
    order, ``x + t`` ``x``'s) and dense in that order. ``meta``: PyTorch's meta kernels' rule
    (``compute_elementwise_output_strides``) over the operands broadcast (numbers and CPU scalars left out by the
    caller), one operand or many: C order where all are contiguous and not all channels-last, channels-last where
    the reverse, else the same sort, a size-1 dim's stride counted as any other's (it places that dim, and so
    gives its dense stride)."""
    nd = len(shape)
    ranked = [op for op in operands if len(op[0])]
    if nd < 2 or not ranked or 0 in shape:
        return None
    strides = [(0,) * (nd - len(sh)) + tuple(0 if n == 1 and shape[nd - len(sh) + i] != 1 else s
                                             for i, (n, s) in enumerate(zip(sh, st))) for sh, st in operands]
    if meta:
        rows = all(_c_ordered(shape, st) for st in strides)
        last = nd == 4 and all(_contiguous(shape, st, 1, _CHANNELS_INNERMOST) for st in strides)
        if rows != last:
            return _dense(shape, range(nd - 1, -1, -1) if rows else (1, 3, 2, 0))
    elif all(tuple(sh) == tuple(shape) for sh, _ in operands):
        if all(_c_ordered(sh, st) for sh, st in operands):
            return _dense(shape, range(nd - 1, -1, -1))
        if nd == 4 and all(_contiguous(sh, st, 1, _CHANNELS_INNERMOST) for sh, st in operands):
            return _dense(shape, (1, 3, 2, 0))
        first = tuple(operands[0][1])
        if all(tuple(st) == first and _dense_nonoverlapping(sh, st) for sh, st in operands):
            return first
    return _dense(shape, iterator_dim_order(shape, strides))


def _ufunc_order(shape: tuple, inputs) -> tuple:
    """The element strides of a new ufunc result of ``shape`` over ``inputs``, as PyTorch's meta kernels lay out the
    same op's result (``iterator_order``'s meta rule; the CPU ops give their numpy results TensorIterator's order
    by the same function: ``tensor_iterator.elementwise_layout``); C order where no input has a dim."""
    ops = [(tuple(x.shape), tuple(st // x.itemsize for st in x.strides)) for x in inputs
           if isinstance(x, (MetaArray, np.ndarray))]
    ordered = iterator_order(shape, ops, meta=True)
    return ordered if ordered is not None else _dense(shape, range(len(shape) - 1, -1, -1))


def _pointwise(shape: tuple, res, inputs) -> "MetaArray":
    """The pointwise result of ``shape`` over ``inputs`` whose stand-in result is ``res``: its dtype and value,
    laid out as numpy lays out the same result (``_ufunc_order``; C order where it holds no element)."""
    dtype = np.asarray(res).dtype
    strides = None
    if len(shape) > 1 and 0 not in shape:
        strides = tuple(s * dtype.itemsize for s in _ufunc_order(tuple(shape), inputs))
    return MetaArray(shape, dtype, strides, value=_one(res))


def _one(res) -> np.ndarray:
    """The 0-d value of a stand-in computation's result (a one-element array, or a scalar)."""
    res = np.asarray(res)
    return res[(0,) * res.ndim].copy() if res.size else np.zeros((), res.dtype)


def _shape_of(x) -> tuple:
    return x.shape if isinstance(x, (MetaArray, np.ndarray)) else np.shape(x)


def _real(x):
    """``x`` with every ``MetaArray`` in it (lists and tuples looked into) as zeros of its shape."""
    if type(x) is MetaArray:
        return x.__array__()
    if type(x) in (list, tuple):
        return type(x)(_real(v) for v in x)
    return x


def _axes(axis, ndim: int) -> tuple:
    if axis is None:
        return tuple(range(ndim))
    axes = axis if isinstance(axis, tuple) else (axis,)
    return tuple(operator.index(a) % ndim if ndim else 0 for a in axes)


class MetaArray(NDArrayOperatorsMixin):
    """A data-less stand-in for a numpy array: a shape, a dtype and strides in bytes (see the module's docstring)."""

    __slots__ = ("_shape", "dtype", "strides", "offset", "base", "_value")

    def __init__(self, shape, dtype, strides=None, offset: int = 0, base: "MetaArray | None" = None,
                 value=None) -> None:
        self._shape = tuple(operator.index(n) for n in shape)
        self.dtype = np.dtype(dtype)
        self.strides = c_strides(self.shape, self.dtype.itemsize) if strides is None else tuple(strides)
        self.offset = offset
        self.base = base  # as numpy's: the array whose storage a view looks into (None: its own)
        self._value = value  # what every element holds, a 0-d array (None: zero)

    @property
    def value(self) -> np.ndarray:
        """The value every element is taken to hold: a 0-d array of its dtype."""
        v = self._value
        if v is None or v.dtype != self.dtype:
            v = self._value = np.zeros((), self.dtype) if v is None else v.astype(self.dtype)
        return v

    @classmethod
    def like(cls, a, dtype=None) -> "MetaArray":
        """A data-less array of ``a``'s shape and layout (``a``: a numpy array or a ``MetaArray``), of ``dtype``."""
        dt = a.dtype if dtype is None else np.dtype(dtype)
        value = a._value if type(a) is MetaArray else None
        if dt.itemsize != a.itemsize or any(s < 0 for s in a.strides) or _read_through(a) or (
                type(a) is not MetaArray and (0 in a.shape or (a.size == 1 and a.ndim and not any(a.strides)))):
            # (numpy's strides of an empty array say nothing, nor those of a one-element read-through value)
            return cls(a.shape, dt, value=value)
        return cls(a.shape, dt, tuple(s // a.itemsize * dt.itemsize for s in a.strides), value=value)

    # -- what a numpy array says about itself ------------------------------------------------------
    @property
    def shape(self) -> tuple:
        return self._shape

    @shape.setter
    def shape(self, shape) -> None:
        """numpy's in-place reshape: a view, or numpy's refusal."""
        new = self.reshape(shape, copy=False)
        self._shape, self.strides = new.shape, new.strides

    ndim = property(lambda self: len(self.shape))
    size = property(lambda self: math.prod(self.shape))
    itemsize = property(lambda self: self.dtype.itemsize)
    nbytes = property(lambda self: self.size * self.dtype.itemsize)
    flags = property(lambda self: _Flags(self))
    T = property(lambda self: self.transpose())
    mT = property(lambda self: self.swapaxes(-1, -2))

    @property
    def real(self) -> "MetaArray":
        if self.dtype.kind != "c":
            return self
        return self._view(self.shape, self.strides, dtype=np.dtype(f"f{self.itemsize // 2}"), value=self.value.real)

    @property
    def imag(self) -> "MetaArray":
        if self.dtype.kind != "c":
            raise NeedsData("imag")  # numpy's zeros of a real array
        half = self.itemsize // 2
        return self._view(self.shape, self.strides, self.offset + half, np.dtype(f"f{half}"), self.value.imag)

    @real.setter
    def real(self, value) -> None:
        pass  # written nowhere, as ``__setitem__``

    @imag.setter
    def imag(self, value) -> None:
        pass

    def __repr__(self) -> str:
        return f"MetaArray(shape={self.shape}, dtype={self.dtype}, strides={self.strides})"

    def __len__(self) -> int:
        if not self.shape:
            raise TypeError("len() of unsized object")
        return self.shape[0]

    def __iter__(self):
        if not self.shape:
            raise TypeError("iteration over a 0-d array")
        return (self[i] for i in range(self.shape[0]))

    def _uniform(self, dtype=None) -> np.ndarray:
        """Its value spread over its shape with zero strides: a fresh element of its own (what numpy code writes
        into it lands there), one element in memory whatever the shape."""
        v = self.value.astype(self.dtype if dtype is None else dtype)  # a copy
        return np.lib.stride_tricks.as_strided(v, self.shape, (0,) * self.ndim, writeable=True)

    def __array__(self, dtype=None, copy=None) -> np.ndarray:
        """numpy's way into a function ``MetaArray`` does not implement: its value over its shape, zero strides
        (``_uniform``)."""
        return self._uniform(dtype)

    def __getattr__(self, name: str):
        if name.startswith("__"):
            raise AttributeError(name)
        raise NeedsData(name)

    def _sized(self, *_):
        raise NeedsData("a value that could size a result")

    __int__ = __index__ = tolist = tobytes = _sized

    # numpy's answers for an array of this shape holding its value (one element: the value; more: numpy's error)
    def __bool__(self) -> bool:
        return bool(self._uniform())

    def __float__(self) -> float:
        return float(self._uniform())

    def __complex__(self) -> complex:
        return complex(self._uniform())

    def item(self, *args):
        return self._uniform().item(*args)

    def __copy__(self) -> "MetaArray":
        return MetaArray(self.shape, self.dtype, self.strides, self.offset, value=self._value)

    def __deepcopy__(self, memo) -> "MetaArray":
        return self.__copy__()

    def __setitem__(self, key, value) -> None:
        pass  # a meta tensor is written nowhere (PyTorch's meta kernels check and write nothing)

    def fill(self, value) -> None:
        pass

    # -- views ----------------------------------------------------------------------------------
    def _view(self, shape, strides, offset=None, dtype=None, value=None) -> "MetaArray":
        return MetaArray(shape, self.dtype if dtype is None else dtype, strides, self.offset if offset is None
                         else offset, self if self.base is None else self.base,
                         self._value if value is None else value)

    def transpose(self, *axes) -> "MetaArray":
        if len(axes) == 1 and not isinstance(axes[0], (int, np.integer)):
            axes = () if axes[0] is None else tuple(axes[0])  # a list, a tuple or an array of axes
        order = tuple(range(self.ndim))[::-1] if not axes else _axes(tuple(axes), self.ndim)
        if sorted(order) != list(range(self.ndim)):
            raise ValueError("axes don't match array")
        return self._view([self.shape[i] for i in order], [self.strides[i] for i in order])

    def swapaxes(self, a: int, b: int) -> "MetaArray":
        order = list(range(self.ndim))
        a, b = _axes(a, self.ndim)[0], _axes(b, self.ndim)[0]
        order[a], order[b] = order[b], order[a]
        return self.transpose(order)

    def reshape(self, *shape, order: str = "C", copy=None) -> "MetaArray":
        if len(shape) == 1 and not isinstance(shape[0], int):
            shape = tuple(shape[0])
        if order != "C":
            raise NeedsData("reshape order")
        new = _infer_shape(shape, self.size)
        strides = _view_strides(self.shape, self.strides, new, self.itemsize)
        if strides is None:
            if copy is False:
                raise ValueError("Unable to avoid creating a copy while reshaping.")
            return MetaArray(new, self.dtype, value=self._value)  # a copy, C-ordered
        return self._view(new, strides)

    def ravel(self, order: str = "C") -> "MetaArray":
        return self.reshape(-1, order=order)

    def flatten(self, order: str = "C") -> "MetaArray":
        return MetaArray((self.size,), self.dtype, value=self._value)

    def squeeze(self, axis=None) -> "MetaArray":
        axes = tuple(i for i, n in enumerate(self.shape) if n == 1) if axis is None else _axes(axis, self.ndim)
        if any(self.shape[i] != 1 for i in axes):
            raise ValueError("cannot select an axis to squeeze out which has size not equal to one")
        keep = [i for i in range(self.ndim) if i not in axes]
        return self._view([self.shape[i] for i in keep], [self.strides[i] for i in keep])

    def view(self, dtype=None, type=None) -> "MetaArray":
        dt = self.dtype if dtype is None else np.dtype(dtype)
        if dt.itemsize == self.itemsize:
            return self._view(self.shape, self.strides, dtype=dt)
        # numpy's rule: the last dim, contiguous, is read as elements of the new size (its length in bytes a multiple)
        if not self.ndim or self.strides[-1] != self.itemsize or self.shape[-1] * self.itemsize % dt.itemsize:
            raise NeedsData("view as a dtype of another size")  # numpy's own error, on zeros
        stand = np.full(max(dt.itemsize // self.itemsize, 1), self.value).view(dt)
        return self._view(self.shape[:-1] + (self.shape[-1] * self.itemsize // dt.itemsize,),
                          self.strides[:-1] + (dt.itemsize,), dtype=dt, value=stand[0].reshape(()))

    def astype(self, dtype, order: str = "K", casting: str = "unsafe", subok: bool = True,
               copy: bool = True) -> "MetaArray":
        dt = np.dtype(dtype)
        if dt == self.dtype and not copy:
            return self
        return MetaArray.like(self, dt) if order in ("K", "A") else MetaArray(self.shape, dt, value=self._value)

    def copy(self, order: str = "C") -> "MetaArray":
        return MetaArray.like(self) if order == "K" else MetaArray(self.shape, self.dtype, value=self._value)

    def conj(self) -> "MetaArray":
        return np.conjugate(self)

    conjugate = conj

    def __getitem__(self, key) -> "MetaArray":
        if type(key) is str:  # a field of a structured dtype (complex32's "real" and "imag"): a view, as numpy's
            dtype, at = self.dtype.fields[key][:2]
            return self._view(self.shape, self.strides, self.offset + at, dtype, self.value[key])
        key = key if isinstance(key, tuple) else (key,)
        if any(_advanced(k) for k in key):
            return self._gather(key)
        shape, strides, offset = [], [], self.offset
        rest = [k for k in key if k is not None and k is not Ellipsis]
        if len(rest) > self.ndim:
            raise IndexError(f"too many indices for array: array is {self.ndim}-dimensional, but {len(rest)} were "
                             "indexed")
        dim = 0
        for k in key:
            if k is Ellipsis:
                for _ in range(self.ndim - len(rest)):
                    shape.append(self.shape[dim])
                    strides.append(self.strides[dim])
                    dim += 1
            elif k is None:
                shape.append(1)
                strides.append(0)
            elif isinstance(k, slice):
                start, stop, step = k.indices(self.shape[dim])
                shape.append(len(range(start, stop, step)))
                strides.append(self.strides[dim] * step)
                offset += start * self.strides[dim]
                dim += 1
            else:
                i = operator.index(k)
                n = self.shape[dim]
                if not -n <= i < n:
                    raise IndexError(f"index {i} is out of bounds for axis {dim} with size {n}")
                offset += (i % n) * self.strides[dim]
                dim += 1
        shape += self.shape[dim:]
        strides += self.strides[dim:]
        return self._view(shape, strides, offset)

    def _gather(self, key) -> "MetaArray":
        """Advanced indexing: a fresh C-ordered array, of the shape numpy's rules give. They are run on a
        stand-in of itemsize 0, so indexing it reads and writes nothing; a meta index is zeros of its shape."""
        if any(isinstance(k, (np.ndarray, MetaArray)) and k.dtype == np.bool_ for k in key):
            key = _mask_as_indices(key, self.shape)
        proxy = np.broadcast_to(np.empty((), np.dtype([])), self.shape)
        key = tuple(np.asarray(k) if isinstance(k, list) else k for k in key)
        arrays = [k for k in key if isinstance(k, (np.ndarray, MetaArray)) and k.ndim]
        if arrays and all(k.size and k.dtype.kind in "iu" for k in arrays) and \
                not any(isinstance(k, (bool, np.bool_)) for k in key):
            # numpy walks every element of the result, itemsize 0 or not: the index arrays are run as stand-ins
            # of one, then two, elements along each of their dims (holding their least and largest values, so
            # that numpy checks their bounds); the dims that change are the broadcast index arrays' block
            block = np.broadcast_shapes(*(k.shape for k in arrays))
            runs = [proxy[tuple(_index_stand_in(k, n) for k in key)].shape for n in (1, 2)]
            at = [i for i, (a, b) in enumerate(zip(*runs)) if a != b]
            if len(at) == len(block):
                shape = list(runs[0])
                for i, n in zip(at, block):
                    shape[i] = n
                return MetaArray(shape, self.dtype, value=self._value)
        key = tuple(np.broadcast_to(np.zeros((), np.intp), k.shape) if type(k) is MetaArray else k for k in key)
        return MetaArray(proxy[key].shape, self.dtype, value=self._value)

    # -- reductions and scans, as methods ---------------------------------------------------------
    def _reduce(self, fn, axis=None, dtype=None, out=None, keepdims=False, **kw):
        axes = _axes(axis, self.ndim)
        if keepdims:
            shape = tuple(1 if i in axes else n for i, n in enumerate(self.shape))
        else:
            shape = tuple(n for i, n in enumerate(self.shape) if i not in axes)
        if any(self.shape[i] == 0 for i in axes) and fn in (np.max, np.min, np.argmax, np.argmin, np.amax,
                                                            np.amin):
            raise NeedsData("a reduction of an empty array")  # numpy's own error
        args = {"axis": axis} if axis is not None else {}
        with np.errstate(all="ignore"):
            res = fn(_stand_in(self), dtype=dtype, **args, **kw) if dtype is not None else \
                fn(_stand_in(self), **args, **kw)
        result = MetaArray(shape, np.asarray(res).dtype, value=_one(res))
        if out is not None and out is not Ellipsis:
            return out
        return result

    def sum(self, axis=None, dtype=None, out=None, keepdims=False, **kw):
        return self._reduce(np.sum, axis, dtype, out, keepdims, **kw)

    def prod(self, axis=None, dtype=None, out=None, keepdims=False, **kw):
        return self._reduce(np.prod, axis, dtype, out, keepdims, **kw)

    def mean(self, axis=None, dtype=None, out=None, keepdims=False, **kw):
        return self._reduce(np.mean, axis, dtype, out, keepdims, **kw)

    def var(self, axis=None, dtype=None, out=None, ddof=0, keepdims=False, **kw):
        return self._reduce(np.var, axis, dtype, out, keepdims, **kw)

    def std(self, axis=None, dtype=None, out=None, ddof=0, keepdims=False, **kw):
        return self._reduce(np.std, axis, dtype, out, keepdims, **kw)

    def max(self, axis=None, out=None, keepdims=False, **kw):
        return self._reduce(np.max, axis, None, out, keepdims, **kw)

    def min(self, axis=None, out=None, keepdims=False, **kw):
        return self._reduce(np.min, axis, None, out, keepdims, **kw)

    def any(self, axis=None, out=None, keepdims=False, **kw):
        return self._reduce(np.any, axis, None, out, keepdims, **kw)

    def all(self, axis=None, out=None, keepdims=False, **kw):
        return self._reduce(np.all, axis, None, out, keepdims, **kw)

    def argmax(self, axis=None, out=None, keepdims=False):
        return self._reduce(np.argmax, axis, None, out, keepdims)

    def argmin(self, axis=None, out=None, keepdims=False):
        return self._reduce(np.argmin, axis, None, out, keepdims)

    def cumsum(self, axis=None, dtype=None, out=None):
        return np.cumsum(self, axis, dtype, out)

    def cumprod(self, axis=None, dtype=None, out=None):
        return np.cumprod(self, axis, dtype, out)

    # -- the numpy protocols ------------------------------------------------------------------------
    def __array_ufunc__(self, ufunc, method, *inputs, **kwargs):
        if method == "at" and type(inputs[0]) is MetaArray:
            return None  # written in place: a meta array is written nowhere
        out = kwargs.pop("out", None)
        outs = out if isinstance(out, tuple) else (out,)
        if any(isinstance(o, np.ndarray) for o in outs) or method not in ("__call__", "reduce", "accumulate",
                                                                           "reduceat", "outer"):
            # a real array to write into, or a rarer method: computed on zeros
            return getattr(ufunc, method)(*_real(inputs), **({"out": out} if out is not None else {}), **kwargs)
        if method == "__call__":
            if ufunc is np.matmul:
                shape = _matmul_shape(_shape_of(inputs[0]), _shape_of(inputs[1]))
            else:
                try:
                    shape = np.broadcast_shapes(*(_shape_of(x) for x in inputs))
                except ValueError:
                    return ufunc(*_real(inputs), **kwargs)  # numpy's own error
            kwargs.pop("where", None)
            with np.errstate(all="ignore"):
                res = ufunc(*(_stand_in(x) for x in inputs), **kwargs)
        elif method == "outer":  # every pair: the first operand's shape, then the second's
            shape = tuple(_shape_of(inputs[0])) + tuple(_shape_of(inputs[1]))
            with np.errstate(all="ignore"):
                res = ufunc(*(np.asarray(_stand_in(x)).reshape(-1)[:1] for x in inputs[:2]), **kwargs)
        elif method == "reduceat":  # one reduced segment per index, along the axis
            a, indices = inputs[0], np.asarray(inputs[1])
            axis = kwargs.pop("axis", 0)
            n = a.shape[_axes(axis, a.ndim)[0]]
            if indices.size and not (-n <= indices.min() and indices.max() < n):
                return ufunc.reduceat(*_real(inputs), axis=axis, **kwargs)  # numpy's own error
            shape = list(a.shape)
            shape[_axes(axis, a.ndim)[0]] = len(indices)
            with np.errstate(all="ignore"):
                res = ufunc.reduce(_stand_in(a), axis=axis, keepdims=True, **kwargs)
        else:
            a = inputs[0]
            axis = kwargs.pop("axis", 0)
            keepdims = kwargs.pop("keepdims", False)
            kwargs.pop("where", None)
            if method == "accumulate":
                kwargs.pop("initial", None)
            with np.errstate(all="ignore"):
                res = getattr(ufunc, method)(_stand_in(a), axis=axis, **kwargs)
            if method == "accumulate":
                shape = a.shape
            else:
                axes = _axes(axis, a.ndim)
                shape = tuple(1 if i in axes else n for i, n in enumerate(a.shape) if keepdims or i not in axes)
        results = res if isinstance(res, tuple) else (res,)
        # (a ufunc asked for C order, ``order="C"``, makes its result so, as numpy does)
        pointwise = method == "__call__" and ufunc is not np.matmul and kwargs.get("order", "K") != "C"
        made = tuple((_pointwise(shape, r, inputs) if pointwise else MetaArray(shape, np.asarray(r).dtype,
                                                                                value=_one(r)))
                     if o is None or o is Ellipsis else o
                     for r, o in zip(results, outs * len(results) if len(outs) == 1 else outs))
        return made if isinstance(res, tuple) else made[0]

    def __array_function__(self, func, types, args, kwargs):
        handler = _FUNCTIONS.get(func)
        if handler is not None:
            return handler(*args, **kwargs)
        module = getattr(func, "__module__", None)
        if module == "numpy.linalg":
            return _linalg(func, args, kwargs)
        if module == "numpy.fft" and "fft" in func.__name__:
            return _fft(func, args, kwargs)
        return func(*_real(args), **{k: _real(v) for k, v in kwargs.items()})  # on zeros


def _index_stand_in(k, n: int):
    """An index array ``k`` as ``n`` elements along each of its dims (one of them its least value, the others its
    largest; a meta index's: zeros); anything else in an index as it is."""
    if not isinstance(k, (np.ndarray, MetaArray)) or not k.ndim:
        return k
    if type(k) is MetaArray:
        return np.zeros((n,) * k.ndim, np.intp)
    small = np.full((n,) * k.ndim, k.max(), k.dtype)
    small.flat[0] = k.min()
    return small


def _mask_as_indices(key: tuple, shape: tuple) -> tuple:
    """``key`` with each boolean ``MetaArray`` in it as numpy takes a mask, its indices of True (one index array per
    dim it covers): a meta mask holds one value throughout, so it selects all of its elements or none. A real mask
    raises ``NeedsData``: its count of True is data."""
    out, dim = [], 0
    for k in key:
        if k is None:
            out.append(k)
            continue
        if k is Ellipsis:
            out.append(k)
            dim = len(shape) - sum(_dims_taken(j) for j in key[key.index(Ellipsis) + 1:])
            continue
        if isinstance(k, (np.ndarray, MetaArray)) and k.dtype == np.bool_ and k.ndim:
            if type(k) is not MetaArray:
                raise NeedsData("a boolean mask")  # its result's length is the mask's count of True
            for i, n in enumerate(k.shape):
                if dim + i >= len(shape) or shape[dim + i] != n:
                    size = shape[dim + i] if dim + i < len(shape) else 0
                    # numpy's own IndexError (its words differ between 1.x and 2.x), from empty stand-ins
                    np.empty((0,) * (dim + i) + (size,))[np.empty((0,) * (dim + i) + (n,), np.bool_)]
                    raise IndexError(f"too many indices for array: array is {len(shape)}-dimensional, but "
                                     f"{dim + k.ndim} were indexed")  # (a mask past the last axis)
            count = k.size if k.value else 0
            out += [MetaArray((count,), np.intp)] * k.ndim
        else:
            out.append(k)
        dim += _dims_taken(k)
    return tuple(out)


def _dims_taken(k) -> int:
    """How many dims of the indexed array one entry of an index takes."""
    if k is None or k is Ellipsis or isinstance(k, (bool, np.bool_)):
        return 0
    if isinstance(k, (np.ndarray, MetaArray)) and k.dtype == np.bool_:
        return k.ndim
    return 1


def _advanced(k) -> bool:
    return isinstance(k, (np.ndarray, MetaArray, list)) or (isinstance(k, np.generic) and k.dtype == np.bool_) \
        or isinstance(k, bool)


def _infer_shape(shape, size: int) -> tuple:
    shape = tuple(operator.index(n) for n in shape)
    if shape.count(-1) == 1:
        known = math.prod(n for n in shape if n != -1)
        if known == 0 or size % known:
            raise ValueError(f"cannot reshape array of size {size} into shape {shape}")
        shape = tuple(size // known if n == -1 else n for n in shape)
    if math.prod(shape) != size:
        raise ValueError(f"cannot reshape array of size {size} into shape {shape}")
    return shape


def _view_strides(shape, strides, new, itemsize: int):
    """The strides of ``new`` as a view of (``shape``, ``strides``), or None when it needs a copy: PyTorch's
    computeStride (runs of dims contiguous with each other split or merged; size-1 dims fit anywhere)."""
    if not shape or math.prod(shape) == 0:
        return c_strides(new, itemsize)
    out = [0] * len(new)
    view_d = len(new) - 1
    base = strides[-1]
    tensor_numel = view_numel = 1
    for d in range(len(shape) - 1, -1, -1):
        tensor_numel *= shape[d]
        if d == 0 or (shape[d - 1] != 1 and strides[d - 1] != tensor_numel * base):
            while view_d >= 0 and (view_numel < tensor_numel or new[view_d] == 1):
                out[view_d] = view_numel * base
                view_numel *= new[view_d]
                view_d -= 1
            if view_numel != tensor_numel:
                return None
            if d > 0:
                base, tensor_numel, view_numel = strides[d - 1], 1, 1
    return tuple(out) if view_d == -1 else None


def _matmul_shape(a: tuple, b: tuple) -> tuple:
    if not a or not b:
        raise ValueError("matmul: Input operand does not have enough dimensions")
    a2 = (1,) + a if len(a) == 1 else a
    b2 = b + (1,) if len(b) == 1 else b
    if a2[-1] != b2[-2]:
        raise ValueError(f"matmul: Input operand 1 has a mismatch in its core dimension 0, with gufunc signature "
                         f"(n?,k),(k,m?)->(n?,m?) (size {b2[-2]} is different from {a2[-1]})")
    batch = np.broadcast_shapes(a2[:-2], b2[:-2])
    return batch + ((a2[-2],) if len(a) > 1 else ()) + ((b2[-1],) if len(b) > 1 else ())


def _concatenate(arrays, axis=0, out=None, dtype=None, casting="same_kind"):
    arrays = list(arrays)
    if axis is None:
        arrays = [a.reshape(-1) if type(a) is MetaArray else np.ravel(a) for a in arrays]
        axis = 0
    first = _shape_of(arrays[0])
    ax = _axes(axis, len(first))[0]
    for a in arrays[1:]:
        s = _shape_of(a)
        if len(s) != len(first) or any(x != y for d, (x, y) in enumerate(zip(s, first)) if d != ax):
            return np.concatenate(_real(arrays), axis=axis, dtype=dtype, casting=casting)  # numpy's own error
    shape = list(first)
    shape[ax] = sum(_shape_of(a)[ax] for a in arrays)
    dt = np.dtype(dtype) if dtype is not None else np.result_type(*(_stand_in(a) for a in arrays))
    return out if out is not None else MetaArray(shape, dt, value=_one(_stand_in(arrays[0])).astype(dt))


def _stack(arrays, axis=0, out=None, dtype=None, casting="same_kind"):
    arrays = [a if type(a) is MetaArray else np.asarray(a) for a in arrays]
    shapes = {a.shape for a in arrays}
    if len(shapes) != 1:
        return np.stack(_real(arrays), axis=axis)  # numpy's own error
    shape = list(arrays[0].shape)
    shape.insert(axis % (len(shape) + 1), len(arrays))
    dt = np.dtype(dtype) if dtype is not None else np.result_type(*(_stand_in(a) for a in arrays))
    return out if out is not None else MetaArray(shape, dt, value=_one(_stand_in(arrays[0])).astype(dt))


def _where(condition, x=None, y=None):
    if x is None and y is None:
        raise NeedsData("where(condition)")  # nonzero: its length is the data's
    shape = np.broadcast_shapes(_shape_of(condition), _shape_of(x), _shape_of(y))
    res = np.where(_stand_in(condition), _stand_in(x), _stand_in(y))
    # a number counts as a tensor broadcast everywhere here (PyTorch's meta where wraps it as one, so the operands
    # are not all contiguous and the dims are sorted)
    return _pointwise(shape, res, tuple(v if isinstance(v, (MetaArray, np.ndarray)) else np.asarray(v)
                                        for v in (condition, x, y)))


def _broadcast_to(array, shape, subok=False):
    shape = tuple(shape) if not isinstance(shape, int) else (shape,)
    np.broadcast_shapes(array.shape, shape)
    lead = len(shape) - array.ndim
    strides = [0] * lead + [0 if n == 1 and m != 1 else s for n, m, s in zip(array.shape, shape[lead:],
                                                                              array.strides)]
    return array._view(shape, strides)


def _like(prototype, dtype=None, order="K", subok=True, shape=None, fill=0, **kw):
    dt = np.dtype(prototype.dtype if dtype is None else dtype)
    value = np.asarray(fill).astype(dt).reshape(())
    if shape is not None:
        return MetaArray(shape if not isinstance(shape, int) else (shape,), dt, value=value)
    if order in ("K", "A"):
        made = MetaArray.like(prototype, dt)
        made._value = value
        return made
    return MetaArray(prototype.shape, dt, value=value)


def _full_like(prototype, fill_value, dtype=None, order="K", subok=True, shape=None, **kw):
    return _like(prototype, dtype, order, subok, shape, fill_value)


def _method(name: str):
    def call(a, *args, **kwargs):
        if type(a) is not MetaArray:
            return getattr(np, name)(_real(a), *_real(args), **kwargs)
        return getattr(a, name)(*args, **kwargs)
    return call


def _scan(fn):
    def scan(a, axis=None, dtype=None, out=None):
        if axis is None:
            a, axis = a.reshape(-1), 0
        return fn.accumulate(a, axis=axis, dtype=dtype, out=out)
    return scan


def _moveaxis(a, source, destination):
    if type(a) is not MetaArray:
        return np.moveaxis(_real(a), source, destination)
    src = _axes(tuple(source) if isinstance(source, (list, tuple)) else source, a.ndim)
    dst = _axes(tuple(destination) if isinstance(destination, (list, tuple)) else destination, a.ndim)
    order = [n for n in range(a.ndim) if n not in src]
    for d, s_ in sorted(zip(dst, src)):
        order.insert(d, s_)
    return a.transpose(order)


def _expand_dims(a, axis):
    if type(a) is not MetaArray:
        return np.expand_dims(_real(a), axis)
    n = a.ndim + (len(axis) if isinstance(axis, (tuple, list)) else 1)
    new = _axes(tuple(axis) if isinstance(axis, (tuple, list)) else axis, n)
    return a[tuple(None if i in new else slice(None) for i in range(n))]


def _copyto(dst, src, casting="same_kind", where=True):
    if type(dst) is MetaArray:
        np.broadcast_shapes(_shape_of(src), dst.shape)
        return None
    return np.copyto(dst, _real(src), casting=casting, where=_real(where))


def _split(ary, indices_or_sections, axis=0):
    """numpy's split as views (``array_split`` the same: sections as even as numpy makes them)."""
    if type(ary) is not MetaArray:
        return np.array_split(_real(ary), _real(indices_or_sections), axis)
    ax = _axes(axis, ary.ndim)[0]
    n = ary.shape[ax]
    if isinstance(indices_or_sections, (int, np.integer)):
        k = operator.index(indices_or_sections)
        if k <= 0:
            raise ValueError("number sections must be larger than 0.")
        each, extra = divmod(n, k)
        sizes = [each + 1] * extra + [each] * (k - extra)
        bounds = [sum(sizes[:i]) for i in range(k + 1)]
    else:
        bounds = [0] + [operator.index(i) for i in indices_or_sections] + [n]
    lead = (slice(None),) * ax
    return [ary[lead + (slice(a, b),)] for a, b in zip(bounds[:-1], bounds[1:])]


def _split_even(ary, indices_or_sections, axis=0):
    if isinstance(indices_or_sections, (int, np.integer)) and type(ary) is MetaArray and \
            ary.shape[_axes(axis, ary.ndim)[0]] % indices_or_sections:
        raise ValueError("array split does not result in an equal division")
    return _split(ary, indices_or_sections, axis)


def _take_along_axis(arr, indices, axis=-1):
    if axis is None:
        return MetaArray(_shape_of(indices), arr.dtype, value=_one(_stand_in(arr)))
    a_shape, i_shape = _shape_of(arr), _shape_of(indices)
    ax = _axes(axis, len(a_shape))[0]
    shape = list(np.broadcast_shapes(a_shape[:ax] + (1,) + a_shape[ax + 1:], i_shape[:ax] + (1,) + i_shape[ax + 1:]))
    shape[ax] = i_shape[ax]
    return MetaArray(shape, arr.dtype, value=_one(_stand_in(arr)))


def _put_along_axis(arr, indices, values, axis):
    if type(arr) is not MetaArray:
        return np.put_along_axis(arr, _real(indices), _real(values), axis)
    return None  # a meta array is written nowhere


def _same_shape(fn, dtype=None):
    """numpy's ``fn`` whose result is a fresh array of its input's shape (``dtype``: its result's, where another)."""
    def call(a, *args, **kwargs):
        if type(a) is not MetaArray:
            return fn(_real(a), *_real(args), **{k: _real(v) for k, v in kwargs.items()})
        axis = kwargs.get("axis", args[0] if args else -1) if fn in (np.sort, np.argsort) else 0
        if axis is None:  # sorted flat
            return MetaArray((a.size,), a.dtype if dtype is None else dtype, value=a._value)
        return MetaArray(a.shape, a.dtype if dtype is None else dtype, value=None if dtype else a._value)
    return call


def _flip(m, axis=None):
    if type(m) is not MetaArray:
        return np.flip(_real(m), axis)
    axes = _axes(tuple(axis) if isinstance(axis, (list, tuple)) else axis, m.ndim)
    return m[tuple(slice(None, None, -1) if i in axes else slice(None) for i in range(m.ndim))]


def _rot90(m, k=1, axes=(0, 1)):
    """numpy's rot90 as views: a flip of the second axis and a swap of the two, in numpy's order."""
    if type(m) is not MetaArray:
        return np.rot90(_real(m), k, axes)
    a0, a1 = _axes(tuple(axes), m.ndim)
    order = list(range(m.ndim))
    order[a0], order[a1] = order[a1], order[a0]
    k %= 4
    if k == 0:
        return m[...]
    if k == 2:
        return _flip(m, (a0, a1))
    return _flip(m, a1).transpose(order) if k == 1 else _flip(m.transpose(order), a1)


def _isin(element, test_elements, assume_unique=False, invert=False, *, kind=None):
    """Of ``element``'s shape, its value from the same test on stand-ins (a meta array holds one value)."""
    res = np.isin(_stand_in(element), _stand_in(test_elements), assume_unique, invert, kind=kind)
    return MetaArray(_shape_of(element), np.bool_, value=_one(res))


def _searchsorted(a, v, side="left", sorter=None):
    return MetaArray(_shape_of(v), np.intp)


def _tile(A, reps):
    reps = (reps,) if isinstance(reps, (int, np.integer)) else tuple(reps)
    shape = _shape_of(A)
    n = max(len(shape), len(reps))
    shape, reps = (1,) * (n - len(shape)) + tuple(shape), (1,) * (n - len(reps)) + reps
    return MetaArray(tuple(a * r for a, r in zip(shape, reps)), A.dtype, value=A._value)


def _take(a, indices, axis=None, out=None, mode="raise"):
    ishape = _shape_of(indices)
    if axis is None:
        return MetaArray(ishape, a.dtype, value=_one(_stand_in(a)))
    ax = _axes(axis, a.ndim)[0]
    return MetaArray(a.shape[:ax] + tuple(ishape) + a.shape[ax + 1:], a.dtype, value=_one(_stand_in(a)))


def _map_arrays(x, fn):
    """``x`` with ``fn`` applied to every array of one or more dims in it (lists, tuples and dicts looked into)."""
    if type(x) is MetaArray or (isinstance(x, np.ndarray) and x.ndim):
        return fn(x)
    if type(x) in (list, tuple):
        return type(x)(_map_arrays(v, fn) for v in x)
    if type(x) is dict:
        return {k: _map_arrays(v, fn) for k, v in x.items()}
    return x


def _probe_matrix(shape: tuple, dtype) -> np.ndarray:
    """A small array of ``shape`` for a linear-algebra function to run on without failing on its values: identity
    matrices in its last two dims (invertible, positive definite, of full rank), ones along a vector."""
    if len(shape) < 2:
        return np.ones(shape, dtype)
    return np.broadcast_to(np.eye(shape[-2], shape[-1], dtype=dtype), shape).copy()


def _linalg(func, args, kwargs):
    """A numpy.linalg function of meta arrays. Its results' sizes are taken from each size of its arguments, or
    the smaller or larger of two, or 0 or 1 (a matrix's rows, ``min(m, n)`` singular values, a batch): such a
    rule keeps the order of the sizes, so the function is run twice on small stand-ins whose sizes keep that
    order (the k-th smallest size of the arguments is ``2 + k`` in the first, ``3 + 2k`` in the second). A
    result's size found as the k-th size in both runs is the k-th size of the arguments; one that is not (a rule
    of another kind: a product of sizes) raises ``NeedsData``, as does a run that fails (a shape error a product
    of sizes decides): the zeros of the meta inputs then give numpy's own answer."""
    sizes = sorted({n for a in _leaves((args, kwargs)) if type(a) is MetaArray or isinstance(a, np.ndarray)
                    for n in np.shape(a) if n > 1})
    runs = []
    for first, step in ((2, 1), (3, 2)):
        small = {n: first + step * k for k, n in enumerate(sizes)}

        def stand_in(a, small=small):
            return _probe_matrix(tuple(small.get(n, n) for n in a.shape), a.dtype)
        try:
            with np.errstate(all="ignore"):
                runs.append(func(*_map_arrays(args, stand_in), **_map_arrays(kwargs, stand_in)))
        except Exception:  # noqa: BLE001 - decided on the zeros of the meta inputs
            raise NeedsData(f"numpy.linalg.{func.__name__} refused its stand-ins") from None

    def size(a: int, b: int) -> int:
        if a == b and a in (0, 1):
            return a
        k = a - 2
        if 0 <= k < len(sizes) and b == 3 + 2 * k:
            return sizes[k]
        raise NeedsData(f"a size of numpy.linalg.{func.__name__}'s result")

    def result(r1, r2):
        if isinstance(r1, tuple):
            made = [result(x, y) for x, y in zip(r1, r2)]
            return type(r1)(*made) if hasattr(r1, "_fields") else type(r1)(made)
        if not isinstance(r1, (np.ndarray, np.generic)) or np.ndim(r1) != np.ndim(r2) or r1.dtype != r2.dtype:
            raise NeedsData(f"a result of numpy.linalg.{func.__name__}")  # a Python number: a value
        return MetaArray(tuple(size(a, b) for a, b in zip(np.shape(r1), np.shape(r2))), r1.dtype, value=_one(r1))
    return result(*runs)


def _fft(func, args, kwargs):
    """A numpy.fft transform of a meta array. Its result has the input's shape, but along the transformed axes
    (the given lengths, else the input's), of which the last holds ``n // 2 + 1`` bins for a transform from real
    values (``rfft*``, ``ihfft``) and ``n`` (given) or ``2 * (m - 1)`` values for one to real values (``irfft*``,
    ``hfft``); the dtype, and numpy's errors, come from the same transform on a stand-in of at most two elements
    along each transformed axis and one along the others, whose sizes the same rule must give."""
    bound = inspect.signature(func).bind(*args, **kwargs)
    bound.apply_defaults()
    p = bound.arguments
    a = p["a"]
    if type(a) is not MetaArray:
        return func(*_real(args), **{k: _real(v) for k, v in kwargs.items()})
    if "axis" in p:
        axes, lengths = (p["axis"],), None if p["n"] is None else (p["n"],)
    else:
        lengths = None if p["s"] is None else tuple(p["s"])
        axes = p["axes"]
        if axes is None:
            axes = tuple(range(a.ndim)) if lengths is None else tuple(range(a.ndim - len(lengths), a.ndim))
    axes = tuple(axes)
    name = func.__name__
    kind = "r2c" if name.startswith("rfft") or name == "ihfft" else \
        "c2r" if name.startswith("irfft") or name == "hfft" else "c2c"

    def rule(shape, lengths):
        out = list(shape)
        for i, ax in enumerate(axes):
            given = None if lengths is None else lengths[i]
            n = shape[ax] if given is None else given
            if i == len(axes) - 1 and kind == "r2c":
                n = n // 2 + 1
            elif i == len(axes) - 1 and kind == "c2r" and given is None:
                n = 2 * (shape[ax] - 1)
            out[ax] = n
        return tuple(out)

    small = [1] * a.ndim
    try:
        for ax in axes:
            small[ax] = min(a.shape[ax], 2)
    except IndexError:
        return func(np.zeros(small, a.dtype), **{k: v for k, v in p.items() if k != "a"})  # numpy's own error
    small_lengths = None if lengths is None else tuple(n if n is None or n < 1 else min(n, 2) for n in lengths)
    with np.errstate(all="ignore"):
        res = func(np.full(small, a.value, a.dtype), **{**{k: v for k, v in p.items() if k not in ("a", "out")},
                                                         **({"n": small_lengths[0]} if "n" in p and lengths else {}),
                                                         **({"s": small_lengths} if "s" in p and lengths else {})})
    if res.shape != rule(tuple(small), small_lengths):
        raise NeedsData(f"the shape of numpy.fft.{name}'s result")
    made = MetaArray(rule(a.shape, lengths), res.dtype)
    return p["out"] if p.get("out") is not None else made


def _elementwise(fn):
    """numpy's ``fn`` that works element by element, as a ufunc does (its result of its arrays' broadcast shape):
    on one-element stand-ins, as ``__array_ufunc__`` computes a ufunc."""
    def call(*args, **kwargs):
        out = kwargs.pop("out", None)
        if isinstance(out, np.ndarray):  # a real array to write into: computed on zeros
            return fn(*_real(args), out=out, **{k: _real(v) for k, v in kwargs.items()})
        arrays = [a for a in _leaves((args, kwargs)) if type(a) is MetaArray or isinstance(a, np.ndarray)]
        shape = np.broadcast_shapes(*(np.shape(a) for a in arrays))
        with np.errstate(all="ignore"):
            res = fn(*_map_arrays(args, _stand_in), **_map_arrays(kwargs, _stand_in))
        if isinstance(res, tuple):
            return tuple(_pointwise(shape, r, arrays) for r in res)
        return out if out is not None else _pointwise(shape, res, arrays)
    return call


def _broadcast_arrays(*args, subok=False):
    shape = np.broadcast_shapes(*(np.shape(a) for a in args))
    return tuple(_broadcast_to(a, shape) if type(a) is MetaArray else np.broadcast_to(a, shape) for a in args)


def _leaves(x):
    if type(x) in (list, tuple):
        for v in x:
            yield from _leaves(v)
    elif type(x) is dict:
        for v in x.values():
            yield from _leaves(v)
    else:
        yield x


_FUNCTIONS = {
    np.concatenate: _concatenate, np.stack: _stack, np.where: _where, np.broadcast_to: _broadcast_to,
    np.empty_like: _like, np.zeros_like: _like, np.ones_like: lambda *a, **k: _like(*a, **k, fill=1),
    np.full_like: _full_like,
    np.may_share_memory: lambda a, b, max_work=None: False, np.shares_memory: lambda a, b, max_work=None: False,
    np.result_type: lambda *xs: np.result_type(*(_stand_in(x) for x in xs)),
    np.copyto: _copyto, np.take: _take,
    np.split: _split_even, np.array_split: _split, np.take_along_axis: _take_along_axis,
    np.put_along_axis: _put_along_axis, np.sort: _same_shape(np.sort), np.argsort: _same_shape(np.argsort, np.intp),
    np.roll: _same_shape(np.roll), np.triu: _same_shape(np.triu), np.tril: _same_shape(np.tril), np.flip: _flip,
    np.searchsorted: _searchsorted, np.tile: _tile, np.rot90: _rot90, np.isin: _isin,
    np.cumsum: _scan(np.add), np.cumprod: _scan(np.multiply),
    np.expand_dims: _expand_dims, np.moveaxis: _moveaxis,
    np.broadcast_arrays: _broadcast_arrays,
    **{fn: _elementwise(fn) for fn in (np.nan_to_num, np.clip, np.round, np.around, np.sinc, np.i0, np.isposinf,
                                       np.isneginf, np.isclose, np.fix) if fn is not None},
    np.copy: lambda a, order="K", subok=False: a.copy("K" if order == "K" else "C"),
    **{f: _method(f.__name__) for f in (
        np.reshape, np.transpose, np.swapaxes, np.squeeze, np.ravel, np.sum, np.prod, np.mean, np.var, np.std, np.max,
        np.min, np.amax, np.amin, np.any, np.all, np.argmax, np.argmin)},
}
_FUNCTIONS[np.amax] = lambda a, *args, **kw: a.max(*args, **kw) if type(a) is MetaArray else np.amax(_real(a), *args,
                                                                                                         **kw)
_FUNCTIONS[np.amin] = lambda a, *args, **kw: a.min(*args, **kw) if type(a) is MetaArray else np.amin(_real(a), *args,
                                                                                                         **kw)


def no_meta_kernel(name: str) -> str:
    """PyTorch's words for an op with no meta kernel (its result's shape depends on values it has not got)."""
    if name in ("nonzero", "argwhere"):
        return ("The register_meta function for torch.nonzero() raises unimplemented by default, as a correct "
                "data-independent implementation does not exist. This implementation returns a fake value, assuming "
                "all elements of the tensor are non-zero. To enable this registration, please set "
                "'torch.fx.experimental._config.meta_nonzero_assume_all_nonzero' to True.")
    aten = {"unique": "_unique2"}.get(name, name)
    return (f"aten::{aten}: attempted to run this operator with Meta tensors, but there was no fake impl or Meta "
            "kernel registered. You may have run into this message while using an operator with PT2 compilation APIs "
            "(torch.compile/torch.export); in order to use this operator with those APIs you'll need to add a fake "
            "impl. Please see the following for next steps:  "
            "https://pytorch.org/tutorials/advanced/custom_ops_landing_page.html")
