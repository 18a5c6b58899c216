"""PyTorch's ``torch._functorch.batch_norm_replacement``: BatchNorm modules made to keep no running statistics,
so that vmap over a batch of models (or of samples) runs them."""
from ..nn.modules.batchnorm import _BatchNorm

__all__ = ["replace_all_batch_norm_modules_"]


def _without_running_stats(module) -> None:
    if isinstance(module, _BatchNorm) and module.track_running_stats:
        module.running_mean = None
        module.running_var = None
        module.num_batches_tracked = None
        module.track_running_stats = False


def replace_all_batch_norm_modules_(root):
    """``root`` with every BatchNorm module in it (itself included) keeping no running statistics, in place."""
    for module in root.modules():
        _without_running_stats(module)
    return root
