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


def parse_idx(buf: bytes, name: str, ndim: int, item_shape: tuple = ()) -> np.ndarray:
    """The uint8 array in an IDX file's bytes, checked against ``ndim`` and ``item_shape``."""
    size = len(buf)
    if size < 4:
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
    if size < header:
        raise ValueError(f"{name}: header: the file is {size} bytes long and ends inside the "
                         f"{header}-byte header")
    dims = tuple(int(d) for d in np.frombuffer(buf, dtype=">i4", count=ndim, offset=4))
    if dims[1:] != tuple(item_shape):
        raise ValueError(f"{name}: dims are {'x'.join(map(str, dims[1:]))}; expected "
                         f"{'x'.join(map(str, item_shape))}")
    if dims[0] < 0:
        raise ValueError(f"{name}: dims: the item count {dims[0]} is negative")
    expected = int(np.prod(dims, dtype=np.int64))
    payload = size - header
    if payload < expected:
        raise ValueError(f"{name}: payload is {payload} bytes but the header's dims {list(dims)} "
                         f"need {expected}: the file is truncated")
    if payload > expected:
        raise ValueError(f"{name}: payload has {payload - expected} trailing bytes after the "
                         f"{expected} that the header's dims {list(dims)} describe")
    # a copy, so the dataset owns writable memory rather than a view of the file's bytes
    return np.frombuffer(buf, dtype=np.uint8, count=expected, offset=header).reshape(dims).copy()


def _read_bytes(path: str) -> bytes:
    if not path.endswith(".gz"):
        with open(path, "rb") as f:
            return f.read()
    try:
        with gzip.open(path, "rb") as f:
            return f.read()
    except (OSError, EOFError, zlib.error) as err:
        raise ValueError(f"{path}: gzip stream is corrupt or truncated ({err})") from err


def read_idx_file(folder: str, basename: str, ndim: int,
                  item_shape: tuple = ()) -> tuple[np.ndarray, str]:
    """Read ``basename`` from ``folder``: the extracted raw file if present, else ``basename.gz``.

    A raw file that fails validation while the .gz beside it is present is taken for an interrupted
    extraction and the .gz is read instead. Returns the array and the path actually read."""
    raw_path = os.path.join(folder, basename)
    gz_path = raw_path + ".gz"
    if os.path.exists(raw_path):
        try:
            return parse_idx(_read_bytes(raw_path), raw_path, ndim, item_shape), raw_path
        except ValueError:
            if not os.path.exists(gz_path):
                raise
    return parse_idx(_read_bytes(gz_path), gz_path, ndim, item_shape), gz_path
