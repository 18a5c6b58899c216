"""The names ``torch.compile(backend=...)`` accepts, and ``torch._dynamo.register_backend``.

PyTorch keeps a registry of compiler backends by name. tinytorch has one way to compile (capture, then replay
as plans: ``eval_frame.py``), which serves every AOT backend name; what a name changes is whether the results hang
from one compiled node (``inductor``, ``aot_eager`` and the other AOTAutograd backends) or the graph runs as it
is, each op with its own autograd node (``EAGER``). A name PyTorch does not know is refused as PyTorch refuses
it; a backend registered by name is a callable backend like any other."""
from __future__ import annotations

import functools

from .exc import InvalidBackend

__all__ = ["BUILTIN", "EAGER", "default", "list_backends", "lookup", "register_backend", "set_default"]

# PyTorch 2.13's registered backend names (torch._dynamo.list_backends(exclude_tags=()))
BUILTIN = ("aot_eager", "aot_eager_decomp_partition", "aot_eager_decomp_partition_crossref",
           "aot_eager_decomp_partition_with_mode", "aot_eager_default_partitioner", "aot_ts", "cudagraphs",
           "dynamo_accuracy_minifier_backend", "dynamo_minifier_backend", "eager", "eager_debug", "eager_noexcept",
           "inductor", "invoke_subgraph", "non_leaf_compile_error_TESTING_ONLY", "openxla", "openxla_eval",
           "pre_dispatch_eager", "relu_accuracy_error_TESTING_ONLY", "relu_compile_error_TESTING_ONLY",
           "relu_runtime_error_TESTING_ONLY", "ts", "tvm")
# what list_backends() shows with its default exclude_tags (the others are tagged debug or experimental)
_LISTED = ("cudagraphs", "inductor", "openxla", "tvm")
# the names whose graphs run as captured, no AOTAutograd node
EAGER = ("eager", "eager_debug", "eager_noexcept", "pre_dispatch_eager")

_DEFAULT = ["inductor"]  # what torch.compile uses when given no backend (torch.compiler.set_default_backend)
_REGISTERED: dict = {}  # name -> compiler function, from register_backend (its tags: its ``_tags``, as PyTorch's)


def register_backend(compiler_fn=None, name: str | None = None, tags=()):
    """Register ``compiler_fn`` (a function of a GraphModule and its example inputs, returning what to run) under
    ``name`` (its ``__name__`` by default), so that ``torch.compile(backend=name)`` uses it. Usable as a
    decorator, with or without arguments."""
    if compiler_fn is None:
        return functools.partial(register_backend, name=name, tags=tags)
    if not callable(compiler_fn):
        raise AssertionError(f"compiler_fn must be callable, got {type(compiler_fn)}")
    name = name or compiler_fn.__name__
    if name in _REGISTERED:
        raise AssertionError(f"duplicate name: {name}")
    _REGISTERED[name] = compiler_fn
    compiler_fn._tags = tuple(tags)  # on the function: registered again under another name, the last tags hold
    return compiler_fn


def list_backends(exclude_tags=("debug", "experimental")) -> list:
    """The backend names ``torch.compile`` accepts, without those tagged as ``exclude_tags`` says, sorted."""
    excluded = set(exclude_tags or ())
    names = set(_LISTED if excluded >= {"debug", "experimental"} else BUILTIN)
    names |= {n for n, fn in _REGISTERED.items() if not excluded & set(getattr(fn, "_tags", ()))}
    return sorted(names)


def lookup(backend):
    """A callable backend as it is; a registered name's function; a built-in name as the name; any other name
    refused with PyTorch's ``InvalidBackend``; None: the default backend."""
    if backend is None:
        backend = _DEFAULT[0]
    if not isinstance(backend, str):
        return backend
    if backend in _REGISTERED:
        return _REGISTERED[backend]
    if backend not in BUILTIN:
        raise InvalidBackend(f"Invalid backend: {backend!r}, see `torch._dynamo.list_backends()` for available "
                             "backends.")
    return backend


def set_default(backend) -> None:
    _DEFAULT[0] = "inductor" if backend is None else backend


def default():
    return _DEFAULT[0]
