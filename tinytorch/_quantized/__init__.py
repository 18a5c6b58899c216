"""Quantized tensors and PyTorch's x86 quantized arithmetic, under ``tinytorch.ao``'s public API: the quantized
tensor (``tensor.py``), fbgemm's quantization and dynamic linear (``fbgemm.py``), ATen's float32 sigmoid and tanh as
its LSTM cell computes them (``aten_math.py``), the packed weights (``packed_params.py``) and the dynamically
quantized LSTM's loop (``rnn.py``). Below ``ao`` so that the serializer can rebuild a quantized tensor without
loading the quantization API."""
