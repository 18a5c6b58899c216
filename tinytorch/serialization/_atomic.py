"""Atomic checkpoint writes, and removal of the temp files that killed saves leave behind.

A save writes ``.<name>.<12 hex>.tmp`` beside the target, fsyncs it, renames it over the target and
fsyncs the folder, so the target always holds a complete file. A process killed mid-save (SIGKILL,
power loss) leaves its temp file; the next save of the same target removes such leftovers. A temp
file is known to be abandoned when nobody holds the ``flock`` its writer takes for the whole save
(the kernel drops it when the writer dies), so a save running concurrently in another process is
never disturbed."""
from __future__ import annotations

import contextlib
import errno
import io
import os
import re
import secrets
import stat
import time

try:
    import fcntl
except ImportError:  # Windows: no flock, so leftovers are not cleaned up there
    fcntl = None

_WRITE_BUFFER = 1 << 20
_HEX = re.compile(r"[0-9a-f]{12}")
# a temp file this young and still empty may belong to a save that has created it but not yet
# locked it (a window of microseconds); leftovers of killed saves are older or hold bytes
_FRESH_S = 10.0


class _FdWriter(io.RawIOBase):
    """Raw writes to a descriptor through ``os.write`` (which lets a test fail them)."""

    def __init__(self, fd: int):
        self._fd = fd

    def writable(self) -> bool:
        return True

    def write(self, b) -> int:
        return os.write(self._fd, b)

    def close(self) -> None:
        if not self.closed:
            os.close(self._fd)
        super().close()


def _is_temp_of(entry: str, base: str) -> bool:
    prefix = f".{base}."
    return (entry.startswith(prefix) and entry.endswith(".tmp")
            and _HEX.fullmatch(entry[len(prefix):-4]) is not None)


def remove_stale_temps(parent: str, base: str) -> list:
    """Delete the abandoned temp files of target ``base`` in ``parent``; returns their names."""
    if fcntl is None:
        return []
    removed = []
    try:
        entries = os.listdir(parent)
    except OSError:
        return removed
    for entry in entries:
        if not _is_temp_of(entry, base):
            continue
        path = os.path.join(parent, entry)
        try:
            fd = os.open(path, os.O_RDONLY | getattr(os, "O_NOFOLLOW", 0))
        except OSError:
            continue
        try:
            try:
                fcntl.flock(fd, fcntl.LOCK_EX | fcntl.LOCK_NB)
            except OSError:
                continue  # a live save holds it
            st = os.fstat(fd)
            if st.st_size == 0 and time.time() - st.st_mtime < _FRESH_S:
                continue
            with contextlib.suppress(OSError):
                os.unlink(path)
                removed.append(entry)
        finally:
            os.close(fd)
    return removed


def _open_failed(err: OSError) -> RuntimeError:
    """PyTorch's error where its archive writer cannot open the file (it opens the path for writing)."""
    return RuntimeError("[enforce fail at inline_container.cc:747] . open file failed with strerror: "
                        f"{err.strerror or os.strerror(err.errno)}")


def _writable(path: str) -> bool:
    """Whether opening ``path`` for writing would succeed for this process (root may write a 0444 file)."""
    if os.access in os.supports_effective_ids:  # open() checks the effective ids, access() the real ones
        return os.access(path, os.W_OK, effective_ids=True)
    return os.access(path, os.W_OK)


def _write_in_place(target: str, fill) -> None:
    """The file rewritten where it is, as PyTorch's open for writing does: where the folder takes no temp
    file but the file itself may be written (not atomic, but what the user could do)."""
    try:
        fd = os.open(target, os.O_WRONLY | os.O_TRUNC | getattr(os, "O_BINARY", 0))
    except OSError as err:
        raise _open_failed(err) from None
    with io.BufferedWriter(_FdWriter(fd), _WRITE_BUFFER) as out:
        fill(out)
        out.flush()
        os.fsync(out.raw._fd)


def atomic_write(path, fill) -> None:
    """Temp file beside the target, fsync, rename over it, fsync the directory. The result keeps an existing
    target's mode (and owner, where this process may set it), and a target the user could not open for
    writing is refused untouched, as PyTorch's plain open would refuse it."""
    given_parent = os.path.dirname(os.fspath(path))
    if given_parent and not os.path.isdir(given_parent):
        raise RuntimeError(f"Parent directory {given_parent} does not exist.")
    target = os.path.realpath(path)  # write through a symlink, as open() would
    parent = os.path.dirname(target)
    base = os.path.basename(target)
    try:
        old = os.stat(target)
    except FileNotFoundError:
        old = None
    if old is not None and not _writable(target):
        raise _open_failed(PermissionError(errno.EACCES, os.strerror(errno.EACCES)))
    remove_stale_temps(parent, base)
    tmp = os.path.join(parent, f".{base}.{secrets.token_hex(6)}.tmp")
    # mode 0o666 minus the umask, as open() would give; mkstemp's 0o600 would stick to the result
    try:
        fd = os.open(tmp, os.O_WRONLY | os.O_CREAT | os.O_EXCL | getattr(os, "O_BINARY", 0), 0o666)
    except PermissionError as err:  # a folder closed to new files
        if old is None:
            raise _open_failed(err) from None
        _write_in_place(target, fill)
        return
    lock_fd = -1
    try:
        if fcntl is not None:
            # held on its own descriptor until the rename, after the data descriptor is closed;
            # the kernel drops it if this process dies, which marks the temp file as abandoned
            lock_fd = os.open(tmp, os.O_RDONLY)
            fcntl.flock(lock_fd, fcntl.LOCK_EX)
        if old is not None:  # an overwrite changes the contents only, as open() for writing would (set after
            # the lock's open, which a write-only mode would deny)
            os.chmod(tmp, stat.S_IMODE(old.st_mode))
            with contextlib.suppress(OSError):  # only root may give the file to another user
                os.chown(tmp, old.st_uid, old.st_gid)
        with io.BufferedWriter(_FdWriter(fd), _WRITE_BUFFER) as out:
            fd = -1  # the writer owns it now
            fill(out)
            out.flush()
            os.fsync(out.raw._fd)
        os.replace(tmp, target)
    except BaseException:  # KeyboardInterrupt included: no half-written temp file left behind
        with contextlib.suppress(OSError):
            os.unlink(tmp)
        raise
    finally:
        for d in (fd, lock_fd):
            if d >= 0:
                os.close(d)
    if os.name != "nt":  # makes the rename durable; Windows cannot fsync a directory
        dfd = os.open(parent, os.O_RDONLY)
        try:
            os.fsync(dfd)
        finally:
            os.close(dfd)
