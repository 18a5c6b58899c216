"""The safetensors container: every tensor under its own name, the structure around them as JSON.

A checkpoint is a plain safetensors file. Every tensor is stored under its own key, named after its
place in the saved object (``"fc.weight"``, ``"state.0.exp_avg"``), as raw little-endian bytes.
The structure around the tensors (dicts with their key types and order, lists, tuples, ints of any
size, floats bit for bit, strings, bools, None, which tensors require grad) is a JSON tree kept in
the header's ``__metadata__`` under ``"tinytorch.structure"``; other tools see ordinary named tensors.

Reading goes through the ``safetensors`` library, which checks the header's JSON against its
schema, the dtypes, shapes and offsets (no gap, overlap, overflow or trailing byte) and reads the
data. A thin layer in front keeps the rules the library lacks: the header length against the file
size and the 100 MB cap before anything is allocated, the number of entries against a cap before
the JSON is parsed, strict JSON (no duplicate keys, which the library lets the last one win, no
NaN words), exactly the three fields per tensor, the dtypes and dimension count tinytorch holds,
and BOOL bytes that are 0 or 1; then tinytorch's structure is checked as it is rebuilt. Any
malformed file raises ``SerializationError``."""
from __future__ import annotations

import contextlib
import json
import os
import re
import struct
from collections import Counter, OrderedDict
from typing import IO, Any

import numpy as np
import safetensors
import safetensors.numpy

from .._dtype import BF16_NP, FLOATING_NP
from .._ops.creation.factory import from_numpy
from ..tensor import Tensor
from ._errors import SerializationError

MAX_HEADER_BYTES = 100_000_000  # the cap the safetensors library applies too
# Entries per header. A header of 100 MB can name about 1.6 million empty tensors, and each
# costs about a kilobyte of Python objects and 30 us while it is checked: the cap (real
# checkpoints hold thousands of tensors) keeps any load to seconds, and is counted before parsing.
MAX_TENSORS = 100_000
_STRUCTURE_KEY = "tinytorch.structure"
_VERSION_KEY = "tinytorch.version"
_FORMAT_VERSION = "1"
_MAX_NESTING = 200  # well inside what json.loads and Python recursion handle on load
_MAX_DIMS = 32  # the fewest dims any supported numpy allows
_INT64_MIN, _INT64_MAX = -(1 << 63), (1 << 63) - 1

_ST_DTYPES = {name: np.dtype(code) for name, code in (
    ("BOOL", "?"), ("U8", "u1"), ("I8", "i1"), ("I16", "<i2"), ("I32", "<i4"), ("I64", "<i8"),
    ("F16", "<f2"), ("F32", "<f4"), ("F64", "<f8"))}
if BF16_NP is not None:
    _ST_DTYPES["BF16"] = BF16_NP  # little-endian like every numpy-native dtype here
_INT_HEX = re.compile(r"-?[1-9a-f][0-9a-f]*")
_NAN_BITS = re.compile(r"nan:[0-9a-f]{16}")
_KEY_TYPES = (str, int, bool, float, type(None))


class NotPlain(Exception):
    """The object holds something only pickle can store."""


# dict types kept as themselves (Counter: lr_scheduler.MultiStepLR's milestones)
_DICT_TAGS = {dict: "dict", OrderedDict: "odict", Counter: "counter"}
_DICT_TYPES = {tag: t for t, tag in _DICT_TAGS.items()}


def write(obj: Any) -> bytes:
    """The safetensors file for ``obj``; raises ``NotPlain`` when it needs pickle."""
    arrays, root = _encode(obj)
    # "format": "pt" as safetensors.torch writes it: readers such as transformers check it
    metadata = {"format": "pt", _VERSION_KEY: _FORMAT_VERSION,
                _STRUCTURE_KEY: json.dumps(root, ensure_ascii=True, separators=(",", ":"))}
    try:
        return safetensors.numpy.save(arrays, metadata=metadata)
    except Exception as e:  # the library's error types are not part of our API
        raise SerializationError(f"safetensors could not write the checkpoint: {e}") from e


def read(fh: IO[bytes], size: int, head: bytes) -> Any:
    """The object in a safetensors file whose first 8 bytes (``head``) were already read."""
    header_len = struct.unpack("<Q", head)[0]
    if header_len > MAX_HEADER_BYTES or header_len > size - 8:
        limit = ("the 100 MB limit" if header_len > MAX_HEADER_BYTES
                 else f"the {size - 8} bytes after it (truncated or not a safetensors file?)")
        raise SerializationError(f"header length {header_len} bytes exceeds {limit}")
    raw = _read_exact(fh, header_len, "the header")
    if raw[:1] != b"{":
        raise SerializationError("the header is not a JSON object: it does not start with '{'")
    # each entry is a JSON object of its own, so counting braces bounds the number of entries
    # (from above: escapes cannot hide one) before anything is built
    objects = raw.count(b"{") - 1  # the header itself; __metadata__ may be one more
    if objects > MAX_TENSORS + 1:
        raise SerializationError(f"the header describes {objects} or so tensors, more than the "
                                 f"{MAX_TENSORS} tinytorch.load accepts in one file")
    try:
        text = raw.decode("utf-8")
    except UnicodeDecodeError as e:
        raise SerializationError(f"the header is not valid UTF-8: {e}") from None
    header = _parse_json(text, "the header")
    if type(header) is not dict:
        raise SerializationError("the header is not a JSON object")
    metadata = _check_header(header)
    return _rebuild(metadata, _read_tensors(fh, head + raw, size - 8 - header_len))


def _encode(obj: Any) -> tuple[dict, Any]:
    """The tensors as C-contiguous arrays by name, and the JSON tree that places them."""
    arrays: dict[str, np.ndarray] = {}
    active: set[int] = set()  # containers on the current path, to catch cycles

    def name_for(path: tuple) -> str:
        base = ".".join(str(p) for p in path) or "tensor"
        try:
            base.encode("utf-8")
        except UnicodeEncodeError:  # lone surrogates cannot be a safetensors key
            base = "tensor"
        name, n = base, 0
        while name in arrays or name == "__metadata__":
            n += 1
            name = f"{base}#{n}"
        return name

    def enc(x: Any, path: tuple, depth: int) -> Any:
        t = type(x)
        if x is None or t is bool or t is str:
            return x
        if t is int:  # past int64 other JSON readers lose digits, and str(int) has a length cap
            return x if _INT64_MIN <= x <= _INT64_MAX else ["int", format(x, "x")]
        if t is float:  # repr round-trips every float but a NaN, whose payload the bits keep
            return ["float", "nan:" + struct.pack(">d", x).hex() if x != x else repr(x)]
        if isinstance(x, Tensor):
            name = name_for(path)
            # the library copies nbytes from the data pointer, so strides must be C order
            # (not ascontiguousarray: it turns 0-d arrays into shape (1,))
            arrays[name] = x._data if x._data.flags.c_contiguous else x._data.copy(order="C")
            return ["tensor", name, "requires_grad"] if x.requires_grad else ["tensor", name]
        if t not in _DICT_TAGS and t is not list and t is not tuple or depth >= _MAX_NESTING or id(x) in active:
            raise NotPlain
        active.add(id(x))
        if t is list or t is tuple:
            node = ["list" if t is list else "tuple"]
            node += [enc(v, path + (i,), depth + 1) for i, v in enumerate(x)]
        else:
            node = [_DICT_TAGS[t]]
            for k, v in x.items():
                if type(k) not in _KEY_TYPES:
                    raise NotPlain
                node += [enc(k, (), depth + 1), enc(v, path + (k,), depth + 1)]
        active.discard(id(x))
        return node

    root = enc(obj, (), 0)
    return arrays, root


def _read_exact(fh: IO[bytes], n: int, what: str) -> bytes:
    data = fh.read(n)
    if len(data) != n:
        raise SerializationError(f"the file ended inside {what}: got {len(data)} of {n} bytes")
    return data


def _parse_json(text: str, what: str) -> Any:
    def no_duplicates(pairs):
        out = dict(pairs)
        if len(out) != len(pairs):
            seen: set = set()
            dup = next(k for k, _ in pairs if k in seen or seen.add(k))
            raise SerializationError(f"{what} repeats the key {dup!r:.100}")
        return out

    def no_constants(word):
        raise SerializationError(f"{what} is not valid JSON: {word} is not a JSON value")

    try:
        return json.loads(text, object_pairs_hook=no_duplicates, parse_constant=no_constants)
    except SerializationError:
        raise
    except (ValueError, RecursionError) as e:  # JSONDecodeError, int digit cap, deep nesting
        raise SerializationError(f"{what} is not valid JSON: {e}") from None


def _check_header(header: dict) -> dict:
    """The rules the library lacks, entry by entry; the metadata map."""
    metadata = header.get("__metadata__", {})
    if type(metadata) is not dict or any(type(v) is not str for v in metadata.values()):
        raise SerializationError("__metadata__ must be a JSON object of strings")
    for name, info in header.items():
        if name == "__metadata__":
            continue
        if type(info) is not dict or info.keys() != {"dtype", "shape", "data_offsets"}:
            raise SerializationError(f"tensor {name!r:.100}: expected exactly dtype, shape and "
                                     f"data_offsets, got {info!r:.200}")
        dtype, shape = info["dtype"], info["shape"]
        if type(dtype) is not str or dtype not in _ST_DTYPES:
            raise SerializationError(f"tensor {name!r:.100}: unsupported dtype {dtype!r:.50}; "
                                     f"tinytorch reads {', '.join(_ST_DTYPES)}")
        if type(shape) is list and len(shape) > _MAX_DIMS:  # numpy's limit
            raise SerializationError(f"tensor {name!r:.100}: more than {_MAX_DIMS} dimensions")
    return metadata


def _read_tensors(fh: IO[bytes], header: bytes, data_len: int) -> dict:
    """The tensors by name, as the safetensors library reads and checks them: from the file
    itself (memory-mapped) when ``fh`` is a whole file on disk, else from its bytes."""
    path = getattr(fh, "name", None)
    start = fh.tell() - len(header)
    try:
        if type(path) is str and start == 0 and os.path.isfile(path):
            with safetensors.safe_open(path, framework="numpy") as f:
                arrays = {name: f.get_tensor(name) for name in f.keys()}
        else:
            data = fh.read(data_len)
            if len(data) != data_len:
                raise SerializationError(f"the file ended inside the data: got {len(data)} of "
                                         f"{data_len} bytes")
            arrays = safetensors.numpy.load(header + data)
    except SerializationError:
        raise
    except Exception as e:  # SafetensorError, and numpy's for shapes it cannot hold
        raise SerializationError(f"malformed safetensors file: {e}") from None
    out = {}
    for name, arr in arrays.items():
        if arr.dtype.kind == "b" and arr.view(np.uint8).max(initial=0) > 1:
            raise SerializationError(f"tensor {name!r:.100}: a BOOL byte is neither 0 nor 1")
        if not arr.dtype.isnative:  # big-endian machines
            arr = arr.astype(arr.dtype.newbyteorder("="))
        if not (arr.flags.writeable and arr.flags.aligned):
            arr = arr.copy()
        out[name] = from_numpy(arr)
    return out


def _rebuild(metadata: dict, tensors: dict) -> Any:
    if _STRUCTURE_KEY not in metadata:
        return tensors  # a safetensors file from another tool: its tensors by name
    version = metadata.get(_VERSION_KEY)
    if version != _FORMAT_VERSION:
        raise SerializationError(f"checkpoint format version {version!r:.20} is not one this "
                                 f"tinytorch reads ({_FORMAT_VERSION!r})")
    root = _parse_json(metadata[_STRUCTURE_KEY], "the structure")
    unused = set(tensors)
    try:
        obj = _decode(root, tensors, unused, 0)
    except RecursionError:
        raise SerializationError("the structure is nested too deeply") from None
    if unused:
        raise SerializationError(f"the structure leaves tensor(s) {sorted(unused)!r:.200} unused")
    return obj


def _decode(node: Any, tensors: dict, unused: set, depth: int) -> Any:
    if type(node) is not list:
        return _decode_scalar(node)
    tag, args = (node[0], node[1:]) if node else (None, ())
    if type(tag) is not str:  # a list or dict here would be unhashable below
        raise SerializationError(f"the structure has a node whose tag is not a string: "
                                 f"{node!r:.100}")
    if (tag == "tensor" and len(args) in (1, 2) and type(args[0]) is str
            and args[1:] in ([], ["requires_grad"])):
        if args[0] not in unused:
            raise SerializationError(f"the structure refers to tensor {args[0]!r:.100}, which the "
                                     f"file lacks or which it already used")
        unused.discard(args[0])
        t = tensors[args[0]]
        if len(args) == 2:
            if t._data.dtype not in FLOATING_NP:
                raise SerializationError(f"tensor {args[0]!r:.100} of dtype {t.dtype} cannot "
                                         f"require grad")
            t._requires_grad = True
        return t
    if tag not in ("list", "tuple") and tag not in _DICT_TYPES:
        return _decode_scalar(node)
    if depth >= _MAX_NESTING:
        raise SerializationError("the structure is nested too deeply")
    if tag == "list" or tag == "tuple":
        items = [_decode(a, tensors, unused, depth + 1) for a in args]
        return items if tag == "list" else tuple(items)
    if len(args) % 2:
        raise SerializationError("the structure has a dict key without a value")
    out = _DICT_TYPES[tag]()
    for key_node, value_node in zip(args[::2], args[1::2]):
        key = _decode_scalar(key_node)
        if key in out:
            raise SerializationError(f"the structure repeats the dict key {key!r:.100}")
        out[key] = _decode(value_node, tensors, unused, depth + 1)
    return out


def _decode_scalar(node: Any) -> Any:
    """None, bool, str, int or float, each in its one canonical spelling; else malformed."""
    if node is None or type(node) in (bool, str, int):
        return node
    if type(node) is list and len(node) == 2 and type(node[1]) is str:
        tag, text = node
        if tag == "int" and _INT_HEX.fullmatch(text):
            value = int(text, 16)
            if not _INT64_MIN <= value <= _INT64_MAX:  # smaller ints are bare JSON numbers
                return value
        elif tag == "float" and _NAN_BITS.fullmatch(text):
            value = struct.unpack(">d", bytes.fromhex(text[4:]))[0]
            if value != value:
                return value
        elif tag == "float":
            with contextlib.suppress(ValueError):
                value = float(text)
                if repr(value) == text and value == value:
                    return value
    raise SerializationError(f"the structure has a malformed or unknown node {node!r:.100}")
