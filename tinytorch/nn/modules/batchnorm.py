"""Batch normalisation layers: ``BatchNorm1d``, ``BatchNorm2d``, ``BatchNorm3d``.

They keep ``running_mean``/``running_var`` buffers (updated in training, used in eval) and an int64
``num_batches_tracked`` that drives the cumulative moving average when ``momentum`` is None."""
from __future__ import annotations

import numpy as np

from ... import _dtype
from ... import distributed as _dist
from ...autograd.grad_mode import NO_VERSION, _Active, no_grad, version_counter
from ...tensor import Tensor
from ..._ops.creation.factory import ones, tensor, zeros
from ..._ops.nn.batch_norm import batch_norm_training
from ..._ops._core.registry import CAPTURE
from ..._ops._core.torch_function import subclass_among
from ..._dtype import int64
from .. import functional as F
from ..parameter import UninitializedBuffer, UninitializedParameter
from .lazy import LazyModuleMixin
from .module import Module
from .normalization import _affine_parameters, _reset_affine

_INT64 = np.dtype(np.int64)


class _NormBase(Module):
    """Parameters, buffers and printing shared by the batch-norm layers."""

    _version = 2

    def __init__(self, num_features: int, eps: float = 1e-5, momentum: float | None = 0.1, affine: bool = True,
                 track_running_stats: bool = True, device=None, dtype=None, *, bias: bool = True) -> None:
        super().__init__()
        self.num_features = num_features
        self.eps = eps
        self.momentum = momentum
        self.affine = affine
        self.track_running_stats = track_running_stats
        _affine_parameters(self, num_features, affine, bias, dtype, device)
        dtype = dtype if dtype is not None else _dtype.get_default_dtype()
        if track_running_stats:
            self.register_buffer("running_mean", zeros(num_features, dtype=dtype, device=device))
            self.register_buffer("running_var", ones(num_features, dtype=dtype, device=device))
            self.register_buffer("num_batches_tracked", tensor(0, dtype=int64, device=device))
        else:
            self.register_buffer("running_mean", None)
            self.register_buffer("running_var", None)
            self.register_buffer("num_batches_tracked", None)
        self.reset_parameters()

    def reset_running_stats(self) -> None:
        """Running mean 0, running variance 1, no batches seen."""
        if self.track_running_stats:
            with no_grad():
                self.running_mean.zero_()
                self.running_var.fill_(1)
                self.num_batches_tracked.zero_()

    def reset_parameters(self) -> None:
        """Running statistics reset; weight ones, bias zeros."""
        self.reset_running_stats()
        _reset_affine(self)

    def _check_input_dim(self, input) -> None:
        raise NotImplementedError

    def extra_repr(self) -> str:
        return (f"{self.num_features}, eps={self.eps}, momentum={self.momentum}, affine={self.affine}, "
                f"bias={self.bias is not None}, track_running_stats={self.track_running_stats}")

    def _load_from_state_dict(self, state_dict, prefix, local_metadata, strict, missing_keys, unexpected_keys,
                              error_msgs) -> None:
        # state_dicts saved before num_batches_tracked existed (version < 2) load with the current count
        version = local_metadata.get("version", None)
        key = prefix + "num_batches_tracked"
        if (version is None or version < 2) and self.track_running_stats and key not in state_dict:
            state_dict[key] = (self.num_batches_tracked if self.num_batches_tracked is not None
                               else tensor(0, dtype=int64))
        super()._load_from_state_dict(state_dict, prefix, local_metadata, strict, missing_keys, unexpected_keys,
                                      error_msgs)


def _count_batch(counter) -> None:
    """``counter.add_(1)`` under no_grad, as PyTorch's forward does it; on the array directly when the
    counter is a plain int64 tensor owning its storage with no views (the op's checks have nothing to
    find there, and the op costs as much as the rest of a small BatchNorm's forward). A graph capture (export,
    make_fx) records the op, as PyTorch's graph shows it."""
    if type(counter) is Tensor and not (_Active.transforms or _Active.inference or _Active.profiler or counter._meta
                                        or CAPTURE[0] is not None):
        d = counter._data
        vc = version_counter(counter)
        if type(d) is np.ndarray and d.dtype == _INT64 and len(vc) == 1 and vc is not NO_VERSION \
                and counter._base is None and d.flags.writeable:
            d[()] = d.item() + 1  # a ufunc on a 0-d array costs 1.5 us, this 0.2
            vc[0] += 1
            return
    with no_grad():
        counter.add_(1)


# F.batch_norm as imported: a layer skips it (batch_norm_training) only while nobody has replaced it
_F_BATCH_NORM = F.batch_norm

def _plain_batch_norm(*tensors) -> bool:
    """F.batch_norm is the one imported and none of ``tensors`` is a Tensor subclass whose
    ``__torch_function__`` must see the call: then the layer may skip it."""
    return F.batch_norm is _F_BATCH_NORM and not (_Active.subclasses and subclass_among(tensors) is not None) \
        and not _Active.profiler and CAPTURE[0] is None  # a profile, a graph capture records the op


_STATE = ("num_batches_tracked", "running_mean", "running_var", "weight", "bias")


def _state(module) -> tuple:
    """The module's ``_STATE`` attributes. Straight from its buffer and parameter tables when each is
    there and nothing intercepts attribute reads (an ONNX export's tracer, a subclass's own attribute or
    property): five reads through ``Module.__getattr__`` cost 4-5 us, as much as a quarter of a small
    BatchNorm's numpy work."""
    if not _Active.transforms and type(module) in _PLAIN:
        buffers, params = module._buffers, module._parameters
        try:
            return (buffers["num_batches_tracked"], buffers["running_mean"], buffers["running_var"],
                    params["weight"], params["bias"])
        except KeyError:
            pass
    return tuple(getattr(module, name) for name in _STATE)


class _BatchNorm(_NormBase):
    def forward(self, input) -> Tensor:
        self._check_input_dim(input)
        momentum = self.momentum
        factor = 0.0 if momentum is None else momentum
        training = self.training
        counter, running_mean, running_var, weight, bias = _state(self)
        if training and self.track_running_stats:
            if counter is not None:
                _count_batch(counter)
                factor = 1.0 / float(counter) if momentum is None else momentum
            if running_mean is not None and running_var is not None and _plain_batch_norm(
                    input, running_mean, running_var, weight, bias):
                out = batch_norm_training(input, running_mean, running_var, weight, bias, factor, self.eps)
                if out is not None:
                    return out
        # batch statistics in training, and in eval too when there are no running ones to use
        batch_stats = training or (running_mean is None and running_var is None)
        track = not training or self.track_running_stats
        return F.batch_norm(input, running_mean if track else None, running_var if track else None,
                            weight, bias, batch_stats, factor, self.eps)


class BatchNorm1d(_BatchNorm):
    """Batch normalisation over (N, C) or (N, C, L) input."""

    def _check_input_dim(self, input) -> None:
        if input.dim() != 2 and input.dim() != 3:
            raise ValueError(f"expected 2D or 3D input (got {input.dim()}D input)")


class BatchNorm2d(_BatchNorm):
    """Batch normalisation over (N, C, H, W) input."""

    def _check_input_dim(self, input) -> None:
        if input.dim() != 4:
            raise ValueError(f"expected 4D input (got {input.dim()}D input)")


class BatchNorm3d(_BatchNorm):
    """Batch normalisation over (N, C, D, H, W) input."""

    def _check_input_dim(self, input) -> None:
        if input.dim() != 5:
            raise ValueError(f"expected 5D input (got {input.dim()}D input)")


# the classes whose instances hold their state only in the tables (a subclass may define properties)
_PLAIN = frozenset({BatchNorm1d, BatchNorm2d, BatchNorm3d})


# -- lazy batch norms: num_features from the first input ------------------------------------------
class _LazyNormBase(LazyModuleMixin, _NormBase):
    def __init__(self, eps: float = 1e-5, momentum: float | None = 0.1, affine: bool = True,
                 track_running_stats: bool = True, device=None, dtype=None) -> None:
        super().__init__(0, eps, momentum, False, False, device, dtype)
        self.affine, self.track_running_stats = affine, track_running_stats
        if affine:
            self.weight = UninitializedParameter(device=device, dtype=dtype)
            self.bias = UninitializedParameter(device=device, dtype=dtype)
        if track_running_stats:
            self.running_mean = UninitializedBuffer(device=device, dtype=dtype)
            self.running_var = UninitializedBuffer(device=device, dtype=dtype)
            self.num_batches_tracked = tensor(0, dtype=int64, device=device)

    def reset_parameters(self) -> None:
        if not self.has_uninitialized_params() and self.num_features != 0:
            super().reset_parameters()

    def initialize_parameters(self, input) -> None:
        if self.has_uninitialized_params():
            self.num_features = input.shape[1]
            if self.affine:
                self.weight.materialize((self.num_features,))
                if self.bias is not None:
                    self.bias.materialize((self.num_features,))
            if self.track_running_stats:
                self.running_mean.materialize((self.num_features,))
                self.running_var.materialize((self.num_features,))
            self.reset_parameters()


class LazyBatchNorm1d(_LazyNormBase, _BatchNorm):
    """A BatchNorm1d whose num_features come from its first input."""

    cls_to_become = BatchNorm1d
    _check_input_dim = BatchNorm1d._check_input_dim


class LazyBatchNorm2d(_LazyNormBase, _BatchNorm):
    """A BatchNorm2d whose num_features come from its first input."""

    cls_to_become = BatchNorm2d
    _check_input_dim = BatchNorm2d._check_input_dim


class LazyBatchNorm3d(_LazyNormBase, _BatchNorm):
    """A BatchNorm3d whose num_features come from its first input."""

    cls_to_become = BatchNorm3d
    _check_input_dim = BatchNorm3d._check_input_dim


class SyncBatchNorm(_BatchNorm):
    """Batch normalisation whose training statistics would be computed over every process of
    ``process_group``. As in PyTorch on CPU: without an initialised process group (or in eval) it is
    a plain batch norm over any (N, C, ...) input; with one, training on a CPU tensor is refused."""

    def __init__(self, num_features: int, eps: float = 1e-5, momentum: float | None = 0.1, affine: bool = True,
                 track_running_stats: bool = True, process_group=None, device=None, dtype=None, *,
                 bias: bool = True) -> None:
        super().__init__(num_features, eps, momentum, affine, track_running_stats, device, dtype, bias=bias)
        self.process_group = process_group

    def _check_input_dim(self, input) -> None:
        if input.dim() < 2:
            raise ValueError(f"expected at least 2D input (got {input.dim()}D input)")

    def _check_non_zero_input_channels(self, input) -> None:
        if input.size(1) == 0:
            raise ValueError("SyncBatchNorm number of input channels should be non-zero")

    def forward(self, input) -> Tensor:
        self._check_input_dim(input)
        self._check_non_zero_input_channels(input)
        if self.training and _dist.is_available() and _dist.is_initialized():
            # PyTorch's synchronised kernel exists for accelerators only; tinytorch's tensors are on the CPU
            raise ValueError("SyncBatchNorm expected input tensor to be on GPU or XPU or privateuseone")
        return super().forward(input)

    @classmethod
    def convert_sync_batchnorm(cls, module: Module, process_group=None) -> Module:
        """``module`` with every batch-norm layer (at any depth) replaced by a SyncBatchNorm sharing its
        parameters and running statistics."""
        converted = module
        if isinstance(module, _BatchNorm):
            converted = SyncBatchNorm(module.num_features, module.eps, module.momentum, module.affine,
                                      module.track_running_stats, process_group, bias=module.bias is not None)
            if module.affine:
                with no_grad():
                    converted.weight = module.weight
                    converted.bias = module.bias
            converted.running_mean = module.running_mean
            converted.running_var = module.running_var
            converted.num_batches_tracked = module.num_batches_tracked
            converted.training = module.training
            if hasattr(module, "qconfig"):
                converted.qconfig = module.qconfig
        for name, child in module.named_children():
            converted.add_module(name, cls.convert_sync_batchnorm(child, process_group))
        return converted
