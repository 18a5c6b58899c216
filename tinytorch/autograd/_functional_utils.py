"""The shared plumbing of ``autograd.functional``: PyTorch's argument checks and error messages, the
re-wrapping of inputs, ``autograd.grad`` that skips outputs without a graph, and the zero filling of
unused inputs (the argument handling the Jacobian/Hessian drivers in ``functional.py`` share)."""
from __future__ import annotations

from .._ops.creation.factory import zeros_like
from ..tensor import Tensor
from .engine import grad as _grad
from .grad_mode import _State



def _as_tuple(inp, arg_name=None, fn_name=None):
    """(was it a tuple, the tuple); PyTorch's TypeError for anything that is not tensors."""

    is_tuple = isinstance(inp, tuple)
    tup = inp if is_tuple else (inp,)
    if arg_name is not None:
        for i, el in enumerate(tup):
            if not isinstance(el, Tensor):
                where = f"value at index {i}" if is_tuple else f"given {arg_name}"
                raise TypeError(f"The {arg_name} given to {fn_name} must be either a Tensor or a tuple of Tensors "
                                f"but the {where} has type {_py_type(el)}.")
    return is_tuple, tup


def _py_type(x) -> str:
    t = type(x)
    if t.__module__.startswith("tinytorch"):
        return f"<class 'tinytorch.{t.__name__}'>" if t.__name__ == "Tensor" else repr(t)
    return repr(t)


def _unpack(res, to_unpack):
    """Invert ``_as_tuple`` on a result: one flag, or (outer, inner) flags for nested results."""
    if isinstance(to_unpack, tuple):
        if not to_unpack[1]:
            res = tuple(el[0] for el in res)
        if not to_unpack[0]:
            res = res[0]
        return res
    return res if to_unpack else res[0]


def _preprocess(inputs, create_graph: bool, need_graph: bool):
    # a fresh tensor object per input; differentiable back to the caller's only with create_graph
    return tuple(t.view_as(t) if create_graph and t.requires_grad else t.detach().requires_grad_(need_graph)
                 for t in inputs)


def _postprocess(res, create_graph: bool):
    if len(res) and isinstance(res[0], Tensor):
        return res if create_graph else tuple(t.detach() for t in res)
    return tuple(_postprocess(r, create_graph) for r in res)


def _validate_v(v, other, is_other_tuple: bool) -> None:
    if len(other) != len(v):
        if is_other_tuple:
            raise RuntimeError(f"v is a tuple of invalid length: should be {len(other)} but got {len(v)}.")
        raise RuntimeError("The given v should contain a single Tensor.")
    for i, (a, b) in enumerate(zip(v, other)):
        if a.size() != b.size():
            pre = f"Entry {i} in " if is_other_tuple else ""
            raise RuntimeError(f"{pre}v has invalid size: should be {b.size()} but got {a.size()}.")


def _check_requires_grad(tensors, kind: str, strict: bool) -> None:
    if not strict:
        return
    for i, t in enumerate(tensors):
        if t is None:
            raise RuntimeError(f"The output of the user-provided function is independent of input {i}. "
                               "This is not allowed in strict mode.")
        if t.requires_grad:
            continue
        if kind == "hessian":
            raise RuntimeError(f"The hessian of the user-provided function with respect to input {i} is independent "
                               "of the input. This is not allowed in strict mode. You should ensure that your "
                               "function is thrice differentiable and that the hessian depends on the inputs.")
        if kind == "jacobian":
            raise RuntimeError("While computing the hessian, found that the jacobian of the user-provided function "
                               f"with respect to input {i} is independent of the input. This is not allowed in strict "
                               "mode. You should ensure that your function is twice differentiable and that the "
                               "jacobian depends on the inputs (this would be violated by a linear function for "
                               "example).")
        if kind == "grad_inputs":
            raise RuntimeError(f"The gradient with respect to input {i} is independent of the inputs of the "
                               "user-provided function. This is not allowed in strict mode.")
        raise RuntimeError(f"Output {i} of the user-provided function does not require gradients. The outputs must "
                           "be computed in a differentiable manner from the input when running in strict mode.")


def _autograd_grad(outputs, inputs, grad_outputs=None, create_graph=False, retain_graph=None):
    """``autograd.grad`` that skips outputs not requiring grad (None for every input if none does)."""
    if grad_outputs is None:
        grad_outputs = (None,) * len(outputs)
    pairs = [(o, g) for o, g in zip(outputs, grad_outputs) if o is not None and o.requires_grad]
    if not pairs:
        return (None,) * len(inputs)
    return _grad([o for o, _ in pairs], list(inputs), [g for _, g in pairs], allow_unused=True,
                 create_graph=create_graph, retain_graph=retain_graph)


_ZERO_MSG = {
    "back": "The output of the user-provided function is independent of input {i}. This is not allowed in strict mode.",
    "back_trick": "The gradient with respect to the input is independent of entry {i} in the grad_outputs when using "
                  "the double backward trick to compute forward mode gradients. This is not allowed in strict mode.",
    "double_back": "The jacobian of the user-provided function is independent of input {i}. This is not allowed in "
                   "strict mode.",
    "double_back_trick": "The hessian of the user-provided function is independent of entry {i} in the grad_jacobian. "
                         "This is not allowed in strict mode as it prevents from using the double backward trick to "
                         "replace forward mode AD.",
}


def _fill_in_zeros(grads, refs, strict: bool, create_graph: bool, stage: str):
    res = []
    for i, g in enumerate(grads):
        if g is None:
            if strict:
                raise RuntimeError(_ZERO_MSG[stage].format(i=i))
            g = zeros_like(refs[i])
        elif strict and create_graph and not g.requires_grad:
            what = "hessian" if "double" in stage else "jacobian"
            raise RuntimeError(f"The {what} of the user-provided function is independent of input {i}. This is not "
                               "allowed in strict mode when create_graph=True.")
        res.append(g)
    return tuple(res)


class _grad_mode:
    """Grad mode on when ``create_graph`` (so the result has a graph), else left as the caller had it."""

    def __init__(self, create_graph: bool):
        self.on = create_graph

    def __enter__(self):
        self.prev = _State.enabled
        if self.on:
            _State.enabled = True

    def __exit__(self, *exc):
        _State.enabled = self.prev
