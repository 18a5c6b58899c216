"""A pickle reader that can only build an allowlist: tensors, storages, plain containers, scalars.

PyTorch's checkpoints are pickles, and ``pickle.load`` runs whatever a pickle names. This module is
not ``pickle``: it interprets the opcodes itself, and the only things it can make are Python's
containers and scalars, ``OrderedDict``/``Counter``/``set``, and the few PyTorch globals a weights
checkpoint names (tensor and parameter rebuild functions, storage types, ``Size``, dtypes,
``device``), each rebuilt by a function of this module. A ``GLOBAL`` outside that list is refused
when it is read, so nothing is ever imported, called or ``__reduce__``d. Any malformed pickle
raises ``SerializationError``; the work and memory are in proportion to the pickle's length."""
from __future__ import annotations

import math
import struct
from collections import Counter, OrderedDict
from typing import Any, Callable

import numpy as np

from .. import _dtype
from ..tensor import Size, Tensor, _make
from ._errors import SerializationError, describe

# storage class name -> numpy dtype (the ones tinytorch has); PyTorch's others are named in errors
STORAGE_DTYPES = {
    "FloatStorage": np.dtype(np.float32), "DoubleStorage": np.dtype(np.float64),
    "HalfStorage": np.dtype(np.float16), "LongStorage": np.dtype(np.int64),
    "IntStorage": np.dtype(np.int32), "ShortStorage": np.dtype(np.int16),
    "CharStorage": np.dtype(np.int8), "ByteStorage": np.dtype(np.uint8),
    "BoolStorage": np.dtype(np.bool_), "UntypedStorage": np.dtype(np.uint8),
}
_OTHER_STORAGES = ("BFloat16Storage", "ComplexFloatStorage", "ComplexDoubleStorage",
                   "QInt8Storage", "QUInt8Storage", "QInt32Storage", "QUInt4x2Storage",
                   "QUInt2x4Storage")
_TORCH_DTYPES = {"float32": "float32", "float": "float32", "float64": "float64",
                 "double": "float64", "float16": "float16", "half": "float16", "int64": "int64",
                 "long": "int64", "int32": "int32", "int": "int32", "int16": "int16",
                 "short": "int16", "int8": "int8", "uint8": "uint8", "bool": "bool"}
_MAX_TUPLE_DEPTH = 100  # hashing a tuple recurses in C without a guard
_MAX_DIMS = 64
_INT64_MAX = (1 << 63) - 1


class _Global:
    """An allowlisted global, standing on the stack until REDUCE applies it."""

    __slots__ = ("name", "build")

    def __init__(self, name: str, build: Callable):
        self.name, self.build = name, build


class Storage:
    """One ``archive/data/<key>`` record, read once however many tensors view it."""

    __slots__ = ("key", "array")

    def __init__(self, key: str, array: np.ndarray):
        self.key, self.array = key, array


class _Mark:
    pass


def _bad(msg: str) -> SerializationError:
    return SerializationError(f"malformed pickle in the checkpoint: {msg}")


def _int(x, what: str, low: int = 0, high: int = _INT64_MAX) -> int:
    if type(x) is not int or not low <= x <= high:
        raise _bad(f"{what} must be an integer in [{low}, {high}], got {describe(x)}")
    return x


def _dims(x, what: str) -> tuple:
    if type(x) not in (tuple, Size) or len(x) > _MAX_DIMS:
        raise _bad(f"{what} must be a tuple of at most {_MAX_DIMS} integers, got {describe(x)}")
    return tuple(_int(d, what) for d in x)


def _empty_hooks(x, what: str) -> None:
    if type(x) not in (dict, OrderedDict) or x:
        raise SerializationError(f"refused {what}: a weights checkpoint cannot carry hooks or "
                                 f"Python state, got {describe(x)}")


def _rebuild_tensor(storage, offset, size, stride, requires_grad=False, hooks=None,
                    metadata=None) -> Tensor:
    if type(storage) is not Storage:
        raise _bad(f"a tensor's storage must be a persistent storage id, got {describe(storage)}")
    offset = _int(offset, "storage offset")
    size, stride = _dims(size, "size"), _dims(stride, "stride")
    if len(size) != len(stride):
        raise _bad(f"size {size} and stride {stride} differ in length")
    if type(requires_grad) is not bool:
        raise _bad(f"requires_grad must be a bool, got {describe(requires_grad)}")
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
    if requires_grad and data.dtype.kind != "f":
        raise SerializationError(f"a tensor of dtype {data.dtype} cannot require grad")
    t = _make(data)
    t._requires_grad = requires_grad
    return t


def _rebuild_tensor_v1(storage, offset, size, stride) -> Tensor:
    return _rebuild_tensor(storage, offset, size, stride)


def _rebuild_parameter(data, requires_grad, hooks, state=None) -> Tensor:
    from ..nn.parameter import Parameter

    if type(data) is not Tensor:
        raise _bad(f"a Parameter must wrap a tensor, got {describe(data)}")
    if type(requires_grad) is not bool:
        raise _bad(f"requires_grad must be a bool, got {describe(requires_grad)}")
    _empty_hooks(hooks, "backward hooks")
    if state is not None:
        _empty_hooks(state, "Parameter state")
    if requires_grad and data._data.dtype.kind != "f":
        raise SerializationError(f"a Parameter of dtype {data._data.dtype} cannot require grad")
    return Parameter(data, requires_grad)


def _ordered_dict(*args) -> OrderedDict:
    out = OrderedDict()
    if args:
        if len(args) != 1 or type(args[0]) is not list:
            raise _bad(f"OrderedDict takes a list of pairs here, got {describe(args)}")
        for pair in args[0]:
            if type(pair) not in (tuple, list) or len(pair) != 2:
                raise _bad(f"OrderedDict item {describe(pair)} is not a pair")
            out[_key(pair[0])] = pair[1]
    return out


def _counter(*args) -> Counter:
    if not args:
        return Counter()
    if len(args) != 1 or type(args[0]) is not dict:
        raise _bad(f"Counter takes a dict here, got {describe(args)}")
    out = Counter()
    dict.update(out, args[0])  # the counts as they are, not counted again
    return out


def _set(*args) -> set:
    if not args:
        return set()
    if len(args) != 1 or type(args[0]) is not list:
        raise _bad(f"set takes a list here, got {describe(args)}")
    return {_key(x) for x in args[0]}


def _encode(text, encoding) -> bytes:
    # protocol 2 spells bytes as _codecs.encode(str, "latin1"); nothing else is accepted
    if type(text) is not str or encoding not in ("latin1", "latin-1"):
        raise _bad(f"_codecs.encode takes (str, 'latin1') here, got {describe((text, encoding))}")
    try:
        return text.encode("latin1")
    except UnicodeEncodeError:
        raise _bad("_codecs.encode was given text outside latin-1") from None


def _complex(real=0.0, imag=0.0) -> complex:
    if type(real) not in (int, float) or type(imag) not in (int, float):
        raise _bad(f"complex takes two numbers here, got {describe((real, imag))}")
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
    ("torch._utils", "_rebuild_tensor"): _rebuild_tensor_v1,
    ("torch._utils", "_rebuild_parameter"): _rebuild_parameter,
    ("torch._utils", "_rebuild_parameter_with_state"): _rebuild_parameter,
    ("collections", "OrderedDict"): _ordered_dict,
    ("collections", "Counter"): _counter,
    ("builtins", "set"): _set,
    ("builtins", "complex"): _complex,
    ("_codecs", "encode"): _encode,
    ("torch", "Size"): _size,
    ("torch", "device"): _device,
}


def _key(x):
    """``x`` as a dict key or set item: hashable and, for tuples, shallow enough to hash safely."""
    try:
        hash(x)
    except TypeError:
        raise _bad(f"unhashable {type(x).__name__} used as a dict key or set item") from None
    return x


def resolve_global(module: str, name: str) -> Any:
    """What an allowlisted global stands for; ``SerializationError`` naming any other."""
    if module == "__builtin__":  # protocol 2 spells builtins as Python 2 did
        module = "builtins"
    if (module, name) in _CALLABLES:
        return _Global(f"{module}.{name}", _CALLABLES[(module, name)])
    if module in ("torch", "torch.storage") and name in STORAGE_DTYPES:
        return _Global(f"{module}.{name}", None)  # only valid inside a storage id
    if module == "torch" and name in _TORCH_DTYPES:
        return _dtype.BY_NAME[_TORCH_DTYPES[name]]
    if module == "torch" and name in _OTHER_STORAGES:
        raise SerializationError(f"the checkpoint holds a tensor of a dtype tinytorch lacks "
                                 f"({module}.{name}); tinytorch has "
                                 f"{', '.join(d.name for d in _dtype.ALL)}")
    raise SerializationError(
        f"Weights only load failed: the PyTorch checkpoint's pickle names the global "
        f"{module}.{name}, which tinytorch.load refuses. It builds only tensors, storages, "
        f"dicts, OrderedDicts, lists, tuples, sets, numbers, strings, bytes and None, and never "
        f"imports or calls anything else.")


def _ascii_line(data: bytes, pos: int, what: str) -> tuple[str, int]:
    end = data.find(b"\n", pos, pos + 256)
    if end < 0:
        raise _bad(f"the {what} of a GLOBAL is unterminated or longer than 255 bytes")
    try:
        return data[pos:end].decode("ascii"), end + 1
    except UnicodeDecodeError:
        raise _bad(f"the {what} of a GLOBAL is not ASCII") from None


def unpickle(data: bytes, persistent_load: Callable[[Any], Any]) -> Any:
    """The object a weights-only pickle describes; ``persistent_load`` turns ids into storages."""
    try:
        return _run(data, persistent_load)
    except SerializationError:
        raise
    except (TypeError, ValueError, OverflowError, KeyError, IndexError, RecursionError,
            struct.error) as e:  # a check this interpreter lacks: still a malformed file
        raise _bad(f"{type(e).__name__}: {e}") from None


def _run(data: bytes, persistent_load) -> Any:  # noqa: C901 (one loop over the opcodes)
    n = len(data)
    stack: list = []
    marks: list = []  # stacks saved by MARK
    memo: dict = {}
    tuple_depth: dict = {}  # id -> nesting depth of the tuples built here (kept alive in memo/stack)
    keep: list = []  # the tuples whose ids tuple_depth holds
    pos = 0

    def take(k: int) -> bytes:
        nonlocal pos
        if k < 0 or pos + k > n:
            raise _bad(f"it ends inside an opcode's argument at byte {pos}")
        b = data[pos:pos + k]
        pos += k
        return b

    def pop_mark() -> list:
        nonlocal stack
        if not marks:
            raise _bad(f"an opcode at byte {pos - 1} needs a MARK and there is none")
        items = stack
        stack = marks.pop()
        return items

    def pop():
        if not stack:
            raise _bad(f"an opcode at byte {pos - 1} pops from an empty stack")
        return stack.pop()

    def top():
        if not stack:
            raise _bad(f"an opcode at byte {pos - 1} needs a value and the stack is empty")
        return stack[-1]

    def make_tuple(items) -> tuple:
        t = tuple(items)
        depth = 1 + max((tuple_depth.get(id(x), 1) for x in t if type(x) is tuple), default=0)
        if depth > _MAX_TUPLE_DEPTH:
            raise _bad(f"tuples nested deeper than {_MAX_TUPLE_DEPTH}")
        if depth > 1:
            tuple_depth[id(t)] = depth
            keep.append(t)
        return t

    def container(kind) -> Any:
        obj = top()
        if type(obj) not in kind:
            raise _bad(f"an opcode at byte {pos - 1} adds items to a {type(obj).__name__}")
        return obj

    def plain(items) -> Any:
        # the stand-ins for globals and storages live only inside REDUCE and BINPERSID
        for x in items:
            if type(x) is _Global or type(x) is Storage:
                raise _bad(f"{describe(x.name if type(x) is _Global else 'a storage')} is used as "
                           f"a value")
        return items

    def set_items(items: list) -> None:
        if len(items) % 2:
            raise _bad("SETITEMS with a key and no value")
        d = container((dict, OrderedDict, Counter))
        for i in range(0, len(items), 2):
            d[_key(items[i])] = items[i + 1]
        plain(items)

    while True:
        if pos >= n:
            raise _bad("it ends without a STOP opcode")
        op = data[pos]
        pos += 1
        if op == 0x80:  # PROTO
            proto = take(1)[0]
            if proto > 5:
                raise _bad(f"unsupported pickle protocol {proto}")
        elif op == 0x95:  # FRAME: a length hint; the bytes follow inline
            take(8)
        elif op == 0x2E:  # STOP
            if len(stack) != 1 or marks:
                raise _bad(f"STOP with {len(stack)} values on the stack and {len(marks)} open "
                           f"MARKs (expected one value)")
            return plain(stack)[0]
        elif op == 0x28:  # MARK
            marks.append(stack)
            stack = []
        elif op == 0x30:  # POP
            if stack:
                stack.pop()
            else:
                pop_mark()
        elif op == 0x31:  # POP_MARK
            pop_mark()
        elif op == 0x32:  # DUP
            stack.append(top())
        elif op == 0x4E:  # NONE
            stack.append(None)
        elif op == 0x88:  # NEWTRUE
            stack.append(True)
        elif op == 0x89:  # NEWFALSE
            stack.append(False)
        elif op == 0x4A:  # BININT
            stack.append(int.from_bytes(take(4), "little", signed=True))
        elif op == 0x4B:  # BININT1
            stack.append(take(1)[0])
        elif op == 0x4D:  # BININT2
            stack.append(int.from_bytes(take(2), "little"))
        elif op == 0x8A:  # LONG1
            stack.append(int.from_bytes(take(take(1)[0]), "little", signed=True))
        elif op == 0x8B:  # LONG4
            k = int.from_bytes(take(4), "little", signed=True)
            if k < 0:
                raise _bad("LONG4 with a negative length")
            stack.append(int.from_bytes(take(k), "little", signed=True))
        elif op == 0x47:  # BINFLOAT
            stack.append(struct.unpack(">d", take(8))[0])
        elif op in (0x58, 0x8C, 0x8D):  # BINUNICODE, SHORT_BINUNICODE, BINUNICODE8
            width = {0x58: 4, 0x8C: 1, 0x8D: 8}[op]
            raw = take(int.from_bytes(take(width), "little"))
            try:
                stack.append(raw.decode("utf-8", "surrogatepass"))
            except UnicodeDecodeError:
                raise _bad(f"a string before byte {pos} is not valid UTF-8") from None
        elif op in (0x42, 0x43, 0x8E):  # BINBYTES, SHORT_BINBYTES, BINBYTES8
            width = {0x42: 4, 0x43: 1, 0x8E: 8}[op]
            stack.append(take(int.from_bytes(take(width), "little")))
        elif op == 0x5D:  # EMPTY_LIST
            stack.append([])
        elif op == 0x6C:  # LIST
            items = plain(pop_mark())  # before naming ``stack``: pop_mark replaces it
            stack.append(items)
        elif op == 0x61:  # APPEND
            item = pop()
            container((list,)).append(plain((item,))[0])
        elif op == 0x65:  # APPENDS
            items = pop_mark()
            container((list,)).extend(plain(items))
        elif op == 0x29:  # EMPTY_TUPLE
            stack.append(())
        elif op == 0x74:  # TUPLE
            items = pop_mark()  # before naming ``stack``: pop_mark replaces it
            stack.append(make_tuple(items))
        elif op in (0x85, 0x86, 0x87):  # TUPLE1, TUPLE2, TUPLE3
            k = op - 0x84
            if len(stack) < k:
                raise _bad(f"TUPLE{k} at byte {pos - 1} with {len(stack)} values on the stack")
            items = stack[-k:]
            del stack[-k:]
            stack.append(make_tuple(items))
        elif op == 0x7D:  # EMPTY_DICT
            stack.append({})
        elif op == 0x64:  # DICT
            items = pop_mark()
            stack.append({})
            set_items(items)
        elif op == 0x73:  # SETITEM
            value, key = pop(), pop()
            set_items([key, value])
        elif op == 0x75:  # SETITEMS
            set_items(pop_mark())
        elif op == 0x8F:  # EMPTY_SET
            stack.append(set())
        elif op == 0x90:  # ADDITEMS
            items = pop_mark()
            s = container((set,))
            for x in plain(items):
                s.add(_key(x))
        elif op == 0x63:  # GLOBAL
            module, pos = _ascii_line(data, pos, "module")
            name, pos = _ascii_line(data, pos, "name")
            stack.append(resolve_global(module, name))
        elif op == 0x93:  # STACK_GLOBAL
            name, module = pop(), pop()
            if type(module) is not str or type(name) is not str:
                raise _bad("STACK_GLOBAL needs two strings")
            stack.append(resolve_global(module, name))
        elif op == 0x52:  # REDUCE
            args, fn = pop(), pop()
            if type(fn) is not _Global or fn.build is None:
                raise _bad(f"REDUCE applies {describe(fn)}, which is not a function it may call")
            if type(args) is not tuple:
                raise _bad(f"REDUCE needs a tuple of arguments, got {describe(args)}")
            stack.append(fn.build(*args))
        elif op == 0x62:  # BUILD: only a state_dict's ``_metadata`` (module versions)
            state = pop()
            inst = top()
            if (type(inst) is not OrderedDict or type(state) is not dict
                    or set(state) - {"_metadata"}):
                raise SerializationError(
                    f"Weights only load failed: the checkpoint's pickle sets the state of a "
                    f"{type(inst).__name__} to {describe(state)} (BUILD), which tinytorch.load "
                    f"allows only for a state_dict's _metadata")
            inst.__dict__.update(state)
        elif op == 0x51:  # BINPERSID
            stack.append(persistent_load(pop()))
        elif op in (0x68, 0x6A):  # BINGET, LONG_BINGET
            idx = int.from_bytes(take(1 if op == 0x68 else 4), "little")
            if idx not in memo:
                raise _bad(f"memo entry {idx} is read before it is written")
            stack.append(memo[idx])
        elif op in (0x71, 0x72):  # BINPUT, LONG_BINPUT
            memo[int.from_bytes(take(1 if op == 0x71 else 4), "little")] = top()
        elif op == 0x94:  # MEMOIZE
            memo[len(memo)] = top()
        else:
            import pickletools

            names = {o.code.encode("latin1")[0]: o.name for o in pickletools.opcodes}
            raise SerializationError(
                f"Weights only load failed: the checkpoint's pickle uses opcode "
                f"{names.get(op, 'unknown')} (0x{op:02x}) at byte {pos - 1}, which tinytorch.load "
                f"does not run: it builds only tensors, storages and plain containers.")
