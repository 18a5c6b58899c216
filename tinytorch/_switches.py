"""Global switches scripts set unconditionally: deterministic algorithms, float32 matmul precision and the
default device (tinytorch runs numpy on the CPU, so each keeps PyTorch's state and answers without changing how
anything computes), and ``compile``, whose machinery lives in ``tinytorch/_dynamo``."""
from __future__ import annotations

import warnings

from . import _meta_data
from ._size import device

_state = {"deterministic": False, "warn_only": False, "matmul_precision": "highest", "default_device": None}


def compile(model=None, *, fullgraph: bool = False, dynamic=None, backend="inductor", mode=None,  # noqa: A001
            options=None, disable: bool = False):
    """``torch.compile``: a Module becomes an ``OptimizedModule``, a function a compiled function, which capture
    the program as a graph at their first call and replay it (``tinytorch/_dynamo``). Used as
    ``@tinytorch.compile`` or ``@tinytorch.compile(mode=...)`` it decorates too; ``disable=True`` returns
    ``model`` itself."""
    # the compiler's modules load on the first compile, as the lazy submodules (fx, _dynamo) do
    from ._dynamo import eval_frame

    if model is None:
        def decorate(fn):
            return compile(fn, fullgraph=fullgraph, dynamic=dynamic, backend=backend, mode=mode, options=options,
                           disable=disable)
        return decorate
    if mode is not None and options is not None:
        raise RuntimeError("Either mode or options can be specified, but both can't be specified at the same time.")
    if not callable(model):
        raise RuntimeError("model must be callable")
    if disable:
        return model
    if isinstance(model, eval_frame.Module):
        if isinstance(model, eval_frame.OptimizedModule):
            model = model._orig_mod
        return eval_frame.OptimizedModule(model, {"fullgraph": fullgraph, "dynamic": dynamic, "backend": backend,
                                                  "mode": mode, "options": options})
    return eval_frame.compile_callable(model, fullgraph=fullgraph, dynamic=dynamic, backend=backend)


def use_deterministic_algorithms(mode: bool, *, warn_only: bool = False) -> None:
    """Recorded only: every tinytorch op is already deterministic."""
    _state["deterministic"] = bool(mode)
    _state["warn_only"] = bool(warn_only)


def are_deterministic_algorithms_enabled() -> bool:
    return _state["deterministic"]


def is_deterministic_algorithms_warn_only_enabled() -> bool:
    return _state["warn_only"]


def set_float32_matmul_precision(precision: str) -> None:
    """Recorded only (numpy's float32 matmul has one precision); unknown names warn, as in PyTorch."""
    if precision not in ("highest", "high", "medium"):
        warnings.warn(f"{precision} is not one of 'highest', 'high', or 'medium'; the current"
                      "setFloat32MatmulPrecision call has no effect.", UserWarning, stacklevel=2)
        return
    _state["matmul_precision"] = precision


def get_float32_matmul_precision() -> str:
    return _state["matmul_precision"]


def set_default_device(device) -> None:
    """The CPU (``'cpu'`` or None) or the meta device (tensors without values); anything else raises."""
    if device is not None and str(device).split(":")[0] not in ("cpu", "meta"):
        raise RuntimeError(f"tinytorch has only the CPU device; cannot make {str(device)!r} the default device")
    _state["default_device"] = device
    _meta_data.set_default_meta(device is not None and str(device).split(":")[0] == "meta")


def get_default_device():
    return device("meta") if _meta_data.default_is_meta() else device("cpu")
