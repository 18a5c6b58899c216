"""``Tracer``, ``symbolic_trace``, ``wrap``: see the package docstring."""
from __future__ import annotations

_MISSING = "tinytorch has no FX (symbolic tracing into graphs): {} is not implemented"
_wrapped_fns_to_patch: dict = {}


def wrap(fn_or_name):
    """Declares a function a leaf of symbolic tracing: recorded, and returned unchanged."""
    name = fn_or_name if isinstance(fn_or_name, str) else getattr(fn_or_name, "__name__", repr(fn_or_name))
    _wrapped_fns_to_patch[name] = fn_or_name
    return fn_or_name


class Tracer:
    """Subclassable and constructible (libraries define their tracers at import); ``trace`` raises."""

    def __init__(self, autowrap_modules=(), autowrap_functions=(), param_shapes_constant: bool = False) -> None:
        self.autowrap_modules = tuple(autowrap_modules)
        self.autowrap_functions = tuple(autowrap_functions)
        self.param_shapes_constant = param_shapes_constant

    def is_leaf_module(self, m, module_qualified_name: str) -> bool:
        return (m.__module__.startswith("tinytorch.nn") or m.__module__.startswith("torch.nn")) \
            and not type(m).__name__ == "Sequential"

    def trace(self, root, concrete_args=None):
        raise NotImplementedError(_MISSING.format("torch.fx.Tracer.trace"))


def symbolic_trace(root, concrete_args=None):
    raise NotImplementedError(_MISSING.format("torch.fx.symbolic_trace"))
