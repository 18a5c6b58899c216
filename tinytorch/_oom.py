"""numpy's MemoryError reported as PyTorch reports a failed allocation: a RuntimeError naming the bytes.

Code that catches PyTorch's out-of-memory error (``except RuntimeError``, or a check for "can't
allocate memory" in its text) works unchanged. The conversion happens where a user's call enters
tinytorch through a wrapper that exists anyway: every torch-level function (the registry's public
function, factories included), module calls and backward; a ``try`` costs nothing until an allocation
fails. Tensor methods and operators are the ops' own functions, with no wrapper (the hot path), so one
called outside a module's forward lets numpy's MemoryError through (README, "Not there yet")."""
from __future__ import annotations


def allocation_error(nbytes: int) -> RuntimeError:
    return RuntimeError(f"[enforce fail at alloc_cpu.cpp:127] err == 0. DefaultCPUAllocator: can't allocate "
                        f"memory: you tried to allocate {nbytes} bytes. Error code 12 (Cannot allocate memory)")


def reraise_as_runtime_error(e: MemoryError):
    """Raise ``e`` again, as PyTorch's RuntimeError when numpy said how many bytes it could not get."""
    nbytes = getattr(e, "_total_size", None)  # numpy's _ArrayMemoryError knows the request
    if nbytes is None:
        raise e
    raise allocation_error(int(nbytes)) from None
