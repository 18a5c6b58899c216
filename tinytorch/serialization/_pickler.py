"""Writes the pickle inside a PyTorch checkpoint, opcode by opcode, naming PyTorch's globals.

``torch.load(path)`` with its default ``weights_only=True`` accepts a pickle that names only its
allowlist: ``torch._utils._rebuild_tensor_v2`` and ``_rebuild_parameter``, storage types such as
``torch.FloatStorage``, ``collections.OrderedDict``, ``torch.Size``... This writer emits exactly
those names for tinytorch's objects (protocol 2, as ``torch.save`` writes) without importing torch,
in the bytes CPython's pickler writes for them inside ``torch.save`` (memo entries included: see
``Pickler``), and raises ``NotPlain`` for anything that only a full pickle could store.

Tensors that view the same memory (views of one base) are written as views of one storage, so
they load sharing it; each storage is the span of its base that the saved tensors cover."""
from __future__ import annotations

import _compat_pickle
import copyreg
import importlib
import pickle
import struct
import types
from collections import Counter, OrderedDict
from typing import Any

import numpy as np

from .. import _dtype
from .._quantized.packed_params import ScriptObject
from .._quantized.tensor import QuantizedTensor
from ..tensor import Size, Tensor, device
from ._safetensors import NotPlain

MAX_NESTING = 200
_STORAGE_NAMES = {np.dtype(np.float32): "FloatStorage", np.dtype(np.float64): "DoubleStorage",
                  np.dtype(np.float16): "HalfStorage", np.dtype(np.int64): "LongStorage",
                  np.dtype(np.int32): "IntStorage", np.dtype(np.int16): "ShortStorage",
                  np.dtype(np.int8): "CharStorage", np.dtype(np.uint8): "ByteStorage",
                  np.dtype(np.bool_): "BoolStorage", np.dtype(np.complex64): "ComplexFloatStorage",
                  np.dtype(np.complex128): "ComplexDoubleStorage", _dtype.BF16_NP: "BFloat16Storage"}
_QUANTIZED_STORAGE_NAMES = {"qint8": "QInt8Storage", "quint8": "QUInt8Storage", "qint32": "QInt32Storage"}
_BATCH = 1000  # items per APPENDS / SETITEMS, as pickle does


def _root(arr: np.ndarray):
    """The object that owns ``arr``'s memory: views of one base share it. numpy's ``as_strided`` (expand's
    strides) holds its base through a plain object whose ``base`` is the array, so the chain goes through any
    object with a ``base``."""
    while getattr(arr, "base", None) is not None:
        arr = arr.base
    return arr


def _address(arr: np.ndarray) -> int:
    return arr.__array_interface__["data"][0]


class _Storages:
    """Groups the saved tensors' arrays into storages: one per base and dtype where it can."""

    def __init__(self):
        self.groups: dict = {}  # (id(root), dtype) -> [lo, hi, arrays]
        self.order: list = []  # storage keys in first-use order
        self.roots: list = []  # keeps roots and arrays alive while their ids are keys
        self.key_of: dict = {}  # id(array) -> its storage key

    def add(self, arr: np.ndarray) -> tuple:
        """The storage key of ``arr`` (the same on every call for the same array)."""
        key = self.key_of.get(id(arr))
        if key is None:
            key = self.key_of[id(arr)] = self._group(arr)
            self.roots.append(arr)
        return key

    def _group(self, arr: np.ndarray) -> tuple:
        item = arr.itemsize
        lo = _address(arr)
        shareable = (arr.size > 0 and all(s >= 0 and s % item == 0 for s in arr.strides)
                     and lo % item == 0)
        if not shareable:  # negative or odd strides: a contiguous copy of its own
            key = ("own", len(self.order))
            self.order.append(key)
            self.groups[key] = [0, 0, np.ascontiguousarray(arr).reshape(-1)]
            return key
        hi = lo + item + sum((n - 1) * st for n, st in zip(arr.shape, arr.strides))
        root = _root(arr)
        key = (id(root), arr.dtype)
        group = self.groups.get(key)
        if group is None:
            self.roots.append(root)
            self.order.append(key)
            self.groups[key] = [lo, hi, arr]
        else:
            if lo < group[0]:
                group[0], group[2] = lo, arr
            group[1] = max(group[1], hi)
        return key

    def finish(self) -> tuple[dict, list]:
        """Storage key -> (name, array of the span); the arrays in name order."""
        names, arrays = {}, []
        for key in self.order:
            lo, hi, arr = self.groups[key]
            if key[0] == "own":
                span = arr
            else:
                # ``arr`` starts at ``lo`` (its strides are non-negative); reach the whole span
                # (as raw bytes of the element's size: as_strided cannot name ml_dtypes' types)
                raw = arr.view(np.dtype((np.void, arr.itemsize)))
                span = np.lib.stride_tricks.as_strided(
                    raw, shape=((hi - lo) // arr.itemsize,), strides=(arr.itemsize,),
                    writeable=False).view(arr.dtype)
            names[key] = (str(len(arrays)), span, lo)
            arrays.append(span)
        return names, arrays


class Pickler:
    """Protocol-2 opcodes as CPython's pickler writes them for PyTorch's objects; tensors refer to storages by
    persistent id.

    ``torch.save`` runs ``pickle.Pickler`` (the C one), so its bytes follow that pickler's rules, which this class
    mirrors: every string, tuple, list, dict and reduced object is memoized (a BINPUT) and written again as a BINGET
    when the same object recurs; an exact dict or list of one item is a SETITEM / APPEND, longer ones go in batches
    of 1,000 (a dict of exactly 1,000 items ends with an empty MARK SETITEMS, as the C pickler writes), and a tuple
    reached again while its own items are written is popped and fetched from the memo. The objects PyTorch builds
    afresh for each tensor (the persistent id, the size and stride tuples, the argument tuple, the empty hooks
    OrderedDict) take memo entries that nothing reads again, so equal objects give PyTorch's bytes."""

    def __init__(self, layout: dict | None, storages: "_Storages | None" = None,
                 full: bool = False):
        self.layout = layout  # None on the first pass
        self.full = full  # any object, by its reduction (as pickle does), not only plain data
        self.out = bytearray(b"\x80\x02")
        self.memo: dict = {}  # id(obj) -> memo index
        self.globals_memo: dict = {}  # (module, name) -> memo index: one object per global
        self.count = 0  # memo entries written
        self.alive: list = []  # objects whose ids are memo keys
        # the second pass sees the same arrays in the same order: it reuses the first's grouping
        self.storages = storages if storages is not None else _Storages()

    # -- low level ------------------------------------------------------------------------------
    def _put(self) -> int:
        idx = self.count
        self.count += 1
        self.out += b"q" + bytes([idx]) if idx < 256 else b"r" + struct.pack("<I", idx)
        return idx

    def put(self, obj) -> None:
        """Memoize ``obj``, which may be written again."""
        self.memo[id(obj)] = self._put()
        self.alive.append(obj)

    def fresh(self) -> None:
        """The memo entry of an object that PyTorch builds for this one use (no later BINGET reads it)."""
        self._put()

    def get(self, idx: int) -> None:
        self.out += b"h" + bytes([idx]) if idx < 256 else b"j" + struct.pack("<I", idx)

    def global_(self, module: str, name: str) -> None:
        # protocol 2 names Python 3's modules as Python 2 did (builtins -> __builtin__), as pickle's fix_imports
        if (module, name) in _compat_pickle.REVERSE_NAME_MAPPING:
            module, name = _compat_pickle.REVERSE_NAME_MAPPING[(module, name)]
        elif module in _compat_pickle.REVERSE_IMPORT_MAPPING:
            module = _compat_pickle.REVERSE_IMPORT_MAPPING[module]
        key = (module, name)
        if key in self.globals_memo:
            self.get(self.globals_memo[key])
            return
        self.out += b"c" + module.encode() + b"\n" + name.encode() + b"\n"
        self.globals_memo[key] = self._put()

    def string(self, s: str) -> None:
        raw = s.encode("utf-8", "surrogatepass")
        self.out += b"X" + struct.pack("<I", len(raw)) + raw

    def integer(self, x: int) -> None:
        if 0 <= x < 256:
            self.out += b"K" + bytes([x])
        elif 0 <= x < 65536:
            self.out += b"M" + struct.pack("<H", x)
        elif -(1 << 31) <= x < (1 << 31):
            self.out += b"J" + struct.pack("<i", x)
        else:
            raw = pickle.encode_long(x)
            if len(raw) < 256:
                self.out += b"\x8a" + bytes([len(raw)]) + raw
            else:
                self.out += b"\x8b" + struct.pack("<i", len(raw)) + raw

    def fresh_tuple(self, items, depth: int) -> None:
        """A tuple PyTorch builds for this one use: its items, TUPLE1/2/3 or MARK ... TUPLE, a memo entry."""
        if not items:
            self.out += b")"
            return
        if len(items) > 3:
            self.out += b"("
        for x in items:
            self.save(x, depth)
        self.out += b"t" if len(items) > 3 else b"\x84\x85\x86\x87"[len(items):len(items) + 1]
        self.fresh()

    def tuple_(self, x: tuple, depth: int) -> None:
        """save_tuple: a tuple that its own items reach is popped and fetched from the memo."""
        n = len(x)
        if n == 0:
            self.out += b")"
            return
        if n > 3:
            self.out += b"("
        for v in x:
            self.save(v, depth)
        if id(x) in self.memo:  # written while its items were: POP them (POP_MARK), take it from the memo
            self.out += b"1" if n > 3 else b"0" * n
            self.get(self.memo[id(x)])
            return
        self.out += b"t" if n > 3 else b"\x84\x85\x86\x87"[n:n + 1]
        self.put(x)

    def list_items(self, x: list, depth: int) -> None:
        """batch_list_exact: one item APPEND, more in MARK ... APPENDS batches."""
        if len(x) == 1:
            self.save(x[0], depth)
            self.out += b"a"
            return
        for i in range(0, len(x), _BATCH):
            self.out += b"("
            for v in x[i:i + _BATCH]:
                self.save(v, depth)
            self.out += b"e"

    def dict_items(self, x: dict, depth: int) -> None:
        """batch_dict_exact: one item SETITEM, more in MARK ... SETITEMS batches, repeated while a batch was full
        (so a multiple of 1,000 items ends with an empty batch)."""
        if not x:
            return
        if len(x) == 1:
            for k, v in x.items():
                self.save(k, depth)
                self.save(v, depth)
            self.out += b"s"
            return
        pairs = list(x.items())
        i = 0
        while True:
            batch = pairs[i:i + _BATCH]
            self.out += b"("
            for k, v in batch:
                self.save(k, depth)
                self.save(v, depth)
            self.out += b"u"
            i += len(batch)
            if len(batch) < _BATCH:
                return

    def iter_items(self, items, depth: int, pairs: bool) -> None:
        """batch_list / batch_dict over an iterator (a reduction's items): a batch of one is APPEND / SETITEM."""
        items = list(items)
        one, many = (b"s", b"u") if pairs else (b"a", b"e")
        for i in range(0, len(items), _BATCH):
            batch = items[i:i + _BATCH]
            if len(batch) > 1:
                self.out += b"("
            for item in batch:
                if pairs:
                    self.save(item[0], depth)
                    self.save(item[1], depth)
                else:
                    self.save(item, depth)
            self.out += one if len(batch) == 1 else many

    def reduced(self, x, depth: int) -> None:
        """After a REDUCE / NEWOBJ: memoize ``x``, or, reached again while its arguments were written, POP the
        new copy and take the first from the memo (save_reduce). True when it was memoized here."""
        if id(x) in self.memo:
            self.out += b"0"
            self.get(self.memo[id(x)])
            return False
        self.put(x)
        return True

    # -- objects --------------------------------------------------------------------------------
    def save(self, x: Any, depth: int = 0) -> None:
        t = type(x)
        if x is None:
            self.out += b"N"
        elif t is bool:
            self.out += b"\x88" if x else b"\x89"
        elif t is int:
            self.integer(x)
        elif t is float:
            self.out += b"G" + struct.pack(">d", x)  # big-endian bits: NaN payloads survive
        elif id(x) in self.memo:
            self.get(self.memo[id(x)])
        elif t is str:
            self.string(x)
            self.put(x)
        elif depth >= MAX_NESTING and not self.full:
            raise NotPlain
        elif isinstance(x, Tensor):
            self.tensor(x, depth)
        elif t is dict:
            self.out += b"}"
            self.put(x)
            self.dict_items(x, depth + 1)
        elif t is list:
            self.out += b"]"
            self.put(x)
            self.list_items(x, depth + 1)
        elif t is tuple:
            self.tuple_(x, depth + 1)
        elif t is OrderedDict:
            self.global_("collections", "OrderedDict")
            self.out += b")R"
            if not self.reduced(x, depth):
                return
            self.iter_items(x.items(), depth + 1, pairs=True)
            state = vars(x)
            if state:  # a state_dict's ``_metadata`` (module versions), set by BUILD as pickle does
                if set(state) != {"_metadata"} and not self.full:
                    raise NotPlain
                self.save(state, depth + 1)
                self.out += b"b"
        elif t is Counter:
            self.global_("collections", "Counter")
            self.fresh_tuple((dict(x),), depth + 1)
            self.out += b"R"
            self.reduced(x, depth)
        elif t is Size:
            self.global_("torch", "Size")
            self.fresh_tuple((tuple(x),), depth + 1)
            self.out += b"R"
            self.reduced(x, depth)
        elif t is bytes:
            if x:  # _codecs.encode(its bytes as latin-1 text, "latin1")
                self.global_("_codecs", "encode")
                self.fresh_tuple((x.decode("latin1"), _LATIN1), depth + 1)
            else:
                self.global_("builtins", "bytes")
                self.out += b")"
            self.out += b"R"
            self.reduced(x, depth)
        elif t is set:
            # in iteration order, as pickle writes a set, except where that order changes from one process to
            # the next (strings and bytes hash with PYTHONHASHSEED): sorted there, so equal sets give equal files
            items = list(x)
            if any(_hash_seeded(v) for v in items):
                try:
                    items.sort()
                except TypeError:
                    pass
            self.global_("builtins", "set")
            self.fresh_tuple((items,), depth + 1)
            self.out += b"R"
            self.reduced(x, depth)
        elif t is complex:
            self.global_("builtins", "complex")
            self.fresh_tuple((x.real, x.imag), depth + 1)
            self.out += b"R"
            self.reduced(x, depth)
        elif t is _dtype.dtype or t is _dtype.qscheme:
            self.global_("torch", x.name)
        elif isinstance(x, ScriptObject):
            self.script_object(x, depth)
        elif t is device and x.type == "cpu":
            self.global_("torch", "device")
            self.fresh_tuple((_fresh_str(x.type),), depth + 1)  # THPDevice_reduce makes a new string
            self.out += b"R"
            self.reduced(x, depth)
        elif self.full:
            self.any_object(x, depth)
        else:
            raise NotPlain

    # -- any object (whole modules): what pickle writes at protocol 2 -----------------------------
    def global_ref(self, obj) -> None:
        """GLOBAL for a class or function, named where it can be imported from, as pickle checks;
        an op that tinytorch's registry made is named where it is published (F.relu, torch.add)."""
        module, name = getattr(obj, "__module__", None), getattr(obj, "__qualname__", None)
        candidates = [module] + (list(_PUBLIC) if str(module).startswith("tinytorch") else [])
        for where in candidates:
            found = _find(where, name) if where is not None and name is not None else None
            if found is not None and found is obj:
                self.global_(where, name)
                return
        raise pickle.PicklingError(f"Can't pickle {obj!r}: it's not found as {module}.{name}")

    def any_object(self, x: Any, depth: int) -> None:
        if isinstance(x, type) or type(x) in (types.FunctionType, types.BuiltinFunctionType):
            self.global_ref(x)
            return
        reducer = copyreg.dispatch_table.get(type(x))
        rv = reducer(x) if reducer is not None else x.__reduce_ex__(2)
        if isinstance(rv, str):  # a module-level singleton, named
            self.global_(type(x).__module__ if not hasattr(x, "__module__") else x.__module__, rv)
            return
        func, args, state, listitems, dictitems = (tuple(rv) + (None,) * 3)[:5]
        if getattr(func, "__name__", None) == "__newobj__":
            self.save(args[0], depth + 1)
            self.save(tuple(args[1:]), depth + 1)
            self.out += b"\x81"
        else:
            self.save(func, depth + 1)
            self.save(args, depth + 1)
            self.out += b"R"
        if not self.reduced(x, depth):
            return
        if listitems is not None:
            self.iter_items(listitems, depth + 1, pairs=False)
        if dictitems is not None:
            self.iter_items(dictitems, depth + 1, pairs=True)
        if state is not None:
            self.save(state, depth + 1)
            self.out += b"b"

    def script_object(self, x: ScriptObject, depth: int) -> None:
        """A TorchScript class object as ``torch.save`` writes one: ``torch.ScriptObject()`` built from its
        state and its class's qualified name, which TorchScript hands Python as new objects (tensors excepted)."""
        self.global_("torch", "ScriptObject")
        self.out += b")\x81"
        if not self.reduced(x, depth):
            return
        self.fresh_tuple((_fresh_state(x.__getstate__()), _fresh_str(x.qualified_name)), depth + 1)
        self.out += b"b"

    def storage_id(self, arr: np.ndarray, name: str, untyped: bool) -> tuple:
        """The persistent id of ``arr``'s storage (``BINPERSID`` of ('storage', class, key, 'cpu', numel)); its
        key and the offset of the span the storage covers."""
        key = self.storages.add(arr)
        if self.layout is None:  # the first pass only finds the storages
            record, span, lo = "0", arr.reshape(-1)[:0], 0
        else:
            record, span, lo = self.layout[key]
        self.out += b"("
        self.save(_STORAGE)  # the interned literals of torch/serialization.py: one memo entry each
        self.global_("torch.storage" if untyped else "torch", name)
        self.save(record)  # one string per storage, written again as a BINGET
        self.save(_CPU)
        self.integer(span.size * (arr.itemsize if untyped else 1))
        self.out += b"t"
        self.fresh()
        self.out += b"Q"
        return key, lo

    def placement(self, arr: np.ndarray, key: tuple, lo: int, depth: int) -> None:
        """A tensor's storage offset, size and stride, in elements."""
        item = arr.itemsize
        if key[0] == "own":
            offset, strides = 0, _contiguous_strides(arr.shape)
        else:
            offset = (_address(arr) - lo) // item
            strides = tuple(st // item for st in arr.strides)
        self.integer(offset)
        self.fresh_tuple(arr.shape, depth + 1)
        self.fresh_tuple(strides, depth + 1)

    def hooks(self) -> None:
        """The empty OrderedDict of backward hooks that every tensor's reduction carries."""
        self.global_("collections", "OrderedDict")
        self.out += b")R"
        self.fresh()

    def qtensor(self, x: QuantizedTensor, depth: int) -> None:
        """``torch._utils._rebuild_qtensor(storage, offset, size, stride, (per_tensor_affine, scale, zero_point),
        False, OrderedDict())``, its integers in a ``Q...Storage``."""
        self.global_("torch._utils", "_rebuild_qtensor")
        self.out += b"("
        key, lo = self.storage_id(x._data, _QUANTIZED_STORAGE_NAMES[x.dtype.name], False)
        self.placement(x._data, key, lo, depth)
        self.fresh_tuple((_dtype.per_tensor_affine, x.q_scale(), x.q_zero_point()), depth + 1)
        self.out += b"\x89"
        self.hooks()
        self.out += b"t"
        self.fresh()
        self.out += b"R"
        self.reduced(x, depth)

    def tensor(self, x: Tensor, depth: int) -> None:
        from ..nn.parameter import Parameter

        if type(x) is QuantizedTensor:
            self.qtensor(x, depth)
            return
        if type(x) is Parameter:
            # _rebuild_parameter(param.data, requires_grad, OrderedDict()): .data is a new tensor each time
            self.global_("torch._utils", "_rebuild_parameter")
            self.dense(x, False, depth)
            self.fresh()
            self.out += b"\x88" if x.requires_grad else b"\x89"
            self.hooks()
            self.out += b"\x87"
            self.fresh()
            self.out += b"R"
        elif type(x) is Tensor:
            self.dense(x, x.requires_grad, depth)
        elif self.full:
            self.any_object(x, depth)
            return
        else:
            raise NotPlain  # a subclass: its Python state needs a full pickle
        self.reduced(x, depth)

    def dense(self, x: Tensor, requires_grad: bool, depth: int) -> None:
        """``_rebuild_tensor_v2(storage, offset, size, stride, requires_grad, OrderedDict())`` up to its REDUCE
        (``_v3`` with the dtype last for the dtypes without a typed storage class)."""
        arr = x._data
        # float8 and complex32 have no typed storage class: PyTorch saves their bytes as an UntypedStorage
        # and names the dtype to _rebuild_tensor_v3
        untyped = arr.dtype in _dtype.NARROW_NP
        self.global_("torch._utils", "_rebuild_tensor_v3" if untyped else "_rebuild_tensor_v2")
        self.out += b"("
        name = "UntypedStorage" if untyped else _STORAGE_NAMES[arr.dtype.newbyteorder("=")]
        key, lo = self.storage_id(arr, name, untyped)
        self.placement(arr, key, lo, depth)
        self.out += b"\x88" if requires_grad else b"\x89"
        self.hooks()
        if untyped:
            self.global_("torch", x.dtype.name)
        self.out += b"t"
        self.fresh()
        self.out += b"R"


# the literals torch.save's persistent_id returns: interned, as in PyTorch, so a string of the saved object
# that is the same interned literal shares their memo entry there and here
_STORAGE = "storage"
_CPU = "cpu"
_LATIN1 = "latin1"  # pickle's own interned "latin1", the encoding argument of every bytes object


def _hash_seeded(x: Any) -> bool:
    """Whether ``hash(x)`` changes with PYTHONHASHSEED (and with it a set's order)."""
    if isinstance(x, (str, bytes)):
        return True
    return isinstance(x, (tuple, frozenset)) and any(_hash_seeded(v) for v in x)


def _fresh_str(s: str) -> str:
    """An equal string made as C code makes one from its bytes: a new object, except the empty string and the
    one-character ASCII strings, which CPython keeps as singletons."""
    return s.encode("utf-8", "surrogatepass").decode("utf-8", "surrogatepass")


def _fresh_state(x: Any) -> Any:
    """A TorchScript object's state as PyTorch hands it to pickle: new tuples, lists and strings around the same
    tensors and objects."""
    t = type(x)
    if t is tuple:
        return tuple(_fresh_state(v) for v in x)
    if t is list:
        return [_fresh_state(v) for v in x]
    if t is str:
        return _fresh_str(x)
    return x


_PUBLIC = ("tinytorch.nn.functional", "tinytorch", "tinytorch.special", "tinytorch.linalg",
           "tinytorch.fft")


def _find(module: str, qualname: str) -> Any:
    """The object at ``module.qualname``, importing the module as pickle does; None if absent."""
    if "<locals>" in qualname:
        return None
    try:
        found = importlib.import_module(module)
        for part in qualname.split("."):
            found = getattr(found, part)
        return found
    except (ImportError, AttributeError):
        return None


def _contiguous_strides(shape: tuple) -> tuple:
    out, step = [], 1
    for n in reversed(shape):
        out.append(step)
        step *= max(n, 1)
    return tuple(reversed(out))


def dumps(obj: Any, full: bool = False) -> tuple[bytes, list]:
    """The pickle bytes for ``obj`` and its storages' arrays in record order (data/0, data/1...).
    Without ``full`` it raises ``NotPlain`` when ``obj`` holds something other than plain data;
    with it, other objects are written by their reduction, classes by their import path."""
    first = Pickler(None, full=full)
    first.save(obj)
    first.out += b"."
    layout, arrays = first.storages.finish()
    second = Pickler(layout, first.storages, full)
    second.save(obj)
    second.out += b"."
    return bytes(second.out), arrays
