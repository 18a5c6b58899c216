"""What runs inside a DataLoader worker process, and what it sends back.

A worker reads ``(epoch, task_number, indices)`` from its own index queue and puts the pickled
``(epoch, task_number, batch)`` on the shared result queue; ``None`` tells it to stop. It pickles
the reply itself, so a batch that cannot be pickled comes back as an error instead of being lost
in the queue's feeder thread (which would leave the main process waiting)."""
from __future__ import annotations

import os
import pickle
import queue
import random
import signal
import sys
import traceback
from dataclasses import dataclass
from typing import Any

import numpy as np

from .. import random as _random
from .._ops._kernels.parallel import set_num_threads
from ._fetch import IterableFetcher, fetch_map

__all__ = ["WorkerInfo", "get_worker_info"]

# how long a blocked queue read waits before looking whether the other side is still alive
POLL_INTERVAL_S = 0.1


@dataclass(frozen=True, slots=True)
class WorkerInfo:
    """This worker's ``id`` among ``num_workers``, its ``seed``, and its copy of the dataset."""

    id: int
    num_workers: int
    seed: int
    dataset: Any
    rng: Any = None
    worker_method: str | None = "multiprocessing"


_worker_info: WorkerInfo | None = None


def get_worker_info() -> WorkerInfo | None:
    """The current worker's ``WorkerInfo`` inside a worker; ``None`` in the main process."""
    return _worker_info


class _KeyErrorMessage(str):
    # KeyError shows repr() of its argument, which would print the traceback as one escaped line
    def __repr__(self) -> str:
        return self


class ExceptionWrapper:
    """An exception caught in a worker, sent to the main process as type and formatted traceback."""

    def __init__(self, exc_info=None, where: str = "in background") -> None:
        exc_info = exc_info or sys.exc_info()
        self.exc_type = exc_info[0]
        self.exc_msg = "".join(traceback.format_exception(*exc_info))
        self.where = where

    def reraise(self):
        """Raise the same exception type with PyTorch's 'Caught ... Original Traceback' message."""
        msg = f"Caught {self.exc_type.__name__} {self.where}.\nOriginal {self.exc_msg}"
        if self.exc_type is KeyError:
            msg = _KeyErrorMessage(msg)
        try:
            exception = self.exc_type(msg)
        except Exception:
            # exception types whose constructor wants other arguments
            raise RuntimeError(msg) from None
        raise exception


class WorkerExhausted:
    """Reply of a worker whose pass over an iterable dataset has ended."""

    def __init__(self, worker_id: int) -> None:
        self.worker_id = worker_id


def _numpy_seed(base_seed: int, worker_id: int) -> np.ndarray:
    # a hashed seed, so numpy's stream shares nothing with python's random seeded by base_seed + id
    return np.random.SeedSequence([worker_id, base_seed]).generate_state(4)


def _seed_everything(base_seed: int, worker_id: int) -> int:
    seed = base_seed + worker_id
    random.seed(seed)
    _random.manual_seed(seed)
    np.random.seed(_numpy_seed(base_seed, worker_id))
    return seed


def worker_loop(is_iterable: bool, dataset, index_queue, result_queue, auto_collation: bool,
                collate_fn, drop_last: bool, base_seed: int, init_fn, worker_id: int,
                num_workers: int, parent_pid: int) -> None:
    """Serve batches until told to stop or until the main process disappears."""
    global _worker_info
    # Ctrl-C reaches the whole process group; the main process handles it and shuts workers down
    signal.signal(signal.SIGINT, signal.SIG_IGN)
    # one thread per worker, numpy's OpenBLAS included, as PyTorch's workers: N workers on N cores
    # would otherwise run N x get_num_threads() threads
    set_num_threads(1)
    # when stopping, unsent replies may be dropped: the main process no longer wants them
    result_queue.cancel_join_thread()
    where = f"in DataLoader worker process {worker_id}"
    seed = _seed_everything(base_seed, worker_id)
    _worker_info = WorkerInfo(id=worker_id, num_workers=num_workers, seed=seed, dataset=dataset)
    init_error = None
    try:
        if init_fn is not None:
            init_fn(worker_id)
    except Exception:
        init_error = ExceptionWrapper(where=where)
    fetcher, fetcher_epoch = None, None
    while True:
        try:
            task = index_queue.get(timeout=POLL_INTERVAL_S)
        except queue.Empty:
            if os.getppid() != parent_pid:
                return  # orphaned: nobody will read what we make
            continue
        if task is None:
            return
        epoch, task_number, index = task
        if init_error is not None:
            data, init_error = init_error, None
        else:
            try:
                if is_iterable:
                    if fetcher_epoch != epoch:
                        fetcher = IterableFetcher(dataset, auto_collation, collate_fn, drop_last)
                        fetcher_epoch = epoch
                    try:
                        data = fetcher.fetch(index)
                    except StopIteration:
                        data = WorkerExhausted(worker_id)
                else:
                    data = fetch_map(dataset, index, auto_collation, collate_fn)
            except Exception:
                data = ExceptionWrapper(where=where)
        try:
            payload = pickle.dumps((epoch, task_number, data), protocol=pickle.HIGHEST_PROTOCOL)
        except Exception:
            payload = pickle.dumps((epoch, task_number, ExceptionWrapper(where=where)))
        del data
        result_queue.put(payload)
