"""``tinytorch.utils.swap_tensors``: exchange the contents of two tensor objects, keeping their identities.

A tinytorch tensor's whole state (array, dtype, version counter, requires_grad, grad, grad_fn, hooks,
user attributes) lives in its instance ``__dict__``, so swapping the dicts and the classes swaps
everything PyTorch's swap of the underlying TensorImpls does. What refers to a tensor by identity
inside tinytorch is put right after the swap (the weak references of a storage's view registry);
what PyTorch refuses to swap is refused with its messages."""
from __future__ import annotations

import copyreg
import weakref

from ..autograd.node import Node
from ..tensor import Tensor

_POISONED = ("Trying to execute AccumulateGrad node that was poisoned by swap_tensors this can happen when you try "
             "to run backward on a tensor that was swapped. For a module m with "
             "`torch.__future__.set_swap_module_params_on_conversion(True)` you should not change the device or "
             "dtype of the module (e.g. `m.cpu()` or `m.half()`) between running forward and backward. To resolve "
             "this, please only change the device/dtype before running forward (or after both forward and "
             "backward).")


def _view_refs(t) -> list:
    """The weak references of ``t``'s storage's view registry ([] where it keeps none)."""
    vc = t.__dict__.get("_vc")
    return vc[1] if isinstance(vc, list) and len(vc) > 1 else []


def _user_weakrefs(t) -> list:
    """Weak references to ``t`` other than tinytorch's own bookkeeping (a view registry's entry, the
    retain_grad record, a forward-AD output note): PyTorch's swap refuses these."""
    own = {id(r) for r in _view_refs(t)}
    node = t.grad_fn
    if isinstance(node, Node):
        own.update(id(r) for r in (node._retained or {}).values())
        own.update(id(r) for r, *_ in node.__dict__.get("_fw_outs", ()))
    return [r for r in weakref.getweakrefs(t) if id(r) not in own]


def _live_accumulator(t):
    ref = t._accumulator
    return ref() if ref is not None else None


def _use_count(t) -> int:
    """What PyTorch's ``_use_count`` counts that tinytorch can see: the tensor itself, its leaf's live
    AccumulateGrad node, and the live views of its storage whose base it is. (References held by saved
    tensors of a graph are not counted; the poisoned AccumulateGrad still stops such a backward.)"""
    views = sum(1 for r in _view_refs(t) if r() is not None and r() is not t and r()._base is t)
    return 1 + views + (_live_accumulator(t) is not None)


def _poison(grad_outputs):
    raise RuntimeError(_POISONED)


def _check_use_count(t, name: str) -> None:
    count = _use_count(t)
    if count <= 1:
        return
    error = (f"Expected use_count of {name} to be 1 or 2 with an AccumulateGrad node but got {count} make sure you "
             "are not holding references to the tensor in other places.")
    if count != 2 or t.grad_fn is not None:
        raise RuntimeError(error)
    if not t._requires_grad:
        raise RuntimeError("It is not possible to get the gradient edge for a Tensor that does not require gradients")
    node = _live_accumulator(t)
    if node is None:  # PyTorch made the node only now (for a view), which changed the count it checks
        raise RuntimeError(error)
    node.register_prehook(_poison)


def swap_tensors(t1, t2):
    """Swap the contents of two Tensor objects: afterwards ``t1`` has ``t2``'s data, dtype, shape,
    requires_grad, grad, history, version counter, class and attributes, and the other way round,
    each object keeping its identity (``id``, references held elsewhere)."""
    if weakref.getweakrefs(t1) and _user_weakrefs(t1):
        raise RuntimeError("Cannot swap t1 because it has weakref associated with it")
    if weakref.getweakrefs(t2) and _user_weakrefs(t2):
        raise RuntimeError("Cannot swap t2 because it has weakref associated with it")
    if set(copyreg._slotnames(t1.__class__)) != set(copyreg._slotnames(t2.__class__)):
        raise RuntimeError("Cannot swap t1 and t2 if they have different slots")
    for t, name in ((t1, "t1"), (t2, "t2")):
        if not isinstance(t, Tensor):
            raise AttributeError(f"'{type(t).__name__}' object has no attribute '_use_count'")
        _check_use_count(t, name)
    for t, name in ((t1, "t1"), (t2, "t2")):
        if t.grad_fn is not None and t._retains_grad:
            raise RuntimeError(f"Expected no weakrefs to {name}'s Tensor object but got  1")
    if t1 is t2:
        return
    t1.__class__, t2.__class__ = t2.__class__, t1.__class__
    t1.__dict__, t2.__dict__ = t2.__dict__, t1.__dict__
    # a view's registry entry names the object that now holds the view
    for refs in {id(r): r for r in (_view_refs(t1), _view_refs(t2))}.values():
        refs[:] = [weakref.ref(t2) if r() is t1 else weakref.ref(t1) if r() is t2 else r for r in refs]


swap_tensors.__module__ = "tinytorch.utils"  # PyTorch's place for it (tinytorch.utils re-exports it)
