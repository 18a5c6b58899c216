"""Tensor creation (torch.tensor, zeros, ones, full, empty, arange, linspace, eye, the *_like and new_* forms):
the factories, declared as ops."""
