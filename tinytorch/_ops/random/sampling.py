"""The random functions on tensors: factories (``rand``, ``randn``, ``randint``, ``randperm``,
``normal``, ``bernoulli``, ``multinomial`` and the ``*_like`` forms) and the in-place fills
(``uniform_``, ``normal_``, ``random_``, ``bernoulli_``, ``exponential_``, ``geometric_``,
``cauchy_``, ``log_normal_``)."""
from __future__ import annotations

import math
import warnings

import numpy as np

from ..._dtype import FLOATING_NP
from ..._meta_array import MetaArray
from ... import _dtype
from ...autograd.grad_mode import version_counter
from ..._size import _require_cpu
from ..creation.factory import _alloc, _finish, _np_dtype, _size, _strided_only, empty_like, into_out
from ..pointwise.inplace import check_inplace, writeable
from ..shape.views import refresh
from ...autograd.node import Node
from .._core.record import record
from .._core.registry import op
from ..._random.engine import _engine
from ...tensor import Tensor, _make
from ..._random import draws
from ..._random.normal import normal_values, scalar_normals

_RANDOM = "randomness"  # why vmap refuses these (PyTorch's randomness="error" default)


# -- draws as functions of their parameters: constants, zero gradients ------------------------------
class _ZeroGradient(Node):
    """PyTorch records bernoulli(p) and normal(mean, std) with tensor parameters in the graph, with
    zero gradients for the parameters (a draw is piecewise constant in them)."""

    def backward(self, g):
        return tuple(g.new_zeros(shape, dtype=dt) for shape, dt in self.params)


class BernoulliBackward0(_ZeroGradient):
    pass


class NormalBackward1(_ZeroGradient):  # normal(Tensor mean, float std)
    saved_fields = (("mean_sym_sizes", lambda n: n.params[0][0]),)


class NormalBackward2(_ZeroGradient):  # normal(float mean, Tensor std)
    saved_fields = (("std_sym_sizes", lambda n: n.params[0][0]),)


class NormalBackward3(_ZeroGradient):  # normal(Tensor mean, Tensor std)
    saved_fields = (("mean_sym_sizes", lambda n: n.params[0][0]), ("std_sym_sizes", lambda n: n.params[1][0]))


def _with_params(values: np.ndarray, node_cls, params) -> Tensor:
    """``values`` as a tensor; a zero-gradient node over the tensor parameters ``params`` when one of
    them requires grad."""
    return record(values, node_cls, params, params=tuple((tuple(t.shape), t.dtype) for t in params))


# -- writing values in PyTorch's fill order --------------------------------------------------------
def _fill(t: Tensor, values: np.ndarray) -> Tensor:
    """Write ``values`` (in draw order) into ``t``: memory order, as PyTorch's TensorIterator walks a
    tensor (outermost stride first), so a transposed view takes its draws as its base would."""
    check_inplace(t)
    if values is None:  # a meta tensor: checked, counted as written, nothing drawn (PyTorch's meta kernels)
        version_counter(t)[0] += 1
        return t
    arr = writeable(t._data)  # PyTorch's refusal of an expanded tensor (more than one element per location)
    if arr.ndim == 0 or arr.flags.c_contiguous:
        arr[...] = values.reshape(arr.shape)
    else:
        perm = sorted(range(arr.ndim), key=lambda d: -abs(arr.strides[d]) if arr.shape[d] > 1 else 0)
        view = arr.transpose(perm)
        view[...] = values.reshape(view.shape)
    version_counter(t)[0] += 1
    if len(t._vc) > 1:  # other live views of this storage take the new history
        refresh(t._vc)
    return t


def _contiguous(t: Tensor) -> bool:
    return t._data.flags.c_contiguous


# the floating dtypes PyTorch's random kernels fill (not the float8 ones)
_RANDOM_FLOATS = FLOATING_NP - _dtype.F8_NP


def _float_only(npd: np.dtype, kernel: str) -> None:
    if npd not in _RANDOM_FLOATS:
        raise NotImplementedError(f"\"{kernel}\" not implemented for '{_dtype.FROM_NP[npd]._scalar}'")


_MISSING = object()


# -- in place ----------------------------------------------------------------------------------------
# the complex storages (complex32's numpy kind is "V"): drawn as their real view
_COMPLEX_NP = frozenset((np.dtype(np.complex64), np.dtype(np.complex128), _dtype.C32_NP))


def _uniform(npd: np.dtype, n: int, a, b, generator) -> np.ndarray:
    if npd in _COMPLEX_NP:  # the real view: real and imaginary parts each uniform
        return _uniform(_dtype.TO_REAL[npd], 2 * n, a, b, generator).view(npd)
    _float_only(npd, "check_uniform_bounds")
    if not a <= b:
        raise RuntimeError(f"uniform_ expects to return a [from, to) range, but found from={a:g} > to={b:g}")
    return draws.uniform_values(_engine(generator), n, npd, a, b)


def _normal(npd: np.dtype, n: int, mean, std, generator, contiguous: bool = True) -> np.ndarray:
    if npd in _COMPLEX_NP:
        # PyTorch draws a complex tensor as its real view (real, imag pairs), each part with std / sqrt(2)
        parts = _normal(_dtype.TO_REAL[npd], 2 * n, mean, std / math.sqrt(2), generator, contiguous)
        return parts.view(npd)
    _float_only(npd, "normal_kernel_cpu")
    if std < 0:
        raise RuntimeError(f"normal expects std >= 0.0, but found std {std:g}")
    return normal_values(_engine(generator), n, npd, mean, std, contiguous)


@op(variants="method", no_batch=_RANDOM)
def uniform_(self: Tensor, a: float = 0.0, b: float = 1.0, *, generator=None) -> Tensor:
    if type(self._data) is MetaArray:  # a meta tensor's storage: nothing to draw
        return _fill(self, None)
    return _fill(self, _uniform(self._data.dtype, self._data.size, a, b, generator))


@op(variants="method", no_batch=_RANDOM)
def normal_(self: Tensor, mean: float = 0.0, std: float = 1.0, *, generator=None) -> Tensor:
    if type(self._data) is MetaArray:
        return _fill(self, None)
    return _fill(self, _normal(self._data.dtype, self._data.size, mean, std, generator, _contiguous(self)))


@op(variants="method", no_batch=_RANDOM)
def random_(self: Tensor, *args, generator=None, **kwargs) -> Tensor:
    """``random_()``, ``random_(to)``, ``random_(from, to)`` (``to`` may be None: the dtype's top)."""
    frm, to = kwargs.pop("from", None), kwargs.pop("to", _MISSING)
    if kwargs:
        raise TypeError(f"random_() got an unexpected keyword argument '{next(iter(kwargs))}'")
    if len(args) > 2:
        raise TypeError(f"random_() takes at most 2 positional arguments ({len(args)} given)")
    full = not args and frm is None and to is _MISSING
    if len(args) == 2:
        frm, to = args
    elif len(args) == 1 and frm is None and to is _MISSING:
        to = args[0]  # random_(to)
    elif len(args) == 1:
        frm = args[0]
    frm = 0 if frm is None else _int64(frm)
    to = None if to is _MISSING else to
    if type(self._data) is MetaArray:
        return _fill(self, None)
    npd = self._data.dtype
    eng, n = _engine(generator), self._data.size
    if full:
        return _fill(self, draws.int_full(eng, n, npd))
    if to is None:
        top = draws.dtype_upper(npd)
        if frm > top:
            raise RuntimeError(f"random_ expects 'from' casted to dtype to be less than or equal to 'to_inc' "
                               f"casted to dtype, but got from={frm} > to_inc={top}")
        _check_range(npd, frm, top)
        span = top - frm + 1
    else:
        to = _int64(to)
        if frm >= to:
            raise RuntimeError(f"random_ expects 'from' to be less than 'to', but got from={frm} >= to={to}")
        _check_range(npd, frm, to - 1)
        span = to - frm
    return _fill(self, draws.int_from_to(eng, n, npd, int(frm), int(span)))


def _int64(v) -> int:
    v = int(v)
    if not -(1 << 63) <= v < (1 << 63):
        raise ValueError("Overflow when unpacking long long")
    return v


def _check_range(npd: np.dtype, frm: int, to_inc: int) -> None:
    """PyTorch's bounds on ``random_(from, to)``: both ends representable in the dtype (an error), and
    for a floating dtype within +-2**digits, where every integer is exact (a warning)."""
    name = _dtype.cpp_name(npd)
    if npd in FLOATING_NP:
        top = float(np.finfo(npd).max) if npd.name != "bfloat16" else 3.3895313892515355e38
        bounds = (-top, top)
    else:
        info = np.iinfo(npd) if npd != np.bool_ else None
        bounds = (0, 1) if info is None else (int(info.min), int(info.max))
    for value, what in ((frm, "from"), (to_inc, "to - 1")):
        if not bounds[0] <= value <= bounds[1]:
            raise RuntimeError(f"{what} is out of bounds for {name}")
    if npd in FLOATING_NP:
        digits = draws.digits(npd)
        for value, what in ((frm, "from"), (to_inc, "to - 1")):
            if not -(1 << digits) <= value <= (1 << digits):
                warnings.warn(f"{what} is out of bounds [-(2^{digits}), 2^{digits}]. Due to precision limitations "
                              f"{name} can support discrete uniform distribution only within this range. This "
                              "warning will become an error in version 1.7 release, please fix the code in advance",
                              UserWarning, stacklevel=4)


def bernoulli_(self: Tensor, p=0.5, *, generator=None) -> Tensor:
    eng = _engine(generator)
    if isinstance(p, Tensor):
        valid = ((p._data >= 0) & (p._data <= 1)).reshape(-1)
        if not valid.all():
            # PyTorch checks each p as it reaches it: the elements before the bad one have drawn
            draws.bernoulli_tensor(eng, np.ascontiguousarray(p._data).reshape(-1)[: int(np.argmin(valid))])
            raise RuntimeError("Expected p_in >= 0 && p_in <= 1 to be true, but got false.  (Could this error "
                               "message be improved?  If so, please report an enhancement request to PyTorch.)")
        if type(self._data) is MetaArray:  # a meta tensor: checked, nothing drawn
            return _fill(self, None)
        pd = np.broadcast_to(p._data, self._data.shape)
        return _fill(self, draws.bernoulli_tensor(eng, np.ascontiguousarray(pd)).astype(self._data.dtype))
    if not 0 <= p <= 1:
        raise RuntimeError(f"bernoulli_ expects p to be in [0, 1], but got p={p:g}")
    if type(self._data) is MetaArray:
        return _fill(self, None)
    return _fill(self, draws.bernoulli_scalar(eng, self._data.size, p).astype(self._data.dtype))


@op(variants="method", no_batch=_RANDOM)
def exponential_(self: Tensor, lambd: float = 1.0, *, generator=None) -> Tensor:
    npd = self._data.dtype
    if npd not in FLOATING_NP:
        raise RuntimeError("Exponential distribution is a continuous probability distribution. dtype must be a "
                           f"floating point but you specified {_dtype.FROM_NP[npd]._scalar}")
    if not lambd > 0.0:
        raise RuntimeError(f"exponential_ expects lambda > 0.0, but found lambda={lambd:g}")
    return _fill(self, draws.exponential_values(_engine(generator), self._data.size, lambd).astype(npd))


@op(variants="method", no_batch=_RANDOM)
def geometric_(self: Tensor, p: float, *, generator=None) -> Tensor:
    if not 0 < p < 1:
        raise RuntimeError(f"geometric_ expects p to be in (0, 1), but got p={p:g}")
    return _fill(self, draws.geometric_values(_engine(generator), self._data.size, p).astype(self._data.dtype))


# cauchy_'s and log_normal_'s arithmetic, each step a kernel path of tinytorch/_cpu/random.py (glibc's tan and
# exp, and PyTorch's FMA builds' one rounding of the multiply-add)
_tan, _exp = np.tan, np.exp


def _scaled(t, scale, shift):
    """``t * scale + shift`` in float64, rounded twice."""
    return t * scale + shift


@op(variants="method", no_batch=_RANDOM)
def cauchy_(self: Tensor, median: float = 0.0, sigma: float = 1.0, *, generator=None) -> Tensor:
    """``median + sigma * tan(pi * (u - 0.5))`` with one double uniform per element, as PyTorch's CPU kernel."""
    npd = self._data.dtype
    if npd not in FLOATING_NP:
        raise RuntimeError("Cauchy distribution is a continuous probability distribution. dtype must be a floating "
                           f"point but you specified {_dtype.cpp_name(npd)}")
    if not sigma > 0.0:
        raise RuntimeError(f"cauchy_ expects sigma > 0.0, but found sigma={sigma:g}")
    u = _engine(generator).float64_uniform(self._data.size)
    return _fill(self, _scaled(_tan(math.pi * (u - 0.5)), sigma, median).astype(npd))


@op(variants="method", no_batch=_RANDOM)
def log_normal_(self: Tensor, mean: float = 1.0, std: float = 2.0, *, generator=None) -> Tensor:
    """``exp(mean + std * z)`` with ``z`` from PyTorch's double normal (Box-Muller, its sine half cached)."""
    npd = self._data.dtype
    _float_only(npd, "log_normal_cpu")
    if not std > 0.0:
        raise RuntimeError(f"log_normal_ expects std > 0.0, but found std={std:g}")
    z = scalar_normals(_engine(generator), self._data.size)
    return _fill(self, _exp(_scaled(z, std, mean)).astype(npd))

# -- factories ---------------------------------------------------------------------------------------
def _new_tensor(shape, npd, requires_grad: bool, *params) -> Tensor:
    """An uninitialised tensor to draw into; a meta one where a tensor of ``params`` (the draw's) is meta."""
    if any(isinstance(t, Tensor) and type(t._data) is MetaArray for t in params):
        return _finish(MetaArray(shape, npd), requires_grad)
    return _finish(_alloc(lambda: np.empty(shape, dtype=npd), shape, npd), requires_grad)


def _drawn(shape, npd, draw) -> Tensor:
    """A fresh tensor of ``draw()``'s values; a size that cannot fit raises PyTorch's RuntimeError."""
    return _make(_alloc(lambda: draw().reshape(shape), shape, npd))


def _on_cpu(device) -> None:
    if device is not None:
        _require_cpu(device)


def _grad(t: Tensor, requires_grad: bool) -> Tensor:
    """The factories' requires_grad (and their wording for integer dtypes)."""
    if requires_grad:
        if (t._data.dtype not in FLOATING_NP and t._data.dtype.kind != "c"):
            raise RuntimeError("Only Tensors of floating point and complex dtype can require gradients")
        t._requires_grad = True
    return t


def _shape_dtype(size, dtype, default=None):
    return _size(size), _np_dtype(dtype, default)



@op(variants="function out", own_out=True, no_batch=_RANDOM, meta="random")
def rand(*size, generator=None, dtype=None, device=None, requires_grad: bool = False, out=None, layout=None,
          pin_memory: bool = False) -> Tensor:
    """Uniform samples on [0, 1)."""
    _on_cpu(device)
    _strided_only(layout, pin_memory)
    shape, npd = _shape_dtype(size, dtype)
    res = _grad(_drawn(shape, npd, lambda: _uniform(npd, _numel(shape), 0.0, 1.0, generator)), requires_grad)
    return into_out(res, out)


@op(variants="function out", own_out=True, no_batch=_RANDOM, meta="random")
def randn(*size, generator=None, dtype=None, device=None, requires_grad: bool = False, out=None, layout=None,
          pin_memory: bool = False) -> Tensor:
    """Standard normal samples."""
    _on_cpu(device)
    _strided_only(layout, pin_memory)
    shape, npd = _shape_dtype(size, dtype)
    res = _grad(_drawn(shape, npd, lambda: _normal(npd, _numel(shape), 0.0, 1.0, generator)), requires_grad)
    return into_out(res, out)


@op(variants="function out", own_out=True, no_batch=_RANDOM, meta="random")
def randint(low, high=None, size=None, *, generator=None, dtype=None, device=None,
            requires_grad: bool = False, out=None, layout=None, pin_memory: bool = False) -> Tensor:
    """Integers uniformly from [low, high)."""
    _on_cpu(device)
    _strided_only(layout, pin_memory)
    if size is None:
        low, high, size = 0, low, high
    if high is None:
        low, high = 0, low
    shape, npd = _shape_dtype((size,), dtype, _dtype.int64)
    t = _new_tensor(shape, npd, False)
    return into_out(_grad(random_(t, int(low), int(high), generator=generator), requires_grad), out)


@op(variants="function out", own_out=True, no_batch=_RANDOM, meta="random")
def randperm(n: int, *, generator=None, dtype=None, device=None, requires_grad: bool = False, out=None, layout=None,
             pin_memory: bool = False) -> Tensor:
    """A random permutation of 0..n-1 (PyTorch's Fisher-Yates)."""
    _on_cpu(device)
    _strided_only(layout, pin_memory)
    if n < 0:
        raise RuntimeError(f"Trying to create tensor with negative dimension {n}: [{n}]")
    _, npd = _shape_dtype((n,), dtype, _dtype.int64)
    res = _drawn((int(n),), npd, lambda: draws.randperm_values(_engine(generator), int(n)).astype(npd, copy=False))
    return into_out(_grad(res, requires_grad), out)


def _numel(shape) -> int:
    return int(np.prod(shape, dtype=np.int64))


def _drawn_like(input: Tensor, dtype, memory_format, requires_grad: bool, fill) -> Tensor:
    """A ``*_like`` draw as PyTorch composes it: ``empty_like`` (``input``'s layout as ``memory_format`` asks,
    the one rule every ``*_like`` factory shares) filled in place by ``fill``, so the draws land in memory
    order, as the in-place fills put them; a fresh tensor (version 0)."""
    t = empty_like(input, dtype=dtype, memory_format=memory_format)
    fill(t)
    version_counter(t)[0] = 0
    return _grad(t, requires_grad)


@op(no_batch=_RANDOM, meta="random")
def rand_like(input: Tensor, *, dtype=None, generator=None, requires_grad: bool = False, device=None,
              memory_format=None) -> Tensor:
    _on_cpu(device)
    return _drawn_like(input, dtype, memory_format, requires_grad, lambda t: uniform_(t, generator=generator))


@op(no_batch=_RANDOM, meta="random")
def randn_like(input: Tensor, *, dtype=None, generator=None, requires_grad: bool = False, device=None,
               memory_format=None) -> Tensor:
    _on_cpu(device)
    return _drawn_like(input, dtype, memory_format, requires_grad, lambda t: normal_(t, generator=generator))


@op(no_batch=_RANDOM, meta="random")
def randint_like(input: Tensor, low=0, high=None, *, dtype=None, generator=None, requires_grad: bool = False,
                 device=None, memory_format=None) -> Tensor:
    _on_cpu(device)
    if high is None:
        low, high = 0, low
    return _drawn_like(input, dtype, memory_format, requires_grad,
                       lambda t: random_(t, int(low), int(high), generator=generator))


@op(variants="function out", own_out=True, no_batch=_RANDOM, meta="random")
def normal(mean, std=1.0, size=None, *, generator=None, dtype=None, layout=None, device=None, pin_memory=None,
           requires_grad: bool = False, out=None) -> Tensor:
    """``normal(mean, std, size)`` with floats, or with tensor mean and/or std (PyTorch's compositions:
    N(0, std) plus mean for a tensor mean; N(0, 1) times std plus mean when std is a tensor)."""
    return into_out(_normal_of(mean, std, size, generator, dtype, device, requires_grad), out)


def _normal_of(mean, std, size, generator, dtype, device, requires_grad) -> Tensor:
    _on_cpu(device)
    mt, st = isinstance(mean, Tensor), isinstance(std, Tensor)
    if not mt and not st:
        if size is None:
            raise TypeError("normal() missing required argument 'size'")
        shape, npd = _shape_dtype((size,), dtype)
        return _grad(normal_(_new_tensor(shape, npd, False), mean, std, generator=generator), requires_grad)
    if st and (std._data < 0).any():
        raise RuntimeError("normal expects all elements of std >= 0.0")
    if mt and not st:
        if std < 0:
            raise RuntimeError(f"normal expects std >= 0.0, but found std {std:g}")
        out_t = _new_tensor(mean._data.shape, mean._data.dtype, False, mean)
        normal_(out_t, 0.0, std, generator=generator)
        return _with_params(out_t._data + mean._data, NormalBackward1, (mean,))
    ref = std if not mt else mean
    shape = np.broadcast_shapes(std._data.shape, mean._data.shape if mt else ())
    out_t = _new_tensor(shape, ref._data.dtype, False, mean, std)
    normal_(out_t, 0.0, 1.0, generator=generator)
    scaled = out_t._data * std._data
    values = (scaled + (mean._data if mt else scaled.dtype.type(mean))).astype(ref._data.dtype, copy=False)
    if mt:
        return _with_params(values, NormalBackward3, (mean, std))
    return _with_params(values, NormalBackward2, (std,))


@op(variants="function method inplace out", own_out=True, inplace=bernoulli_, no_batch=_RANDOM)
def bernoulli(input: Tensor, p=None, *, generator=None, out=None) -> Tensor:
    """1 with probability ``input`` (or ``p``), else 0, in ``input``'s dtype."""
    res = _new_tensor(input._data.shape, input._data.dtype, False, input, p)
    if p is None:
        if input._data.dtype not in FLOATING_NP:
            raise RuntimeError(f"\"bernoulli_tensor_cpu_p_\" not implemented for "
                               f"'{_dtype.FROM_NP[input._data.dtype]._scalar}'")
        drawn = _with_params(bernoulli_(res, input, generator=generator)._data, BernoulliBackward0, (input,))
        return into_out(drawn, out)
    return into_out(bernoulli_(res, p, generator=generator), out)


@op(variants="function method out", own_out=True, no_batch=_RANDOM)
def multinomial(input: Tensor, num_samples: int, replacement: bool = False, *, generator=None, out=None) -> Tensor:
    """Indices sampled from the rows of ``input`` (probabilities up to a factor)."""
    p = input._data
    if type(p) is MetaArray:  # PyTorch's meta kernel checks the rank only (in its own words): no values, no sizes
        if p.ndim not in (1, 2):
            raise RuntimeError(f"The probability distributions dimensions must be 1 or 2, but got {p.ndim}")
        return into_out(_make(MetaArray(p.shape[:-1] + (num_samples,), np.int64)), out)
    if p.ndim not in (1, 2):
        raise RuntimeError("prob_dist must be 1 or 2 dim")
    if p.dtype not in FLOATING_NP:
        raise RuntimeError(f"multinomial only supports floating-point dtypes for input, got: "
                           f"{_dtype.FROM_NP[p.dtype]._scalar}")
    if num_samples <= 0:
        raise RuntimeError("cannot sample n_sample <= 0 samples")
    cats = p.shape[-1]
    if not replacement and num_samples > cats:
        raise RuntimeError("cannot sample n_sample > prob_dist.size(-1) samples without replacement")
    if cats > (1 << 24):
        raise RuntimeError("number of categories cannot exceed 2^24")
    p2 = p.reshape(-1, cats)
    if not (np.isfinite(p2).all() and (p2 >= 0).all()):
        raise RuntimeError("probability tensor contains either `inf`, `nan` or element < 0")
    if (p2.sum(axis=1) == 0).any():
        raise RuntimeError("invalid multinomial distribution (sum of probabilities <= 0)")
    values = draws.multinomial_values(_engine(generator), p2, num_samples, replacement)
    return into_out(_make(values.reshape(p.shape[:-1] + (num_samples,))), out)
