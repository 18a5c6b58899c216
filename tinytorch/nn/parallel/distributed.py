"""``DistributedDataParallel``: one model replica per rank, gradients averaged during backward.

At construction rank 0's parameters and buffers are broadcast, so every replica starts equal. The
parameters are dealt into buckets in reverse registration order (roughly the order backward produces
their gradients). A post-accumulate-grad hook marks each parameter ready; when a bucket is complete,
its gradients are packed into one flat buffer, divided by the world size and sent off with a
non-blocking allreduce, so communication overlaps the rest of backward. When the last bucket has been
sent, every reduction is waited for and the averages are written back into the ``.grad`` tensors."""
from __future__ import annotations

import contextlib

import numpy as np

from ... import distributed as dist
from ...autograd.grad_mode import is_grad_enabled
from ..._ops.creation.factory import from_numpy
from ...tensor import Tensor
from ..modules.module import Module

_FIRST_BUCKET_BYTES = 1024 * 1024  # a small first bucket starts communication early, as PyTorch does


class _Bucket:
    def __init__(self, params):
        self.params = params
        self.sizes = [p.numel() for p in params]
        self.buffer = np.zeros(sum(self.sizes), dtype=params[0]._data.dtype)
        self.pending = len(params)
        self.work = None

    def pack(self) -> None:
        offset = 0
        for p, n in zip(self.params, self.sizes):
            g = p.grad
            if g is None:  # unused this iteration (find_unused_parameters): contributes zeros
                self.buffer[offset:offset + n] = 0
            else:
                self.buffer[offset:offset + n] = g._data.reshape(-1)
            offset += n

    def unpack(self) -> None:
        offset = 0
        for p, n in zip(self.params, self.sizes):
            avg = self.buffer[offset:offset + n].reshape(p._data.shape)
            g = p.grad
            if g is None:
                p.grad = from_numpy(avg.copy())
            elif g._data.flags.writeable:
                np.copyto(g._data, avg)
            else:
                p.grad = from_numpy(avg.copy())
            offset += n


def _assign_buckets(params, cap_bytes: int):
    """Deal parameters, last registered first, into buckets of about ``cap_bytes`` (one dtype each)."""
    buckets, current, size, limit = [], [], 0, min(_FIRST_BUCKET_BYTES, cap_bytes)
    for p in reversed(params):
        if current and (size >= limit or p._data.dtype != current[0]._data.dtype):
            buckets.append(_Bucket(current))
            current, size, limit = [], 0, cap_bytes
        current.append(p)
        size += p._data.nbytes
    if current:
        buckets.append(_Bucket(current))
    return buckets


class DistributedDataParallel(Module):
    """Data-parallel training: wrap the model on every rank, train as usual, gradients are averaged."""

    def __init__(self, module: Module, device_ids=None, output_device=None, dim: int = 0,
                 broadcast_buffers: bool | None = True, init_sync: bool = True, process_group=None,
                 bucket_cap_mb: float | None = None, find_unused_parameters: bool = False,
                 check_reduction: bool = False, gradient_as_bucket_view: bool = False, static_graph: bool = False,
                 **unused):
        super().__init__()
        self.module = module
        self.process_group = process_group if process_group is not None else dist.group.WORLD
        if self.process_group is None:
            raise ValueError(dist.distributed_c10d._NOT_INITIALIZED)
        self.broadcast_buffers = True if broadcast_buffers is None else bool(broadcast_buffers)
        self.find_unused_parameters = find_unused_parameters
        self.require_backward_grad_sync = True
        self._params = [p for p in module.parameters() if p.requires_grad]
        if not self._params:
            raise RuntimeError("DistributedDataParallel is not needed when a module doesn't have any parameter "
                               "that requires a gradient.")
        self._world_size = dist.get_world_size(self.process_group)
        self._root = self.process_group.ranks[0]
        if init_sync:
            for t in list(module.parameters()) + list(module.buffers()):
                dist.broadcast(t, src=self._root, group=self.process_group)
        cap = int((25 if bucket_cap_mb is None else bucket_cap_mb) * 1024 * 1024)
        self._buckets = _assign_buckets(self._params, cap)
        self._bucket_of = {}
        for b in self._buckets:
            for p in b.params:
                self._bucket_of[id(p)] = b
        self._launched = 0
        self._ready = set()
        self._handles = [p.register_post_accumulate_grad_hook(self._on_grad_ready) for p in self._params]

    # -- reduction ------------------------------------------------------------------------------------
    def _on_grad_ready(self, param) -> None:
        if not self.require_backward_grad_sync or id(param) in self._ready:
            return
        self._ready.add(id(param))
        bucket = self._bucket_of[id(param)]
        bucket.pending -= 1
        if bucket.pending == 0:
            self._launch(bucket)

    def _launch(self, bucket: _Bucket) -> None:
        bucket.pack()
        # divide before summing, as PyTorch does, so large world sizes do not overflow float16
        np.divide(bucket.buffer, self._world_size, out=bucket.buffer)
        # unchecked: the buckets are the same sizes on every rank by construction (collectives._all_reduce)
        bucket.work = dist.collectives._all_reduce(_FlatView(bucket.buffer), dist.ReduceOp.SUM,
                                                   self.process_group, async_op=True)
        self._launched += 1
        if self._launched == len(self._buckets):
            self._finish()

    def _finish(self) -> None:
        for b in self._buckets:
            b.work.wait()
            b.unpack()
            b.work = None
            b.pending = len(b.params)
        self._launched = 0
        self._ready.clear()

    def _mark_unused(self, outputs) -> None:
        """With find_unused_parameters: parameters the outputs do not depend on are ready at once."""
        used, stack, seen = set(), [], set()
        for out in _tensors_in(outputs):
            if out.grad_fn is not None:
                stack.append(out.grad_fn)
        while stack:
            node = stack.pop()
            if node is None or id(node) in seen:
                continue
            seen.add(id(node))
            var = getattr(node, "variable", None)
            if var is not None:
                used.add(id(var))
            stack.extend(n for n, _ in node.next_functions)
        for p in self._params:
            if id(p) not in used:
                self._on_grad_ready(p)

    # -- Module -----------------------------------------------------------------------------------------
    def forward(self, *inputs, **kwargs):
        if self._launched or self._ready:
            if self.require_backward_grad_sync and not self.find_unused_parameters:
                raise RuntimeError(
                    "Expected to have finished reduction in the prior iteration before starting a new one. "
                    "This error indicates that your module has parameters that were not used in producing "
                    "loss. You can enable unused parameter detection by passing the keyword argument "
                    "`find_unused_parameters=True` to `torch.nn.parallel.DistributedDataParallel`.")
            self._reset_pending()
        if self.broadcast_buffers:
            root = self.process_group.ranks.index(self._root)
            for b in self.module.buffers():  # checked once at construction (collectives._broadcast)
                dist.collectives._broadcast(b, root, self.process_group, async_op=False)
        outputs = self.module(*inputs, **kwargs)
        if self.find_unused_parameters and self.require_backward_grad_sync and is_grad_enabled():
            self._mark_unused(outputs)
        return outputs

    def _reset_pending(self) -> None:
        for b in self._buckets:
            if b.work is not None:
                b.work.wait()
                b.work = None
            b.pending = len(b.params)
        self._launched = 0
        self._ready.clear()

    @contextlib.contextmanager
    def no_sync(self):
        """Accumulate gradients locally; the first backward after the block averages the sum."""
        previous = self.require_backward_grad_sync
        self.require_backward_grad_sync = False
        try:
            yield
        finally:
            self.require_backward_grad_sync = previous


class _FlatView:
    """The minimal tensor face ``all_reduce`` needs, over a bucket's flat numpy buffer."""
    __slots__ = ("_data",)

    def __init__(self, data: np.ndarray):
        self._data = data


def _tensors_in(obj):
    if isinstance(obj, Tensor):
        yield obj
    elif isinstance(obj, (list, tuple)):
        for o in obj:
            yield from _tensors_in(o)
    elif isinstance(obj, dict):
        for o in obj.values():
            yield from _tensors_in(o)
