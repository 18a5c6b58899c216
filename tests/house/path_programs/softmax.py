"""Programs that reach the paths of ``tinytorch/_cpu/softmax.py`` (softmax and log_softmax's rows across
threads, log_softmax's and nll_loss's gradients on arrays, cross_entropy's one pass): target ->
[make(rng, dtype, shape) yielding (name, fn, arrays)]."""
import numpy as np

import tinytorch as tt

F = tt.nn.functional


def _logits(rng, dtype, shape):
    return np.asarray(rng.standard_normal(shape) * 3, dtype=dtype)


def _softmaxes(rng, dtype, shape):
    x = _logits(rng, dtype, shape)
    for name, op in (("softmax", tt.softmax), ("log_softmax", tt.log_softmax)):
        yield name, (lambda v, op=op: op(v, -1)), [x]
        if len(shape) > 1:
            yield f"{name}, dim 0", (lambda v, op=op: op(v, 0)), [x]
            yield f"{name}, strided", (lambda v, op=op: op(v.transpose(0, -1), -1)), [x]
    big = _logits(rng, dtype, (520, 3, 200))  # past parallel.SPLIT_FROM: rows across threads
    big[3, 1, :] = -np.inf  # a fully masked row: NaN, silently
    yield "softmax, large", (lambda v: tt.softmax(v, 1)), [big]
    yield "log_softmax, large", (lambda v: tt.log_softmax(v, -1)), [big]


def _targets(rng, n, c, *spatial):
    return tt.tensor(rng.integers(0, c, (n,) + spatial))


def _cross_entropies(rng, dtype, shape):
    n, c = 3 + len(shape), 5 + sum(shape)
    x = _logits(rng, dtype, (n, c))
    t = _targets(rng, n, c)
    yield "mean", (lambda v: F.cross_entropy(v, t)), [x]
    yield "sum", (lambda v: F.cross_entropy(v, t, reduction="sum")), [x]
    yield "none", (lambda v: F.cross_entropy(v, t, reduction="none")), [x]
    w = np.asarray(rng.random(c), dtype=dtype)
    yield "weight", (lambda v, w: F.cross_entropy(v, t, weight=w.detach())), [x, w]
    hit = tt.tensor(np.where(np.arange(n) % 2, t.numpy(), 1))
    yield "ignore_index hit", (lambda v: F.cross_entropy(v, hit, ignore_index=1)), [x]
    yield "label smoothing", (lambda v: F.cross_entropy(v, t, label_smoothing=0.2)), [x]
    yield "strided logits", (lambda v: F.cross_entropy(v.t().contiguous().t(), t)), [x]
    inf = x.copy()
    inf[1, 2] = np.inf  # a row whose max is not finite: NaN
    yield "infinite logit", (lambda v: F.cross_entropy(v, t)), [inf]
    yield "one sample", (lambda v: F.cross_entropy(v[0], t[0])), [x]
    xs = _logits(rng, dtype, (n, c, 3))
    ts = _targets(rng, n, c, 3)
    yield "spatial", (lambda v: F.cross_entropy(v, ts)), [xs]
    yield "nll_loss", (lambda v: F.nll_loss(F.log_softmax(v, 1), t)), [x]
    yield "nll_loss, none", (lambda v: F.nll_loss(F.log_softmax(v, 1), ts, reduction="none")), [xs]


def _nll_sums(rng, dtype, shape):
    """Batches long enough for nll_loss's cascade to hand sums up two levels, with and without class weights
    and ignored targets (the kernels of ``tinytorch/_cpu/nll_sums.py``)."""
    n, c = 300 + 40 * len(shape), 4 + len(shape)
    x = _logits(rng, dtype, (n, c))
    t = rng.integers(0, c, n)
    t[rng.random(n) < 0.2] = -100
    t[::16] = -100 if len(shape) % 2 else t[::16]
    t = tt.tensor(t)
    w = np.asarray(rng.random(c) + 0.5, dtype=dtype)
    for red in ("mean", "sum"):
        yield f"nll_loss {red}, ignored", (lambda v, red=red: F.nll_loss(F.log_softmax(v, 1), t, reduction=red)), [x]
        yield f"nll_loss {red}, weighted", (lambda v, w, red=red: F.nll_loss(F.log_softmax(v, 1), t, weight=w.detach(),
                                                                           reduction=red)), [x, w]
    xs = _logits(rng, dtype, (2, c, 9, 17))
    ts = _targets(rng, 2, c, 9, 17)
    yield "nll_loss2d, mean", (lambda v: F.nll_loss(F.log_softmax(v, 1), ts)), [xs]


PROGRAMS = {
    "loss_nll._loss_sum": [_cross_entropies, _nll_sums],
    "loss_nll._weight_sum": [_cross_entropies, _nll_sums],
    "softmax._softmax_array": [_softmaxes],
    "softmax._log_softmax_array": [_softmaxes, _cross_entropies],
    "LogSoftmaxBackward0": [_softmaxes, _cross_entropies],
    "NllLossBackward0": [_cross_entropies],
    "F.cross_entropy": [_cross_entropies],
}
