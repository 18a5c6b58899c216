"""Data loading: datasets, samplers, ``DataLoader`` and ``default_collate`` (``torch.utils.data``),
plus torchvision-style ``datasets`` (MNIST, FashionMNIST) and ``transforms``."""
from . import datasets, transforms
from ._worker import WorkerInfo, get_worker_info
from .collate import default_collate, default_convert
from .dataloader import DataLoader
from .dataset import (ConcatDataset, Dataset, IterableDataset, StackDataset, Subset, TensorDataset,
                      random_split)
from .sampler import (BatchSampler, RandomSampler, Sampler, SequentialSampler, SubsetRandomSampler,
                      WeightedRandomSampler)
from .distributed import DistributedSampler

__all__ = [
    "DataLoader", "default_collate", "default_convert", "get_worker_info", "WorkerInfo",
    "Dataset", "IterableDataset", "TensorDataset", "StackDataset", "ConcatDataset", "Subset",
    "random_split",
    "Sampler", "SequentialSampler", "RandomSampler", "SubsetRandomSampler", "WeightedRandomSampler",
    "BatchSampler",
    "DistributedSampler",
    "datasets", "transforms",
]
