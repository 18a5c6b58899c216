"""DataLoader: a dataset, a sampler and a collate function put together into an iterable of batches.

The constructor checks its arguments in PyTorch's order with PyTorch's messages. Each iteration
draws a base seed from ``generator`` (the default generator when None), as PyTorch does, so worker
seeds and the default generator's state after an epoch match the same program on PyTorch's
bookkeeping, and ``tinytorch.manual_seed`` makes a whole run reproducible."""
from __future__ import annotations

import math
import os
import warnings
from collections.abc import Callable, Iterable

from ..random import Generator
# the iterators: also tinytorch.data.dataloader._BaseDataLoaderIter & co, where PyTorch has them
from ._loader_iter import _BaseDataLoaderIter, _DatasetKind, _SingleProcessDataLoaderIter  # noqa: F401
from .collate import default_collate, default_convert
from .dataset import Dataset, IterableDataset
from .sampler import BatchSampler, RandomSampler, Sampler, SequentialSampler

__all__ = ["DataLoader"]


# PyTorch refuses to change these once the loader exists: its iterators have read them
_FROZEN_AFTER_INIT = ("batch_size", "batch_sampler", "sampler", "drop_last", "dataset",
                      "persistent_workers")


class _InfiniteConstantSampler(Sampler):
    """None, forever: an iterable dataset decides itself when a pass ends."""

    def __iter__(self):
        while True:
            yield None


class DataLoader:
    """Iterate over ``dataset`` in batches, optionally shuffled, optionally loaded by workers."""

    _initialized = False

    def __init__(self, dataset: Dataset, batch_size: int | None = 1, shuffle: bool | None = None,
                 sampler: Sampler | Iterable | None = None,
                 batch_sampler: Sampler | Iterable | None = None, num_workers: int = 0,
                 collate_fn: Callable | None = None, pin_memory: bool = False,
                 drop_last: bool = False, timeout: float = 0,
                 worker_init_fn: Callable | None = None, multiprocessing_context=None,
                 generator: Generator | None = None, *, prefetch_factor: int | None = None,
                 persistent_workers: bool = False, pin_memory_device: str = "",
                 in_order: bool = True) -> None:
        if num_workers < 0:
            raise ValueError("num_workers option should be non-negative; use num_workers=0 to "
                             "disable multiprocessing.")
        if timeout < 0:
            raise ValueError("timeout option should be non-negative")
        if num_workers == 0 and prefetch_factor is not None:
            raise ValueError("prefetch_factor option could only be specified in "
                             "multiprocessing.let num_workers > 0 to enable multiprocessing, "
                             "otherwise set prefetch_factor to None.")
        if num_workers > 0 and prefetch_factor is None:
            prefetch_factor = 2
        elif prefetch_factor is not None and prefetch_factor < 0:
            raise ValueError("prefetch_factor option should be non-negative")
        if persistent_workers and num_workers == 0:
            raise ValueError("persistent_workers option needs num_workers > 0")

        self.dataset = dataset
        self.num_workers = num_workers
        self.prefetch_factor = prefetch_factor
        self.pin_memory = pin_memory  # accepted for compatibility: there is only the CPU
        self.pin_memory_device = pin_memory_device
        self.timeout = timeout
        self.worker_init_fn = worker_init_fn
        self.multiprocessing_context = multiprocessing_context
        self.in_order = in_order

        if isinstance(dataset, IterableDataset):
            self._dataset_kind = _DatasetKind.Iterable
            head = "DataLoader with IterableDataset: expected unspecified"
            if shuffle not in {False, None}:
                raise ValueError(f"{head} shuffle option, but got shuffle={shuffle}")
            if sampler is not None:
                raise ValueError(f"{head} sampler option, but got sampler={sampler}")
            if batch_sampler is not None:
                raise ValueError(f"{head} batch_sampler option, but got "
                                 f"batch_sampler={batch_sampler}")
        else:
            shuffle = bool(shuffle)
            self._dataset_kind = _DatasetKind.Map

        if sampler is not None and shuffle:
            raise ValueError("sampler option is mutually exclusive with shuffle")
        if batch_sampler is not None:
            if batch_size != 1 or shuffle or sampler is not None or drop_last:
                raise ValueError("batch_sampler option is mutually exclusive with batch_size, "
                                 "shuffle, sampler, and drop_last")
            batch_size = None
            drop_last = False
        elif batch_size is None and drop_last:
            raise ValueError("batch_size=None option disables auto-batching and is mutually "
                             "exclusive with drop_last")

        if sampler is None:
            if self._dataset_kind == _DatasetKind.Iterable:
                sampler = _InfiniteConstantSampler()
            elif shuffle:
                sampler = RandomSampler(dataset, generator=generator)
            else:
                sampler = SequentialSampler(dataset)
        if batch_size is not None and batch_sampler is None:
            batch_sampler = BatchSampler(sampler, batch_size, drop_last)

        self.batch_size = batch_size
        self.drop_last = drop_last
        self.sampler = sampler
        self.batch_sampler = batch_sampler
        self.generator = generator
        if collate_fn is None:
            collate_fn = default_collate if self._auto_collation else default_convert
        self.collate_fn = collate_fn
        self.persistent_workers = persistent_workers
        self._iterator = None
        self._initialized = True
        self.check_worker_number_rationality()

    @property
    def multiprocessing_context(self):
        return self._multiprocessing_context

    @multiprocessing_context.setter
    def multiprocessing_context(self, context) -> None:
        if context is not None:
            if self.num_workers <= 0:
                raise ValueError("multiprocessing_context can only be used with multi-process "
                                 "loading (num_workers > 0), but got "
                                 f"num_workers={self.num_workers}")
            if isinstance(context, str):
                import multiprocessing

                methods = multiprocessing.get_all_start_methods()
                if context not in methods:
                    raise ValueError("multiprocessing_context option should specify a valid start "
                                     f"method in {methods!r}, but got "
                                     f"multiprocessing_context={context!r}")
                context = multiprocessing.get_context(context)
            import multiprocessing.context

            if not isinstance(context, multiprocessing.context.BaseContext):
                raise TypeError("multiprocessing_context option should be a valid context object "
                                "or a string specifying the start method, but got "
                                f"multiprocessing_context={context}")
        self._multiprocessing_context = context

    def __setattr__(self, attr, val) -> None:
        if self._initialized and attr in _FROZEN_AFTER_INIT:
            raise ValueError(f"{attr} attribute should not be set after {type(self).__name__} is "
                             "initialized")
        super().__setattr__(attr, val)

    @property
    def _auto_collation(self) -> bool:
        return self.batch_sampler is not None

    @property
    def _index_sampler(self):
        # what the fetcher receives: lists of indices when batching, single indices otherwise
        return self.batch_sampler if self._auto_collation else self.sampler

    def _get_iterator(self):
        if self.num_workers == 0:
            return _SingleProcessDataLoaderIter(self)
        self.check_worker_number_rationality()
        from ._multiprocess import _MultiProcessingDataLoaderIter

        return _MultiProcessingDataLoaderIter(self)

    def __iter__(self):
        # persistent workers live as long as the loader: one iterator, reset for each epoch
        if self.persistent_workers and self.num_workers > 0:
            if self._iterator is None:
                self._iterator = self._get_iterator()
            else:
                self._iterator._reset(self)
            return self._iterator
        return self._get_iterator()

    def __len__(self) -> int:
        if self._dataset_kind == _DatasetKind.Iterable:
            length = len(self.dataset)
            if self.batch_size is not None:
                rounding = math.floor if self.drop_last else math.ceil
                length = rounding(length / self.batch_size)
            return length
        return len(self._index_sampler)

    def check_worker_number_rationality(self) -> None:
        """Warn, as PyTorch does, when asked for more workers than this process may use CPUs."""
        if not self.num_workers:
            return
        if hasattr(os, "sched_getaffinity"):
            suggest, cpuset_checked = len(os.sched_getaffinity(0)), True
        else:
            suggest, cpuset_checked = os.cpu_count(), False
        if suggest is not None and self.num_workers <= suggest:
            return
        if suggest is None:
            suggestion = ("DataLoader is not able to compute a suggested max number of worker in "
                          "current system.")
        else:
            caveat = "" if cpuset_checked else " (`cpuset` is not taken into account)"
            suggestion = ("Our suggested max number of worker in current system is "
                          f"{suggest}{caveat}, which is smaller than what this DataLoader is going "
                          "to create.")
        warnings.warn(f"This DataLoader will create {self.num_workers} worker processes in total. "
                      f"{suggestion} Please be aware that excessive worker creation might get "
                      "DataLoader running slow or even freeze, lower the worker number to avoid "
                      "potential slowness/freeze if necessary.", stacklevel=2)
