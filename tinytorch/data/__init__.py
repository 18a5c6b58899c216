"""Data loading: datasets, samplers, ``DataLoader`` and ``default_collate`` (``torch.utils.data``),
plus torchvision-style ``datasets`` (MNIST, FashionMNIST) and ``transforms``."""
from .collate import default_collate, default_convert
from .dataloader import DataLoader
from .dataset import (ChainDataset, ConcatDataset, Dataset, IterableDataset, StackDataset, Subset, TensorDataset,
                      random_split)
from .sampler import (BatchSampler, RandomSampler, Sampler, SequentialSampler, SubsetRandomSampler,
                      WeightedRandomSampler)
from .distributed import DistributedSampler
from . import dataloader, dataset, distributed, sampler

__all__ = [
    "DataLoader", "default_collate", "default_convert", "get_worker_info", "WorkerInfo",
    "Dataset", "IterableDataset", "TensorDataset", "StackDataset", "ConcatDataset", "ChainDataset", "Subset",
    "random_split",
    "Sampler", "SequentialSampler", "RandomSampler", "SubsetRandomSampler", "WeightedRandomSampler",
    "BatchSampler",
    "DistributedSampler",
    "datasets", "transforms",
]

# PyTorch's classes print and pickle by their torch.utils.data paths (<torch.utils.data.dataloader.DataLoader
# object at ...>): ours name the modules of tinytorch.utils.data that hold the same objects
for _module in (dataloader, dataset, distributed, sampler):
    for _obj in vars(_module).values():
        if isinstance(_obj, type) and _obj.__module__ == _module.__name__:
            _obj.__module__ = "tinytorch.utils.data." + _module.__name__.rpartition(".")[2]
del _module, _obj

# Loaded on first use (PEP 562): downloads pull in http/ssl/email, workers pull in multiprocessing, and a
# training step needs neither, so ``import tinytorch`` stays fast.
_LAZY = {"datasets": (".datasets", None), "transforms": (".transforms", None),
         "WorkerInfo": ("._worker", "WorkerInfo"), "get_worker_info": ("._worker", "get_worker_info")}


def __getattr__(name):
    if name not in _LAZY:
        raise AttributeError(f"module {__name__!r} has no attribute {name!r}")
    import importlib

    module, attr = _LAZY[name]
    value = importlib.import_module(module, __name__)
    if attr is not None:
        value = getattr(value, attr)
    globals()[name] = value
    return value


def __dir__():
    return sorted(set(globals()) | set(_LAZY))
