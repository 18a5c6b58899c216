"""Strict reading of IDX files (the MNIST format), raw or gzipped.

An IDX file is a 4-byte magic number (two zero bytes, a dtype code, the number of dimensions),
one big-endian int32 per dimension, then the values. Every field is checked and every failure is
a ValueError that names the file and the field, so a truncated download or an interrupted
extraction is reported as such instead of surfacing later as a reshape error."""
from __future__ import annotations

import gzip
import os
import zlib

import numpy as np

__all__ = ["read_idx_file", "parse_idx"]

_UBYTE_CODE = 0x08
_CODE_NAMES = {0x08: "unsigned byte", 0x09: "signed byte", 0x0B: "int16", 0x0C: "int32",
               0x0D: "float32", 0x0E: "float64"}


def _header(buf: bytes, name: str, ndim: int, item_shape: tuple, size: int | None = None) -> tuple[tuple, int]:
    """The dims and the header's length read from an IDX file's first bytes, every field checked against
    ``ndim`` and ``item_shape`` (``size``: the whole file's length, when ``buf`` holds only its start)."""
    size = len(buf) if size is None else size
    if len(buf) < 4:
        raise ValueError(f"{name}: magic number: the file is {size} bytes long, too short for the "
                         "4-byte IDX magic number")
    if buf[0] != 0 or buf[1] != 0:
        magic = int.from_bytes(buf[:4], "big")
        raise ValueError(f"{name}: magic number 0x{magic:08X} is not an IDX magic number (its "
                         "first two bytes must be zero)")
    code, file_ndim = buf[2], buf[3]
    if code != _UBYTE_CODE:
        kind = _CODE_NAMES.get(code, "unknown")
        raise ValueError(f"{name}: dtype code 0x{code:02X} ({kind}) in the magic number; MNIST "
                         f"files hold unsigned bytes (0x{_UBYTE_CODE:02X})")
    if file_ndim != ndim:
        raise ValueError(f"{name}: number of dimensions is {file_ndim}; expected {ndim}")
    header = 4 + 4 * ndim
    if len(buf) < header:
        raise ValueError(f"{name}: header: the file is {size} bytes long and ends inside the "
                         f"{header}-byte header")
    dims = tuple(int(d) for d in np.frombuffer(buf, dtype=">i4", count=ndim, offset=4))
    if dims[1:] != tuple(item_shape):
        raise ValueError(f"{name}: dims are {'x'.join(map(str, dims[1:]))}; expected "
                         f"{'x'.join(map(str, item_shape))}")
    if dims[0] < 0:
        raise ValueError(f"{name}: dims: the item count {dims[0]} is negative")
    return dims, header


def _check_payload(name: str, payload: int, dims: tuple) -> int:
    """The payload's length in bytes, which must be what the header's dims describe."""
    expected = int(np.prod(dims, dtype=np.int64))
    if payload < expected:
        raise ValueError(f"{name}: payload is {payload} bytes but the header's dims {list(dims)} "
                         f"need {expected}: the file is truncated")
    if payload > expected:
        raise ValueError(f"{name}: payload has {payload - expected} trailing bytes after the "
                         f"{expected} that the header's dims {list(dims)} describe")
    return expected


def parse_idx(buf: bytes, name: str, ndim: int, item_shape: tuple = ()) -> np.ndarray:
    """The uint8 array in an IDX file's bytes, checked against ``ndim`` and ``item_shape``."""
    dims, header = _header(buf, name, ndim, item_shape)
    expected = _check_payload(name, len(buf) - header, dims)
    # a copy, so the dataset owns writable memory rather than a view of the file's bytes
    return np.frombuffer(buf, dtype=np.uint8, count=expected, offset=header).reshape(dims).copy()


_CHUNK = 1 << 20


def _check_count(path: str, count: int, max_items, what: str) -> None:
    if max_items is not None and count > max_items:
        raise ValueError(f"{path}: the header claims {count} items; {what} has at most {max_items}, so "
                         f"the file is not what it should be (it was not read further)")


def _read_bytes(path: str, ndim: int, item_shape: tuple, max_items=None, what: str = "") -> bytes:
    """The IDX file's bytes, read only once its header (every field, and the size it gives) holds."""
    if not path.endswith(".gz"):
        with open(path, "rb") as f:
            size = os.fstat(f.fileno()).st_size
            head = f.read(4 + 4 * ndim)
            dims, header = _header(head, path, ndim, item_shape, size)
            _check_count(path, dims[0], max_items, what)
            _check_payload(path, size - header, dims)
            return head + f.read()
    try:
        with gzip.open(path, "rb") as f:
            return _inflate_bounded(f, path, ndim, item_shape, max_items, what)
    except (OSError, EOFError, zlib.error) as err:
        raise ValueError(f"{path}: gzip stream is corrupt or truncated ({err})") from err


def _inflate_bounded(f, path: str, ndim: int, item_shape: tuple, max_items=None, what: str = "") -> bytes:
    """The decompressed IDX file, never inflating past the size its own header describes.

    The header comes first, and every field of it is checked before anything more is inflated (a wrong
    item shape, dtype or rank would otherwise be found only in the whole output); the payload is then
    read in chunks up to that size and one byte more, so a small ``.gz`` that inflates to gigabytes (a
    gzip bomb) is refused as soon as its output passes the size, and truncation is left to ``parse_idx``."""
    head = f.read(4 + 4 * ndim)
    dims, _ = _header(head, path, ndim, item_shape)
    _check_count(path, dims[0], max_items, what)
    expected = int(np.prod(dims, dtype=np.int64))
    chunks, got = [head], 0
    while got <= expected:
        chunk = f.read(min(_CHUNK, expected + 1 - got))
        if not chunk:
            break
        chunks.append(chunk)
        got += len(chunk)
    if got > expected:
        raise ValueError(f"{path}: payload has trailing bytes after the {expected} that the "
                         f"header's dims {list(dims)} describe: the gzip stream inflates past the "
                         f"{len(head) + expected} bytes of its IDX file, so decompression stopped "
                         f"there")
    return b"".join(chunks)


def read_idx_file(folder: str, basename: str, ndim: int, item_shape: tuple = (), max_items=None,
                  what: str = "") -> tuple[np.ndarray, str]:
    """Read ``basename`` from ``folder``: the extracted raw file if present, else ``basename.gz``.

    A raw file that fails validation while the .gz beside it is present is taken for an interrupted
    extraction and the .gz is read instead. A header claiming more than ``max_items`` items (``what``
    says whose bound it is) is refused before the payload is read. Returns the array and the path
    actually read."""
    raw_path = os.path.join(folder, basename)
    gz_path = raw_path + ".gz"
    if os.path.exists(raw_path):
        try:
            return parse_idx(_read_bytes(raw_path, ndim, item_shape, max_items, what), raw_path, ndim,
                             item_shape), raw_path
        except ValueError:
            if not os.path.exists(gz_path):
                raise
    return parse_idx(_read_bytes(gz_path, ndim, item_shape, max_items, what), gz_path, ndim, item_shape), gz_path
