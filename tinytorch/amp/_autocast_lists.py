"""CPU autocast's op lists (PyTorch's ``autocast_mode.cpp``, CPU: ``lower_precision_fp`` and ``fp32``)
and the switch that applies them.

Autocast is per thread, as in PyTorch. Nothing is paid while no thread has it on: the first thread to
enter CPU autocast swaps the declared ops' implementations
(the ``impl`` each public function calls, and the Tensor methods and operators, which are the
implementations themselves) for casting wrappers, the last to leave puts them back, and a wrapper called from a thread without
autocast calls straight through. A wrapper casts the
floating tensors among the arguments that are not float64 (PyTorch's "eligible" tensors), as recorded
casts, so gradients reach float32 leaves in float32."""
from __future__ import annotations

import threading

from .. import _dtype
from .._ops._core.registry import REGISTRY
from ..tensor import Tensor

# registry names (a name PyTorch lists that tinytorch lacks is simply not there)
LOWER_PRECISION = ("F.linear", "matmul", "mm", "bmm", "addmm", "baddbmm", "addbmm", "conv1d", "conv2d", "conv3d",
                   "conv_transpose1d", "conv_transpose2d", "conv_transpose3d", "prelu", "linalg.vecdot",
                   "F.scaled_dot_product_attention")
FP32 = ("F.mse_loss", "F.cross_entropy", "F.nll_loss", "F.l1_loss", "F.smooth_l1_loss", "F.huber_loss",
        "F.binary_cross_entropy", "binary_cross_entropy_with_logits", "kl_div", "margin_ranking_loss",
        "F.soft_margin_loss", "hinge_embedding_loss", "cosine_embedding_loss", "poisson_nll_loss",
        "F.multi_margin_loss", "F.multilabel_soft_margin_loss", "triplet_margin_loss", "prod", "cdist", "trace",
        "linalg.cholesky", "quantile", "nanquantile", "avg_pool3d", "grid_sample")

# autocast is per thread, as in PyTorch: each thread's dtype (None: off). The casting wrappers are installed
# while at least one thread has autocast on, and a thread with it off calls straight through them.
_local = threading.local()
_installed = {"threads": 0, "saved": None}
_lock = threading.Lock()


def cpu_dtype():
    return getattr(_local, "dtype", None)


def _cast_arg(a, dt):
    if type(a) is Tensor or isinstance(a, Tensor):
        d = a.dtype
        if d.is_floating_point and d is not _dtype.float64 and d is not dt:
            return a.to(dt)
        return a
    if isinstance(a, (list, tuple)) and a and isinstance(a[0], Tensor):
        return type(a)(_cast_arg(x, dt) for x in a)
    return a


def _casting(impl, target):
    def autocast_op(*args, **kwargs):
        on = getattr(_local, "dtype", None)
        if on is None:  # another thread's autocast installed the wrapper
            return impl(*args, **kwargs)
        dt = on if target is None else target
        args = tuple(_cast_arg(a, dt) for a in args)
        kwargs = {k: _cast_arg(v, dt) for k, v in kwargs.items()}
        return impl(*args, **kwargs)
    autocast_op.__wrapped__ = impl
    return autocast_op


def _impl_cell(public):
    return public.__closure__[public.__code__.co_freevars.index("impl")]


def _install() -> list:
    saved = []
    for names, target in ((LOWER_PRECISION, None), (FP32, _dtype.float32)):
        for name in names:
            decl = REGISTRY.get(name)
            if decl is None:
                continue
            cell = _impl_cell(decl.public)
            saved.append((cell, "cell", cell.cell_contents))
            cell.cell_contents = _casting(decl.impl, target)
            for spelling in (name.split(".")[-1],) + tuple(decl.dunders or ()) + tuple(decl.rdunders or ()):
                if isinstance(spelling, str) and getattr(Tensor, spelling, None) is decl.impl:
                    saved.append((Tensor, spelling, decl.impl))
                    setattr(Tensor, spelling, _casting(decl.impl, target))
    return saved


def _uninstall(saved: list) -> None:
    for owner, attr, value in reversed(saved):
        if attr == "cell":
            owner.cell_contents = value
        else:
            setattr(owner, attr, value)


def set_cpu(dt) -> None:
    """This thread's CPU autocast dtype (None: off)."""
    prev = getattr(_local, "dtype", None)
    _local.dtype = dt
    if (prev is None) == (dt is None):
        return
    with _lock:
        if dt is not None:
            _installed["threads"] += 1
            if _installed["threads"] == 1:
                _installed["saved"] = _install()
        else:
            _installed["threads"] -= 1
            if _installed["threads"] == 0:
                _uninstall(_installed["saved"])
                _installed["saved"] = None
