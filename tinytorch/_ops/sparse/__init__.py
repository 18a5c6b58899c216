"""Sparse tensors, as PyTorch's ``aten/src/ATen/native/sparse``: the COO layout (indices, values, size) with
its ops and autograd, and CSR as a layout that converts. ``tensor.py``: the tensor classes and their dispatch;
``arrays.py``: the array kernels; ``construct.py``: constructors, conversions and accessors; ``products.py``:
the products; ``reduce.py``: the sums; ``pointwise.py``: the dense ops PyTorch runs on sparse inputs and the
table that routes them."""
