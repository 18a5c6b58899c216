"""Checkpoints: ``save`` and ``load`` in PyTorch's zip format or safetensors, never running code.

Formats (``_torchzip``, ``_safetensors``): ``save`` writes PyTorch's own zip format by default, so
``torch.load(path)`` opens a tinytorch checkpoint with its defaults, and a safetensors file for a
path ending in ``.safetensors`` or with ``format="safetensors"``. ``load`` tells the formats apart
by their first bytes and reads both, and safetensors files written by earlier tinytorch versions.

Safety: with ``weights_only=True`` (the default) the pickle inside a PyTorch checkpoint is read
by ``_unpickler``, an interpreter of the pickle opcodes that builds only tensors, storages, plain
containers and the classes and functions a user marked safe (``add_safe_globals``,
``safe_globals``), refusing any other global with PyTorch's ``UnpicklingError``; a safetensors
file is JSON plus raw bytes. A whole model (any object that is not plain data) is saved as
``torch.save`` saves it: PyTorch's zip format, its classes named by import path
(``tinytorch.nn.modules.linear.Linear``). ``weights_only=False`` unpickles with ``pickle``, as
PyTorch does, mapping PyTorch's classes (``torch.nn.modules.linear.Linear``) to tinytorch's: only
for files from a source you trust. Every malformed file raises ``SerializationError``, in time
and memory proportional to the file."""
from __future__ import annotations

import contextlib
import io
import os
import pickle
import struct
import warnings
from typing import IO, Any, Callable, Dict, Optional, Union

from .._size import device
from ..storage import TypedStorage, UntypedStorage
from . import _not_checkpoint, _safetensors
from ._atomic import atomic_write
from ._errors import CUDA_MESSAGE, SerializationError
from ._safe_globals import add_safe_globals, clear_safe_globals, get_safe_globals, safe_globals
from ._safetensors import MAX_HEADER_BYTES, MAX_TENSORS, NotPlain

__all__ = ["save", "load", "SerializationError", "MAX_HEADER_BYTES", "MAX_TENSORS",
           "add_safe_globals", "clear_safe_globals", "get_safe_globals", "safe_globals",
           "get_unsafe_globals_in_checkpoint"]

FileLike = Union[str, os.PathLike, IO[bytes]]
FILE_LIKE = FileLike

# PyTorch's module constants, which libraries import by name (pyro: MAP_LOCATION in annotations). The sizes and the
# magic number are those of PyTorch's legacy format, which tinytorch reads (``_LEGACY_MAGIC`` below is its start)
DEFAULT_PROTOCOL = 2
LONG_SIZE = struct.Struct("=l").size
INT_SIZE = struct.Struct("=i").size
SHORT_SIZE = struct.Struct("=h").size
MAGIC_NUMBER = 0x1950A86A20F9469CFC6C
PROTOCOL_VERSION = 1001
STORAGE_KEY_SEPARATOR = ","
MAP_SHARED, MAP_PRIVATE = 1, 2  # ``from_file``'s ``shared`` modes, as mmap's flags
STORAGE = Union[UntypedStorage, TypedStorage]
MAP_LOCATION = Optional[Union[Callable[[Any, str], Any], device, str, Dict[str, str]]]

# read as a header length, its first 8 bytes are far past the cap: never mistaken for safetensors
_PICKLE_MAGIC = b"tinytorch.pickle\n"
_ZIP_MAGIC = b"PK\x03\x04"
# what torch.save(..., _use_new_zipfile_serialization=False) starts with: PROTO 2, LONG1 magic
_LEGACY_MAGIC = b"\x80\x02\x8a\x0al\xfc\x9cF\xf9 j\xa8P\x19"
_FORMATS = ("pytorch", "safetensors")
_UNSAFE = ("Re-running tinytorch.load with weights_only=False will unpickle it, which can run "
           "arbitrary code: do it only if you got the file from a trusted source.")


# ---------------------------------------------------------------------------------------- save

def save(obj: Any, f: FileLike, pickle_module: Any = pickle, pickle_protocol: int = 2,
         _use_new_zipfile_serialization: bool = True, _disable_byteorder_record: bool = False,
         *, format: str | None = None) -> None:
    """Write ``obj`` to a path (atomically) or binary file: PyTorch's zip format, or safetensors
    for a ``.safetensors`` path or ``format="safetensors"``. A whole model (anything beyond tensors
    and plain data) goes in PyTorch's format as ``torch.save`` writes it, its classes named by
    import path; only in safetensors form is it pickled under tinytorch's own signature. The
    PyTorch-format file holds torch.save's bytes for the same object, its folder named after the
    file's stem."""
    if format is None:
        is_path = isinstance(f, (str, os.PathLike))
        format = ("safetensors" if is_path and os.fspath(f).endswith(".safetensors")
                  else "pytorch")
    if format not in _FORMATS:
        raise ValueError(f"format must be one of {', '.join(map(repr, _FORMATS))}, got {format!r}")
    try:
        if format == "safetensors":
            blob = _safetensors.write(obj)

            def fill(out):
                out.write(blob)
        else:
            _torchzip = _zip_format()

            # the archive's folder is the file's stem, as torch.save names it (the final name's, not the
            # temp file's); checked before anything is pickled or created, as PyTorch opens its writer first
            archive = (_torchzip.archive_name(f) if isinstance(f, (str, os.PathLike))
                       else _torchzip.ARCHIVE)
            try:
                prepared = _torchzip.prepare(obj)  # NotPlain is raised before anything reaches ``f``
            except NotPlain:  # a whole model, say: pickled by its classes' import paths
                prepared = _torchzip.prepare(obj, full=True)

            def fill(out):
                _torchzip.write(prepared, out, archive, not _disable_byteorder_record)
    except NotPlain:
        def fill(out):
            out.write(_PICKLE_MAGIC)
            pickle_module.dump(obj, out, protocol=pickle_protocol)

    if isinstance(f, (str, os.PathLike)):
        atomic_write(f, fill)
    else:
        fill(f)


# ---------------------------------------------------------------------------------------- load

def load(f: FileLike, map_location: Any = None, pickle_module: Any = None, *,
         weights_only: bool | None = None, mmap: bool | None = None,
         **pickle_load_args: Any) -> Any:
    """Read a PyTorch zip checkpoint or a safetensors file, building only tensors and plain data;
    a pickle that tinytorch.save wrote is unpickled only with weights_only=False."""
    if weights_only is None:
        weights_only = pickle_module is None
    if weights_only and pickle_module is not None:
        raise RuntimeError("Can not safely load weights when explicit pickle_module is specified")
    if weights_only and pickle_load_args:
        warnings.warn("pickle_load_args only works if `weights_only=False`.", stacklevel=2)
    _check_map_location(map_location)
    unpickle = None if weights_only else (pickle_module or pickle, pickle_load_args)
    if isinstance(f, (str, os.PathLike)):
        # mmap=True is accepted: tensors are read into memory either way
        with open(f, "rb") as fh:
            return _load_stream(fh, unpickle, map_location)
    if mmap:
        raise ValueError("f must be a file path in order to use the mmap argument")
    _check_file_object(f)
    return _load_stream(f, unpickle, map_location)


def _check_file_object(f: Any) -> None:
    """PyTorch's refusal of what is no file (bytes, a bytearray: it asks for a seekable file object)."""
    for method in ("seek", "tell"):
        if not hasattr(f, method):
            raise AttributeError(f"{type(f).__name__!r} object has no attribute {method!r}. You can only torch.load "
                                 "from a file that is seekable. Please pre-load the data into a buffer like "
                                 "io.BytesIO and try to load from it instead.")


def get_unsafe_globals_in_checkpoint(f: FileLike) -> list:
    """The globals (``module.name``) a checkpoint's pickle names that a weights-only load would refuse: neither
    tinytorch's allowlist nor the user's safe globals hold them. The pickle is read statically, never run."""
    with (open(f, "rb") if isinstance(f, (str, os.PathLike)) else contextlib.nullcontext(f)) as fh:
        fh, size = _sized(fh)
        start = fh.tell()
        if fh.read(len(_ZIP_MAGIC)) != _ZIP_MAGIC:
            raise ValueError("Expected input to be a checkpoint returned by torch.save")
        fh.seek(start)
        return _zip_format().unsafe_globals(fh, size)


def _zip_format():
    """The PyTorch zip format's module, imported on first use: keeps `import tinytorch` quick."""
    from . import _torchzip
    return _torchzip


def _check_map_location(map_location: Any) -> None:
    # a callable remaps storages; tinytorch has only CPU ones, so it has nothing to do
    if map_location is None or callable(map_location):
        return
    targets = map_location.values() if isinstance(map_location, dict) else (map_location,)
    for target in targets:
        kind = str(target).split(":")[0]
        if kind == "cuda":
            raise RuntimeError(CUDA_MESSAGE)
        if kind != "cpu":
            raise RuntimeError(f"don't know how to restore data location of tinytorch storage "
                               f"(tagged with {target}); tinytorch has only the CPU")


def _load_stream(fh: IO[bytes], unpickle, map_location: Any) -> Any:
    fh, size = _sized(fh)
    start = fh.tell()
    head = fh.read(min(size, 9))
    if head[:8] == _PICKLE_MAGIC[:8]:
        fh.seek(start + 8)
        return _load_own_pickle(fh, size, unpickle)
    if head.startswith(_ZIP_MAGIC) or head[:8] == _LEGACY_MAGIC[:8]:
        _torchzip = _zip_format()
        fh.seek(start)
        if head.startswith(_ZIP_MAGIC):
            return _torchzip.read(fh, size, map_location, unpickle)
        return _torchzip.read_legacy(fh, map_location, unpickle)
    if head[8:9] == b"{":  # a safetensors file: an 8-byte header length, then its JSON header
        fh.seek(start + 8)
        return _safetensors.read(fh, size, head[:8])
    raise _not_checkpoint.error(fh, start, size, unpickle)


def _sized(fh: IO[bytes]) -> tuple[IO[bytes], int]:
    """The stream and the bytes left in it; a stream without seek or readinto is read first."""
    try:
        if not hasattr(fh, "readinto"):
            raise AttributeError
        start = fh.tell()
        end = fh.seek(0, os.SEEK_END)
        fh.seek(start)
        return fh, end - start
    except (AttributeError, OSError):  # io.UnsupportedOperation is an OSError
        data = fh.read()
        return io.BytesIO(data), len(data)


def _load_own_pickle(fh: IO[bytes], size: int, unpickle) -> Any:
    if size < len(_PICKLE_MAGIC) or fh.read(len(_PICKLE_MAGIC) - 8) != _PICKLE_MAGIC[8:]:
        raise SerializationError("not a checkpoint: unknown file signature")
    if unpickle is None:
        raise SerializationError(
            "Weights only load failed: this file holds a pickled Python object (tinytorch.save "
            "pickles objects that are not only tensors, numbers, strings, bools, None, lists, "
            "tuples, sets and dicts), and tinytorch.load never unpickles with weights_only=True. "
            + _UNSAFE)
    module, kwargs = unpickle
    try:
        return module.load(fh, **kwargs)
    except (EOFError, pickle.UnpicklingError) as e:
        raise SerializationError(f"the pickled object is truncated or corrupt: {e}") from e


