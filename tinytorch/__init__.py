"""tinytorch: PyTorch's API and autograd semantics on numpy.

``import tinytorch as torch`` and the usual spellings work: ``torch.tensor``, ``torch.no_grad``,
``torch.nn``, ``torch.optim``, ``torch.utils.data``, ``torch.save``/``torch.load``."""
from __future__ import annotations

import warnings as _warnings

from . import _methods  # noqa: F401  (binds the ops to Tensor)
from ._malloc import tune_malloc as _tune_malloc
from . import accelerator, autograd, backends, cuda, random  # noqa: F401
from . import data, nn, optim, utils  # noqa: F401
from . import distributed  # noqa: F401
from ._tensor_str import get_printoptions, set_printoptions  # noqa: F401
from ._dtype import (bool_ as bool, dtype, float16, float32, float64, get_default_dtype, int8, int16, int32,  # noqa: F401
                     int64, set_default_dtype, uint8)
from .autograd import enable_grad, inference_mode, is_grad_enabled, no_grad, set_grad_enabled  # noqa: F401
from .autograd.anomaly import is_anomaly_check_nan_enabled, is_anomaly_enabled  # noqa: F401
from .autograd.grad_mode import is_inference_mode_enabled  # noqa: F401
from . import factory as _factory  # noqa: F401  (declares the factories)
from ._random import tensor_ops as _random_ops  # noqa: F401  (declares the random functions)
from .ops.linalg import bmm, dot, matmul, mm  # noqa: F401
from .ops.reduce import (all, amax, amin, any, argmax, argmin, logsumexp, log_softmax, max, mean, min, softmax,  # noqa: F401
                         std, sum, var)
from .ops.join import (cat, chunk, concat, concatenate, gather, narrow, scatter, select, split, stack,  # noqa: F401
                       unbind)
from .ops.shape import (broadcast_to, clone, flatten, permute, reshape, squeeze, t, transpose,  # noqa: F401
                        unflatten, unsqueeze)
from .random import (Generator, default_generator, get_rng_state, initial_seed, manual_seed, seed,  # noqa: F401
                     set_rng_state)
from .serialization import SerializationError, load, save  # noqa: F401
from .tensor import Size, Tensor, device  # noqa: F401

from .ops.shape import diagonal  # noqa: F401
from .ops.linalg import mv  # noqa: F401

float = float32  # noqa: A001
double = float64
half = float16
long = int64
int = int32  # noqa: A001
short = int16
swapaxes = swapdims = transpose

__version__ = "0.1.0"

from ._out import with_out as _with_out  # noqa: E402

for _name in ("matmul", "mm", "bmm", "dot", "cat", "stack", "sum", "mean"):
    globals()[_name] = _with_out(globals()[_name])
del _name

# numpy reports inf/nan arithmetic (0 * inf, log(0), ...) as RuntimeWarnings; PyTorch computes the
# same values silently. Silence them for tinytorch's own frames only, not for the user's numpy code.
_warnings.filterwarnings("ignore", category=RuntimeWarning, module=r"tinytorch(\.|$)")
# fresh memory for every large temporary costs page faults on each step: keep freed blocks in the heap
_tune_malloc()


def is_tensor(obj) -> bool:
    """True for tinytorch tensors (and Parameters)."""
    return isinstance(obj, Tensor)


def numel(input: Tensor) -> int:
    return input.numel()


def equal(input: Tensor, other: Tensor) -> bool:
    """True when both tensors have the same shape and elements."""
    return input.equal(other)


def allclose(input: Tensor, other: Tensor, rtol: float = 1e-05, atol: float = 1e-08, equal_nan: bool = False) -> bool:
    """True when all elements are close: |a - b| <= atol + rtol * |b|."""
    return input.allclose(other, rtol=rtol, atol=atol, equal_nan=equal_nan)


def is_floating_point(input: Tensor) -> bool:
    return input.is_floating_point()


def set_num_threads(n: int) -> None:
    """Accepted for compatibility; numpy's BLAS picks its own thread count."""


def get_num_threads() -> int:
    import os
    return os.cpu_count() or 1

from . import func  # noqa: F401,E402
vmap = func.vmap


# -- the rest of the tensor API: scans, sorting, masked/indexed ops, triangles, special functions,
# products, norms, matrix functions (one block, see _methods._bind_more) -----------------------------
from . import linalg, special  # noqa: E402,F401
from .ops.linalg_ext import det, logdet, pinv as _pinv, slogdet  # noqa: E402,F401
from .ops.linalg_ext import inv as inverse  # noqa: E402,F401
from .ops.masked import (index_add, index_copy, index_fill, index_select, masked_fill, masked_scatter,  # noqa: E402,F401
                         masked_select, take, take_along_dim)
from .ops.vector_norm import norm  # noqa: E402,F401
from .ops.products import (addmm, addmv, baddbmm, cdist, cosine_similarity, cross, einsum, ger, kron, outer,  # noqa: E402,F401
                           pairwise_distance, tensordot)
from .ops.scan import cummax, cummin, cumprod, cumsum, logcumsumexp, prod  # noqa: E402,F401
from .ops.sort import (aminmax, argsort, argwhere, bincount, count_nonzero, histc, kthvalue, median, mode,  # noqa: E402,F401
                       msort, nanmedian, nonzero, sort, topk, unique, unique_consecutive)

from .ops.tri import (cartesian_prod, diag, diag_embed, flip, fliplr, flipud, meshgrid, movedim,  # noqa: E402,F401
                      repeat_interleave, roll, tile, trace, tril, triu)
from .ops._record import keepdims_alias as _keepdims_alias  # noqa: E402

moveaxis = movedim
pinverse = _pinv


for _name in ("max", "min", "argmax", "argmin", "all", "any", "logsumexp", "amax", "amin",
              "prod", "norm", "median", "nanmedian", "mode", "kthvalue", "aminmax"):
    globals()[_name] = _keepdims_alias(globals()[_name])
del _name

# every declared op's torch-level spellings (tinytorch/ops/_registry.py); later declarations of a name
# win over the imports above while the families move to declarations
from .ops import _registry  # noqa: E402

globals().update(_registry.namespace("torch"))

# submodules loaded on first use (``tinytorch.distributions.Normal`` after a plain ``import tinytorch``,
# as in PyTorch): they cost nothing until touched and stay out of the package's import graph
_LAZY_SUBMODULES = frozenset({"distributions"})


def __getattr__(name: str):
    if name in _LAZY_SUBMODULES:
        import importlib

        return importlib.import_module(f"{__name__}.{name}")
    raise AttributeError(f"module 'tinytorch' has no attribute '{name}'")

# -- names real programs call first: legacy tensor types, CPU-honest switches, dtype info, constants ----
from . import amp, cpu  # noqa: E402,F401
from ._legacy import (BoolTensor, ByteTensor, CharTensor, DoubleTensor, FloatTensor, HalfTensor,  # noqa: E402,F401
                      IntTensor, LongTensor, ShortTensor, set_default_tensor_type)
from ._switches import (are_deterministic_algorithms_enabled, compile, get_default_device,  # noqa: E402,F401
                        get_float32_matmul_precision, is_deterministic_algorithms_warn_only_enabled,
                        set_default_device, set_float32_matmul_precision, use_deterministic_algorithms)
from ._dtype_info import can_cast, finfo, iinfo, promote_types, result_type  # noqa: E402,F401
from .amp.autocast_mode import autocast, get_autocast_dtype, is_autocast_enabled  # noqa: E402,F401
import math as _math  # noqa: E402

pi, e, inf, nan = _math.pi, _math.e, _math.inf, _math.nan
newaxis = None
