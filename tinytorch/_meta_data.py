"""The few helpers the lower layers need to make a meta tensor (see ``tinytorch/_meta.py``): its storage, a
``MetaArray`` (``_meta_array.py``: a shape, a dtype and strides, no values), the test for a meta device name,
and the meta default device. Numpy only, below the tensor module, so that every layer can use it; ``_meta.py``
registers here what must happen when the first meta tensor appears (``bind_first_meta``)."""
from __future__ import annotations

import threading

from ._meta_array import MetaArray

_hooks = {"first_meta": None, "default_meta": None, "fake": None}


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


def dataless(like, dtype=None) -> MetaArray:
    """What a meta tensor holds: ``like``'s shape and layout (a numpy array or a ``MetaArray``) of ``dtype``
    (default: like's), and no values."""
    return MetaArray.like(like, dtype)


def is_meta_device(d) -> bool:
    """Whether ``d`` (a ``device``, a string or None) names the meta device."""
    if d is None:
        return False
    if isinstance(d, str):
        return d.partition(":")[0] == "meta"
    return getattr(d, "type", None) == "meta"


def mark_meta(t):
    """Flag tensor ``t`` as a meta tensor (in place), its values dropped: it keeps its shape and layout."""
    if not t._meta:
        if type(t._data) is not MetaArray:
            old = t._data
            t._data = MetaArray.like(old)
            for saved in getattr(t.grad_fn, "_saved", None) or ():
                if getattr(saved, "data", None) is old and type(saved).__name__ == "_SavedOutput":
                    saved.data = t._data  # the node saved this result (computed on zeros): it keeps the meta one
        t._meta = True
    hook = _hooks["first_meta"]  # (also for a tensor made meta already, by ``_make`` from a MetaArray)
    if hook is not None:
        hook()
    return t


def meta_result(t, like):
    """``t`` flagged meta, as a result computed from the meta tensor ``like`` (fake where ``like`` is fake)."""
    mark_meta(t)
    fake = _hooks["fake"]
    if fake is not None:
        fake[1]([t], [like], None)
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


# -- fake tensors (``tinytorch/_subclasses/fake_tensor.py``): meta tensors that answer another device ----------
class _FakeModes(threading.local):
    stack = None  # this thread's entered FakeTensorModes, innermost last


_fake_modes = _FakeModes()
FAKE_ON = [0]  # fake modes entered, in all threads: while 0 the meta path asks nothing about fakes


def bind_fake(hooks) -> None:
    """Where the fake tensor module registers ``(inputs(name, args, kwargs), results(results, inputs, device),
    UnsupportedOperatorException)``: the first converts or refuses an op's real tensor arguments, the second
    turns its meta results into fake tensors, when a fake tensor is among its inputs or a fake mode is on."""
    _hooks["fake"] = hooks


def fake_hook():
    return _hooks["fake"]


def fake_mode():
    """This thread's innermost entered FakeTensorMode, or None."""
    stack = _fake_modes.stack
    return stack[-1] if stack else None


def enter_fake(mode) -> None:
    if _fake_modes.stack is None:
        _fake_modes.stack = []
    _fake_modes.stack.append(mode)
    FAKE_ON[0] += 1
    _default_now_meta()  # the factories and ops must look from now on
    hook = _hooks["first_meta"]
    if hook is not None:
        hook()


def exit_fake() -> None:
    if _fake_modes.stack:
        _fake_modes.stack.pop()
        FAKE_ON[0] -= 1
