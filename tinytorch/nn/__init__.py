"""``tinytorch.nn``: modules, parameters, losses, ``functional``, ``init`` and ``utils``."""
from . import functional, init, utils  # noqa: F401
from .modules import *  # noqa: F401,F403
from .modules import __all__ as _modules_all
from .parameter import Buffer, Parameter, UninitializedBuffer, UninitializedParameter
from . import parallel  # noqa: F401,E402
from .parallel import DataParallel  # noqa: E402

__all__ = ["DataParallel", "Parameter", "Buffer", "UninitializedParameter", "UninitializedBuffer", "functional", "init", "utils"] + _modules_all
