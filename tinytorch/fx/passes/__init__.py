"""``tinytorch.fx.passes``: analyses and rewrites over graphs (``shape_prop.ShapeProp``, ``utils.matcher_utils``)."""
from . import shape_prop  # noqa: F401
