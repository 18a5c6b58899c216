"""The one error every malformed or unsafe checkpoint raises."""
from __future__ import annotations

import pickle
import reprlib

# a few items per level and a few levels: the repr of a DAG of shared lists stays small (plain repr
# of a 24-level DAG of pairs is 2**24 copies of its leaves)
_SHORT = reprlib.Repr()
_SHORT.maxlevel = 3
_SHORT.maxtuple = _SHORT.maxlist = _SHORT.maxdict = _SHORT.maxset = _SHORT.maxfrozenset = 4
_SHORT.maxstring, _SHORT.maxlong, _SHORT.maxother = 60, 40, 40


class SerializationError(ValueError):
    """A checkpoint that is malformed, truncated, or cannot be loaded safely."""


class NotACheckpointError(SerializationError):
    """A file that holds no checkpoint ``load`` reads. ``not_a_checkpoint`` makes one that is also of the type
    PyTorch's ``torch.load`` raises for the same file, so that ``except <that type>`` catches it too."""

    def __str__(self) -> str:
        return str(self.args[0]) if self.args else ""  # (KeyError's own str() would quote the message)


_ALSO: dict = {}


def _also(like: type) -> type:
    """The NotACheckpointError class that is also a ``like``."""
    cls = _ALSO.get(like)
    if cls is None:
        body = {"__module__": __name__, "__qualname__": "NotACheckpointError"}
        if issubclass(like, UnicodeError):  # its constructor takes five arguments
            body["__init__"] = lambda self, message: like.__init__(self, "utf-8", b"", 0, 0, message)
            body["__str__"] = lambda self: self.reason
        cls = _ALSO[like] = type("NotACheckpointError", (NotACheckpointError, like), body)
    return cls


def not_a_checkpoint(message: str, like: type = SerializationError) -> NotACheckpointError:
    """The error for a file that is no checkpoint (or a broken one): a ``SerializationError`` that ``except like``
    catches too, ``like`` being PyTorch's exception type for the same file."""
    if issubclass(NotACheckpointError, like):
        return NotACheckpointError(message)
    return _also(like)(message)


def describe(x, limit: int = 80) -> str:
    """A short repr for messages that never fails: ``str`` of a huge int raises in Python >= 3.11."""
    if type(x) is int and x.bit_length() > 64:
        return f"<an int of {x.bit_length()} bits>"
    try:
        text = _SHORT.repr(x)
    except Exception:  # a deeply nested or otherwise unprintable value
        text = f"<a {type(x).__name__}>"
    return text if len(text) <= limit else text[:limit] + "..."


CUDA_MESSAGE = ("Attempting to deserialize object on a CUDA device but "
                "tinytorch.cuda.is_available() is False. If you are running on a CPU-only "
                "machine, please use tinytorch.load with map_location=tinytorch.device('cpu') "
                "to map your storages to the CPU.")


class WeightsOnlyError(SerializationError, pickle.UnpicklingError):
    """A weights-only load met something it may not build: PyTorch's ``UnpicklingError``, and a
    ``SerializationError`` like every other refused checkpoint."""


_UNSAFE_HINT = (
    "In PyTorch 2.6, we changed the default value of the `weights_only` argument in `torch.load` "
    "from `False` to `True`. Re-running `torch.load` with `weights_only` set to `False` will "
    "likely succeed, but it can result in arbitrary code execution. Do it only if you got the "
    "file from a trusted source.")
_DOCS_HINT = ("\n\nCheck the documentation of torch.load to learn more about types accepted by "
              "default with weights_only https://pytorch.org/docs/stable/generated/torch.load.html.")


def unsupported_global(full_path: str) -> WeightsOnlyError:
    """PyTorch's refusal of a global that no allowlist holds, word for word: it names the class
    and the call that allows it."""
    return WeightsOnlyError(
        "Weights only load failed. This file can still be loaded, to do so you have two options, "
        "\033[1mdo those steps only if you trust the source of the checkpoint\033[0m. "
        f"\n\t(1) {_UNSAFE_HINT}\n\t(2) Alternatively, to load with `weights_only=True` please "
        "check the recommended steps in the following error message.\n\tWeightsUnpickler error: "
        f"Unsupported global: GLOBAL {full_path} was not an allowed global by default. Please "
        f"use `torch.serialization.add_safe_globals([{full_path}])` or the "
        f"`torch.serialization.safe_globals([{full_path}])` context manager to allowlist this "
        f"global if you trust this class/function." + _DOCS_HINT)


def weights_only_failed(message: str) -> WeightsOnlyError:
    """PyTorch's wrapper around any other refusal of its weights-only unpickler."""
    return WeightsOnlyError(
        f"Weights only load failed. {_UNSAFE_HINT}\nPlease file an issue with the following so "
        f"that we can make `weights_only=True` compatible with your use case: WeightsUnpickler "
        f"error: \n\n{message}" + _DOCS_HINT)


BLOCKED_MODULES = ("sys", "os", "posix", "nt")  # never loaded, even when a user allows them


def blocked_global(full_path: str, module: str) -> WeightsOnlyError:
    """PyTorch's refusal of a global from a module it never allows (``os``, ``sys``...)."""
    return WeightsOnlyError(
        f"Weights only load failed. {_UNSAFE_HINT}\n\n\nTrying to load unsupported GLOBAL "
        f"{full_path} whose module {module} is blocked." + _DOCS_HINT)
