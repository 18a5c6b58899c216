"""Anomaly mode: record where each node was made, and fail on the first NaN gradient."""
from __future__ import annotations

import warnings

from .grad_mode import _Active, _State


def is_anomaly_enabled() -> bool:
    return _State.anomaly


def is_anomaly_check_nan_enabled() -> bool:
    return _State.check_nan


def _set(enabled: bool, check_nan: bool) -> None:
    """Set this thread's anomaly mode, keeping the count of threads that have it on."""
    if enabled != _State.anomaly:
        _Active.count("anomaly", 1 if enabled else -1)
    _State.anomaly, _State.check_nan = enabled, check_nan


class set_detect_anomaly:
    """Turn anomaly detection on or off; also usable as a context manager."""

    def __init__(self, mode: bool, check_nan: bool = True) -> None:
        self.prev = (_State.anomaly, _State.check_nan)
        _set(bool(mode), bool(check_nan))

    def __enter__(self) -> None:
        pass

    def __exit__(self, *exc) -> None:
        _set(*self.prev)


class detect_anomaly:
    """Context manager (and decorator) enabling anomaly detection inside its block."""

    def __init__(self, check_nan: bool = True) -> None:
        self.check_nan = check_nan
        self.prev = (False, True)
        warnings.warn("Anomaly Detection has been enabled. This mode will increase the runtime and should only be "
                      "enabled for debugging.", UserWarning, stacklevel=2)

    def __enter__(self) -> None:
        self.prev = (_State.anomaly, _State.check_nan)
        _set(True, bool(self.check_nan))

    def __exit__(self, *exc) -> None:
        _set(*self.prev)

    def __call__(self, fn):
        import functools

        @functools.wraps(fn)
        def wrapper(*args, **kwargs):
            with self.__class__(self.check_nan):
                return fn(*args, **kwargs)
        return wrapper
