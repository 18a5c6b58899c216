"""Joining processes that no MPI launcher started (``mp.spawn``, ``mp.Process``, the torchrun-style
launcher, two shells): PyTorch's ``env://`` and ``tcp://`` rendezvous, with MPI as the engine.

The rendezvous: rank 0 listens on ``MASTER_ADDR:MASTER_PORT`` (TCP), as PyTorch's TCPStore server does.
Every other rank connects and says which rank it is and the world size it expects. When all have
arrived, rank 0 opens an MPI port (``MPI_Open_port``) and sends its name to each. MPI then joins them:
the ranks already together accept (``MPI_Comm_accept``) the connecting ones (``MPI_Comm_connect``), one
at a time, merging each intercommunicator into one intracommunicator, which is finally ordered by the
requested ranks (``MPI_Comm_split``). Only the hello, the port name and the watch's notes below travel
over the sockets; every collective and message of the job runs on MPI.

Connecting separately started processes needs an MPI whose port names carry the address (MPICH): Open
MPI 5 connects only processes started under one PRRTE runtime (``mpiexec``), never singletons.

The watch: the sockets stay open for the whole job. A rank whose socket closes without a goodbye died
(SIGKILL, a crash); rank 0 tells the others. MPI itself would wait for a dead peer forever, so a rank
waiting in a collective asks the watch between polls and raises, naming the dead rank."""
from __future__ import annotations

import json
import os
import select
import socket
import threading
import time

_CONNECT_RETRY_S = 0.05


class JoinError(RuntimeError):
    """The rendezvous failed (init_process_group raises it as PyTorch's DistStoreError)."""


class JoinNetworkError(JoinError):
    """The processes could not reach each other (PyTorch's DistNetworkError)."""


def _send(sock: socket.socket, msg: dict) -> None:
    sock.sendall(json.dumps(msg).encode() + b"\n")


class _Lines:
    """Newline-delimited JSON messages from one socket, read with a deadline."""

    def __init__(self, sock: socket.socket):
        self.sock = sock
        self.buf = b""

    def ready(self) -> list:
        """The complete messages received so far, and None last if the peer has closed the connection."""
        try:
            chunk = self.sock.recv(65536)
        except (BlockingIOError, InterruptedError):
            chunk = None
        except OSError:
            chunk = b""
        if chunk:
            self.buf += chunk
        out = []
        while b"\n" in self.buf:
            line, self.buf = self.buf.split(b"\n", 1)
            out.append(json.loads(line))
        if chunk == b"":
            out.append(None)
        return out

    def next(self, deadline: float, what: str):
        while True:
            if b"\n" in self.buf:
                line, self.buf = self.buf.split(b"\n", 1)
                return json.loads(line)
            left = deadline - time.monotonic()
            if left <= 0:
                raise JoinError(f"timed out waiting for {what}")
            readable, _, _ = select.select([self.sock], [], [], left)
            if readable:
                chunk = self.sock.recv(65536)
                if not chunk:
                    raise JoinError(f"the connection closed while waiting for {what}")
                self.buf += chunk


def _listen(addr: str, port: int) -> socket.socket:
    try:
        server = socket.create_server((addr, port), reuse_port=False)
    except OSError as e:
        raise JoinNetworkError(f"The server socket has failed to listen on {addr}:{port} (MASTER_ADDR:MASTER_PORT): "
                               f"{e.strerror or e}") from None
    return server


def _connect(addr: str, port: int, deadline: float) -> socket.socket:
    last = None
    while time.monotonic() < deadline:
        try:
            return socket.create_connection((addr, port), timeout=max(0.1, deadline - time.monotonic()))
        except OSError as e:  # rank 0 may not listen yet
            last = e
            time.sleep(_CONNECT_RETRY_S)
    raise JoinNetworkError(f"could not connect to rank 0 at {addr}:{port} (MASTER_ADDR:MASTER_PORT) before the "
                           f"timeout: {last}")


def join(MPI, rank: int, world_size: int, addr: str, port: int, timeout_s: float):
    """This process's place in a communicator of ``world_size`` processes, and the watch over them."""
    deadline = time.monotonic() + timeout_s
    if rank == 0:
        peers = _gather_hellos(_listen(addr, port), world_size, deadline)
        mpi_port = MPI.Open_port()
        for s in peers.values():
            _send(s, {"port": mpi_port})
        comm = MPI.COMM_SELF
        sockets = peers
    else:
        sock = _connect(addr, port, deadline)
        _send(sock, {"rank": rank, "world_size": world_size, "pid": os.getpid()})
        reply = _Lines(sock).next(deadline, "the MPI port name from rank 0")
        if "error" in reply:
            raise JoinError(reply["error"])
        mpi_port = reply["port"]
        inter = MPI.COMM_SELF.Connect(mpi_port)
        comm = inter.Merge(high=True)
        inter.Free()
        sockets = {0: sock}
    while comm.Get_size() < world_size:  # the ranks already joined accept the next one together
        inter = comm.Accept(mpi_port)
        merged = inter.Merge(high=False)
        inter.Free()
        if comm is not MPI.COMM_SELF:
            comm.Free()
        comm = merged
    if rank == 0:
        MPI.Close_port(mpi_port)
    ordered = comm.Split(0, rank)
    if comm is not MPI.COMM_SELF:
        comm.Free()
    return ordered, Watch(rank, sockets)


def _gather_hellos(server: socket.socket, world_size: int, deadline: float) -> dict:
    """Rank 0: wait until every other rank has connected and said which rank it is."""
    peers, pending = {}, []
    try:
        while len(peers) < world_size - 1:
            left = deadline - time.monotonic()
            if left <= 0:
                missing = sorted(set(range(1, world_size)) - set(peers))
                raise JoinError(f"timed out waiting for the other ranks to join: {len(peers) + 1}/{world_size} "
                                f"joined, missing rank(s) {missing}")
            readable, _, _ = select.select([server] + [p.sock for p in pending], [], [], min(left, 1.0))
            for r in readable:
                if r is server:
                    conn, _ = server.accept()
                    pending.append(_Lines(conn))
                    continue
                lines = next(p for p in pending if p.sock is r)
                pending.remove(lines)
                try:
                    hello = lines.next(deadline, "a rank's hello")
                except JoinError:
                    r.close()
                    continue
                error = _check_hello(hello, world_size, peers)
                if error:
                    _send(r, {"error": error})
                    r.close()
                    raise JoinError(error)
                peers[hello["rank"]] = r
    except BaseException:
        for s in peers.values():
            s.close()
        raise
    finally:
        for p in pending:
            p.sock.close()
        server.close()
    return peers


def _check_hello(hello: dict, world_size: int, peers: dict) -> str | None:
    r, n = hello.get("rank"), hello.get("world_size")
    if n != world_size:
        return f"rank {r} was started with world_size={n}, rank 0 with world_size={world_size}"
    if not isinstance(r, int) or not 0 < r < world_size:
        return f"a process asked for rank {r}, outside 0..{world_size - 1}"
    if r in peers:
        return f"two processes asked for rank {r}"
    return None


class Watch:
    """Notices a rank whose connection closes without a goodbye, and tells every other rank."""

    def __init__(self, rank: int, sockets: dict):
        self.rank = rank
        self.lines = {r: _Lines(s) for r, s in sockets.items()}
        for s in sockets.values():
            s.setblocking(False)
        self.dead = {}  # rank -> what happened to it
        self.said_bye = set()
        self._lock = threading.Lock()
        self._closed = False
        self._thread = threading.Thread(target=self._run, name="tinytorch-distributed-watch", daemon=True)
        self._thread.start()

    def _run(self) -> None:
        # ``close`` (the main thread, maybe at exit) clears ``lines`` under the lock: read it under the lock too,
        # and let a connection that went away meanwhile go. An exception escaping this daemon thread while the
        # interpreter shuts down makes Python abort the process.
        while not self._closed:
            with self._lock:
                socks = {ln.sock: r for r, ln in self.lines.items()}
            if not socks:
                return
            try:
                readable, _, _ = select.select(list(socks), [], [], 0.2)
            except (OSError, ValueError):
                return
            for s in readable:
                peer = socks[s]
                with self._lock:
                    ln = self.lines.get(peer)
                if ln is None or self._closed:
                    continue
                for msg in ln.ready():
                    self._on_message(peer, msg)

    def _on_message(self, peer: int, msg) -> None:
        with self._lock:
            if msg is None:  # the connection closed
                ln = self.lines.pop(peer, None)
                if ln is None:  # closed here meanwhile
                    return
                ln.sock.close()
                if peer not in self.said_bye and not self._closed:
                    if self.rank == 0:
                        self._record(peer, "died: its connection closed without a goodbye")
                    else:  # rank 0 is gone: nobody can tell this rank about the others any more
                        self._record(0, "died: its connection closed without a goodbye")
                return
            if "bye" in msg:
                self.said_bye.add(peer)
            elif "failed" in msg:
                self._record(peer, msg["failed"])
            elif "gone" in msg:
                self._record(int(msg["gone"]), msg["how"])

    def _record(self, rank: int, how: str) -> None:
        if rank in self.dead:
            return
        self.dead[rank] = how
        if self.rank == 0:  # pass it on to every other rank still connected
            for r, ln in list(self.lines.items()):
                if r != rank:
                    try:
                        ln.sock.setblocking(True)
                        _send(ln.sock, {"gone": rank, "how": how})
                        ln.sock.setblocking(False)
                    except OSError:
                        pass

    def check(self, name: str, waiting_for: str) -> None:
        """Raise if a peer died or failed: MPI would wait for it forever."""
        if self.dead:
            who = ", ".join(f"rank {r} {how}" for r, how in sorted(self.dead.items()))
            raise RuntimeError(f"[Rank {self.rank}] {name}: {who}, while this rank waited for {waiting_for}")

    def failed(self, text: str) -> None:
        """Tell the others this rank is failing (an uncaught exception), before it exits."""
        self._say({"failed": text})

    def close(self) -> None:
        """Say goodbye and close: the peers will not take this rank's exit for a death."""
        if self._closed:
            return
        self._say({"bye": True})
        self._closed = True
        with self._lock:
            for ln in self.lines.values():
                ln.sock.close()
            self.lines.clear()

    def _say(self, msg: dict) -> None:
        with self._lock:
            for ln in self.lines.values():
                try:
                    ln.sock.setblocking(True)
                    ln.sock.settimeout(2.0)
                    _send(ln.sock, msg)
                    ln.sock.setblocking(False)
                except OSError:
                    pass
