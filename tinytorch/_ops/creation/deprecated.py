"""PyTorch's deprecated factories, kept because published code still calls them: ``torch.range`` (a fundamentals
chapter's first tensor), which warns on every call as PyTorch's does."""
from __future__ import annotations

import numpy as np

from ... import _dtype
from ..._dtype import LOWP_NP, NARROW_NP
from ..._quiet_fp import cast
from ..._size import _require_cpu
from .._core.arguments import strided_only
from .._core.registry import op
from .._core.util import warn_at_caller
from ...tensor import Tensor
from .factory import _alloc, _finish, _np_dtype, _with_out

_RANGE_DEPRECATED = ("torch.range is deprecated and will be removed in a future release because its behavior is "
                     "inconsistent with Python's range builtin. Instead, use torch.arange, which produces values in "
                     "[start, end).")


@op(variants="function out", own_out=True)
@_with_out
def range(start, end, step=1, *, dtype=None, device=None, layout=None, requires_grad: bool = False,
          pin_memory: bool = False) -> Tensor:
    """PyTorch's deprecated ``torch.range``: ``start`` to ``end`` inclusive in steps of ``step``, in the default
    dtype whatever the bounds' types. As PyTorch's kernel does, the bounds, the count and each value
    ``start + i * step`` are computed in the dtype's accumulation type (double for float32/64, float for the
    16-bit floats, int64 for integers: float bounds truncate there)."""
    warn_at_caller(_RANGE_DEPRECATED)
    if device is not None:
        _require_cpu(device)
    strided_only(layout, pin_memory)
    npd = _np_dtype(dtype, _dtype.get_default_dtype())
    if npd == np.bool_ or npd in NARROW_NP or npd.kind == "c":
        raise NotImplementedError(f'"range_cpu" not implemented for \'{_dtype.FROM_NP[npd]._scalar}\'')
    acc = np.int64 if npd.kind in "iu" else np.float32 if npd in LOWP_NP else np.float64
    start, end, step = (v.item() if isinstance(v, Tensor) else v for v in (start, end, step))
    if not (np.isfinite(start) and np.isfinite(end)):
        raise RuntimeError(f"unsupported range: {start:g} -> {end:g}")
    start, end, step = acc(start), acc(end), acc(step)
    if step == 0:
        raise RuntimeError("step must be nonzero")
    if (end - start) * np.sign(step) < 0:
        raise RuntimeError("upper bound and lower bound inconsistent with step sign")
    # (end - start) / step is not negative here, so flooring it truncates it as PyTorch's C++ does
    n = int((end - start) // step if acc is np.int64 else (end - start) / step) + 1
    return _finish(_alloc(lambda: cast(start + np.arange(n, dtype=acc) * step, npd), (n,), npd), requires_grad)
