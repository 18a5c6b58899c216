"""The storage of meta tensors (see ``tinytorch/_meta.py``) and the few helpers the lower layers need to
make one: arrays that hold a shape, a dtype and strides and cost no memory, the test for a meta device
name, and the meta default device. Numpy only, below the tensor module, so that every layer can use it;
``_meta.py`` registers here what must happen when the first meta tensor appears (``bind_first_meta``)."""
from __future__ import annotations

import threading

import numpy as np

_hooks = {"first_meta": None, "default_meta": None}


def bind_first_meta(fn) -> None:
    """Where ``_meta.py`` registers the installation of its op wrappers (run when a meta tensor first exists)."""
    _hooks["first_meta"] = fn


def bind_default_meta(fn) -> None:
    """Where ``_meta.py`` registers what must happen when the default device becomes the meta device."""
    _hooks["default_meta"] = fn


def _default_now_meta() -> None:
    hook = _hooks["default_meta"]
    if hook is not None:
        hook()


def lazy_zeros(like: np.ndarray, dtype=None) -> np.ndarray:
    """A zero array of ``like``'s shape and strides (in elements), of ``dtype`` (default: like's), whose
    memory the operating system maps only when written (numpy's zeros are calloc'd): what a meta tensor
    holds, so that a meta model of any size costs no memory while its values, never shown, read as zeros."""
    dt = like.dtype if dtype is None else np.dtype(dtype)
    if like.size == 0 or any(s < 0 for s in like.strides):
        return np.zeros(like.shape, dtype=dt)
    elems = [s // like.itemsize for s in like.strides]
    span = 1 + sum((n - 1) * s for n, s in zip(like.shape, elems))
    return np.lib.stride_tricks.as_strided(np.zeros(span, dtype=dt), like.shape, [s * dt.itemsize for s in elems])


def is_meta_device(d) -> bool:
    """Whether ``d`` (a ``device``, a string or None) names the meta device."""
    if d is None:
        return False
    if isinstance(d, str):
        return d.partition(":")[0] == "meta"
    return getattr(d, "type", None) == "meta"


def mark_meta(t):
    """Flag tensor ``t`` as a meta tensor (in place) and drop the memory of its values: a fresh result gets
    lazy zeros of its layout; a view keeps viewing its (meta) base's zeros."""
    if not t._meta:
        if t._base is None:
            t._data = lazy_zeros(t._data)
        t._meta = True
        hook = _hooks["first_meta"]
        if hook is not None:
            hook()
    return t


class _Default(threading.local):
    stack = None  # the ``with torch.device(...)`` blocks of this thread: True where the device is meta


_default_block = _Default()
_default_set = [False]  # torch.set_default_device("meta")


def default_is_meta() -> bool:
    stack = _default_block.stack
    if stack:
        return stack[-1]
    return _default_set[0]


def enter_default(is_meta: bool) -> None:
    if _default_block.stack is None:
        _default_block.stack = []
    _default_block.stack.append(is_meta)
    if is_meta:
        _default_now_meta()


def set_default_meta(on: bool) -> None:
    """``torch.set_default_device``: the meta device (True) or the CPU."""
    _default_set[0] = on
    if on:
        _default_now_meta()


def exit_default() -> None:
    if _default_block.stack:
        _default_block.stack.pop()
