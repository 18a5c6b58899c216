"""A DataLoader's iterators: what both kinds share (the loader's settings, the base seed, the sampler
iterator), and the one that makes each batch in the calling process. The one with worker processes
(``_multiprocess.py``, loaded only when workers start) builds on the same base; ``dataloader.py``
picks between them."""
from __future__ import annotations

from ._fetch import IterableFetcher, fetch_map
from .sampler import _draw_seed


class _DatasetKind:
    Map = 0
    Iterable = 1


class _BaseDataLoaderIter:
    """What both iterators share: the loader's settings, the base seed, the sampler iterator."""

    def __init__(self, loader) -> None:
        self._dataset = loader.dataset
        self._dataset_kind = loader._dataset_kind
        self._auto_collation = loader._auto_collation
        self._drop_last = loader.drop_last
        self._index_sampler = loader._index_sampler
        self._collate_fn = loader.collate_fn
        # drawn before the sampler's own draw, in PyTorch's order, for every iterator
        self._base_seed = _draw_seed(loader.generator)
        self._sampler_iter = iter(self._index_sampler)
        self._num_yielded = 0

    def __iter__(self):
        return self

    def __next__(self):
        data = self._next_data()
        self._num_yielded += 1
        return data

    def __len__(self) -> int:
        return len(self._index_sampler)


class _SingleProcessDataLoaderIter(_BaseDataLoaderIter):
    """Makes each batch in the calling process, when it is asked for."""

    def __init__(self, loader) -> None:
        super().__init__(loader)
        self._fetcher = None
        if self._dataset_kind == _DatasetKind.Iterable:
            self._fetcher = IterableFetcher(self._dataset, self._auto_collation, self._collate_fn,
                                            self._drop_last)

    def _next_data(self):
        index = next(self._sampler_iter)
        if self._fetcher is not None:
            return self._fetcher.fetch(index)
        return fetch_map(self._dataset, index, self._auto_collation, self._collate_fn)


# printed and pickled by PyTorch's path (<torch.utils.data.dataloader._SingleProcessDataLoaderIter object at ...>):
# tinytorch.utils.data.dataloader answers for each of them
for _cls in (_DatasetKind, _BaseDataLoaderIter, _SingleProcessDataLoaderIter):
    _cls.__module__ = "tinytorch.utils.data.dataloader"
del _cls
