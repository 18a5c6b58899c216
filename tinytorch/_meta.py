"""The meta device: tensors with a shape, a dtype and strides but no values, as PyTorch's
``torch.device("meta")``. Scripts build a model on it to count its parameters or to have a skeleton for
``torch.func.functional_call`` (PyTorch's model-ensembling tutorial: ``copy.deepcopy(model).to("meta")``),
and move it to a real device with ``Module.to_empty``.

A meta tensor is a tinytorch tensor whose ``_meta`` flag is set and whose array is a ``MetaArray``
(``_meta_array.py``: a shape, a dtype and strides, no buffer), so a meta model of any size costs a few hundred
bytes per tensor (a 6.7-billion-parameter transformer: 0.1 s and 1 MB). Everything that would show its
values refuses as PyTorch does (``item``, ``tolist``, ``numpy``, ``cpu``, ``to("cpu")``, ...: ``tensor.py``
and its conversion mixin check the flag), and it prints as ``tensor(..., device='meta', size=(2, 3))``.

Ops run tinytorch's own implementation on those arrays: once a meta tensor exists, every declared op
(``_ops/_core/registry.py``) goes through a wrapper that, when an argument is a meta tensor, runs the op (its
numpy code works out each result's shape, dtype and strides on ``MetaArray``s and computes nothing) and flags
its results meta. A ``MetaArray`` stands for an array holding one value throughout, worked out on one-element
stand-ins, so numpy code that branches on values (``np.isfinite(x).all()``) or reads one element runs on as it
would on such an array, and a numpy function ``MetaArray`` does not implement reads one element spread with zero
strides. Ops whose numpy code builds working arrays of its own (the convolutions and their gradients,
max and average pooling) look for a ``MetaArray`` and give the result's shape at once, so no size is too large.
Where the op's numpy code needs a value that could size a result or an array feature ``MetaArray`` lacks, the
wrapper runs it once more on zeros of its meta inputs' shapes (calloc'd, dropped when it returns: memory in
proportion to that op's sizes; sizes that do not fit are refused with a NotImplementedError). The ops that still
do, or that compute a result at full size, are listed with the reason in ``tests/tensor/test_tensor_meta_opinfo.py``,
which runs PyTorch's op_db on huge meta tensors with the process's address space capped. Shape errors are
PyTorch's, in the words of its meta kernels for the commonest ones (``_meta_error``). An in-place op on a meta
tensor writes nothing (PyTorch's meta kernels only check), unless autograd records it. Ops whose result's shape
depends on the values (``nonzero``, ``masked_select``, ``unique``, ...) refuse, and an op mixing a meta tensor
with a CPU tensor of one or more dims raises PyTorch's device error. The factories take ``device="meta"`` (or a
meta default device: ``torch.set_default_device("meta")``, ``with torch.device("meta"):``) through a wrapper
installed when this module loads: the factory's one allocation (``factory._alloc``) gives a ``MetaArray``, and
nothing is drawn (a random factory leaves the generator where it was, as PyTorch's meta kernels do).

The wrappers stay installed once a meta tensor has existed: each op then pays one scan of its arguments.

Fake tensors (``tinytorch/_subclasses/fake_tensor.py``) are meta tensors that answer another device: once their
module is loaded, ``_meta_call`` hands an op's arguments to its hook first (real tensors beside fake ones, or in
a ``FakeTensorMode``, are converted or refused) and ``_metaize_tree`` its results (made fake)."""
from __future__ import annotations

import inspect
import re
import threading

import numpy as np

from . import _meta_data
from ._meta_array import MetaArray, NeedsData, no_meta_kernel as _data_dependent
from ._ops.creation import factory as _factory
from ._ops._core import registry as _registry
from ._ops._core.registry import REGISTRY, method_table
from .autograd.grad_mode import _State, version_counter
from ._tensor.conversion import _META_ITEM
from .random import default_generator
from .tensor import Tensor, register_attribute

__all__ = ["install"]

# -- factories ---------------------------------------------------------------------------------------------
def _meta_arg(args) -> bool:
    return any(isinstance(a, Tensor) and a._meta for a in args)


def _is_like(fn) -> bool:
    try:
        params = list(inspect.signature(fn).parameters)
    except (TypeError, ValueError):
        return False
    return bool(params) and params[0] in ("input", "self")


_LIKE: dict = {}  # declaration -> whether it is a *_like (or new_*) factory, which follows its input's device
_DEVICE_AT: dict = {}  # declaration -> (position of its positional ``device``, the names from there on) or None


def _device_as_keyword(decl, args: tuple, kwargs: dict) -> tuple:
    """``(args, kwargs)`` with a ``device`` given by position (and the arguments after it) moved to keywords: a
    recorded graph writes a factory's arguments in order (``aten.tensor.default(data, None, None, False,
    False)``), and the hook below sets the device by keyword."""
    names = _DEVICE_AT.get(decl, False)
    if names is False:
        try:
            params = list(inspect.signature(decl.impl).parameters.values())
        except (TypeError, ValueError):
            params = []
        at = next((i for i, p in enumerate(params) if p.name == "device" and p.kind == p.POSITIONAL_OR_KEYWORD),
                  None)
        names = _DEVICE_AT[decl] = None if at is None else (at, [p.name for p in params[at:]
                                                                  if p.kind == p.POSITIONAL_OR_KEYWORD])
    if names is None or len(args) <= names[0]:
        return args, kwargs
    at, later = names
    return args[:at], {**kwargs, **dict(zip(later, args[at:]))}


def _factory_hook(decl, fn, args, kwargs):
    """A factory call (``torch.empty(..., device=...)``, ``zeros_like``, ``t.new_zeros``): on the meta device
    when ``device`` says so, or when it is left out and the default device (a ``*_like`` factory: its input)
    is the meta device; otherwise the factory itself."""
    if "device" not in kwargs:
        args, kwargs = _device_as_keyword(decl, args, kwargs)
    dev = kwargs.get("device")
    if decl.meta == "tensor_bounds" and _meta_arg((*args[:2], kwargs.get("start"), kwargs.get("end"))):
        dev = "meta"  # PyTorch's tensor overloads run where their bounds are, whatever ``device`` says
    fake = _meta_data.FAKE_ON[0] and _meta_data.fake_mode() is not None  # a FakeTensorMode: every factory is fake
    if dev is None:
        like = _LIKE.get(decl)
        if like is None:
            like = _LIKE[decl] = _is_like(decl.impl)
        if not (fake or (_meta_arg(args[:1]) if like else _meta_data.default_is_meta())):
            return fn(*args, **kwargs)
    elif not (fake or _meta_data.is_meta_device(dev)):
        return fn(*args, **kwargs)
    kwargs["device"] = None
    state = default_generator.get_state() if decl.meta == "random" else None
    prev = _factory.LAZY.on
    _factory.LAZY.on = True
    try:
        out = fn(*args, **kwargs)
    finally:
        _factory.LAZY.on = prev
        if state is not None:
            default_generator.set_state(state)
    return _metaize_tree(out, (), [a for a in args[:1] if isinstance(a, Tensor)], dev)


def _factory_method(decl, fn):
    def method(*args, **kwargs):
        if "device" in kwargs or _registry.META_ON[0]:
            return _factory_hook(decl, fn, args, kwargs)
        return fn(*args, **kwargs)
    method.__name__, method.__qualname__, method.__doc__ = fn.__name__, fn.__qualname__, fn.__doc__
    method._meta_wraps = fn
    return method


# -- every other op, once a meta tensor exists ----------------------------------------------------------------

_installed = [False]
_lock = threading.Lock()


def _is_meta(t) -> bool:
    """A meta tensor, or an op's intermediate made from one (its array data-less, not flagged yet)."""
    # (read from the instance: a vmap BatchedTensor has no array of its own and refuses ``_data``)
    return t._meta or type(t.__dict__.get("_data")) is MetaArray


def _has_meta(args, kwargs) -> bool:
    for a in args:
        if isinstance(a, Tensor):
            if _is_meta(a):
                return True
        elif type(a) is list or type(a) is tuple:
            for b in a:
                if isinstance(b, Tensor) and _is_meta(b):
                    return True
    if kwargs:
        for a in kwargs.values():
            if isinstance(a, Tensor) and _is_meta(a):
                return True
    return False


def _tensors(x, out: list) -> list:
    if isinstance(x, Tensor):
        out.append(x)
    elif isinstance(x, (list, tuple)):
        for v in x:
            _tensors(v, out)
    elif isinstance(x, dict):
        for v in x.values():
            _tensors(v, out)
    return out


def _metaize_tree(out, keep, inputs=(), device=None):
    """Flag every tensor of ``out`` meta, except the CPU tensors ``keep`` (inputs handed back as they are); where
    the fake tensors are loaded, the results of fake ``inputs`` (or of any op in a fake mode) become fake, on
    ``device`` for a factory."""
    results = _tensors(out, [])
    for t in results:
        if not any(t is k for k in keep):
            _meta_data.mark_meta(t)  # (one made meta already, by ``_make``: the op wrappers installed all the same)
    fake = _meta_data.fake_hook()
    if fake is not None:
        fake[1](results, inputs, device)
    return out


class _Nesting(threading.local):
    depth = 0  # meta ops running in this thread: above 0, an op's own helper tensors may be real


_nesting = _Nesting()
_MIXED = "Tensor on device cpu is not on the expected device meta!"


def _meta_call(fn, name: str, inplace: bool, args, kwargs, rule: str | None = None):
    """``fn`` called on meta tensors; ``rule``: the op's declared meta rule (``op(meta=...)``)."""
    if not _has_meta(args, kwargs):
        if not (_meta_data.FAKE_ON[0] and _meta_data.fake_mode() is not None and _tensors((args, kwargs), [])):
            return fn(*args, **kwargs)
    fake = _meta_data.fake_hook()
    if fake is not None:  # real tensors beside fake ones, or in a fake mode: converted or refused
        args, kwargs = fake[0](name, args, kwargs, _nesting.depth > 0)
        if not _has_meta(args, kwargs):
            return fn(*args, **kwargs)
    if rule is not None and (rule.startswith("data_dependent") or rule == "no_kernel"):
        raise NotImplementedError(_data_dependent(rule.partition(":")[2] or name))
    if rule == "reads_value":
        raise RuntimeError(_META_ITEM)
    ts = _tensors((args, kwargs), [])
    if rule != "cpu_args" and any(not _is_meta(t) and t._data.ndim and t._data.dtype.kind in "fc" for t in ts):
        raise RuntimeError(_MIXED)
    if inplace and rule != "resizes":  # (resize_ changes the meta tensor's shape: it runs)
        self = args[0] if args and isinstance(args[0], Tensor) else None
        if self is not None and not _is_meta(self):
            raise RuntimeError(_MIXED)
        if self is not None and not (_State.enabled and any(t._requires_grad for t in ts)):
            version_counter(self)[0] += 1  # PyTorch's meta kernels check and write nothing
            return self
    _nesting.depth += 1
    try:
        try:
            out = fn(*args, **kwargs)
        except IndexError as e:
            if "MetaArray" not in str(e):
                raise
            out = _on_zeros(fn, args, kwargs, [t for t in ts if _is_meta(t)])  # indexed by a meta tensor
        except (NeedsData, TypeError, AttributeError, ValueError, MemoryError):
            # numpy code that reads a value or takes a path MetaArray lacks (PyTorch's own errors, RuntimeError and
            # IndexError, are the op's answer and pass): the same op on zeros, which gives that error too if it is one
            out = _on_zeros(fn, args, kwargs, [t for t in ts if _is_meta(t)])
    except RuntimeError as e:
        raise _meta_error(e, ts, args, kwargs) from None
    finally:
        _nesting.depth -= 1
    return _metaize_tree(out, [t for t in ts if not _is_meta(t)], ts)


def _meta_error(e: RuntimeError, ts: list, args, kwargs) -> RuntimeError:
    """PyTorch's meta kernels word the commonest shape errors their own way (its reference implementations'):
    ``e``, the CPU kernel's error, in those words."""
    text = str(e)
    product = re.match(r"mat1 and mat2 shapes cannot be multiplied \((\d+)x(\d+) and (\d+)x(\d+)\)", text)
    if product:
        a0, a1, b0, b1 = product.groups()
        return RuntimeError(f"a and b must have same reduction dim, but got [{a0}, {a1}] X [{b0}, {b1}].")
    if text.startswith("The size of tensor a (") and "must match the size of tensor b" in text:
        common = [1] * max(t._data.ndim for t in ts)
        for i, t in enumerate(ts):
            shape = tuple(t._data.shape)
            for d in range(-1, -1 - len(shape), -1):
                if common[d] == 1:
                    common[d] = shape[d]
                elif shape[d] not in (1, common[d]):
                    return RuntimeError(f"Attempting to broadcast a dimension of length {shape[d]} at {d}! "
                                        f"Mismatching argument at index {i} had torch.Size({list(shape)}); but "
                                        f"expected shape should be broadcastable to {common}")
    cat = re.match(r"Sizes of tensors must match except in dimension (-?\d+)\. Expected size \d+ but got size \d+ for "
                   r"tensor number (\d+) in the list\.", text)
    if cat and args and isinstance(args[0], (list, tuple)):
        dim, i = int(cat.group(1)), int(cat.group(2))
        first, other = args[0][0].shape, args[0][i].shape
        d = next(d for d in range(len(first)) if d != dim and first[d] != other[d])
        return RuntimeError(f"Sizes of tensors must match except in dimension {dim}. Expected {first[d]} in dimension "
                            f"{d} but got {other[d]} for tensor number {i} in the list")
    if text.startswith("Given groups=") and "channels, but got" in text:
        return RuntimeError("Invalid channel dimensions")
    return e


def _on_zeros(fn, args, kwargs, metas: list):
    """``fn`` run once more with its meta tensors holding zeros of their shapes: an op whose numpy code reads a
    value, or uses an array feature ``MetaArray`` lacks (``_meta_array.py``). The zeros are calloc'd (no memory
    until written) and dropped when it returns; the meta tensors get their storage back."""
    held = [(t, t._data) for t in metas]
    try:
        for t, data in held:
            t._data = np.zeros(data.shape, data.dtype)
        return fn(*args, **kwargs)
    except MemoryError:
        raise NotImplementedError(f"{getattr(fn, '__name__', 'this op')} on meta tensors of these sizes: tinytorch "
                                  "runs it on zeros of its inputs' shapes, which do not fit in memory") from None
    finally:
        for t, data in held:
            t._data = data


def _op_hook(decl, fn, args, kwargs):
    """A public op (``torch.X``) once a meta tensor exists."""
    return _meta_call(fn, decl.name, decl.name.endswith("_"), args, kwargs, decl.meta)


def _op_method(fn, name: str, inplace: bool, rule: str | None):
    def method(*args, **kwargs):
        return _meta_call(fn, name, inplace, args, kwargs, rule)
    method.__name__ = getattr(fn, "__name__", name)
    method.__qualname__ = getattr(fn, "__qualname__", name)
    method.__doc__ = getattr(fn, "__doc__", None)
    method._meta_wraps = fn
    method._meta_op = True
    return method


def install() -> None:
    """Turn the public functions' meta path on and wrap the methods (once: the first meta tensor asks)."""
    if _installed[0]:
        return
    with _lock:
        if _installed[0]:
            return
        _installed[0] = True
        _registry.META_ON[0] = True
        for decl in list(REGISTRY.values()):
            if decl in _LIKE or _registry._takes_device(decl.impl):
                continue  # factories: their methods went through _factory_method when this module loaded
            for attr, fn in method_table(decl).items():
                current = Tensor.__dict__.get(attr)
                if current is None or getattr(current, "_meta_wraps", None) is not None:
                    continue
                # the op's own function, or the comparison dunders' operand check around it
                if not (current is fn or getattr(current, "__wrapped__", None) is fn):
                    continue  # swapped by someone else (autocast, the profiler): left alone
                dunder = attr.startswith("__") and attr.endswith("__")
                inplace = (attr in decl.idunders or attr == "__setitem__") if dunder else attr.endswith("_")
                name = attr.strip("_") if dunder else attr.rstrip("_") if inplace else attr
                register_attribute(attr, _op_method(current, name, inplace, decl.meta))


def uninstall() -> None:
    """Undo ``install``: the methods are the ops' own functions again and the public functions stop
    looking for meta tensors (the test suite calls it after its meta tests; meta tensors still alive
    then compute on their zeros). The default device being meta keeps the factories looking."""
    with _lock:
        if not _installed[0]:
            return
        _installed[0] = False
        _registry.META_ON[0] = _meta_data.default_is_meta()
        for attr, current in list(Tensor.__dict__.items()):
            if getattr(current, "_meta_op", False):
                register_attribute(attr, current._meta_wraps)


def _wrap_factory_methods() -> None:
    for decl in list(REGISTRY.values()):
        if not _registry._takes_device(decl.impl):
            continue
        _LIKE[decl] = _is_like(decl.impl)
        for attr, fn in method_table(decl).items():  # Tensor.new_empty and friends
            if Tensor.__dict__.get(attr) is fn:
                register_attribute(attr, _factory_method(decl, fn))


def _default_device_meta() -> None:
    """Called when the default device becomes the meta device: factories must look from now on."""
    _registry.META_ON[0] = True


_wrap_factory_methods()
_registry.bind_meta(_op_hook, _factory_hook)
_meta_data.bind_first_meta(install)
_meta_data.bind_default_meta(_default_device_meta)
