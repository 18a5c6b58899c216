"""``Size`` (a shape that prints as PyTorch's) and ``device`` (any name constructs; only the CPU holds tensors)."""
from __future__ import annotations

from . import _meta_data
from ._dtype import SHOWN_AS


class Size(tuple):
    """A tensor's shape: a tuple that prints as ``tinytorch.Size([2, 3])``."""

    __module__ = "tinytorch"  # the package, as PyTorch's torch.Size
    def __repr__(self) -> str:
        return f"{SHOWN_AS[0]}.Size([{', '.join(str(d) for d in self)}])"

    __str__ = __repr__

    def numel(self) -> int:
        n = 1
        for d in self:
            n *= d
        return n

    def __getitem__(self, key):
        out = tuple.__getitem__(self, key)
        return Size(out) if isinstance(key, slice) else out

    def __add__(self, other):
        return Size(tuple.__add__(self, tuple(other)))

    def __radd__(self, other):
        return Size(tuple(other) + tuple(self))

    def __mul__(self, n):
        return Size(tuple.__mul__(self, n))

    __rmul__ = __mul__

    def __reduce__(self):
        return (Size, (tuple(self),))


_DEVICE_TYPES = ("cpu", "cuda", "ipu", "xpu", "mkldnn", "opengl", "opencl", "ideep", "hip", "ve", "fpga", "maia",
                 "xla", "lazy", "vulkan", "mps", "meta", "hpu", "mtia", "privateuseone")


class device:
    """A device name. Any of PyTorch's device types constructs (no device is needed for that), but
    tensors live on the CPU only: moving one elsewhere raises PyTorch's error (``_require_cpu``)."""

    __slots__ = ("type", "index")
    __module__ = "tinytorch"

    def __init__(self, type="cpu", index=None):
        if isinstance(type, device):
            type, index = type.type, type.index if index is None else index
        elif isinstance(type, int) and not isinstance(type, bool):
            raise RuntimeError("Cannot access accelerator device when none is available.")
        elif not isinstance(type, str):
            raise TypeError(f"device() received an invalid combination of arguments - got ({_tname(type)})")
        else:
            name, sep, idx = type.partition(":")
            if name not in _DEVICE_TYPES:
                raise RuntimeError(f"Expected one of {', '.join(_DEVICE_TYPES)} device type at start of device "
                                   f"string: {type}")
            if sep:
                if not idx.isdigit() or (len(idx) > 1 and idx[0] == "0") or index is not None:
                    raise RuntimeError(f"Invalid device string: '{type}'")
                index = int(idx)
            type = name
        if index is not None and index < 0:
            raise RuntimeError("Device index must not be negative")
        self.type = type
        self.index = index

    def __repr__(self) -> str:
        if self.index is None:
            return f"device(type='{self.type}')"
        return f"device(type='{self.type}', index={self.index})"

    def __str__(self) -> str:
        return self.type if self.index is None else f"{self.type}:{self.index}"

    def __eq__(self, other) -> bool:
        # as PyTorch: a device never equals a string, and "cpu" differs from "cpu:0"
        return isinstance(other, device) and self.type == other.type and self.index == other.index

    def __hash__(self) -> int:
        return hash((self.type, self.index))

    def __reduce__(self):
        return (device, (self.type, self.index))

    def __enter__(self):
        # the factories of the block make tensors here: the CPU, or the meta device (no values); another
        # device could never hold them (TT: raise early)
        if self.type != "meta":
            _require_cpu(self)
        _meta_data.enter_default(self.type == "meta")
        return self

    def __exit__(self, *exc) -> None:
        _meta_data.exit_default()
        return None


def _tname(x) -> str:
    return type(x).__name__


def _require_cpu(dev) -> None:
    """Raise PyTorch's error (a CPU-only build's) unless ``dev`` names the CPU."""
    d = dev if isinstance(dev, device) else device(dev)
    if d.type == "cpu":
        return
    if d.type == "cuda":
        raise AssertionError("Torch not compiled with CUDA enabled")
    if d.type == "mps":
        raise RuntimeError("PyTorch is not linked with support for mps devices")
    raise RuntimeError(f"tinytorch runs on the CPU only; got device '{d}'")
