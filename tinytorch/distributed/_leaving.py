"""Noticing a rank that left the job while the others still wait for it.

A rank that ends (``sys.exit``, an early ``return``, the end of its script) while another rank waits
in a collective for it would leave that rank waiting for the whole timeout (30 minutes), and MPI's
finalize would keep the leaving rank waiting too. So at exit a rank tells every other rank that it is
leaving, with its exit status, on a communicator of its own, then waits (bounded) for the others to
leave as well. A rank waiting in a collective checks that communicator between polls: a peer that
left and a collective that still does not finish within a grace period is an error naming both
ranks, which aborts the job within seconds."""
from __future__ import annotations

import time

_TAG = 7311  # on the departures communicator only
_GRACE_S = 2.0  # a collective the leaver finished may still be completing here


class Departures:
    def __init__(self, comm) -> None:
        self.comm = comm.Dup()  # its own communicator: never matched by the user's messages
        self.rank, self.size = comm.Get_rank(), comm.Get_size()
        self.exit_status = None  # what sys.exit was given, when it was called
        self.left = {}  # rank -> exit status text, of the peers that announced they left
        self.seen_at = None

    def check(self, name: str, waiting_for: str) -> None:
        """Raise if a peer left and the grace period after hearing so has passed."""
        from mpi4py import MPI

        status = MPI.Status()
        while self.comm.Iprobe(source=MPI.ANY_SOURCE, tag=_TAG, status=status):
            rank, text = self.comm.recv(source=status.Get_source(), tag=_TAG)
            self.left[rank] = text
            if self.seen_at is None:
                self.seen_at = time.monotonic()
        if self.left and time.monotonic() - self.seen_at > _GRACE_S:
            who = ", ".join(f"rank {r} ({t})" for r, t in sorted(self.left.items()))
            raise RuntimeError(f"[Rank {self.rank}] {name}: {who} left the job while this rank waited for "
                               f"{waiting_for}; every rank must make the same collective calls")

    def leave(self, timeout_s: float, wait: bool = True, watch=None) -> None:
        """Announce this rank's exit to every other rank; then, with ``wait``, wait (bounded) until all
        have left, or until the watch (joined processes) reports a rank that died."""
        status = self.exit_status
        if status is None or status == 0:
            text = "exit status 0"
        elif isinstance(status, int):
            text = f"exit status {status}"
        else:
            text = f"exit status 1: {str(status)[:200]}"
        sends = [self.comm.isend((self.rank, text), dest=r, tag=_TAG) for r in range(self.size) if r != self.rank]
        if not wait:  # failing: give the notes a moment to go out, wait for nobody
            deadline = time.monotonic() + 1.0
            while not all(s.Test() for s in sends) and time.monotonic() < deadline:
                time.sleep(0.01)
            return
        everyone = self.comm.Ibarrier()
        deadline = time.monotonic() + timeout_s
        while not everyone.Test():
            if time.monotonic() > deadline or (watch is not None and watch.dead):
                return
            time.sleep(0.01)
        # every rank has sent its note: take them all in, so none is left unmatched inside MPI
        from mpi4py import MPI

        status, deadline = MPI.Status(), time.monotonic() + 1.0
        while len(self.left) < self.size - 1 and time.monotonic() < deadline:
            if self.comm.Iprobe(source=MPI.ANY_SOURCE, tag=_TAG, status=status):
                rank, text = self.comm.recv(source=status.Get_source(), tag=_TAG)
                self.left[rank] = text
        for s in sends:
            s.Test()
