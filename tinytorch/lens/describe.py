"""How the lens writes what it sees: tensors, values and saved attributes, the same on both libraries.

Everything here reads only what a PyTorch user can read too (``shape``, ``dtype``, ``_version``,
``requires_grad``, ``is_leaf``, ``retains_grad``, ``tolist()``), so a PyTorch tensor and a tinytorch
tensor holding the same numbers are written with the same characters. No ids, no addresses: the
text of a run is the same every time."""
from __future__ import annotations

FLOAT_FORMAT = "{:.4f}"
MAX_SHOWN = 6  # a tensor with more elements is summarised (its sum and first values)
FREED = "freed"


def is_tensor(value) -> bool:
    """True for a tensor of either library (duck-typed: the lens never imports PyTorch)."""
    return hasattr(value, "grad_fn") and hasattr(value, "shape") and hasattr(value, "dtype")


def dtype_name(dtype) -> str:
    """``float32`` for both ``torch.float32`` and ``tinytorch.float32``."""
    return str(dtype).rsplit(".", 1)[-1]


def shape_text(t) -> str:
    return "(" + ", ".join(str(int(d)) for d in t.shape) + ("," if len(t.shape) == 1 else "") + ")"


def number(v) -> str:
    """A float in the fixed format (no -0.0000: the sign of a zero says nothing to a learner)."""
    if isinstance(v, bool):
        return str(v)
    if isinstance(v, int):
        return str(v)
    if isinstance(v, complex):
        return f"({number(v.real)}{'+' if v.imag >= 0 else '-'}{number(abs(v.imag))}j)"
    text = FLOAT_FORMAT.format(v)
    return text[1:] if text.startswith("-") and float(text) == 0 else text


def _nested(values) -> str:
    if isinstance(values, list):
        return "[" + ", ".join(_nested(v) for v in values) + "]"
    return number(values)


def values(t) -> str:
    """A tensor's numbers: all of them when few, else its sum and first values."""
    if t is None:
        return "None"
    data = t.detach()
    n = 1
    for d in data.shape:
        n *= int(d)
    if n <= MAX_SHOWN:
        return _nested(data.tolist())
    flat = data.reshape(-1).tolist()
    return f"{shape_text(t)} sum={number(sum(flat))} first=[{', '.join(number(v) for v in flat[:3])}, ...]"


def tensor_summary(t) -> str:
    """Shape, dtype and version: what a saved tensor is, without its values."""
    return f"tensor {shape_text(t)} {dtype_name(t.dtype)} version {t._version}"


def hook_count(t) -> tuple:
    """(tensor hooks, post-accumulate-grad hooks) registered on ``t``, from the dicts PyTorch keeps."""
    hooks = getattr(t, "_backward_hooks", None) or {}
    post = getattr(t, "_post_accumulate_grad_hooks", None) or {}
    return len(hooks), len(post)


def value_text(v) -> str:
    """A saved non-tensor value (a size, a dim, a scalar, a dtype) as the same text on both libraries."""
    if v is None or isinstance(v, (bool, int, float, complex, str)):
        return repr(v) if isinstance(v, str) else (str(v) if v is None or isinstance(v, bool) else number(v))
    if isinstance(v, (tuple, list)):
        inner = ", ".join(value_text(x) for x in v)
        return "(" + inner + ("," if len(v) == 1 else "") + ")"
    if is_tensor(v):
        return tensor_summary(v)
    text = str(v)
    for prefix in ("torch.", "tinytorch."):
        if text.startswith(prefix):
            return text[len(prefix):]
    return type(v).__name__
