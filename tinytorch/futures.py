"""``torch.futures``: ``Future``, ``collect_all``, ``wait_all``, as PyTorch has them.

PyTorch's ``Future`` wraps a C++ future that RPC and ``torch.jit.fork`` complete from other threads;
tinytorch has neither, but the class is the same contract in Python (completed once, by ``set_result`` or
``set_exception``; ``wait`` blocks until then; callbacks run once it completes, on the completing
thread), so code that passes futures around (captum's asynchronous attributions) runs unchanged."""
from __future__ import annotations

import threading
from collections.abc import Callable
from typing import Generic, TypeVar

__all__ = ["Future", "collect_all", "wait_all"]

T = TypeVar("T")
S = TypeVar("S")


class Future(Generic[T]):
    """A value (or an exception) that becomes available once, later."""

    __module__ = "tinytorch.jit"  # PyTorch's C++ future prints as torch.jit.Future

    def __init__(self, *, devices=None) -> None:
        if devices:
            raise ValueError(f"tinytorch runs on the CPU only: a Future cannot be tied to devices {devices!r}")
        self._cond = threading.Condition()
        self._done = False
        self._value = None
        self._error: BaseException | None = None
        self._callbacks: list = []

    def done(self) -> bool:
        """True once a result or an exception is set."""
        return self._done

    def wait(self) -> T:
        """Block until complete; the value, or the exception raised."""
        with self._cond:
            self._cond.wait_for(lambda: self._done)
        return self.value()

    def value(self) -> T:
        """The value of a completed future (its exception is raised)."""
        if not self._done:
            raise RuntimeError("Future.value() called before the future completed: call wait() to block until then")
        if self._error is not None:
            raise self._error
        return self._value

    def then(self, callback: Callable[[Future[T]], S]) -> Future[S]:
        """A new future, completed with ``callback(self)`` once this one completes (or with what it raises)."""
        out: Future = Future()

        def chain(fut):
            try:
                out.set_result(callback(fut))
            except Exception as exc:  # the callback's error is the chained future's result, worded as PyTorch's
                out.set_exception(RuntimeError(f"Got the following error when running the callback: "
                                               f"{type(exc).__name__}: {exc}"))
        self.add_done_callback(chain)
        return out

    def add_done_callback(self, callback: Callable[[Future[T]], None]) -> None:
        """Run ``callback(self)`` when this future completes (at once when it already has)."""
        with self._cond:
            if not self._done:
                self._callbacks.append(callback)
                return
        callback(self)

    def set_result(self, result: T) -> None:
        self._complete(result, None)

    def set_exception(self, result: BaseException) -> None:
        if not isinstance(result, BaseException):
            raise AssertionError(f"{result} is of type {type(result)}, not an Exception.")
        self._complete(None, result)

    def _complete(self, value, error) -> None:
        with self._cond:
            if self._done:
                raise RuntimeError("Attempting to mark a completed Future as complete again. Note that a Future can "
                                   "only be marked completed once.")
            self._value, self._error, self._done = value, error, True
            callbacks, self._callbacks = self._callbacks, []
            self._cond.notify_all()
        for callback in callbacks:
            callback(self)


def collect_all(futures: list[Future]) -> Future[list[Future]]:
    """A future completed with the list of ``futures`` once all of them are."""
    out: Future = Future()
    remaining = [len(futures)]
    lock = threading.Lock()

    def one_done(_):
        with lock:
            remaining[0] -= 1
            last = remaining[0] == 0
        if last:
            out.set_result(list(futures))
    if not futures:
        out.set_result([])
    for fut in futures:
        fut.add_done_callback(one_done)
    return out


def wait_all(futures: list[Future]) -> list:
    """The values of ``futures``, waiting for each; the first exception met is raised."""
    return [fut.wait() for fut in collect_all(futures).wait()]
