"""What a weights-only checkpoint may build: the allowlist behind ``_unpickler``.

Each global a PyTorch weights checkpoint names (tensor and parameter rebuild functions, storage
types, ``OrderedDict``, ``Counter``, ``set``, ``torch.Size``, dtypes, ``device``, the bytes
spelling ``_codecs.encode``) maps to a function of this module that checks its arguments and
builds the tinytorch object. Nothing named by a file is ever imported or called: ``resolve_global``
refuses every other name with a ``SerializationError`` that names it."""
from __future__ import annotations

import math
from collections import Counter, OrderedDict
from typing import Any, Callable

import numpy as np

from .._dtype import FLOATING_NP
from .. import _dtype
from .._quantized.tensor import make_quantized
from ..tensor import Size, Tensor, _make
from ._errors import (BLOCKED_MODULES, SerializationError, blocked_global, describe,
                      unsupported_global)
from ._safe_globals import lookup

# storage class name -> numpy dtype (the ones tinytorch has); PyTorch's others are named in errors
STORAGE_DTYPES = {
    "FloatStorage": np.dtype(np.float32), "DoubleStorage": np.dtype(np.float64),
    "HalfStorage": np.dtype(np.float16), "LongStorage": np.dtype(np.int64),
    "IntStorage": np.dtype(np.int32), "ShortStorage": np.dtype(np.int16),
    "CharStorage": np.dtype(np.int8), "ByteStorage": np.dtype(np.uint8),
    "BoolStorage": np.dtype(np.bool_), "UntypedStorage": np.dtype(np.uint8),
    "ComplexFloatStorage": np.dtype(np.complex64), "ComplexDoubleStorage": np.dtype(np.complex128),
}
if _dtype.BF16_NP is not None:
    STORAGE_DTYPES["BFloat16Storage"] = _dtype.BF16_NP
# the quantized tensors' storages hold their integers; the storage's class is what names the quantized dtype
QUANTIZED_STORAGES = {"QInt8Storage": _dtype.qint8, "QUInt8Storage": _dtype.quint8, "QInt32Storage": _dtype.qint32}
STORAGE_DTYPES.update((name, d.np) for name, d in QUANTIZED_STORAGES.items())
# the dtypes PyTorch saves over an UntypedStorage (_rebuild_tensor_v3), by their torch.<name> global
_TORCH_DTYPES_V3 = ("float8_e4m3fn", "float8_e5m2", "float8_e4m3fnuz", "float8_e5m2fnuz", "float8_e8m0fnu",
                    "complex32", "chalf")
_OTHER_STORAGES = ("QUInt4x2Storage", "QUInt2x4Storage")
_TORCH_DTYPES = {"float32": "float32", "float": "float32", "float64": "float64",
                 "double": "float64", "float16": "float16", "half": "float16", "int64": "int64",
                 "long": "int64", "int32": "int32", "int": "int32", "int16": "int16",
                 "short": "int16", "int8": "int8", "uint8": "uint8", "bool": "bool",
                 "complex64": "complex64", "cfloat": "complex64", "complex128": "complex128",
                 "cdouble": "complex128", "bfloat16": "bfloat16", "chalf": "complex32",
                 **{n: n for n in _TORCH_DTYPES_V3 if n != "chalf"}}
# the quantized dtypes and schemes a quantized model's state_dict names
_QUANTIZED_NAMES = {d.name: d for d in _dtype.QUANTIZED + _dtype.QSCHEMES}
_MAX_DIMS = 64
_INT64_MAX = (1 << 63) - 1


class Global:
    """An allowlisted global, standing on the stack until REDUCE applies it."""

    __slots__ = ("name", "build")

    def __init__(self, name: str, build: Callable):
        self.name, self.build = name, build


class Storage:
    """One ``archive/data/<key>`` record, read once however many tensors view it; ``kind`` its storage class's
    name (``"QInt8Storage"``...), where the checkpoint named one."""

    __slots__ = ("key", "array", "kind")

    def __init__(self, key: str, array: np.ndarray, kind: str | None = None):
        self.key, self.array, self.kind = key, array, kind


def bad(msg: str) -> SerializationError:
    return SerializationError(f"malformed pickle in the checkpoint: {msg}")


def _int(x, what: str, low: int = 0, high: int = _INT64_MAX) -> int:
    if type(x) is not int or not low <= x <= high:
        raise bad(f"{what} must be an integer in [{low}, {high}], got {describe(x)}")
    return x


def _dims(x, what: str) -> tuple:
    if type(x) not in (tuple, Size) or len(x) > _MAX_DIMS:
        raise bad(f"{what} must be a tuple of at most {_MAX_DIMS} integers, got {describe(x)}")
    return tuple(_int(d, what) for d in x)


def _empty_hooks(x, what: str) -> None:
    if type(x) not in (dict, OrderedDict) or x:
        raise SerializationError(f"refused {what}: a weights checkpoint cannot carry hooks or "
                                 f"Python state, got {describe(x)}")


def _rebuild_tensor(storage, offset, size, stride, requires_grad=False, hooks=None,
                    metadata=None) -> Tensor:
    if type(storage) is not Storage:
        raise bad(f"a tensor's storage must be a persistent storage id, got {describe(storage)}")
    offset = _int(offset, "storage offset")
    size, stride = _dims(size, "size"), _dims(stride, "stride")
    if len(size) != len(stride):
        raise bad(f"size {size} and stride {stride} differ in length")
    if type(requires_grad) is not bool:
        raise bad(f"requires_grad must be a bool, got {describe(requires_grad)}")
    if hooks is not None:
        _empty_hooks(hooks, "backward hooks")
    if metadata is not None:
        _empty_hooks(metadata, "tensor metadata")
    arr = storage.array
    numel = math.prod(size)
    # the last element any index reaches; numel 0 needs only a valid offset, as in PyTorch
    need = offset + (1 + sum((n - 1) * s for n, s in zip(size, stride)) if numel else 0)
    if need > arr.size:
        raise SerializationError(
            f"tensor of size {list(size)}, stride {list(stride)} and storage offset {offset} "
            f"reaches element {need} of storage {storage.key!r:.40}, which holds {arr.size}")
    item = arr.itemsize
    data = np.ndarray(size, arr.dtype, buffer=arr, offset=offset * item if numel else 0,
                      strides=tuple(s * item for s in stride))
    if requires_grad and data.dtype not in FLOATING_NP:
        raise SerializationError(f"a tensor of dtype {data.dtype} cannot require grad")
    t = _make(data)
    t._requires_grad = requires_grad
    return t


def _rebuild_tensor_v3(storage, offset, size, stride, requires_grad, hooks, dtype, metadata=None) -> Tensor:
    """PyTorch's rebuild for a tensor saved over an UntypedStorage (float8, complex32): its bytes read as
    ``dtype``, the offset and strides counted in its elements."""
    if type(storage) is not Storage:
        raise bad(f"a tensor's storage must be a persistent storage id, got {describe(storage)}")
    if type(dtype) is not _dtype.dtype:
        raise bad(f"a tensor's dtype must be a dtype, got {describe(dtype)}")
    npd = _dtype.to_np(dtype)
    raw = storage.array
    if raw.dtype != npd:
        if raw.dtype != np.uint8 or raw.size % npd.itemsize:
            raise bad(f"storage {storage.key!r:.40} of {raw.size} {raw.dtype} cannot hold {dtype}")
        raw = raw.view(npd)
    return _rebuild_tensor(Storage(storage.key, raw), offset, size, stride, requires_grad, hooks, metadata)


def _rebuild_qtensor(storage, offset, size, stride, quantizer_params, requires_grad, hooks):
    """PyTorch's rebuild of a quantized tensor: its integers from a ``Q...Storage``, one scale and zero point."""
    qdtype = QUANTIZED_STORAGES.get(getattr(storage, "kind", None))
    if qdtype is None:
        raise bad(f"a quantized tensor's storage must be a quantized storage, got {describe(storage)}")
    if (type(quantizer_params) is not tuple or len(quantizer_params) != 3
            or quantizer_params[0] is not _dtype.per_tensor_affine or type(quantizer_params[1]) is not float
            or type(quantizer_params[2]) is not int):
        raise SerializationError(f"tinytorch reads per-tensor affine quantized tensors, not {describe(quantizer_params)}")
    ints = _rebuild_tensor(storage, offset, size, stride, False, hooks)
    if requires_grad:
        raise SerializationError("a quantized tensor cannot require grad")
    return make_quantized(ints._data, qdtype, quantizer_params[1], quantizer_params[2])


def _rebuild_tensor_v1(storage, offset, size, stride) -> Tensor:
    return _rebuild_tensor(storage, offset, size, stride)


def _rebuild_parameter(data, requires_grad, hooks, state=None) -> Tensor:
    from ..nn.parameter import Parameter

    if type(data) is not Tensor:
        raise bad(f"a Parameter must wrap a tensor, got {describe(data)}")
    if type(requires_grad) is not bool:
        raise bad(f"requires_grad must be a bool, got {describe(requires_grad)}")
    _empty_hooks(hooks, "backward hooks")
    if state is not None:
        _empty_hooks(state, "Parameter state")
    if requires_grad and data._data.dtype not in FLOATING_NP:
        raise SerializationError(f"a Parameter of dtype {data._data.dtype} cannot require grad")
    return Parameter(data, requires_grad)


def _ordered_dict(*args) -> OrderedDict:
    out = OrderedDict()
    if args:
        if len(args) != 1 or type(args[0]) is not list:
            raise bad(f"OrderedDict takes a list of pairs here, got {describe(args)}")
        for pair in args[0]:
            if type(pair) not in (tuple, list) or len(pair) != 2:
                raise bad(f"OrderedDict item {describe(pair)} is not a pair")
            out[as_key(pair[0])] = pair[1]
    return out


def _counter(*args) -> Counter:
    if not args:
        return Counter()
    if len(args) != 1 or type(args[0]) is not dict:
        raise bad(f"Counter takes a dict here, got {describe(args)}")
    out = Counter()
    dict.update(out, args[0])  # the counts as they are, not counted again
    return out


def _set(*args) -> set:
    if not args:
        return set()
    if len(args) != 1 or type(args[0]) is not list:
        raise bad(f"set takes a list here, got {describe(args)}")
    return {as_key(x) for x in args[0]}


def _encode(text, encoding) -> bytes:
    # protocol 2 spells bytes as _codecs.encode(str, "latin1"); nothing else is accepted
    if type(text) is not str or encoding not in ("latin1", "latin-1"):
        raise bad(f"_codecs.encode takes (str, 'latin1') here, got {describe((text, encoding))}")
    try:
        return text.encode("latin1")
    except UnicodeEncodeError:
        raise bad("_codecs.encode was given text outside latin-1") from None


def _empty_bytes(*args) -> bytes:
    # Python's protocol 2 spells b"" as bytes(); PyTorch's own pickles use _codecs.encode
    if args:
        raise bad(f"bytes takes no arguments here, got {describe(args)}")
    return b""


def _complex(real=0.0, imag=0.0) -> complex:
    if type(real) not in (int, float) or type(imag) not in (int, float):
        raise bad(f"complex takes two numbers here, got {describe((real, imag))}")
    return complex(real, imag)


def _size(dims) -> Size:
    return Size(_dims(dims, "torch.Size"))


def _device(kind, index=None):
    from ..tensor import device

    if type(kind) is not str or kind.split(":")[0] != "cpu" or index not in (None, 0):
        raise SerializationError(f"refused the device {describe((kind, index))}: tinytorch has "
                                 f"only the CPU")
    return device("cpu")


_CALLABLES = {
    ("torch._utils", "_rebuild_tensor_v2"): _rebuild_tensor,
    ("torch._utils", "_rebuild_tensor_v3"): _rebuild_tensor_v3,
    ("torch._utils", "_rebuild_tensor"): _rebuild_tensor_v1,
    ("torch._utils", "_rebuild_parameter"): _rebuild_parameter,
    ("torch._utils", "_rebuild_qtensor"): _rebuild_qtensor,
    ("torch._utils", "_rebuild_parameter_with_state"): _rebuild_parameter,
    ("collections", "OrderedDict"): _ordered_dict,
    ("collections", "Counter"): _counter,
    ("builtins", "set"): _set,
    ("builtins", "complex"): _complex,
    ("builtins", "bytes"): _empty_bytes,
    ("_codecs", "encode"): _encode,
    ("torch", "Size"): _size,
    ("torch", "device"): _device,
}


def as_key(x):
    """``x`` as a dict key or set item: hashable and, for tuples, shallow enough to hash safely."""
    try:
        hash(x)
    except TypeError:
        raise bad(f"unhashable {type(x).__name__} used as a dict key or set item") from None
    return x


def is_allowed(module: str, name: str, user: dict) -> bool:
    """Whether a weights-only load may build the global ``module.name`` (a storage of a dtype tinytorch
    lacks counts as allowed: PyTorch allows it, tinytorch refuses it for another reason)."""
    if module == "torch" and name in _OTHER_STORAGES:
        return True
    try:
        resolve_global(module, name, user)
    except SerializationError:
        return False
    return True


def resolve_global(module: str, name: str, user: dict | None = None) -> Any:
    """What an allowlisted global stands for: a stand-in for PyTorch's own globals, the object
    itself for one in ``user`` (the safe globals, by full path); PyTorch's error for any other."""
    if module == "__builtin__":  # protocol 2 spells builtins as Python 2 did
        module = "builtins"
    if module in BLOCKED_MODULES:
        raise blocked_global(f"{module}.{name}", module)
    if (module, name) in _CALLABLES:
        return Global(f"{module}.{name}", _CALLABLES[(module, name)])
    if module in ("torch", "torch.storage") and name in STORAGE_DTYPES:
        return Global(f"{module}.{name}", None)  # only valid inside a storage id
    if module == "torch" and name in _TORCH_DTYPES:
        return _dtype.BY_NAME[_TORCH_DTYPES[name]]
    if module == "torch" and name in _QUANTIZED_NAMES:
        return _QUANTIZED_NAMES[name]
    if module == "torch" and name in _OTHER_STORAGES:
        raise SerializationError(f"the checkpoint holds a tensor of a dtype tinytorch lacks "
                                 f"({module}.{name}); tinytorch has "
                                 f"{', '.join(d.name for d in _dtype.ALL)}")
    full_path = f"{module}.{name}"
    found = lookup(full_path, user or {})
    if found is not None:
        return found
    if module == "builtins":  # PyTorch names builtins without their module
        full_path = name
    raise unsupported_global(full_path)
