"""``load(..., weights_only=False)`` of a PyTorch checkpoint: ``pickle`` itself, as PyTorch does.

This runs whatever the file's pickle names, so it is only for files from a trusted source. What
it adds to ``pickle.Unpickler``: storages come from the archive (persistent ids), PyTorch's own
globals (tensor rebuild functions, storage types, dtypes, ``Size``, ``device``) build tinytorch's
objects, and any other ``torch.X`` (``torch.nn.modules.linear.Linear``, say) is read as
``tinytorch.X``, so a whole PyTorch model loads as tinytorch modules."""
from __future__ import annotations

import importlib
import io
import pickle
from typing import IO, Any, Callable

import numpy as np

from ._allowlist import STORAGE_DTYPES, Global, Storage, resolve_global
from ._errors import SerializationError, describe, not_a_checkpoint
from ._unpickler import unpickle_at

_LEGACY_MAGIC = 0x1950A86A20F9469CFC6C
_LEGACY_PROTOCOL = 1001


def _tinytorch_counterpart(module: str, name: str) -> Any:
    """tinytorch's object at the path where PyTorch keeps ``module.name``."""
    target = "tinytorch" + module[len("torch"):]
    try:
        found = importlib.import_module(target)
        for part in name.split("."):
            found = getattr(found, part)
        return found
    except (ImportError, AttributeError):
        raise SerializationError(
            f"the checkpoint's pickle names {module}.{name}, which tinytorch does not have (it "
            f"looked for {target}.{name}); load the state_dict instead of the whole object, or "
            f"build the object in tinytorch and load its weights") from None


class _Unpickler:
    """A ``pickle_module.Unpickler`` with PyTorch's globals mapped onto tinytorch."""

    @staticmethod
    def make(pickle_module: Any, data: "bytes | IO[bytes]", persistent_load: Callable,
             kwargs: dict):
        base = getattr(pickle_module, "Unpickler", pickle.Unpickler)

        class Unpickler(base):
            def find_class(self, module: str, name: str) -> Any:
                if module == "torch" or module.startswith("torch."):
                    try:
                        found = resolve_global(module, name)
                    except SerializationError:
                        return _tinytorch_counterpart(module, name)
                    # a rebuild function is called directly; a storage type stays a stand-in
                    return found.build if type(found) is Global and found.build else found
                return super().find_class(module, name)

            def persistent_load(self, pid: Any) -> Any:
                return persistent_load(pid)

        return Unpickler(io.BytesIO(data) if isinstance(data, bytes) else data, **kwargs)


def unpickle(data: bytes, persistent_load: Callable, pickle_module: Any, kwargs: dict) -> Any:
    """The object in ``data``, unpickled by ``pickle_module`` with tinytorch's globals."""
    return _Unpickler.make(pickle_module, data, persistent_load, kwargs).load()


def load_legacy(fh: IO[bytes], check_location: Callable, pickle_module: Any, kwargs: dict) -> Any:
    """PyTorch's format before 1.6 (``_use_new_zipfile_serialization=False``): pickles of a magic
    number, a protocol version and system info, the object, the storage keys; then each storage's
    element count and bytes in that order. Tensors view storages filled after the object is built.
    ``pickle_module`` None reads every pickle with the weights-only interpreter instead."""
    def bad(msg: str, like: type = RuntimeError) -> SerializationError:  # (PyTorch's type for most)
        return not_a_checkpoint(f"malformed legacy PyTorch checkpoint: {msg}", like)

    if pickle_module is None:
        data, pos = fh.read(), 0

        def next_pickle(persistent_load=None):
            nonlocal pos
            if pos >= len(data):  # PyTorch's unpickler: EOFError at the missing pickle's first byte
                raise bad("it ends before all its pickles", EOFError)
            obj, pos = unpickle_at(data, pos, persistent_load or _no_storages)
            fh.seek(pos)  # the storages' bytes follow the last pickle
            return obj

        fh = io.BytesIO(data)  # for the storages after the pickles
    else:
        def next_pickle(persistent_load=None):
            if persistent_load is None:
                return pickle_module.load(fh, **kwargs)
            return _Unpickler.make(pickle_module, fh, persistent_load, kwargs).load()

    try:
        if next_pickle() != _LEGACY_MAGIC:
            raise bad("invalid magic number")
        if next_pickle() != _LEGACY_PROTOCOL:
            raise bad("unknown protocol version")
        next_pickle()  # the saving machine's sys_info
    except (EOFError, pickle.UnpicklingError) as e:
        if isinstance(e, SerializationError):
            raise
        raise bad(str(e) or "it ends before all its pickles", type(e)) from None
    storages: dict = {}

    def persistent_load(pid: Any) -> Any:
        if type(pid) is not tuple or not pid:
            raise bad(f"unknown persistent id {describe(pid)}")
        kind = pid[0].decode("ascii") if isinstance(pid[0], bytes) else pid[0]
        if kind == "module" and pickle_module is not None:  # a class with its source
            return pid[1]
        if kind != "storage" or len(pid) != 6:
            raise bad(f"unknown persistent id {describe(pid)}")
        storage_type, key, location, numel, view = pid[1:]
        short = str(getattr(storage_type, "name", "")).rpartition(".")[2]
        if (short not in STORAGE_DTYPES or getattr(storage_type, "build", 0) is not None
                or type(numel) is not int or numel < 0 or type(location) not in (str, bytes)):
            raise bad(f"persistent id {describe(pid)} is not a storage")
        check_location(location.decode("ascii") if isinstance(location, bytes) else location)
        dtype = STORAGE_DTYPES[short]
        if key not in storages:
            if numel * dtype.itemsize > size_left:  # its bytes must fit in the file
                raise bad(f"storage {describe(key)} claims {numel} elements, past the file's end")
            storages[key] = Storage(str(key), np.empty(numel, dtype=dtype), short)
        root = storages[key]
        if root.array.dtype != dtype:
            raise bad(f"storage {describe(key)} is named with two dtypes")
        if view is None:
            return root
        if (type(view) is not tuple or len(view) != 3 or type(view[1]) is not int
                or type(view[2]) is not int or not 0 <= view[1] <= view[1] + view[2] <= numel):
            raise bad(f"storage view {describe(view)} is malformed")
        view_key, offset, length = view
        if (view_key, key) not in storages:
            storages[(view_key, key)] = Storage(str(view_key), root.array[offset:offset + length])
        return storages[(view_key, key)]

    here = fh.tell()
    size_left = fh.seek(0, 2) - here
    fh.seek(here)
    result = next_pickle(persistent_load)
    keys = next_pickle()
    if type(keys) is not list:
        raise bad(f"the storage keys are not a list: {describe(keys)}")
    for key in keys:
        if type(key) not in (str, int) or key not in storages:
            raise bad(f"storage {describe(key)} is listed but no tensor uses it")
        arr = storages[key].array
        head = fh.read(8)
        count = int.from_bytes(head, "little") if len(head) == 8 else -1
        if count != arr.size:
            raise bad(f"storage {describe(key)} holds {count} elements, expected {arr.size}")
        view = memoryview(arr.view(np.uint8))
        if fh.readinto(view) != arr.nbytes:
            raise bad(f"the file ends inside storage {describe(key)}")
        if arr.dtype.kind == "b" and arr.view(np.uint8).max(initial=0) > 1:
            raise bad(f"storage {describe(key)}: a bool byte is neither 0 nor 1")
    return result


def _no_storages(pid: Any) -> Any:
    raise SerializationError(f"malformed legacy PyTorch checkpoint: a storage id "
                             f"{describe(pid)} outside the object's pickle")
