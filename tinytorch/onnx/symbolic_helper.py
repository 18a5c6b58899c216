"""``tinytorch.onnx.symbolic_helper``: ``parse_args``, the decorator of TorchScript-era symbolic functions
(the ones given to ``register_custom_op_symbolic``). tinytorch's exporter records ops itself and never calls
such functions, so the decorator leaves them as they are."""
from __future__ import annotations

__all__ = ["parse_args", "quantized_args"]


def parse_args(*arg_descriptors):
    """Returns the function unchanged: its arguments would be TorchScript graph values, which tinytorch's
    exporter does not build."""
    def decorator(fn):
        fn._onnx_arg_descriptors = arg_descriptors
        return fn

    return decorator


def quantized_args(*arg_q_descriptors, scale=None, zero_point=None, quantize_output=True):
    def decorator(fn):
        return fn

    return decorator
