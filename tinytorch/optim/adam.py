"""Adam, optionally AMSGrad, as ``torch.optim.Adam`` (``adamw.py`` builds AdamW on it).

``adam`` follows PyTorch's single-tensor implementation operation for operation on the numpy
arrays in place (lerp for the first moment, multiply-then-add for the second, bias corrections in
double precision from the float ``step`` counter). PyTorch's CPU kernels fuse the weight decay's
``add(alpha=)``, ``lerp`` and ``addcmul`` into one rounding (FMA). ``_ops._kernels.muladd`` reproduces the
first two (BLAS axpy, about the cost of the unfused passes), so the first moment matches PyTorch's bit
for bit. The second moment's ``addcmul`` keeps two roundings: its exact emulation (float64 scratch)
made AdamW's step 1.7x dearer (+1.6 ms on the GPT benchmark's 28 ms step), and the parameters differ
in the last bit anyway: PyTorch's CPU ``sqrt`` (MKL's vector sqrt) is not correctly rounded (about one
float32 in six differs by one ulp from numpy's)."""
from __future__ import annotations

from typing import Any, Callable, Iterable

import numpy as np

from .. import _dtype
from .._numpy_compat import SCALARS_BY_VALUE
from ..autograd.grad_mode import enable_grad, version_counter
from .._ops._kernels import compiled as _compiled
from .._ops._kernels import parallel
from .._ops._kernels.muladd import plus_scaled_into
from ..tensor import Tensor
from ._checks import check_state_shape
from .optimizer import Optimizer, _step_without_grad, _to_scalar, _wrap

__all__ = ["Adam", "adam"]


class Adam(Optimizer):
    """Adam (Kingma & Ba), as ``torch.optim.Adam``; ``decoupled_weight_decay=True`` gives AdamW."""

    def __init__(self, params: Iterable, lr: float | Tensor = 1e-3,
                 betas: tuple[float, float] = (0.9, 0.999), eps: float = 1e-8,
                 weight_decay: float = 0, amsgrad: bool = False, *, foreach: bool | None = None,
                 maximize: bool = False, capturable: bool = False, differentiable: bool = False,
                 fused: bool | None = None, decoupled_weight_decay: bool = False) -> None:
        if isinstance(lr, Tensor) and lr.numel() != 1:
            raise ValueError("Tensor lr must be 1-element")
        if not 0.0 <= lr:
            raise ValueError(f"Invalid learning rate: {lr}")
        if not 0.0 <= eps:
            raise ValueError(f"Invalid epsilon value: {eps}")
        if not 0.0 <= betas[0] < 1.0:
            raise ValueError(f"Invalid beta parameter at index 0: {betas[0]}")
        if not 0.0 <= betas[1] < 1.0:
            raise ValueError(f"Invalid beta parameter at index 1: {betas[1]}")
        if not 0.0 <= weight_decay:
            raise ValueError(f"Invalid weight_decay value: {weight_decay}")
        if not (all(isinstance(b, float) for b in betas)
                or all(isinstance(b, Tensor) for b in betas)):
            raise ValueError("betas must be either both floats or both Tensors")
        defaults = dict(lr=lr, betas=tuple(betas), eps=eps, weight_decay=weight_decay,
                        amsgrad=amsgrad, maximize=maximize, foreach=foreach, capturable=capturable,
                        differentiable=differentiable, fused=fused,
                        decoupled_weight_decay=decoupled_weight_decay)
        super().__init__(params, defaults)
        if fused and foreach:
            raise RuntimeError("`fused` and `foreach` cannot be `True` together.")
        # this optimizer's own temporaries for the exact multiply-adds, reused from step to step (as SGD's)
        self._scratch: dict = {}

    def __setstate__(self, state: dict[str, Any]) -> None:
        super().__setstate__(state)
        self._scratch = {}
        for group in self.param_groups:
            group.setdefault("amsgrad", False)
            group.setdefault("maximize", False)
            group.setdefault("foreach", None)
            group.setdefault("capturable", False)
            group.setdefault("differentiable", False)
            group.setdefault("fused", None)
            group.setdefault("decoupled_weight_decay", False)

    def _init_group(self, group: dict, params: list, grads: list, exp_avgs: list,
                    exp_avg_sqs: list, max_exp_avg_sqs: list, state_steps: list) -> None:
        """Collect the parameters that have a gradient, creating their state on first sight."""
        amsgrad = group["amsgrad"]
        for p in group["params"]:
            grad = p.grad
            if grad is None:
                continue
            params.append(p)
            grads.append(grad)
            state = self.state[p]
            if len(state) == 0:
                # a float tensor counts the steps, as in PyTorch, so checkpoints look the same
                wide = _dtype.get_default_dtype() is _dtype.float64
                state["step"] = _wrap(np.zeros((), dtype=np.float64 if wide else np.float32))
                state["exp_avg"] = _wrap(np.zeros_like(p._data))
                state["exp_avg_sq"] = _wrap(np.zeros_like(p._data))
                if amsgrad:
                    state["max_exp_avg_sq"] = _wrap(np.zeros_like(p._data))
            exp_avgs.append(state["exp_avg"])
            exp_avg_sqs.append(state["exp_avg_sq"])
            if amsgrad:
                max_exp_avg_sqs.append(state["max_exp_avg_sq"])
            state_steps.append(state["step"])

    @_step_without_grad
    def step(self, closure: Callable[[], Any] | None = None):
        """One Adam update of each parameter that has a gradient; returns ``closure()``'s loss."""
        loss = None
        if closure is not None:
            with enable_grad():
                loss = closure()
        for group in self.param_groups:
            params, grads, exp_avgs, exp_avg_sqs, max_sqs, steps = [], [], [], [], [], []
            self._init_group(group, params, grads, exp_avgs, exp_avg_sqs, max_sqs, steps)
            if not params:
                continue
            beta1, beta2 = group["betas"]
            adam(params, grads, exp_avgs, exp_avg_sqs, max_sqs, steps, amsgrad=group["amsgrad"],
                 beta1=beta1, beta2=beta2, lr=group["lr"], weight_decay=group["weight_decay"],
                 eps=group["eps"], maximize=group["maximize"],
                 decoupled_weight_decay=group["decoupled_weight_decay"], _scratch=self._scratch)
        return loss


def adam(params: list[Tensor], grads: list[Tensor], exp_avgs: list[Tensor],
         exp_avg_sqs: list[Tensor], max_exp_avg_sqs: list[Tensor], state_steps: list[Tensor],
         foreach: bool | None = None, capturable: bool = False, differentiable: bool = False,
         fused: bool | None = None, grad_scale: Tensor | None = None,
         found_inf: Tensor | None = None, has_complex: bool = False,
         decoupled_weight_decay: bool = False, *, amsgrad: bool, beta1: float, beta2: float,
         lr: float | Tensor, weight_decay: float, eps: float, maximize: bool, _scratch: dict | None = None) -> None:
    """The Adam update in place (AdamW's with ``decoupled_weight_decay``); advances ``step``. ``_scratch``
    (tinytorch's own): the optimizer's reusable temporaries."""
    if grad_scale is not None or found_inf is not None:
        raise NotImplementedError("tinytorch's adam does not take grad_scale or found_inf")
    lr, beta1, beta2 = _to_scalar(lr), _to_scalar(beta1), _to_scalar(beta2)
    weight_decay, eps = _to_scalar(weight_decay), float(eps)
    for i, param in enumerate(params):
        max_sq = max_exp_avg_sqs[i] if amsgrad else None
        _adam_one(param, grads[i], exp_avgs[i], exp_avg_sqs[i], max_sq, state_steps[i], beta1,
                  beta2, lr, weight_decay, eps, maximize, decoupled_weight_decay, _scratch)


def _adam_one(param: Tensor, grad: Tensor, exp_avg: Tensor, exp_avg_sq: Tensor,
              max_exp_avg_sq: Tensor | None, step_t: Tensor, beta1: float, beta2: float,
              lr: float, weight_decay: float, eps: float, maximize: bool,
              decoupled: bool, scratch: dict | None = None) -> None:
    for state in (exp_avg, exp_avg_sq, max_exp_avg_sq):
        if state is not None:
            check_state_shape(state, grad)
    # every result gets an explicit ``out`` array: numpy returns scalars, not arrays, for 0-d inputs
    p, g, m, v = param._data, grad._data, exp_avg._data, exp_avg_sq._data
    if SCALARS_BY_VALUE and not p.ndim:  # numpy 1.x computes a 0-d array with a Python float in float64:
        p, g, m, v = p.reshape(1), g.reshape(1), m.reshape(1), v.reshape(1)  # one-element views keep the dtype
    mx = max_exp_avg_sq._data.reshape(v.shape) if max_exp_avg_sq is not None else None  # (a view)
    s = step_t._data
    np.add(s, 1, out=s)
    version_counter(step_t)[0] += 1
    fast = _compiled.family("adam") if _compiled_ok(p, g, m, v, max_exp_avg_sq) else None
    hyper = (float(s), beta1, beta2, lr, weight_decay, eps, maximize, decoupled)
    if p.size >= parallel.SPLIT_FROM and _in_parts(fast, (p, g, m, v, mx), hyper):
        pass
    elif fast is not None:
        _adam_compiled(fast, p, g, m, v, mx, *hyper)
    else:
        _adam_arrays(p, g, m, v, mx, *hyper, scratch)
    version_counter(param)[0] += 2 if weight_decay != 0 and decoupled else 1
    version_counter(exp_avg)[0] += 1
    version_counter(exp_avg_sq)[0] += 2
    if max_exp_avg_sq is not None:
        version_counter(max_exp_avg_sq)[0] += 1


def _in_parts(fast, arrays: tuple, hyper: tuple) -> bool:
    """The update of ``arrays`` (p, g, m, v and max_sq or None), by the compiled kernel ``fast`` or on numpy
    (None), on runs of their elements across threads, for large C-contiguous arrays of one size; False
    where it does not split (one thread, or other layouts: the caller updates the whole arrays). Each
    element's update is the same operations on any thread, so the floats do not depend on the split; the
    parts' BLAS calls (the FMA's axpy) run on one BLAS thread."""
    n = arrays[0].size
    if parallel.get_num_threads() < 2 or not all(a is None or (a.flags.c_contiguous and a.size == n) for a in arrays):
        return False
    if fast is not None:
        parallel.flat_runs(lambda *run: _adam_compiled(fast, *run, *hyper), *arrays, blas=True)
    else:
        parallel.flat_runs(lambda *run: _adam_arrays(*run, *hyper, None), *arrays, blas=True)
    return True


def _compiled_ok(p: np.ndarray, g: np.ndarray, m: np.ndarray, v: np.ndarray, max_sq) -> bool:
    """Whether the compiled update takes these arrays: float32/float64 of one dtype, all C-contiguous."""
    dt = p.dtype
    if dt not in _compiled.FLOATS or g.dtype != dt or m.dtype != dt or v.dtype != dt:
        return False
    arrays = (p, g, m, v) if max_sq is None else (p, g, m, v, max_sq._data)
    # (the updated arrays writable: a read-only one gets numpy's error on the numpy path)
    return (all(a.flags.c_contiguous and a.size == p.size for a in arrays)
            and all(a.flags.writeable for a in arrays if a is not g) and (max_sq is None or max_sq._data.dtype == dt))


def _adam_arrays(p, g, m, v, mx, step: float, beta1: float, beta2: float, lr: float, weight_decay: float,
                 eps: float, maximize: bool, decoupled: bool, scratch: dict | None) -> None:
    """The update on numpy arrays in place: p, m, v and ``mx`` (the running maximum of v with AMSGrad, else
    None), each of p's shape; PyTorch's single-tensor steps, as the module docstring says."""
    if maximize:
        g = np.negative(g, out=np.empty_like(g))
    if weight_decay != 0:
        if decoupled:
            np.multiply(p, 1 - lr * weight_decay, out=p)
        else:  # grad.add(param, alpha=weight_decay)
            g = plus_scaled_into(np.empty_like(g), g, p, weight_decay, scratch)

    # first moment: m.lerp_(g, 1 - beta1); PyTorch's lerp is one FMA either side of weight 0.5:
    # m + w * (g - m) below, g - (g - m) * (1 - w) from there, w and 1 - w in the dtype's precision
    diff = np.subtract(g, m, out=np.empty_like(m))
    if p.dtype == np.float32:
        weight = np.float32(1 - beta1)
        rest = np.float32(1) - weight
    else:
        weight = 1 - beta1
        rest = 1 - weight
    if abs(weight) < 0.5:
        plus_scaled_into(m, m, diff, float(weight), scratch)
    else:
        plus_scaled_into(m, g, diff, -float(rest), scratch)

    # second moment: v.mul_(beta2).addcmul_(g, g, value=1 - beta2), the addcmul in two roundings
    # (the module docstring says why)
    np.multiply(v, beta2, out=v)
    np.multiply(g, 1 - beta2, out=diff)
    np.multiply(diff, g, out=diff)
    np.add(v, diff, out=v)

    bias_correction1 = 1 - beta1 ** step
    bias_correction2_sqrt = (1 - beta2 ** step) ** 0.5
    step_size = lr / bias_correction1
    if mx is not None:
        np.maximum(mx, v, out=mx)
        v = mx
    denom = np.sqrt(v, out=np.empty_like(v))
    np.divide(denom, bias_correction2_sqrt, out=denom)
    np.add(denom, eps, out=denom)

    # param.addcdiv_(m, denom, value=-step_size): three roundings in PyTorch's kernel too
    scratch = diff
    np.multiply(m, -step_size, out=scratch)
    np.divide(scratch, denom, out=scratch)
    np.add(p, scratch, out=p)


def _adam_compiled(fast, p, g, m, v, mx, step: float, beta1: float, beta2: float, lr: float, weight_decay: float,
                   eps: float, maximize: bool, decoupled: bool) -> None:
    """``_adam_arrays`` in one compiled pass (``_kernels/compiled/adam.py``; C-contiguous arrays of one
    dtype): the same hyper-parameters, computed here in Python as there, each rounded to the arrays'
    dtype by the kernel as numpy rounds them."""
    if p.dtype == np.float32:
        weight = np.float32(1 - beta1)
        rest = np.float32(1) - weight
    else:
        weight = 1 - beta1
        rest = 1 - weight
    from_m = bool(abs(weight) < 0.5)
    bias_correction1 = 1 - beta1 ** step
    bias_correction2_sqrt = (1 - beta2 ** step) ** 0.5
    flat = p.reshape(-1)
    fast.update(flat, g.reshape(-1), m.reshape(-1), v.reshape(-1), flat if mx is None else mx.reshape(-1),
                1 - lr * weight_decay, float(weight_decay), float(weight) if from_m else -float(rest), from_m,
                float(beta2), float(1 - beta2), float(bias_correction2_sqrt), eps, float(-(lr / bias_correction1)),
                bool(maximize), bool(decoupled), mx is not None)
