"""Reductions, scans, sorting and counting (PyTorch's ReduceOps, Sorting, ...)."""
