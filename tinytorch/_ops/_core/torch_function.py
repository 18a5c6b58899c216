"""Where Tensor subclasses enter an op: PyTorch calls ``type(x).__torch_function__(func, types, args,
kwargs)`` when ``x``, an argument of ``torch.X`` / ``torch.nn.functional.X`` / ``Tensor.X``, is an
instance of a subclass that overrides it. The public functions the registry makes ask ``subclass_among``
before running the op (one class-attribute read while no subclass exists: ``_Active.subclasses``), so the
functions keep one identity for the whole program, whether a subclass was made before or after a module
imported them.

``dispatch.depth`` > 0 while a ``__torch_function__`` runs in this thread (and inside
``torch._C.DisableTorchFunctionSubclass``): calls then run as plain Tensor's."""
from __future__ import annotations

import threading

from ...autograd.grad_mode import _Active

__all__ = ["dispatch", "routed", "add_routed", "subclass_among"]


class _Dispatch(threading.local):
    depth = 0


dispatch = _Dispatch()
routed: set = set()  # the subclasses whose calls go through their __torch_function__


def add_routed(cls: type) -> None:
    routed.add(cls)
    _Active.subclasses = 1  # from now on the public functions look at their arguments' classes


def subclass_among(args) -> type | None:
    """The first routed subclass among the positional arguments, looking one level into lists and
    tuples as PyTorch does (``torch.stack([m, t])``); None inside a ``__torch_function__``."""
    if dispatch.depth:
        return None
    for a in args:
        t = type(a)
        if t in routed:
            return t
        if t is list or t is tuple:
            for b in a:
                if type(b) in routed:
                    return type(b)
    return None
