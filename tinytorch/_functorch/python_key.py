"""PyTorch's ``torch._functorch.python_key``: where the installed ``functorch`` package finds ``make_fx``."""
from ..fx.experimental.proxy_tensor import make_fx

__all__ = ["make_fx"]
