"""``tinytorch._dynamo.config``: PyTorch's compiler settings with PyTorch's defaults, accepted and kept
(scripts set ``suppress_errors``, ``cache_size_limit``, ``verbose`` before compiling); nothing reads them,
because nothing is compiled."""
from __future__ import annotations

suppress_errors = False
cache_size_limit = 8
accumulated_cache_size_limit = 256
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
