"""``tinytorch.nn.utils``: gradient clipping, parameter/vector conversion, weight and spectral
normalisation (hooks and parametrizations), conv/linear + batch-norm fusion, ``skip_init``, weight
memory formats,
``stateless.functional_call``."""
from .clip_grad import clip_grad_norm, clip_grad_norm_, clip_grad_value_, clip_grads_with_norm_, get_total_norm
from .convert_parameters import parameters_to_vector, vector_to_parameters

__all__ = ["clip_grad_norm", "clip_grad_norm_", "clip_grad_value_", "clip_grads_with_norm_", "get_total_norm",
           "parameters_to_vector", "vector_to_parameters"]
from . import rnn  # noqa: E402,F401
from . import parametrizations, parametrize, prune  # noqa: E402,F401
from . import stateless  # noqa: E402,F401
from .fusion import (fuse_conv_bn_eval, fuse_conv_bn_weights, fuse_linear_bn_eval,  # noqa: E402
                     fuse_linear_bn_weights)
from .init import skip_init  # noqa: E402
from .memory_format import convert_conv2d_weight_memory_format, convert_conv3d_weight_memory_format  # noqa: E402
from .spectral_norm import remove_spectral_norm, spectral_norm  # noqa: E402
from .weight_norm import remove_weight_norm, weight_norm  # noqa: E402

__all__ += ["fuse_conv_bn_eval", "fuse_conv_bn_weights", "fuse_linear_bn_eval", "fuse_linear_bn_weights",
            "skip_init", "convert_conv2d_weight_memory_format", "convert_conv3d_weight_memory_format",
            "spectral_norm", "remove_spectral_norm", "weight_norm", "remove_weight_norm", "parametrizations",
            "parametrize", "rnn", "stateless"]  # prune is a submodule, outside __all__ as in PyTorch
