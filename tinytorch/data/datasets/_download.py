"""Fetching dataset files from a list of mirrors, with MD5 checks and atomic placement.

Each attempt streams into a temporary file beside the target, checks its MD5, then renames it
into place, so the target path only ever holds a complete, verified file. A failed attempt (HTTP
error, refused connection, short body, wrong checksum such as an HTML error page) removes its
temporary file and moves on to the next mirror. The library prints nothing.

Each file has a total deadline as well as the per-read timeout (a mirror that drips a byte at a
time would never trip the latter), and, where its size is known, a size cap: a body longer than
the file can be is abandoned at the first byte past it instead of being written out whole."""
from __future__ import annotations

import hashlib
import http.client
import os
import tempfile
import time
import urllib.error
import urllib.request

__all__ = ["download_from_mirrors"]

_CHUNK = 1 << 20
_TIMEOUT_S = 60
_DEADLINE_S = 900  # per file and mirror: 26 MB at 30 KB/s still fits


class ChecksumError(OSError):
    """The downloaded bytes do not have the expected MD5."""


class SizeError(OSError):
    """The mirror sends more bytes than the file has."""


def _fetch(url: str, target: str, md5: str | None, timeout: float, deadline_s: float,
           max_bytes: int | None) -> None:
    folder = os.path.dirname(target) or "."
    fd, tmp = tempfile.mkstemp(prefix=f".{os.path.basename(target)}.", suffix=".part", dir=folder)
    try:
        digest = hashlib.md5()
        request = urllib.request.Request(url, headers={"User-Agent": "tinytorch"})
        deadline = time.monotonic() + deadline_s
        with os.fdopen(fd, "wb") as out, \
                urllib.request.urlopen(request, timeout=min(timeout, deadline_s)) as response:
            declared = response.headers.get("Content-Length", "")
            if max_bytes is not None and declared.isdigit() and int(declared) > max_bytes:
                raise SizeError(f"{url} announces {declared} bytes; the file has {max_bytes}")
            got = 0
            # read1: whatever has arrived, so the deadline is checked between small reads too
            while chunk := response.read1(_CHUNK):
                got += len(chunk)
                if max_bytes is not None and got > max_bytes:
                    raise SizeError(f"{url} sends more than the {max_bytes} bytes the file has")
                digest.update(chunk)
                out.write(chunk)
                if time.monotonic() > deadline:
                    raise TimeoutError(f"{url} did not finish within {deadline_s} s")
            out.flush()
            os.fsync(out.fileno())
        if md5 is not None and digest.hexdigest() != md5:
            raise ChecksumError(f"MD5 of {url} is {digest.hexdigest()}, expected {md5}")
        os.replace(tmp, target)
    except BaseException:
        try:
            os.remove(tmp)
        except FileNotFoundError:
            pass
        raise


def download_from_mirrors(filename: str, md5: str | None, mirrors: list[str], folder: str,
                          timeout: float = _TIMEOUT_S, *, deadline: float | None = None,
                          max_bytes: int | None = None) -> str:
    """Download ``filename`` into ``folder`` from the first mirror with it intact; return its path.

    ``timeout`` bounds each read, ``deadline`` (seconds) each mirror's whole transfer, and
    ``max_bytes`` the body (the file's known size).

    Raises RuntimeError "Error downloading <filename>" when every mirror fails; the last failure is
    chained as its cause."""
    created = _missing_folders(folder)
    os.makedirs(folder, exist_ok=True)
    target = os.path.join(folder, filename)
    last_error = None
    for mirror in mirrors:
        try:
            _fetch(f"{mirror}{filename}", target, md5, timeout,
                   _DEADLINE_S if deadline is None else deadline, max_bytes)
            return target
        except (urllib.error.URLError, http.client.HTTPException, OSError) as err:
            last_error = err
    for path in created:  # a failed download leaves no empty folders behind
        try:
            os.rmdir(path)
        except OSError:
            break  # not empty (another file arrived): keep it and its parents
    raise RuntimeError(f"Error downloading {filename}") from last_error


def _missing_folders(folder: str) -> list:
    """The folders ``os.makedirs(folder)`` would create, deepest first."""
    out = []
    path = os.path.abspath(folder)
    while not os.path.exists(path):
        out.append(path)
        parent = os.path.dirname(path)
        if parent == path:
            break
        path = parent
    return out
