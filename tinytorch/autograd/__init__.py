"""tinytorch.autograd: the engine, grad modes, custom Functions and gradient checks."""
from . import anomaly_mode, engine, function, grad_mode  # noqa: F401
from .anomaly_mode import detect_anomaly, is_anomaly_enabled, set_detect_anomaly
from .engine import backward, grad
from .function import Function, FunctionCtx, InplaceFunction
from .grad_mode import enable_grad, inference_mode, is_grad_enabled, no_grad, set_grad_enabled
from .gradcheck import GradcheckError, gradcheck, gradgradcheck
from .node import Node
from .variable import Variable

__all__ = ["Function", "FunctionCtx", "InplaceFunction", "Variable", "backward", "grad", "no_grad", "enable_grad",
           "set_grad_enabled", "inference_mode", "is_grad_enabled", "detect_anomaly", "set_detect_anomaly",
           "is_anomaly_enabled", "gradcheck", "gradgradcheck", "GradcheckError", "Node"]

from . import graph  # noqa: F401,E402
from . import forward_ad  # noqa: F401,E402
# autograd.functional builds on the ops (zeros, stack) and on func: tinytorch's __init__ imports it
# once they have loaded
