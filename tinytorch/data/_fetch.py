"""Turning one entry of the index sampler into one batch, in the main process or in a worker."""
from __future__ import annotations


def fetch_map(dataset, index, auto_collation: bool, collate_fn):
    """A map-style batch: one ``__getitems__`` call if the dataset has one, else one per index."""
    if auto_collation:
        getitems = getattr(dataset, "__getitems__", None)
        if callable(getitems):
            samples = getitems(index)
        else:
            samples = [dataset[i] for i in index]
    else:
        samples = dataset[index]
    return collate_fn(samples)


class IterableFetcher:
    """The next batch of one pass over an iterable dataset; StopIteration when the pass ends."""

    def __init__(self, dataset, auto_collation: bool, collate_fn, drop_last: bool) -> None:
        self.iterator = iter(dataset)
        self.auto_collation = auto_collation
        self.collate_fn = collate_fn
        self.drop_last = drop_last
        self.ended = False

    def fetch(self, index):
        if self.ended:
            raise StopIteration
        if not self.auto_collation:
            try:
                return self.collate_fn(next(self.iterator))
            except StopIteration:
                self.ended = True
                raise
        # ``index`` is a list of Nones from the infinite sampler: only its length matters
        samples = []
        for _ in index:
            try:
                samples.append(next(self.iterator))
            except StopIteration:
                self.ended = True
                break
        if not samples or (self.drop_last and len(samples) < len(index)):
            raise StopIteration
        return self.collate_fn(samples)
