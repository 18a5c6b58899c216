"""``tinytorch.ao``: the names of PyTorch's quantization (``torch.ao.quantization``, ``torch.ao.nn.quantized``).

tinytorch has no quantized tensors or kernels. What is honest in float stays: ``QuantStub``/``DeQuantStub``
are identities until a model is converted (as in PyTorch), ``FloatFunctional`` computes its ops in float,
``QConfig`` is a record. Everything that would quantize (``prepare``, ``convert``, ``quantize_dynamic``,
observers, ``fuse_modules``, quantized modules) raises NotImplementedError."""
from . import nn, quantization  # noqa: F401
