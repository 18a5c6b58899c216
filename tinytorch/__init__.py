"""tinytorch: PyTorch's API and autograd semantics on numpy.

``import tinytorch as torch`` and the usual spellings work: ``torch.tensor``, ``torch.no_grad``,
``torch.nn``, ``torch.optim``, ``torch.utils.data``, ``torch.save``/``torch.load``."""
from __future__ import annotations

# first: tensor.py builds on autograd's core (grad_mode, node), and autograd's engine on tensor.py
from . import autograd  # noqa: F401
from . import _ops  # noqa: F401  (the op families declare themselves: torch.X, Tensor.X, ...)
from . import _cpu  # noqa: F401  (PyTorch's CPU paths register onto them, unless TINYTORCH_REFERENCE=1)
from .autograd import functional as _autograd_functional  # noqa: F401  (built on the ops and on func)
from ._malloc import tune_malloc as _tune_malloc
from . import accelerator, backends, cuda, random  # noqa: F401
from .cuda import amp as _cuda_amp  # noqa: F401  (tinytorch.cuda.amp, PyTorch's deprecated spelling)
from . import data, nn, optim, utils  # noqa: F401
from . import distributed  # noqa: F401
from ._tensor.printing import get_printoptions, set_printoptions  # noqa: F401
from ._dtype import (bool_ as bool, bfloat16, complex64, complex128, dtype, float16, float32, float64,  # noqa: F401
                     get_default_dtype, int8, int16, int32, int64, set_default_dtype, uint8)
from ._dtype import uint16, uint32, uint64  # noqa: F401
from ._dtype import (per_channel_affine, per_channel_affine_float_qparams, per_channel_symmetric,  # noqa: F401
                     per_tensor_affine, per_tensor_symmetric, qint8, qint32, qscheme, quint8)
from ._quantized.tensor import dequantize, quantize_per_tensor  # noqa: F401
from ._dtype import (complex32, float8_e4m3fn, float8_e4m3fnuz, float8_e5m2, float8_e5m2fnuz,  # noqa: F401
                     float8_e8m0fnu)
from .autograd import enable_grad, inference_mode, is_grad_enabled, no_grad, set_grad_enabled  # noqa: F401
from .autograd.anomaly_mode import is_anomaly_check_nan_enabled, is_anomaly_enabled  # noqa: F401
from .autograd.grad_mode import is_inference_mode_enabled  # noqa: F401
from ._ops.creation import factory as _factory  # noqa: F401  (declares the factories)
from ._ops.random import sampling as _random_ops  # noqa: F401  (declares the random functions)
from .random import (Generator, default_generator, get_rng_state, initial_seed, manual_seed, seed,  # noqa: F401
                     set_rng_state)
from .serialization import SerializationError, load, save  # noqa: F401
from .tensor import Size, Tensor, device  # noqa: F401
from ._ops._core.layout import (channels_last, channels_last_3d, contiguous_format,  # noqa: F401,E501
                                memory_format, preserve_format)
from ._interop import asarray, from_dlpack, frombuffer  # noqa: F401,E402  (also Tensor.__dlpack__)
from ._as_torch import install_as_torch  # noqa: F401  (import torch -> tinytorch, for PyTorch's ecosystem)
from ._op_namespace import ops  # noqa: F401  (torch.ops: operators registered through tinytorch.library)
from .utils import _python_dispatch as _python_dispatch  # noqa: E402  (Tensor._make_wrapper_subclass)
from ._checks import (_assert, _check, _check_index, _check_is_size, _check_not_implemented,  # noqa: F401
                      _check_type, _check_value, _sample_dirichlet)

float = float32  # noqa: A001
double = float64
half = float16
long = int64
int = int32  # noqa: A001
short = int16
cfloat = complex64
chalf = complex32
cdouble = complex128

# the PyTorch API level tinytorch mirrors, labelled as tinytorch ("2.13.0+tinytorch"): see tinytorch/version.py
from . import version  # noqa: E402,F401
from .version import __version__  # noqa: E402,F401

# fresh memory for every large temporary costs page faults on each step: keep freed blocks in the heap
_tune_malloc()


def is_tensor(obj) -> bool:
    """True for tinytorch tensors (and Parameters)."""
    return isinstance(obj, Tensor)


def numel(input: Tensor) -> int:
    return input.numel()


def is_floating_point(input: Tensor) -> bool:
    return input.is_floating_point()


from ._ops._kernels.parallel import (get_num_interop_threads, get_num_threads,  # noqa: E402,F401
                                     set_num_interop_threads, set_num_threads)

from . import func  # noqa: F401,E402
vmap = func.vmap


from . import fft, linalg, masked, signal, special  # noqa: E402,F401

# every declared op's torch-level spellings (tinytorch/_ops/_core/registry.py)
from ._ops._core import registry as _registry  # noqa: E402

globals().update(_registry.namespace("torch"))

# submodules loaded on first use (``tinytorch.distributions.Normal`` after a plain ``import tinytorch``,
# as in PyTorch): they cost nothing until touched and stay out of the package's import graph
_LAZY_SUBMODULES = frozenset({"distributions", "onnx", "multiprocessing", "hub", "export", "testing", "library", "_C",
                              "_custom_ops", "torch_version", "ao", "quantization", "fx", "_dynamo", "types",
                              "_functorch", "functional", "xpu", "mtia", "__future__", "overrides", "futures",
                              "__config__", "_subclasses", "jit", "compiler", "_logging", "_inductor",
                              "_higher_order_ops", "lens", "return_types"})


# functions of those submodules that PyTorch has in its own namespace: found there on first use
_LAZY_ATTRIBUTES = {"quantized_lstm": "_quantized.rnn", "ScriptObject": "_quantized.packed_params",
                    "cond": "_higher_order_ops.cond", "PyTorchFileReader": "_C", "PyTorchFileWriter": "_C",
                    "ScriptModule": "jit", "ScriptFunction": "jit", "compile": "compiler"}


def __getattr__(name: str):
    if name in _LAZY_SUBMODULES:
        import importlib

        return importlib.import_module(f"{__spec__.name}.{name}")
    if name in _LAZY_ATTRIBUTES:
        import importlib

        return getattr(importlib.import_module(f"{__spec__.name}.{_LAZY_ATTRIBUTES[name]}"), name)
    if name == "torch":  # PyTorch's package names itself (``torch.torch is torch``), and annotations use it
        import sys

        return sys.modules[__spec__.name]
    raise AttributeError(f"module 'tinytorch' has no attribute '{name}'")

# -- names real programs call first: legacy tensor types, CPU-honest switches, dtype info, constants ----
from . import amp, cpu  # noqa: E402,F401
from ._tensor.legacy_types import (BoolTensor, ByteTensor, CharTensor, DoubleTensor, FloatTensor, HalfTensor,  # noqa: E402,F401
                      IntTensor, LongTensor, ShortTensor, set_default_tensor_type)
from ._switches import (are_deterministic_algorithms_enabled, get_default_device,  # noqa: E402,F401
                        get_float32_matmul_precision, is_deterministic_algorithms_warn_only_enabled,
                        set_default_device, set_float32_matmul_precision, use_deterministic_algorithms)
from ._dtype_info import can_cast, finfo, iinfo, promote_types, result_type  # noqa: E402,F401
from .amp.autocast_mode import autocast, get_autocast_dtype, is_autocast_enabled  # noqa: E402,F401
import math as _math  # noqa: E402

pi, e, inf, nan = _math.pi, _math.e, _math.inf, _math.nan
newaxis = None
from ._ops._core.members import layout, sparse_bsc, sparse_bsr, sparse_coo, sparse_csc, sparse_csr, strided  # noqa: E402,F401
from .storage import TypedStorage, UntypedStorage  # noqa: E402,F401
from ._streams import Event, Stream  # noqa: E402,F401
from ._interop import from_file, to_dlpack  # noqa: E402,F401
from .amp.grad_scaler import GradScaler  # noqa: E402,F401  (torch.GradScaler is amp's)
from . import profiler, sparse  # noqa: E402,F401
from ._symbolic import (SymBool, SymFloat, SymInt, sym_float, sym_int, sym_ite, sym_max, sym_min,  # noqa: E402,F401
                        sym_not, sym_sqrt, sym_sum)
from .autograd import profiler as _autograd_profiler, variable as _autograd_variable  # noqa: E402,F401
from . import _meta as _meta  # noqa: E402,F401  (the meta device: its factory and op wrappers; after every op is declared)

# classes PyTorch defines in its top-level module print (and pickle) as torch.X, not by the file that holds ours
for _cls in (finfo, iinfo, Event, Stream, SymBool, SymFloat, SymInt):
    _cls.__module__ = __name__
del _cls
