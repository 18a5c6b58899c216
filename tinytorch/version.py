"""``tinytorch.version`` (PyTorch's ``torch.version``): which PyTorch API tinytorch mirrors, and its own release.

``__version__`` is ``"2.13.0+tinytorch"``: the PyTorch release whose API and numbers tinytorch follows (its
tests compare with PyTorch 2.13.0), with a local label that says it is not PyTorch. Version gates in
libraries (``torch.__version__ >= "2.0"``, ``packaging.version.parse(torch.__version__)``) then take the
branch written for the API tinytorch has, and any check of the label sees tinytorch. tinytorch's own
release is ``tinytorch_version`` (the distribution ``tinytorch-numpy``'s version). No accelerator
toolkit is built in: ``cuda``, ``hip`` and ``xpu`` are None."""
from .torch_version import TorchVersion

__all__ = ["__version__", "tinytorch_version", "cuda", "hip", "xpu", "debug", "git_version"]

tinytorch_version = "0.1.0"
__version__ = TorchVersion("2.13.0+tinytorch")
cuda = None
hip = None
xpu = None
rocm = None
debug = False
git_version = "Unknown"
