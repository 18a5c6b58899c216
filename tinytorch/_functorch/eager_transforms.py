"""PyTorch's ``torch._functorch.eager_transforms``: where the installed ``functorch.experimental`` finds the
forward-mode transforms (tinytorch's ``torch.func`` ones)."""
from ..func import grad, grad_and_value, hessian, jacfwd, jacrev, jvp, linearize, vjp

__all__ = ["grad", "grad_and_value", "hessian", "jacfwd", "jacrev", "jvp", "linearize", "vjp"]
