"""gradcheck / gradgradcheck: analytic gradients against central finite differences (float64)."""
from __future__ import annotations

import warnings

import numpy as np

from ..tensor import Tensor, _make
from . import forward_ad as fwAD
from .engine import grad as _grad
from .grad_mode import enable_grad, no_grad


class GradcheckError(RuntimeError):
    """Raised by gradcheck when the analytic and numerical Jacobians differ."""


def _as_tuple(x) -> tuple:
    return x if isinstance(x, tuple) else tuple(x) if isinstance(x, list) else (x,)


def _diff_outputs(func, inputs):
    return [o for o in _as_tuple(func(*inputs)) if isinstance(o, Tensor)]


def _numerical_jacobian(func, inputs, x, eps: float, n_out: list) -> list:
    """Per output, a (x.numel, out.numel) matrix of central differences with respect to ``x``."""
    flat = x._data.reshape(-1)  # a view: writing it perturbs x in place
    cols = [np.zeros((x._data.size, n)) for n in n_out]
    for k in range(flat.size):
        orig = flat[k].item()
        with no_grad():
            flat[k] = orig + eps
            plus = [o._data.astype(np.float64).reshape(-1).copy() for o in _diff_outputs(func, inputs)]
            flat[k] = orig - eps
            minus = [o._data.astype(np.float64).reshape(-1).copy() for o in _diff_outputs(func, inputs)]
            flat[k] = orig
        for j, (p, m) in enumerate(zip(plus, minus)):
            cols[j][k] = (p - m) / (2 * eps)
    return cols


def _analytical_jacobian(outputs, diff_inputs) -> list:
    """jac[i][j]: (input_i.numel, output_j.numel), by one backward per output element."""
    jac = [[np.zeros((x._data.size, o._data.size)) for o in outputs] for x in diff_inputs]
    for j, o in enumerate(outputs):
        if not o._requires_grad:
            continue
        for e in range(o._data.size):
            seed = np.zeros(o._data.size, dtype=o._data.dtype)
            seed[e] = 1
            gs = _grad(o, diff_inputs, grad_outputs=_make(seed.reshape(o._data.shape)), retain_graph=True,
                       allow_unused=True)
            for i, g in enumerate(gs):
                if g is not None:
                    jac[i][j][:, e] = g._data.astype(np.float64).reshape(-1)
    return jac


def _forward_jacobian(func, inputs, diff_inputs) -> list:
    """jac[i][j]: (input_i.numel, output_j.numel), by forward-mode AD: one pass per input element, its
    tangent one-hot and every other input's zero."""
    jac = None
    for i, x in enumerate(diff_inputs):
        for k in range(x._data.size):
            with fwAD.dual_level():
                duals = {}
                for m, y in enumerate(diff_inputs):
                    t = np.zeros(y._data.shape, dtype=y._data.dtype)
                    if m == i:
                        t.reshape(-1)[k] = 1
                    duals[id(y)] = fwAD.make_dual(y.detach(), _make(t))
                args = [duals.get(id(a), a) if isinstance(a, Tensor) else a for a in inputs]
                outs = _diff_outputs(func, args)
                if jac is None:
                    jac = [[np.zeros((y._data.size, o._data.size)) for o in outs] for y in diff_inputs]
                for j, o in enumerate(outs):
                    tangent = fwAD.unpack_dual(o).tangent
                    if tangent is not None:
                        jac[i][j][k] = tangent._data.astype(np.float64).reshape(-1)
    return jac if jac is not None else [[] for _ in diff_inputs]


def _shown(a: np.ndarray) -> str:
    return repr(_make(a))  # printed as PyTorch prints the Jacobians: tensors


def _batched_grads_agree(outputs, diff_inputs, atol: float, rtol: float) -> str | None:
    """``autograd.grad(..., is_grads_batched=True)`` on a batch of cotangents against one backward per
    cotangent (PyTorch's check_batched_grad); the first disagreement's text, or None."""
    gen = np.random.default_rng(0)
    for j, o in enumerate(outputs):
        if not o._requires_grad:
            continue
        cots = gen.standard_normal((2,) + o._data.shape).astype(o._data.dtype)
        batched = _grad(o, diff_inputs, grad_outputs=_make(cots), retain_graph=True, allow_unused=True,
                        is_grads_batched=True)
        for b in range(2):
            one = _grad(o, diff_inputs, grad_outputs=_make(cots[b]), retain_graph=True, allow_unused=True)
            for i, (gb, g1) in enumerate(zip(batched, one)):
                if (gb is None) != (g1 is None):
                    return f"For output {j} and input {i}: a batched gradient is undefined where the unbatched is not"
                if g1 is not None and not np.allclose(gb._data[b], g1._data, rtol=rtol, atol=atol):
                    return (f"For output {j} and input {i}:\n\nGradient computed with batched gradients does not "
                            "match the gradient computed without them")
    return None


def gradcheck(func, inputs, *, eps: float = 1e-6, atol: float = 1e-5, rtol: float = 1e-3,
              raise_exception: bool = True, nondet_tol: float = 0.0, check_undefined_grad: bool = True,
              check_grad_dtypes: bool = False, check_batched_grad: bool = False,
              check_batched_forward_grad: bool = False, check_forward_ad: bool = False,
              check_backward_ad: bool = True, fast_mode: bool = False, masked=None) -> bool:
    """True when autograd's Jacobian of ``func`` at ``inputs`` matches finite differences: the one the
    backward computes (``check_backward_ad``), the one forward-mode AD computes (``check_forward_ad``),
    and, with ``check_batched_grad``, gradients of a batch of cotangents against one backward each.
    ``fast_mode`` is accepted and checks the full Jacobians."""
    if not (check_forward_ad or check_backward_ad):
        raise AssertionError("Expected at least one of check_forward_ad or check_backward_ad to be True")
    inputs = _as_tuple(inputs)
    diff_inputs = [x for x in inputs if isinstance(x, Tensor) and x._requires_grad]
    for i, x in enumerate(diff_inputs):
        if x._data.dtype != np.float64:
            warnings.warn(f"Input #{i} requires gradient and is not a double precision floating point. This check "
                          "will likely fail if all the inputs are not of double precision floating point. ",
                          UserWarning, stacklevel=2)
    outputs = _diff_outputs(func, inputs)
    numeric = [_numerical_jacobian(func, inputs, x, eps, [o._data.size for o in outputs]) for x in diff_inputs]
    checks = []
    if check_backward_ad:
        checks.append(("Jacobian mismatch", _analytical_jacobian(outputs, diff_inputs)))
    if check_forward_ad:
        checks.append(("Jacobian computed with forward mode mismatch", _forward_jacobian(func, inputs, diff_inputs)))
    for what, analytic in checks:
        for i in range(len(diff_inputs)):
            for j in range(len(outputs)):
                a, n = analytic[i][j], numeric[i][j]
                if not np.allclose(a, n, rtol=rtol, atol=atol):
                    if not raise_exception:
                        return False
                    raise GradcheckError(f"{what} for output {j} with respect to input {i},\n"
                                         f"numerical:{_shown(n)}\nanalytical:{_shown(a)}\n")
    if check_batched_grad and check_backward_ad:
        problem = _batched_grads_agree(outputs, diff_inputs, atol, rtol)
        if problem is not None:
            if not raise_exception:
                return False
            raise GradcheckError(problem)
    return True


def gradgradcheck(func, inputs, grad_outputs=None, *, eps: float = 1e-6, atol: float = 1e-5, rtol: float = 1e-3,
                  gen_non_contig_grad_outputs: bool = False, raise_exception: bool = True, nondet_tol: float = 0.0,
                  check_undefined_grad: bool = True, check_grad_dtypes: bool = False, check_batched_grad: bool = False,
                  check_fwd_over_rev: bool = False, check_rev_over_rev: bool = True, fast_mode: bool = False,
                  masked: bool = False) -> bool:
    """gradcheck of the gradient itself: second derivatives against finite differences."""
    inputs = _as_tuple(inputs)
    outputs = _diff_outputs(func, inputs)
    if grad_outputs is None:
        # randn's draws (it fills an empty tensor with normal_): the methods the ops give each tensor, as
        # this module sits below them
        grad_outputs = [o.new_empty(o.shape).normal_().requires_grad_() for o in outputs]
    grad_outputs = list(_as_tuple(grad_outputs))
    n_in = len(inputs)
    # which arguments require grad, as gradcheck's forward-mode check passes them as dual tensors of detached
    # primals (PyTorch's gradgradcheck notes them the same way)
    wanted = [isinstance(x, Tensor) and x._requires_grad for x in tuple(inputs) + tuple(grad_outputs)]

    def first_derivative(*args):
        # gradcheck evaluates this under no_grad for its finite differences; the gradient needs a graph
        with enable_grad():
            args = [x.requires_grad_() if w else x for x, w in zip(args, wanted)]
            ins, gos = args[:n_in], args[n_in:]
            outs = _diff_outputs(func, ins)
            dins = [x for x in ins if isinstance(x, Tensor) and x._requires_grad]
            gs = _grad(outs, dins, grad_outputs=list(gos), create_graph=True, allow_unused=True)
        return tuple(g for g in gs if g is not None)

    return gradcheck(first_derivative, tuple(inputs) + tuple(grad_outputs), eps=eps, atol=atol, rtol=rtol,
                     raise_exception=raise_exception, check_batched_grad=check_batched_grad,
                     check_forward_ad=check_fwd_over_rev, check_backward_ad=check_rev_over_rev)
