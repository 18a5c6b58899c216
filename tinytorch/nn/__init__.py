"""``tinytorch.nn``: modules, parameters, losses, ``functional``, ``init``, ``utils`` and ``grad``."""
from . import functional, init, utils  # noqa: F401
from .modules import *  # noqa: F401,F403
from .modules import __all__ as _modules_all
from .parameter import Buffer, Parameter, UninitializedBuffer, UninitializedParameter
from . import parallel  # noqa: F401,E402
from . import grad  # noqa: F401,E402
from . import attention  # noqa: F401,E402  (loaded with nn, as in PyTorch: torch.nn.attention.SDPBackend)
from .parallel import DataParallel  # noqa: E402

__all__ = ["DataParallel", "Parameter", "Buffer", "UninitializedParameter", "UninitializedBuffer", "functional",
           "init", "utils"] + _modules_all


def factory_kwargs(kwargs):
    """The ``device``/``dtype``/``memory_format`` of a module's ``**kwargs`` (and of an explicit
    ``factory_kwargs`` dict among them) as one dict for the factory calls; anything else is refused."""
    if kwargs is None:
        return {}
    simple_keys = ("device", "dtype", "memory_format")
    expected = set(simple_keys) | {"factory_kwargs"}
    if not kwargs.keys() <= expected:
        raise TypeError(f"unexpected kwargs {kwargs.keys() - expected}")
    merged = dict(kwargs.get("factory_kwargs", {}))
    for key in simple_keys:
        if key in kwargs:
            if key in merged:
                raise TypeError(f"{key} specified twice, in **kwargs and in factory_kwargs")
            merged[key] = kwargs[key]
    return merged


def __getattr__(name):
    # ``torch.nn.quantized`` (FloatFunctional; the rest raises): loaded on first use
    if name == "quantized":
        import importlib

        return importlib.import_module(f"{__name__}.quantized")
    raise AttributeError(f"module {__name__!r} has no attribute {name!r}")
