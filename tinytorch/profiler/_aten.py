"""What PyTorch's profiler shows for an op: its ATen name, its input shapes (one entry per argument of the ATen
schema: a tensor's shape, ``[]`` for anything else) and the ATen calls it makes inside (``aten::conv2d`` ->
``aten::convolution`` -> ``aten::_convolution`` -> ``aten::mkldnn_convolution`` -> ``aten::empty``...).

tinytorch runs an op as one computation, so the nested calls are not observed: ``RULES`` writes down, per ATen name,
the calls PyTorch 2.13's CPU build makes (read off its profiler, for the paths it takes on float32 CPU tensors). The
node that computes spans the op's time; allocations and views take none. An op without a rule is one row, its
shapes read off its arguments."""
from __future__ import annotations

import numbers

from .._ops._core.arguments import signature as _signature
from .._ops._kernels.parallel import get_num_threads
from ..tensor import Tensor

# the ATen ops whose names differ from their Python spelling's
_RENAMED = {"cross_entropy": "cross_entropy_loss", "nll_loss": "nll_loss_nd"}
_PREFIX = {"linalg": "linalg_", "special": "special_", "fft": "fft_"}


def base_name(decl, spelling: str) -> str:
    """``aten::<name>`` of ``decl`` called by ``spelling`` (an operator, a method, an in-place form)."""
    inplace = spelling in decl.idunders or (spelling.endswith("_") and not spelling.endswith("__")
                                            and not decl.name.endswith("_"))
    name = _RENAMED.get(decl.name, decl.name)
    return "aten::" + _PREFIX.get(decl.namespace, "") + name + ("_" if inplace else "")


def shape(value) -> list:
    """A tensor argument's entry in the input shapes: its shape; anything else (scalars, lists, None): ``[]``."""
    return list(value.shape) if isinstance(value, Tensor) else []


class Call:
    """One op call: its default ATen name, its arguments by parameter name (defaults filled in), its result."""

    def __init__(self, decl, spelling: str, args, kwargs, out):
        self.name = base_name(decl, spelling)
        self.out = out
        fn = decl.method if decl.method is not None and spelling in decl.variants else decl.impl
        sig = _signature(fn)
        self.shapes, self.args = [], {}
        if sig is None:
            self.shapes = [shape(a) for a in args]
            return
        try:
            bound = sig.bind(*args, **kwargs)
        except TypeError:
            self.shapes = [shape(a) for a in args]
            return
        bound.apply_defaults()
        self.args = bound.arguments
        for name, p in sig.parameters.items():
            # out=, numpy's spellings (keepdims) and tinytorch's own parameters are no ATen arguments;
            # an empty *args (add's legacy positional alpha) is none either
            if name in ("out", "keepdims") or name.startswith("_") or p.kind is p.VAR_KEYWORD \
                    or (p.kind is p.VAR_POSITIONAL and not self.args.get(name)):
                continue
            self.shapes.append(shape(self.args.get(name)))

    def __getitem__(self, name: str):
        return self.args.get(name)

    def positional(self, i: int):
        values = list(self.args.values())
        return values[i] if i < len(values) else None


def node(name: str, shapes: list, *children, computes: bool = False) -> tuple:
    return (name, shapes, list(children), computes)


def work(name: str, shapes: list, *children) -> tuple:
    """A nested call that does the op's computation: it spans the op's time."""
    return node(name, shapes, *children, computes=True)


def _none(n: int) -> list:
    return [[] for _ in range(n)]


def _empty() -> tuple:
    return node("aten::empty", _none(6))


def _as_strided(t) -> tuple:
    return node("aten::as_strided", [shape(t), [], [], []])


def _wrap_scalar() -> tuple:
    """A Python number met by a tensor of another dtype: PyTorch makes it a 0-d tensor and converts it."""
    return node("aten::to", _none(5), node("aten::_to_copy", _none(7), node("aten::empty_strided", _none(6)),
                                           node("aten::copy_", _none(3))))


def _scalar_needs_cast(t, other) -> bool:
    if not isinstance(t, Tensor) or isinstance(other, Tensor) or not isinstance(other, numbers.Number):
        return False
    wrapped = "bool" if isinstance(other, bool) else "int64" if isinstance(other, numbers.Integral) else "float64"
    return t.dtype.name != wrapped


RULES: dict = {}


def rule(*names):
    def register(fn):
        for n in names:
            RULES[n] = fn
        return fn
    return register


def describe(decl, spelling: str, args, kwargs, out):
    """(ATen name, input shapes, nested calls[, calls that follow it]) of this call, or None where PyTorch
    records no op."""
    call = Call(decl, spelling, args, kwargs, out)
    found = RULES.get(call.name)
    if found is None:
        return call.name, call.shapes, []
    return found(call)


# -- the rules ------------------------------------------------------------------------------------------------
def _use_mkldnn(x, w, stride, dilation, groups) -> bool:
    """PyTorch's ``ConvParams::use_mkldnn`` for a float32 CPU convolution (oneDNN built in and enabled)."""
    if x.dtype.name != "float32" or x.ndim != 4:
        return False
    n = x.shape[0]
    strided = any(s != 1 for s in stride)
    dilated = any(d != 1 for d in dilation)
    kh, kw = w.shape[-2:]
    return ((strided or dilated or n >= 16 or kw != 1 or kh != 1 or get_num_threads() > 1)
            and (groups > 1 or (kw > 3 and kh > 3) or n > 1 or x.numel() > 20480))


def _pair(v) -> tuple:
    return tuple(v) if isinstance(v, (tuple, list)) else (v, v)


@rule("aten::conv2d")
def _conv2d(c):
    x, w, b = c["input"], c["weight"], c["bias"]
    xs, ws, bs = shape(x), shape(w), shape(b)
    if not isinstance(x, Tensor) or x.ndim != 4:
        return c.name, c.shapes, []
    if _use_mkldnn(x, w, _pair(c["stride"]), _pair(c["dilation"]), c["groups"]):
        kernel = work("aten::mkldnn_convolution", [xs, ws, bs] + _none(4), _empty(), _empty(),
                      node("aten::as_strided_", [shape(c.out), [], [], []]), node("aten::resize_", [shape(c.out), [], []]))
        inner = [kernel]
    else:
        slow = work("aten::_slow_conv2d_forward", [xs, ws, [], bs, [], []], _empty(),
                    node("aten::view", [ws, []]), _empty(), node("aten::resize_", [[0], [], []]))
        inner = [node("aten::_nnpack_available", [])]
        if not x.is_contiguous():
            inner.append(_contiguous_calls(x))
        inner.append(work("aten::thnn_conv2d", [xs, ws, [], bs, [], []], slow))
    convolution = work("aten::convolution", [xs, ws, bs] + _none(6),
                       work("aten::_convolution", [xs, ws, bs] + _none(10), *inner))
    return c.name, [xs, ws, bs] + _none(4), [convolution]


@rule("aten::batch_norm")
def _batch_norm(c):
    x = c["input"]
    params = [shape(x), shape(c["weight"]), shape(c["bias"]), shape(c["running_mean"]), shape(c["running_var"])]
    statistics = 6 if c["training"] else 4
    native = work("aten::native_batch_norm", params + _none(3),
                  node("aten::empty_like", [shape(x)] + _none(5), _empty()), *[_empty() for _ in range(statistics)])
    impl = work("aten::_batch_norm_impl_index", params + _none(4), _empty(), native)
    return c.name, params + _none(4), [impl]


@rule("aten::relu")
def _relu(c):
    return c.name, c.shapes, [work("aten::clamp_min", [shape(c["input"]), []])]


@rule("aten::relu_")
def _relu_(c):
    return c.name, c.shapes, [work("aten::clamp_min_", [shape(c["input"]), []])]


@rule("aten::max_pool2d")
def _max_pool2d(c):
    shapes = [shape(c["input"])] + _none(5)
    if c["return_indices"]:  # F.max_pool2d(return_indices=True) calls the kernel directly
        return "aten::max_pool2d_with_indices", shapes, []
    return c.name, shapes, [work("aten::max_pool2d_with_indices", shapes)]


def _to_from_scalar_div(out_shape) -> tuple:
    return node("aten::div_", [out_shape, []], _wrap_scalar())


@rule("aten::adaptive_avg_pool2d")
def _adaptive_avg_pool2d(c):
    x = c["input"]
    size = _pair(c["output_size"])
    if isinstance(x, Tensor) and size == (1, 1) and x.ndim in (3, 4):  # a mean over H and W
        o = shape(c.out)
        mean = work("aten::mean", [shape(x)] + _none(3),
                    work("aten::sum", [shape(x)] + _none(3) + [o], node("aten::fill_", [o, []])),
                    _to_from_scalar_div(o))
        return c.name, [shape(x), []], [mean]
    return c.name, [shape(x), []], [work("aten::_adaptive_avg_pool2d", [shape(x), []], _empty(),
                                         node("aten::resize_", [[0], [], []]))]


@rule("aten::flatten")
def _flatten(c):
    x = c["input"]
    if not isinstance(x, Tensor) or x.ndim < 2:
        return c.name, [shape(x), [], []], []
    return c.name, [shape(x), [], []], [node("aten::view", [shape(x), []])]


def _t_calls(w) -> tuple:
    return node("aten::t", [shape(w)], node("aten::transpose", [shape(w), [], []], _as_strided(w)))


def _mm_calls(out_shape, b_shape, a_shape) -> list:
    """The ``resolve_conj`` of a matrix product's result and operands (None: an operand BLAS reads transposed)."""
    return [node("aten::resolve_conj", [s]) for s in (out_shape, b_shape, a_shape) if s is not None]


def _operand(t, as_shape=None):
    """An operand's entry for ``_mm_calls``: its shape (or ``as_shape``), None when it is read transposed."""
    return None if _transposed(t) else (shape(t) if as_shape is None else as_shape)


@rule("aten::linear")
def _linear(c):
    x, w, b = c["input"], c["weight"], c["bias"]
    if not isinstance(x, Tensor) or not isinstance(w, Tensor) or x.ndim < 2:
        return c.name, [shape(x), shape(w), shape(b)], []
    k, n = w.shape[1], w.shape[0]
    out = shape(c.out)
    wt = [k, n]
    if b is None:
        mm = work("aten::mm", [shape(x), wt], *_mm_calls(out, None, _operand(x)))
        return c.name, [shape(x), shape(w), []], [_t_calls(w), work("aten::matmul", [shape(x), wt], mm)]
    rows = out[0] if x.ndim == 2 else int(x.numel() // k)
    x2, o2 = [rows, k], [rows, n]
    addmm = work("aten::addmm", [shape(b), x2, wt, [], []],
                 node("aten::expand", [shape(b), [], []], _as_strided(b)),
                 node("aten::copy_", [o2, o2, []]), *_mm_calls(o2, None, _operand(x, x2)))
    if x.ndim == 2:
        return c.name, [shape(x), shape(w), shape(b)], [_t_calls(w), addmm]
    return c.name, [shape(x), shape(w), shape(b)], [node("aten::view", [shape(x), []]), _t_calls(w), addmm,
                                                    node("aten::view", [o2, []])]


def _transposed(t) -> bool:
    """A matrix laid out as the transpose of a contiguous one (``w.t()``): BLAS reads it as it is, without
    resolving it."""
    if not isinstance(t, Tensor) or t.ndim != 2:
        return False
    flags = t._data.flags
    return flags.f_contiguous and not flags.c_contiguous


@rule("aten::mm")
def _mm(c):
    a, b = c["input"], c["mat2"]
    return c.name, c.shapes, _mm_calls(shape(c.out), _operand(b), _operand(a))


@rule("aten::matmul")
def _matmul(c):
    a, b = c["input"], c["other"]
    if not (isinstance(a, Tensor) and isinstance(b, Tensor)) or b.ndim != 2 or a.ndim < 2:
        return c.name, c.shapes, []
    if a.ndim == 2:
        return c.name, c.shapes, [work("aten::mm", c.shapes, *_mm_calls(shape(c.out), _operand(b), _operand(a)))]
    rows = int(a.numel() // a.shape[-1])
    a2, o2 = [rows, a.shape[-1]], [rows, b.shape[1]]
    return c.name, c.shapes, [node("aten::reshape", [shape(a), []], node("aten::view", [shape(a), []])),
                              work("aten::mm", [a2, shape(b)], *_mm_calls(o2, _operand(b), _operand(a, a2))),
                              node("aten::_unsafe_view", [o2, []])]


@rule("aten::addmm")
def _addmm(c):
    b, x, w = c["input"], c["mat1"], c["mat2"]
    o = shape(c.out)
    calls = [] if shape(b) == o else [node("aten::expand", [shape(b), [], []], _as_strided(b))]
    calls += [node("aten::copy_", [o, o, []])] + _mm_calls(o, _operand(w), _operand(x))
    return c.name, [shape(b), shape(x), shape(w), [], []], calls


@rule("aten::transpose")
def _transpose(c):
    x = c["input"]
    return c.name, [shape(x), [], []], [_as_strided(x)]


@rule("aten::t")
def _t(c):
    x = c["input"]
    return c.name, [shape(x)], [node("aten::transpose", [shape(x), [], []], _as_strided(x))]


@rule("aten::add", "aten::sub", "aten::mul", "aten::div", "aten::add_", "aten::sub_", "aten::mul_", "aten::div_")
def _arith(c):
    x, other = c.positional(0), c.positional(1)
    return c.name, c.shapes, [_wrap_scalar()] if _scalar_needs_cast(x, other) else []


@rule("aten::sum")
def _sum(c):
    x = c["input"]
    if not isinstance(x, Tensor) or c["dim"] is not None:
        return c.name, c.shapes, []
    return c.name, [shape(x), []], [_as_strided(c.out), node("aten::fill_", [[1] * x.ndim, []])]


@rule("aten::mean")
def _mean(c):
    x = c["input"]
    if not isinstance(x, Tensor) or c["dim"] is not None:
        return c.name, c.shapes, []
    total = work("aten::sum", [shape(x)] + _none(4), _as_strided(c.out), node("aten::fill_", [[1] * x.ndim, []]))
    return c.name, [shape(x), []], [total, _to_from_scalar_div([])]


@rule("aten::softmax", "aten::log_softmax")
def _softmax(c):
    x = c["input"]
    inner = "aten::_" + c.name[len("aten::"):]
    return c.name, [shape(x), [], []], [work(inner, [shape(x), [], []])]


@rule("aten::cross_entropy_loss")
def _cross_entropy(c):
    x, t = c["input"], c["target"]
    xs, ts = shape(x), shape(t)
    log_softmax = work("aten::log_softmax", [xs, [], []], node("aten::to", [xs] + _none(7)),
                       work("aten::_log_softmax", [xs, [], []]))
    nll = node("aten::nll_loss_nd", [xs, ts, [], [], []],
               node("aten::nll_loss", [xs, ts, [], [], []], node("aten::nll_loss_forward", [xs, ts, [], [], []])))
    return c.name, [xs, ts, shape(c["weight"]), [], [], []], [log_softmax, nll]


@rule("aten::dropout")
def _dropout(c):
    x = c["input"]
    shapes = [shape(x), [], []]
    if not c["train"] or not c["p"]:
        return c.name, shapes, []
    xs = shape(x)
    return c.name, shapes, [node("aten::empty_like", [xs] + _none(5), node("aten::empty_strided", _none(6))),
                            node("aten::bernoulli_", [xs, [], []]), node("aten::div_", [xs, []], _wrap_scalar()),
                            work("aten::mul", [xs, xs])]


@rule("aten::clone")
def _clone(c):
    x = c["input"]
    return c.name, [shape(x), []], [node("aten::empty_strided", _none(6)), work("aten::copy_", [shape(x), shape(x), []])]


def _contiguous_calls(x) -> tuple:
    return work("aten::contiguous", [shape(x), []],
                work("aten::clone", [shape(x), []], node("aten::empty_like", [shape(x)] + _none(5), _empty()),
                     work("aten::copy_", [shape(x), shape(x), []])))


@rule("aten::contiguous")
def _contiguous(c):
    x = c["input"]
    if isinstance(x, Tensor) and x.is_contiguous():
        return None  # answered before the dispatcher: no op runs
    return _contiguous_calls(x)[:3]


@rule("aten::reshape")
def _reshape(c):
    x = c["input"]
    return c.name, [shape(x), []], [node("aten::view", [shape(x), []])] if c.out._base is not None else []


@rule("aten::zeros", "aten::ones", "aten::randn", "aten::rand", "aten::full")
def _factory(c):
    o = shape(c.out)
    fill = {"aten::zeros": node("aten::zero_", [o]), "aten::ones": node("aten::fill_", [o, []]),
            "aten::full": node("aten::fill_", [o, []]), "aten::randn": work("aten::normal_", [o, [], [], []]),
            "aten::rand": work("aten::uniform_", [o, [], [], []])}[c.name]
    calls = [_empty(), fill]
    return c.name, _none(6 if c.name == "aten::full" else 5), calls


def _index_calls(x, index) -> tuple:
    """x[index] for ints and slices: one select / slice per indexed dimension, each a view."""
    if not isinstance(index, tuple):
        index = (index,)
    if not all(isinstance(i, (int, slice)) and not isinstance(i, bool) for i in index):
        return None
    calls, cur = [], list(x.shape)
    dim = 0
    for i in index:
        if isinstance(i, int):
            calls.append(node("aten::select", [list(cur), [], []], node("aten::as_strided", [list(cur), [], [], []])))
            del cur[dim]
        else:
            if i.indices(cur[dim]) != (0, cur[dim], 1):  # a slice of the whole dimension is no call
                calls.append(node("aten::slice", [list(cur), [], [], [], []],
                                  node("aten::as_strided", [list(cur), [], [], []])))
            cur[dim] = len(range(*i.indices(cur[dim])))
            dim += 1
    return calls


@rule("aten::getitem")
def _getitem(c):
    x, index = c["input"], c["key"]
    calls = _index_calls(x, index) if isinstance(x, Tensor) else None
    if calls is None:
        return "aten::index", [shape(x), []], []
    if not calls:
        return "aten::alias", [shape(x)], []
    first = calls[0]  # x[0, 1]: the op is the first select, the second one follows it
    return first[0], first[1], first[2], calls[1:]
