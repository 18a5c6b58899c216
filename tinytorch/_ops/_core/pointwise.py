"""Declaring an elementwise function of one tensor in one line, as ``derivatives.yaml`` does::

    exp = unary("exp", np.exp, lambda g, x, y: g * y, saves="result", method=True, inplace=True, out=True)

The line gives the numpy forward, the derivative as a formula in tinytorch ops (``g`` the incoming
gradient, ``x`` the input, ``y`` the result; the node saves only what ``saves`` names), and the
spellings (as ``op`` takes them). From it come the graph node ``ExpBackward0`` (its backward is the
formula; its forward-mode rule is the same formula applied to the tangent, because an elementwise
op's Jacobian is diagonal), the function, and every spelling; vmap batches it pointwise."""
from __future__ import annotations

from typing import NamedTuple

import numpy as np

from ..._dtype import INEXACT_NP, LOWP_NP, NARROW_NP, float32, get_default_dtype
from ..._dtype_info import promote_types
from . import narrow_dtypes
from ...autograd.grad_mode import _State, no_grad
from ...autograd.node import Node
from ...tensor import Tensor, _make
from .batching import pointwise
from .record import OUT, record
from .tensor_iterator import elementwise_layout
from .registry import aten_only, capturing, op
from .util import as_array
from ..._numpy_compat import SCALARS_BY_VALUE
from ..._quiet_fp import cast


class SparseValues(NamedTuple):
    """A unary op that PyTorch's sparse backend runs on the stored values (the op keeps zero at zero), given to
    ``unary(sparse=...)``. Its backward multiplies the gradient's values by the declared formula's derivative,
    unless ``backward_refused_at`` names the op PyTorch's formula calls that its sparse backend refuses (that
    refusal is then the backward's error). ``csr``: whether the CSR backend runs it too."""
    backward_refused_at: str | None = None
    csr: bool = True


# the unary ops PyTorch's sparse backend runs, as their declarations say: name -> node class (its ``sparse``)
SPARSE_UNARY: dict = {}


def zero_grad(g, x, y):
    """The derivative of a step function (floor, sign...): zeros shaped as the gradient, as PyTorch's
    zeros_like(grad) (not g * 0, which turns an inf gradient into NaN)."""
    return g.new_zeros(tuple(g.shape))


class UnaryNode(Node):
    """The node of a declared unary op; ``formula(g, x, y)`` is set by ``unary``."""

    saves = None
    formula = None
    on_arrays = False  # the formula is plain arithmetic, which numpy computes as tinytorch's ops do
    aten_backward = None  # PyTorch's backward operator of the op's output (``tanh_backward``): what a capture shows

    def _operands(self):
        saved = self._unpacked_saved
        if self.saves == "input":
            return saved[0], None
        if self.saves == "result":
            return None, saved[0]
        if self.saves == "both":
            return saved
        return None, None

    def backward(self, g):
        if self.aten_backward is not None and _State.enabled != capturing():
            # PyTorch's operator, one node: in a graph capture, or recorded under create_graph (XBackwardBackward0)
            return (self.aten_backward(g, self._operands()[1]),)
        if self.on_arrays and not _State.enabled and _State.array_backward:
            out = self._backward_arrays(g._data)
            if out is not None:
                return (_make(out),)
        x, y = self._operands()
        return self.gradient(g, x, y)

    @classmethod
    def gradient(cls, g, x, y) -> tuple:
        """The formula at ``g`` and the saved ``x``/``y``, in PyTorch's precision and complex convention."""
        if g._data.dtype.kind == "c":
            # a holomorphic f: PyTorch's gradient is g * conj(f'(z)) = conj(formula(conj(g)))
            return (cls.formula(g.conj_physical(), x, y).conj_physical(),)
        if g._data.dtype in LOWP_NP:
            # PyTorch's backward kernels (tanh_backward, ...) compute the formula in float and round once
            # (rounded to the operands' promoted dtype: a half gradient at a float32 result stays float32)
            saved = x if x is not None else y
            wide = cls.formula(g.float(), None if x is None else x.float(), None if y is None else y.float())
            narrow = g.dtype if saved is None or saved._data.dtype == g._data.dtype else \
                promote_types(g.dtype, saved.dtype)
            return (wide.to(narrow) if wide.dtype is float32 else wide,)
        return (cls.formula(g, x, y),)

    def _backward_arrays(self, gd):
        """The formula applied to the arrays (float32/float64, one shape: the same floats as the
        tinytorch ops give), or None where it does not apply. Laid out as the formula on tensors lays it out
        (each formula here is ``g * f(saved)``: ordered by the gradient first, as PyTorch's TensorIterator orders
        ``tanh_backward(grad_output, output)``), where numpy's ufuncs take C order for operands that disagree."""
        if gd.dtype not in _EXACT or (SCALARS_BY_VALUE and not gd.ndim):
            return None  # (numpy 1.x: a 0-d formula's Python numbers promote it; the tensor ops keep the dtype)
        if len(self._saved) == 1:  # one saved tensor (tanh's output...)
            a = self._one_saved_array()
            if a is None:
                return None  # through a pack hook: its unpack hook must see it (the formula on tensors)
            if a.dtype != gd.dtype or a.shape != gd.shape:
                return None
            out = self.formula(gd, a, None) if self.saves == "input" else self.formula(gd, None, a)
            return elementwise_layout(as_array(out), gd, a)
        saved = self._arrays_of_saved()  # None when saved through pack hooks: their unpack must run
        if saved is None:
            return None
        for a in saved:
            if a.dtype != gd.dtype or a.shape != gd.shape:
                return None
        saves = self.saves
        x = saved[0] if saves == "input" or saves == "both" else None
        y = saved[0] if saves == "result" else (saved[1] if saves == "both" else None)
        out = self.formula(gd, x, y)
        return elementwise_layout(as_array(out), gd, *saved)

    def jvp(self, t):
        x, y = self._operands()
        if self.aten_backward is not None:  # PyTorch's forward formula is its backward operator at the tangent
            return self.aten_backward(t, y)
        return self.formula(t, x, y)


_EXACT = (np.dtype(np.float32), np.dtype(np.float64))
_RESULT = (OUT,)  # what a node that keeps its result saves


# PyTorch's ``_saved_<name>`` attributes of a unary node, from what it saves
_SAVED_FIELDS = {"input": (("self", 0),), "result": (("result", 0),), "both": (("self", 0), ("result", 1)), None: ()}


def node_class(name: str, formula, saves: str | None, base=UnaryNode, on_arrays=False):
    """A node class named as PyTorch names it, whose backward is ``formula``."""
    return type(name, (base,), {"formula": staticmethod(formula), "saves": saves, "on_arrays": on_arrays,
                                "__module__": base.__module__, "saved_fields": _SAVED_FIELDS[saves]})


# the storages a unary op does not compute on directly: half and bfloat16 (widened to float32), float8 and
# complex32 (narrow_dtypes.unary): one lookup on the common path
_WIDENED = LOWP_NP | NARROW_NP


def _saved(saves: str | None, input: Tensor) -> tuple:
    """What a unary node saves, as ``record``'s ``saved``."""
    if saves == "result":
        return _RESULT
    if saves == "input":
        return (input,)
    return (input, OUT) if saves == "both" else ()


def unary_function(node_cls, fn, *, floating: bool = True, quiet: bool = False, name: str | None = None,
                   narrow_kernel: str | None = None):
    """``op(input)``: forward ``fn`` on the array, recording a ``node_cls`` node when grad is needed.

    floating: integer and bool inputs compute in the default float dtype (exp, sin, ...), as PyTorch.
    quiet: ``fn`` raises no floating-point warning on real inputs (relu, abs, neg, tanh), so numpy's error
    state is left alone there: entering ``np.errstate`` costs about a microsecond, as much as a small op.
    Complex inputs are computed quietly all the same (numpy warns for ``tanh(complex(0, inf))``; PyTorch does
    not)."""
    saves = node_cls.saves

    def unary_op(input: Tensor) -> Tensor:
        x = input._data
        if floating and x.dtype not in INEXACT_NP:
            x = x.astype(get_default_dtype().np)
        storage = x.dtype
        if storage in _WIDENED:
            if storage in NARROW_NP:  # float8, complex32: PyTorch's few kernels for them, or its refusal
                return record(narrow_dtypes.unary(uname, x, narrow_kernel), node_cls, (input,), _saved(saves, input))
            x = x.astype(np.float32)  # computed in float and rounded once, as PyTorch's CPU kernels
        one = SCALARS_BY_VALUE and not x.ndim  # numpy 1.x: a 0-d x as one element (fn's Python numbers)
        if one:
            x = x.reshape(1)
        if quiet and storage.kind != "c":
            out = fn(x)
        else:
            with np.errstate(all="ignore"):
                out = fn(x)
        out = elementwise_layout(as_array(out), x)
        if one:
            out = out.reshape(())
        if storage in LOWP_NP and out.dtype == np.float32:
            out = cast(out, storage)
        if _State.enabled and input._requires_grad:
            return record(out, node_cls, (input,), _saved(saves, input))
        return _make(out)

    uname = name or node_cls.__name__[:-len("Backward0")].lower()
    unary_op.__name__ = unary_op.__qualname__ = uname
    unary_op.__doc__ = f"Elementwise {unary_op.__name__}."
    return unary_op


class BackwardOperatorNode(Node):
    """The node of a declared backward operator (``tanh_backward(grad_output, output)``: PyTorch's
    ``TanhBackwardBackward0``). The operator is linear in ``grad_output``, so that gradient is the operator
    itself; ``output_derivative(grad, grad_output, output)`` is the declared one for ``output``."""

    operator = None
    output_derivative = None
    saved_fields = (("grad_output", 0), ("output", 1))

    def backward(self, gg):
        g, y = self._unpacked_saved
        return (self.operator(gg, y) if self.next_functions[0][0] is not None else None,
                self.output_derivative(gg, g, y) if self.next_functions[1][0] is not None else None)


def _backward_operator(name: str, node_cls, output_derivative):
    """``torch.ops.aten.<name>(grad_output, output)``: the backward formula of an op that saves its result, as
    its node computes it (on the arrays where the node would), declared as one recorded ATen operator; a formula
    of arithmetic (``on_arrays``) is its formula on one element too (``op(scalar=)``). Where autograd records (a
    real input that requires grad), the result's node is PyTorch's ``<Name>BackwardBackward0``, differentiated by
    ``output_derivative``."""
    node_name = "".join(part.capitalize() for part in name.split("_")) + "Backward0"
    bb_cls = type(node_name, (BackwardOperatorNode,), {"output_derivative": staticmethod(output_derivative),
                                                      "__module__": BackwardOperatorNode.__module__})

    def backward_operator(grad_output: Tensor, output: Tensor) -> Tensor:
        gd, yd = grad_output._data, output._data
        if (node_cls.on_arrays and gd.dtype in _EXACT and yd.dtype == gd.dtype and yd.shape == gd.shape
                and not (SCALARS_BY_VALUE and not gd.ndim)):
            out = _make(as_array(node_cls.formula(gd, None, yd)))
        elif _State.enabled and gd.dtype.kind != "c" and (grad_output._requires_grad or output._requires_grad):
            with no_grad():  # the formula's value, recorded below as the one node
                out = node_cls.gradient(grad_output, None, output)[0]
        else:
            return node_cls.gradient(grad_output, None, output)[0]  # (complex: the formula's own graph)
        if _State.enabled and (grad_output._requires_grad or output._requires_grad):
            return record(out._data, bb_cls, (grad_output, output), (grad_output, output))
        return out
    backward_operator.__name__ = backward_operator.__qualname__ = name
    backward_operator.node_cls = node_cls  # (the formula, for a compiled plan's lowering of this operator)
    scalar = (lambda grad_output, output: node_cls.formula(grad_output, None, output)) if node_cls.on_arrays else None
    declared = aten_only(name, recorded=True, scalar=scalar)(backward_operator)
    bb_cls.operator = staticmethod(declared)
    return declared


def unary(name: str, fn, derivative, *, saves: str | None = "input", node: str | None = None,
          floating: bool = True, quiet: bool = False, on_arrays=False, batch=pointwise, aten_backward=None,
          sparse: SparseValues | None = None, narrow_kernel: str | None = None, exact: bool = False, **spellings):
    """Declare an elementwise op of one tensor; returns its public function (see the module doc).

    derivative  ``(g, x, y) -> grad`` in tinytorch ops; ``saves`` is "input", "result", "both" or None.
    on_arrays   the derivative is arithmetic with Python numbers only (``g * (1 - y * y)``), so without
                create_graph the backward applies that same formula to the float32/float64 arrays
                (numpy's ufuncs are what the tinytorch ops call: the same floats).
    node        the node's name when PyTorch's is not ``Name + "Backward0"`` (``Log1PBackward0``).
    aten_backward  ``(name, output_derivative)``: PyTorch's operator for the derivative at the result
                (``tanh_backward``), which a graph capture, a backward with create_graph and the forward-mode rule
                record in the formula's place, and its derivative with respect to the result,
                ``(grad, grad_output, output) -> Tensor`` (PyTorch's formula for ``TanhBackwardBackward0``).
    sparse      ``SparseValues``: PyTorch's sparse backend runs the op on a sparse tensor's values (``sparse/``
                reads the formula from here).
    narrow_kernel  the CPU kernel PyTorch's refusal of a float8 / complex32 input names (``exp_vml_cpu``), where
                it is not ``<name>_cpu`` (``_core/narrow_dtypes.py``).
    exact       ``fn`` is exact IEEE arithmetic (``lambda x: 1 / x``, ``np.sqrt``: correctly rounded, whoever computes
                it) that runs on one element as on an array: it is the op's formula on one element (``op(scalar=)``)."""
    node_cls = node_class(node or name[:1].upper() + name[1:] + "Backward0", derivative, saves, on_arrays=on_arrays)
    if sparse is not None:
        node_cls.sparse = sparse
        SPARSE_UNARY[name] = node_cls
    if aten_backward is not None:
        node_cls.aten_backward = staticmethod(_backward_operator(*aten_backward[:1], node_cls, *aten_backward[1:]))
    impl = unary_function(node_cls, fn, floating=floating, quiet=quiet, name=name, narrow_kernel=narrow_kernel)
    return op(name, batch=batch, scalar=fn if exact else None, **spellings)(impl)
