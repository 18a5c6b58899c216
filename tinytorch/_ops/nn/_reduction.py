"""The deprecated ``size_average``/``reduce`` loss arguments, mapped onto ``reduction``."""
from __future__ import annotations

import warnings


def legacy_get_string(size_average, reduce, emit_warning: bool = True) -> str:
    """'mean', 'sum' or 'none' from the two legacy flags (None counts as True), with PyTorch's warning."""
    size_average = True if size_average is None else size_average
    reduce = True if reduce is None else reduce
    if size_average and reduce:
        reduction = "mean"
    elif reduce:
        reduction = "sum"
    else:
        reduction = "none"
    if emit_warning:
        warnings.warn(f"size_average and reduce args will be deprecated, please use reduction='{reduction}' "
                      "instead.", stacklevel=3)
    return reduction


def resolve(size_average, reduce, reduction: str) -> str:
    if size_average is not None or reduce is not None:
        return legacy_get_string(size_average, reduce)
    return reduction
