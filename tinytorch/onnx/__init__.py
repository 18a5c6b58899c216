"""``tinytorch.onnx.export``: a model's forward recorded as it runs and written as an ONNX graph, built
with the ``onnx`` package (``pip install onnx``), imported only when ``export`` is called.

What is recorded: the standard ``nn`` modules (Linear, Conv1d/2d, the activations, Flatten, the
poolings, BatchNorm and LayerNorm, Dropout, Embedding, containers) and the tensor ops forward code
uses between them (arithmetic, matmul, reshape/view/flatten, transpose/permute, cat, mean/sum,
softmax, basic indexing, casts, ``masked_fill``, ``F.scaled_dot_product_attention``,
``F.relu``/``F.max_pool2d``/... and their ``torch.`` and method spellings). Weights become
initializers named as in the ``state_dict``. The model runs in eval mode, as PyTorch exports.
Recording patches nothing: the export is a transform level of the calling thread, and the registry's
dispatch hands that thread's op calls to the recorder (see ``_trace.py``); other threads run as usual.
In-place ops on recorded values are recorded as their out-of-place op.
RNN/LSTM/GRU become ONNX's RNN/LSTM/GRU nodes (gates reordered to ONNX's; batch_first, h0/c0 and
the final states included); ``F.multi_head_attention_forward`` (MultiheadAttention, the Transformer
layers) is expanded to MatMul/Softmax nodes. Not covered: LSTM proj_size, PackedSequence, indexing with
tensors, control flow that depends on the values (the graph is what one run took)."""
from __future__ import annotations

__all__ = ["export", "is_in_onnx_export", "OnnxExporterError", "register_custom_op_symbolic",
           "unregister_custom_op_symbolic", "TensorProtoDataType"]

import enum
import sys

from ._errors import OnnxExporterError
from ._symbolic_opset import OPSET_MODULE, OpsetModule

# symbolic functions registered for custom operators (torchvision registers nms/roi_align's): kept, as
# PyTorch's TorchScript exporter keeps them, but tinytorch's exporter records ops itself and never calls them
_custom_op_symbolics: dict = {}


def register_custom_op_symbolic(symbolic_name: str, symbolic_fn, opset_version: int) -> None:
    """Record ``symbolic_fn`` for ``symbolic_name`` ("ns::op") at ``opset_version`` (never called: see above)."""
    if symbolic_name.startswith("::"):
        symbolic_name = f"aten{symbolic_name}"
    _custom_op_symbolics[(symbolic_name, opset_version)] = symbolic_fn


def unregister_custom_op_symbolic(symbolic_name: str, opset_version: int) -> None:
    _custom_op_symbolics.pop((symbolic_name, opset_version), None)


def __getattr__(name):
    # symbolic_opset7 ... symbolic_opset20: made on first access (see _symbolic_opset.py)
    if OPSET_MODULE.match(name):
        module = sys.modules.setdefault(f"{__name__}.{name}", OpsetModule(f"{__name__}.{name}"))
        globals()[name] = module
        return module
    raise AttributeError(f"module {__name__!r} has no attribute {name!r}")


class TensorProtoDataType(enum.IntEnum):
    """ONNX's TensorProto.DataType numbers."""

    __module__ = "tinytorch._C._onnx"  # PyTorch binds the enum in torch._C._onnx

    UNDEFINED = 0
    FLOAT = 1
    UINT8 = 2
    INT8 = 3
    UINT16 = 4
    INT16 = 5
    INT32 = 6
    INT64 = 7
    STRING = 8
    BOOL = 9
    FLOAT16 = 10
    DOUBLE = 11
    UINT32 = 12
    UINT64 = 13
    COMPLEX64 = 14
    COMPLEX128 = 15
    BFLOAT16 = 16

DEFAULT_OPSET = 20  # PyTorch 2.13's default opset_version


def is_in_onnx_export() -> bool:
    """Whether an ``export`` is tracing a forward right now."""

    return _trace.active() is not None


def export(model, args=(), f=None, *, kwargs=None, verbose=None, input_names=None, output_names=None,
           opset_version=None, dynamic_axes=None, export_params: bool = True, keep_initializers_as_inputs: bool = False,
           do_constant_folding: bool = True, **unused):
    """Write ``model`` run on ``args`` as an ONNX model to ``f`` (a path or a binary file).

    ``dynamic_axes`` names axes that may change size: ``{"input": {0: "batch"}, "output": [0]}``.
    Returns the ``onnx.ModelProto`` when ``f`` is None."""

    return _export_model(model, args, f, kwargs=kwargs, verbose=verbose, input_names=input_names,
                   output_names=output_names, opset_version=opset_version or DEFAULT_OPSET,
                   dynamic_axes=dynamic_axes, export_params=export_params,
                   keep_initializers_as_inputs=keep_initializers_as_inputs)

from . import _trace  # noqa: E402
from ._export import export as _export_model  # noqa: E402
