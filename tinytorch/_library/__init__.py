"""``tinytorch._library``: the private modules under ``torch.library`` that PyTorch's classes name (ours live in
``tinytorch/library.py``)."""
