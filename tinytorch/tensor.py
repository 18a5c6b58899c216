"""The Tensor: a numpy array plus what autograd needs to know about it.

Ops live in ``tinytorch/_ops``; each declaration there attaches its methods to Tensor (``_ops/_core/registry.py``).
This file holds the state, the autograd-facing methods and the fast constructor ``_make``."""
from __future__ import annotations

import warnings
import weakref

import numpy as np

from ._dtype import FLOATING_NP
from ._meta_array import MetaArray
from . import _dtype
from .autograd.grad_mode import FRESH_VERSION, NO_VERSION, _Active, _State, version_counter
from ._size import Size, device  # noqa: F401  (re-exported: tinytorch.Size, tinytorch.device)
from .autograd import node as _node
from .autograd.node import RemovableHandle, _HookDict, accumulator_of, note_output, share_instance_keys
from ._tensor.placement import _TensorPlacement
from ._tensor.conversion import _TensorConversion
from ._tensor.printing import tensor_repr
from ._tensor import parsed

# autograd/engine.py runs backward; it builds on this module, so it registers its entry point when it
# loads (``bind_backward``); ``Tensor.backward`` calls it
_run_backward = None


def bind_backward(run_backward) -> None:
    """Where autograd/engine.py registers ``backward``, the function behind ``Tensor.backward``."""
    global _run_backward
    _run_backward = run_backward


def register_attribute(name: str, value) -> None:
    """Where the modules built on this one add a method or property to Tensor (the ops' spellings,
    through ``_ops/_core/registry.py``; ``T``, ``real``, ``__dlpack__``...): the one way a module outside this
    file adds to the class (tests/_import_graph.py counts any other)."""
    setattr(Tensor, name, value)


_CPU = device("cpu")
_META = device("meta")
_new = object.__new__
# the instance attributes most tensors set (Tensor's class defaults, set where they differ): entered in
# the key table the instances of Tensor (and of tinytorch's subclasses) share before any is made, so
# that none needs a dict of its own (see share_instance_keys: a result sets grad_fn, a parameter its
# _accumulator, long after the first instances were made). The rarer ones (hooks, retain_grad, stale
# views) are left out: each entered name makes every instance's value array one slot longer
_TENSOR_ATTRS = ("_data", "_vc", "grad_fn", "_requires_grad", "_base", "_output_nr", "_grad", "_accumulator",
                 "_creation")


def _make(data: np.ndarray, grad_fn=None) -> "Tensor":
    """Wrap a fresh result array; with ``grad_fn`` it is a non-leaf that requires grad."""
    t = _new(Tensor)
    t._data = data
    if type(data) is MetaArray:  # a result of a meta tensor's: on the meta device, whatever code made it
        t._meta = True
    # inference tensors count no versions (the class counter spares every other thread its own lookup);
    # others keep the class's FRESH_VERSION until version_counter gives them a list
    if _Active.inference and _State.inference:
        t._vc = NO_VERSION
    if grad_fn is not None:
        t.grad_fn = grad_fn
        t._requires_grad = True
        if _Active.fw and _State.fw_level is not None:
            note_output(grad_fn, t)
    return t


_ref = weakref.ref


def _view_of(base: "Tensor", data: np.ndarray, grad_fn=None) -> "Tensor":
    """A result sharing ``base``'s storage (``data`` must be a numpy view of ``base._data``): same version
    counter, remembers the root base. Every view op ends here; see ``_ops/shape/views.py``."""
    t = _new(Tensor)
    t._data = data
    vc = base._vc
    if type(vc) is tuple:  # version_counter(base), inline
        vc = base._vc = [0]
    t._vc = vc
    root = base if base._base is None else base._base
    t._base = root
    if grad_fn is not None:
        t.grad_fn = grad_fn
        t._requires_grad = True
        if _Active.fw and _State.fw_level is not None:
            note_output(grad_fn, t)
    elif root._requires_grad:
        t._requires_grad = True  # as PyTorch: a view requires grad when its base does, even one made under no_grad
    if not _State.enabled:
        # registered even when nothing requires grad yet: if the base later gets a history from an
        # in-place op, PyTorch refuses to use this view (refresh marks it)
        t._creation = "no_grad"
    elif base._creation is not None:
        t._creation = base._creation
    # the storage's live views, weakly: [version, [weakref, ...], prune threshold]. Dead references are
    # pruned once they may outnumber the live ones by 32: views made and dropped in a loop (``x[3]``)
    # then pay for one list rebuild every 32 views
    if vc is NO_VERSION:  # inference tensors keep no view bookkeeping
        return t
    if len(vc) == 1:
        vc.extend(([], 32))
    views = vc[1]
    views.append(_ref(t))
    if len(views) > vc[2]:
        views[:] = [r for r in views if r() is not None]
        vc[2] = 2 * len(views) + 32
    return t


def _wrap_float_result(x):
    """Numpy ufuncs return scalars for 0-d inputs; tensors always hold arrays."""
    return x if type(x) is np.ndarray or type(x) is MetaArray else np.asarray(x)


def legacy_array(np_dtype, args: tuple) -> np.ndarray:
    """The array of a legacy constructor call (``Tensor(...)``, ``FloatTensor(...)``, ``t.new(...)``):
    sizes (ints, or one ``Size``) give an uninitialised array of that shape; one sequence gives its data."""
    if not args:
        return np.empty((0,), dtype=np_dtype)  # Tensor() is an empty 1-d tensor
    if len(args) == 1 and isinstance(args[0], Size):
        args = tuple(args[0])
    elif len(args) > 1 and any(isinstance(a, Size) for a in args):
        names = ", ".join("torch.Size" if isinstance(a, Size) else type(a).__name__ for a in args)

        def what(a) -> str:
            if isinstance(a, Size):
                inner = ", ".join(type(x).__name__ for x in a)
                return f"!torch.Size of ({inner}{',' if len(a) == 1 else ''})!"
            return f"!{type(a).__name__}!"
        raise TypeError(f"new() received an invalid combination of arguments - got ({names}), but expected one of:\n"
                        " * (*, torch.device device = None)\n      didn't match because some of the arguments have "
                        f"invalid types: ({', '.join(what(a) for a in args)})\n"
                        " * (torch.Storage storage)\n * (Tensor other)\n"
                        " * (tuple of ints size, *, torch.device device = None)\n * (object data, *, torch.device "
                        "device = None)\n")
    if all(isinstance(a, (int, np.integer)) and not isinstance(a, (bool, np.bool_)) for a in args):
        for a in args:
            if a < 0:
                raise RuntimeError(f"Trying to create tensor with negative dimension {a}: "
                                   f"[{', '.join(str(int(x)) for x in args)}]")
        return np.empty(tuple(int(a) for a in args), dtype=np_dtype)
    if len(args) == 1:
        data = args[0]
        if isinstance(data, str):
            raise TypeError("new(): invalid data type 'str'")
        if isinstance(data, (int, float, bool, complex, np.generic)):
            raise TypeError(f"new(): data must be a sequence (got {type(data).__name__})")
        arr = np.array(data.tolist() if isinstance(data, Tensor) else data)
        if np.dtype(np_dtype) in FLOATING_NP or arr.dtype not in FLOATING_NP:
            return arr.astype(np_dtype)
        return np.trunc(arr).astype(np_dtype)  # Python floats into an integer type: truncated
    raise TypeError("new() received an invalid combination of arguments")


class Tensor(_TensorPlacement, _TensorConversion):
    """A multi-dimensional array that records the ops made from it when it requires grad."""

    __module__ = "tinytorch"  # PyTorch's public classes name the package: <class 'tinytorch.Tensor'>
    # defaults at class level: ``_make`` sets only what differs from them
    _requires_grad = False
    grad_fn = None
    _grad = None
    _output_nr = 0
    _base = None
    _retains_grad = False
    _hooks = None            # leaf tensor hooks: {id: fn}
    _post_acc_hooks = None   # {id: fn}
    _accumulator = None      # weakref to the leaf's AccumulateGrad
    _creation = None         # views PyTorch forbids to modify in place: "no_grad", "multi", "custom"
    _stale = None            # such a view after its base was modified: the error its next use raises
    _own_requires_grad = False  # a view made to require grad itself (a leaf of its own)
    _named_in_errors = None  # a saved result unpacked with another history: the node errors name
    _unseen = False          # a view whose regenerated history PyTorch has not looked at yet (_ops/shape/views.py)
    _meta = False            # on the meta device: its values are never shown (tinytorch/_meta.py)
    _vc = FRESH_VERSION      # the version counter: see autograd.grad_mode.version_counter
    __array_priority__ = 1000  # numpy defers ``ndarray * Tensor`` to Tensor.__rmul__

    def __init_subclass__(cls, **kwargs) -> None:
        super().__init_subclass__(**kwargs)
        if cls.__module__.startswith("tinytorch."):  # Parameter...: a user's class may define __del__
            share_instance_keys(cls, _TENSOR_ATTRS)

    def __new__(cls, *args, dtype=None, device=None):
        """Legacy constructor: ``Tensor([1, 2])`` copies data; ``Tensor(2, 3)`` and
        ``Tensor(torch.Size([2, 3]))`` are uninitialised tensors of that shape; ``Tensor(t)`` aliases ``t``.
        It is ``__new__``, as PyTorch's: a subclass whose own ``__new__`` returns an instance keeps what it made."""
        self = _new(cls)
        if cls is not Tensor and cls.__init__ is not Tensor.__init__:
            return self  # a subclass that initialises itself in __init__ (tinytorch's BatchedTensor...)
        if len(args) == 1 and isinstance(args[0], Tensor) and dtype is None:
            src = args[0]  # an alias of the same storage and version counter, whatever its dtype (PyTorch's)
            self._data = src._data
            self._vc = NO_VERSION if _State.inference else version_counter(src)
            return self
        self._data = legacy_array((dtype or _dtype.get_default_dtype()).np, args)
        self._vc = NO_VERSION if _State.inference else [0]
        return self

    def __init__(self, *args, **kwargs):
        """Does nothing (as PyTorch's): the legacy constructor is ``__new__``; a subclass's ``__new__`` may
        take any arguments, which Python then passes here too."""

    # -- plain attributes ----------------------------------------------------------------------
    @property
    def shape(self) -> Size:
        return Size(self._data.shape)

    @parsed
    def size(self, dim: int | None = None):
        """The shape as a ``Size``, or one dimension's length."""
        if dim is None:
            return Size(self._data.shape)
        return self._data.shape[_wrap_dim(dim, self._data.ndim)]

    @property
    def dtype(self) -> _dtype.dtype:
        return _dtype.FROM_NP[self._data.dtype]

    @property
    def device(self) -> device:
        return _META if self._meta else _CPU

    @property
    def is_meta(self) -> bool:
        """On the meta device: a shape, dtype and strides without values (see tinytorch/_meta.py)."""
        return self._meta

    @property
    def is_cpu(self) -> bool:
        return not self._meta

    is_cuda = False
    is_xpu = False
    is_mps = False
    is_sparse = False
    is_quantized = False

    @property
    def ndim(self) -> int:
        return self._data.ndim

    @parsed
    def dim(self) -> int:
        return self._data.ndim

    ndimension = dim

    @parsed
    def numel(self) -> int:
        return self._data.size

    nelement = numel

    @parsed
    def element_size(self) -> int:
        return self._data.itemsize

    @parsed
    def stride(self, dim: int | None = None):
        """Strides in elements, like PyTorch's."""
        a = self._data
        st = _node.elem_strides(a.shape, a.strides, a.itemsize, type(a) is not MetaArray)
        return st if dim is None else st[_wrap_dim(dim, a.ndim)]

    @parsed
    def is_contiguous(self, memory_format=None) -> bool:
        """Laid out row-major (``contiguous_format``, the default) or channels-last (``channels_last`` for 4-d,
        ``channels_last_3d`` for 5-d); as PyTorch, dims of size 1 do not count."""
        name = getattr(memory_format, "name", None)
        if name in (None, "contiguous_format"):
            return self._data.flags.c_contiguous
        if name == "preserve_format":
            raise RuntimeError("Unsupported memory format. preserve_format")
        order = {"channels_last": (1, 3, 2, 0), "channels_last_3d": (1, 4, 3, 2, 0)}[name]
        if self._data.ndim != len(order):
            return False
        expected = 1
        for d in order:
            n = self._data.shape[d]
            if n != 1:
                if self._data.strides[d] != expected * self._data.itemsize:
                    return False
                expected *= n
        return True

    @parsed
    def is_floating_point(self) -> bool:
        return self._data.dtype in FLOATING_NP

    @parsed
    def data_ptr(self) -> int:
        """Address of the first element: equal for tensors that share storage (0 on the meta device)."""
        if self._meta:
            return 0
        return self._data.__array_interface__["data"][0]

    @parsed
    def get_device(self) -> int:
        return -1

    @property
    def _version(self) -> int:
        if self._vc is NO_VERSION:
            raise RuntimeError("Inference tensors do not track version counter.")
        return self._vc[0]

    @parsed
    def is_inference(self) -> bool:
        """True for a tensor made inside ``inference_mode`` (or a view of one)."""
        return self._vc is NO_VERSION

    @property
    def is_leaf(self) -> bool:
        return self.grad_fn is None

    # -- requires_grad -------------------------------------------------------------------------
    @property
    def requires_grad(self) -> bool:
        return self._requires_grad

    @requires_grad.setter
    def requires_grad(self, flag: bool) -> None:
        # PyTorch words the setter's refusals differently from requires_grad_()'s
        if self.grad_fn is not None and flag:
            raise RuntimeError("you can only change requires_grad flags of leaf variables.")
        if flag and (self._data.dtype not in FLOATING_NP and self._data.dtype.kind != "c"):
            raise RuntimeError("only Tensors of floating point and complex dtype can require gradients")
        self.requires_grad_(flag)

    @parsed
    def requires_grad_(self, requires_grad: bool = True) -> "Tensor":
        """Set whether autograd records ops on this leaf; returns self."""
        requires_grad = bool(requires_grad)
        if self.grad_fn is not None:
            if requires_grad:
                return self
            raise RuntimeError(
                "you can only change requires_grad flags of leaf variables. If you want to use a "
                "computed variable in a subgraph that doesn't require differentiation use "
                "var_no_grad = var.detach().")
        if requires_grad and (self._data.dtype not in FLOATING_NP and self._data.dtype.kind != "c"):
            raise RuntimeError("only Tensors of floating point dtype can require gradients")
        if requires_grad and self._vc is NO_VERSION and not _State.inference:
            raise RuntimeError("Setting requires_grad=True on inference tensor outside InferenceMode is not allowed.")
        self._requires_grad = requires_grad
        if requires_grad and "_fw_only_leaf" in self.__dict__:
            del self._fw_only_leaf  # a dual tensor (forward AD) that now requires grad itself, as PyTorch's
        if self._base is not None:
            self._own_requires_grad = requires_grad
        elif len(self._vc) > 1:
            _views_follow(self)
        return self

    # -- .grad ---------------------------------------------------------------------------------
    @property
    def grad(self):
        # the history as stored: a view whose history PyTorch has not regenerated yet counts as a leaf
        # here (see _UnseenView in _ops/shape/views.py), so this read must not count as a look
        if not self._unseen and self.grad_fn is not None and not self._retains_grad:
            warnings.warn(
                "The .grad attribute of a Tensor that is not a leaf Tensor is being accessed. Its .grad "
                "attribute won't be populated during autograd.backward(). If you indeed want the .grad "
                "field to be populated for a non-leaf Tensor, use .retain_grad() on the non-leaf Tensor. "
                "If you access the non-leaf Tensor by mistake, make sure you access the leaf Tensor "
                "instead. See github.com/pytorch/pytorch/pull/30531 for more information.",
                UserWarning, stacklevel=2)
        return self._grad

    @grad.setter
    def grad(self, value) -> None:
        if value is not None:
            if not isinstance(value, Tensor):
                raise TypeError(f"assigned grad expected to be a Tensor or None but got grad of type "
                                f"{type(value).__name__}")
            if value._data.shape != self._data.shape:
                raise RuntimeError(f"attempting to assign a gradient of size '{_dims(value._data.shape)}' to a "
                                   f"tensor of size '{_dims(self._data.shape)}'. Please ensure that the gradient "
                                   "and the tensor are the same size")
            if value._data.dtype != self._data.dtype:
                raise RuntimeError(
                    f"attempting to assign a gradient with dtype '{_dtype.cpp_name(value._data.dtype)}' to a tensor "
                    f"with grad_dtype '{self.dtype._scalar}'. The gradient must match the tensor's grad_dtype "
                    "(defaults to the tensor's dtype). You can set the tensor's grad_dtype attribute with a specific "
                    "dtype, or None to allow any dtype. Set grad_dtype with caution. Diverging the dtypes of a tensor "
                    "and its gradient may break downstream systems that assume they match.")
        if _State.step_watch is not None:  # a torch.compile capture in this thread (_dynamo/train_step.py)
            _State.step_watch(self, "grad", None, ())
        self._grad = value

    @grad.deleter
    def grad(self) -> None:
        if _State.step_watch is not None:
            _State.step_watch(self, "grad", None, ())
        self._grad = None

    @property
    def retains_grad(self) -> bool:
        return self._retains_grad

    @parsed
    def retain_grad(self) -> None:
        """Keep this non-leaf's gradient in ``.grad`` during backward."""
        if not self._requires_grad:
            raise RuntimeError("can't retain_grad on Tensor that has requires_grad=False")
        if self._unseen or self.grad_fn is None:
            return  # leaves keep their grad anyway (a view PyTorch has not regenerated yet is one to it)
        if self._retains_grad:
            return
        import weakref

        self.grad_fn._retain(self._output_nr, weakref.ref(self))
        self._retains_grad = True

    # -- hooks ---------------------------------------------------------------------------------
    def register_hook(self, hook):
        """Call ``hook(grad)`` when this tensor's gradient is computed; a returned tensor replaces it."""
        if not self._requires_grad:
            raise RuntimeError("cannot register a hook on a tensor that doesn't require gradient")
        if self.grad_fn is not None:
            return self.grad_fn._add_tensor_pre_hook(self._output_nr, hook)
        if self._hooks is None:
            self._hooks = _HookDict()
        handle = RemovableHandle(self._hooks)
        self._hooks[handle.id] = hook
        return handle

    @property
    def _backward_hooks(self):
        """PyTorch's dict of the hooks ``register_hook`` added (None when there are none), which tools
        such as tinytorch.lens read on both libraries."""
        if self.grad_fn is not None:
            return (self.grad_fn._tensor_pre_hooks or {}).get(self._output_nr)
        return self._hooks

    @property
    def _post_accumulate_grad_hooks(self):
        """PyTorch's dict of the hooks ``register_post_accumulate_grad_hook`` added (None when none)."""
        return self._post_acc_hooks

    def register_post_accumulate_grad_hook(self, hook):
        """Call ``hook(tensor)`` after a leaf's ``.grad`` has been accumulated."""
        if not self._requires_grad:
            raise RuntimeError("cannot register a hook on a tensor that doesn't require gradient")
        if self.grad_fn is not None:
            raise RuntimeError("post accumulate grad hooks cannot be registered on non-leaf tensors")
        if self._post_acc_hooks is None:
            self._post_acc_hooks = _HookDict()
        handle = RemovableHandle(self._post_acc_hooks)
        self._post_acc_hooks[handle.id] = hook
        return handle

    # -- backward ------------------------------------------------------------------------------
    def backward(self, gradient=None, retain_graph=None, create_graph=False, inputs=None) -> None:
        """Accumulate d(self)/d(leaf) into every leaf's ``.grad`` (or only into ``inputs``)."""
        _run_backward(self, gradient, retain_graph, create_graph, inputs=inputs)

    # detach / detach_ are declared in _ops/shape/conversions.py

    @property
    def data(self) -> "Tensor":
        t = _new(Tensor)
        t._data = self._data
        # changes through .data are invisible to autograd, as in PyTorch (an inference tensor's stays one)
        t._vc = NO_VERSION if self._vc is NO_VERSION else [0]
        if self._meta:
            t._meta = True
        return t

    @data.setter
    def data(self, value: "Tensor") -> None:
        if not isinstance(value, Tensor):
            raise TypeError(f"data must be a Tensor, got {type(value).__name__}")
        self._data = value._data
        if value._meta or self._meta:
            self._meta = value._meta

    def __hash__(self) -> int:
        return id(self)

    def __repr__(self, *, tensor_contents=None) -> str:
        return tensor_repr(self)

    def __reduce_ex__(self, protocol):
        # leaves only, as PyTorch: the graph never travels
        if self.grad_fn is not None:
            raise RuntimeError("Can't pickle a Tensor that is not a graph leaf; detach() it first")
        return (_rebuild, (self._data, self._requires_grad))

    def _is_view(self) -> bool:
        return self._base is not None

    @property
    def output_nr(self) -> int:
        return self._output_nr

    def _edge(self):
        """The graph edge an op using this tensor points at: (node, output_nr) or (None, 0)."""
        if self.grad_fn is not None:
            return (self.grad_fn, self._output_nr)
        if self._requires_grad:
            if self._base is not None and not self._own_requires_grad:
                # a view without history (made under no_grad) leads nowhere, as in PyTorch
                if self._stale is not None:
                    raise RuntimeError(self._stale)
                return (None, 0)
            return (accumulator_of(self), 0)
        return (None, 0)


# the C++ type names PyTorch's grad-assignment error prints


def _views_follow(base: Tensor) -> None:
    """Views without a history of their own require grad exactly when their base does (PyTorch)."""
    for ref in base._vc[1]:
        v = ref()
        if v is not None and v._base is base and v.__dict__.get("grad_fn") is None and not v._own_requires_grad:
            v._requires_grad = base._requires_grad


def _dims(shape) -> str:
    return "[" + ", ".join(str(d) for d in shape) + "]"


def _rebuild(data, requires_grad):
    t = _make(np.array(data, copy=True) if not data.flags.writeable else data)
    t._requires_grad = requires_grad
    return t


def _wrap_dim(dim: int, ndim: int) -> int:
    """Map a possibly negative dim to [0, ndim); PyTorch's IndexError text when out of range."""
    n = ndim if ndim > 0 else 1
    if not -n <= dim < n:
        raise IndexError(f"Dimension out of range (expected to be in range of [{-n}, {n - 1}], but got {dim})")
    return dim + n if dim < 0 else dim


def _grad_enabled() -> bool:
    return _State.enabled


share_instance_keys(Tensor, _TENSOR_ATTRS)
_node.bind_tensor(Tensor, _make)
