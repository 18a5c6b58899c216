"""``tinytorch.utils.tensorboard``: PyTorch's ``SummaryWriter``, writing TensorBoard event files through the
``tensorboard`` package's own event writer and summary protos (``pip install tensorboard``).

Importing this module needs tensorboard; ``import tinytorch`` never imports it."""
try:
    import tensorboard  # noqa: F401
except ImportError as e:  # as PyTorch: the writer is useless without the package, say how to get it
    raise ImportError("tinytorch.utils.tensorboard needs the tensorboard package: pip install tensorboard "
                      '(or pip install "tinytorch[tensorboard]")') from e

from .writer import FileWriter, SummaryWriter  # noqa: E402

__all__ = ["FileWriter", "SummaryWriter"]
