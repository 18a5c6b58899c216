"""The modes of autograd, per thread: grad mode, inference mode, anomaly mode, saved-tensor hooks,
and the levels of vmap and forward AD.

PyTorch keeps these per thread, so ``no_grad()`` in one thread leaves every other thread recording,
and a new thread starts with grad mode on. Every context manager restores the previous value in
``finally``, so an exception (or a generator abandoned half-way) never leaves the mode switched."""
from __future__ import annotations

import functools
import inspect
import threading


class _Modes(threading.local):
    """One thread's modes. A class attribute is the value every new thread starts with; an assignment
    changes the calling thread's copy only. Ops read ``_State.enabled`` on every call (one attribute
    lookup, no function call)."""

    enabled = True
    inference = False
    # grad mode as enable_grad/set_grad_enabled asked for it inside inference mode, where PyTorch
    # reports it (is_grad_enabled) but records nothing: ops only ever read ``enabled``
    requested = False
    anomaly = False
    check_nan = True
    saved_hooks = ()             # (pack, unpack) pairs of saved_tensors_hooks, innermost last
    saved_hooks_disabled = None  # the message of disable_saved_tensors_hooks, while in force
    transforms = 0               # vmap levels and ONNX exports in progress (see _ops/_core/batching.py)
    tracer = None                # the ONNX export recording this thread's op calls (see onnx/_trace.py)
    fw_level = None              # the forward-AD level in progress (0), or None
    fw_generation = 0            # which dual level made a tangent (see autograd/forward_ad.py)
    fw_jvp = False               # the level is torch.func.jvp's: formulas read primals through AliasBackward0
    fw_hide = True               # new nodes show None for edges to forward AD's own graph (autograd/node.py)
    recorder = None              # the profile recording this thread's ops (tinytorch/profiler), None inside an op
    # a backward with no graph of the gradient wanted may apply its formula to the arrays directly; False while
    # a graph capture runs in this thread (fx/experimental/_capture.py), which must see each op of it
    array_backward = True
    # while torch.compile captures a program in this thread (_dynamo/train_step.py): the function through which an
    # optimizer's step and zero_grad and a module's zero_grad run, ``watch(owner, name, run, args)`` (``run()``
    # does the work), and which is told of a ``.grad`` assigned (``run`` None). They change tensors below the ops,
    # so a captured training step calls them again at each replay instead of recording them
    step_watch = None
    # while a graph capture runs in this thread (fx/experimental/_capture.py): the function backward() and
    # autograd.grad run the engine through, ``watch(*args, **kwargs)`` for the engine's ``_execute(*args, **kwargs)``,
    # and the one that makes backward()'s implicit seed (the recorded op ``ones_like(output)``, as PyTorch's graph
    # shows it)
    backward_watch = None
    backward_seed = None


_State = _Modes()


class _Active:
    """How many threads have each rarely used mode on, process-wide. The hot paths (making a node,
    saving tensors, making a result, calling a public op) read one of these class attributes, and look
    at the thread's own state only when some thread has that mode on."""

    anomaly = 0
    inference = 0
    saved_hooks = 0
    transforms = 0
    fw = 0
    subclasses = 0  # 1 once a Tensor subclass routes calls through its __torch_function__
    profiler = 0    # profiles recording, in any thread (tinytorch/profiler)
    _lock = threading.Lock()

    @classmethod
    def count(cls, mode: str, delta: int) -> None:
        with cls._lock:
            setattr(cls, mode, getattr(cls, mode) + delta)


def is_grad_enabled() -> bool:
    """True when ops record the graph for autograd (or would, but for an enclosing inference mode)."""
    return _State.enabled or (_State.inference and _State.requested)


def is_inference_mode_enabled() -> bool:
    """True inside ``inference_mode()``."""
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
        self.prev = (_State.enabled, _State.requested)
        _State.enabled = _State.requested = False

    def __exit__(self, *exc) -> None:
        _State.enabled, _State.requested = self.prev


class enable_grad(_BareDecoratorContextManager):
    """Enable graph recording inside the block, even within ``no_grad``."""

    def __init__(self) -> None:
        self.prev = False

    def __enter__(self) -> None:
        self.prev = (_State.enabled, _State.requested)
        _set_mode(True)

    def __exit__(self, *exc) -> None:
        _State.enabled, _State.requested = self.prev


def _set_mode(mode: bool) -> None:
    # inside inference mode grad mode changes only what is_grad_enabled reports: no op records
    if _State.inference:
        _State.requested = mode
    else:
        _State.enabled = mode


def _set_grad_enabled(enabled: bool) -> None:
    """``torch._C._set_grad_enabled``: switch grad mode on or off, as ``torch.set_grad_enabled(enabled)`` does as
    a function. A compiled program that switches it inside (``with torch.no_grad():``) is captured with these
    calls as nodes, as PyTorch's dynamo writes them."""
    _set_mode(bool(enabled))


_set_grad_enabled.__module__ = "tinytorch._C"  # PyTorch's home of it (where graphs name it)


class _recording:
    """Graph recording on, inference mode or not: for the function transforms (tinytorch.func), which
    differentiate inside inference mode as torch.func's own levels do."""

    def __enter__(self) -> None:
        self.prev = _State.enabled
        _State.enabled = True

    def __exit__(self, *exc) -> None:
        _State.enabled = self.prev


class set_grad_enabled(_DecoratorContextManager):
    """Set grad mode; takes effect at once (as a function) or for a block (as a context manager)."""

    def __init__(self, mode: bool) -> None:
        self.prev = (_State.enabled, _State.requested)
        self.mode = bool(mode)
        _set_mode(self.mode)

    def __enter__(self) -> None:
        pass

    def __exit__(self, *exc) -> None:
        _State.enabled, _State.requested = self.prev

    def __call__(self, func):
        # used as a decorator the constructor has already switched the mode: switch it back
        _State.enabled, _State.requested = self.prev
        return super().__call__(func)

    def clone(self):
        return self.__class__(self.mode)


_SAVE_MSG = ("Inference tensors cannot be saved for backward. Please do not use Tensors created in inference mode "
             "in computation tracked by autograd. To work around this, you can make a clone to get a normal tensor "
             "and use it in autograd, or use `tinytorch.no_grad()` instead of `tinytorch.inference_mode()`.")
_INPLACE_MSG = ("Inplace update to inference tensor outside InferenceMode is not allowed.You can make a clone to get "
                "a normal tensor before doing inplace update.See https://github.com/pytorch/rfcs/pull/17 for more "
                "details.")


class _NoVersion:
    """The version counter of every inference tensor: it counts nothing.

    Inside inference mode a bump (``t._vc[0] += 1``) reads 0 and writes nowhere, so in-place ops on
    inference tensors do no version bookkeeping. Outside it, the only readers are autograd saving the
    tensor for backward (``Node.save_for_backward`` records versions) and an in-place bump, which
    ``check_inference_inplace`` refuses first: so reading raises PyTorch's save error with no check
    on any normal tensor's path."""

    __slots__ = ()

    def __getitem__(self, i):
        if _State.inference:
            return 0
        raise RuntimeError(_SAVE_MSG)

    def __setitem__(self, i, value):
        pass

    def __len__(self) -> int:
        return 1  # a version and no list of live views: inference tensors do no view tracking


NO_VERSION = _NoVersion()

# The version counter a tensor starts with (a class default of Tensor): shared and immutable, so a
# result costs no list of its own (a micrograd step makes tens of thousands of tensors, each one more
# object for the garbage collector). ``version_counter`` gives a tensor its own list when it is first
# bumped or shared with a view or alias; a forgotten call fails loudly (a tuple refuses ``+=``).
FRESH_VERSION = (0,)


def version_counter(t) -> list:
    """``t``'s own version counter (a list ``[version, ...]``, or ``NO_VERSION``), made on first need.
    Call it before bumping a version or handing the counter to another tensor."""
    vc = t._vc
    if vc.__class__ is tuple:
        vc = t._vc = [0]
    return vc


def check_inference_inplace(t) -> None:
    """PyTorch's refusal to modify an inference tensor outside inference mode."""
    if t._vc is NO_VERSION and not _State.inference:
        raise RuntimeError(_INPLACE_MSG)


def _set_inference(on: bool) -> None:
    """Set this thread's inference mode, keeping the count of threads that have it on."""
    if on != _State.inference:
        _Active.count("inference", 1 if on else -1)
    _State.inference = on


class inference_mode(_DecoratorContextManager):
    """No graph recording, and every tensor made inside is an inference tensor (``is_inference()``).

    Cheaper than ``no_grad``: inference tensors carry no version counter. They may not be saved for
    backward or modified in place outside inference mode. ``inference_mode(False)`` switches it off
    inside an enclosing one (and, as PyTorch's guard does, switches grad mode on)."""

    def __new__(cls, mode=True):
        if callable(mode):  # used bare, as @inference_mode
            return cls()(mode)
        return super().__new__(cls)

    def __init__(self, mode: bool = True) -> None:
        self.mode = mode
        self.prev = (True, False, False)

    def __enter__(self) -> None:
        self.prev = (_State.enabled, _State.inference, _State.requested)
        _set_inference(bool(self.mode))
        _State.enabled = not self.mode
        _State.requested = False

    def __exit__(self, *exc) -> None:
        _set_inference(self.prev[1])
        _State.enabled, _State.inference, _State.requested = self.prev

    def clone(self):
        return self.__class__(self.mode)
