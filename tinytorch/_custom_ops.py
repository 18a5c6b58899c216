"""``tinytorch._custom_ops`` (PyTorch's ``torch._custom_ops``): ``get_ctx``, the context of a fake
implementation (see ``tinytorch.library.get_ctx``)."""
from .library import get_ctx, impl_abstract  # noqa: F401

__all__ = ["get_ctx", "impl_abstract"]
