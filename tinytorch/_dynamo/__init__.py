"""``tinytorch._dynamo``: the TorchDynamo names libraries check. tinytorch's ``torch.compile`` runs the
function eagerly (see ``tinytorch._switches.compile``), so nothing is ever being compiled:
``is_compiling()`` is False, and ``disable``/``allow_in_graph``/``mark_dynamic`` change nothing."""
from . import utils  # noqa: F401

__all__ = ["is_compiling", "disable", "allow_in_graph", "mark_dynamic", "mark_static", "reset", "config"]


def is_compiling() -> bool:
    return False


def disable(fn=None, recursive: bool = True, *, reason=None, wrapping: bool = True):
    if fn is None:
        return lambda f: f
    return fn


def allow_in_graph(fn):
    return fn


def mark_dynamic(t, index, *, min=None, max=None, specialize_on=None):  # noqa: A002 - PyTorch's names
    pass


def mark_static(t, index=None):
    pass


def reset() -> None:
    pass


class config:  # noqa: N801 - PyTorch's module-like name
    suppress_errors = False
    cache_size_limit = 8
