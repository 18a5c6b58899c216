"""``tinytorch.functional`` (PyTorch's ``torch.functional``): the functions of the ``torch`` namespace that
PyTorch writes in Python rather than binding from C++. They are tinytorch's ``torch.X`` themselves; the module
says which they are, so torch.fx names a traced call the way PyTorch's does (``torch.functional.split``).
(PyTorch's module also re-exports the builtin ``istft``, which is ``torch.istft`` wherever it is found.)"""
from . import (atleast_1d, atleast_2d, atleast_3d, block_diag, broadcast_shapes, broadcast_tensors,  # noqa: F401
               cartesian_prod, cdist, chain_matmul, einsum, lu, meshgrid, norm, pca_lowrank, split, stft,
               svd_lowrank, tensordot, unique, unique_consecutive, unravel_index)

__all__ = ["atleast_1d", "atleast_2d", "atleast_3d", "broadcast_shapes", "broadcast_tensors", "cartesian_prod",
           "block_diag", "cdist", "chain_matmul", "einsum", "lu", "norm", "meshgrid", "pca_lowrank", "split",
           "stft", "svd_lowrank", "tensordot", "unique", "unique_consecutive", "unravel_index"]
