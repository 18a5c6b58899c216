"""``torch._functorch.config``: the switches of PyTorch's AOTAutograd that tinytorch's checks read.

``check_custom_op_aliasing`` runs, on a compiled program's first call, the check that no custom operator returns
one of its inputs or a view of one (or two results sharing memory); ``error_on_custom_op_aliasing`` makes a
violation a RuntimeError instead of a deprecation UserWarning. PyTorch defaults it to whether the environment
variable ``CI`` is set, and ``TORCHINDUCTOR_ERROR_ON_CUSTOM_OP_ALIASING`` ("1" or "0") overrides both."""
import os


def _forced(name: str, default: bool) -> bool:
    value = os.environ.get(name)
    if value == "1":
        return True
    if value == "0":
        return False
    return default


check_custom_op_aliasing = True
error_on_custom_op_aliasing: bool = _forced("TORCHINDUCTOR_ERROR_ON_CUSTOM_OP_ALIASING", bool(os.getenv("CI")))
