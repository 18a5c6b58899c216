"""The deprecated ``size_average``/``reduce`` loss arguments (kept in ``ops/_reduction.py``, beside the losses)."""
from ..ops._reduction import legacy_get_string, resolve  # noqa: F401
