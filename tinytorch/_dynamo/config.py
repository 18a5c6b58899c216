"""``tinytorch._dynamo.config``: PyTorch's compiler settings with PyTorch's defaults. ``recompile_limit`` (how many
graphs one compiled callable captures before it runs eagerly, ``eval_frame.py``) and ``error_on_recompile`` (a
recompile raises ``RecompileError`` instead) are read; the others are accepted and kept (scripts set
``suppress_errors``, ``verbose`` before compiling). Reading an unknown name is an AttributeError, and ``patch``
changes settings for a block, as in PyTorch (``tinytorch/_config_module.py``)."""
from __future__ import annotations

from .._config_module import install

suppress_errors = False
recompile_limit = 8
accumulated_recompile_limit = 256
# PyTorch's older names of the two limits (aliases there): setting either name sets the limit (``limit()``)
cache_size_limit = 8
accumulated_cache_size_limit = 256
verbose = False
capture_scalar_outputs = False
capture_dynamic_output_shape_ops = False
optimize_ddp = True
automatic_dynamic_shapes = True
inline_inbuilt_nn_modules = True  # PyTorch's only behaviour now (the flag is deprecated there)
assume_static_by_default = True
specialize_int = False
error_on_recompile = False
guard_nn_modules = True
raise_on_ctx_manager_usage = True
replay_record_enabled = False
dynamic_shapes = True


def limit() -> int:
    """The recompile limit, by whichever of its two names a script changed from PyTorch's default."""
    return recompile_limit if recompile_limit != 8 else cache_size_limit


install(__name__)
