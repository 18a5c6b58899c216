"""``default_collate``: turn a list of samples into a batch, with PyTorch's rules and messages.

Tensors, numpy arrays and PyTorch's own tensors are stacked along a new first dimension; Python
floats become float64, ints int64 and bools bool; strings stay a list; dicts, namedtuples, tuples
and lists are collated field by field (a tuple sample gives a *list* of fields, as in PyTorch)."""
from __future__ import annotations

import collections.abc
import copy
import re
import sys

import numpy as np

from .. import _dtype
from .._ops.creation.factory import as_tensor
from .._ops.shape.join import stack
from ._tensors import Tensor, is_torch_tensor, stack_arrays, torch_to_numpy, wrap

__all__ = ["default_collate", "default_convert"]

_ERR_FORMAT = ("default_collate: batch must contain tensors, numpy arrays, numbers, dicts or "
               "lists; found {}")
# numpy dtype strings of bytes, unicode and object arrays: these cannot become tensors
_NP_STR_OBJ = re.compile(r"[SaUO]")


class _StackedSamples(list):
    """A list of ``(image, target)`` samples that also carries the batch they collate to.

    Custom ``collate_fn``s see an ordinary list of samples. ``default_collate`` returns the carried
    batch at once instead of stacking the samples again. Any change to the list drops the carried
    batch, so a modified list is collated from its (modified) samples."""

    __slots__ = ("_collated",)

    def __init__(self, samples, collated: tuple) -> None:
        list.__init__(self, samples)
        self._collated = collated

    def __reduce_ex__(self, protocol):
        # crossing a process boundary as a plain list keeps the message half the size
        return (list, (list(self),))


def _dropping_batch(name: str):
    method = getattr(list, name)

    def mutate(self, *args):
        self._collated = None
        return method(self, *args)

    mutate.__name__ = name
    return mutate


for _name in ("__setitem__", "__delitem__", "__iadd__", "__imul__", "append", "extend", "insert",
              "pop", "remove", "sort", "reverse", "clear"):
    setattr(_StackedSamples, _name, _dropping_batch(_name))


def _in_worker() -> bool:
    """Whether this process is a DataLoader worker: only a worker has loaded ``_worker`` (``import tinytorch``
    leaves it out, and so does this module)."""
    worker = sys.modules.get(f"{__package__}._worker")
    return worker is not None and worker.get_worker_info() is not None


def _stack_tensors(batch: list) -> Tensor:
    if _in_worker() and any(t.dtype != batch[0].dtype for t in batch):
        _check_worker_stack(batch)
        return wrap(stack_arrays([t._data for t in batch]).astype(batch[0]._data.dtype))
    if any(t.requires_grad for t in batch):
        # only the core's stack records the graph
        return stack(batch, 0)
    return wrap(stack_arrays([t._data for t in batch]))


def _check_worker_stack(batch: list) -> None:
    """In a worker PyTorch stacks the samples into shared memory of the first sample's dtype (``out=``): the batch
    takes that dtype, and a later sample of a higher kind (a float after an int) cannot be cast into it, its
    TypeError, where the main process would have promoted the batch."""
    first = batch[0].dtype
    if any(t.dtype._category > first._category for t in batch[1:]):
        raise TypeError(f"torch.cat(): input types can't be cast to the desired output type {first._scalar}")


def _numbers_tensor(batch: list) -> Tensor:
    """``tensor(batch)`` for Python numbers: bools -> bool, ints -> int64, else default float."""
    if all(type(x) is bool for x in batch):
        return wrap(np.array(batch, dtype=np.bool_))
    if all(isinstance(x, int) for x in batch):
        return wrap(np.array(batch, dtype=np.int64))
    return wrap(np.array(batch, dtype=_dtype.get_default_dtype().np))


def _same_mapping(like, fields: dict):
    """``fields`` in a mapping of ``like``'s type where that type can be rebuilt, else a dict."""
    try:
        if isinstance(like, collections.abc.MutableMapping):
            # a mapping subclass may carry more than its items: keep it and replace the values
            clone = copy.copy(like)
            clone.update(fields)
            return clone
        return type(like)(fields)
    except TypeError:
        return fields


def _same_sequence(like, items: list):
    """``items`` in a sequence of ``like``'s type where that type can be rebuilt, else a list."""
    try:
        if isinstance(like, collections.abc.MutableSequence):
            clone = copy.copy(like)
            for i, item in enumerate(items):
                clone[i] = item
            return clone
        return type(like)(items)
    except TypeError:
        return items


def default_collate(batch):
    """Collate a list of samples into a batch as ``torch.utils.data.default_collate`` does."""
    if type(batch) is _StackedSamples and batch._collated is not None:
        return list(batch._collated)
    elem = batch[0]
    if isinstance(elem, Tensor):
        return _stack_tensors(batch)
    if is_torch_tensor(elem):
        return wrap(stack_arrays([torch_to_numpy(t) for t in batch]))
    if isinstance(elem, np.ndarray):
        if _NP_STR_OBJ.search(elem.dtype.str) is not None:
            raise TypeError(_ERR_FORMAT.format(elem.dtype))
        # PyTorch collates the arrays as tensors (as_tensor each): in a worker, the tensors' shared-memory rule
        return _stack_tensors([wrap(np.asarray(b)) for b in batch])
    if isinstance(elem, (np.bool_, np.number, np.object_)):
        return as_tensor(batch)  # PyTorch's as_tensor of the list: int64 then float32 gives float32
    if isinstance(elem, float):
        return wrap(np.array(batch, dtype=np.float64))
    if isinstance(elem, int):
        return _numbers_tensor(batch)
    if isinstance(elem, (str, bytes)):
        return batch
    if isinstance(elem, collections.abc.Mapping):
        return _same_mapping(elem, {key: default_collate([d[key] for d in batch]) for key in elem})
    if isinstance(elem, tuple) and hasattr(elem, "_fields"):  # namedtuple
        return type(elem)(*(default_collate(samples) for samples in zip(*batch)))
    if isinstance(elem, collections.abc.Sequence):
        size = len(elem)
        if any(len(e) != size for e in batch):
            raise RuntimeError("each element in list of batch should be of equal size")
        columns = [default_collate(samples) for samples in zip(*batch)]
        return columns if isinstance(elem, tuple) else _same_sequence(elem, columns)
    raise TypeError(_ERR_FORMAT.format(type(elem)))


def default_convert(data):
    """Without batching: numpy arrays and numbers-of-numpy become tensors, containers are walked."""
    if isinstance(data, Tensor):
        return data
    if is_torch_tensor(data):
        return wrap(torch_to_numpy(data))
    if isinstance(data, np.ndarray):
        if _NP_STR_OBJ.search(data.dtype.str) is not None:
            return data
        return wrap(data)
    if isinstance(data, (np.bool_, np.number)):
        return wrap(np.asarray(data))
    if isinstance(data, (str, bytes)):
        return data
    if isinstance(data, collections.abc.Mapping):
        return _same_mapping(data, {key: default_convert(data[key]) for key in data})
    if isinstance(data, tuple) and hasattr(data, "_fields"):
        return type(data)(*(default_convert(d) for d in data))
    if isinstance(data, tuple):
        return [default_convert(d) for d in data]
    if isinstance(data, collections.abc.Sequence):
        return _same_sequence(data, [default_convert(d) for d in data])
    return data

