"""The one error every malformed or unsafe checkpoint raises."""
from __future__ import annotations

import reprlib

# a few items per level and a few levels: the repr of a DAG of shared lists stays small (plain repr
# of a 24-level DAG of pairs is 2**24 copies of its leaves)
_SHORT = reprlib.Repr()
_SHORT.maxlevel = 3
_SHORT.maxtuple = _SHORT.maxlist = _SHORT.maxdict = _SHORT.maxset = _SHORT.maxfrozenset = 4
_SHORT.maxstring, _SHORT.maxlong, _SHORT.maxother = 60, 40, 40


class SerializationError(ValueError):
    """A checkpoint that is malformed, truncated, or cannot be loaded safely."""


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
