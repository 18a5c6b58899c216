"""``tinytorch.testing``: ``assert_close`` and ``make_tensor`` as in ``torch.testing`` (and the deprecated
``assert_allclose``)."""
from ._comparison import assert_allclose, assert_close, default_tolerances  # noqa: F401
from ._creation import make_tensor  # noqa: F401

__all__ = ["assert_close", "make_tensor"]
