"""Graph nodes: what ``grad_fn`` points at.

A node is made by an op's forward. It holds ``next_functions`` (one ``(node, output_nr)`` edge per
differentiable input, ``(None, 0)`` for the others) and whatever the op saved for its backward. Its
class name is PyTorch's (``MulBackward0``), because people print and walk these objects."""
from __future__ import annotations

import functools
import itertools
import re
import traceback
import weakref

import numpy as np

from .._dtype import SHOWN_AS
from .grad_mode import _Active, _State, version_counter

# tinytorch.tensor builds on this module (a tensor's grad_fn is a Node), so this module cannot import
# it: tensor.py hands its class and its result constructor over when it loads (``bind_tensor``)
_Tensor = None
_make = None


def bind_tensor(tensor_cls, make) -> None:
    global _Tensor, _make
    _Tensor, _make = tensor_cls, make

_FREED_MSG = (
    "Trying to backward through the graph a second time (or directly access saved tensors after they "
    "have already been freed). Saved intermediate values of the graph are freed when you call "
    ".backward() or autograd.grad(). Specify retain_graph=True if you need to backward through the "
    "graph a second time or if you need to access saved tensors after calling backward.")

# creation order of nodes (PyTorch's ``sequence_nr``): the backward engine runs the ready node made last first
_sequence = itertools.count()
# PyTorch's sequence number of every AccumulateGrad (UINT64_MAX): the engine runs leaves' sinks before any other node
ACCUMULATE_SEQUENCE_NR = (1 << 64) - 1


class _LateSequenceNr:
    """The class-level ``_seq`` of nodes: a node made without ``Node.__init__`` (``binary_node`` sets its own)
    is numbered when first asked, so that every node the engine meets has a number of its own."""

    def __get__(self, node, cls=None):
        if node is None:
            return self
        seq = node.__dict__["_seq"] = next(_sequence)
        return seq


@functools.lru_cache(maxsize=256)
def _in_hook_order(order: tuple, n: int) -> tuple:
    """The saved tensors' indices, those PyTorch names first in its order, then the rest (per node class
    and count, so computed once: _unpacked_saved asks at every backward)."""
    rest = tuple(i for i in range(n) if i not in order)
    return tuple(i for i in order if i < n) + rest
# the saved-version tuples of the common saves (nothing modified yet), shared by every node: one fewer
# object per node for the garbage collector to count (a micrograd graph makes thousands of nodes a step)
_SHARED_VERSIONS = {v: v for v in ((0,), (None,), (0, 0), (0, None), (None, 0), (None, None), (0, 0, 0))}
# ... and the other combinations met, up to this many (a parameter updated in place is at version k at
# step k, so each step of a training loop meets new ones; these tuples of ints are few and never freed)
_MAX_SHARED_VERSIONS = 4096


def _shared_versions(versions: tuple) -> tuple:
    if len(_SHARED_VERSIONS) < _MAX_SHARED_VERSIONS:
        return _SHARED_VERSIONS.setdefault(versions, versions)
    return _SHARED_VERSIONS.get(versions, versions)
# nodes PyTorch implements by hand in C++: their name() carries the namespace
_CPP_NODES = frozenset({"AccumulateGrad", "CopySlices", "CopyBackwards"})
_BACKWARD_SUFFIX = re.compile(r"Backward\d*$")


def share_instance_keys(cls, names) -> None:
    """Enter ``names`` in the key table CPython shares among ``cls``'s instances, by setting them on a
    throw-away instance as the class is made.

    CPython (3.11) keeps a class's instance attributes in one key table shared by all its instances,
    each instance holding only the values; but every instance made shrinks the room left for new
    keys, so after a few dozen instances a name met for the first time no longer fits, and every
    instance that sets it gets a dict of its own: one more object for the garbage collector and
    slower attribute reads. A graph node sets some attributes only for some inputs (a mul's second
    edge when both inputs require grad), and a tensor its grad_fn only when it is a result, often
    long after the first instances were made. Names that are data descriptors on ``cls`` (properties)
    are left out: they store elsewhere."""
    probe = object.__new__(cls)
    for name in names:
        static = None
        for klass in cls.__mro__:
            if name in klass.__dict__:
                static = klass.__dict__[name]
                break
        if hasattr(type(static), "__set__"):
            continue
        object.__setattr__(probe, name, None)


class _HookDict(dict):
    """A hooks table; plain dicts cannot be weakly referenced, and a handle must not keep one alive."""

    __slots__ = ("__weakref__",)


class RemovableHandle:
    """Returned by ``register_hook`` and friends; ``remove()`` unregisters the hook (PyTorch's
    ``torch.utils.hooks.RemovableHandle``: ``extra_dict``'s tables, a dict or a list of them, lose the same key)."""

    __module__ = "tinytorch.utils.hooks"  # PyTorch's module for it, which re-exports ours

    _ids = itertools.count()

    def __init__(self, hooks_dict: dict, *, extra_dict=None):
        self.id = next(RemovableHandle._ids)
        self._hooks_ref = weakref.ref(hooks_dict)
        extra = [extra_dict] if isinstance(extra_dict, dict) else extra_dict or ()
        self._extra_refs = tuple(weakref.ref(d) for d in extra)

    def remove(self) -> None:
        for ref in (self._hooks_ref, *self._extra_refs):
            hooks = ref()
            if hooks is not None:
                hooks.pop(self.id, None)

    def __getstate__(self):
        # pickled with the tables it removes from (as PyTorch's), not with weak references
        return self._hooks_ref(), self.id, tuple(ref() for ref in self._extra_refs)

    def __setstate__(self, state) -> None:
        hooks, self.id, extra = state
        # a table gone before pickling gives a handle whose remove() does nothing
        self._hooks_ref = weakref.ref(hooks if hooks is not None else _HookDict())
        self._extra_refs = tuple(weakref.ref(d) for d in extra if d is not None)

    def __enter__(self):
        return self

    def __exit__(self, *exc) -> None:
        self.remove()


class _SavedOutput:
    """A node's saved output without its grad_fn; unpacking rebuilds it pointing at the node."""

    __slots__ = ("data", "vc", "output_nr", "base", "history")

    def __init__(self, t) -> None:
        # the counter itself, made now if need be: a later bump of ``t`` must show here
        self.data, self.vc, self.output_nr, self.base = t._data, version_counter(t), t._output_nr, t._base
        self.history = None  # for an in-place op on a view: makes the view's history (see _ops/shape/views.py)

    def unpack(self, node):
        if self.history is None:
            t = _make(self.data, node)
        else:
            view_node, named = self.history(node)
            t = _make(self.data, view_node)
            t._named_in_errors = named
        t._vc, t._output_nr, t._base = self.vc, self.output_nr, self.base
        return t


def _autograd_meta(t, node):
    """What of a saved tensor's autograd identity its unpacked stand-in gets back (PyTorch's SavedVariable
    keeps it beside the packed value): its place in the graph (this node's output, or another node's), or
    a leaf's gradient accumulator; None for a tensor that does not require grad."""
    if t.grad_fn is node:
        return ("output", t._output_nr)
    if t.grad_fn is not None:
        return ("history", t.grad_fn, t._output_nr)
    if t._requires_grad:
        return ("leaf", accumulator_of(t))
    return None


class _Hooked:
    """A saved tensor as ``pack_hook`` returned it; ``unpack_hook`` turns it back into a tensor, which
    takes the saved tensor's autograd identity (``meta``), as PyTorch's unpacked values do: the data is
    the hook's, the history (or the leaf a gradient accumulates into) the original's."""

    __slots__ = ("packed", "unpack_hook", "meta")
    grad_fn = None  # never a node's own output (see _pack_outputs)

    def __init__(self, packed, unpack_hook, meta=None) -> None:
        self.packed, self.unpack_hook, self.meta = packed, unpack_hook, meta

    def unpack(self, node):
        t = self.unpack_hook(self.packed)
        if not isinstance(t, _Tensor):
            raise TypeError(f"Output of saved tensor unpack_hook expected to be a Tensor but got result of type "
                            f"{type(t).__name__}")
        meta = self.meta
        if meta is None:
            return t.detach() if t._requires_grad else t
        if meta[0] == "leaf":
            out = _make(t._data)
            out._requires_grad = True
            out._accumulator = weakref.ref(meta[1])  # the original leaf's: gradients reach its .grad
            return out
        out = _make(t._data, node if meta[0] == "output" else meta[1])
        out._output_nr = meta[-1]
        return out


_FREED_HOOKS_MSG = (
    "Calling register_hooks on a saved tensor after it has been freed. Saved intermediate values of the graph are "
    "freed when you call .backward() or autograd.grad(). Specify retain_graph=True if you need to backward through "
    "the graph a second time or if you need to access saved variables after calling backward.")


class SavedTensor:
    """``grad_fn._raw_saved_<name>``: one tensor a node saved, as PyTorch's ``torch._C._autograd.SavedTensor``.
    ``register_hooks(pack_hook, unpack_hook)`` packs it at once and unpacks it at every later use (the
    backward, ``grad_fn._saved_<name>``), as ``saved_tensors_hooks`` does for every tensor of a block."""

    __slots__ = ("_node", "_index")

    def __init__(self, node, index: int) -> None:
        self._node, self._index = node, index

    def register_hooks(self, *args) -> None:
        if len(args) != 2 or not all(callable(a) for a in args):  # pybind's refusal, before anything else
            raise TypeError("register_hooks(): incompatible function arguments. The following argument types are "
                            "supported:\n    1. (self: tinytorch._C._autograd.SavedTensor, arg0: "
                            "collections.abc.Callable, arg1: collections.abc.Callable) -> None\n\nInvoked with: "
                            + ", ".join([repr(self)] + [repr(a) for a in args]))
        pack_hook, unpack_hook = args
        node = self._node
        if node._freed and node._held_tensor(self._index):
            raise RuntimeError(_FREED_HOOKS_MSG)
        slot = node._saved[self._index] if not node._freed else None
        if slot is None:
            raise RuntimeError("Calling register_hooks on a saved tensor with value None is forbidden")
        if type(slot) is _Hooked:
            raise RuntimeError("Calling register_hooks on a saved tensor whose hooks have already been set. Hint: only "
                               "one pair of hooks is allowed at a time.")
        t = node._slot_value(self._index)
        enabled = _State.enabled
        _State.enabled = False  # PyTorch hands the hook the saved data, detached, under no_grad
        try:
            packed = pack_hook(t.detach())
        finally:
            _State.enabled = enabled
        node._set_slot(self._index, _Hooked(packed, unpack_hook, _autograd_meta(t, node)))

    def unpack(self):
        return self._node._slot_value(self._index)

    @property
    def data(self):
        return self.unpack()

    @property
    def unpack_hook(self):
        slot = self._node._saved[self._index] if not self._node._freed else None
        return slot.unpack_hook if type(slot) is _Hooked else None

    def __repr__(self) -> str:
        return f"<tinytorch._C._autograd.SavedTensor object at {hex(id(self))}>"


_U64 = (1 << 64) - 1


def u64(v):
    """An int64 (or a list of them) as PyTorch's ``_saved_<name>`` reads it back: through an unsigned
    conversion, so -1 reads 18446744073709551615 (SymInts, ``_sym_sizes``, keep their sign)."""
    if isinstance(v, (tuple, list)):
        return tuple(u64(x) for x in v)
    if isinstance(v, bool) or v is None:
        return v
    return int(v) & _U64


def _saved_property(index: int) -> property:
    def get(self):
        return self._slot_value(index)
    return property(get, doc="A tensor this node saved for its backward (PyTorch's ``_saved_<name>``).")


def _raw_saved_property(index: int) -> property:
    def get(self):
        raw = self.__dict__.get("_raw_slots")
        if raw is None:
            raw = self._raw_slots = {}
        st = raw.get(index)
        if st is None:
            st = raw[index] = SavedTensor(self, index)
        return st
    return property(get, doc="That saved tensor as a ``SavedTensor`` (``register_hooks``).")


def _slot_or_property(index: int, fallback, transform=None) -> property:
    def get(self):
        t = self._slot_value(index)
        if t is None:
            v = fallback(self)
            if v is not None and self._freed:  # released: PyTorch's slot held that number as a tensor
                raise RuntimeError(_FREED_MSG)
            return v
        return t if transform is None else transform(t)
    return property(get, doc="A tensor this node saved for its backward (PyTorch's ``_saved_<name>``).")


def elem_strides(shape, strides, itemsize, numpy_empty: bool = True) -> tuple:
    """numpy's byte strides as PyTorch's element strides (``Tensor.stride()``, ``_saved_<name>_sym_strides``).
    Where numpy's say nothing, PyTorch's: a fresh empty array's (numpy gives it strides of 0 only) as a
    contiguous tensor's of its shape (a 0 counted as 1); an empty view that holds other strides (a slice, a view
    that set PyTorch's) keeps them. A 0 stride elsewhere is PyTorch's too (an expanded dim, a size-1 one among
    them): the views that add dims set PyTorch's strides for them (``unsqueezed``, indexing with None).
    ``numpy_empty=False`` (a meta array's strides, set as PyTorch's meta kernels set them, a 0 in an empty
    result's too) keeps an empty array's strides."""
    st = tuple(s // itemsize for s in strides)
    if 0 not in st:
        return st
    out = list(st)
    empty = numpy_empty and 0 in shape and not any(st)
    nxt = 1
    for d in range(len(shape) - 1, -1, -1):
        if empty:
            out[d] = nxt
        nxt = out[d] * max(shape[d], 1)
    return tuple(out)


def non_overlapping_and_dense(shape: tuple, strides: tuple, unit: int = 1) -> bool:
    """PyTorch's is_non_overlapping_and_dense: the elements tile one block of memory exactly, strides counted
    in ``unit`` (1: elements; an itemsize: numpy's bytes). Size-1 dims say nothing; the others, smallest stride
    first and an empty dim last, each step right past the block of the ones before."""
    if len(shape) == 1:
        return shape[0] < 2 or strides[0] == unit
    expected = unit
    for _empty, stride, size in sorted((n == 0, s, n) for n, s in zip(shape, strides) if n != 1):
        if stride != expected:
            return False
        expected *= size
    return True


def raw_dim(node):
    """The ``dim`` argument a node's op was given (``dim_arg``) when it kept it, else its ``dim``."""
    d = node.__dict__.get("dim_arg")
    return node.dim if d is None else d


def scalar_tensor(v):
    """A Python number as PyTorch wraps it into a 0-d tensor (float64, int64, bool, complex128), as the
    ``_saved_other`` of ``x * 2.0`` shows it; None stays None."""
    if v is None:
        return None
    if isinstance(v, _Tensor):
        return v
    if isinstance(v, np.generic):
        return _make(np.asarray(v))
    dt = np.bool_ if isinstance(v, bool) else np.int64 if isinstance(v, int) else \
        np.complex128 if isinstance(v, complex) else np.float64
    return _make(np.asarray(v, dtype=dt))


def _value_property(source) -> property:
    if isinstance(source, str):
        def value(self):
            return getattr(self, source, None)
    else:
        value = source

    def get(self):
        v = value(self)
        # a tensor PyTorch keeps is a SavedVariable, released by a backward that does not retain the graph,
        # a list of them too (index's indices); its sizes, dims and flags stay readable
        if self._freed and (isinstance(v, _Tensor) or (isinstance(v, (tuple, list))
                                                       and any(isinstance(t, _Tensor) for t in v))):
            raise RuntimeError(_FREED_MSG)
        return v
    return property(get, doc="A value this node saved for its backward (PyTorch's ``_saved_<name>``).")


class _Hidden:
    """A parent class's ``_saved_<name>`` that this node class does not have (``__dir__`` leaves it out)."""

    def __get__(self, obj, cls=None):
        raise AttributeError("this node saves no such value")


_HIDDEN = _Hidden()


def _hidden(cls, name: str) -> bool:
    for klass in cls.__mro__:
        if name in klass.__dict__:
            return klass.__dict__[name] is _HIDDEN
    return False


# The order PyTorch's pack hooks see a node's saved tensors in where it is not the order of the class's
# ``saved_fields`` (PyTorch's generated code saves them in an order of its own: most binary nodes pack
# ``other`` before ``self``), by node class name.
_PACK_ORDER = {
    "AddcdivBackward0": ("tensor1", "tensor2"), "AddcmulBackward0": ("tensor1", "tensor2"),
    "AddmmBackward0": ("mat1", "mat2"), "AddmvBackward0": ("mat", "vec"), "BaddbmmBackward0": ("batch1", "batch2"),
    "AminmaxBackward0": ("self", "max", "min"), "Atan2Backward0": ("other", "self"),
    "ClampBackward0": ("max", "min", "self"), "ClampMaxBackward1": ("max", "self"),
    "ClampMinBackward1": ("min", "self"), "ComplexBackward0": ("imag", "real"),
    "DistBackward0": ("other", "self", "result"), "DivBackward0": ("other", "self"), "DotBackward0": ("self", "tensor"),
    "FmaxBackward0": ("other", "self"), "FminBackward0": ("other", "self"), "FmodBackward1": ("other", "self"),
    "HypotBackward0": ("other", "self", "result"), "LinalgCrossBackward0": ("other", "self"),
    "LinalgLstsqBackward0": ("b", "self", "solution"),
    "LinalgSvdBackward0": ("S", "U", "Vh"), "Logaddexp2Backward0": ("other", "self"),
    "LogaddexpBackward0": ("other", "self"), "MaximumBackward0": ("other", "self"),
    "MinimumBackward0": ("other", "self"), "MmBackward0": ("mat2", "self"), "MulBackward0": ("other", "self"),
    "MvBackward0": ("self", "vec"), "NextafterBackward0": ("other", "self"),
    "PowBackward1": ("exponent", "self", "result"), "RemainderBackward1": ("other", "self"),
    "RreluWithNoiseBackward0": ("noise", "self"), "ScatterReduceBackward0": ("index", "self", "src", "result"),
    "SpecialXlog1PyBackward0": ("other", "self"), "XlogyBackward0": ("other", "self"),
}


def install_saved_fields(cls, fields) -> None:
    """Give node class ``cls`` PyTorch's ``_saved_<name>`` attributes: ``fields`` is ``((name, source), ...)``
    in the order PyTorch saves them (which is also the order pack hooks see them), a source being the
    index of a tensor in the node's ``_unpacked_saved`` (also ``_raw_saved_<name>``), such an index with a
    function of the node giving the value when that slot is empty (``(1, fn)``: a Python number PyTorch
    would have wrapped in a tensor) and optionally a function of the tensor PyTorch saved in its place
    (``(1, fn, lambda w: w.t())``: linear keeps W where PyTorch's addmm keeps W.t()), the name of one of
    the node's attributes, or a function of the node."""
    cls._pt_saved = tuple(fields)
    own = {name for name, _ in fields}
    for klass in cls.__mro__[1:]:  # a parent's names this class does not have: hidden (PyTorch's classes differ)
        for name, _ in getattr(klass, "_pt_saved", ()):
            if name not in own:
                setattr(cls, "_saved_" + name, _HIDDEN)
                setattr(cls, "_raw_saved_" + name, _HIDDEN)
    order = []
    for name, source in fields:
        if isinstance(source, int) and not isinstance(source, bool):
            setattr(cls, "_saved_" + name, _saved_property(source))
            setattr(cls, "_raw_saved_" + name, _raw_saved_property(source))
            order.append(source)
        elif isinstance(source, tuple):  # (index, fallback(node)[, transform(t)]): a slot, or what stands for it
            setattr(cls, "_saved_" + name, _slot_or_property(*source))
            setattr(cls, "_raw_saved_" + name, _raw_saved_property(source[0]))
            order.append(source[0])
        else:
            setattr(cls, "_saved_" + name, _value_property(source))
    named = {name: (source if isinstance(source, int) else source[0]) for name, source in fields
             if isinstance(source, tuple) or (isinstance(source, int) and not isinstance(source, bool))}
    pytorch = _PACK_ORDER.get(cls.__name__)
    if pytorch is not None and set(pytorch) <= set(named):
        order = [named[n] for n in pytorch] + [i for i in order if i not in {named[n] for n in pytorch}]
    cls._hook_order = tuple(order)


# a released node's ``_freed``: per saved slot, whether it held a tensor (see ``Node._release``). One or two
# slots take these shared tuples, indexed by those flags: a backward releases thousands of nodes, and a new
# tuple per node costs more than the rest of the release
_FREED_1 = ((False,), (True,))
_FREED_2 = (((False, False), (False, True)), ((True, False), (True, True)))


class Node:
    """Base of every ``grad_fn``. Subclasses define ``backward(self, grad)`` with Tensor ops only."""

    __module__ = "tinytorch.autograd.graph"  # PyTorch's module for it, which re-exports ours

    # class-level defaults keep node creation to the few attributes an op really sets
    _saved = ()
    _versions_of_saved = ()
    _freed = False
    _tensor_pre_hooks = None   # output_nr -> {id: hook} from Tensor.register_hook on non-leaves
    _retained = None           # output_nr -> weakref of a tensor that called retain_grad()
    _pre_hooks = None          # Node.register_prehook
    _post_hooks = None         # Node.register_hook
    _trace = None              # forward stack, recorded in anomaly mode
    _n_outputs = 1
    _metadata = None
    _packed = False            # some saved tensor is this node's own output (see _pack_outputs)
    # some hook or retain_grad was ever registered on this node (any of the four tables above): the
    # backward loop then takes the general path; one flag to read per node instead of four
    _hooked = False
    _pair = False              # an EdgePair node: its two edges are attributes, not tuples
    _saves_pair = False        # a SavedPair node: its saved tensors are attributes (below)
    _user_backward = False     # a custom Function's node: its backward is the user's code
    # PyTorch's ``_saved_<name>`` attributes of this node class (see install_saved_fields), and the order of
    # the saved tensors' indices in them: pack hooks see the tensors in that order, unpack hooks too
    _pt_saved = ()
    _hook_order = ()

    # instance attributes a subclass sets on some of its instances only, or late (see
    # share_instance_keys); each class in the MRO names its own, and Node's below are entered for
    # every node class: _freed is set on every node by the backward that releases it, long after the
    # forward made thousands (an attribute every instance sets as it is made needs no entry; each
    # entered name lengthens every instance's value array)
    _instance_attrs = ()
    _NODE_ATTRS = ("_seq", "_freed", "_packed")
    _seq = _LateSequenceNr()

    def __init_subclass__(cls, **kwargs) -> None:
        super().__init_subclass__(**kwargs)
        names = list(Node._NODE_ATTRS)
        for klass in cls.__mro__:
            names.extend(klass.__dict__.get("_instance_attrs", ()))
        share_instance_keys(cls, dict.fromkeys(names))
        fields = cls.__dict__.get("saved_fields")
        if fields is not None:  # a class's declaration of PyTorch's _saved_<name> attributes
            install_saved_fields(cls, fields)

    def __init__(self, next_functions: tuple = ()):
        self._seq = next(_sequence)
        self.next_functions = next_functions
        if _Active.anomaly and _State.anomaly:
            self._trace = "".join(traceback.format_stack()[:-2])

    _dir_keeps = frozenset()  # internal "saved" names a node class shows all the same (custom Functions)

    def __dir__(self):
        # PyTorch's built-in nodes list their own _saved_<name> / _raw_saved_<name> attributes and no other
        # name with "saved" in it (this class's internals, ``_unpacked_saved``: code that looks for names
        # with "saved" in them would take them for PyTorch's)
        keep = self._dir_keeps
        return [n for n in super().__dir__()
                if ("saved" not in n or n in keep or ((n.startswith("_saved_") or n.startswith("_raw_saved_"))
                                                      and not _hidden(type(self), n)))]

    def _sequence_nr(self) -> int:
        """The node's place in creation order (PyTorch's): backward runs the ready node with the largest first."""
        return self._seq

    def name(self) -> str:
        n = type(self).__name__
        return "torch::autograd::" + n if n in _CPP_NODES else n

    def __repr__(self) -> str:
        return f"<{type(self).__name__} object at {hex(id(self))}>"

    @property
    def metadata(self) -> dict:
        if self._metadata is None:
            self._metadata = {}
        return self._metadata

    # -- saved tensors -------------------------------------------------------------------------
    def save_for_backward(self, *tensors) -> None:
        self._saved = tensors
        versions = tuple([None if t is None else t._vc[0] for t in tensors])
        self._versions_of_saved = _shared_versions(versions)
        if _Active.saved_hooks and _State.saved_hooks:
            self._apply_pack_hooks()
            return
        self._pack_outputs()

    def _save_own_output(self, t) -> None:
        """``save_for_backward(t)`` for this node's just-made output ``t``: the common case of one saved
        output, without the generic loops (one small op costs a few microseconds in all)."""
        if _Active.saved_hooks and _State.saved_hooks:
            self.save_for_backward(t)
            return
        self._saved = (_SavedOutput(t),)
        v = t._vc[0]
        self._versions_of_saved = (0,) if v == 0 else (v,)
        self._packed = True

    def _save_inputs(self, *tensors) -> None:
        """``save_for_backward`` for tensors that are inputs of this node (None for nothing): none can be
        its own output, so nothing needs packing."""
        if _Active.saved_hooks and _State.saved_hooks:
            self.save_for_backward(*tensors)
            return
        self._saved = tensors
        versions = tuple([None if t is None else t._vc[0] for t in tensors])
        self._versions_of_saved = _shared_versions(versions)

    def _apply_pack_hooks(self) -> None:
        """Hand each saved tensor to the innermost ``saved_tensors_hooks`` pack hook; versions are
        then the hooks' business, as in PyTorch."""
        pack, unpack = _State.saved_hooks[-1]
        saved = list(self._saved)
        enabled = _State.enabled
        _State.enabled = False  # PyTorch packs under no_grad: what the hook computes records no graph
        try:
            for i in _in_hook_order(self._hook_order, len(saved)):  # PyTorch's order: its formulas' order
                t = saved[i]
                if t is not None:
                    saved[i] = _Hooked(pack(t), unpack, _autograd_meta(t, self))
        finally:
            _State.enabled = enabled
        self._saved = tuple(saved)
        self._versions_of_saved = (None,) * len(saved)
        self._packed = True

    def _pack_outputs(self) -> None:
        """Hold this node's own outputs by their storage only: a strong output -> node -> output
        cycle would leave every forward-only graph to the cyclic garbage collector."""
        for t in self._saved:
            if t is not None and t.grad_fn is self:
                self._saved = tuple(_SavedOutput(t) if t is not None and t.grad_fn is self else t
                                    for t in self._saved)
                self._packed = True
                return

    @property
    def _unpacked_saved(self) -> tuple:
        """The saved tensors, unpacked and their versions checked: what a backward formula reads. PyTorch's
        built-in nodes have no ``saved_tensors`` (graph walkers such as torchviz test for it to find a custom
        Function's node, which has it: ``BackwardCFunction``); each shows its own ``_saved_<name>``."""
        if self._freed:
            raise RuntimeError(_FREED_MSG)
        saved = self._saved
        if self._packed:  # unpacked in PyTorch's order (unpack hooks see it)
            out = list(saved)
            for i in _in_hook_order(self._hook_order, len(out)) if self._hook_order else range(len(out)):
                if type(out[i]) is _SavedOutput or type(out[i]) is _Hooked:
                    out[i] = out[i].unpack(self)
            saved = tuple(out)
        for t, v in zip(saved, self._versions_of_saved):
            if v is not None and t._vc[0] != v:
                raise RuntimeError(_modified_msg(t, v, self))
        return saved

    def _slot_value(self, i: int):
        """Saved tensor ``i`` as ``_saved_<name>`` gives it: unpacked (a saved output as a new tensor of this
        node's history, a hooked one through its unpack hook), its version checked; None if not saved."""
        if self._freed:
            if self._held_tensor(i):
                raise RuntimeError(_FREED_MSG)
            return None  # a slot that held no tensor reads None after the release too, as PyTorch's
        saved = self._saved
        t = saved[i] if i < len(saved) else None
        if t is None:
            return None
        if type(t) is _SavedOutput or type(t) is _Hooked:
            t = t.unpack(self)
        v = self._versions_of_saved[i] if i < len(self._versions_of_saved) else None
        if v is not None and t._vc[0] != v:
            raise RuntimeError(_modified_msg(t, v, self))
        return t

    def _held_tensor(self, i: int) -> bool:
        """Whether saved slot ``i`` of this released node held a tensor (see ``_release``)."""
        freed = self._freed
        return freed is True or (i < len(freed) and freed[i])

    def _set_slot(self, i: int, value) -> None:
        """Replace saved tensor ``i`` by ``value`` (a ``_Hooked``): its version is then the hooks' business."""
        saved = list(self._saved)
        versions = list(self._versions_of_saved) or [None] * len(saved)
        saved[i] = value
        versions[i] = None
        self._saved = tuple(saved)
        self._versions_of_saved = tuple(versions)
        self._packed = True

    def _arrays_of_saved(self):
        """The arrays of the saved tensors (None for None), with the checks ``_unpacked_saved`` makes, for
        a backward formula computed in numpy when no graph is recorded; None when a saved tensor went
        through a pack hook (its unpack hook must see it: use ``_unpacked_saved``)."""
        if self._freed:
            raise RuntimeError(_FREED_MSG)
        out = []
        for t, v in zip(self._saved, self._versions_of_saved):
            if t is None:
                out.append(None)
                continue
            kind = type(t)
            if kind is _Hooked:
                return None
            if v is not None and (t.vc if kind is _SavedOutput else t._vc)[0] != v:
                self._unpacked_saved  # noqa: B018  (raises PyTorch's error, naming the tensor)
            out.append(t.data if kind is _SavedOutput else t._data)
        return out

    def _one_saved_array(self):
        """``_arrays_of_saved()[0]`` for a node that saved one tensor (relu, tanh...), without the loop and
        the list: a small backward's whole cost is a few microseconds."""
        if self._freed:
            raise RuntimeError(_FREED_MSG)
        t = self._saved[0]
        kind = type(t)
        if kind is _SavedOutput:
            a, vc = t.data, t.vc
        elif kind is _Hooked:
            return None
        else:
            a, vc = t._data, t._vc
        v = self._versions_of_saved[0]
        if v is not None and vc[0] != v:
            self._unpacked_saved  # noqa: B018  (raises PyTorch's error, naming the tensor)
        return a

    def _release(self) -> None:
        """Drop saved tensors after a backward that did not retain the graph. ``_freed`` then says which slots
        held a tensor: ``_slot_value`` raises for those, reads the others as None, as PyTorch's nodes do."""
        saved = self._saved
        if saved:
            self._freed = (_FREED_1[saved[0] is not None] if len(saved) == 1 else
                           tuple([t is not None for t in saved]))
            self._saved = ()
        elif not self._freed:  # (a second release keeps what the first one knew; nothing saved: no slot held)
            self._freed = _FREED_1[False]
        if self._release_extra is not None:
            self._release_extra()

    # subclasses that keep more than ``_saved`` define ``_release_extra(self)`` to drop it (None: nothing
    # more to drop, and the backward loop skips the call)
    _release_extra = None

    # -- hooks ---------------------------------------------------------------------------------
    def _table(self, attr: str) -> dict:
        """The hooks table ``attr`` (one of the four above), made on first use: the one place that sets
        ``_hooked``, which sends the node through the engine's checked step."""
        table = getattr(self, attr)
        if table is None:
            table = _HookDict()
            setattr(self, attr, table)
            self._hooked = True
        return table

    def register_hook(self, fn) -> RemovableHandle:
        """``fn(grad_inputs, grad_outputs)`` after this node ran; may return new grad_inputs."""
        hooks = self._table("_post_hooks")
        handle = RemovableHandle(hooks)
        hooks[handle.id] = fn
        return handle

    def register_prehook(self, fn) -> RemovableHandle:
        """``fn(grad_outputs)`` before this node runs; may return new grad_outputs."""
        hooks = self._table("_pre_hooks")
        handle = RemovableHandle(hooks)
        hooks[handle.id] = fn
        return handle

    def _add_tensor_pre_hook(self, output_nr: int, fn) -> RemovableHandle:
        per_output = self._table("_tensor_pre_hooks")
        hooks = per_output.get(output_nr)
        if hooks is None:
            hooks = per_output[output_nr] = _HookDict()
        handle = RemovableHandle(hooks)
        hooks[handle.id] = fn
        return handle

    def _retain(self, output_nr: int, ref) -> None:
        """Keep output ``output_nr``'s gradient in the tensor ``ref`` (a weak reference) points at."""
        self._table("_retained")[output_nr] = ref

    def __call__(self, *grads):
        """Run the backward formula directly, as ``y.grad_fn(g)`` does in PyTorch."""
        out = self.backward(*grads)
        return out if isinstance(out, tuple) else (out,)

    def backward(self, *grads):
        raise NotImplementedError(f"{self.name()} has no backward")


# -- two-edge nodes (add, sub, mul) --------------------------------------------------------------
# Two-edge graph nodes (add, sub, mul) and their fast construction.
#
# A micrograd step records thousands of these on 0-d tensors, where bookkeeping is the whole cost: an
# ``EdgePair`` keeps its two edges as attributes instead of three tuples (each tuple that outlives the
# forward is one more object for Python's garbage collector to walk), and ``binary_node`` builds one
# without the generic constructor's calls.
class EdgePair(Node):
    """A node with exactly two edges, kept as four attributes (``_na, _nra, _nb, _nrb``) instead of
    three tuples: ``next_functions`` is built on access, as PyTorch builds it from its C++ edges. The
    graph of a micrograd step is thousands of these (add, sub, mul), and each tuple that outlives the
    forward is one more object for Python's garbage collector to walk. The backward engine reads
    the attributes directly."""

    _pair = True
    _na = _nb = None
    _nra = _nrb = 0
    _instance_attrs = ("_na", "_nra", "_nb", "_nrb")

    @property
    def next_functions(self) -> tuple:
        return ((self._na, self._nra), (self._nb, self._nrb))

    @next_functions.setter
    def next_functions(self, edges) -> None:
        (self._na, self._nra), (self._nb, self._nrb) = edges


class SavedPair(EdgePair):
    """An ``EdgePair`` that saves up to two of its inputs (mul), each with its version, as four
    attributes (``_sa, _sb, _va, _vb``) instead of two tuples: one fewer object per node for the
    garbage collector. ``_saved`` and ``_versions_of_saved`` read and write them as the tuples every
    other node keeps, so the generic machinery (``_unpacked_saved``, pack hooks, release) works
    unchanged; the hot paths (``binary_node``, the node's backward, the engine's release) use the
    attributes."""

    _sa = _sb = _va = _vb = None
    _saves_pair = True
    _instance_attrs = ("_sa", "_va", "_sb", "_vb")

    @property
    def _saved(self) -> tuple:
        return () if self._freed else (self._sa, self._sb)

    @_saved.setter
    def _saved(self, saved) -> None:
        self._sa, self._sb = saved if saved else (None, None)

    @property
    def _versions_of_saved(self) -> tuple:
        return (self._va, self._vb)

    def _release(self) -> None:
        """``Node._release`` with the attributes written directly (the property would cost a call)."""
        # (a second release, if any, finds both None: a backward that needed a held slot raised before it)
        self._freed = _FREED_2[self._sa is not None][self._sb is not None]
        self._sa = self._sb = None
        if self._release_extra is not None:
            self._release_extra()

    @_versions_of_saved.setter
    def _versions_of_saved(self, versions) -> None:
        self._va, self._vb = versions if versions else (None, None)


_new = object.__new__


_NO_EDGE = (None, 0)


def binary_node(cls, a, b, save_a, save_b):
    """``cls((a._edge(), b._edge()))`` for an ``EdgePair`` class (``a`` or ``b`` None for a number),
    saving ``save_a``/``save_b`` (each an input or None; a ``SavedPair`` class when any is given) as
    ``_save_inputs`` does, with fewer calls: the
    forward of a small op (``x * y`` on 0-d tensors) costs a few microseconds in all, and building its
    node was a third of that."""
    if _Active.anomaly or _Active.saved_hooks:
        node = cls((_NO_EDGE if a is None else a._edge(), _NO_EDGE if b is None else b._edge()))
        if save_a is not None or save_b is not None:
            node._save_inputs(save_a, save_b)
        return node
    node = _new(cls)
    node._seq = next(_sequence)
    # each edge as Tensor._edge makes it; a leaf's live accumulator (the common case) read inline
    if a is not None:  # None: a number, no edge
        fn = a.grad_fn
        if fn is not None:
            node._na = fn
            if a._output_nr:
                node._nra = a._output_nr
        elif a._requires_grad:
            ref = a._accumulator
            fn = ref() if ref is not None and a._base is None else None
            if fn is not None:
                node._na = fn
            else:
                node._na = a._edge()[0]
    if b is not None:
        fn = b.grad_fn
        if fn is not None:
            node._nb = fn
            if b._output_nr:
                node._nrb = b._output_nr
        elif b._requires_grad:
            ref = b._accumulator
            fn = ref() if ref is not None and b._base is None else None
            if fn is not None:
                node._nb = fn
            else:
                node._nb = b._edge()[0]
    # a SavedPair's saves as its attributes (each a tensor's version counter is read once)
    if save_a is not None:
        node._sa = save_a
        node._va = save_a._vc[0]
    if save_b is not None:
        node._sb = save_b
        node._vb = save_b._vc[0]
    return node


class AccumulateGrad(Node):
    """The sink for a leaf that requires grad: sums incoming gradients into ``variable.grad``."""

    def __init__(self, variable):
        self.next_functions = ()
        self.variable = variable

    def _sequence_nr(self) -> int:
        return ACCUMULATE_SEQUENCE_NR

    def backward(self, grad):
        return ()


def note_output(node: Node, t) -> None:
    """While a forward-AD level is active: remember an output of ``node`` (its shape and dtype, which
    the tangent rules need, and the tensor, weakly). Called by every constructor of recorded results."""
    outs = node.__dict__.get("_fw_outs")
    if outs is None:
        outs = node._fw_outs = []
    if "_fw_edges" not in node.__dict__:
        hide_forward_only_edges(node)
    outs.append((weakref.ref(t), t._data.shape, t._data.dtype))


# Forward AD records ops on a dual tensor whose primal does not require grad (a forward-only leaf), so that it can
# push the tangent through the recorded nodes later (autograd/forward_ad.py). PyTorch records nothing there: its
# node shows None for such an input. While a dual level is active each new node shows None for an edge to a
# forward-only leaf, or to a node all of whose edges are None that way, and keeps its edges as recorded in
# ``_fw_edges``, which forward AD alone walks (``full_edges``). The backward engine and every backward see
# PyTorch's edges, and pay nothing. (Forward AD's rule by double backward differentiates a node's backward with
# respect to every input: the nodes that backward records keep their edges shown, ``_State.fw_hide`` False.)
def hide_forward_only_edges(node) -> None:
    """Show as None each edge of ``node`` to forward AD's own part of the graph (see above)."""
    edges = node.next_functions
    shown = tuple([_NO_EDGE if n is not None and _forward_only_target(n) else (n, nr) for n, nr in edges])
    if shown == edges:
        node._fw_edges = None  # (looked at: nothing to hide)
        return
    node._fw_edges = edges
    if _State.fw_hide:
        node.next_functions = shown
    if all(n is None for n, _ in shown):
        node._fw_only = True  # a result PyTorch would not record: nodes over it hide their edge to it


def _forward_only_target(n) -> bool:
    if type(n) is AccumulateGrad:
        return "_fw_only_leaf" in n.variable.__dict__  # (forward_ad's dual of a primal that does not require grad)
    return n.__dict__.get("_fw_only", False)


def full_edges(node) -> tuple:
    """``node``'s edges as recorded, the ones it shows as None to the forward-only part of the graph included."""
    return node.__dict__.get("_fw_edges") or node.next_functions


def accumulator_of(t) -> AccumulateGrad:
    """The leaf's AccumulateGrad node, shared by every op that uses it while any graph holds it."""
    ref = t._accumulator
    node = ref() if ref is not None else None
    if node is None:
        node = AccumulateGrad(t)
        # weak from tensor to node: a strong one would make a cycle that outlives the graph
        t._accumulator = weakref.ref(node)
    return node


def sum_to(g, shape: tuple):
    """Sum a broadcast gradient back down to ``shape`` (differentiable)."""
    gshape = g._data.shape
    lead = len(gshape) - len(shape)
    dims = tuple(range(lead)) + tuple(
        i + lead for i, s in enumerate(shape) if s == 1 and gshape[i + lead] != 1)
    if dims:
        g = g.sum(dim=dims, keepdim=True)
    if lead or g._data.shape != shape:
        g = g.reshape(shape)
    return g


def _type_name(t) -> str:
    return f"{SHOWN_AS[0]}.{t.dtype._legacy}"


def _producer(t, saver: Node):
    """The node PyTorch names for a modified saved tensor: ``saver`` itself when ``t`` was its output.

    An in-place op keeps the overwritten tensor's history as its node's first edge, so ``saver`` is
    on that chain exactly when it produced ``t``; otherwise ``t``'s current node is named."""
    node = t.grad_fn
    while node is not None:
        if node is saver:
            return saver
        node = node.next_functions[0][0] if node.next_functions else None
    return t.grad_fn


def _modified_msg(t, expected: int, saver: Node) -> str:
    shape = "[" + ", ".join(str(d) for d in t._data.shape) + "]"
    where = ""
    producer = t._named_in_errors or (_producer(t, saver) if t.grad_fn is not None else None)
    if producer is not None:
        # PyTorch names the forward op here ("Mul"), not the node ("MulBackward0")
        where = f", which is output {t._output_nr} of {_BACKWARD_SUFFIX.sub('', producer.name())},"
    return (
        "one of the variables needed for gradient computation has been modified by an inplace "
        f"operation: [{_type_name(t)} {shape}]{where} is at version {t._vc[0]}; expected version "
        f"{expected} instead. Hint: enable anomaly detection to find the operation that failed to "
        f"compute its gradient, with {SHOWN_AS[0]}.autograd.set_detect_anomaly(True, check_nan=False).")
