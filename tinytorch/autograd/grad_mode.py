"""Grad mode: the one global flag that says whether ops record a graph.

Every context manager restores the previous value in ``finally``, so an exception (or a generator
abandoned half-way) never leaves the mode switched."""
from __future__ import annotations

import functools
import inspect


class _State:
    # a class attribute, read on every op: one attribute lookup, no function call
    enabled = True
    inference = False


def is_grad_enabled() -> bool:
    """True when ops record the graph for autograd."""
    return _State.enabled


def is_inference_mode_enabled() -> bool:
    return _State.inference


class _DecoratorContextManager:
    """A context manager that also works as a decorator, also on generator functions."""

    def __call__(self, func):
        if inspect.isclass(func):
            raise RuntimeError("grad-mode context managers decorate functions, not classes")
        if inspect.isgeneratorfunction(func):
            @functools.wraps(func)
            def generator_wrapper(*args, **kwargs):
                gen = func(*args, **kwargs)
                # re-enter the mode around each resumption, so the caller's mode is untouched between them
                with self.clone():
                    try:
                        request = gen.send(None)
                    except StopIteration as stop:
                        return stop.value
                while True:
                    try:
                        response = yield request
                    except GeneratorExit:
                        with self.clone():
                            gen.close()
                        raise
                    except BaseException as exc:
                        with self.clone():
                            try:
                                request = gen.throw(exc)
                            except StopIteration as stop:
                                return stop.value
                    else:
                        with self.clone():
                            try:
                                request = gen.send(response)
                            except StopIteration as stop:
                                return stop.value
            return generator_wrapper

        @functools.wraps(func)
        def wrapper(*args, **kwargs):
            with self.clone():
                return func(*args, **kwargs)
        return wrapper

    def clone(self):
        return self.__class__()


class _BareDecoratorContextManager(_DecoratorContextManager):
    """Also usable without parentheses: ``@no_grad`` as well as ``@no_grad()``."""

    def __new__(cls, orig_func=None):
        if orig_func is None:
            return super().__new__(cls)
        return cls()(orig_func)


class no_grad(_BareDecoratorContextManager):
    """Disable graph recording inside the block (``with tinytorch.no_grad():``)."""

    def __init__(self) -> None:
        self.prev = False

    def __enter__(self) -> None:
        self.prev = _State.enabled
        _State.enabled = False

    def __exit__(self, *exc) -> None:
        _State.enabled = self.prev


class enable_grad(_BareDecoratorContextManager):
    """Enable graph recording inside the block, even within ``no_grad``."""

    def __init__(self) -> None:
        self.prev = False

    def __enter__(self) -> None:
        self.prev = _State.enabled
        _State.enabled = True

    def __exit__(self, *exc) -> None:
        _State.enabled = self.prev


class set_grad_enabled(_DecoratorContextManager):
    """Set grad mode; takes effect at once (as a function) or for a block (as a context manager)."""

    def __init__(self, mode: bool) -> None:
        self.prev = _State.enabled
        self.mode = bool(mode)
        _State.enabled = self.mode

    def __enter__(self) -> None:
        pass

    def __exit__(self, *exc) -> None:
        _State.enabled = self.prev

    def __call__(self, func):
        # used as a decorator the constructor has already switched the mode: switch it back
        _State.enabled = self.prev
        return super().__call__(func)

    def clone(self):
        return self.__class__(self.mode)


class inference_mode(_DecoratorContextManager):
    """Like ``no_grad`` (tinytorch keeps no separate inference tensors)."""

    def __new__(cls, mode=True):
        if callable(mode):  # used bare, as @inference_mode
            return cls()(mode)
        return super().__new__(cls)

    def __init__(self, mode: bool = True) -> None:
        self.mode = mode
        self.prev = (True, False)

    def __enter__(self) -> None:
        self.prev = (_State.enabled, _State.inference)
        if self.mode:
            _State.enabled = False
            _State.inference = True

    def __exit__(self, *exc) -> None:
        _State.enabled, _State.inference = self.prev

    def clone(self):
        return self.__class__(self.mode)
