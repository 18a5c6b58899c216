"""Fetching dataset files from a list of mirrors, with MD5 checks and atomic placement.

Each attempt streams into a temporary file beside the target, checks its MD5, then renames it
into place, so the target path only ever holds a complete, verified file. A failed attempt (HTTP
error, refused connection, short body, wrong checksum such as an HTML error page) removes its
temporary file and moves on to the next mirror. The library prints nothing."""
from __future__ import annotations

import hashlib
import http.client
import os
import tempfile
import urllib.error
import urllib.request

__all__ = ["download_from_mirrors"]

_CHUNK = 1 << 20
_TIMEOUT_S = 60


class ChecksumError(OSError):
    """The downloaded bytes do not have the expected MD5."""


def _fetch(url: str, target: str, md5: str | None, timeout: float) -> None:
    folder = os.path.dirname(target) or "."
    fd, tmp = tempfile.mkstemp(prefix=f".{os.path.basename(target)}.", suffix=".part", dir=folder)
    try:
        digest = hashlib.md5()
        request = urllib.request.Request(url, headers={"User-Agent": "tinytorch"})
        with os.fdopen(fd, "wb") as out, \
                urllib.request.urlopen(request, timeout=timeout) as response:
            while chunk := response.read(_CHUNK):
                digest.update(chunk)
                out.write(chunk)
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
                          timeout: float = _TIMEOUT_S) -> str:
    """Download ``filename`` into ``folder`` from the first mirror with it intact; return its path.

    Raises RuntimeError "Error downloading <filename>" when every mirror fails; the last failure is
    chained as its cause."""
    os.makedirs(folder, exist_ok=True)
    target = os.path.join(folder, filename)
    last_error = None
    for mirror in mirrors:
        try:
            _fetch(f"{mirror}{filename}", target, md5, timeout)
            return target
        except (urllib.error.URLError, http.client.HTTPException, OSError) as err:
            last_error = err
    raise RuntimeError(f"Error downloading {filename}") from last_error
