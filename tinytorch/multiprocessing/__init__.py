"""``tinytorch.multiprocessing``: Python's ``multiprocessing`` (tensors pickle by value: there is no
shared-memory transport), with PyTorch's sharing-strategy queries and ``spawn``/``start_processes`` (in ``spawn.py``,
as PyTorch's)."""
from __future__ import annotations

import multiprocessing as _mp
import sys
from multiprocessing import *  # noqa: F401,F403

from .spawn import (ProcessContext, ProcessException, ProcessExitedException, ProcessRaisedException, spawn,
                    start_processes)

__all__ = ["set_sharing_strategy", "get_sharing_strategy", "get_all_sharing_strategies", "spawn", "start_processes",
           "ProcessContext", "ProcessException", "ProcessRaisedException", "ProcessExitedException", *_mp.__all__]

_all_strategies = {"file_system"} if sys.platform == "darwin" else {"file_descriptor", "file_system"}
_strategy = ["file_system" if sys.platform == "darwin" else "file_descriptor"]


def set_sharing_strategy(new_strategy: str) -> None:
    if new_strategy not in _all_strategies:
        raise AssertionError(f"invalid sharing strategy {new_strategy!r}")
    _strategy[0] = new_strategy


def get_sharing_strategy() -> str:
    return _strategy[0]


def get_all_sharing_strategies() -> set:
    return set(_all_strategies)
