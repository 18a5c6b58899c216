"""Elementwise ops (PyTorch's UnaryOps, BinaryOps, TensorCompare, ...) and the in-place forms."""
