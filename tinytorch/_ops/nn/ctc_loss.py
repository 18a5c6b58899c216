"""ctc_loss: the connectionist temporal classification loss, -log p(target | input) summed over
every alignment, by the forward (alpha) recursion in log space; the backward runs the beta
recursion and gives PyTorch's gradient, exp(lp) - exp(log(sum alpha*beta) + nll - lp), which is
the gradient through a log_softmax folded in (PyTorch's convention; it is the true gradient once it
has gone through the log_softmax that produced ``log_probs``). Steps past an input's length get 0."""
from __future__ import annotations

import numpy as np

from ..._meta_array import MetaArray, no_meta_kernel
from ..._quiet_fp import silent
from ...autograd.node import Node
from ...tensor import Tensor, _make
from .._core.record import legacy_name, record
from .._core.registry import op

_NEG = -np.inf


def _exp(x):
    """exp rounded from double: the C library's expf (PyTorch's kernel calls it per element) is
    correctly rounded almost always, numpy's vectorised float32 exp is not (off by an ulp in ~40% of
    cases), and the alpha/beta recursions carry such differences along the whole sequence."""
    x = np.asarray(x)
    return np.exp(x.astype(np.float64)).astype(x.dtype) if x.dtype == np.float32 else np.exp(x)


def _log(x):
    """log rounded from double (as ``_exp``: the C library's logf)."""
    x = np.asarray(x)
    return np.log(x.astype(np.float64)).astype(x.dtype) if x.dtype == np.float32 else np.log(x)


@silent
def _lse(*xs):
    """PyTorch's log-sum-exp of the recursions: log(sum exp(x - m)) + m with m the max, taken as 0 when it is
    -inf (all terms -inf: -inf); a +inf term makes it NaN (inf - inf), as PyTorch's, and a NaN keeps NaN."""
    m = np.maximum.reduce(xs)
    m = np.where(m == _NEG, m.dtype.type(0), m)
    return _log(sum(_exp(x - m) for x in xs)) + m


def _lse_into(acc, x):
    """PyTorch's accumulation of log(alpha * beta) per class: the first term as it is, later ones log-summed."""
    return np.where(acc == _NEG, x, _lse(acc, x))


def _extended(target: np.ndarray, blank: int):
    ext = np.full(2 * len(target) + 1, blank, np.int64)
    ext[1::2] = target
    # a label may follow the one two places back unless they are equal (or it is a blank)
    skip = np.zeros(len(ext), bool)
    skip[2:] = (ext[2:] != blank) & (ext[2:] != ext[:-2])
    return ext, skip


@silent  # a log-probability of +inf or NaN: inf - inf in the sums, PyTorch's NaN without numpy's warnings
def _alpha(lp: np.ndarray, ext, skip) -> np.ndarray:
    t_len, s_len = lp.shape[0], len(ext)
    a = np.full((t_len, s_len), _NEG, lp.dtype)
    a[0, 0] = lp[0, ext[0]]
    if s_len > 1:
        a[0, 1] = lp[0, ext[1]]
    for t in range(1, t_len):
        prev = a[t - 1]
        one, two = np.full(s_len, _NEG, lp.dtype), np.full(s_len, _NEG, lp.dtype)
        one[1:], two[2:] = prev[:-1], prev[:-2]
        two[~skip] = _NEG
        a[t] = _lse(prev, one, two) + lp[t, ext]
    return a


@silent
def _beta(lp: np.ndarray, ext, skip) -> np.ndarray:
    t_len, s_len = lp.shape[0], len(ext)
    b = np.full((t_len, s_len), _NEG, lp.dtype)
    b[-1, -1] = lp[-1, ext[-1]]
    if s_len > 1:
        b[-1, -2] = lp[-1, ext[-2]]
    skip_next = np.zeros(s_len, bool)                            # s may jump to s+2
    skip_next[:-2] = skip[2:]
    for t in range(t_len - 2, -1, -1):
        nxt = b[t + 1]
        one, two = np.full(s_len, _NEG, lp.dtype), np.full(s_len, _NEG, lp.dtype)
        one[:-1], two[:-2] = nxt[1:], nxt[2:]
        two[~skip_next] = _NEG
        b[t] = _lse(nxt, one, two) + lp[t, ext]
    return b


class CtcLossBackward0(Node):
    def backward(self, g):
        gd = g._data
        if type(gd) is MetaArray:  # PyTorch has no meta kernel for this backward
            raise NotImplementedError(no_meta_kernel("_ctc_loss_backward"))
        out = np.zeros(self.shape, self.dtype)
        for n, (lp, ext, skip, a, nll) in enumerate(self.samples):
            if lp is None:
                continue
            t_len = lp.shape[0]
            if self.zero_infinity and nll == np.inf:  # PyTorch zeroes an infinite loss's gradient, not a NaN's
                continue
            ab = a + _beta(lp, ext, skip)
            lcab = np.full(lp.shape, _NEG, lp.dtype)
            for s in range(len(ext) - 1, -1, -1):  # PyTorch's beta loop runs s downwards
                lcab[:, ext[s]] = _lse_into(lcab[:, ext[s]], ab[:, s])
            with np.errstate(over="ignore", invalid="ignore"):
                grad = _exp(lp) - _exp(lcab + nll - lp)
            out[:t_len, n] = grad * gd[n]
        return (_make(out),)


def _ctc_raw(log_probs: Tensor, targets: np.ndarray, input_lengths, target_lengths, blank: int,
             zero_infinity: bool) -> Tensor:
    lp_all = log_probs._data
    n_batch = lp_all.shape[1]
    losses = np.zeros(n_batch, lp_all.dtype)
    samples = []
    offset = 0
    for n in range(n_batch):
        tl, il = int(target_lengths[n]), int(input_lengths[n])
        if targets.ndim == 2:
            target = targets[n, :tl]
        else:
            target = targets[offset:offset + tl]
            offset += tl
        lp = lp_all[:il, n]
        ext, skip = _extended(target.astype(np.int64), blank)
        if il == 0:
            nll = np.inf if tl > 0 else 0.0
            samples.append((None, ext, skip, None, nll))
        else:
            a = _alpha(lp, ext, skip)
            ends = a[-1, -2:] if len(ext) > 1 else a[-1, -1:]
            nll = -_lse(*ends)
            samples.append((lp, ext, skip, a, nll))
        losses[n] = 0.0 if (zero_infinity and nll == np.inf) else nll  # a NaN loss stays, as PyTorch's
    return record(losses, CtcLossBackward0, (log_probs,), samples=samples, shape=lp_all.shape, dtype=lp_all.dtype,
                  zero_infinity=zero_infinity)


def _lengths(v) -> np.ndarray:
    return np.asarray(v._data if isinstance(v, Tensor) else v, np.int64).reshape(-1)


@op(variants="function functional", autocast="fp32", functional_apart=True)
def ctc_loss(log_probs: Tensor, targets: Tensor, input_lengths, target_lengths, blank: int = 0,
             reduction: str = "mean", zero_infinity: bool = False) -> Tensor:
    """The CTC loss of log_probs (T, N, C) or (T, C) against targets (N, S) padded or concatenated."""
    if reduction not in ("none", "mean", "sum"):
        raise ValueError(f"{reduction} is not a valid value for reduction")
    if type(log_probs._data) is MetaArray and (isinstance(input_lengths, Tensor) or isinstance(target_lengths, Tensor)):
        # lengths given as tensors: PyTorch's _ctc_loss.Tensor overload, which has no meta kernel (its IntList
        # overload has one)
        raise NotImplementedError(no_meta_kernel("_ctc_loss.Tensor"))
    unbatched = log_probs.ndim == 2
    if unbatched:
        log_probs = log_probs.unsqueeze(1)
        targets = targets.unsqueeze(0) if targets.ndim == 1 else targets
    il, tl = _lengths(input_lengths), _lengths(target_lengths)
    n_batch, classes = log_probs.shape[1], log_probs.shape[2]
    if log_probs._data.dtype not in (np.float32, np.float64):  # PyTorch's CPU kernel: float and double only
        raise NotImplementedError(f"\"ctc_loss_cpu\" not implemented for '{legacy_name(log_probs._data.dtype)}'")
    if log_probs._data.size == 0:
        raise RuntimeError("log_probs tensor must not be empty")
    if not 0 <= blank < classes:
        raise RuntimeError("blank must be in label range")
    if len(il) != n_batch:
        raise RuntimeError(f"input_lengths must be of size batch_size, but got {len(il)}")
    if len(tl) != n_batch:
        raise RuntimeError(f"target_lengths must be of size batch_size, but got {len(tl)}")
    t_max = log_probs.shape[0]
    for n in range(n_batch):
        if il[n] > t_max:
            raise RuntimeError(f"Expected input_lengths to have value at most {t_max}, but got value {il[n]} "
                               f"(while checking arguments for ctc_loss_cpu)")
    raw = _ctc_raw(log_probs, targets._data, il, tl, blank, zero_infinity)
    if reduction == "none":
        return raw.squeeze(0) if unbatched else raw
    if reduction == "sum":
        return raw.sum()
    denom = np.maximum(tl, 1).astype(raw._data.dtype)
    if type(raw._data) is MetaArray:  # on the loss's device, as PyTorch's (a CPU tensor beside meta ones is refused)
        denom = MetaArray(denom.shape, denom.dtype)
    denom = _make(denom)
    return (raw / denom).mean()
