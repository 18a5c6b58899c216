"""``functorch``'s names for tinytorch, and PyTorch's ``torch._functorch`` modules they come from.

PyTorch's wheel installs a top-level ``functorch`` package, its API from before ``torch.func`` (2.0):
``make_functional``, ``make_functional_with_buffers``, ``combine_state_for_ensemble`` and the transforms,
each warning that it moved to ``torch.func``. tinytorch installs no top-level package beside its own (a
``functorch`` would shadow PyTorch's where both are installed), so the same namespace lives here: where
code says ``import functorch`` or ``from functorch import make_functional``, a tinytorch program says
``import tinytorch._functorch as functorch`` (or ``from tinytorch._functorch import make_functional``)."""

from .. import __version__ as _version
from .deprecated import (combine_state_for_ensemble, functionalize, grad, grad_and_value, hessian,  # noqa: F401
                         jacfwd, jacrev, jvp, make_functional, make_functional_with_buffers, vjp, vmap)
from .make_functional import FunctionalModule, FunctionalModuleWithBuffers  # noqa: F401

__version__ = _version

__all__ = ["combine_state_for_ensemble", "functionalize", "grad", "grad_and_value", "hessian", "jacfwd", "jacrev",
           "jvp", "make_functional", "make_functional_with_buffers", "vjp", "vmap", "FunctionalModule",
           "FunctionalModuleWithBuffers"]
