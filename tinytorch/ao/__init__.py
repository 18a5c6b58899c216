"""``tinytorch.ao``: PyTorch's quantization (``torch.ao.quantization``, ``torch.ao.nn.quantized``).

Dynamic quantization runs as PyTorch's x86 CPU build runs it: ``quantize_dynamic`` turns ``nn.Linear`` and
``nn.LSTM`` layers into layers with qint8 weights that quantize their activations at every call, with fbgemm's
arithmetic, on quantized tensors (both in ``tinytorch/_quantized``). Static quantization (``prepare`` /
``convert``, observers in the forward, quantized convolutions) is not there: ``QuantStub``/``DeQuantStub`` are
identities until a model is converted (as in PyTorch), ``FloatFunctional`` computes its ops in float, and what
would convert raises NotImplementedError."""
from . import quantization, nn  # noqa: F401  (quantization first: its quantize_dynamic maps onto nn's layers)
