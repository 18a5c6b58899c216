"""PyTorch's ``torch._higher_order_ops``: control flow taking functions as arguments (``cond``, ``map``).

tinytorch runs them eagerly: ``cond`` calls the branch its predicate picks, ``map`` calls the body once per slice
of its inputs' first dimension and stacks the results. (PyTorch's eager call compiles them first; the values are
the same.)"""
from .cond import cond
from .map import map  # noqa: A004 - PyTorch's name

__all__ = ["cond", "map"]
