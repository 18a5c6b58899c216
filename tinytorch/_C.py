"""``tinytorch._C``: the few names of PyTorch's C extension module that Python libraries call directly.

Where they compute, they do: ``_ExcludeDispatchKeyGuard`` hides dispatch keys from ``torch.ops`` calls
(torchvision's autocast kernels re-enter their operator with the autocast keys excluded), and
``DisableTorchFunctionSubclass`` turns off ``__torch_function__`` dispatch of Tensor subclasses inside
it. The rest state what holds on tinytorch: ``_get_tracing_state()`` is None (no TorchScript tracer),
``_log_api_usage_once`` records nothing (PyTorch logs API usage to its telemetry only inside Meta)."""
from __future__ import annotations

import enum

from ._op_namespace import _exclude
from ._tensor.members import _dispatch
from .random import Generator  # noqa: F401  (PyTorch's class lives here: torch._C.Generator)

__all__ = ["DispatchKey", "DispatchKeySet", "_ExcludeDispatchKeyGuard", "_IncludeDispatchKeyGuard",
           "_get_tracing_state", "_log_api_usage_once", "_log_api_usage_metadata", "DisableTorchFunctionSubclass",
           "DisableTorchFunction", "_disabled_torch_function_impl", "_get_privateuse1_backend_name",
           "_is_torch_function_enabled", "_is_torch_function_mode_enabled"]


class DispatchKey(enum.Enum):
    Undefined = 0
    CPU = 1
    CUDA = 2
    XPU = 3
    MPS = 4
    Meta = 5
    BackendSelect = 6
    Python = 7
    AutogradCPU = 8
    AutogradCUDA = 9
    AutogradXPU = 10
    Autograd = 11
    AutocastCPU = 12
    AutocastCUDA = 13
    AutocastXPU = 14
    AutocastMPS = 15
    CompositeImplicitAutograd = 16
    CompositeExplicitAutograd = 17
    CompositeExplicitAutogradNonFunctional = 18
    ADInplaceOrView = 19
    Functionalize = 20
    PythonDispatcher = 21
    PythonTLSSnapshot = 22
    PreDispatch = 23
    AutogradOther = 24
    Dense = 25
    SparseCPU = 26
    QuantizedCPU = 27
    FuncTorchBatched = 28
    FuncTorchDynamicLayerFrontMode = 29
    Batched = 30


class DispatchKeySet:
    """A set of dispatch keys: ``DispatchKeySet(DispatchKey.AutocastCPU) | DispatchKeySet(...)``."""

    def __init__(self, key=None):
        if key is None:
            self._keys = frozenset()
        elif isinstance(key, DispatchKeySet):
            self._keys = key._keys
        elif isinstance(key, (set, frozenset, list, tuple)):
            self._keys = frozenset(DispatchKey[k] if isinstance(k, str) else k for k in key)
        else:
            self._keys = frozenset({DispatchKey[key] if isinstance(key, str) else key})

    @classmethod
    def _of(cls, keys):
        out = cls()
        out._keys = frozenset(keys)
        return out

    def __or__(self, other):
        return DispatchKeySet._of(self._keys | DispatchKeySet(other)._keys)

    def __and__(self, other):
        return DispatchKeySet._of(self._keys & DispatchKeySet(other)._keys)

    def __sub__(self, other):
        return DispatchKeySet._of(self._keys - DispatchKeySet(other)._keys)

    def __eq__(self, other):
        return isinstance(other, DispatchKeySet) and self._keys == other._keys

    def __hash__(self):
        return hash(self._keys)

    def has(self, key) -> bool:
        return (DispatchKey[key] if isinstance(key, str) else key) in self._keys

    def add(self, key) -> "DispatchKeySet":
        return self | DispatchKeySet(key)

    def remove(self, key) -> "DispatchKeySet":
        return self - DispatchKeySet(key)

    def empty(self) -> bool:
        return not self._keys

    def __iter__(self):
        return iter(sorted(self._keys, key=lambda k: k.value))

    def __repr__(self) -> str:
        return f"DispatchKeySet({', '.join(k.name for k in self)})"


class _ExcludeDispatchKeyGuard:
    """While inside, ``torch.ops`` calls skip the kernels registered for these keys."""

    def __init__(self, keyset):
        self._guard = _exclude(k.name for k in DispatchKeySet(keyset))

    def __enter__(self):
        self._guard.__enter__()
        return self

    def __exit__(self, *exc):
        return self._guard.__exit__(*exc)


class _IncludeDispatchKeyGuard:
    """Accepted; tinytorch has no dispatch keys to force on (a no-op context)."""

    def __init__(self, keyset):
        pass

    def __enter__(self):
        return self

    def __exit__(self, *exc):
        return False


def _get_tracing_state():
    """None: tinytorch has no TorchScript tracer, so nothing is ever being traced."""
    return None


def _log_api_usage_once(event: str) -> None:
    """Records nothing (PyTorch's API-usage logging reports only inside Meta's infrastructure)."""


def _log_api_usage_metadata(event: str, metadata) -> None:
    """Records nothing (see ``_log_api_usage_once``)."""


def _get_privateuse1_backend_name() -> str:
    return "privateuseone"


class DisableTorchFunctionSubclass:
    """Inside it, Tensor subclasses' ``__torch_function__`` is not called: ops run as plain Tensor's."""

    def __enter__(self):
        _dispatch.depth += 1
        return self

    def __exit__(self, *exc):
        _dispatch.depth -= 1
        return False


DisableTorchFunction = DisableTorchFunctionSubclass


def _is_torch_function_enabled() -> bool:
    return _dispatch.depth == 0


def _is_torch_function_mode_enabled() -> bool:
    return False


def _disabled_torch_function_impl(func, types, args=(), kwargs=None):
    """A ``__torch_function__`` that runs ``func`` with subclass dispatch off and keeps results as they come."""
    with DisableTorchFunctionSubclass():
        return func(*args, **(kwargs or {}))
