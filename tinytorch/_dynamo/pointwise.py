"""Pointwise fusion: a run of elementwise ops of one shape and dtype becomes one generated function.

A plan (``replay.py``) calls one op per node: on a small tensor the call costs far more than its arithmetic
(micrograd's graph is thousands of additions and products of 0-d tensors, each a Python call, a dispatch and a
numpy scalar op). ``fuse_pointwise`` finds the runs of consecutive nodes of the joint graph whose ops declare a
formula on one element (``op(scalar=...)``: add's ``operator.add``, relu's ``np.where(x < 0, 0, x)``, tanh_backward's
the derivative tanh declares), all of one side (forward or backward), one shape and one floating dtype, a tensor
first and then operands of that dtype (of that shape, or broadcasting to it) or Python numbers; each run of two or
more becomes one node calling a generated function that computes every op of the run on scalars, one after the
other. Each op's line is its declared formula called on symbolic operands (``expr.py``), which write down its
steps: no formula is typed here again::

    def fused_mul_add_relu_0(in0, in1, in2):        # (TORCH_LOGS=output_code prints it)
        ...
            x0 = in0._data[()]
            x1 = in1._data[()]
            x2 = in2._data[()]
            v0 = x0 * x1  # mul
            v1 = v0 + x2  # add
            v2 = zero if v1 < zero else v1  # relu
        ...
        return (out(v1), out(v2), )

The values a later node reads (or the plan returns) come out as tensors again. Two forms run the same lines:

- **0-d tensors**: the lines run as they are, on numpy scalars of the dtype (float32 arithmetic in float32,
  one rounding per op, as the ops round: the eager ops compute a 0-d float32 sum or product in double precision
  and round it once to float32, which gives the same float, double rounding being harmless for +, -, *, / and
  sqrt of floats with half the bits or fewer). No compiler is needed.
- **arrays** (``[fast]``: numba installed): the lines become the body of a loop over the elements (one flat loop,
  or a loop per axis where an operand broadcasts: a bias, a column of row statistics, read through zero strides),
  compiled by numba (no fast-math, so nothing is contracted or reordered: each op rounds where it did). The generated
  function takes this path when its inputs are C-contiguous, else it runs the run's ops one by one (an op's
  result keeps its inputs' layout, which later reductions' order may depend on). Without numba, array runs
  are left as they are.

Only exact IEEE arithmetic, comparisons and selections are declared so (no exp, tanh or erf: numpy's SIMD
functions, PyTorch's and a compiler's libm give different floats; pow's products and roots only while its CPU path
computes them so, ``_cpu/pointwise.py``), so a fused plan gives the floats
the unfused plan gives, bit for bit, signed zeros and infinities included; a NaN stays a NaN, but its sign and
payload may differ where numba's code and numpy's loops make it differently (an invalid operation, or two NaN
operands: LLVM leaves a NaN's bits open). ``tests/compile/test_compile_pointwise.py`` holds them to that, and
``tests/compile/test_compile_pointwise_formulas.py`` each op's generated line to the op."""
from __future__ import annotations

import itertools
import logging
import math
import operator
import re
import sys

import numpy as np

from .. import _logging
from .._quiet_fp import loud, quiet
from .._ops._core.registry import scalar_formula
from .._ops._kernels import compiled as _compiled
from ..fx.node import Node as FxNode
from ..tensor import _make
from .expr import Expr
from .guards import _NP_DTYPE
from .replay import _resolve

__all__ = ["fuse_pointwise"]

log = logging.getLogger("tinytorch._inductor.output_code")

_FLOATS = {np.dtype(np.float32): (np.float32, 2 ** 24, float(np.finfo(np.float32).max)),
           np.dtype(np.float64): (np.float64, 2 ** 53, float(np.finfo(np.float64).max))}
_names = itertools.count()
_KERNELS: dict = {}  # generated loop source -> its numba-compiled function (identical runs compile once)


def _val(node):
    val = node.meta.get("val") if isinstance(node, FxNode) else None
    return val if hasattr(val, "shape") and hasattr(val, "dtype") else None


def _key(node):
    """(shape, numpy dtype) of a node's result where it is a floating tensor, else None."""
    val = _val(node)
    if val is None:
        return None
    dt = _NP_DTYPE[val.dtype]
    return (tuple(val.shape), dt) if dt in _FLOATS else None


def _broadcasts(shape: tuple, to: tuple) -> bool:
    """Whether an operand of ``shape`` broadcasts to the run's ``to`` (fewer axes, or axes of size 1): an array
    operand only (a 0-d tensor beside an array takes another path in the ops)."""
    if shape == to:
        return True
    return bool(shape) and len(shape) <= len(to) and all(s in (1, t) for s, t in zip(shape[::-1], to[::-1]))


def _number_ok(value, dtype) -> bool:
    """A Python number the op's eager path casts to ``dtype`` before the arithmetic, exactly as the fused line's
    constant is made (finite, an int the dtype holds exactly, a float within its range)."""
    _, ints, top = _FLOATS[dtype]
    if type(value) is int:
        return abs(value) <= ints
    return type(value) is float and math.isfinite(value) and abs(value) <= top


def _formula(node):
    """The formula on one element that the op of a node declares (``registry.scalar_formula``: ``op(scalar=)``),
    or None: a node of another op, or of an ``out=`` form."""
    target = node.target
    packet = getattr(target, "_packet", None)
    if packet is None or target._overloadname == "out" or target._overloadname.endswith("_out"):
        return None
    return scalar_formula(packet._fn)


def _line(formula, operands: list, dtype, names):
    """A node's line: its op's formula called on ``operands`` (names of the values, as Exprs; Python numbers as
    they are) as the op is called, so that the text is the formula's steps (``expr.py``); None where the formula
    declines these operands (pow's other exponents) or does not take them (a legacy spelling)."""
    try:
        value = formula(*[Expr(a, dtype, names) if type(a) is str else a for a in operands])
    except TypeError:
        return None
    return value.text if isinstance(value, Expr) else None


def _constant_names(dtype, consts: dict):
    """How a run's lines name a number: ``zero``, ``one``, else a constant ``c<k>`` of the dtype (``consts``: the
    number's text -> its name), cast as the ops cast a Python number before the arithmetic."""
    scalar_type = _FLOATS[dtype][0]

    def name(value) -> str:
        text = repr(value) if type(value) is int else repr(float(scalar_type(value)))
        if text in ("0", "0.0"):
            return "zero"
        if text in ("1", "1.0"):
            return "one"
        return consts.setdefault(text, f"c{len(consts)}")
    return name


def _label(node) -> str:
    return node.target._packet._name


def _fusable(node, key) -> bool:
    if node.op != "call_function" or node.kwargs or _key(node) != key or not node.args:
        return False
    formula = _formula(node)
    # a tensor first: an op's forms with a number first are other formulas (number / x is reciprocal(x) * number)
    if formula is None or not isinstance(node.args[0], FxNode):
        return False
    operands = []
    for i, a in enumerate(node.args):
        if isinstance(a, FxNode):
            other = _key(a)
            if other is None or other[1] != key[1] or not _broadcasts(other[0], key[0]):
                return False
            operands.append(f"x{i}")
        elif _number_ok(a, key[1]):
            operands.append(a)
        else:
            return False
    return _line(formula, operands, key[1], _constant_names(key[1], {})) is not None


def fuse_pointwise(graph, n_primals: int) -> None:
    """Replace each run of two or more fusable nodes (see the module's docstring) by one node calling a generated
    function, and a ``getitem`` of its result for each value read after the run. ``graph``: a joint graph whose
    first ``n_primals`` placeholders are the primals, the rest tangents (a run never mixes the forward's nodes
    with the backward's, those that read a tangent)."""
    backward = set([n for n in graph.nodes if n.op == "placeholder"][n_primals:])
    for node in graph.nodes:
        if node.op == "call_function" and any(a in backward for a in node.all_input_nodes):
            backward.add(node)
    side = backward.__contains__
    arrays = None  # whether numba compiles the array form (asked once, at the first array run)
    run: list = []
    runs: list = []
    for node in list(graph.nodes):
        key = _key(node)
        if run and key == _key(run[0]) and side(node) == side(run[0]) and _fusable(node, key):
            run.append(node)
            continue
        if len(run) > 1:
            runs.append(run)
        run = [node] if key is not None and _fusable(node, key) else []
    if len(run) > 1:
        runs.append(run)
    for run in runs:
        shape, dtype = _key(run[0])
        if shape != ():
            if arrays is None:
                arrays = _compiled.family("relu") is not None  # (numba importable, and switched on)
            if not arrays:
                continue
        _replace(graph, run, shape, dtype)


def _replace(graph, run: list, shape: tuple, dtype) -> None:
    inside = set(run)
    inputs: list = []
    for node in run:
        for a in node.args:
            if isinstance(a, FxNode) and a not in inside and a not in inputs:
                inputs.append(a)
    outputs = [n for n in run if any(u not in inside for u in n.users)]
    fn = _generate(run, inputs, outputs, shape, dtype)
    if fn is None:
        return
    with graph.inserting_before(run[0]):
        fused = graph.call_function(fn, tuple(inputs))
        fused.meta["val"] = tuple(n.meta.get("val") for n in outputs)
        items = []
        for k, out in enumerate(outputs):
            item = graph.call_function(operator.getitem, (fused, k))
            item.meta["val"] = out.meta.get("val")
            items.append(item)
    for out, item in zip(outputs, items):
        out.replace_all_uses_with(item)
    for node in reversed(run):
        graph.erase_node(node)


def _generate(run: list, inputs: list, outputs: list, shape: tuple, dtype):
    """The generated function of a run: its source, made into a function (numba-compiled for arrays)."""
    tname = _FLOATS[dtype][0].__name__
    values = {n: f"x{k}" for k, n in enumerate(inputs)}
    consts: dict = {}
    names = _constant_names(dtype, consts)
    lines = []
    for k, node in enumerate(run):
        operands = [values[a] if isinstance(a, FxNode) else a for a in node.args]
        lines.append(f"v{k} = {_line(_formula(node), operands, dtype, names)}  # {_label(node)}")
        values[node] = f"v{k}"
    used = set(re.findall(r"\b(zero|one)\b", "\n".join(lines)))
    consts_lines = ([f"{c} = np.{tname}({v})" for v, c in consts.items()]
                    + [f"{name} = np.{tname}({value})" for name, value in (("zero", 0), ("one", 1)) if name in used])
    ops = list(dict.fromkeys(_label(n) for n in run))
    title = f"fused_{'_'.join(ops[:4])}_{next(_names)}"
    params = ", ".join(f"in{k}" for k in range(len(inputs)))
    results = [values[n] for n in outputs]
    if shape == ():
        body = ([f"    {c}" for c in consts_lines] + [f"    x{k} = in{k}._data[()]" for k in range(len(inputs))]
                + [f"    {line}" for line in lines])
        src = (f"def {title}({params}):\n    token = quiet()\n    try:\n" + "\n".join("    " + b for b in body)
               + f"\n    finally:\n        loud(token)\n    return ({''.join(f'out({r}), ' for r in results)})\n")
        glob = {"np": np, "quiet": quiet, "loud": loud, "out": lambda v: _make(np.array(v))}
        return _define(title, src, glob)
    full = [tuple(_val(n).shape) == shape for n in inputs]  # the inputs of the run's shape (others broadcast)
    arrays = [f"a{k}" for k in range(len(inputs))] + [f"o{k}" for k in range(len(outputs))]
    if all(full):  # one flat loop over the elements, in memory order
        loops, at = ["for i in range(o0.shape[0]):"], "i"
    else:  # a loop per axis, the broadcast inputs read through their zero strides
        loops = [f"{'    ' * d}for i{d} in range(o0.shape[{d}]):" for d in range(len(shape))]
        at = ", ".join(f"i{d}" for d in range(len(shape)))
    inner = "    " * (len(loops) + 1)
    loop = (f"def kernel({', '.join(arrays)}):\n"
            + "".join(f"    {c}\n" for c in consts_lines)
            + "".join(f"    {line}\n" for line in loops)
            + "".join(f"{inner}x{k} = a{k}[{at}]\n" for k in range(len(inputs)))
            + "".join(f"{inner}{line}\n" for line in lines)
            + "".join(f"{inner}o{k}[{at}] = {r}\n" for k, r in enumerate(results)))
    kernel = _KERNELS.get(loop)
    if kernel is None:
        try:
            numba = sys.modules["numba"]  # (imported: fuse_pointwise asked for a family of compiled kernels)
            kernel = numba.njit(_define("kernel", loop, {"np": np}), cache=False, error_model="numpy")
            # compiled now, for the kinds of arrays a call passes (flat; or the run's shape, read-only broadcasts)
            if all(full):
                kernel(*[np.empty(0, dtype) for _ in arrays])
            else:
                nd = len(shape)
                spread = np.broadcast_to(np.empty((1,) * nd, dtype), (2,) * nd)  # (zero strides: not contiguous)
                kernel(*[np.empty((0,) * nd, dtype) if f else spread for f in full],
                       *[np.empty((0,) * nd, dtype) for _ in outputs])
        except Exception:  # noqa: BLE001  (numba failing on it: the run stays op by op)
            return None
        _KERNELS[loop] = kernel
    reads = ", ".join(f"in{k}._data" for k in range(len(inputs)))
    if all(full):
        call = "kernel(*[a.reshape(-1) for a in arrays], *[o.reshape(-1) for o in outs])"
    else:
        call = f"kernel(*[a if a.shape == {shape!r} else broadcast(a, {shape!r}) for a in arrays], *outs)"
    src = (f"def {title}({params}):\n"
           f"    arrays = ({reads},)\n"
           f"    if not all(a.flags.c_contiguous for a in arrays):\n"
           f"        return unfused({params})\n"
           f"    outs = [np.empty({shape!r}, np.{tname}) for _ in range({len(outputs)})]\n"
           f"    {call}\n"
           f"    return tuple(make(o) for o in outs)\n")
    glob = {"np": np, "kernel": kernel, "make": _make, "unfused": _unfused(run, inputs, outputs),
            "broadcast": np.broadcast_to}
    if _logging.enabled("output_code"):
        log.warning("Output code (kernel of %s):\n%s", title, loop)
    return _define(title, src, glob)


def _define(title: str, src: str, glob: dict):
    if title != "kernel" and _logging.enabled("output_code"):
        log.warning("Output code:\n%s", src)
    code = compile(src, f"<tinytorch fused {title}>", "exec")
    exec(code, glob)  # noqa: S102 - the run's own generated source
    return glob[title]


def _unfused(run: list, inputs: list, outputs: list):
    """The run's ops one by one (for inputs the loop does not take): what the plan ran before the fusion."""
    steps = [(n, _resolve(n.target), tuple(n.args)) for n in run]  # (the args as they are: erased nodes lose them)

    def unfused(*tensors):
        env = dict(zip(inputs, tensors))
        for node, fn, args in steps:
            env[node] = fn(*[env[a] if isinstance(a, FxNode) else a for a in args])
        return tuple(env[n] for n in outputs)
    return unfused
