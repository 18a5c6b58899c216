"""Keep large temporaries in the heap: glibc's malloc settings, applied once at import.

By default glibc serves every allocation over 128 KiB-32 MiB (its mmap threshold adapts) with a fresh
mmap and gives it back on free, so each new activation or gradient array of a training step is new
memory from the OS: the first touch of every 4 KiB page is a page fault. At batch 1024 that is about
2,000 faults and several milliseconds of system time per step. Raising the mmap threshold and the trim
threshold keeps freed blocks in the heap for the next step to reuse, as PyTorch's CPU allocator
effectively does. Elsewhere than glibc this does nothing."""
from __future__ import annotations

import os
import sys

_M_TRIM_THRESHOLD = -1
_M_MMAP_THRESHOLD = -3
_HEAP_LIMIT = 1 << 30  # blocks up to 1 GiB come from the heap and stay there once freed


def tune_malloc() -> bool:
    """Raise glibc's mmap and trim thresholds; False where that is not glibc, not allowed, or switched
    off with ``TINYTORCH_NO_MALLOPT=1`` (the setting is the whole process's, not tinytorch's alone)."""
    if not sys.platform.startswith("linux") or os.environ.get("TINYTORCH_NO_MALLOPT") == "1":
        return False
    try:
        import ctypes

        libc = ctypes.CDLL(None)
        mallopt = libc.mallopt
    except (OSError, AttributeError):
        return False
    mallopt.argtypes = (ctypes.c_int, ctypes.c_int)
    mallopt.restype = ctypes.c_int
    # the trim threshold first: without it, freeing a big block would still hand it back to the OS
    return bool(mallopt(_M_TRIM_THRESHOLD, _HEAP_LIMIT)) and bool(mallopt(_M_MMAP_THRESHOLD, _HEAP_LIMIT))
