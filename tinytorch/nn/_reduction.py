"""The deprecated ``size_average``/``reduce`` loss arguments (kept in ``_ops/nn/_reduction.py``, beside the losses)."""
from .._ops.nn._reduction import legacy_get_string, resolve  # noqa: F401
