"""``tinytorch._C``: the few names of PyTorch's C extension module that Python libraries call directly.

Where they compute, they do: ``_ExcludeDispatchKeyGuard`` hides dispatch keys from ``torch.ops`` calls
(torchvision's autocast kernels re-enter their operator with the autocast keys excluded), and
``DisableTorchFunctionSubclass`` turns off ``__torch_function__`` dispatch of Tensor subclasses inside
it. The rest state what holds on tinytorch: ``_get_tracing_state()`` is None (no TorchScript tracer),
``_log_api_usage_once`` records nothing (PyTorch logs API usage to its telemetry only inside Meta).

``_nn``, ``_linalg``, ``_special`` and ``_fft`` are the C++ submodules where PyTorch binds some of its public
functions, under their names there: PyTorch's ``torch.nn.functional.linear`` is ``torch._C._nn.linear`` and
``torch.linalg.norm`` is ``torch._C._linalg.linalg_norm``. torch.fx names a traced call by that place
(``torch._C._nn.linear(x, w)`` in generated code), so tinytorch's functions are found there too."""
from __future__ import annotations

import enum
import types

from .. import fft as _fft_namespace, linalg as _linalg_namespace, special as _special_namespace
from .._op_namespace import _exclude
from ..nn import functional as _functional
from .._ops._core.torch_function import dispatch as _dispatch
from .._switches import get_default_device as _default_device
from ..autograd.grad_mode import _State, _set_grad_enabled  # noqa: F401  (PyTorch's name for it)
from ..linalg import LinAlgError as _LinAlgError  # noqa: F401  (PyTorch's class lives here too)
from . import _profiler  # noqa: F401  (a real submodule: import torch._C._profiler works)
from ..random import Generator  # noqa: F401  (PyTorch's class lives here: torch._C.Generator)
from ..tensor import Tensor as _Tensor
from ..nn.modules.module import parse_to as _parse_to

__all__ = ["DispatchKey", "DispatchKeySet", "_ExcludeDispatchKeyGuard", "_IncludeDispatchKeyGuard",
           "_get_tracing_state", "_log_api_usage_once", "_log_api_usage_metadata", "DisableTorchFunctionSubclass",
           "DisableTorchFunction", "_disabled_torch_function_impl", "_get_privateuse1_backend_name",
           "_is_torch_function_enabled", "_is_torch_function_mode_enabled", "_nn", "_linalg", "_special", "_fft",
           "_set_grad_enabled", "_profiler"]


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


# -- the C++ submodules PyTorch binds public functions in ------------------------------------------------------
# torch.nn.functional's spellings that PyTorch takes straight from torch._C._nn (the others are Python functions
# of torch.nn.functional, or torch.X itself): {name in torch._C._nn: name in torch.nn.functional}
_NN_FUNCTIONAL = {"avg_pool2d": "avg_pool2d", "avg_pool3d": "avg_pool3d", "elu_": "elu_", "gelu": "gelu",
                  "hardtanh_": "hardtanh_", "leaky_relu_": "leaky_relu_", "linear": "linear",
                  "log_sigmoid": "logsigmoid", "one_hot": "one_hot",
                  "scaled_dot_product_attention": "scaled_dot_product_attention", "softplus": "softplus",
                  "softshrink": "softshrink"}


def _submodule(name: str, functions: dict) -> types.ModuleType:
    module = types.ModuleType(f"{__name__}.{name}")
    module.__dict__.update(functions)
    return module


def _prefixed(namespace, prefix: str) -> dict:
    """{prefix + name: function} for every public function of ``namespace`` (torch.linalg.norm is linalg_norm)."""
    return {prefix + n: f for n, f in vars(namespace).items()
            if not n.startswith("_") and callable(f) and not isinstance(f, type)}


_nn = _submodule("_nn", {**{ours: getattr(_functional, theirs) for ours, theirs in _NN_FUNCTIONAL.items()},
                         "_parse_to": _parse_to})  # Module.to's argument parser (Lightning calls it)
_linalg = _submodule("_linalg", _prefixed(_linalg_namespace, "linalg_"))
_special = _submodule("_special", _prefixed(_special_namespace, "special_"))
_fft = _submodule("_fft", _prefixed(_fft_namespace, "fft_"))


def _is_legacy_batchedtensor(tensor) -> bool:
    """False: tinytorch's vmap batches through its own BatchedTensor, never PyTorch's legacy batched tensors."""
    return False


# what libraries ask of functorch's C++ layers (kornia: is_legacy_batchedtensor)
_functorch = _submodule("_functorch", {"is_legacy_batchedtensor": _is_legacy_batchedtensor})


# Tensor's metaclass, which libraries name in annotations and isinstance checks (PyTorch's is a C++ type)
_TensorMeta = type(_Tensor)


def _are_functorch_transforms_active() -> bool:
    """True while this thread runs inside ``vmap`` (or an ONNX export, which records through the same
    transform level): libraries then avoid in-place writes and data-dependent branches, as under
    PyTorch's functorch layers. ``func.grad`` and ``jvp`` need no level on tinytorch: they run eagerly."""
    return _State.transforms > 0


def _get_default_device() -> str:
    """The default device's type, as a string (``"cpu"``, or ``"meta"`` inside ``set_default_device("meta")``)."""
    return _default_device().type


class _ArchiveRecords:
    """PyTorch's record-level reader and writer of its zip checkpoints (``torch.PyTorchFileReader``, used by
    lazy checkpoint loaders). tinytorch reads and writes the same archives, whole, through ``torch.load`` and
    ``torch.save``; it has no record-level access, so making one refuses."""

    def __init__(self, *args, **kwargs):
        raise NotImplementedError(f"tinytorch has no torch._C.{type(self).__name__} (record-level access to "
                                  "checkpoint archives): load and save whole checkpoints with torch.load / torch.save")


class PyTorchFileReader(_ArchiveRecords):
    pass


class PyTorchFileWriter(_ArchiveRecords):
    pass


# PyTorch binds both in its top-level module (torch.PyTorchFileReader), where tinytorch finds ours on first use
PyTorchFileReader.__module__ = PyTorchFileWriter.__module__ = "tinytorch"
