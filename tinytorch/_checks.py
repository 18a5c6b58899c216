"""``torch._assert`` and ``torch._check*``: the checks PyTorch's own Python (and libraries) call, raising
the exception types PyTorch raises; ``torch._sample_dirichlet``."""
from __future__ import annotations

from ._ops._core.torch_function import subclass_among
from ._symbolic import SymBool

__all__ = ["_assert", "_check", "_check_index", "_check_value", "_check_type", "_check_not_implemented",
           "_check_is_size", "_sample_dirichlet"]


def _assert(condition, message):
    """``assert condition, message`` (a function, so traced code can call it: a torch.fx Proxy, or another
    class with ``__torch_function__``, receives the call instead)."""
    cls = subclass_among((condition,))
    if cls is not None:
        return cls.__torch_function__(_assert, (cls,), (condition, message), {})
    assert condition, message


def _raise(error_type, cond, message):
    if isinstance(cond, bool) or not hasattr(cond, "item"):
        ok = bool(cond)
    else:
        ok = bool(cond.item())
    if ok:
        return
    if message is None:
        text = ("Expected cond to be True, but got False. (Could this error message be improved? If so, please "
                "report an enhancement request to PyTorch.)")
    elif callable(message):
        text = message()
        if not isinstance(text, str):
            raise TypeError("message must be a callable returning a string")
    else:
        raise TypeError("message must be a callable")
    raise error_type(text)


def _check(cond, message=None):
    if isinstance(cond, SymBool):  # an export's condition on an unbacked value: a runtime check in the graph
        cond._tracer.check(cond)
        return
    _raise(RuntimeError, cond, message)


def _check_index(cond, message=None):
    _raise(IndexError, cond, message)


def _check_value(cond, message=None):
    _raise(ValueError, cond, message)


def _check_type(cond, message=None):
    _raise(TypeError, cond, message)


def _check_not_implemented(cond, message=None):
    _raise(NotImplementedError, cond, message)


def _check_is_size(i, message=None, *, max=None):  # noqa: A002 - PyTorch's name
    _check(i >= 0, message)
    if max is not None:
        _check(i <= max, message)


def _sample_dirichlet(input, generator=None):
    """One Dirichlet draw per row of concentrations ``input`` (differentiable, as Dirichlet.rsample)."""
    if generator is not None:
        raise NotImplementedError("torch._sample_dirichlet(generator=): tinytorch draws Dirichlet samples from the "
                                  "default generator only")
    import importlib  # the distributions load on first use (they build on the whole package)

    return importlib.import_module(f"{__package__}.distributions._draws").sample_dirichlet(input)
