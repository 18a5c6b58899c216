"""Saving over an existing checkpoint changes its contents only, as PyTorch's writer (a plain open for writing)
does: the file keeps its mode, a file the user may not write is refused with PyTorch's RuntimeError and left
intact, and a folder closed to new files still lets a writable file be rewritten. The non-root cases run in a
forked child that drops to the ``nobody`` user (root may write a 0444 file, in PyTorch as here)."""
import io
import os
import pickle
import stat
import tempfile

import pytest

import tinytorch

from _oracle import torch  # noqa: E402  (PyTorch when a test reads it)

NOBODY = 65534


def _scenario(lib, folder):
    """Overwrites as a user would try them; returns what each did (error type and text, mode, contents)."""
    def attempt(path, value):
        try:
            lib.save({"a": value}, path)
            return "saved"
        except Exception as err:  # noqa: BLE001 - the error is the observation
            return type(err).__name__, str(err)

    def mode(path):
        return oct(stat.S_IMODE(os.stat(path).st_mode))

    out = {}
    ro, rw = os.path.join(folder, "ro.pt"), os.path.join(folder, "rw.pt")
    lib.save({"a": 1}, ro)
    os.chmod(ro, 0o444)
    lib.save({"a": 1}, rw)
    os.chmod(rw, 0o600)
    out["read-only"] = attempt(ro, 2), mode(ro), lib.load(ro)
    out["private"] = attempt(rw, 2), mode(rw), lib.load(rw)
    closed = os.path.join(folder, "closed")
    os.mkdir(closed)
    kept = os.path.join(closed, "x.pt")
    lib.save({"a": 1}, kept)
    os.chmod(closed, 0o555)
    try:
        out["new file in a closed folder"] = attempt(os.path.join(closed, "y.pt"), 2)
        out["writable file in a closed folder"] = attempt(kept, 3), mode(kept), lib.load(kept)
        os.chmod(kept, 0o444)
        out["read-only file in a closed folder"] = attempt(kept, 4), lib.load(kept)
    finally:
        os.chmod(closed, 0o755)
    return out


def _as_nobody(lib, folder):
    """_scenario run by a forked child under the ``nobody`` user (or by this process where it is not root)."""
    if os.geteuid() != 0:
        return _scenario(lib, folder)
    buf = io.BytesIO()
    lib.save({"a": 0}, buf)  # what save and load import on first use, imported while root may read it all
    buf.seek(0)
    lib.load(buf)
    os.chmod(folder, 0o777)
    read, write = os.pipe()
    pid = os.fork()
    if pid == 0:  # pragma: no cover - the child reports through the pipe
        try:
            os.setgid(NOBODY)
            os.setuid(NOBODY)
            result = _scenario(lib, folder)
        except BaseException as err:  # noqa: BLE001
            result = ("child failed", repr(err))
        os.write(write, pickle.dumps(result))
        os._exit(0)
    os.close(write)
    with os.fdopen(read, "rb") as f:
        data = f.read()
    os.waitpid(pid, 0)
    result = pickle.loads(data)
    if isinstance(result, tuple) and result[0] == "child failed":
        pytest.skip(f"cannot drop to the nobody user here: {result[1]}")
    return result


def test_overwrites_as_another_user():
    # not pytest's tmp_path: its parents are closed to other users
    with tempfile.TemporaryDirectory() as top:
        os.chmod(top, 0o755)
        want = _as_nobody(torch, tempfile.mkdtemp(dir=top))
        got = _as_nobody(tinytorch, tempfile.mkdtemp(dir=top))
    assert want["read-only"][0][0] == "RuntimeError"  # PyTorch refuses, the file intact
    assert got == want


@pytest.mark.skipif(os.name != "posix" or os.geteuid() != 0, reason="what root may do")
def test_overwrites_as_root(tmp_path):
    (tmp_path / "torch").mkdir()
    (tmp_path / "tinytorch").mkdir()
    want = _scenario(torch, str(tmp_path / "torch"))
    assert want["read-only"][0] == "saved"
    assert _scenario(tinytorch, str(tmp_path / "tinytorch")) == want
