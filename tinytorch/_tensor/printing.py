"""Tensor printing: PyTorch's repr/str layout reproduced character for character.

Everything here works on the tensor's numpy array (``t._data``) plus a few attributes, so this
module never imports ``tinytorch.tensor`` (that would be an import cycle)."""
from __future__ import annotations

import contextlib
import dataclasses
import math
from typing import Any, Iterator

import numpy as np

from tinytorch import _dtype, _dtype_casts
from tinytorch.autograd.grad_mode import _Active, _State

_F16, _F32, _C64 = np.dtype(np.float16), np.dtype(np.float32), np.dtype(np.complex64)
_E8M0_ZERO = np.float32(2.0 ** -127)  # float8_e8m0fnu's code 0, its smallest value


@dataclasses.dataclass
class _PrintOptions:
    precision: int = 4
    threshold: float = 1000
    edgeitems: int = 3
    linewidth: int = 80
    sci_mode: bool | None = None


_OPTS = _PrintOptions()

# profile name -> (precision, threshold, edgeitems, linewidth), PyTorch's presets
_PROFILES = {
    "default": (4, 1000, 3, 80),
    "short": (2, 1000, 2, 80),
    "full": (4, math.inf, 3, 80),
}


def set_printoptions(
    precision: int | None = None,
    threshold: float | None = None,
    edgeitems: int | None = None,
    linewidth: int | None = None,
    profile: str | None = None,
    sci_mode: bool | None = None,
) -> None:
    """Set how tensors print; same options, defaults and profiles as ``torch.set_printoptions``."""
    if profile in _PROFILES:  # PyTorch silently ignores an unknown profile name
        _OPTS.precision, _OPTS.threshold, _OPTS.edgeitems, _OPTS.linewidth = _PROFILES[profile]
    if precision is not None:
        _OPTS.precision = precision
    if threshold is not None:
        _OPTS.threshold = threshold
    if edgeitems is not None:
        _OPTS.edgeitems = edgeitems
    if linewidth is not None:
        _OPTS.linewidth = linewidth
    # Unlike the others, sci_mode is assigned even when None: PyTorch resets it on every call.
    _OPTS.sci_mode = sci_mode


def get_printoptions() -> dict[str, Any]:
    """The current print options as a dict that ``set_printoptions(**d)`` accepts."""
    return dataclasses.asdict(_OPTS)


@contextlib.contextmanager
def printoptions(**kwargs: Any) -> Iterator[None]:
    """Change the print options inside a ``with`` block and restore them afterwards."""
    saved = get_printoptions()
    set_printoptions(**kwargs)
    try:
        yield
    finally:
        set_printoptions(**saved)


class _Formatter:
    """Chooses one number style and column width for all elements of a tensor, then pads to it."""

    def __init__(self, values: np.ndarray, floating: bool, e8m0: bool = False):
        self.floating = floating
        self.int_mode = True
        self.sci_mode = False
        self.width = 1
        flat = values.reshape(-1)
        if not floating:
            # len(str(v)) grows with |v| on each side of zero, so the extremes are the widest.
            if flat.size:
                ends = (flat.min().item(), flat.max().item())
                self.width = max(self.width, *(len(f"{v}") for v in ends))
            return
        # Only nonzero finite values steer the style; nan, inf and 0 are fitted around them.
        if e8m0:
            # PyTorch's isfinite calls float8_e8m0fnu's NaN finite and its ne(0) compares codes, so every
            # value but the smallest (code 0) steers, NaN included (a NaN turns sci_mode and int_mode off)
            finite = flat[flat != _E8M0_ZERO]
        else:
            finite = flat[np.isfinite(flat) & (flat != 0)]
        if finite.size == 0:
            return
        magnitudes = np.abs(finite).astype(np.float64)
        largest, smallest = magnitudes.max(), magnitudes.min()
        self.int_mode = bool(np.all(finite == np.ceil(finite)))
        if _OPTS.sci_mode is None:
            with np.errstate(over="ignore"):  # a huge/subnormal ratio is inf, which is > 1000
                ratio = largest / smallest
            self.sci_mode = bool(ratio > 1000.0 or largest > 1.0e8 or smallest < 1.0e-4)
        else:
            self.sci_mode = _OPTS.sci_mode
        precision = _OPTS.precision
        if self.sci_mode:
            widths = (len(f"{v:.{precision}e}") for v in finite.tolist())
        elif self.int_mode:
            # one extra column for the "." that marks a whole-valued float
            widths = (len(f"{v:.0f}") + 1 for v in finite.tolist())
        else:
            widths = (len(f"{v:.{precision}f}") for v in finite.tolist())
        self.width = max(self.width, *widths)

    def format(self, value: Any) -> str:
        """One element (a Python number from ``tolist``), right-aligned to the common width."""
        if not self.floating:
            text = f"{value}"
        elif self.sci_mode:
            text = f"{value:{self.width}.{_OPTS.precision}e}"
        elif self.int_mode:
            text = f"{value:.0f}"
            if math.isfinite(value):
                text += "."
        else:
            text = f"{value:.{_OPTS.precision}f}"
        return " " * (self.width - len(text)) + text


class _ComplexFormatter:
    """PyTorch's pair of formatters for a complex tensor: one chosen from the real parts, one from the
    imaginary parts; an element prints as ``real`` then the signed, left-stripped ``imag`` and ``j``."""

    def __init__(self, values: np.ndarray):
        self.real = _Formatter(values.real, True)
        self.imag = _Formatter(values.imag, True)
        self.width = self.real.width + self.imag.width + 1  # the "j"

    def format(self, value: Any) -> str:
        value = complex(value)
        imag = (self.imag.format(value.imag) + "j").lstrip()
        sign = "" if imag[0] in "+-" else "+"
        return self.real.format(value.real) + sign + imag


def _edge_values(a: np.ndarray) -> np.ndarray:
    """The elements a summarized print shows, so the style is chosen from those alone."""
    edge = _OPTS.edgeitems
    if a.ndim == 0:
        return a
    if a.ndim == 1:
        # With edgeitems 0 this keeps the whole vector (a[-0:] is everything), as PyTorch does.
        return np.concatenate((a[:edge], a[-edge:])) if a.shape[0] > 2 * edge else a
    if not edge:
        return np.empty((0,) * a.ndim, dtype=a.dtype)
    return np.stack([_edge_values(a[i]) for i in _shown_rows(a.shape[0], edge)])


def _shown_rows(n: int, edge: int) -> list[int]:
    if n > 2 * edge:
        return list(range(edge)) + list(range(n - edge, n))
    return list(range(n))


def _vector_str(a: np.ndarray, indent: int, summarize: bool, fmt: _Formatter) -> str:
    edge = _OPTS.edgeitems
    element_length = fmt.width + 2  # the ", " after each element
    per_line = max(1, math.floor((_OPTS.linewidth - indent) / element_length))
    if summarize and not edge:
        items = ["..."]
    elif summarize and a.shape[0] > 2 * edge:
        items = (
            [fmt.format(v) for v in a[:edge].tolist()]
            + [" ..."]
            + [fmt.format(v) for v in a[-edge:].tolist()]
        )
    else:
        items = [fmt.format(v) for v in a.tolist()]
    lines = [", ".join(items[i : i + per_line]) for i in range(0, len(items), per_line)]
    return "[" + (",\n" + " " * (indent + 1)).join(lines) + "]"


def _nested_str(a: np.ndarray, indent: int, summarize: bool, fmt: _Formatter) -> str:
    if a.ndim == 0:
        return fmt.format(a.item())
    if a.ndim == 1:
        return _vector_str(a, indent, summarize, fmt)
    edge = _OPTS.edgeitems
    n = a.shape[0]
    if summarize and n > 2 * edge:
        parts = (
            [_nested_str(a[i], indent + 1, summarize, fmt) for i in range(edge)]
            + ["..."]
            + [_nested_str(a[i], indent + 1, summarize, fmt) for i in range(n - edge, n)]
        )
    else:
        parts = [_nested_str(a[i], indent + 1, summarize, fmt) for i in range(n)]
    # one blank line between 2-d blocks, two between 3-d blocks, ...
    return "[" + ("," + "\n" * (a.ndim - 1) + " " * (indent + 1)).join(parts) + "]"


def tensor_body(a: np.ndarray, floating: bool, indent: int) -> str:
    """The bracketed values of a non-empty array, laid out as PyTorch lays them out."""
    e8m0 = a.dtype == _dtype.float8_e8m0fnu.np
    if a.dtype in _dtype.NARROW_NP:  # PyTorch prints float8 through half (e8m0: float), complex32 through complex64
        a = _dtype_casts.convert(a, _F32 if e8m0 else _F16 if a.dtype in _dtype.F8_NP else _C64)
        if e8m0:  # its NaN widens to a signalling one, which numpy's casts below would warn about
            a = np.where(np.isnan(a), np.float32(np.nan), a)
    summarize = a.size > _OPTS.threshold
    shown = _edge_values(a) if summarize else a
    fmt = _ComplexFormatter(shown) if a.dtype.kind == "c" else _Formatter(shown, floating, e8m0)
    return _nested_str(a, indent, summarize, fmt)


def _add_suffixes(text: str, suffixes: list[str], indent: int, force_newline: bool = False) -> str:
    """``text`` and its suffixes (``size=``, ``dtype=``, ``grad_fn=``...), wrapped where PyTorch wraps them;
    ``force_newline`` starts the first on a line of its own (PyTorch's sparse COO repr)."""
    # PyTorch counts the last line as its length + 2; the off-by-two is kept so lines break alike.
    last_line_len = len(text) - text.rfind("\n") + 1
    pieces = [text]
    for suffix in suffixes:
        # Measured as PyTorch spells it ("dtype=torch.float16"), so lines break where PyTorch's do.
        width = len(suffix.replace(_dtype.SHOWN_AS[0] + ".", "torch."))
        if force_newline or last_line_len + width + 2 > _OPTS.linewidth:
            pieces.append(",\n" + " " * indent + suffix)
            last_line_len = indent + width
            force_newline = False
        else:
            pieces.append(", " + suffix)
            last_line_len += width + 2
    pieces.append(")")
    return "".join(pieces)


def _grad_fn_name(grad_fn: Any) -> str:
    name = getattr(grad_fn, "name", None)
    # the repr shows the class name: CopySlices, not name()'s torch::autograd::CopySlices
    return name().rsplit("::", 1)[-1] if callable(name) else type(grad_fn).__name__


# forward AD's view of a tensor at this thread's dual level, (recorded for forward AD alone, its tangent or None):
# registered by autograd/forward_ad.py when it loads (it sits above this module)
_dual_parts = [None]


def bind_dual_parts(fn) -> None:
    _dual_parts[0] = fn


def tensor_repr(t: Any, *, prefix: str = "tensor(", indent: int | None = None, dual: bool = True) -> str:
    """PyTorch's ``repr(t)`` for the same values, with ``torch.`` spelt ``tinytorch.`` (unless
    ``install_as_torch()`` ran); in a dual level a dual tensor shows its ``tangent=`` (``dual``: the tangent itself
    shows none)."""
    a = t._data
    if indent is None:
        indent = len(prefix)
    dtype_name = t.dtype.name
    default_name = _dtype.get_default_dtype().name
    suffixes = []
    if getattr(t, "_meta", False):  # no values to show: the device, the size and any dtype but the default one
        suffixes.append("device='meta'")
        suffixes.append(f"size={tuple(a.shape)}")
        if dtype_name != default_name:
            suffixes.append(f"dtype={t.dtype!r}")
        body = "..."
    elif a.size == 0:
        # numpy's habit: the shape is spelt out unless it is (0,)
        if a.ndim != 1:
            suffixes.append(f"size={tuple(a.shape)}")
        # no element can hint the dtype of an empty tensor, so only the default float is implied
        if dtype_name != default_name:
            suffixes.append(f"dtype={t.dtype!r}")
        body = "[]"
    else:
        if not _OPTS.edgeitems:
            suffixes.append(f"size={tuple(a.shape)}")
        default_complex = "complex128" if default_name == "float64" else "complex64"
        if dtype_name not in (default_name, default_complex, "int64", "bool"):
            suffixes.append(f"dtype={t.dtype!r}")
        body = tensor_body(a, t.dtype.is_floating_point, indent)
    forward_only, tangent = False, None
    if dual and _dual_parts[0] is not None and _Active.fw and _State.fw_level is not None:
        forward_only, tangent = _dual_parts[0](t)
    grad_fn = t.grad_fn
    if forward_only:  # recorded only so that a tangent can be pushed through: PyTorch's tensor has no history
        pass
    elif grad_fn is not None:
        suffixes.append(f"grad_fn=<{_grad_fn_name(grad_fn)}>")
    elif t.requires_grad:
        suffixes.append("requires_grad=True")
    if tangent is not None:
        suffixes.append("tangent=" + tensor_repr(tangent, dual=False))
    return _add_suffixes(prefix + body, suffixes, indent)


def parameter_repr(p: Any) -> str:
    """What PyTorch prints for an ``nn.Parameter``."""
    return "Parameter containing:\n" + tensor_repr(p)
