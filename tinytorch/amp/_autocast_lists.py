"""CPU autocast's op lists (PyTorch's ``autocast_mode.cpp``, CPU: ``lower_precision_fp``, ``fp32`` and
``promote``) and the switch that applies them. Each op's policy is a field of its declaration
(``@op(..., autocast="lower" | "fp32" | "promote")``); ``policy`` reads the lists from ``REGISTRY``.

Autocast is per thread, as in PyTorch. Nothing is paid while no thread has it on: the first thread to
enter CPU autocast swaps the declared ops' implementations
(the ``impl`` each public function calls, and the Tensor methods and operators, which are the
implementations themselves) for casting wrappers, the last to leave puts them back, and a wrapper called from a thread without
autocast calls straight through. A wrapper casts the
floating tensors among the arguments that are not float64 (PyTorch's "eligible" tensors), as recorded
casts, so gradients reach float32 leaves in float32. A "promote" op casts them to the widest of their
types instead (float32 when any is float32, else the autocast dtype)."""
from __future__ import annotations

import threading

from .. import _dtype
from .._ops._core.registry import REGISTRY
from ..tensor import Tensor


def policy(which: str) -> tuple:
    """The registry keys of the ops whose declaration says ``autocast=which`` ("lower", "fp32",
    "promote"): the lists are read from the declarations, each op's policy is written beside it."""
    return tuple(key for key, decl in REGISTRY.items() if decl.autocast == which)


# autocast is per thread, as in PyTorch: each thread's dtype (None: off). The casting wrappers are installed
# while at least one thread has autocast on, and a thread with it off calls straight through them.
_local = threading.local()
_installed = {"threads": 0, "saved": None}
_lock = threading.Lock()


def cpu_dtype():
    return getattr(_local, "dtype", None)


def _cast_arg(a, dt):
    if type(a) is Tensor or isinstance(a, Tensor):
        d = a.dtype
        if d.is_floating_point and d is not _dtype.float64 and d is not dt:
            return a.to(dt)
        return a
    if isinstance(a, (list, tuple)) and a and isinstance(a[0], Tensor):
        return type(a)(_cast_arg(x, dt) for x in a)
    return a


def _has_float32(x) -> bool:
    if isinstance(x, Tensor):
        return x.dtype is _dtype.float32
    if isinstance(x, (list, tuple)):
        return any(_has_float32(i) for i in x)
    return False


def _casting(impl, kind):
    target = _dtype.float32 if kind == "fp32" else None

    def autocast_op(*args, **kwargs):
        on = getattr(_local, "dtype", None)
        if on is None:  # another thread's autocast installed the wrapper
            return impl(*args, **kwargs)
        dt = on if target is None else target
        if kind == "promote" and (_has_float32(args) or _has_float32(tuple(kwargs.values()))):
            dt = _dtype.float32
        args = tuple(_cast_arg(a, dt) for a in args)
        kwargs = {k: _cast_arg(v, dt) for k, v in kwargs.items()}
        return impl(*args, **kwargs)
    autocast_op.__wrapped__ = impl
    return autocast_op


def _impl_cell(public):
    return public.__closure__[public.__code__.co_freevars.index("impl")]


def _install() -> list:
    saved = []
    for decl in REGISTRY.values():
        if decl.autocast is None:
            continue
        cell = _impl_cell(decl.public)
        saved.append((cell, "cell", cell.cell_contents))
        cell.cell_contents = _casting(decl.impl, decl.autocast)
        for spelling in tuple(decl.variants) + decl.dunders + decl.rdunders:
            current = getattr(Tensor, spelling, None)
            # the method (the op itself, or the registry's function around it that reads other spellings of its
            # keywords: arguments.parsed_method), or the meta device's wrapper of it (tinytorch/_meta.py)
            inner = getattr(current, "_meta_wraps", current)
            if inner is decl.impl or getattr(inner, "__wrapped__", None) is decl.impl:
                saved.append((Tensor, spelling, current))
                setattr(Tensor, spelling, _casting(current, decl.autocast))
    return saved


def _uninstall(saved: list) -> None:
    for owner, attr, value in reversed(saved):
        if attr == "cell":
            owner.cell_contents = value
        else:
            setattr(owner, attr, value)


def set_cpu(dt) -> None:
    """This thread's CPU autocast dtype (None: off)."""
    prev = getattr(_local, "dtype", None)
    _local.dtype = dt
    if (prev is None) == (dt is None):
        return
    with _lock:
        if dt is not None:
            _installed["threads"] += 1
            if _installed["threads"] == 1:
                _installed["saved"] = _install()
        else:
            _installed["threads"] -= 1
            if _installed["threads"] == 0:
                _uninstall(_installed["saved"])
                _installed["saved"] = None
