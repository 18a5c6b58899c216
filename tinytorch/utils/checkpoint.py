"""``tinytorch.utils.checkpoint`` (PyTorch's ``torch.utils.checkpoint``): activation checkpointing that
really recomputes. The forward keeps only the inputs; the backward runs the function again (with the
random state it had, so dropout draws the same masks) and backpropagates through that second run.

``use_reentrant=True`` (and, with PyTorch's warning, an unspecified ``use_reentrant``): one
``CheckpointFunction`` node whose backward recomputes and calls ``autograd.backward`` inside, as PyTorch's
reentrant variant. ``use_reentrant=False``: the function runs with grad on, under ``saved_tensors_hooks``
that keep a placeholder instead of each saved tensor; the first unpack in backward recomputes the
function and hands out the recomputed tensors in the order they were saved (PyTorch's non-reentrant
variant), so ``autograd.grad`` and inputs that do not require grad work as there."""
from __future__ import annotations

import contextlib
import warnings

from .. import random as _random
from ..autograd import backward as _backward, function as _function
from ..autograd.grad_mode import enable_grad, no_grad
from ..autograd.graph import saved_tensors_hooks
from ..tensor import Tensor

__all__ = ["checkpoint", "checkpoint_sequential", "CheckpointFunction", "noop_context_fn",
           "set_checkpoint_debug_enabled", "CheckpointPolicy", "create_selective_checkpoint_contexts"]


def noop_context_fn():
    return contextlib.nullcontext(), contextlib.nullcontext()


def _rng_state():
    return _random.get_rng_state()


def _set_rng_state(state) -> None:
    _random.set_rng_state(state)


def _detach_like(inputs):
    out = []
    for a in inputs:
        if isinstance(a, Tensor):
            d = a.detach()
            d.requires_grad_(a.requires_grad)
            out.append(d)
        else:
            out.append(a)
    return tuple(out)


class CheckpointFunction(_function.Function):
    """The reentrant checkpoint: keeps the inputs, recomputes in backward."""

    @staticmethod
    def forward(ctx, run_function, preserve_rng_state, *args):
        ctx.run_function = run_function
        ctx.preserve_rng_state = preserve_rng_state
        if preserve_rng_state:
            ctx.fwd_rng_state = _rng_state()
        ctx.inputs = []
        ctx.tensor_indices = []
        tensors = []
        for i, a in enumerate(args):
            if isinstance(a, Tensor):
                tensors.append(a)
                ctx.tensor_indices.append(i)
                ctx.inputs.append(None)
            else:
                ctx.inputs.append(a)
        ctx.save_for_backward(*tensors)
        with no_grad():
            outputs = run_function(*args)
        return outputs

    @staticmethod
    def backward(ctx, *grad_outputs):
        inputs = list(ctx.inputs)
        for i, t in zip(ctx.tensor_indices, ctx.saved_tensors):
            inputs[i] = t
        detached = _detach_like(inputs)
        if ctx.preserve_rng_state:
            saved = _rng_state()
            _set_rng_state(ctx.fwd_rng_state)
        try:
            with enable_grad():
                outputs = ctx.run_function(*detached)
        finally:
            if ctx.preserve_rng_state:
                _set_rng_state(saved)
        if isinstance(outputs, Tensor):
            outputs = (outputs,)
        pairs = [(o, g) for o, g in zip(outputs, grad_outputs) if isinstance(o, Tensor) and o.requires_grad]
        if not pairs:
            raise RuntimeError("none of output has requires_grad=True, this checkpoint() is not necessary")
        _backward([o for o, _ in pairs], [g for _, g in pairs])
        grads = tuple(d.grad if isinstance(d, Tensor) else None for d in detached)
        return (None, None) + grads


class _Holder:
    __slots__ = ("index",)

    def __init__(self, index: int):
        self.index = index


def _checkpoint_without_reentrant(function, preserve_rng_state, context_fn, *args, **kwargs):
    fwd_rng = _rng_state() if preserve_rng_state else None
    frame = {"count": 0, "recomputed": None}

    def recompute():
        saved = []

        def pack(t):
            saved.append(t)
            return t

        rng = _rng_state() if preserve_rng_state else None
        if preserve_rng_state:
            _set_rng_state(fwd_rng)
        try:
            with enable_grad(), saved_tensors_hooks(pack, lambda t: t), context_fn()[1]:
                function(*_detach_like(args), **kwargs)
        finally:
            if preserve_rng_state:
                _set_rng_state(rng)
        frame["recomputed"] = saved

    def pack(t):
        h = _Holder(frame["count"])
        frame["count"] += 1
        return h

    def unpack(h):
        if frame["recomputed"] is None:
            recompute()
        got = frame["recomputed"]
        if h.index >= len(got):
            raise RuntimeError("torch.utils.checkpoint: the recomputation saved fewer tensors than the forward; "
                               "the checkpointed function must run the same ops each time")
        return got[h.index]

    with saved_tensors_hooks(pack, unpack), context_fn()[0]:
        return function(*args, **kwargs)


def checkpoint(function, *args, use_reentrant: bool | None = None, context_fn=noop_context_fn,
               determinism_check: str = "default", debug: bool = False, early_stop: bool = True, **kwargs):
    """Run ``function(*args, **kwargs)`` keeping only its inputs; recompute it in backward."""
    if use_reentrant is None:
        warnings.warn("torch.utils.checkpoint: the use_reentrant parameter should be passed explicitly. Starting in "
                      "PyTorch 2.9, calling checkpoint without use_reentrant will raise an exception. "
                      "use_reentrant=False is recommended, but if you need to preserve the current default behavior, "
                      "you can pass use_reentrant=True. Refer to docs for more details on the differences between "
                      "the two variants.", stacklevel=2)
        use_reentrant = True
    preserve = kwargs.pop("preserve_rng_state", True)
    if use_reentrant:
        if context_fn is not noop_context_fn or debug:
            raise ValueError("Passing `context_fn` or `debug` is only supported when use_reentrant=False.")
        if kwargs:
            raise ValueError("Unexpected keyword arguments: " + ",".join(kwargs))
        return CheckpointFunction.apply(function, preserve, *args)
    return _checkpoint_without_reentrant(function, preserve, context_fn, *args, **kwargs)


def checkpoint_sequential(functions, segments: int, input, use_reentrant: bool | None = None, **kwargs):
    """A Sequential (or list of modules) in ``segments`` checkpointed chunks; the last chunk runs normally."""
    if use_reentrant is None:
        warnings.warn("torch.utils.checkpoint.checkpoint_sequential: the use_reentrant parameter should be passed "
                      "explicitly. Starting in PyTorch 2.9, calling checkpoint_sequential without use_reentrant "
                      "will raise an exception. use_reentrant=False is recommended, but if you need to preserve the "
                      "current default behavior, you can pass use_reentrant=True. Refer to docs for more details on "
                      "the differences between the two variants.", stacklevel=2)
        use_reentrant = True
    preserve = kwargs.pop("preserve_rng_state", True)
    if kwargs:
        raise ValueError("Unexpected keyword arguments: " + ",".join(kwargs))

    def run_function(start, end, functions):
        def forward(x):
            for j in range(start, end + 1):
                x = functions[j](x)
            return x
        return forward

    if hasattr(functions, "children") and not isinstance(functions, (list, tuple)):
        functions = list(functions.children())
    segment_size = len(functions) // segments
    end = -1
    for start in range(0, segment_size * (segments - 1), segment_size):
        end = start + segment_size - 1
        input = checkpoint(run_function(start, end, functions), input, use_reentrant=use_reentrant,
                           preserve_rng_state=preserve)
    return run_function(end + 1, len(functions) - 1, functions)(input)


_debug = [False]


@contextlib.contextmanager
def set_checkpoint_debug_enabled(enabled):
    prev = _debug[0]
    _debug[0] = enabled
    try:
        yield
    finally:
        _debug[0] = prev


class CheckpointPolicy:
    MUST_SAVE = 0
    PREFER_SAVE = 1
    MUST_RECOMPUTE = 2
    PREFER_RECOMPUTE = 3


def create_selective_checkpoint_contexts(policy_fn_or_list, allow_cache_entry_mutation: bool = False):
    raise NotImplementedError("torch.utils.checkpoint.create_selective_checkpoint_contexts needs "
                              "__torch_dispatch__ modes, which tinytorch does not have")
