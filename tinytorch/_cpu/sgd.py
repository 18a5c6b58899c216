"""SGD's CPU path: PyTorch's single-tensor update on the arrays in place, without a tensor per operation, with
PyTorch's fused ``add(alpha=)`` rounding for float32/float64 (``_ops/_kernels/muladd.py``: one rounding, as
its FMA builds give it; other dtypes: numpy's product, then sum); plain SGD's many parameters in a few BLAS
axpy calls (``axpy_many.py``: the small ones gathered)."""
from __future__ import annotations

import numpy as np

from ..autograd.grad_mode import version_counter
from ..tensor import Tensor, _make
from .._ops._core import paths
from .._ops._kernels import parallel
from .._ops._kernels.muladd import plus_scaled_into
from ..optim import sgd as sgd_ops
from ..optim._checks import check_state_shape
from ..optim.optimizer import _to_scalar
from .axpy_many import add_scaled_many


@paths.kernel(sgd_ops, "_sgd", ulps=None, when="always: float32/float64 with the reference's floats (add with alpha in "
              "one rounding); other dtypes with numpy's product, then sum (half: PyTorch's bits on its scalar "
              "tail, fewer elements than a vector; the add op's path rounds as its vector body)",
              why="speed: no tensor per operation, temporaries reused, plain SGD in few BLAS calls")
def sgd(params, d_p_list, momentum_buffer_list, weight_decay, momentum, lr, dampening, nesterov, maximize,
        scratch: dict | None) -> None:
    lr, weight_decay, momentum = _to_scalar(lr), _to_scalar(weight_decay), float(momentum)
    todo = range(len(params))
    if momentum == 0 and weight_decay == 0 and not maximize and scratch is not None and len(params) > 1:
        # plain SGD, each update ``param.add_(grad, alpha=-lr)``: all of them at once (the same floats;
        # the small parameters share one BLAS call), unless a gradient lives in a parameter's memory
        # (then the order of the updates matters, as in PyTorch's loop)
        ys = [p._data for p in params]
        xs = [g._data for g in d_p_list]
        if not _aliased(ys, xs):
            left = add_scaled_many(ys, xs, -lr, scratch)  # the pairs it left alone, to update one by one
            done = set(range(len(params))) - set(left)
            for i in done:
                version_counter(params[i])[0] += 1
            todo = left
    for i in todo:
        buf = momentum_buffer_list[i] if momentum != 0 else None
        new_buf = _sgd_one(params[i], d_p_list[i], buf, weight_decay, momentum, lr, float(dampening), nesterov,
                           maximize, scratch)
        if new_buf is not None:
            momentum_buffer_list[i] = new_buf


def _owner(a: np.ndarray) -> int:
    """The id of the array that owns ``a``'s memory (``a`` itself, or the end of its chain of numpy bases)."""
    while a.base is not None and type(a.base) is np.ndarray:
        a = a.base
    return id(a if a.base is None else a.base)


def _aliased(ys: list, xs: list) -> bool:
    """Whether any array of ``xs`` shares its owner with an array of ``ys``, or two of ``ys`` do."""
    owners = {_owner(y) for y in ys}
    return len(owners) < len(ys) or any(_owner(x) in owners for x in xs)


def _scratch_like(a: np.ndarray, scratch: dict | None) -> np.ndarray:
    """A temporary of ``a``'s shape and dtype, reused from the optimizer's ``scratch`` when it has one: a
    fresh array of a weight's size every step costs page faults, which are most of the update's time."""
    if scratch is None:
        return np.empty(a.shape, a.dtype)
    key = (a.shape, a.dtype)
    buf = scratch.get(key)
    if buf is None:
        buf = scratch[key] = np.empty(a.shape, a.dtype)
    return buf


def _sgd_one(param: Tensor, grad: Tensor, buf: Tensor | None, weight_decay: float,
             momentum: float, lr: float, dampening: float, nesterov: bool,
             maximize: bool, scratch: dict | None) -> Tensor | None:
    """Update one parameter; returns the momentum buffer when it was created here."""
    if buf is not None:
        check_state_shape(buf, grad)
    p = param._data
    d = grad._data
    # ``owned``: ``d`` is a scratch array of ours, free to overwrite. Every result gets an explicit
    # ``out`` array because numpy returns scalars, not arrays, for 0-d inputs.
    owned = False
    # a first momentum step keeps ``d`` as the new buffer: then it must be an array of its own
    temp = np.empty_like if momentum != 0 and buf is None else (lambda a: _scratch_like(a, scratch))
    if maximize:
        d = np.negative(d, out=temp(d))
        owned = True
    if weight_decay != 0:  # grad.add(param, alpha=weight_decay)
        d = plus_scaled_into(d if owned else temp(d), d, p, weight_decay, scratch)
        owned = True

    new_buf = None
    if momentum != 0:
        if buf is None:
            b = d if owned else d.copy()
            new_buf = _make(b)
            owned = False  # ``d`` is the buffer now
        else:
            b = buf._data
            # momentum in b's dtype (numpy 1.x: float64 for 0-d b); large buffers cut across threads
            parallel.elementwise(np.multiply, b, b, momentum, dtype=b.dtype)
            if dampening == 0:  # alpha 1: the fused and the plain sum are the same
                parallel.elementwise(np.add, b, b, d)
            else:
                plus_scaled_into(b, b, d, 1 - dampening, scratch)
            version_counter(buf)[0] += 2  # mul_ and add_, as PyTorch counts them
        if nesterov:  # grad.add(buf, alpha=momentum)
            d = plus_scaled_into(d if owned else _scratch_like(d, scratch), d, b, momentum, scratch)
        else:
            d = b

    plus_scaled_into(p, p, d, -lr, scratch)  # param.add_(grad, alpha=-lr)
    version_counter(param)[0] += 1
    return new_buf
