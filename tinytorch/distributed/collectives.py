"""The collectives: ``all_reduce``, ``broadcast``, ``all_gather``, ... with PyTorch's signatures.

Each one starts MPI's non-blocking form on the tensor's own buffer and waits under the group's
timeout (or hands back a ``Work`` for ``async_op=True``). Ranks named by ``src``/``dst`` are global
ranks, as in PyTorch; ``group_src``/``group_dst`` name a rank inside ``group``.

Before its data moves, each tensor collective checks that the ranks agree (``_agree``): MPI given
tensors of different sizes or dtypes on different ranks returns garbage or writes past a buffer,
with no error anywhere, so a mismatch raises a RuntimeError on every rank instead. The check waits
for every rank to reach the call, ``async_op=True`` included (one more small round trip, about what a
small all_reduce itself costs); only DDP's internal reductions, equal by construction, go without it."""
from __future__ import annotations

import numpy as np

from .._dtype import ALL, FLOATING_NP
from .distributed_c10d import GroupMember, ProcessGroup, ReduceOp, Work, _default_group, _wait_all, _world

# MPI has no float16 reductions; they run in float32 and are rounded back once
_WIDER = {np.dtype(np.float16): np.float32}


def _group(group: ProcessGroup | None) -> ProcessGroup | None:
    """The group to use, or None when this rank is not a member (PyTorch then skips the call)."""
    world = _default_group()
    if group is GroupMember.NON_GROUP_MEMBER:
        return None
    return world if group is None else group


def _root(pg: ProcessGroup, global_rank, group_rank, what: str) -> int:
    """The root's rank inside ``pg`` from either spelling."""
    if group_rank is not None:
        if global_rank is not None:
            raise ValueError(f"Can not specify both {what} and group_{what}")
        root = int(group_rank)
    else:
        if global_rank is None:
            global_rank = 0
        if int(global_rank) not in pg.ranks:
            raise ValueError(f"Global rank {global_rank} is not part of group {pg}")
        root = pg.ranks.index(int(global_rank))
    if not 0 <= root < pg.size():
        raise RuntimeError(f"invalid root rank: {root}")
    return root


# the dtype codes ``_agree`` exchanges: an index into tinytorch's dtypes (-1: a storage tinytorch does not list)
_DTYPE_CODE = {d.np: i for i, d in enumerate(ALL)}
_MISMATCH = "Is there a distributed collective mismatch in your code?"  # gloo's words for this fault


def _agree(pg: ProcessGroup, name: str, data: np.ndarray, problem: Exception | None = None, root: int = -1) -> None:
    """Raise on every rank unless every rank's ``data`` has the same number of elements and dtype, and every
    rank names the same ``root`` (a group rank: the source or destination of a rooted collective).

    One small allgather of (error flag, numel, dtype code, root), which every rank makes, even one whose own
    arguments are wrong (``problem``: the error it raises after the exchange), so no rank is left waiting
    in a collective the others never start. Shapes may differ, as in PyTorch, which moves bytes."""
    mine = np.array([problem is not None, data.size, _DTYPE_CODE.get(data.dtype, -1), root], dtype=np.int64)
    every = np.empty((pg.size(), 4), dtype=np.int64)
    _wait_all([pg._comm.Iallgather(mine, every)], pg, name)
    if problem is not None:
        raise problem
    rows = every.tolist()  # Python lists: a few rows compare faster than through numpy
    failed = [r for r, row in enumerate(rows) if row[0]]
    where = f"[Rank {_world.rank}] {name}:"
    if failed:
        raise RuntimeError(f"{where} rank {pg.ranks[failed[0]]} of the group gave invalid arguments (its error "
                           "says which) and left the collective")
    if any(row[1:3] != rows[0][1:3] for row in rows):
        tensors = ", ".join(f"rank {pg.ranks[r]}: {n} elements of {_dtype_name(code)}"
                            for r, (_, n, code, _) in enumerate(rows))
        raise RuntimeError(f"{where} the ranks' tensors differ in size or dtype ({tensors}). {_MISMATCH}")
    if any(row[3] != rows[0][3] for row in rows):
        roots = ", ".join(f"rank {pg.ranks[r]}: {pg.ranks[row[3]]}" for r, row in enumerate(rows))
        raise RuntimeError(f"{where} the ranks name different source or destination ranks ({roots}). {_MISMATCH}")


def _dtype_name(code: int) -> str:
    return str(ALL[code]) if code >= 0 else "an unknown dtype"


def _buffer(tensor):
    """A contiguous array MPI can work on, and the function that writes it back into ``tensor``."""
    data = tensor._data
    wider = _WIDER.get(data.dtype)
    if wider is None and data.flags.c_contiguous:
        return data, None
    buf = np.ascontiguousarray(data, dtype=wider or data.dtype)
    return buf, lambda: np.copyto(data, buf, casting="unsafe")


def _finish(*steps):
    steps = [s for s in steps if s is not None]
    return (lambda: [s() for s in steps]) if steps else None


def _run(requests, pg: ProcessGroup, name: str, finish, async_op: bool):
    work = Work(requests, pg, name, finish)
    if async_op:
        return work
    work.wait()
    return None


def _mpi_op(op):
    if not isinstance(op, ReduceOp):
        raise TypeError(f"op must be a tinytorch.distributed.ReduceOp, not {op!r}")
    MPI = _world.MPI
    return {ReduceOp.SUM: MPI.SUM, ReduceOp.AVG: MPI.SUM, ReduceOp.PRODUCT: MPI.PROD, ReduceOp.MIN: MPI.MIN,
            ReduceOp.MAX: MPI.MAX, ReduceOp.BAND: MPI.BAND, ReduceOp.BOR: MPI.BOR, ReduceOp.BXOR: MPI.BXOR}[op]


def _averaging(op, buf: np.ndarray, size: int):
    if op is not ReduceOp.AVG:
        return None
    if buf.dtype not in FLOATING_NP:
        raise ValueError(f"ReduceOp.AVG needs a floating point tensor, got {buf.dtype}")
    return lambda: np.divide(buf, size, out=buf)


def all_reduce(tensor, op=ReduceOp.SUM, group=None, async_op: bool = False):
    """Reduce ``tensor`` across the group, in place on every rank."""
    pg = _group(group)
    if pg is None:
        return None
    _mpi_op(op)  # an invalid op raises before the exchange, on every rank alike
    _agree(pg, "all_reduce", tensor._data)
    return _all_reduce(tensor, op, pg, async_op)


def _all_reduce(tensor, op, pg: ProcessGroup, async_op: bool):
    """``all_reduce`` without the agreement check. DDP's bucket reductions come here: their sizes are equal
    on every rank by construction, and a blocking check in each gradient hook would make every rank wait
    for the others' backward pass there, serializing the reductions the buckets exist to overlap."""
    buf, write_back = _buffer(tensor)
    req = pg._comm.Iallreduce(_world.MPI.IN_PLACE, buf, op=_mpi_op(op))
    return _run([req], pg, "all_reduce", _finish(_averaging(op, buf, pg.size()), write_back), async_op)


def reduce(tensor, dst=None, op=ReduceOp.SUM, group=None, async_op: bool = False, group_dst=None):
    """Reduce ``tensor`` across the group into rank ``dst``'s tensor."""
    pg = _group(group)
    if pg is None:
        return None
    root = _root(pg, dst, group_dst, "dst")
    mpi_op = _mpi_op(op)
    _agree(pg, "reduce", tensor._data, root=root)
    buf, write_back = _buffer(tensor)
    if pg.rank() == root:
        req = pg._comm.Ireduce(_world.MPI.IN_PLACE, buf, op=mpi_op, root=root)
        finish = _finish(_averaging(op, buf, pg.size()), write_back)
    else:
        req = pg._comm.Ireduce(buf, None, op=mpi_op, root=root)
        finish = None
    return _run([req], pg, "reduce", finish, async_op)


def broadcast(tensor, src=None, group=None, async_op: bool = False, group_src=None):
    """Copy rank ``src``'s tensor into every other rank's."""
    pg = _group(group)
    if pg is None:
        return None
    root = _root(pg, src, group_src, "src")
    _agree(pg, "broadcast", tensor._data, root=root)
    return _broadcast(tensor, root, pg, async_op)


def _broadcast(tensor, root: int, pg: ProcessGroup, async_op: bool):
    """``broadcast`` without the agreement check, for DDP's buffers at each forward: the same module's
    buffers on every rank, checked once by the broadcast that made the replicas equal."""
    buf, write_back = _buffer(tensor)
    req = pg._comm.Ibcast(buf, root=root)
    return _run([req], pg, "broadcast", write_back if pg.rank() != root else None, async_op)


def _list_problem(tensors, pg: ProcessGroup, tensor, name: str, which: str) -> Exception | None:
    """What is wrong with a per-rank tensor list, in PyTorch's words (its Python layer checks the dtypes,
    then gloo the length and the sizes), or None. Returned, not raised: ``_agree`` raises it after the exchange."""
    for t in tensors:
        if t._data.dtype != tensor._data.dtype:
            return ValueError(f"Invalid usage of tensors with different dtypesFound {tensor.dtype} and  {t.dtype}")
    if len(tensors) != pg.size():
        return RuntimeError(f"ProcessGroupGloo::{name}: invalid {which} tensor list at index 0 (expected length "
                            f"{pg.size()}, got {len(tensors)})")
    for i, t in enumerate(tensors):
        if tuple(t.shape) != tuple(tensor.shape):
            return RuntimeError(f"ProcessGroupGloo::{name}: invalid tensor size at index {i} (expected "
                                f"{_sizes(tensor.shape)}, got {_sizes(t.shape)})")
    return None


def _sizes(shape) -> str:
    return "(" + ", ".join(map(str, shape)) + ")"  # as gloo prints sizes: (2, 3)


def _unstack_into(stacked: np.ndarray, tensors) -> None:
    for t, part in zip(tensors, stacked):
        np.copyto(t._data, part, casting="unsafe")


def all_gather(tensor_list, tensor, group=None, async_op: bool = False):
    """Every rank's ``tensor`` into every rank's ``tensor_list`` (index = group rank)."""
    pg = _group(group)
    if pg is None:
        return None
    _agree(pg, "all_gather", tensor._data, _list_problem(tensor_list, pg, tensor, "allgather", "output"))
    send = np.ascontiguousarray(tensor._data)
    stacked = np.empty((pg.size(),) + send.shape, dtype=send.dtype)
    req = pg._comm.Iallgather(send, stacked)
    return _run([req], pg, "all_gather", lambda: _unstack_into(stacked, tensor_list), async_op)


def all_gather_into_tensor(output_tensor, input_tensor, group=None, async_op: bool = False):
    """Every rank's ``input_tensor`` concatenated along dim 0 into ``output_tensor``."""
    pg = _group(group)
    if pg is None:
        return None
    out, inp = output_tensor._data, input_tensor._data
    problem = None
    if out.dtype != inp.dtype:
        problem = ValueError(f"Invalid usage of tensors with different dtypesFound {input_tensor.dtype} and  "
                             f"{output_tensor.dtype}")
    elif out.size != inp.size * pg.size():
        problem = RuntimeError(f"all_gather_into_tensor: the output tensor has {out.size} elements; it must have "
                               f"world_size ({pg.size()}) times the input's {inp.size}")
    _agree(pg, "all_gather_into_tensor", inp, problem)
    buf, write_back = _buffer(output_tensor)
    req = pg._comm.Iallgather(np.ascontiguousarray(inp, dtype=buf.dtype), buf)
    return _run([req], pg, "all_gather_into_tensor", write_back, async_op)


def gather(tensor, gather_list=None, dst=None, group=None, async_op: bool = False, group_dst=None):
    """Every rank's ``tensor`` into ``gather_list`` on rank ``dst``."""
    pg = _group(group)
    if pg is None:
        return None
    root = _root(pg, dst, group_dst, "dst")
    is_root = pg.rank() == root
    if is_root and gather_list is None:
        problem = ValueError("Argument ``gather_list`` must be specified on destination rank.")
    elif is_root:
        problem = _list_problem(gather_list, pg, tensor, "gather", "output")
    elif gather_list:
        problem = ValueError("Argument ``gather_list`` must NOT be specified on non-destination ranks.")
    else:
        problem = None
    _agree(pg, "gather", tensor._data, problem, root=root)
    send = np.ascontiguousarray(tensor._data)
    if not is_root:
        return _run([pg._comm.Igather(send, None, root=root)], pg, "gather", None, async_op)
    stacked = np.empty((pg.size(),) + send.shape, dtype=send.dtype)
    req = pg._comm.Igather(send, stacked, root=root)
    return _run([req], pg, "gather", lambda: _unstack_into(stacked, gather_list), async_op)


def scatter(tensor, scatter_list=None, src=None, group=None, async_op: bool = False, group_src=None):
    """Rank ``src``'s ``scatter_list[i]`` into rank i's ``tensor``."""
    pg = _group(group)
    if pg is None:
        return None
    root = _root(pg, src, group_src, "src")
    is_root = pg.rank() == root
    if is_root and scatter_list is None:
        problem = ValueError("Argument ``scatter_list`` must be specified on source rank.")
    elif is_root:
        problem = _list_problem(scatter_list, pg, tensor, "scatter", "input")
    elif scatter_list:
        problem = ValueError("Argument ``scatter_list`` must NOT be specified on non-source ranks.")
    else:
        problem = None
    _agree(pg, "scatter", tensor._data, problem, root=root)
    buf, write_back = _buffer(tensor)
    if is_root:
        stacked = np.ascontiguousarray(np.stack([t._data for t in scatter_list]), dtype=buf.dtype)
        req = pg._comm.Iscatter(stacked, buf, root=root)
    else:
        req = pg._comm.Iscatter(None, buf, root=root)
    return _run([req], pg, "scatter", write_back, async_op)


def barrier(group=None, async_op: bool = False, device_ids=None, timeout=None):
    """Wait until every rank of the group reaches this call."""
    pg = _group(group)
    if pg is None:
        return None
    work = Work([pg._comm.Ibarrier()], pg, "barrier")
    if async_op:
        return work
    work.wait(timeout)
    return None


def isend(tensor, dst=None, group=None, tag: int = 0, group_dst=None):
    pg = _group(group)
    if pg is None:
        return None
    peer = _root(pg, dst, group_dst, "dst")
    if peer == pg.rank():  # MPI would take it and hold it for a receive of its own; PyTorch's gloo refuses at once
        raise RuntimeError("Invalid destination rank: destination rank should not be the same as the rank of the "
                           "current process.")
    return Work([pg._comm.Isend(np.ascontiguousarray(tensor._data), dest=peer, tag=tag)], pg, "send")


def send(tensor, dst=None, group=None, tag: int = 0, group_dst=None) -> None:
    """Send ``tensor`` to rank ``dst`` (blocks until MPI has taken the buffer)."""
    pg = _group(group)
    if pg is not None and _root(pg, dst, group_dst, "dst") == pg.rank():  # would wait for itself forever
        raise ValueError("Invalid destination rank: destination rank should not be the same as the rank of the "
                         "current process.")
    work = isend(tensor, dst, group, tag, group_dst)
    if work is not None:
        work.wait()


def _source(pg: ProcessGroup, src, group_src) -> int:
    """The group rank to receive from (MPI's ANY_SOURCE when neither is given); never this rank's own,
    which would wait for itself until the timeout (PyTorch's gloo refuses it at once with a RuntimeError)."""
    if src is None and group_src is None:
        return _world.MPI.ANY_SOURCE
    peer = _root(pg, src, group_src, "src")
    if peer == pg.rank():
        raise RuntimeError("Invalid source rank: source rank should not be the same as the rank of the current "
                           "process.")
    return peer


def irecv(tensor, src=None, group=None, tag: int = 0, group_src=None):
    pg = _group(group)
    if pg is None:
        return None
    peer = _source(pg, src, group_src)
    buf, write_back = _buffer(tensor)
    return Work([pg._comm.Irecv(buf, source=peer, tag=tag)], pg, "recv", write_back)


def recv(tensor, src=None, group=None, tag: int = 0, group_src=None) -> int:
    """Receive into ``tensor`` from rank ``src`` (any rank when None); returns the sender's rank."""
    pg = _group(group)
    if pg is None:
        return -1
    MPI = _world.MPI
    peer = _source(pg, src, group_src)
    status = MPI.Status()
    # probe first so the wait honours the timeout and tells us who sent, then take the message
    _wait_all([_Probe(pg._comm, peer, tag, status)], pg, "recv")
    sender = status.Get_source()
    buf, write_back = _buffer(tensor)
    pg._comm.Recv(buf, source=sender, tag=tag)
    if write_back is not None:
        write_back()
    return pg.ranks[sender]


class _Probe:
    """A request-like wrapper of ``Iprobe`` so ``recv`` can poll it under the timeout."""

    def __init__(self, comm, source, tag, status):
        self._args = (source, tag, status)
        self._comm = comm

    def Test(self) -> bool:
        return bool(self._comm.Iprobe(*self._args))


def all_gather_object(object_list, obj, group=None) -> None:
    """Every rank's picklable ``obj`` into ``object_list`` (index = group rank)."""
    pg = _group(group)
    if pg is None:
        return
    if len(object_list) != pg.size():
        raise RuntimeError(f"all_gather_object: object_list must have {pg.size()} entries, got {len(object_list)}")
    object_list[:] = pg._comm.allgather(obj)


def broadcast_object_list(object_list, src=None, group=None, device=None, group_src=None) -> None:
    """Rank ``src``'s list of picklable objects into every rank's ``object_list``, in place."""
    pg = _group(group)
    if pg is None:
        return
    root = _root(pg, src, group_src, "src")
    objs = pg._comm.bcast(list(object_list) if pg.rank() == root else None, root=root)
    object_list[:] = objs
