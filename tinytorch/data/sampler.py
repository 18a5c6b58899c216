"""Samplers: which dataset indices an epoch visits, in what order (PyTorch's classes and checks).

Randomness comes from a ``tinytorch.Generator``, drawn as PyTorch's samplers draw it, so a seed
gives PyTorch's orders. With none given, ``RandomSampler`` draws a fresh seed from the default
generator at the start of each pass (an int64 ``random_()``), as PyTorch does, so
``tinytorch.manual_seed`` fixes every epoch's order while consecutive epochs still differ."""
from __future__ import annotations

from typing import Generic, TypeVar

import itertools
from collections.abc import Iterable, Iterator, Sequence, Sized

import numpy as np

from .._random import draws
from .._random.engine import _engine
from .._ops.random.sampling import multinomial
from ..random import Generator
from ..tensor import _make

__all__ = ["Sampler", "SequentialSampler", "RandomSampler", "SubsetRandomSampler",
           "WeightedRandomSampler", "BatchSampler"]

def _draw_seed(generator: Generator | None) -> int:
    """One seed from ``generator`` (the default one for None): an int64 ``random_()``, [0, 2**63)."""
    return int(draws.int_full(_engine(generator), 1, np.dtype(np.int64))[0])


def _randperm(n: int, generator: Generator | None) -> list[int]:
    return draws.randperm_values(_engine(generator), n).tolist()


_T_co = TypeVar("_T_co", covariant=True)


class Sampler(Generic[_T_co]):
    """Base class: subclasses yield indices (or lists of indices) from ``__iter__``."""

    def __iter__(self) -> Iterator:
        raise NotImplementedError


class SequentialSampler(Sampler):
    """0, 1, ..., len(data_source) - 1, in order."""

    def __init__(self, data_source: Sized) -> None:
        self.data_source = data_source

    def __iter__(self) -> Iterator[int]:
        return iter(range(len(self.data_source)))

    def __len__(self) -> int:
        return len(self.data_source)


class RandomSampler(Sampler):
    """A random permutation of the indices, or ``num_samples`` draws with replacement."""

    def __init__(self, data_source: Sized, replacement: bool = False,
                 num_samples: int | None = None, generator: Generator | None = None) -> None:
        self.data_source = data_source
        self.replacement = replacement
        self._num_samples = num_samples
        self.generator = generator
        if not isinstance(self.replacement, bool):
            raise TypeError("replacement should be a boolean value, but got "
                            f"replacement={self.replacement}")
        if not isinstance(self.num_samples, int) or self.num_samples <= 0:
            raise ValueError("num_samples should be a positive integer value, but got "
                             f"num_samples={self.num_samples}")

    @property
    def num_samples(self) -> int:
        # read each time: the dataset may grow or shrink after the sampler is made
        return len(self.data_source) if self._num_samples is None else self._num_samples

    def __iter__(self) -> Iterator[int]:
        n = len(self.data_source)
        generator = self.generator
        if generator is None:
            generator = Generator().manual_seed(_draw_seed(None))
        if self.replacement:
            # randint(high=n) in chunks of 32, each drawn when the previous one is used up, as
            # PyTorch draws them: work and memory follow what is consumed, never num_samples (the
            # "infinite loader" idiom asks for 10**10 and more)
            int64 = np.dtype(np.int64)
            for _ in range(self.num_samples // 32):
                yield from draws.int_from_to(_engine(generator), 32, int64, 0, n).tolist()
            yield from draws.int_from_to(_engine(generator), self.num_samples % 32, int64, 0, n).tolist()
            return
        for _ in range(self.num_samples // n):
            yield from _randperm(n, generator)
        yield from _randperm(n, generator)[: self.num_samples % n]

    def __len__(self) -> int:
        return self.num_samples


class SubsetRandomSampler(Sampler):
    """The given indices, in a random order."""

    def __init__(self, indices: Sequence[int], generator: Generator | None = None) -> None:
        self.indices = indices
        self.generator = generator

    def __iter__(self) -> Iterator[int]:
        for i in _randperm(len(self.indices), self.generator):
            yield self.indices[i]

    def __len__(self) -> int:
        return len(self.indices)


class WeightedRandomSampler(Sampler):
    """``num_samples`` indices drawn with probabilities proportional to ``weights``."""

    def __init__(self, weights: Sequence[float], num_samples: int, replacement: bool = True,
                 generator: Generator | None = None) -> None:
        if not isinstance(num_samples, int) or isinstance(num_samples, bool) or num_samples <= 0:
            raise ValueError("num_samples should be a positive integer value, but got "
                             f"num_samples={num_samples}")
        if not isinstance(replacement, bool):
            raise ValueError("replacement should be a boolean value, but got "
                             f"replacement={replacement}")
        weights_array = np.asarray(weights, dtype=np.float64)
        if weights_array.ndim != 1:
            raise ValueError("weights should be a 1d sequence but given weights have shape "
                             f"{tuple(weights_array.shape)}")
        self.weights = weights_array
        self.num_samples = num_samples
        self.replacement = replacement
        self.generator = generator

    def __iter__(self) -> Iterator[int]:
        yield from multinomial(_make(self.weights), self.num_samples, self.replacement,
                               generator=self.generator).tolist()

    def __len__(self) -> int:
        return self.num_samples


class BatchSampler(Sampler):
    """Groups another sampler's indices into lists of ``batch_size``."""

    def __init__(self, sampler: Sampler | Iterable[int], batch_size: int, drop_last: bool) -> None:
        if not isinstance(batch_size, int) or isinstance(batch_size, bool) or batch_size <= 0:
            raise ValueError("batch_size should be a positive integer value, but got "
                             f"batch_size={batch_size}")
        if not isinstance(drop_last, bool):
            raise ValueError(f"drop_last should be a boolean value, but got drop_last={drop_last}")
        self.sampler = sampler
        self.batch_size = batch_size
        self.drop_last = drop_last

    def __iter__(self) -> Iterator[list[int]]:
        indices = iter(self.sampler)
        while True:
            batch = list(itertools.islice(indices, self.batch_size))
            if not batch or (self.drop_last and len(batch) < self.batch_size):
                return
            yield batch

    def __len__(self) -> int:
        if self.drop_last:
            return len(self.sampler) // self.batch_size
        return (len(self.sampler) + self.batch_size - 1) // self.batch_size
