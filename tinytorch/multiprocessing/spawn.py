"""``tinytorch.multiprocessing.spawn``: ``start_processes``/``spawn`` run a function in several processes, and the
``ProcessContext`` that joins them, raising a child's failure in the parent."""
from __future__ import annotations

import multiprocessing as _mp
import multiprocessing.connection as _connection
import os
import pickle
import signal
import sys
import tempfile
import time

__all__ = ["spawn", "start_processes", "ProcessContext", "ProcessException", "ProcessRaisedException",
           "ProcessExitedException"]


class ProcessException(Exception):
    """A process of ``spawn`` failed; ``error_index`` is its index, ``error_pid`` its pid."""

    def __init__(self, msg: str, error_index: int, error_pid: int):
        super().__init__(msg)
        self.msg = msg
        self.error_index = error_index
        self.error_pid = error_pid

    def __reduce__(self):
        return type(self), (self.msg, self.error_index, self.error_pid)


class ProcessRaisedException(ProcessException):
    """The process's function raised; the message holds its traceback."""


class ProcessExitedException(ProcessException):
    """The process ended by a signal or a non-zero exit status without raising."""

    def __init__(self, msg: str, error_index: int, error_pid: int, exit_code: int, signal_name: str | None = None):
        super().__init__(msg, error_index, error_pid)
        self.exit_code = exit_code
        self.signal_name = signal_name

    def __reduce__(self):
        return type(self), (self.msg, self.error_index, self.error_pid, self.exit_code, self.signal_name)


def _wrap(fn, i, args, error_file):
    """The child's entry: run ``fn(i, *args)``; an exception's traceback goes to ``error_file``."""
    _interrupt_with_parent()
    try:
        fn(i, *args)
    except KeyboardInterrupt:
        pass  # the parent stopped the job
    except Exception:
        import traceback

        with open(error_file, "wb") as fh:
            pickle.dump(traceback.format_exc(), fh)
        sys.exit(1)


def _interrupt_with_parent() -> None:
    """Linux: SIGINT when the parent dies, so a child does not outlive it (as PyTorch's children)."""
    try:
        import ctypes

        ctypes.CDLL("libc.so.6", use_errno=True).prctl(1, signal.SIGINT)  # PR_SET_PDEATHSIG
    except (OSError, AttributeError):
        pass


class ProcessContext:
    """The processes ``start_processes`` started; ``join()`` waits, and ends them all when one fails."""

    def __init__(self, processes, error_files):
        self.processes = processes
        self.error_files = error_files
        self.sentinels = {p.sentinel: i for i, p in enumerate(processes)}

    def pids(self) -> list:
        return [int(p.pid) for p in self.processes]

    def join(self, timeout: float | None = None, grace_period: float | None = None) -> bool:
        """True once every process ended well; on the first failure the others are terminated
        (SIGTERM, then SIGKILL) and the failure is raised as PyTorch raises it."""
        if not self.sentinels:
            return True
        failed = None
        for sentinel in _connection.wait(list(self.sentinels), timeout=timeout):
            index = self.sentinels.pop(sentinel)
            self.processes[index].join()
            if self.processes[index].exitcode != 0:
                failed = index
                break
        if failed is None:
            return not self.sentinels
        self._end_all(grace_period)
        self._raise(failed)

    def _end_all(self, grace_period) -> None:
        if grace_period is not None:
            self._join_all(grace_period)
        for p in self.processes:
            if p.is_alive():
                p.terminate()
        self._join_all(30 if grace_period is None else grace_period)
        for p in self.processes:
            if p.is_alive():
                p.kill()
            p.join()

    def _join_all(self, seconds: float) -> None:
        deadline = time.monotonic() + seconds
        for p in self.processes:
            p.join(max(0.0, deadline - time.monotonic()))

    def _raise(self, index: int):
        process = self.processes[index]
        if not os.access(self.error_files[index], os.R_OK):
            code = process.exitcode
            if code < 0:
                try:
                    name = signal.Signals(-code).name
                except ValueError:
                    name = f"<Unknown signal {-code}>"
                raise ProcessExitedException(f"process {index:d} terminated with signal {name}", index, process.pid,
                                             code, name)
            raise ProcessExitedException(f"process {index:d} terminated with exit code {code:d}", index, process.pid,
                                         code)
        with open(self.error_files[index], "rb") as fh:
            trace = pickle.load(fh)
        raise ProcessRaisedException(f"\n\n-- Process {index:d} terminated with the following error:\n{trace}",
                                     index, process.pid)


def start_processes(fn, args=(), nprocs: int = 1, join: bool = True, daemon: bool = False,
                    start_method: str = "spawn"):
    """Run ``fn(i, *args)`` for i in ``range(nprocs)``, each in its own process; with ``join``, wait and raise
    (``ProcessRaisedException``/``ProcessExitedException``) if one fails, after ending the others."""
    ctx = _mp.get_context(start_method)
    processes, error_files = [], []
    for i in range(nprocs):
        fd, error_file = tempfile.mkstemp(prefix="tinytorch-spawn-")
        os.close(fd)
        os.unlink(error_file)  # the child creates it only if its function raises
        p = ctx.Process(target=_wrap, args=(fn, i, args, error_file), daemon=daemon)
        p.start()
        processes.append(p)
        error_files.append(error_file)
    context = ProcessContext(processes, error_files)
    if not join:
        return context
    try:
        while not context.join():
            pass
    finally:
        for f in error_files:
            if os.path.exists(f):
                os.unlink(f)
    return None


def spawn(fn, args=(), nprocs: int = 1, join: bool = True, daemon: bool = False, start_method: str = "spawn"):
    """``start_processes`` with the *spawn* start method (PyTorch's ``torch.multiprocessing.spawn``)."""
    return start_processes(fn, args, nprocs, join, daemon, start_method)
