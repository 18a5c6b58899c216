"""PyTorch, the suite's oracle, imported when a test first reads it.

``from _oracle import torch`` at a test module's top stands where ``torch = pytest.importorskip("torch")`` would: the
tests that read ``torch`` skip where PyTorch is not installed (the conftest's one summary line counts them, and
``TINYTORCH_REQUIRE_TORCH=1`` makes them fail), while the module's other tests, which need no oracle, still run.
A module that reads PyTorch while it is imported (a parametrization built from its dtypes) is skipped whole, as
``importorskip`` at its top would."""
import contextlib
import sys

import pytest

_LOADED: list = []


def _load():
    if not _LOADED:
        _LOADED.append(pytest.importorskip("torch"))
    return _LOADED[0]


# the names pytest's collection (and unittest's issubclass) read off every object a test module holds
_PROBES = frozenset({"__test__", "__bases__", "__mro__", "__wrapped__", "__call__", "__func__", "__code__",
                     "__signature__", "__origin__", "__mro_entries__", "__self__"})


class _PyTorch:
    """Every attribute read goes to the ``torch`` module (a skip where it cannot be imported)."""

    __slots__ = ()

    def __getattr__(self, name):
        if name in _PROBES or name.startswith(("pytest", "_pytest")):
            # what pytest's collection asks of every name a test module holds (``__test__``, ``pytestmark``,
            # ``__bases__``): answered without a skip where PyTorch is missing
            try:
                return getattr(_load(), name)
            except pytest.skip.Exception:
                raise AttributeError(name) from None
        return getattr(_load(), name)

    def __repr__(self) -> str:
        return repr(_load())


torch = _PyTorch()


@contextlib.contextmanager
def pytorchs_own_script_calls():
    """PyTorch's own test utilities (``torch.testing._internal.common_utils``, which the op_db tests import when
    collected, so in every worker of a full run) replace ``ScriptFunction.__call__`` and ``ScriptMethod.__call__``
    with Python wrappers for the rest of the process. PyTorch's tracer names a scripted call's inputs after the
    variables of the Python frame that made the call, then the wrapper's (whose locals hold no tensor): a trace
    prints ``%3`` where a user's prints ``%s``. Inside this block the calls are PyTorch's own again (the originals
    that module kept); nothing changes where it was not imported."""
    utils = sys.modules.get("torch.testing._internal.common_utils")
    originals = (getattr(utils, "func_call", None), getattr(utils, "meth_call", None))
    if None in originals:
        yield
        return
    classes = (utils.torch._C.ScriptFunction, utils.torch._C.ScriptMethod)
    before = [cls.__call__ for cls in classes]
    for cls, call in zip(classes, originals):
        cls.__call__ = call
    try:
        yield
    finally:
        for cls, call in zip(classes, before):
            cls.__call__ = call
