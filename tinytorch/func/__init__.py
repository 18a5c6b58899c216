"""``tinytorch.func``: composable function transforms (grad, vjp, jvp, jacrev, jacfwd, hessian, vmap)
and ``functional_call`` for modules."""
from ._eager import grad, grad_and_value, jvp, vjp
from ._functional_call import functional_call
from ._jacobians import hessian, jacfwd, jacrev
from ._linearize import functionalize, linearize, stack_module_state
from ._vmap import vmap

__all__ = ["grad", "grad_and_value", "vjp", "jvp", "jacrev", "jacfwd", "hessian", "vmap", "functional_call", "functionalize",
           "linearize", "stack_module_state"]
