"""``tinytorch.multiprocessing``: Python's ``multiprocessing`` (tensors pickle by value: there is no
shared-memory transport), with PyTorch's sharing-strategy queries."""
from __future__ import annotations

import multiprocessing as _mp
import sys
from multiprocessing import *  # noqa: F401,F403

__all__ = ["set_sharing_strategy", "get_sharing_strategy", "get_all_sharing_strategies", "spawn", "start_processes",
           *_mp.__all__]

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


def start_processes(fn, args=(), nprocs: int = 1, join: bool = True, daemon: bool = False, start_method: str = "spawn"):
    """Runs ``fn(i, *args)`` in ``nprocs`` processes; with ``join`` waits and raises if one failed."""
    ctx = _mp.get_context(start_method)
    procs = [ctx.Process(target=fn, args=(i, *args), daemon=daemon) for i in range(nprocs)]
    for p in procs:
        p.start()
    if not join:
        return procs
    for p in procs:
        p.join()
    failed = [(i, p.exitcode) for i, p in enumerate(procs) if p.exitcode != 0]
    if failed:
        raise RuntimeError(f"process {failed[0][0]} terminated with exit code {failed[0][1]}")
    return None


def spawn(fn, args=(), nprocs: int = 1, join: bool = True, daemon: bool = False, start_method: str = "spawn"):
    return start_processes(fn, args, nprocs, join, daemon, start_method)
