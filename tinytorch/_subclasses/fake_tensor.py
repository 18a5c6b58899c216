"""``torch._subclasses.fake_tensor``: fake tensors, tensors that have a shape, a dtype, strides and a device but
no data, so that a program can be run for its shapes alone (tracing, memory planning, checking an operator's fake
implementation).

A fake tensor is a meta tensor (``tinytorch/_meta.py``: a ``MetaArray`` of the shape, dtype and strides, and
the meta flag) of class ``FakeTensor``, which remembers the device it stands for (``fake_device``, the original's:
``device`` answers ``cpu`` where PyTorch's does) and its ``FakeTensorMode``. Ops on fake tensors therefore run the
meta machinery (each op's own numpy code on data-less arrays: shapes and dtypes only), and two hooks here make
their results fake (``_meta_data.bind_fake``):

  * ``_inputs``: an op with a fake argument, or any op while a ``FakeTensorMode`` is entered in this thread,
    refuses a real (CPU) tensor argument with PyTorch's AssertionError, or converts it with ``from_tensor`` when
    the mode was made with ``allow_non_fake_inputs=True`` (make_fx's ``_allow_non_fake_inputs``: a module's
    weights read while tracing). Plain meta tensors pass as they are (PyTorch counts them as non-fake too).
  * ``_results``: the op's new meta results become fake tensors on the first fake argument's device, or, for a
    factory inside the mode (``torch.ones(2)``), on the device it names (the CPU by default).

Reading values refuses as PyTorch does: ``item``, ``tolist``, ``bool``, ``float`` raise
``DataDependentOutputException`` (``aten._local_scalar_dense.default``), ``numpy`` a RuntimeError; a fake
tensor prints as ``FakeTensor(..., size=(2, 3))``. There are no symbolic sizes (``shape_env``, dynamic shapes)."""
from __future__ import annotations

from .._ops._core.registry import REGISTRY, bind_rule
from .. import _meta_data
from .._meta_array import MetaArray
from .._size import device as _device
from .._dtype import get_default_dtype
from .._tensor.printing import _add_suffixes, _grad_fn_name
from .._random.engine import default_generator as _default_generator
from ..tensor import Tensor, _make

__all__ = ["FakeTensor", "FakeTensorMode", "is_fake", "DataDependentOutputException", "DynamicOutputShapeException",
           "UnsupportedOperatorException", "MetadataMismatchError", "UnsupportedFakeTensorException"]

_CPU = _device("cpu")
_LOCAL_SCALAR = "aten._local_scalar_dense.default"


class UnsupportedFakeTensorException(RuntimeError):
    def __init__(self, reason):
        super().__init__(reason)
        self.reason = reason


class DataDependentOutputException(RuntimeError):
    """An op whose result needs a fake tensor's values (``func``: the ATen operator)."""

    def __init__(self, func):
        super().__init__(func)
        self.func = func


class DynamicOutputShapeException(RuntimeError):
    def __init__(self, func):
        super().__init__(func)
        self.func = func


class UnsupportedOperatorException(RuntimeError):
    def __init__(self, func):
        super().__init__(func)
        self.func = func


class MetadataMismatchError(RuntimeError):
    """A fake implementation's result differs from the real one's (shape, dtype, strides...)."""

    def __init__(self, reason):
        super().__init__(reason)
        self.reason = reason


def is_fake(x) -> bool:
    """Whether ``x`` is a fake tensor."""
    return isinstance(x, FakeTensor)


class FakeTensor(Tensor):
    """A meta tensor standing for one on ``fake_device`` (see the module)."""

    fake_device = _CPU
    fake_mode = None

    def __new__(cls, fake_mode, elem, device, constant=None):
        """PyTorch's constructor: ``elem``, a meta tensor, as a fake tensor of ``fake_mode`` on ``device``."""
        t = _make(elem._data if type(elem._data) is MetaArray else _meta_data.dataless(elem._data))
        _meta_data.mark_meta(t)
        return _fake_of(t, fake_mode, _device(device))

    @property
    def device(self):
        return self.fake_device

    @property
    def is_meta(self) -> bool:
        return self.fake_device.type == "meta"

    @property
    def is_cpu(self) -> bool:
        return self.fake_device.type == "cpu"

    @property
    def is_cuda(self) -> bool:
        return self.fake_device.type == "cuda"

    def get_device(self) -> int:
        return -1 if self.fake_device.type == "cpu" else (self.fake_device.index or 0)

    def __repr__(self, *, tensor_contents=None) -> str:
        suffixes = [] if self.fake_device.type == "cpu" else [f"device='{self.fake_device}'"]
        suffixes.append(f"size={tuple(self._data.shape)}")
        if self.dtype != get_default_dtype():
            suffixes.append(f"dtype={self.dtype!r}")
        if self.grad_fn is not None:
            suffixes.append(f"grad_fn=<{_grad_fn_name(self.grad_fn)}>")
        elif self.requires_grad:
            suffixes.append("requires_grad=True")
        return _add_suffixes("FakeTensor(...", suffixes, len("FakeTensor("))

    # -- no values to read: PyTorch's errors --
    def item(self):
        raise DataDependentOutputException(_LOCAL_SCALAR)

    def tolist(self):
        raise DataDependentOutputException(_LOCAL_SCALAR)

    def __bool__(self) -> bool:
        raise DataDependentOutputException(_LOCAL_SCALAR)

    def _scalar(self):
        raise DataDependentOutputException(_LOCAL_SCALAR)

    def numpy(self, *, force: bool = False):
        raise RuntimeError(".numpy() is not supported for tensor subclasses.")

    def __array__(self, dtype=None, copy=None):
        raise RuntimeError(".numpy() is not supported for tensor subclasses.")

    @staticmethod
    def from_tensor(t: Tensor, fake_mode: "FakeTensorMode") -> "FakeTensor":
        return fake_mode.from_tensor(t)


def _fake_of(t: Tensor, mode, device) -> FakeTensor:
    """``t``, a meta tensor, turned (in place) into a fake tensor of ``mode`` on ``device``."""
    t.__class__ = FakeTensor
    t.fake_mode = mode
    t.fake_device = device
    return t


def _device_of(d) -> _device:
    """PyTorch's fake device for a device argument: ``"cuda"`` means ``cuda:0``, None the CPU."""
    if d is None:
        return _CPU
    d = _device(d) if not isinstance(d, _device) else d
    if d.type not in ("cpu", "meta") and d.index is None:
        return _device(d.type, 0)
    return d


class FakeTensorMode:
    """``with FakeTensorMode():`` the tensors made inside are fake; ``mode.from_tensor(t)`` a fake copy of ``t``
    (the same fake for the same tensor). ``allow_non_fake_inputs``: real tensors met by an op are converted
    rather than refused."""

    def __init__(self, *, allow_fallback_kernels: bool = True, allow_non_fake_inputs: bool = False, shape_env=None,
                 static_shapes: bool | None = None, export: bool = False):
        if shape_env is not None:
            raise NotImplementedError("FakeTensorMode(shape_env=...): tinytorch has no symbolic shapes")
        self.allow_fallback_kernels = allow_fallback_kernels
        self.allow_non_fake_inputs = allow_non_fake_inputs
        self.shape_env = None
        self.static_shapes = True
        self.export = export
        self._memo: dict = {}  # id(real tensor) -> (real tensor, its fake)
        self._rng_states: list = []  # the default generator's state at each enter, put back at its exit

    def __enter__(self):
        # random ops on fake tensors compute nothing, so they leave the default generator where it was (they
        # draw on it here, for the draws' shapes and checks): a traced dropout does not shift the real stream
        self._rng_states.append(_default_generator.get_state())
        _meta_data.enter_fake(self)
        return self

    def __exit__(self, *exc):
        _meta_data.exit_fake()
        _default_generator.set_state(self._rng_states.pop())
        return False

    def from_tensor(self, tensor: Tensor, *, static_shapes: bool | None = None, source=None, symbolic_context=None,
                    trace: bool = True) -> FakeTensor:
        """A fake tensor with ``tensor``'s shape, dtype, strides, device and requires_grad."""
        if isinstance(tensor, FakeTensor):
            return tensor
        held = self._memo.get(id(tensor))
        if held is not None and held[0] is tensor:
            return held[1]
        fake = _make(_meta_data.dataless(tensor._data))
        _meta_data.mark_meta(fake)
        _fake_of(fake, self, tensor.device)
        if tensor.requires_grad:
            fake.requires_grad_(True)
        self._memo[id(tensor)] = (tensor, fake)
        return fake

    def is_our_fake(self, t) -> bool:
        return isinstance(t, FakeTensor) and t.fake_mode is self


# -- the hooks the meta machinery calls (tinytorch/_meta.py) ------------------------------------------------------
def _flat(x, out: list) -> list:
    if isinstance(x, Tensor):
        out.append(x)
    elif isinstance(x, (list, tuple)):
        for v in x:
            _flat(v, out)
    elif isinstance(x, dict):
        for v in x.values():
            _flat(v, out)
    return out


def _is_real(t: Tensor) -> bool:
    return not t._meta and type(t.__dict__.get("_data")) is not MetaArray


def _mode_of(tensors):
    for t in tensors:
        if isinstance(t, FakeTensor):
            return t.fake_mode
    return _meta_data.fake_mode()


def _inputs(name: str, args, kwargs, nested: bool = False):
    """An op's arguments with their real tensors converted (or refused), when the op runs fake (see the module).
    ``nested``: an op called inside another one, whose own helper tensors (a dropout mask) are converted."""
    tensors = _flat((args, kwargs), [])
    if not any(_is_real(t) for t in tensors):
        return args, kwargs
    mode = _mode_of(tensors)
    if mode is None:
        return args, kwargs
    if not (mode.allow_non_fake_inputs or nested):
        shown = ", ".join(repr(a) if not isinstance(a, Tensor) or not _is_real(a) else _elided(a) for a in args)
        decl = REGISTRY.get(name)  # (the torch op of that name)
        overload = "Tensor" if decl is not None and "tensor_overload" in decl.rules else "default"
        raise AssertionError("Please convert all Tensors to FakeTensors first or instantiate FakeTensorMode with "
                             f"'allow_non_fake_inputs'. Found in aten.{name}.{overload}({shown})")

    def convert(x):
        if isinstance(x, Tensor):
            return mode.from_tensor(x) if _is_real(x) else x
        if type(x) in (list, tuple):
            return type(x)(convert(v) for v in x)
        return x

    return tuple(convert(a) for a in args), {k: convert(v) for k, v in kwargs.items()}


def _tensor_overload(*keys: str) -> None:
    """The ops ``keys`` (``REGISTRY`` keys), whose ATen overload for a tensor (or a Python number, which PyTorch wraps)
    is ``.Tensor``: kept on their declarations (``decl.rules["tensor_overload"]``), which the error below reads."""
    for key in keys:
        bind_rule("tensor_overload", key, True)


_tensor_overload("add", "sub", "mul", "div", "eq", "ne", "lt", "le", "gt", "ge", "remainder", "fmod", "bitwise_and",
                 "bitwise_or", "bitwise_xor", "maximum", "minimum")


def _elided(t: Tensor) -> str:
    """A real tensor as PyTorch's error shows it: no values."""
    grad = ", requires_grad=True" if t.requires_grad else ""
    prefix = "Parameter containing:\n" if type(t).__name__ == "Parameter" else ""
    return f"{prefix}tensor([...], size={tuple(t.shape)}{grad})"


def _results(results: list, inputs: list, device) -> None:
    """An op's meta results made fake, when a fake tensor is among its inputs or a mode is on (see the module)."""
    src = next((t for t in inputs if isinstance(t, FakeTensor)), None)
    mode = src.fake_mode if src is not None else _meta_data.fake_mode()
    if mode is None:
        return
    dev = _device_of(device) if device is not None or src is None else src.fake_device
    for t in results:
        if t._meta and type(t) is Tensor and not any(t is i for i in inputs):
            _fake_of(t, mode, dev)


_meta_data.bind_fake((_inputs, _results, UnsupportedOperatorException))
