"""Anomaly mode: record where each node was made, and fail on the first NaN gradient."""
from __future__ import annotations

import warnings

from .node import _Anomaly


def is_anomaly_enabled() -> bool:
    return _Anomaly.enabled


def is_anomaly_check_nan_enabled() -> bool:
    return _Anomaly.check_nan


class set_detect_anomaly:
    """Turn anomaly detection on or off; also usable as a context manager."""

    def __init__(self, mode: bool, check_nan: bool = True) -> None:
        self.prev = (_Anomaly.enabled, _Anomaly.check_nan)
        _Anomaly.enabled = bool(mode)
        _Anomaly.check_nan = bool(check_nan)

    def __enter__(self) -> None:
        pass

    def __exit__(self, *exc) -> None:
        _Anomaly.enabled, _Anomaly.check_nan = self.prev


class detect_anomaly:
    """Context manager (and decorator) enabling anomaly detection inside its block."""

    def __init__(self, check_nan: bool = True) -> None:
        self.check_nan = check_nan
        self.prev = (False, True)
        warnings.warn("Anomaly Detection has been enabled. This mode will increase the runtime and should only be "
                      "enabled for debugging.", UserWarning, stacklevel=2)

    def __enter__(self) -> None:
        self.prev = (_Anomaly.enabled, _Anomaly.check_nan)
        _Anomaly.enabled, _Anomaly.check_nan = True, self.check_nan

    def __exit__(self, *exc) -> None:
        _Anomaly.enabled, _Anomaly.check_nan = self.prev

    def __call__(self, fn):
        import functools

        @functools.wraps(fn)
        def wrapper(*args, **kwargs):
            with self.__class__(self.check_nan):
                return fn(*args, **kwargs)
        return wrapper
