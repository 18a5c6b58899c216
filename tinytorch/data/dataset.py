"""Datasets: map-style (``__getitem__`` + ``__len__``), iterable-style, and ways to combine them."""
from __future__ import annotations

from typing import Generic, TypeVar

import bisect
import itertools
import math
import warnings
from collections.abc import Iterable, Sequence

from ..random import Generator, default_generator
from .sampler import _randperm

__all__ = ["Dataset", "IterableDataset", "TensorDataset", "StackDataset", "ConcatDataset",
           "Subset", "random_split"]


_T_co = TypeVar("_T_co", covariant=True)


class Dataset(Generic[_T_co]):
    """A map from keys (usually 0..len-1) to samples; subclasses define ``__getitem__``/``__len__``.

    A subclass may also define ``__getitems__(indices)`` returning the list of samples for a whole
    batch in one call; the DataLoader then uses it instead of one ``__getitem__`` per sample."""

    def __getitem__(self, index):
        raise NotImplementedError("Subclasses of Dataset should implement __getitem__.")

    def __add__(self, other: "Dataset") -> "ConcatDataset":
        return ConcatDataset([self, other])


class IterableDataset(Dataset[_T_co]):
    """A stream of samples: subclasses define ``__iter__``. Each worker iterates its own copy."""

    def __iter__(self):
        raise NotImplementedError("Subclasses of IterableDataset should implement __iter__.")


class ChainDataset(IterableDataset):
    """Several iterable datasets one after another, chained lazily as they are iterated."""

    def __init__(self, datasets: Iterable[Dataset]) -> None:
        super().__init__()
        self.datasets = datasets

    def __iter__(self):
        for d in self.datasets:
            if not isinstance(d, IterableDataset):
                raise AssertionError("ChainDataset only supports IterableDataset")
            yield from d

    def __len__(self) -> int:
        total = 0
        for d in self.datasets:
            if not isinstance(d, IterableDataset):
                raise AssertionError("ChainDataset only supports IterableDataset")
            total += len(d)
        return total


class TensorDataset(Dataset):
    """Sample ``i`` is ``tuple(t[i] for t in tensors)``; all tensors share their first dimension."""

    def __init__(self, *tensors) -> None:
        if any(tensors[0].size(0) != tensor.size(0) for tensor in tensors):
            raise AssertionError("Size mismatch between tensors")
        self.tensors = tensors

    def __getitem__(self, index):
        return tuple(tensor[index] for tensor in self.tensors)

    def __len__(self) -> int:
        return self.tensors[0].size(0)


class StackDataset(Dataset):
    """Zips datasets of equal length: samples are tuples (positional) or dicts (keyword)."""

    def __init__(self, *args: Dataset, **kwargs: Dataset) -> None:
        if args:
            if kwargs:
                raise ValueError("Supported either ``tuple``- (via ``args``) or``dict``- (via "
                                 "``kwargs``) like input/output, but both types are given.")
            self._length = len(args[0])
            if any(self._length != len(dataset) for dataset in args):
                raise ValueError("Size mismatch between datasets")
            self.datasets = args
        elif kwargs:
            parts = list(kwargs.values())
            self._length = len(parts[0])
            if any(self._length != len(dataset) for dataset in parts):
                raise ValueError("Size mismatch between datasets")
            self.datasets = kwargs
        else:
            raise ValueError("At least one dataset should be passed")

    def __getitem__(self, index):
        if isinstance(self.datasets, dict):
            return {k: dataset[index] for k, dataset in self.datasets.items()}
        return tuple(dataset[index] for dataset in self.datasets)

    def __len__(self) -> int:
        return self._length


class ConcatDataset(Dataset):
    """Several datasets one after another."""

    @staticmethod
    def cumsum(sequence) -> list[int]:
        return list(itertools.accumulate(len(e) for e in sequence))

    def __init__(self, datasets: Iterable[Dataset]) -> None:
        self.datasets = list(datasets)
        if len(self.datasets) == 0:
            raise AssertionError("datasets should not be an empty iterable")
        for d in self.datasets:
            if isinstance(d, IterableDataset):
                raise AssertionError("ConcatDataset does not support IterableDataset")
        self.cumulative_sizes = self.cumsum(self.datasets)

    def __len__(self) -> int:
        return self.cumulative_sizes[-1]

    def __getitem__(self, idx):
        if idx < 0:
            if -idx > len(self):
                raise ValueError("absolute value of index should not exceed dataset length")
            idx = len(self) + idx
        dataset_idx = bisect.bisect_right(self.cumulative_sizes, idx)
        sample_idx = idx if dataset_idx == 0 else idx - self.cumulative_sizes[dataset_idx - 1]
        return self.datasets[dataset_idx][sample_idx]


class Subset(Dataset):
    """The samples of ``dataset`` at ``indices``, renumbered from 0."""

    def __init__(self, dataset: Dataset, indices: Sequence[int]) -> None:
        self.dataset = dataset
        self.indices = indices

    def __getitem__(self, idx):
        if isinstance(idx, list):
            return self.dataset[[self.indices[i] for i in idx]]
        return self.dataset[self.indices[idx]]

    def __getitems__(self, indices: list[int]) -> list:
        # keeps the parent's batched fetch (one call per batch) when it has one
        if callable(getattr(self.dataset, "__getitems__", None)):
            return self.dataset.__getitems__([self.indices[i] for i in indices])
        return [self.dataset[self.indices[i]] for i in indices]

    def __len__(self) -> int:
        return len(self.indices)


def random_split(dataset: Dataset, lengths: Sequence[int | float],
                 generator: Generator | None = default_generator) -> list[Subset]:
    """Split into non-overlapping random subsets of the given lengths, or fractions summing to 1."""
    if math.isclose(sum(lengths), 1) and sum(lengths) <= 1:
        counts = []
        for i, frac in enumerate(lengths):
            if frac < 0 or frac > 1:
                raise ValueError(f"Fraction at index {i} is not between 0 and 1")
            counts.append(math.floor(len(dataset) * frac))
        # the items lost to flooring go one each to the splits, round robin from the first
        for i in range(len(dataset) - sum(counts)):
            counts[i % len(counts)] += 1
        lengths = counts
        for i, length in enumerate(lengths):
            if length == 0:
                warnings.warn(f"Length of split at index {i} is 0. This might result in an empty "
                              "dataset.", stacklevel=2)
    if sum(lengths) != len(dataset):
        raise ValueError("Sum of input lengths does not equal the length of the input dataset!")
    indices = _randperm(sum(lengths), generator)
    return [Subset(dataset, indices[end - length: end])
            for end, length in zip(itertools.accumulate(lengths), lengths)]
