"""A file ``load`` cannot read: what it looks like, and the exception type PyTorch's ``torch.load`` raises for it.

A file that is neither a zip archive nor one of tinytorch's own formats is, to PyTorch, a legacy (pre-1.6)
checkpoint: a real file is first tried as a ``.tar`` one (refused with ``weights_only=True``: RuntimeError), then
its first pickle, which must be the legacy magic number, is read by the weights-only unpickler. On anything
else that unpickler fails in its own way, and that is the exception a script catches: ``EOFError`` for an empty
file, ``KeyError`` for text beginning with ``h`` (a memo read), ``IndexError`` for a pop from its empty stack,
``UnpicklingError`` for an opcode it lacks, ``RuntimeError`` ("Invalid magic number") for a pickle that is not a
checkpoint. ``_first_pickle`` replays that unpickler's steps on the file's first bytes to learn the type (its
values are plain Python values, so each step fails as PyTorch's does; allowed globals stand in as markers,
nothing named by the file is imported or called); the error ``load`` raises is a ``SerializationError`` of that
type too, whose message says what the file is."""
from __future__ import annotations

import pickle
import struct
from _compat_pickle import IMPORT_MAPPING, NAME_MAPPING
from collections import Counter, OrderedDict
from typing import IO

from ._allowlist import resolve_global
from ._errors import SerializationError, not_a_checkpoint

_REPLAY_BYTES = 4096  # junk fails within its first opcodes; this bounds the replay's work and its nesting
_READS = "tinytorch.load reads PyTorch's checkpoints (torch.save's zip files and its legacy format) and safetensors"
_LEGACY_MAGIC_NUMBER = 0x1950A86A20F9469CFC6C


class _Placeholder:
    """What an allowed global or its REDUCE builds, in the replay: never called."""


def _kind(head: bytes) -> str:
    """A few words on what a file starting with ``head`` is."""
    if not head:
        return "the file is empty"
    signatures = ((b"\x1f\x8b", "gzip-compressed data (decompress it first?)"),
                  (b"\x93NUMPY", "a numpy .npy array (numpy.load reads it)"),
                  (b"\x89PNG", "a PNG image"), (b"\xff\xd8\xff", "a JPEG image"), (b"GIF8", "a GIF image"),
                  (b"\x7fELF", "an executable"), (b"%PDF", "a PDF document"))
    for sig, kind in signatures:
        if head.startswith(sig):
            return f"the file is {kind}"
    if len(head) > 262 and head[257:262] == b"ustar":
        return "the file is a tar archive (a legacy .tar checkpoint of PyTorch before 0.4 is not read)"
    if len(head) > 1 and head[0] == 0x80 and 1 <= head[1] <= 5:
        return "the file is a pickle that is not a PyTorch checkpoint (tinytorch.load never unpickles one)"
    try:
        text = head.decode("utf-8")
    except UnicodeDecodeError:
        text = None
    if text is not None and sum(c.isprintable() or c in "\t\r\n" for c in text) >= 0.95 * len(text):
        start = text.lstrip()[:1]
        what = " (HTML or XML: an error page saved in place of a download?)" if start == "<" else \
            " (JSON?)" if start in "{[" and start else ""
        return f"the file is text{what}, beginning {text[:40]!r}"
    return f"the file's bytes begin {head[:8].hex(' ')}"


def error(fh: IO[bytes], start: int, size: int, unpickle) -> SerializationError:
    """The error for the file at ``fh[start:start + size]``, which holds none of the formats ``load`` reads."""
    fh.seek(start)
    head = fh.read(min(size, _REPLAY_BYTES))
    kind = _kind(head)
    if start == 0 and _real_file(fh) and _is_tar(fh):  # (PyTorch tries a real file as a .tar first)
        return not_a_checkpoint(f"not a checkpoint: {kind}; {_READS} files. (PyTorch reads legacy .tar "
                                "checkpoints only with weights_only=False.)", RuntimeError)
    like, said = _first_pickle(head, len(head) < size)
    return not_a_checkpoint(f"not a checkpoint: {kind}; {_READS} files. (Read as a legacy PyTorch file, "
                            f"{said}.)", like)


def _real_file(fh) -> bool:
    try:
        return fh.fileno() >= 0
    except (AttributeError, OSError):
        return False


def _is_tar(fh) -> bool:
    import tarfile  # (only for a file that is no checkpoint: tarfile's import is not cheap)

    try:
        fh.seek(0)
        with tarfile.open(fileobj=fh, mode="r:"):
            return True
    except Exception:  # noqa: BLE001 - a probe: whatever tarfile makes of junk, it is no tar
        return False


def _first_pickle(data: bytes, cut: bool) -> tuple[type, str]:
    """The exception type PyTorch's torch.load raises on a legacy file starting with ``data`` (the first
    ``_REPLAY_BYTES`` of a longer file when ``cut``), and a few words on why."""
    try:
        value = _replay(data, cut)
    except _OutOfBytes:
        return pickle.UnpicklingError, "its first pickle runs on past what was read of it"
    except EOFError:
        return EOFError, "it ends before its first pickle does (EOFError)"
    except pickle.UnpicklingError as e:
        return pickle.UnpicklingError, f"its first pickle is not one PyTorch's weights-only unpickler reads ({e})"
    except Exception as e:  # noqa: BLE001 - the type is the point: PyTorch's unpickler fails with it here
        said = f"{type(e).__name__}: {e}" if str(e) else type(e).__name__
        return type(e), f"its first pickle fails PyTorch's weights-only unpickler ({said})"
    if value == _LEGACY_MAGIC_NUMBER:  # the magic number alone, cut short after it
        return EOFError, "it ends after the legacy magic number"
    return RuntimeError, "its first pickle is not the legacy magic number (\"Invalid magic number; corrupt file?\")"


_PUSH = {0x4E: lambda: None, 0x89: lambda: False, 0x88: lambda: True, 0x29: tuple, 0x5D: list, 0x7D: dict,
         0x8F: set}


class _OutOfBytes(Exception):
    """The replay needs more of the file than ``_REPLAY_BYTES``."""


def _replay(data: bytes, cut: bool):  # noqa: C901 - one branch per opcode, as the unpickler it replays
    """The value of the first pickle in ``data`` (the start of a longer file when ``cut``), by the steps of
    PyTorch's weights-only unpickler."""
    pos = 0
    stack: list = []
    metastack: list = []
    memo: dict = {}

    def read(k: int) -> bytes:
        nonlocal pos
        if pos + k > len(data) and cut:
            raise _OutOfBytes
        got = data[pos:pos + k]
        pos += len(got)
        return got

    def readline() -> bytes:
        nonlocal pos
        end = data.find(b"\n", pos)
        if end < 0 and cut:
            raise _OutOfBytes
        end = len(data) if end < 0 else end + 1
        got, pos = data[pos:end], end
        return got

    def pop_mark() -> list:
        nonlocal stack
        items = stack
        stack = metastack.pop()
        return items

    while True:
        key = read(1)
        if not key:
            raise EOFError
        op = key[0]
        if op == 0x63:  # GLOBAL
            module, name = readline()[:-1].decode("utf-8"), readline()[:-1].decode("utf-8")
            if (module, name) in NAME_MAPPING:
                module, name = NAME_MAPPING[(module, name)]
            else:
                module = IMPORT_MAPPING.get(module, module)
            resolve_global(module, name)  # PyTorch's refusal (an UnpicklingError) for a name it does not allow
            stack.append(_Placeholder)
        elif op in (0x81, 0x52):  # NEWOBJ, REDUCE: only of an allowed global
            stack.pop()
            fn = stack.pop() if op == 0x81 else stack[-1]
            if fn is not _Placeholder:
                raise pickle.UnpicklingError(f"Trying to call reduce for unrecognized function {fn!r:.40}")
            if op == 0x81:
                stack.append(_Placeholder())
            else:
                stack[-1] = _Placeholder()
        elif op == 0x62:  # BUILD
            stack.pop()
            if type(stack[-1]) not in (_Placeholder, OrderedDict):
                raise pickle.UnpicklingError(f"Can only build Tensor, Parameter, OrderedDict or types allowlisted "
                                             f"via `add_safe_globals`, but got {type(stack[-1])}")
        elif op in (0x61, 0x65):  # APPEND, APPENDS
            items = [stack.pop()] if op == 0x61 else pop_mark()
            if type(stack[-1]) is not list:
                raise pickle.UnpicklingError(f"Can only append to lists, but got {type(stack[-1])}")
            stack[-1].extend(items)
        elif op in (0x73, 0x75):  # SETITEM, SETITEMS
            items = [stack.pop(), stack.pop()][::-1] if op == 0x73 else pop_mark()
            if type(stack[-1]) not in (dict, OrderedDict, Counter):
                raise pickle.UnpicklingError(f"Can only SETITEM for dict, collections.OrderedDict, "
                                             f"collections.Counter, but got {type(stack[-1])}")
            for i in range(0, len(items), 2):
                stack[-1][items[i]] = items[i + 1]
        elif op == 0x28:  # MARK
            metastack.append(stack)
            stack = []
        elif op == 0x74:  # TUPLE
            items = pop_mark()
            stack.append(tuple(items))
        elif op in (0x85, 0x86, 0x87):  # TUPLE1-3
            k = op - 0x84
            items = [stack[i] for i in range(-k, 0)]
            stack[-k:] = [tuple(items)]
        elif op in _PUSH:  # NONE, NEWFALSE, NEWTRUE, EMPTY_TUPLE/LIST/DICT/SET
            stack.append(_PUSH[op]())
        elif op == 0x4A:  # BININT
            stack.append(struct.unpack("<i", read(4))[0])
        elif op == 0x4B:  # BININT1
            stack.append(read(1)[0])
        elif op == 0x4D:  # BININT2
            stack.append(struct.unpack("<H", read(2))[0])
        elif op == 0x47:  # BINFLOAT
            stack.append(struct.unpack(">d", read(8))[0])
        elif op == 0x58:  # BINUNICODE
            stack.append(str(read(struct.unpack("<I", read(4))[0]), "utf-8", "surrogatepass"))
        elif op == 0x55:  # SHORT_BINSTRING (torch.load's encoding is utf-8)
            stack.append(read(read(1)[0]).decode("utf-8", "strict"))
        elif op == 0x51:  # BINPERSID: an id needs the loader's storages, which a bare legacy header lacks
            pid = stack.pop()
            if type(pid) is not tuple and type(pid) is not int:
                raise pickle.UnpicklingError(f"persistent_load id must be a tuple or int, but got {type(pid)}")
            raise AttributeError("'Unpickler' object has no attribute 'persistent_load'")
        elif op in (0x68, 0x6A):  # BINGET, LONG_BINGET
            idx = (read(1) if op == 0x68 else struct.unpack("<I", read(4)))[0]
            stack.append(memo[idx])
        elif op in (0x71, 0x72):  # BINPUT, LONG_BINPUT
            idx = (read(1) if op == 0x71 else struct.unpack("<I", read(4)))[0]
            memo[idx] = stack[-1]
        elif op == 0x8A:  # LONG1
            stack.append(int.from_bytes(read(read(1)[0]), "little", signed=True))
        elif op == 0x80:  # PROTO
            read(1)[0]
        elif op == 0x2E:  # STOP
            return stack.pop()
        else:
            raise pickle.UnpicklingError(f"Unsupported operand {op}")
