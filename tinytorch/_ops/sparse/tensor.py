"""The sparse tensor classes: COO (``indices`` (sparse_dim, nnz) int64, ``values`` (nnz, *dense_shape),
``size``, a coalesced flag) and CSR (``crow_indices``, ``col_indices``, ``values``, ``size``).

A sparse tensor is a ``Tensor`` (``isinstance(s, torch.Tensor)``, autograd's edges, hooks and ``.grad``
work on it as on any tensor) whose class routes every Tensor method and every ``torch.X(...)`` called
with it through ``__torch_function__`` (``_ops._core.members``'s subclass dispatch): the ops PyTorch runs on
sparse inputs find their sparse kernel in ``HANDLERS`` (``pointwise.py`` registers them); any other op is
refused with PyTorch's "Could not run 'aten::X' with arguments from the 'SparseCPU' backend" instead of
running on a dense copy. The one place a sparse tensor turns dense for code written for strided arrays
is ``_data`` (a dense operand of a dense tensor's method, autograd's dtype checks): the values are then
right, at the cost of the dense size. Its indices and values are tensors of their own, detached: the
graph of a sparse tensor is its own ``grad_fn``."""
from __future__ import annotations

import numpy as np

from ... import _dtype
from ..._size import Size
from ..._tensor.printing import _add_suffixes, tensor_body
from .._core.members import _prepare_subclass, sparse_coo, sparse_csr
from ...autograd.grad_mode import NO_VERSION, _State
from ...tensor import Tensor, _make, _new, _wrap_dim, register_attribute
from .._core.registry import bind_rule, declaration_of, own_name, write_out
from .._core.util import warn_at_caller

# autograd's accumulation asks every gradient and leaf whether it is sparse (a class attribute: one lookup)
register_attribute("_sparse_layout", False)

# op name -> the sparse kernel of that op (filled by pointwise.py)
HANDLERS: dict = {}


def register_handler(name: str, fn) -> None:
    """Where pointwise.py hands over the sparse kernel PyTorch dispatches ``name`` to for sparse inputs.
    A declared op that handles sparse inputs itself is registered by its implementation: its public
    function would route the sparse tensor back to this class's ``__torch_function__``."""
    HANDLERS[name] = _implementation(fn) if hasattr(fn, "_decl") else fn


def _implementation(public):
    impl = public.__wrapped__

    def handler(*args, out=None, **kwargs):
        return impl(*args, **kwargs) if out is None else write_out(impl, out, args, kwargs)
    handler.__name__ = impl.__name__
    return handler


def not_implemented(op: str, backend: str = "SparseCPU") -> NotImplementedError:
    """PyTorch's refusal of an op its sparse backend lacks."""
    return NotImplementedError(
        f"Could not run 'aten::{op}' with arguments from the '{backend}' backend. This could be because the "
        "operator doesn't exist for this backend, or was omitted during the selective/custom build process (if "
        "using custom build). If you are a Facebook employee using PyTorch on mobile, please visit "
        "https://fburl.com/ptmfixes for possible resolutions.")


_NO_STORAGE = "Cannot access data pointer of Tensor that doesn't have storage"


def _new_vc():
    return NO_VERSION if _State.inference else [0]


# -- what both layouts share -------------------------------------------------------------------------
def _shape(self) -> Size:
    return Size(self._sz)


def _size(self, dim=None):
    if dim is None:
        return Size(self._sz)
    return self._sz[_wrap_dim(dim, len(self._sz))]


def _dim(self) -> int:
    return len(self._sz)


def _numel(self) -> int:
    n = 1
    for d in self._sz:
        n *= d
    return n


def _requires_grad_(self, requires_grad: bool = True):
    requires_grad = bool(requires_grad)
    if self.grad_fn is not None:
        if requires_grad:
            return self
        raise RuntimeError(
            "you can only change requires_grad flags of leaf variables. If you want to use a "
            "computed variable in a subgraph that doesn't require differentiation use "
            "var_no_grad = var.detach().")
    if requires_grad and not (self._vt.is_floating_point() or self._vt.is_complex()):
        raise RuntimeError("only Tensors of floating point dtype can require gradients")
    self._requires_grad = requires_grad
    return self


def _set_requires_grad(self, flag: bool) -> None:
    if self.grad_fn is not None and flag:
        raise RuntimeError("you can only change requires_grad flags of leaf variables.")
    if flag and not (self._vt.is_floating_point() or self._vt.is_complex()):
        raise RuntimeError("only Tensors of floating point and complex dtype can require gradients")
    _requires_grad_(self, flag)


def _numpy(self, *, force: bool = False):
    raise TypeError(f"can't convert {_LAYOUT_WORD[type(self).layout]} layout tensor to numpy. Use "
                    "Tensor.to_dense() first.")


def _no_storage(self, *args, **kwargs):
    raise RuntimeError(_NO_STORAGE)


def _storage(self, *args, **kwargs):
    raise NotImplementedError(f"Cannot access storage of {type(self)._impl}")


def _item(self):
    n = _numel(self)
    if n != 1:
        raise RuntimeError(f"a Tensor with {n} elements cannot be converted to Scalar")
    return self._data.reshape(()).item()


def _stride(self, dim=None):
    if type(self).layout is not sparse_coo:
        raise RuntimeError(f"Sparse {_LAYOUT_WORD[type(self).layout]} tensors do not have strides")
    st = (0,) * len(self._sz)
    return st if dim is None else st[_wrap_dim(dim, len(self._sz))]


def _dense_data(self) -> np.ndarray:
    """The values as one dense array: what code written for strided tensors reads."""
    return type(self)._to_dense_array(self)


def _refuse_set_data(self, value) -> None:
    raise RuntimeError("a sparse tensor's values live in its indices and values; assign with .data = sparse")


def _data_get(self):
    return type(self)._alias(self, detach=True)


def _data_set(self, value) -> None:
    if not isinstance(value, Tensor) or getattr(value, "layout", None) is not type(self).layout:
        raise RuntimeError("data set to a tensor that requires gradients must be a sparse tensor of the same layout")
    for k in type(self)._state:
        setattr(self, k, getattr(value, k))


def _repr(self, *, tensor_contents=None) -> str:
    return type(self)._repr_of(self)


def _deepcopy(self, memo):
    if not self.is_leaf:
        raise RuntimeError("Only Tensors created explicitly by the user (graph leaves) support the deepcopy "
                           "protocol at the moment.  If you were attempting to deepcopy a module, this may be "
                           "because of a torch.nn.utils.weight_norm usage, see "
                           "https://github.com/pytorch/pytorch/pull/103001")
    if id(self) in memo:
        return memo[id(self)]
    new = type(self)._alias(self, detach=True, copy=True)
    new._requires_grad = self._requires_grad
    if self._grad is not None:
        new._grad = self._grad.__deepcopy__(memo)
    memo[id(self)] = new
    return new


def _reduce_ex(self, protocol):
    if self.grad_fn is not None:
        raise RuntimeError("Can't pickle a Tensor that is not a graph leaf; detach() it first")
    state = tuple(getattr(self, k)._data if isinstance(getattr(self, k), Tensor) else getattr(self, k)
                  for k in type(self)._state)
    return (_rebuild_sparse, (type(self).__name__, state))


def _rebuild_sparse(kind, state):
    """A pickled sparse tensor (as PyTorch's, without requires_grad)."""
    cls = _CLASSES[kind]
    return cls._build(*[_make(np.array(s)) if isinstance(s, np.ndarray) else s for s in state])


def _len(self) -> int:
    if not self._sz:
        raise TypeError("len() of a 0-d tensor")
    return self._sz[0]


def _bool(self) -> bool:
    return bool(_item(self))


def _refuse(op: str):
    def fn(self, *args, **kwargs):
        raise not_implemented(op, type(self)._backend)
    fn.__name__ = op
    return fn


@classmethod
def _torch_function(cls, func, types, args=(), kwargs=None):
    """Every Tensor method of a sparse tensor and every ``torch.X`` given one: its sparse kernel, or
    PyTorch's refusal."""
    name = getattr(func, "__name__", "") or ""
    handler = HANDLERS.get(name) or HANDLERS.get(own_name(func))
    if handler is None:
        backend = next((type(a)._backend for a in args if isinstance(a, _SPARSE_TYPES)), cls._backend)
        raise not_implemented(_aten_name(func, name), backend)
    return handler(*args, **(kwargs or {}))


def refused_as(aten: str, *keys: str) -> None:
    """The ops ``keys`` (``REGISTRY`` keys), whose ATen operator in the sparse backends' refusal is ``aten``, not their
    Python name: kept on their declarations (``decl.rules["sparse_aten"]``)."""
    for key in keys:
        bind_rule("sparse_aten", key, aten)


refused_as("view", "reshape")
refused_as("fill_.Scalar", "fill_")
refused_as("eq.Tensor", "eq")
refused_as("ne.Tensor", "ne")


def _aten_name(func, name: str) -> str:
    """The ATen operator a sparse backend's refusal of ``func`` (called as ``name``) names."""
    if name == "__getitem__":
        return "index.Tensor"
    decl = declaration_of(func)
    return decl.rules.get("sparse_aten", name) if decl is not None else name
_LAYOUT_WORD = {sparse_coo: "Sparse", sparse_csr: "CSR"}


def _dunder(name: str, swap: bool = False):
    """``a <op> b`` for a sparse operand, as the handler of ``name`` computes it (``swap``: the reflected
    dunder, the sparse tensor on the right)."""
    def fn(self, other):
        h = HANDLERS.get(name)
        if h is None:
            raise not_implemented(name, type(self)._backend)
        return h(other, self) if swap else h(self, other)
    fn.__name__ = name
    return fn


def _rpow(self, other):
    raise not_implemented("pow.Scalar", type(self)._backend)


def _inplace_dunder(name: str):
    def fn(self, other):
        return HANDLERS[name](self, other)
    return fn


_COMMON = {
    "_sparse_layout": True, "shape": property(_shape), "size": _size, "dim": _dim, "ndimension": _dim,
    "ndim": property(_dim), "numel": _numel, "nelement": _numel,
    "dtype": property(lambda self: self._vt.dtype), "element_size": lambda self: self._vt.element_size(),
    "itemsize": property(lambda self: self._vt.element_size()),
    "is_floating_point": lambda self: self._vt.is_floating_point(), "is_complex": lambda self: self._vt.is_complex(),
    "stride": _stride, "is_contiguous": lambda self, memory_format=None: False,
    "requires_grad_": _requires_grad_,
    "requires_grad": property(lambda self: self._requires_grad, _set_requires_grad),
    "_data": property(_dense_data, _refuse_set_data), "data": property(_data_get, _data_set),
    "numpy": _numpy, "tolist": _no_storage, "data_ptr": _no_storage, "storage": _storage,
    "untyped_storage": _storage, "_typed_storage": _storage, "item": _item, "__repr__": _repr,
    "__str__": _repr, "__deepcopy__": _deepcopy, "__reduce_ex__": _reduce_ex, "__len__": _len, "__bool__": _bool,
    "__torch_function__": _torch_function, "__eq__": _refuse("eq.Tensor"), "__ne__": _refuse("ne.Tensor"),
    "__setitem__": _refuse("index_put_"), "__getitem__": _refuse("index.Tensor"), "__iter__": _refuse("unbind.int"),
    "__hash__": lambda self: id(self), "__array__": _numpy,
    "__add__": _dunder("add"), "__radd__": _dunder("add", swap=True), "__sub__": _dunder("sub"),
    "__rsub__": _dunder("sub", swap=True), "__mul__": _dunder("mul"), "__rmul__": _dunder("mul", swap=True),
    "__truediv__": _dunder("div"), "__rtruediv__": _dunder("div", swap=True), "__matmul__": _dunder("matmul"),
    "__rmatmul__": _dunder("matmul", swap=True), "__pow__": _dunder("pow"), "__rpow__": _rpow,
    "__neg__": lambda self: HANDLERS["neg"](self), "__abs__": lambda self: HANDLERS["abs"](self),
    "__iadd__": _inplace_dunder("add_"), "__isub__": _inplace_dunder("sub_"), "__imul__": _inplace_dunder("mul_"),
    "__itruediv__": _inplace_dunder("div_"),
    "T": property(lambda self: HANDLERS["t"](self)), "mT": property(lambda self: HANDLERS["transpose"](self, -2, -1)),
    "H": property(lambda self: HANDLERS["t"](self)), "mH": property(lambda self: HANDLERS["transpose"](self, -2, -1)),
    "real": property(lambda self: self), "imag": property(_refuse("imag")),
}


# -- COO ------------------------------------------------------------------------------------------------
def _coo_dense(self) -> np.ndarray:
    vals = self._vt._data
    out = np.zeros(self._sz, dtype=vals.dtype)
    idx = self._it._data
    if idx.shape[1]:
        if vals.dtype == np.bool_:
            out[tuple(idx)] |= vals
        else:
            np.add.at(out, tuple(idx), vals)
    return out


def _coo_alias(self, detach: bool = False, copy: bool = False):
    it, vt = self._it, self._vt
    if copy:
        it, vt = _make(it._data.copy()), _make(vt._data.copy())
    out = make_coo(it, vt, self._sz, self._coal)
    return out


def _coo_build(indices, values, size, coalesced):
    return make_coo(indices, values, size, coalesced)


def _coo_repr(self) -> str:
    prefix = "tensor("
    indent = len(prefix)
    suffixes = [f"size={tuple(self._sz)}", f"nnz={self._it._data.shape[1]}"]
    dt = self._vt.dtype
    if not _default_dtype(dt):
        suffixes.append(f"dtype={_dtype.SHOWN_AS[0]}.{dt.name}")
    ind = _body(self._it._data, False, indent + len("indices=tensor("))
    vals = _body(self._vt._data, dt.is_floating_point, indent + len("values=tensor("))
    text = prefix + "indices=tensor(" + ind + "),\n" + " " * indent + "values=tensor(" + vals + ")"
    suffixes.append(f"layout={_dtype.SHOWN_AS[0]}.sparse_coo")
    _grad_suffix(self, suffixes)
    return _add_suffixes(text, suffixes, indent, force_newline=True)


def _body(a: np.ndarray, floating: bool, indent: int) -> str:
    if a.size == 0:
        return f"[], size={tuple(a.shape)}"
    return tensor_body(a, floating, indent)


def _default_dtype(dt) -> bool:
    default = _dtype.get_default_dtype().name
    return dt.name in (default, "complex128" if default == "float64" else "complex64", "int64", "bool")


def _grad_suffix(t, suffixes: list) -> None:
    if t.grad_fn is not None:
        suffixes.append(f"grad_fn=<{type(t.grad_fn).__name__}>")
    elif t._requires_grad:
        suffixes.append("requires_grad=True")


def _sparse_class(name: str, specific: dict) -> type:
    cls = type(name, (Tensor,), {**_COMMON, **specific, "__module__": __name__})
    return cls


SparseCooTensor = _sparse_class("SparseCooTensor", {
    "__doc__": "A sparse COO tensor: ``values[k]`` at ``indices[:, k]``, duplicates summed.",
    "is_sparse": True, "is_sparse_csr": False, "layout": sparse_coo, "_backend": "SparseCPU",
    "_impl": "SparseTensorImpl", "_state": ("_it", "_vt", "_sz", "_coal"),
    "_to_dense_array": _coo_dense, "_alias": _coo_alias, "_repr_of": _coo_repr, "_build": staticmethod(_coo_build)})


def make_coo(indices: Tensor, values: Tensor, size, coalesced: bool = False):
    """A COO tensor holding ``indices`` and ``values`` (tensors without history, used as they are); ops
    give it their node through ``record``."""
    cls = SparseCooTensor
    if not cls.__dict__.get("_tinytorch_routed"):
        _prepare_subclass(cls)
    t = _new(cls)
    t._it, t._vt, t._sz, t._coal = indices, values, tuple(int(s) for s in size), bool(coalesced)
    t._vc = _new_vc()
    return t


# -- CSR ------------------------------------------------------------------------------------------------
def csr_rows(crow: np.ndarray) -> np.ndarray:
    """The row of each stored element of a CSR matrix."""
    return np.repeat(np.arange(len(crow) - 1, dtype=np.int64), np.diff(crow))


def _csr_dense(self) -> np.ndarray:
    vals = self._vt._data
    out = np.zeros(self._sz, dtype=vals.dtype)
    crow, col = self._crow._data, self._col._data
    if col.size:
        rows = csr_rows(crow)
        if vals.dtype == np.bool_:
            out[rows, col] |= vals
        else:
            np.add.at(out, (rows, col), vals)
    return out


def _csr_alias(self, detach: bool = False, copy: bool = False):
    crow, col, vt = self._crow, self._col, self._vt
    if copy:
        crow, col, vt = _make(crow._data.copy()), _make(col._data.copy()), _make(vt._data.copy())
    return make_csr(crow, col, vt, self._sz)


def _csr_build(crow, col, values, size):
    return make_csr(crow, col, values, size)


def _csr_repr(self) -> str:
    prefix = "tensor("
    indent = len(prefix)
    suffixes = [f"size={tuple(self._sz)}", f"nnz={self._col._data.shape[-1]}"]
    dt = self._vt.dtype
    if not _default_dtype(dt):
        suffixes.append(f"dtype={_dtype.SHOWN_AS[0]}.{dt.name}")
    crow = _body(self._crow._data, False, indent + len("crow_indices=tensor("))
    col = _body(self._col._data, False, indent + len("col_indices=tensor("))
    vals = _body(self._vt._data, dt.is_floating_point, indent + len("values=tensor("))
    text = (prefix + "crow_indices=tensor(" + crow + "),\n" + " " * indent + "col_indices=tensor(" + col + "),\n"
            + " " * indent + "values=tensor(" + vals + ")")
    suffixes.append(f"layout={_dtype.SHOWN_AS[0]}.sparse_csr")
    _grad_suffix(self, suffixes)
    return _add_suffixes(text, suffixes, indent)


SparseCsrTensor = _sparse_class("SparseCsrTensor", {
    "__doc__": "A sparse CSR matrix: row ``r``'s elements are ``values[crow[r]:crow[r+1]]`` in columns "
               "``col_indices[crow[r]:crow[r+1]]``.",
    "is_sparse": False, "is_sparse_csr": True, "layout": sparse_csr, "_backend": "SparseCsrCPU",
    "_impl": "SparseCsrTensorImpl", "_state": ("_crow", "_col", "_vt", "_sz"),
    "_to_dense_array": _csr_dense, "_alias": _csr_alias, "_repr_of": _csr_repr, "_build": staticmethod(_csr_build)})

_SPARSE_TYPES = (SparseCooTensor, SparseCsrTensor)
_CLASSES = {"SparseCooTensor": SparseCooTensor, "SparseCsrTensor": SparseCsrTensor}

_csr_warned = [False]


def make_csr(crow: Tensor, col: Tensor, values: Tensor, size):
    """A CSR matrix holding ``crow``, ``col`` and ``values`` (tensors without history)."""
    cls = SparseCsrTensor
    if not cls.__dict__.get("_tinytorch_routed"):
        _prepare_subclass(cls)
    if not _csr_warned[0]:
        _csr_warned[0] = True
        warn_at_caller("Sparse CSR tensor support is in beta state. If you miss a functionality in the sparse "
                       "tensor support, please submit a feature request to https://github.com/pytorch/pytorch/issues.")
    t = _new(cls)
    t._crow, t._col, t._vt, t._sz = crow, col, values, tuple(int(s) for s in size)
    t._vc = _new_vc()
    return t


def is_sparse_tensor(t) -> bool:
    return isinstance(t, _SPARSE_TYPES)


def is_coo(t) -> bool:
    return type(t) is SparseCooTensor


def is_csr(t) -> bool:
    return type(t) is SparseCsrTensor
