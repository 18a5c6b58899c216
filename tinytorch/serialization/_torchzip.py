"""PyTorch's checkpoint format: a zip archive of ``data.pkl`` and one raw record per storage.

``torch.save`` writes ``<name>/data.pkl`` (the object, a protocol-2 pickle whose tensors refer to
storages by persistent id), ``.format_version``, ``.storage_alignment``, ``byteorder``,
``<name>/data/<key>`` (each storage's bytes), ``version`` and ``.data/serialization_id``, every
record stored uncompressed with its data on a 64-byte boundary, ``<name>`` the file's stem
(``archive`` for a file object). The writer here produces the bytes of PyTorch's writer
(``caffe2/serialize/inline_container.cc`` over miniz): the same records in the same order, local
headers without sizes followed by a data descriptor, the padding in an ``FB`` extra field, zero
timestamps, zip64 end records, and the serialization id computed as PyTorch computes it. The
reader takes the zip directory from ``zipfile``, then checks every record it uses (stored, inside
the file, the size its storage claims, its CRC) before reading it straight into a numpy array,
and unpickles ``data.pkl`` with the allowlist interpreter of ``_unpickler``."""
from __future__ import annotations

import os
import struct
import zlib
from typing import IO, Any

import numpy as np

from ._errors import CUDA_MESSAGE, SerializationError, describe, not_a_checkpoint
from . import _full_unpickler
from ._pickler import dumps
from ._allowlist import STORAGE_DTYPES, Storage, is_allowed
from ._safe_globals import allowed
from ._unpickler import unpickle

ARCHIVE = "archive"  # the top folder of a checkpoint written to a file object; any name loads
_ALIGN = 64
_VERSION = b"3\n"
ZIP64_LIMIT = 0xFFFFFFFF  # a module constant so that tests can exercise the zip64 records
MAX_RECORDS = 100_000  # as the safetensors reader's tensor cap
_CRC_CHUNK = 1 << 24
_DESCRIPTOR = b"PK\x07\x08"
_MASK = (1 << 64) - 1


# -------------------------------------------------------------------------------------- write

def archive_name(path: Any) -> str:
    """The top folder ``torch.save`` names after a path: PyTorchStreamWriter's ``basename``, the text
    after the last ``/`` or ``\\`` up to its last dot (``model.pt`` -> ``model``, ``a.b.c`` ->
    ``a.b``); ``archive`` for a name that is not ASCII, which PyTorch writes through a Python file
    object. A name with nothing before its dot (``.pt``) is PyTorch's error."""
    name = os.fspath(path)
    try:
        name.encode("ascii")
    except UnicodeEncodeError:
        return ARCHIVE
    base = name[max(name.rfind("/"), name.rfind("\\")) + 1:]
    dot = base.rfind(".")
    stem = base if dot < 0 else base[:dot]
    if not stem:
        raise RuntimeError(f"invalid file name: {name}")
    return stem


def _bytes_of(arr: np.ndarray) -> memoryview:
    if arr.dtype.byteorder == ">":
        arr = arr.astype(arr.dtype.newbyteorder("<"))
    if not arr.flags.c_contiguous:
        arr = np.ascontiguousarray(arr)
    return memoryview(arr.reshape(-1).view(np.uint8))


def _crc(view: memoryview) -> int:
    crc = 0
    for i in range(0, len(view), _CRC_CHUNK):
        crc = zlib.crc32(view[i:i + _CRC_CHUNK], crc)
    return crc


def prepare(obj: Any, full: bool = False) -> tuple[bytes, list]:
    """The pickle and storages of ``obj``; without ``full``, ``NotPlain`` when it is not plain
    data; with it, other objects pickled by their reductions (classes by import path)."""
    return dumps(obj, full)


def write(prepared: tuple[bytes, list], out: IO[bytes], archive: str = ARCHIVE,
          byteorder_record: bool = True) -> None:
    """Write a prepared object as ``torch.save`` writes it, streaming each storage from memory.
    ``byteorder_record=False`` is ``_disable_byteorder_record``: PyTorch's writer still adds the
    record, after ``version``."""
    pkl, arrays = prepared
    writer = _ZipWriter(out, archive)
    writer.record("data.pkl", memoryview(pkl))
    writer.record(".format_version", memoryview(b"1"))
    writer.record(".storage_alignment", memoryview(str(_ALIGN).encode()))
    if byteorder_record:
        writer.record("byteorder", memoryview(b"little"))  # _bytes_of writes little-endian
    for i, arr in enumerate(arrays):
        writer.record(f"data/{i}", _bytes_of(arr))
    writer.record("version", memoryview(_VERSION))
    if not byteorder_record:
        writer.record("byteorder", memoryview(b"little"))
    writer.record(".data/serialization_id", memoryview(writer.serialization_id().encode()))
    writer.finish()


class _ZipWriter:
    """miniz's zip writer as PyTorch drives it (``mz_zip_writer_add_mem_ex_v2`` per record, zip64
    end records always): the byte layout, and the hashes PyTorch folds into its serialization id."""

    def __init__(self, out: IO[bytes], archive: str):
        self.out, self.prefix = out, archive + "/"
        self.pos = 0
        self.central: list = []
        self.names: list = []  # the records' names, in writing order
        self.crc_id = 0  # hash_combine of the CRCs that PyTorch's write callback saw in data descriptors

    def _write(self, chunk) -> None:
        # ostream_write_func combines the CRC of every write of 8 bytes or more that starts like a data
        # descriptor: the descriptors, and (as it happens) a name or a record's bytes that start so
        if len(chunk) >= 8 and bytes(chunk[:4]) == _DESCRIPTOR:
            self.crc_id = _hash_combine(self.crc_id, int.from_bytes(bytes(chunk[4:8]), "little"))
        self.out.write(chunk)
        self.pos += len(chunk)

    def record(self, name: str, view: memoryview) -> None:
        full = (self.prefix + name).encode("utf-8")
        size, offset = len(view), self.pos
        crc = _crc(view) if size else 0
        big_size, big_offset = size >= ZIP64_LIMIT, offset >= ZIP64_LIMIT
        zip64 = b""
        if big_size or big_offset:  # the zip64 extra field: sizes, offset, as each needs
            fields = (size, size) * big_size + (offset,) * big_offset
            zip64 = struct.pack(f"<HH{len(fields)}Q", 1, 8 * len(fields), *fields)
        # PyTorch's padding: an "FB" extra field after the zip64 one, so the data starts on a 64-byte boundary
        pad = -(offset + 30 + len(full) + len(zip64) + 4) % _ALIGN
        extra = b"FB" + struct.pack("<H", pad) + b"Z" * pad
        # bit 11: UTF-8 names; bit 3: sizes and CRC in a descriptor after the data (none for an empty record);
        # version needed 0, time and date 0 (miniz built without time support)
        flags = 0x0808 if size else 0x0800
        self._write(struct.pack("<IHHHHHIIIHH", 0x04034B50, 0, flags, 0, 0, 0, 0, 0, 0, len(full),
                                len(zip64) + len(extra)))
        self._write(full)
        if zip64:
            self._write(zip64)
        self._write(extra)
        if size:
            self._write(view)
            sizes = struct.pack("<QQ", size, size) if zip64 else struct.pack("<II", size, size)
            self._write(_DESCRIPTOR + struct.pack("<I", crc) + sizes)
        self.central.append((full, flags, crc, size, offset, zip64))
        self.names.append(name)

    def serialization_id(self) -> str:
        """PyTorchStreamWriter::writeSerializationId: 20 digits of the record names' hashes combined in the
        order of its ``std::unordered_set``, then 20 of the descriptors' CRCs combined in writing order."""
        names = 0
        for name in _unordered_set_order(self.names):
            names = _hash_combine(names, _hash_bytes(name.encode("utf-8")))
        return f"{names:020d}{self.crc_id:020d}"

    def finish(self) -> None:
        cd_start = self.pos
        entries = []
        for full, flags, crc, size, offset, zip64 in self.central:
            limit = 0xFFFFFFFF
            entries.append(struct.pack("<IHHHHHHIIIHHHHHII", 0x02014B50, 0, 0, flags, 0, 0, 0, crc,
                                       min(size, limit), min(size, limit), len(full), len(zip64), 0,
                                       0, 0, 0, min(offset, limit)) + full + zip64)
        self.out.write(b"".join(entries))
        self.pos += sum(map(len, entries))
        cd_size, count, eocd64 = self.pos - cd_start, len(entries), self.pos
        # miniz in zip64 mode writes the zip64 end record and locator always, made by 0x031E (Unix)
        self.out.write(struct.pack("<IQHHIIQQQQ", 0x06064B50, 44, 0x031E, 45, 0, 0, count, count,
                                   cd_size, cd_start))
        self.out.write(struct.pack("<IIQI", 0x07064B50, 0, eocd64, 1))
        self.out.write(struct.pack("<IHHHHIIH", 0x06054B50, 0, 0, min(count, 0xFFFF),
                                   min(count, 0xFFFF), min(cd_size, 0xFFFFFFFF),
                                   min(cd_start, 0xFFFFFFFF), 0))


# PyTorch's serialization id hashes with libstdc++'s std::hash<std::string> (_Hash_bytes, a 64-bit
# MurmurHash2 variant) and c10::hash_combine, over its std::unordered_set<std::string>, whose order
# follows libstdc++'s hashtable: nodes in one list, a node new to its bucket at the list's front,
# otherwise first in its bucket; the table grows at these element counts to these prime bucket
# counts (_Prime_rehash_policy, max load factor 1).
_MURMUR = 0xC6A4A7935BD1E995
_GROWTH = {1: 13, 14: 29, 30: 59, 60: 127, 128: 257, 258: 541, 542: 1109, 1110: 2357, 2358: 5087,
           5088: 10273, 10274: 20753, 20754: 42043, 42044: 85229, 85230: 172933, 172934: 351061,
           351062: 712697, 712698: 1447153, 1447154: 2938679, 2938680: 5967347,
           5967348: 12117689, 12117690: 24607243, 24607244: 49969847, 49969848: 101473717,
           101473718: 206062531}


def _hash_combine(seed: int, value: int) -> int:
    return seed ^ ((value + 0x9E3779B9 + (seed << 6) + (seed >> 2)) & _MASK)


def _hash_bytes(data: bytes, seed: int = 0xC70F6907) -> int:
    def mix(v: int) -> int:
        return v ^ (v >> 47)

    n = len(data)
    h = (seed ^ (n * _MURMUR)) & _MASK
    body = n & ~7
    for i in range(0, body, 8):
        word = mix((int.from_bytes(data[i:i + 8], "little") * _MURMUR) & _MASK) * _MURMUR & _MASK
        h = ((h ^ word) * _MURMUR) & _MASK
    if n & 7:
        h = ((h ^ int.from_bytes(data[body:], "little")) * _MURMUR) & _MASK
    return mix((mix(h) * _MURMUR) & _MASK)


def _unordered_set_order(names: list) -> list:
    """The iteration order of a libstdc++ ``std::unordered_set<std::string>`` after inserting ``names``."""
    head = -1  # the list's before-begin node
    nxt = {head: None}
    codes = [_hash_bytes(s.encode("utf-8")) for s in names]
    buckets: list = [None]
    n = 1
    for i, code in enumerate(codes):
        if i + 1 in _GROWTH:  # rehash: walk the list, regrouping the nodes bucket by bucket
            n = _GROWTH[i + 1]
            p, nxt[head], buckets, first = nxt[head], None, [None] * n, 0
            while p is not None:
                following, b = nxt[p], codes[p] % n
                if buckets[b] is None:
                    nxt[p], nxt[head], buckets[b] = nxt[head], p, head
                    if nxt[p] is not None:
                        buckets[first] = p
                    first = b
                else:
                    nxt[p], nxt[buckets[b]] = nxt[buckets[b]], p
                p = following
        b = code % n
        if buckets[b] is not None:
            nxt[i], nxt[buckets[b]] = nxt[buckets[b]], i
        else:
            nxt[i], nxt[head] = nxt[head], i
            if nxt[i] is not None:
                buckets[codes[nxt[i]] % n] = i
            buckets[b] = head
    order, p = [], nxt[head]
    while p is not None:
        order.append(names[p])
        p = nxt[p]
    return order


# --------------------------------------------------------------------------------------- read

def _bad(msg: str) -> SerializationError:
    # PyTorch's zip reader (PytorchStreamReader) refuses such an archive with a RuntimeError
    return not_a_checkpoint(f"malformed PyTorch checkpoint (zip archive): {msg}", RuntimeError)


class _Archive:
    """The records of a checkpoint archive, each checked before it is read."""

    def __init__(self, fh: IO[bytes], size: int):
        import zipfile

        self.fh = fh
        start = fh.tell()
        self.start, self.end = start, start + size
        try:
            infos = zipfile.ZipFile(fh).infolist()
        except Exception as e:  # zipfile raises many types on a damaged directory
            raise _bad(f"cannot read its directory ({type(e).__name__}: {e})") from None
        if len(infos) > MAX_RECORDS:
            raise _bad(f"{len(infos)} records, more than the {MAX_RECORDS} accepted")
        self.records: dict = {}
        prefix = None
        for info in infos:
            name = info.filename
            head, sep, rest = name.partition("/")
            if not sep or not rest:
                raise _bad(f"record {name!r:.100} is not inside the archive's top folder")
            if prefix is None:
                prefix = head
            elif head != prefix:
                raise _bad(f"records in two top folders, {prefix!r:.50} and {head!r:.50}")
            if rest in self.records:
                raise _bad(f"record {name!r:.100} appears twice")
            self.records[rest] = info
        if "data.pkl" not in self.records:
            raise _bad("it has no data.pkl record")

    def locate(self, name: str, nbytes: int | None = None) -> tuple[int, int]:
        """Where the record's bytes start and how many there are, after checking that it is
        stored, where the directory says, inside the file and ``nbytes`` long when given."""
        info = self.records.get(name)
        if info is None:
            raise _bad(f"the record {name!r:.100} is missing")
        if info.compress_type != 0 or info.flag_bits & 0x1:
            raise _bad(f"record {name!r:.100} is compressed or encrypted; PyTorch stores "
                       f"records uncompressed")
        size = info.file_size
        if info.compress_size != size or (nbytes is not None and size != nbytes):
            expected = size if nbytes is None else nbytes
            raise _bad(f"record {name!r:.100} holds {info.compress_size} bytes, expected "
                       f"{expected}")
        offset = info.header_offset
        if offset < self.start or offset + 30 > self.end:
            raise _bad(f"record {name!r:.100} starts outside the file")
        self.fh.seek(offset)
        sig, *_, name_len, extra_len = struct.unpack("<IHHHHHIIIHH", self.fh.read(30))
        if sig != 0x04034B50:
            raise _bad(f"record {name!r:.100} has no local header where the directory says")
        data_at = offset + 30 + name_len + extra_len
        if data_at + size > self.end:
            raise _bad(f"record {name!r:.100} runs past the end of the file (truncated?)")
        return data_at, size

    def read(self, name: str, nbytes: int | None = None, into: np.ndarray | None = None):
        """The record's bytes (read into ``into`` when given), checked against its CRC."""
        data_at, size = self.locate(name, nbytes)
        fh = self.fh
        fh.seek(data_at)
        if into is None:
            data = fh.read(size)
            got = len(data)
        else:
            view = memoryview(into.reshape(-1).view(np.uint8))
            got = 0
            while got < size:
                k = fh.readinto(view[got:])
                if not k:
                    break
                got += k
            data = view
        if got != size:
            raise _bad(f"the file ended inside record {name!r:.100}")
        if _crc(memoryview(data)) != self.records[name].CRC:
            raise _bad(f"record {name!r:.100} fails its CRC check (corrupted)")
        return data

    def text(self, name: str, limit: int = 64) -> str | None:
        if name not in self.records:
            return None
        if self.records[name].file_size > limit:
            raise _bad(f"record {name!r} is implausibly long")
        try:
            return bytes(self.read(name)).decode("ascii").strip()
        except UnicodeDecodeError:
            raise _bad(f"record {name!r} is not text") from None


def read(fh: IO[bytes], size: int, map_location: Any = None, full_pickle=None) -> Any:
    """The object in a PyTorch zip checkpoint, built by the allowlist unpickler, or by
    ``pickle_module`` when ``full_pickle`` is ``(pickle_module, load kwargs)`` (weights_only=False)."""
    archive = _Archive(fh, size)
    order = archive.text("byteorder")
    if order not in (None, "little", "big"):
        raise _bad(f"unknown byteorder {order!r:.20}")
    version = archive.text("version") or archive.text(".data/version")
    if version is not None and version not in ("1", "2", "3"):
        raise _bad(f"format version {version!r:.20} is not one tinytorch reads (1 to 3)")
    storages: dict = {}

    def persistent_load(pid) -> Storage:
        if type(pid) is not tuple or len(pid) != 5 or pid[0] != "storage":
            raise _bad(f"unknown persistent id {describe(pid)}")
        _, kind, key, location, numel = pid
        name = getattr(kind, "name", None)
        short = name.rpartition(".")[2] if type(name) is str else None
        if short not in STORAGE_DTYPES or getattr(kind, "build", 0) is not None:
            raise _bad(f"persistent id names {describe(kind)}, not a storage type")
        if type(key) is not str or type(location) is not str or type(numel) is not int:
            raise _bad(f"persistent id {describe(pid)} is not (str, str, int)")
        check_location(location, map_location)
        dtype = STORAGE_DTYPES[short]
        if key in storages:
            storage = storages[key]
            if storage.array.dtype != dtype or storage.array.size != numel:
                raise _bad(f"storage {key!r:.40} is named with two dtypes or sizes")
            return storage
        info = archive.records.get(f"data/{key}")
        if info is None:
            raise _bad(f"the record for storage {key!r:.40} is missing")
        if not 0 <= numel or numel * dtype.itemsize != info.file_size:
            raise _bad(f"storage {key!r:.40} claims {describe(numel)} elements of {dtype} but "
                       f"its record holds {info.file_size} bytes")
        archive.locate(f"data/{key}", numel * dtype.itemsize)  # inside the file: safe to allocate
        arr = np.empty(numel, dtype=dtype)
        archive.read(f"data/{key}", numel * dtype.itemsize, into=arr)
        if dtype.kind == "b" and arr.view(np.uint8).max(initial=0) > 1:
            raise _bad(f"storage {key!r:.40}: a bool byte is neither 0 nor 1")
        if order == "big" and dtype.itemsize > 1:
            arr = arr.byteswap()
        storages[key] = storage = Storage(key, arr, short)
        return storage

    data = bytes(archive.read("data.pkl"))
    if full_pickle is None:
        return unpickle(data, persistent_load)
    return _full_unpickler.unpickle(data, persistent_load, *full_pickle)


def unsafe_globals(fh: IO[bytes], size: int) -> list:
    """The globals ``data.pkl`` names (read statically) that a weights-only load would refuse."""
    import pickletools  # only here: importing it takes longer than a small checkpoint's load

    archive = _Archive(fh, size)
    if "constants.pkl" in archive.records:
        raise ValueError("Expected input to be a checkpoint returned by torch.save but got a torchscript checkpoint")
    named = {tuple(arg.split(" ", 1)) for opcode, arg, _ in pickletools.genops(bytes(archive.read("data.pkl")))
             if opcode.name == "GLOBAL"}
    user = allowed()
    return [f"{module}.{name}" for module, name in named if not is_allowed(module, name, user)]


def read_legacy(fh: IO[bytes], map_location: Any, full_pickle) -> Any:
    """PyTorch's pre-1.6 format: by the weights-only interpreter, or ``(pickle_module, kwargs)``."""
    return _full_unpickler.load_legacy(fh, lambda where: check_location(where, map_location),
                                       *(full_pickle or (None, {})))


def check_location(location: str, map_location: Any) -> None:
    """Storages always load on the CPU; one saved elsewhere needs a map_location, as in PyTorch."""
    kind = location.split(":")[0]
    if kind == "cpu" or map_location is not None:
        return  # map_location was checked to point at the CPU
    if kind == "cuda":
        raise RuntimeError(CUDA_MESSAGE)
    raise _bad(f"storage saved on device {location!r:.40}; tinytorch has only the CPU "
               f"(pass map_location='cpu')")
