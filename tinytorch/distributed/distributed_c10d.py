"""Process groups and collectives over MPI (``torch.distributed``'s API; ``"gloo"`` and ``"mpi"`` both
name it).

Two ways in: under an MPI launcher (``mpiexec -n N``) the world is MPI's own; otherwise (``mp.spawn``,
``mp.Process``, ``python -m tinytorch.distributed.run``, separate shells) the processes meet through
PyTorch's ``env://`` or ``tcp://`` rendezvous and MPI connects them (``_join.py``).

mpi4py is imported only by ``init_process_group``: ``import tinytorch`` never needs MPI. Collectives
work on the tensors' numpy buffers in place; a non-contiguous tensor goes through a contiguous copy.
Every wait polls the request against the group's timeout, so a peer that stopped answering turns into
an error naming the operation and this rank instead of a hang."""
from __future__ import annotations

import atexit
import datetime
import enum
import importlib.util
import os
import signal
import sys
import threading
import time
import warnings
from urllib.parse import parse_qs, urlparse

from . import _join as _joining
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


class _reduce_op:
    """The deprecated spelling ``torch.distributed.reduce_op``: ReduceOp's members as attributes (and
    ``__members__``), each access warning as PyTorch's does."""

    def __init__(self) -> None:
        for op in ReduceOp:
            setattr(self, op.name, op)
        self.__members__ = dict(ReduceOp.__members__)

    def __getattribute__(self, key):
        warnings.warn("`torch.distributed.reduce_op` is deprecated, please use `torch.distributed.ReduceOp` "
                      "instead", FutureWarning, stacklevel=2)
        return object.__getattribute__(self, key)


reduce_op = _reduce_op()


class DistError(RuntimeError):
    """An error of the distributed package (PyTorch's base of the three below)."""


class DistBackendError(DistError):
    """A collective's backend failed."""


class DistNetworkError(DistError):
    """The processes could not reach each other."""


class DistStoreError(DistError):
    """The rendezvous store failed (a rank that never joined, a wrong world size)."""


for _cls in (DistError, DistBackendError, DistNetworkError, DistStoreError):
    _cls.__module__ = "tinytorch.distributed"  # where PyTorch's live (torch.distributed.DistError)


class Backend(str):
    """A backend name, lower case as PyTorch spells it: ``"gloo"`` and ``"mpi"`` (both run on MPI)."""
    UNDEFINED = "undefined"
    GLOO = "gloo"
    MPI = "mpi"
    NCCL = "nccl"

    def __new__(cls, name: str):
        if not isinstance(name, str):
            raise ValueError(f"Backend constructor parameter must be string-ish, but got: {type(name)}")
        return super().__new__(cls, name.lower())


_BACKENDS = ("gloo", "mpi")
_FORWARD_S = 1.0  # (_abort_on_uncaught) the launcher's time to forward a failing rank's last lines
# what an MPI launcher leaves in its processes' environment (Open MPI / PMIx, MPICH's hydra and PMI)
_LAUNCHER_VARS = ("OMPI_COMM_WORLD_SIZE", "PMIX_RANK", "PMI_SIZE", "PMI_RANK")


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


class _WorldMeta(type):
    """``group.WORLD`` (and ``GroupMember.WORLD``): the default process group (None before
    ``init_process_group`` and after ``destroy_process_group``)."""

    @property
    def WORLD(cls):
        return _world.pg


class group(metaclass=_WorldMeta):
    pass


class GroupMember(metaclass=_WorldMeta):
    NON_GROUP_MEMBER = _NonGroupMember()


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
        if waited > 0.05 and _world.watch is not None:
            _world.watch.check(name, f"the other ranks of {group_.ranks}")
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
    backend = Backend.MPI
    departures: Departures | None = None
    watch = None  # _join.Watch, when the processes joined through a rendezvous
    failing = False  # an uncaught exception is ending this process
    left = False


_world = _World()


def is_available() -> bool:
    """True when mpi4py can be imported (``pip install -e ".[distributed]"`` installs it with MPICH)."""
    return importlib.util.find_spec("mpi4py") is not None


def is_mpi_available() -> bool:
    return is_available()


def is_gloo_available() -> bool:
    """``"gloo"`` is a name for the same MPI engine."""
    return is_available()


def is_nccl_available() -> bool:
    return False


def is_initialized() -> bool:
    return _world.pg is not None


def _default_group() -> ProcessGroup:
    if _world.pg is None:
        raise ValueError(_NOT_INITIALIZED)
    return _world.pg


def _abort_on_uncaught(previous_hook):
    """An exception that escapes one rank ends the whole job, so the others do not wait forever: under an
    MPI launcher by aborting it, among joined processes by telling the others through the watch."""

    def hook(exc_type, exc, tb):
        previous_hook(exc_type, exc, tb)
        if _world.pg is not None and _world.pg.size() > 1 and not issubclass(exc_type, SystemExit):
            _world.failing = True
            if _world.watch is not None:
                _world.watch.failed(f"failed with {exc_type.__name__}")
                sys.stderr.write(f"[Rank {_world.rank}] failed with {exc_type.__name__}; the other ranks are told\n")
                sys.stderr.flush()
                return
            sys.stderr.write(f"[Rank {_world.rank}] failed with {exc_type.__name__}; aborting all ranks\n")
            sys.stderr.flush()
            # the launcher forwards each rank's output through its own pipes and drops what it has not
            # forwarded when the job is aborted: a moment first, so this rank's traceback and line reach the user
            time.sleep(_FORWARD_S)
            _world.MPI.COMM_WORLD.Abort(1)

    return hook


def _launched_by_mpi() -> bool:
    return any(v in os.environ for v in _LAUNCHER_VARS)


def _backend_name(backend) -> str:
    if backend is None:
        return Backend.MPI if _launched_by_mpi() else Backend.GLOO
    name = str(backend).lower()
    if name.startswith("cpu:"):  # PyTorch's "cpu:gloo,cuda:nccl" form: the CPU part is what runs here
        name = name.split(",")[0][4:]
    if name not in _BACKENDS:
        raise RuntimeError(f"tinytorch.distributed supports the 'gloo' and 'mpi' backends (both run on MPI), "
                           f"not {backend!r}")
    return Backend(name)


def _rendezvous(init_method, rank: int, world_size: int):
    """(rank, world size, address, port) from ``env://`` or ``tcp://``, with PyTorch's errors."""
    url = urlparse(init_method or "env://")
    query = {k: v[-1] for k, v in parse_qs(url.query).items()}
    if url.scheme == "env":
        def env(var):
            value = os.environ.get(var)
            if not value:
                raise ValueError("Error initializing torch.distributed using env:// rendezvous: "
                                 f"environment variable {var} expected, but not set")
            return value

        if rank in (-1, None):
            rank = int(query["rank"]) if "rank" in query else int(env("RANK"))
        if world_size in (-1, None):
            world_size = int(query["world_size"]) if "world_size" in query else int(env("WORLD_SIZE"))
        addr, port = env("MASTER_ADDR"), int(env("MASTER_PORT"))
    elif url.scheme == "tcp":
        def error(msg):
            return ValueError("Error initializing torch.distributed using tcp:// rendezvous: " + msg)

        if url.port is None:
            raise error("port number missing")
        if rank in (-1, None):
            if "rank" not in query:
                raise error("rank parameter missing")
            rank = int(query["rank"])
        if world_size in (-1, None):
            if "world_size" not in query:
                raise error("world size parameter missing")
            world_size = int(query["world_size"])
        addr, port = url.hostname, url.port
    else:
        raise ValueError(f"tinytorch.distributed: init_method {init_method!r} is not supported: "
                         "use env:// (MASTER_ADDR, MASTER_PORT, RANK, WORLD_SIZE) or tcp://host:port")
    if world_size < 1 or not 0 <= rank < world_size:
        raise ValueError(f"Invalid rank {rank} for world_size {world_size}: the rank must be in "
                         f"0..{world_size - 1}")
    return rank, world_size, addr, port


def _join(MPI, rank: int, world_size: int, addr: str, port: int, timeout_s: float):
    if world_size == 1:
        return MPI.COMM_WORLD, None
    if "Open MPI" in MPI.Get_library_version():
        raise RuntimeError(
            "tinytorch.distributed: joining processes that no MPI launcher started (mp.spawn, mp.Process, "
            "python -m tinytorch.distributed.run) needs MPICH (pip install \"mpich>=4.3,<5\"): Open MPI 5 "
            "connects only processes started by its own mpiexec. Start the job with mpiexec instead, or "
            "install MPICH in place of Open MPI.")
    # a rank that dies between its hello and MPI's connect would leave the others in MPI_Comm_accept,
    # which has no timeout: past the deadline this process ends with an error instead of hanging
    guard = threading.Timer(timeout_s + 10.0, _join_stuck, args=(rank,))
    guard.daemon = True
    guard.start()
    try:
        return _joining.join(MPI, rank, world_size, addr, port, timeout_s)
    except _joining.JoinError as e:  # PyTorch's types: its store's errors, or the network's
        error = DistNetworkError if isinstance(e, _joining.JoinNetworkError) else DistStoreError
        raise error(f"[Rank {rank}] init_process_group: {e}") from None
    finally:
        guard.cancel()


def _join_stuck(rank: int) -> None:
    sys.stderr.write(f"[Rank {rank}] init_process_group: MPI did not connect the ranks within the timeout "
                     "(did a rank die while joining?); exiting\n")
    sys.stderr.flush()
    os._exit(1)


def init_process_group(backend: str | None = None, init_method: str | None = None,
                       timeout: datetime.timedelta | None = None, world_size: int = -1, rank: int = -1,
                       store=None, group_name: str = "", pg_options=None, device_id=None) -> None:
    """Join the other ranks: MPI's world under ``mpiexec``, else the ``env://``/``tcp://`` rendezvous."""
    if _world.pg is not None:
        raise ValueError("trying to initialize the default process group twice!")
    name = _backend_name(backend)
    if store is not None:
        raise RuntimeError("tinytorch.distributed has no Store: meet through init_method (env:// or tcp://)")
    timeout = timeout or _DEFAULT_TIMEOUT
    # the MPI backend without a launcher or a rendezvous to meet through is MPI's singleton world of one
    # process, as in PyTorch; "gloo" (and "mpi" given an init_method or RANK) meets through the rendezvous
    singleton = name == "mpi" and init_method is None and "RANK" not in os.environ
    launched = _launched_by_mpi() or singleton
    if not launched:  # the rendezvous's arguments first: PyTorch's errors name what is missing, MPI or not
        rank, world_size, addr, port = _rendezvous(init_method, rank, world_size)
    if not is_available():
        raise RuntimeError("tinytorch.distributed needs MPI: install it with "
                           "pip install mpi4py mpich (or pip install -e \".[distributed]\")")
    if launched:
        from mpi4py import MPI

        comm, watch = MPI.COMM_WORLD, None
        if world_size not in (-1, None) and world_size != comm.Get_size():
            raise ValueError(f"world_size={world_size} but MPI started {comm.Get_size()} processes")
        if rank not in (-1, None) and rank != comm.Get_rank():
            raise ValueError(f"rank={rank} but MPI gave this process rank {comm.Get_rank()}")
    else:
        from mpi4py import MPI

        if _world.watch is not None:  # a group destroyed earlier in this process: its watch goes now
            _world.watch.close()
        comm, watch = _join(MPI, rank, world_size, addr, port, timeout.total_seconds())
    _world.MPI = MPI
    _world.rank = comm.Get_rank()
    _world.backend = name
    _world.watch = watch
    _world.pg = ProcessGroup(comm, list(range(comm.Get_size())), timeout)
    if not getattr(sys.excepthook, "_tinytorch", False):
        sys.excepthook = _abort_on_uncaught(sys.excepthook)
        sys.excepthook._tinytorch = True
    if comm.Get_size() > 1 and (_world.departures is None or watch is not None):
        _world.departures = Departures(comm)
        _world.left = False
        _remember_exit_status(_world.departures)
        atexit.register(_leave, timeout.total_seconds())
        # a multiprocessing child (mp.spawn, mp.Process) ends with os._exit, past atexit: its own
        # exit hook runs this too (only once), with the exception that ends the child still visible
        import multiprocessing.util

        multiprocessing.util.Finalize(None, _leave, args=(timeout.total_seconds(),), exitpriority=0)


def _remember_exit_status(departures: Departures) -> None:
    """Wrap ``sys.exit`` so the exit announcement can tell the other ranks this rank's status."""
    previous = getattr(sys.exit, "_tinytorch_previous", sys.exit)

    def exit(status=None):
        _world.departures.exit_status = status
        previous(status)

    exit.__doc__ = previous.__doc__
    exit._tinytorch_previous = previous
    sys.exit = exit


def _leave(timeout_s: float) -> None:
    """At exit: tell the other ranks this one leaves, wait (bounded) for them when all went well."""
    if _world.left:
        return
    _world.left = True
    MPI, departures = _world.MPI, _world.departures
    exc = sys.exc_info()[1]  # set when a multiprocessing child ends with an exception
    if exc is not None and not isinstance(exc, SystemExit) and departures.exit_status is None:
        _world.failing = True
        departures.exit_status = f"failed with {type(exc).__name__}"
        if _world.watch is not None:
            _world.watch.failed(departures.exit_status)
    if departures is not None and not MPI.Is_finalized():
        status = departures.exit_status
        departures.leave(timeout_s, wait=not _world.failing and status in (None, 0), watch=_world.watch)
    if _world.watch is not None:
        if _world.failing or _world.watch.dead:
            _bound_the_exit()
        _world.watch.close()


_EXIT_GUARD_S = 15  # (_bound_the_exit) the time a failing rank's exit may take, MPI's finalize included


def _bound_the_exit() -> None:
    """A rank leaving after a failure (its own, or a peer that died) ends within ``_EXIT_GUARD_S`` seconds even
    if MPI's finalize, which runs after Python's own exit and is collective over the connected processes, waits
    for a peer that is gone: the alarm's default action ends the process (status -SIGALRM)."""
    if hasattr(signal, "alarm") and threading.current_thread() is threading.main_thread():
        signal.signal(signal.SIGALRM, signal.SIG_DFL)  # (a handler in Python would never run that late)
        signal.alarm(_EXIT_GUARD_S)


def destroy_process_group(group: ProcessGroup | None = None) -> None:
    if group is GroupMember.NON_GROUP_MEMBER:
        return
    if group is None and _world.pg is None:  # never made, or destroyed already: PyTorch's words
        raise AssertionError("Process group cannot be None")
    if _world.pg is None:
        raise ValueError("Invalid process group specified")
    if group is None or group is _world.pg:
        _world.pg = None
    elif group is not GroupMember.NON_GROUP_MEMBER:
        group._comm.Free()


def get_backend(group: ProcessGroup | None = None) -> str:
    _default_group()
    return _world.backend


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
