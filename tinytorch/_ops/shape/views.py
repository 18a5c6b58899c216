"""Views and in-place ops, recorded as PyTorch records them.

Defining a view op: compute a numpy *view* of ``input._data`` (never a copy) and wrap it with
``tensor._view_of(input, out, node)``. That is all: the view's geometry (shape, strides, offset
into its base) is read from numpy's own strides when it is needed, so a view op records nothing
more than any other op. ``_view_of`` points the view at the root base, shares its version counter,
and registers a weak reference to it with that counter.

What happens on an in-place op while autograd records (PyTorch's model):
- on a view ``v`` of base ``b``: the op's node ``fn`` runs on v's old history as usual, then
  ``b.grad_fn`` becomes ``CopySlices(b's old history, geometry of v, fn)``;
- after every in-place op on a storage that has views, each live view whose base requires grad gets
  a new ``grad_fn``: ``AsStridedBackward0`` pointing at the base's current history. PyTorch does this
  lazily, when the view is next used; here it is done at once (the views are found through the
  registry), so ops read ``grad_fn`` and ``_requires_grad`` as plain attributes and a tensor without
  views pays nothing.
- views that PyTorch forbids to modify (made in no_grad mode, outputs of split/unbind/chunk, made in
  a custom Function) raise PyTorch's errors, directly or, when their base was modified, when they are
  next used in a recorded op.

Defining an in-place op: either ``inplace.apply_inplace(self, out_of_place_op, *args)``, or, for an
op with its own node ``fn`` (whose first edge is ``self._edge()``): ``check_inplace(self, True)``,
write, ``self._vc[0] += 1``, ``set_history(self, fn)``; without autograd, write, bump and
``refresh(self._vc)``.

Where the eager update would show (PyTorch regenerates only what is looked at): a view that had no
history before is regenerated at once but marked ``_UnseenView`` until its ``grad_fn`` is read, so
that an in-place op on it before anything looked at it is refused as PyTorch refuses a leaf; a
forbidden view whose base was modified has ``grad_fn`` None instead of raising when ``.grad_fn`` is
read (using it in an op raises PyTorch's error). Views made under no_grad are registered too (when
their base gets a history later, PyTorch refuses them)."""
from __future__ import annotations

import weakref

import numpy as np

from ...autograd.grad_mode import _State, version_counter
from ...autograd.node import Node, _BACKWARD_SUFFIX, _SavedOutput, full_edges, note_output
from ...tensor import Tensor, _make
from ..._meta_array import MetaArray
from .._core.registry import _METHOD_OWNERS, CHECKS_BEFORE_EDGES, REGISTRY
from ._adjoint import index_zeros_put  # the backward of a regenerated view


# creation kinds (``Tensor._creation``) of views PyTorch forbids to modify in place
NO_GRAD = "no_grad"
MULTI = "multi"
CUSTOM = "custom"

_SUFFIX = {
    MULTI: " This view is the output of a function that returns multiple views. Such functions do not allow the "
           "output views to be modified inplace. You should replace the inplace operation by an out-of-place one.",
    NO_GRAD: " Given that this use case is ambiguous and error-prone, it is forbidden. You can clarify your code by "
             "moving both the view and the inplace either both inside the no_grad block (if you don't want the "
             "inplace to be tracked) or both outside (if you want the inplace to be tracked).",
    CUSTOM: " This view was created inside a custom Function (or because an input was returned as-is) and the "
            "autograd logic to handle view+inplace would override the custom backward associated with the custom "
            "Function, leading to incorrect gradients. This behavior is forbidden. You can fix this by cloning the "
            "output of the custom Function.",
}


_INDIRECT = "its base or another view of its base has been"
_DIRECT = "is being"


def creation_error(kind: str, fn, output_nr: int, indirect: bool) -> str:
    """PyTorch's text for modifying a forbidden view (``indirect``: its base was modified)."""
    what = _INDIRECT if indirect else _DIRECT
    name = None if fn is None else _BACKWARD_SUFFIX.sub("", fn.name())
    if kind == NO_GRAD or fn is None:
        prefix = (f"Output {output_nr} of {name} is a view of a view which was created in" if fn is not None
                  else "A view was created in")
        msg = f"{prefix} no_grad mode and {what} modified inplace with grad mode enabled."
    else:
        msg = f"Output {output_nr} of {name} is a view and {what} modified inplace."
    return msg + _SUFFIX[kind]


# -- geometry ---------------------------------------------------------------------------------------
def address(a: np.ndarray) -> int:
    """Where ``a``'s first element sits, in bytes: its memory address, or a meta array's offset into its base's
    (data-less) storage."""
    return a.offset if type(a) is MetaArray else a.__array_interface__["data"][0]


def geometry(base: np.ndarray, view: np.ndarray) -> tuple:
    """Where ``view``'s elements sit in ``base``: what ``positions`` needs, without holding either array."""
    size = base.itemsize
    return (base.shape, base.flags.c_contiguous, tuple(s // size for s in base.strides),
            view.shape, tuple(s // size for s in view.strides), (address(view) - address(base)) // size)


def _offsets(shape: tuple, strides: tuple, start: int) -> np.ndarray:
    out = np.full(shape, start, dtype=np.intp)
    for d, (n, s) in enumerate(zip(shape, strides)):
        if n > 1 and s:
            out += (np.arange(n, dtype=np.intp) * s).reshape((n,) + (1,) * (len(shape) - d - 1))
    return out


def positions(geom: tuple) -> np.ndarray:
    """For each view element, its index in the base flattened in C order (what ``as_strided`` addresses)."""
    base_shape, contiguous, base_strides, shape, strides, offset = geom
    pos = _offsets(shape, strides, offset)
    if contiguous:
        return pos
    # a base laid out otherwise: map storage offsets back to the base's logical order
    where = _offsets(base_shape, base_strides, 0).ravel()
    low = int(where.min()) if where.size else 0
    inverse = np.zeros(int(where.max()) - low + 1 if where.size else 1, dtype=np.intp)
    inverse[where - low] = np.arange(where.size, dtype=np.intp)
    return inverse[pos - low]


class _Geometric(Node):
    """A node that addresses a view's elements inside its base."""

    _pos = None

    def _positions(self, g) -> np.ndarray:
        if type(g._data) is MetaArray:  # a meta gradient: the view's shape is all an index of it needs
            return MetaArray(self.geom[3], np.intp)
        if self._pos is None:
            self._pos = positions(self.geom)
        return self._pos


class AsStridedBackward0(_Geometric):
    """A view's history regenerated after its base (or another view) was modified in place."""

    def backward(self, g):
        base_shape = self.geom[0]
        if 0 in self.geom[3]:
            # an empty view reads nothing: PyTorch's formula returns fresh zeros, outside the graph
            return (g.new_zeros(base_shape),)
        n = int(np.prod(base_shape, dtype=np.int64))
        # accumulate: an expanded view reads one base element several times
        return (index_zeros_put((n,), (self._positions(g),), g, True).reshape(base_shape),)


class CopySlices(_Geometric):
    """The base's history after an in-place op on one of its views: the op's node ``fn`` handles the
    view's elements, the rest of the gradient passes through unchanged."""

    def backward(self, g):
        where = REGISTRY["where"].public  # declared above this module
        shape, strides = self.geom[3], self.geom[4]
        base_needed = self.next_functions[0][0] is not None
        if base_needed and 0 not in shape and any(n > 1 and s == 0 for n, s in zip(shape, strides)):
            # PyTorch writes the op's gradient into that view of the base's gradient, and refuses
            raise RuntimeError("unsupported operation: more than one element of the written-to tensor refers to a "
                               "single memory location. Please clone() the tensor before performing the operation.")
        pos = self._positions(g)
        base_shape = self.geom[0]
        flat = g.reshape(-1)
        res = self.fn(flat[(pos,)])
        if not base_needed:
            return (None,) + tuple(res[1:])
        keep = np.ones_like(flat._data, dtype=bool)  # (a meta gradient: meta)
        keep[pos] = False
        g_base = where(_make(keep), flat, 0.0)
        if res[0] is not None:
            g_base = g_base + index_zeros_put(flat._data.shape, (pos,), res[0].reshape(pos.shape), False)
        return (g_base.reshape(base_shape),) + tuple(res[1:])

    def _release_extra(self) -> None:
        self.fn._release()


# -- history ----------------------------------------------------------------------------------------
def _move_retained(t, old_fn, old_nr: int, new_fn) -> None:
    """``retain_grad`` follows the tensor to its new node, as PyTorch's retains-grad hook does."""
    if t._retains_grad and old_fn is not None and old_fn._retained:
        ref = old_fn._retained.pop(old_nr, None)
        if ref is not None:
            new_fn._retain(0, ref)


def set_history(t, fn) -> None:
    """``t`` was modified in place by an op whose node is ``fn`` (first edge: t's old history)."""
    base = t._base
    if base is None:
        _move_retained(t, t.grad_fn, t._output_nr, fn)
        t.grad_fn = fn
        t._output_nr = 0
        t._requires_grad = True
    else:
        edges = full_edges(fn)  # (forward AD's hidden edges too: CopySlices hides them again, note_output below)
        node = CopySlices((base._edge(),) + tuple(edges[1:]))
        node.fn = fn
        # fn now runs only inside CopySlices; as in PyTorch it no longer holds the view's old history
        fn.next_functions = ((None, 0),) + tuple(fn.next_functions[1:])
        if fn.__dict__.get("_fw_edges"):
            fn._fw_edges = ((None, 0),) + tuple(edges[1:])
        node.geom = geometry(base._data, t._data)
        _move_retained(base, base.grad_fn, base._output_nr, node)
        base.grad_fn = node
        base._output_nr = 0
        base._requires_grad = True
    if _State.fw_level is not None:  # forward AD pushes tangents through the new node's output
        owner = t if base is None else base
        owner.grad_fn._fw_outs = []  # the in-place op's out-of-place result was a temporary
        if base is None:
            fn._fw_inplace = True  # its tangent is written as PyTorch's in-place formulas write it (forward_ad)
        note_output(owner.grad_fn, owner)
    refresh(t._vc, t)


def refresh(vc: list, modified=None) -> None:
    """After an in-place op on this storage: give every live view whose base requires grad a history
    through the base's current one (or mark it unusable where PyTorch forbids it). ``modified``: the
    view the op wrote through, whose new history PyTorch looks at at once (``rebase_history``)."""
    if len(vc) < 2:
        return
    views = vc[1]
    alive = []
    for ref in views:
        v = ref()
        if v is None:
            continue
        alive.append(ref)
        if v._stale is not None:
            continue
        base = v._base
        old_fn = raw_grad_fn(v)
        if old_fn is None and not base._requires_grad:
            continue
        if v._creation is not None:
            # PyTorch raises when such a view is next used; it must never be used with its old history
            v._stale = creation_error(v._creation, old_fn, v._output_nr, True)
            v.grad_fn = None
            v._requires_grad = True
            if type(v) is Tensor:
                v.__class__ = _stale_view_class()
            continue
        node = AsStridedBackward0((base._edge(),))
        node.geom = geometry(base._data, v._data)
        _move_retained(v, old_fn, v._output_nr, node)
        v.grad_fn = node
        v._output_nr = 0
        v._requires_grad = True
        if old_fn is None and type(v) is Tensor and v is not modified:
            v.__class__ = _UnseenView  # a leaf to PyTorch's in-place check until its grad_fn is looked at
        if _State.fw_level is not None:
            note_output(node, v)
    views[:] = alive


class _UnseenView(Tensor):
    """A view that had no history when its base got one from an in-place op: tinytorch gives it its
    ``AsStridedBackward0`` at once (``refresh``), PyTorch only when something asks for its ``grad_fn``
    (reading it, ``is_leaf``, printing it, a differentiable op taking it as input). Until then
    PyTorch's in-place check finds no history and refuses it as a leaf that requires grad; this class
    stands for that state, and the first read of ``grad_fn`` turns the tensor back into a plain
    ``Tensor`` (the ONNX tracer's ``Traced`` swaps classes the same way)."""

    _unseen = True

    @property
    def grad_fn(self):
        self.__class__ = Tensor
        return self.__dict__.get("grad_fn")

    @grad_fn.setter
    def grad_fn(self, value) -> None:
        self.__dict__["grad_fn"] = value


_UnseenView.__name__ = _UnseenView.__qualname__ = "Tensor"


class _StaleView(Tensor):
    """A forbidden view (made under no_grad, an output of split/unbind/...) whose base was then modified in
    place: unusable while grad mode is on. PyTorch collects an op's input edges before it runs the op, so
    such a view's error comes before the op's own errors about its arguments (a size that does not fit,
    a dim out of range). tinytorch's ops check their arguments first; on this class, an op method that
    fails raises the view's error instead. Indexing keeps its own order (PyTorch checks bounds first)."""


_StaleView.__name__ = _StaleView.__qualname__ = "Tensor"
_STALE_BOUND = []


def _stale_checked(fn):
    def method(self, *args, **kwargs):
        try:
            return fn(self, *args, **kwargs)
        except (RuntimeError, IndexError):
            if _State.enabled and self._stale is not None:
                raise RuntimeError(self._stale) from None
            raise
    method.__name__ = method.__qualname__ = fn.__name__
    return method


def _stale_view_class():
    """``_StaleView``, its op methods wrapped on first use (every op is declared by then)."""
    if not _STALE_BOUND:
        for name in _METHOD_OWNERS:
            fn = Tensor.__dict__.get(name)
            in_place = name.endswith("_") and not name.endswith("__") or name.startswith("__i")
            if not in_place and name not in ("__getitem__", "__setitem__") and name not in CHECKS_BEFORE_EDGES \
                    and type(fn) is type(_stale_checked):  # (in-place ops check the view first already)
                setattr(_StaleView, name, _stale_checked(fn))
        _STALE_BOUND.append(True)
    return _StaleView


def raw_grad_fn(t):
    """``t.grad_fn`` without counting as a look at it (see ``_UnseenView``)."""
    return t.__dict__.get("grad_fn") if type(t) is _UnseenView else t.grad_fn


def check_inplace(t, grad_needed: bool) -> None:
    """PyTorch's refusals before an in-place op on ``t`` that autograd will record."""
    if not grad_needed:
        return
    base = t._base
    if base is not None:
        if t._stale is not None:
            # modified itself (not only through its base): PyTorch's direct text
            raise RuntimeError(t._stale.replace(_INDIRECT, _DIRECT, 1))
        if t._creation is not None:
            raise RuntimeError(creation_error(t._creation, t.grad_fn, t._output_nr, False))
        if t._requires_grad and base.grad_fn is None:
            raise RuntimeError("a view of a leaf Variable that requires grad is being used in an in-place operation.")
    if t._requires_grad and (t._unseen or t.grad_fn is None):
        raise RuntimeError("a leaf Variable that requires grad is being used in an in-place operation.")


def redirect_saved_output(fn, res, t) -> None:
    """A node that saved its own result ``res`` now saves ``t``, which holds that result in place:
    a later in-place op on ``t`` then invalidates it, as in PyTorch."""
    if not fn._packed:
        return
    saved = list(fn._saved)
    versions = list(fn._versions_of_saved)
    for i, s in enumerate(saved):
        if type(s) is _SavedOutput and s.data is res._data:
            s.data, s.vc, s.base = t._data, version_counter(t), t._base
            versions[i] = t._vc[0]
            if t._base is not None:
                s.history = _ViewHistory(t)
    fn._saved = tuple(saved)
    fn._versions_of_saved = tuple(versions)


class _ViewHistory:
    """The history of a view's result saved by the in-place op ``fn`` on it. PyTorch keeps the
    view's grad_fn of that moment (weakly) and falls back to ``fn`` once it is gone; here the
    history always goes through the base's CopySlices (which calls ``fn``), so ``fn`` is never
    run on its own beside it, and only the error text follows PyTorch's choice. Weak references:
    the base's node holds ``fn``, which holds this."""

    __slots__ = ("base_node", "view_node", "geom")

    def __init__(self, t) -> None:
        self.base_node = weakref.ref(t._base.grad_fn)
        self.view_node = weakref.ref(t.grad_fn)
        self.geom = geometry(t._base._data, t._data)

    def __call__(self, fn):
        """(the node to unpack the result with, the node errors name or None)."""
        view_node = self.view_node()
        base_node = self.base_node()
        if base_node is None:
            return fn, None
        node = AsStridedBackward0(((base_node, 0),))
        node.geom = self.geom
        return node, (view_node if view_node is not None else fn)
