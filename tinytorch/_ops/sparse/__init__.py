"""Sparse tensors, as PyTorch's ``aten/src/ATen/native/sparse``: the COO layout (indices, values, size) with
its ops and autograd, and CSR as a layout that converts (``tensor.py``: the tensor classes and their
kernels; ``ops.py``: the declared ops and the dense ops PyTorch runs on sparse inputs)."""
