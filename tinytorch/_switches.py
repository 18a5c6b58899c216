"""Global switches scripts set unconditionally: deterministic algorithms, float32 matmul precision and the
default device. tinytorch runs numpy on the CPU, so each keeps PyTorch's state and answers without changing how
anything computes. (``torch.compile`` lives in ``tinytorch/_dynamo/eval_frame.py``.)"""
from __future__ import annotations

import warnings

from . import _meta_data
from ._size import device

_state = {"deterministic": False, "warn_only": False, "matmul_precision": "highest", "default_device": None}


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
