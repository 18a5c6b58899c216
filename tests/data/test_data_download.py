"""Downloading from a local http.server: good files, bad MD5 then a good mirror, truncated
bodies, HTML error pages, dead mirrors. Nothing here touches the network beyond 127.0.0.1."""

import gzip
import hashlib
import http.server
import os
import socket
import threading
import time

import numpy as np
import pytest

from tinytorch.data import datasets
from tinytorch.data.datasets import FashionMNIST

FILES = [
    "train-images-idx3-ubyte.gz",
    "train-labels-idx1-ubyte.gz",
    "t10k-images-idx3-ubyte.gz",
    "t10k-labels-idx1-ubyte.gz",
]


def _idx(array):
    header = bytes([0, 0, 8, array.ndim]) + b"".join(d.to_bytes(4, "big") for d in array.shape)
    return gzip.compress(header + array.tobytes(), mtime=0)


def _good_files():
    rng = np.random.default_rng(0)
    out = {}
    for prefix, n in (("train", 6), ("t10k", 3)):
        out[f"{prefix}-images-idx3-ubyte.gz"] = _idx(
            rng.integers(0, 256, (n, 28, 28), dtype=np.uint8)
        )
        out[f"{prefix}-labels-idx1-ubyte.gz"] = _idx(rng.integers(0, 10, n, dtype=np.uint8))
    return out


GOOD = _good_files()
HTML = b"<html><body><h1>503 Service Unavailable</h1></body></html>"


class _Handler(http.server.BaseHTTPRequestHandler):
    """Serves ``server.routes[path] = (status, body, declared_length)``; unknown paths are 404."""

    def do_GET(self):
        self.server.requests.append(self.path)
        status, body, length = self.server.routes.get(self.path, (404, b"not found", None))
        self.send_response(status)
        self.send_header("Content-Length", str(len(body) if length is None else length))
        self.end_headers()
        self.wfile.write(body)
        self.close_connection = True

    def log_message(self, *args):
        pass


@pytest.fixture
def server():
    srv = http.server.ThreadingHTTPServer(("127.0.0.1", 0), _Handler)
    srv.routes, srv.requests = {}, []
    thread = threading.Thread(target=srv.serve_forever, daemon=True)
    thread.start()
    srv.url = f"http://127.0.0.1:{srv.server_address[1]}"
    yield srv
    srv.shutdown()
    srv.server_close()


@pytest.fixture
def local_mirrors(monkeypatch, server):
    """Point FashionMNIST at mirrors /a/ and /b/ of the local server, with the good files' MD5s."""
    monkeypatch.setattr(FashionMNIST, "mirrors", [f"{server.url}/a/", f"{server.url}/b/"])
    monkeypatch.setattr(
        FashionMNIST, "resources", [(n, hashlib.md5(GOOD[n]).hexdigest()) for n in FILES]
    )
    return server


def _serve(server, mirror, content_for=lambda name: (200, GOOD[name], None)):
    for name in FILES:
        server.routes[f"/{mirror}/{name}"] = content_for(name)


def _leftovers(root):
    raw = os.path.join(root, "FashionMNIST", "raw")
    return sorted(os.listdir(raw)) if os.path.isdir(raw) else []


def test_download_from_first_mirror(tmp_path, local_mirrors):
    _serve(local_mirrors, "a")
    ds = datasets.FashionMNIST(str(tmp_path), download=True)
    assert len(ds) == 6 and _leftovers(str(tmp_path)) == sorted(FILES)
    assert (
        all(r.startswith("/a/") for r in local_mirrors.requests)
        and len(local_mirrors.requests) == 4
    )
    with gzip.open(tmp_path / "FashionMNIST" / "raw" / "train-labels-idx1-ubyte.gz") as f:
        assert ds.targets.tolist() == list(f.read()[8:])


def test_present_files_are_not_downloaded_again(tmp_path, local_mirrors):
    _serve(local_mirrors, "a")
    datasets.FashionMNIST(str(tmp_path), download=True)
    local_mirrors.requests.clear()
    assert len(datasets.FashionMNIST(str(tmp_path), train=False, download=True)) == 3
    assert local_mirrors.requests == []


def _bit_flip(name):
    body = bytearray(GOOD[name])
    body[len(body) // 2] ^= 0x10
    return 200, bytes(body), None


FIRST_MIRROR_FAULTS = {
    "bad md5 (bit flip)": _bit_flip,
    "truncated body": lambda name: (200, GOOD[name][: len(GOOD[name]) // 2], len(GOOD[name])),
    "html error page": lambda name: (200, HTML, None),
    "http 404": lambda name: (404, HTML, None),
    "http 500": lambda name: (500, HTML, None),
}


@pytest.mark.parametrize("fault", list(FIRST_MIRROR_FAULTS))
def test_bad_first_mirror_falls_through_to_the_good_one(tmp_path, local_mirrors, fault):
    _serve(local_mirrors, "a", FIRST_MIRROR_FAULTS[fault])
    _serve(local_mirrors, "b")
    ds = datasets.FashionMNIST(str(tmp_path), download=True)
    assert len(ds) == 6
    for name in FILES:
        assert (tmp_path / "FashionMNIST" / "raw" / name).read_bytes() == GOOD[name]
    assert _leftovers(str(tmp_path)) == sorted(FILES)  # no temporary files left behind
    assert f"/a/{FILES[0]}" in local_mirrors.requests and f"/b/{FILES[0]}" in local_mirrors.requests


@pytest.mark.parametrize(
    "fault", ["bad md5 (bit flip)", "truncated body", "html error page", "http 404"]
)
def test_all_mirrors_failing(tmp_path, local_mirrors, fault):
    _serve(local_mirrors, "a", FIRST_MIRROR_FAULTS[fault])
    _serve(local_mirrors, "b", FIRST_MIRROR_FAULTS[fault])
    with pytest.raises(RuntimeError) as info:
        datasets.FashionMNIST(str(tmp_path), download=True)
    assert str(info.value) == "Error downloading train-images-idx3-ubyte.gz"
    assert _leftovers(str(tmp_path)) == []


def test_unreachable_mirrors(tmp_path, monkeypatch):
    with socket.socket() as s:  # a port nobody listens on
        s.bind(("127.0.0.1", 0))
        port = s.getsockname()[1]
    monkeypatch.setattr(
        FashionMNIST, "mirrors", [f"http://127.0.0.1:{port}/", f"http://127.0.0.1:{port}/x/"]
    )
    with pytest.raises(
        RuntimeError, match="^Error downloading train-images-idx3-ubyte.gz$"
    ) as info:
        datasets.FashionMNIST(str(tmp_path), download=True)
    assert isinstance(info.value.__cause__, OSError)
    assert _leftovers(str(tmp_path)) == []


# ---------------------------------------------------- deadline and size cap

class _DripHandler(http.server.BaseHTTPRequestHandler):
    """/drip/*: one byte every 20 ms, forever; /huge/*: 64 MB where a small file belongs."""

    def do_GET(self):
        self.server.requests.append(self.path)
        if self.path.startswith("/drip/"):
            self.send_response(200)
            self.send_header("Content-Length", str(10**9))
            self.end_headers()
            try:
                for _ in range(3000):  # bounded: at most a minute even if the client stays
                    self.wfile.write(b"x")
                    self.wfile.flush()
                    time.sleep(0.02)
            except OSError:
                pass
        elif self.path.startswith("/huge/"):
            self.send_response(200)  # no Content-Length: only counting the body can tell
            self.end_headers()
            sent = 0
            try:
                for _ in range(64):
                    self.wfile.write(bytes(1 << 20))
                    sent += 1 << 20
            except OSError:
                pass
            self.server.sent.append(sent)
        else:
            name = self.path.rsplit("/", 1)[1]
            self.send_response(200)
            self.send_header("Content-Length", str(len(GOOD[name])))
            self.end_headers()
            self.wfile.write(GOOD[name])
        self.close_connection = True

    def log_message(self, *args):
        pass


@pytest.fixture
def bad_mirrors(monkeypatch):
    srv = http.server.ThreadingHTTPServer(("127.0.0.1", 0), _DripHandler)
    srv.daemon_threads = True
    srv.requests, srv.sent = [], []
    thread = threading.Thread(target=srv.serve_forever, daemon=True)
    thread.start()
    srv.url = f"http://127.0.0.1:{srv.server_address[1]}"
    monkeypatch.setattr(FashionMNIST, "resources", [(n, hashlib.md5(GOOD[n]).hexdigest()) for n in FILES])
    monkeypatch.setattr(FashionMNIST, "known_sizes",
                        {hashlib.md5(GOOD[n]).hexdigest(): len(GOOD[n]) for n in FILES})
    yield srv
    srv.shutdown()
    srv.server_close()


def test_dripping_mirror_is_abandoned_at_the_deadline(tmp_path, bad_mirrors, monkeypatch):
    from tinytorch.data.datasets import _download

    monkeypatch.setattr(_download, "_DEADLINE_S", 0.5)
    monkeypatch.setattr(FashionMNIST, "mirrors", [f"{bad_mirrors.url}/drip/", f"{bad_mirrors.url}/ok/"])
    t0 = time.monotonic()
    ds = FashionMNIST(str(tmp_path), download=True)
    # each file: half a second on the drip (every read returns a byte, so only the deadline helps)
    assert time.monotonic() - t0 < 4 * 0.5 + 5
    assert len(ds) == 6
    assert sum(r.startswith("/drip/") for r in bad_mirrors.requests) == 4
    assert [p for p in os.listdir(tmp_path / "FashionMNIST" / "raw") if p.endswith(".part")] == []


def test_body_longer_than_the_known_size_stops_at_the_cap(tmp_path, bad_mirrors, monkeypatch):
    monkeypatch.setattr(FashionMNIST, "mirrors", [f"{bad_mirrors.url}/huge/", f"{bad_mirrors.url}/ok/"])
    raw = tmp_path / "FashionMNIST" / "raw"
    ds = FashionMNIST(str(tmp_path), download=True)
    assert len(ds) == 6
    assert sum(r.startswith("/huge/") for r in bad_mirrors.requests) == 4
    for _ in range(100):  # the server notices the closed connection a moment later
        if len(bad_mirrors.sent) == 4:
            break
        time.sleep(0.05)
    # the client hung up at the cap: only what the socket buffers held got out, never 64 MB
    assert len(bad_mirrors.sent) == 4 and max(bad_mirrors.sent) < 16 << 20
    assert sorted(os.listdir(raw)) == sorted(FILES)


def test_known_sizes_are_the_official_files():
    for cls in (datasets.MNIST, datasets.FashionMNIST):
        assert set(cls.known_sizes) == {md5 for _, md5 in cls.resources}


def test_failed_download_leaves_no_empty_folder(tmp_path, monkeypatch):
    with socket.socket() as s:  # a port nobody listens on
        s.bind(("127.0.0.1", 0))
        port = s.getsockname()[1]
    monkeypatch.setattr(FashionMNIST, "mirrors", [f"http://127.0.0.1:{port}/"])
    root = tmp_path / "data"
    with pytest.raises(RuntimeError, match="^Error downloading train-images-idx3-ubyte.gz$"):
        datasets.FashionMNIST(str(root), download=True)
    assert not root.exists()  # data/FashionMNIST/raw was made for the download and removed with it
    (tmp_path / "kept").mkdir()
    with pytest.raises(RuntimeError):
        datasets.FashionMNIST(str(tmp_path / "kept"), download=True)
    assert (tmp_path / "kept").is_dir()  # a folder the user had stays


# ------------------------------------------------------- progress bar, checksums, failure reasons

def test_progress_bar_only_when_asked_and_only_on_stderr(tmp_path, local_mirrors, capfd):
    _serve(local_mirrors, "a")
    datasets.FashionMNIST(str(tmp_path / "quiet"), download=True)
    out, err = capfd.readouterr()
    assert out == "" and err == ""  # the library prints nothing by default
    datasets.FashionMNIST(str(tmp_path / "loud"), download=True, progress=True)
    out, err = capfd.readouterr()
    assert out == ""
    for name in FILES:  # one tqdm bar per file, counting its bytes up to the declared total
        assert name in err
        size = len(GOOD[name])
        assert f"{size}/{size}" in err or "B/s" in err


def test_md5s_are_torchvisions():
    # torchvision.datasets.FashionMNIST.resources (torchvision not needed to run this)
    torchvision_md5 = {
        "train-images-idx3-ubyte.gz": "8d4fb7e6c68d591d4c3dfef9ec88bf0d",
        "train-labels-idx1-ubyte.gz": "25c81989df183df01b3e8a0aad5dffbe",
        "t10k-images-idx3-ubyte.gz": "bef4ecab320f06d8554ea6380940ec79",
        "t10k-labels-idx1-ubyte.gz": "bb300cfdad3c16e7a12a480ee83cd310",
    }
    assert dict(datasets.FashionMNIST.resources) == torchvision_md5


def test_failure_names_every_url_and_its_reason(tmp_path, local_mirrors):
    _serve(local_mirrors, "a", FIRST_MIRROR_FAULTS["http 404"])
    _serve(local_mirrors, "b", FIRST_MIRROR_FAULTS["bad md5 (bit flip)"])
    with pytest.raises(RuntimeError, match="^Error downloading train-images-idx3-ubyte.gz$") as info:
        datasets.FashionMNIST(str(tmp_path), download=True)
    cause = info.value.__cause__
    assert isinstance(cause, OSError)
    text = str(cause)
    assert f"{local_mirrors.url}/a/{FILES[0]} (HTTP Error 404: Not Found)" in text
    assert f"{local_mirrors.url}/b/{FILES[0]} (ChecksumError: MD5 of" in text
    assert type(cause.__cause__).__name__ == "ChecksumError"  # the last failure, chained
    assert not (tmp_path / "FashionMNIST").exists()
