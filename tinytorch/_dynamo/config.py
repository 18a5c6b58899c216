"""``tinytorch._dynamo.config``: PyTorch's compiler settings with PyTorch's defaults. ``recompile_limit`` (how many
graphs one compiled callable captures before it runs eagerly, ``eval_frame.py``) is read; the others are
accepted and kept (scripts set ``suppress_errors``, ``verbose`` before compiling)."""
from __future__ import annotations

import sys
import types

suppress_errors = False
recompile_limit = 8
accumulated_recompile_limit = 256
verbose = False
capture_scalar_outputs = False
capture_dynamic_output_shape_ops = False
optimize_ddp = True
automatic_dynamic_shapes = True
assume_static_by_default = True
specialize_int = False
error_on_recompile = False
guard_nn_modules = True
raise_on_ctx_manager_usage = True
replay_record_enabled = False
dynamic_shapes = True


class _Config(types.ModuleType):
    """``cache_size_limit`` and ``accumulated_cache_size_limit`` are PyTorch's older names of the two limits:
    setting either sets the other."""

    @property
    def cache_size_limit(self):
        return self.recompile_limit

    @cache_size_limit.setter
    def cache_size_limit(self, value):
        self.recompile_limit = value

    @property
    def accumulated_cache_size_limit(self):
        return self.accumulated_recompile_limit

    @accumulated_cache_size_limit.setter
    def accumulated_cache_size_limit(self, value):
        self.accumulated_recompile_limit = value


sys.modules[__name__].__class__ = _Config
