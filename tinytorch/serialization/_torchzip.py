"""PyTorch's checkpoint format: a zip archive of ``data.pkl`` and one raw record per storage.

``torch.save`` writes ``<name>/data.pkl`` (the object, a protocol-2 pickle whose tensors refer to
storages by persistent id), ``<name>/data/<key>`` (each storage's bytes), ``byteorder`` and
``version``, every record stored uncompressed and aligned to 64 bytes. The writer here produces
the same layout with fixed timestamps and a fixed order, so equal objects give equal bytes. The
reader takes the zip directory from ``zipfile``, then checks every record it uses (stored, inside
the file, the size its storage claims, its CRC) before reading it straight into a numpy array,
and unpickles ``data.pkl`` with the allowlist interpreter of ``_unpickler``."""
from __future__ import annotations

import struct
import zlib
from typing import IO, Any

import numpy as np

from ._errors import CUDA_MESSAGE, SerializationError, describe, not_a_checkpoint
from . import _full_unpickler
from ._pickler import dumps
from ._allowlist import STORAGE_DTYPES, Storage
from ._unpickler import unpickle

ARCHIVE = "archive"  # the top folder; torch.save names it after the file, any name loads
_ALIGN = 64
_VERSION = b"3\n"
ZIP64_LIMIT = 0xFFFFFFFF  # a module constant so that tests can exercise the zip64 records
MAX_RECORDS = 100_000  # as the safetensors reader's tensor cap
_CRC_CHUNK = 1 << 24


# -------------------------------------------------------------------------------------- write

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


def write(prepared: tuple[bytes, list], out: IO[bytes]) -> None:
    """Write a prepared object as a PyTorch checkpoint, streaming each storage from memory."""
    pkl, arrays = prepared
    records = [("data.pkl", pkl), (".format_version", b"1"), (".storage_alignment", b"64"),
               ("byteorder", b"little")]
    records += [(f"data/{i}", arr) for i, arr in enumerate(arrays)]
    records.append(("version", _VERSION))
    pos, central = 0, []
    for name, payload in records:
        view = memoryview(payload) if isinstance(payload, bytes) else _bytes_of(payload)
        full = f"{ARCHIVE}/{name}".encode("ascii")
        size, crc = len(view), _crc(view)
        zip64 = size >= ZIP64_LIMIT or pos >= ZIP64_LIMIT
        extra = struct.pack("<HHQQ", 1, 16, size, size) if zip64 else b""
        # pad the local header's extra field so the data starts on a 64-byte boundary
        pad = -(pos + 30 + len(full) + len(extra) + 4) % _ALIGN
        extra += b"FB" + struct.pack("<H", pad) + b"Z" * pad
        small = 0xFFFFFFFF if zip64 else size
        out.write(struct.pack("<IHHHHHIIIHH", 0x04034B50, 45 if zip64 else 20, 0, 0, 0, 0, crc,
                              small, small, len(full), len(extra)))
        out.write(full)
        out.write(extra)
        out.write(view)
        central.append((full, crc, size, pos, zip64))
        pos += 30 + len(full) + len(extra) + size
    cd_start = pos
    for full, crc, size, offset, zip64 in central:
        if zip64:
            extra = struct.pack("<HHQQQ", 1, 24, size, size, offset)
            small, off32 = 0xFFFFFFFF, 0xFFFFFFFF
        else:
            extra, small, off32 = b"", size, offset
        entry = struct.pack("<IHHHHHHIIIHHHHHII", 0x02014B50, 45 if zip64 else 20,
                            45 if zip64 else 20, 0, 0, 0, 0, crc, small, small, len(full),
                            len(extra), 0, 0, 0, 0, off32)
        out.write(entry + full + extra)
        pos += len(entry) + len(full) + len(extra)
    cd_size, count = pos - cd_start, len(central)
    if cd_start >= ZIP64_LIMIT or count >= 0xFFFF:
        out.write(struct.pack("<IQHHIIQQQQ", 0x06064B50, 44, 45, 45, 0, 0, count, count, cd_size,
                              cd_start))
        out.write(struct.pack("<IIQI", 0x07064B50, 0, pos, 1))
        out.write(struct.pack("<IHHHHIIH", 0x06054B50, 0, 0, 0xFFFF, 0xFFFF, 0xFFFFFFFF,
                              0xFFFFFFFF, 0))
    else:
        out.write(struct.pack("<IHHHHIIH", 0x06054B50, 0, 0, count, count, cd_size, cd_start, 0))


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
