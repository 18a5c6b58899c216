"""PyTorch's spelling of a tinytorch message, shared by the tests of every package: "tinytorch." read as
"torch.", and the "(Triggered internally at ...)" suffix PyTorch appends to C++ warnings dropped."""
from __future__ import annotations

import re

_TRIGGERED = re.compile(r"\s*\(Triggered internally at [^)]*\)\s*$")


def normalise(text: str) -> str:
    """PyTorch's spelling of a tinytorch message, without C++ provenance."""
    return _TRIGGERED.sub("", text.replace("tinytorch.", "torch."))
