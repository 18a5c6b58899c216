"""The main-process side of loading with worker processes.

Tasks go round robin to the workers' index queues, at most ``prefetch_factor * num_workers`` ahead
of the batch being consumed. Replies share one result queue and may arrive out of order; they are
held until their turn, so batches come out in sampler order. Every wait on the result queue is a
short poll followed by a liveness check of the workers, so a worker that dies (SIGKILL, OOM killer,
segfault) becomes a RuntimeError instead of a hang."""
from __future__ import annotations

import itertools
import multiprocessing
import os
import pickle
import queue
import select
import struct
import sys
import time

from ._worker import POLL_INTERVAL_S, ExceptionWrapper, WorkerExhausted, worker_loop
from ._loader_iter import _BaseDataLoaderIter, _DatasetKind

# how long shutdown waits for workers to finish their current batch before terminating them
_JOIN_TIMEOUT_S = 2.0
_MISSING = object()


def default_context():
    """fork on Linux (no re-import, no pickling of the dataset); the platform default elsewhere."""
    if sys.platform.startswith("linux"):
        return multiprocessing.get_context("fork")
    return multiprocessing.get_context()


def _read_exact(fd: int, n: int, check) -> bytes:
    """``n`` bytes from the pipe ``fd``, calling ``check`` (which raises to give up) after every
    ``POLL_INTERVAL_S`` without data."""
    chunks = []
    while n:
        ready, _, _ = select.select([fd], [], [], POLL_INTERVAL_S)
        if not ready:
            check()
            continue
        chunk = os.read(fd, min(n, 1 << 20))
        if not chunk:
            raise RuntimeError("DataLoader's result pipe was closed by every worker")
        chunks.append(chunk)
        n -= len(chunk)
    return b"".join(chunks)


def _read_message(fd: int, check) -> bytes:
    """One message as ``multiprocessing.Connection.send_bytes`` frames it: a big-endian int32 length
    (-1, then a uint64 length, for messages of 2 GiB and more), then the bytes."""
    (size,) = struct.unpack("!i", _read_exact(fd, 4, check))
    if size == -1:
        (size,) = struct.unpack("!Q", _read_exact(fd, 8, check))
    return _read_exact(fd, size, check)


class _MultiProcessingDataLoaderIter(_BaseDataLoaderIter):
    """Iterates a DataLoader whose batches are made by ``num_workers`` worker processes."""

    def __init__(self, loader) -> None:
        super().__init__(loader)
        self._num_workers = loader.num_workers
        self._max_tasks = max(1, loader.prefetch_factor * loader.num_workers)
        self._timeout = loader.timeout
        self._persistent_workers = loader.persistent_workers
        self._owner_pid = os.getpid()
        self._shutdown = False
        self._epoch = 0
        self._workers, self._index_queues = [], []
        ctx = loader.multiprocessing_context or default_context()
        self._result_queue = ctx.Queue()
        try:
            for worker_id in range(self._num_workers):
                index_queue = ctx.Queue()
                # never let interpreter exit wait on a pipe that a dead worker no longer drains
                index_queue.cancel_join_thread()
                worker = ctx.Process(
                    target=worker_loop,
                    args=(self._dataset_kind == _DatasetKind.Iterable, self._dataset, index_queue,
                          self._result_queue, self._auto_collation, self._collate_fn,
                          self._drop_last, self._base_seed, loader.worker_init_fn, worker_id,
                          self._num_workers, self._owner_pid),
                    daemon=True)
                worker.start()
                self._index_queues.append(index_queue)
                self._workers.append(worker)
        except BaseException:
            self._shutdown_workers()
            raise
        self._reset(loader, first_iter=True)

    def _reset(self, loader, first_iter: bool = False) -> None:
        """Start a pass: a new sampler iterator, fresh counters, the first tasks sent out."""
        if not first_iter:
            self._sampler_iter = iter(self._index_sampler)
            self._num_yielded = 0
        # replies still in flight from an abandoned pass carry the old epoch and are dropped
        self._epoch += 1
        self._send_idx = 0
        self._rcvd_idx = 0
        self._early = {}
        self._worker_active = [True] * self._num_workers
        self._worker_cycle = itertools.cycle(range(self._num_workers))
        for _ in range(self._max_tasks):
            self._try_put_index()

    def _try_put_index(self) -> None:
        if self._send_idx - self._rcvd_idx >= self._max_tasks:
            return
        try:
            index = next(self._sampler_iter)
        except StopIteration:
            return
        for _ in range(self._num_workers):
            worker_id = next(self._worker_cycle)
            if self._worker_active[worker_id]:
                break
        else:
            return  # every worker's iterable pass has ended
        self._index_queues[worker_id].put((self._epoch, self._send_idx, index))
        self._send_idx += 1

    def _next_data(self):
        while True:
            if self._rcvd_idx == self._send_idx or self._shutdown:
                if not self._persistent_workers:
                    self._shutdown_workers()
                raise StopIteration
            data = self._early.pop(self._rcvd_idx, _MISSING)
            if data is _MISSING:
                epoch, task_number, data = self._get_reply()
                if epoch != self._epoch:
                    continue
                if task_number != self._rcvd_idx:
                    self._early[task_number] = data
                    continue
            self._rcvd_idx += 1
            self._try_put_index()
            if isinstance(data, WorkerExhausted):
                self._worker_active[data.worker_id] = False
                continue
            if isinstance(data, ExceptionWrapper):
                data.reraise()
            return data

    def _get_reply(self):
        deadline = time.monotonic() + self._timeout if self._timeout > 0 else None

        def check():
            dead = [w for w in self._workers if not w.is_alive()]
            if dead:
                pids = ", ".join(str(w.pid) for w in dead)
                self._shutdown_workers()
                raise RuntimeError(f"DataLoader worker (pid(s) {pids}) exited unexpectedly")
            if deadline is not None and time.monotonic() >= deadline:
                raise RuntimeError(f"DataLoader timed out after {self._timeout} seconds")

        if os.name == "posix":
            # read the queue's pipe here, a bounded wait at a time: Queue.get, once a message has begun,
            # blocks until its last byte, which never comes from a worker that died mid-send
            return pickle.loads(pickle.loads(_read_message(self._result_queue._reader.fileno(), check)))
        while True:
            try:
                return pickle.loads(self._result_queue.get(timeout=POLL_INTERVAL_S))
            except queue.Empty:
                pass
            check()

    def __next__(self):
        try:
            return super().__next__()
        except KeyboardInterrupt:
            self._shutdown_workers()
            raise

    def _shutdown_workers(self) -> None:
        """Stop every worker: ask politely, wait a little, then terminate. Safe to call twice."""
        if self._shutdown or os.getpid() != self._owner_pid:
            return
        self._shutdown = True
        for q in self._index_queues:
            try:
                q.put(None)
            except (OSError, ValueError):
                pass
        deadline = time.monotonic() + _JOIN_TIMEOUT_S
        for w in self._workers:
            w.join(timeout=max(0.0, deadline - time.monotonic()))
        for w in self._workers:
            if w.is_alive():
                w.terminate()
                w.join(timeout=_JOIN_TIMEOUT_S)
        for q in (*self._index_queues, self._result_queue):
            q.cancel_join_thread()
            q.close()

    def __del__(self) -> None:
        try:
            self._shutdown_workers()
        except Exception:
            pass  # at interpreter exit the modules this needs may already be gone


# printed by PyTorch's path, as the single-process iterator (_loader_iter)
_MultiProcessingDataLoaderIter.__module__ = "tinytorch.utils.data.dataloader"
