"""The collectives: ``all_reduce``, ``broadcast``, ``all_gather``, ... with PyTorch's signatures.

Each one starts MPI's non-blocking form on the tensor's own buffer and waits under the group's
timeout (or hands back a ``Work`` for ``async_op=True``). Ranks named by ``src``/``dst`` are global
ranks, as in PyTorch; ``group_src``/``group_dst`` name a rank inside ``group``."""
from __future__ import annotations

import numpy as np

from .._dtype import FLOATING_NP
from .c10d import GroupMember, ProcessGroup, ReduceOp, Work, _default_group, _wait_all, _world

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
    mpi_op = _mpi_op(op)
    buf, write_back = _buffer(tensor)
    req = pg._comm.Iallreduce(_world.MPI.IN_PLACE, buf, op=mpi_op)
    return _run([req], pg, "all_reduce", _finish(_averaging(op, buf, pg.size()), write_back), async_op)


def reduce(tensor, dst=None, op=ReduceOp.SUM, group=None, async_op: bool = False, group_dst=None):
    """Reduce ``tensor`` across the group into rank ``dst``'s tensor."""
    pg = _group(group)
    if pg is None:
        return None
    root = _root(pg, dst, group_dst, "dst")
    mpi_op = _mpi_op(op)
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
    buf, write_back = _buffer(tensor)
    req = pg._comm.Ibcast(buf, root=root)
    return _run([req], pg, "broadcast", write_back if pg.rank() != root else None, async_op)


def _check_list(tensors, pg: ProcessGroup, tensor, name: str) -> None:
    if len(tensors) != pg.size():
        raise RuntimeError(f"{name}: the tensor list must hold {pg.size()} tensors (one per rank), "
                           f"got {len(tensors)}")
    for i, t in enumerate(tensors):
        if tuple(t.shape) != tuple(tensor.shape) or t._data.dtype != tensor._data.dtype:
            raise RuntimeError(f"{name}: tensor {i} of the list has shape {list(t.shape)} and dtype {t.dtype}, "
                               f"expected {list(tensor.shape)} and {tensor.dtype}")


def _unstack_into(stacked: np.ndarray, tensors) -> None:
    for t, part in zip(tensors, stacked):
        np.copyto(t._data, part, casting="unsafe")


def all_gather(tensor_list, tensor, group=None, async_op: bool = False):
    """Every rank's ``tensor`` into every rank's ``tensor_list`` (index = group rank)."""
    pg = _group(group)
    if pg is None:
        return None
    _check_list(tensor_list, pg, tensor, "all_gather")
    send = np.ascontiguousarray(tensor._data)
    stacked = np.empty((pg.size(),) + send.shape, dtype=send.dtype)
    req = pg._comm.Iallgather(send, stacked)
    return _run([req], pg, "all_gather", lambda: _unstack_into(stacked, tensor_list), async_op)


def all_gather_into_tensor(output_tensor, input_tensor, group=None, async_op: bool = False):
    """Every rank's ``input_tensor`` concatenated along dim 0 into ``output_tensor``."""
    pg = _group(group)
    if pg is None:
        return None
    buf, write_back = _buffer(output_tensor)
    req = pg._comm.Iallgather(np.ascontiguousarray(input_tensor._data, dtype=buf.dtype), buf)
    return _run([req], pg, "all_gather_into_tensor", write_back, async_op)


def gather(tensor, gather_list=None, dst=None, group=None, async_op: bool = False, group_dst=None):
    """Every rank's ``tensor`` into ``gather_list`` on rank ``dst``."""
    pg = _group(group)
    if pg is None:
        return None
    root = _root(pg, dst, group_dst, "dst")
    send = np.ascontiguousarray(tensor._data)
    if pg.rank() == root:
        if gather_list is None:
            raise ValueError("Argument ``gather_list`` must be specified on destination rank.")
        _check_list(gather_list, pg, tensor, "gather")
        stacked = np.empty((pg.size(),) + send.shape, dtype=send.dtype)
        req = pg._comm.Igather(send, stacked, root=root)
        return _run([req], pg, "gather", lambda: _unstack_into(stacked, gather_list), async_op)
    if gather_list:
        raise ValueError("Argument ``gather_list`` must NOT be specified on non-destination ranks.")
    return _run([pg._comm.Igather(send, None, root=root)], pg, "gather", None, async_op)


def scatter(tensor, scatter_list=None, src=None, group=None, async_op: bool = False, group_src=None):
    """Rank ``src``'s ``scatter_list[i]`` into rank i's ``tensor``."""
    pg = _group(group)
    if pg is None:
        return None
    root = _root(pg, src, group_src, "src")
    buf, write_back = _buffer(tensor)
    if pg.rank() == root:
        if scatter_list is None:
            raise ValueError("Argument ``scatter_list`` must be specified on source rank.")
        _check_list(scatter_list, pg, tensor, "scatter")
        stacked = np.ascontiguousarray(np.stack([t._data for t in scatter_list]), dtype=buf.dtype)
        req = pg._comm.Iscatter(stacked, buf, root=root)
    else:
        if scatter_list:
            raise ValueError("Argument ``scatter_list`` must NOT be specified on non-source ranks.")
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


def irecv(tensor, src=None, group=None, tag: int = 0, group_src=None):
    pg = _group(group)
    if pg is None:
        return None
    peer = _world.MPI.ANY_SOURCE if src is None and group_src is None else _root(pg, src, group_src, "src")
    buf, write_back = _buffer(tensor)
    return Work([pg._comm.Irecv(buf, source=peer, tag=tag)], pg, "recv", write_back)


def recv(tensor, src=None, group=None, tag: int = 0, group_src=None) -> int:
    """Receive into ``tensor`` from rank ``src`` (any rank when None); returns the sender's rank."""
    pg = _group(group)
    if pg is None:
        return -1
    MPI = _world.MPI
    peer = MPI.ANY_SOURCE if src is None and group_src is None else _root(pg, src, group_src, "src")
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
