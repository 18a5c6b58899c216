"""Programs that reach the paths of ``tinytorch/_cpu/norm.py`` (layer_norm's and native_layer_norm's forwards and
layer_norm's backward without a graph of the gradient): target -> [make(rng, dtype, shape) yielding (name, fn,
arrays)]. ``shape`` gives the leading dims; the normalised ones are added here. Which branch of a path runs depends on numba (the fused
kernels) and on the thread count (runs of rows across threads, for the large programs): each case is compared
with the path off wherever it runs."""
import numpy as np

import tinytorch as tt

F = tt.nn.functional


def _arrays(rng, dtype, *shapes):
    return [np.asarray(rng.standard_normal(s) * 3 + 1, dtype=dtype) for s in shapes]


def _with_saved(y):
    """``y`` with the mean and invstd its node keeps (``_saved_result1/2``)."""
    return y, y.grad_fn._saved_result1, y.grad_fn._saved_result2


def _layer_norm(rng, dtype, shape):
    c = 6
    x, w, b = _arrays(rng, dtype, shape + (c,), (c,), (c,))
    yield "affine", (lambda x, w, b: F.layer_norm(x, (c,), w, b)), [x, w, b]
    yield "no affine", (lambda x: F.layer_norm(x, (c,))), [x]
    yield "weight only", (lambda x, w: F.layer_norm(x, (c,), w, None, 1e-3)), [x, w]
    yield "input only needs grad", (lambda x, w, b: F.layer_norm(x, (c,), w.detach(), b.detach())), [x, w, b]
    yield "parameters only need grad", (lambda x, w, b: F.layer_norm(x.detach(), (c,), w, b)), [x, w, b]
    yield "saved statistics", (lambda x, w, b: _with_saved(F.layer_norm(x, (c,), w, b))), [x, w, b]
    yield "native", (lambda x, w, b: tt.native_layer_norm(x, (c,), w, b, 1e-5)), [x, w, b]
    # (a float64 weight with a float32 input: PyTorch's mixed-dtype refusal, before any path: test_nn_norm.py)
    if len(shape) >= 2:
        # the gradient arrives permuted: rows of another order than memory's
        yield "permuted gradient", (lambda x, w, b: F.layer_norm(x, (c,), w, b).transpose(0, 1) * 1.5), [x, w, b]
        xt = _arrays(rng, dtype, shape[:-1] + (c, shape[-1]))[0]  # rows of the input strided
        yield "transposed input", (lambda x, w: F.layer_norm(x.transpose(-1, -2), (c,), w)), [xt, w]
    if shape:
        x2, w2 = _arrays(rng, dtype, shape + (c,), shape[-1:] + (c,))
        yield "two dims", (lambda x, w: F.layer_norm(x, w.shape, w)), [x2, w2]
    yield "a graph of the gradient", (lambda x, w: tt.autograd.grad(
        (F.layer_norm(x, (c,), w) ** 2).sum(), x, create_graph=True)[0]), [x, w]


def _layer_norm_large(rng, dtype, shape):
    """Large enough to be cut into runs of rows across threads (two normalised dims: never the fused kernel),
    and one long normalised dim (the fused kernel's parts across threads)."""
    if shape != (3, 4):
        return
    x, w, b = _arrays(rng, dtype, (64, 32, 40), (32, 40), (32, 40))
    yield "large, two dims", (lambda x, w, b: F.layer_norm(x, (32, 40), w, b)), [x, w, b]
    x1, w1, b1 = _arrays(rng, dtype, (2048, 40), (40,), (40,))
    yield "large, one dim", (lambda x, w, b: F.layer_norm(x, (40,), w, b)), [x1, w1, b1]
    yield "large, saved statistics", (lambda x, w, b: _with_saved(F.layer_norm(x, (32, 40), w, b))), [x, w, b]


def _layer_norm_backward_op(rng, dtype, shape):
    """native_layer_norm_backward (what a compiled step's backward runs), from native_layer_norm's statistics: every
    output mask, no weight, a permuted gradient, two normalised dims."""
    c = 6

    def run(x, w, g, mask=(True, True, True), dims=1, permute=False):
        x, w, g = (None if t is None else t.detach() for t in (x, w, g))
        shape = list(x.shape[x.dim() - dims:])
        _, mean, rstd = tt.ops.aten.native_layer_norm(x, shape, w, None, 1e-5)
        if permute:
            g = g.transpose(0, 1).contiguous().transpose(0, 1)
        out = tt.ops.aten.native_layer_norm_backward(g, x, shape, mean, rstd, w, None, list(mask))
        return tuple(t for t in out if t is not None)

    x, w, g = _arrays(rng, dtype, shape + (c,), (c,), shape + (c,))
    yield "all gradients", run, [x, w, g]
    yield "input only", (lambda x, w, g: run(x, w, g, (True, False, False))), [x, w, g]
    yield "no weight", (lambda x, g: run(x, None, g)), [x, g]
    yield "weight and bias only", (lambda x, w, g: run(x, w, g, (False, True, True))), [x, w, g]
    if len(shape) >= 2:
        yield "permuted gradient", (lambda x, w, g: run(x, w, g, permute=True)), [x, w, g]
    if shape:
        x2, w2, g2 = _arrays(rng, dtype, shape + (c,), shape[-1:] + (c,), shape + (c,))
        yield "two dims", (lambda x, w, g: run(x, w, g, dims=2)), [x2, w2, g2]


PROGRAMS = {
    "layer_norm": [_layer_norm, _layer_norm_large],
    "native_layer_norm": [_layer_norm, _layer_norm_large],
    "norm._layer_norm_grads_arrays": [_layer_norm, _layer_norm_large],
    "norm._layer_norm_grads_from_stats": [_layer_norm_backward_op],
    "NativeLayerNormBackward0": [_layer_norm, _layer_norm_large],
}


def _batch_norm(rng, dtype, shape):
    """Training batch_norm (the running statistics made afresh in each run and returned, to compare their
    updates), on (N, C) inputs (the fused kernels) and on others (the reference's steps)."""
    n, c = 3 + 2 * len(shape), 5
    x, w, b = _arrays(rng, dtype, (n, c), (c,), (c,))
    rm0, rv0 = _arrays(rng, dtype, (c,), (c,))
    rv0 = np.abs(rv0) + 0.5

    def train(x, w=None, b=None, momentum=0.1, stats=True):
        rm, rv = (tt.tensor(rm0), tt.tensor(rv0)) if stats else (None, None)
        out = F.batch_norm(x, rm, rv, w, b, True, momentum, 1e-5)
        return (out, rm, rv) if stats else out

    yield "affine", train, [x, w, b]
    yield "no affine", (lambda x: train(x, momentum=0.3)), [x]
    yield "weight only", (lambda x, w: train(x, w)), [x, w]
    yield "no running statistics", (lambda x, w, b: train(x, w, b, stats=False)), [x, w, b]
    yield "parameters only need grad", (lambda x, w, b: train(x.detach(), w, b)), [x, w, b]
    yield "saved statistics", (lambda x, w, b: _with_saved(train(x, w, b, stats=False))), [x, w, b]
    yield "module", (lambda x: tt.nn.BatchNorm1d(c, dtype=x.dtype)(x)), [x]
    yield "three dims", (lambda x3, w: train(x3, w)), [_arrays(rng, dtype, (n, c, 2))[0], w]
    yield "a graph of the gradient", (lambda x, w: tt.autograd.grad(
        (train(x, w)[0] ** 2).sum(), x, create_graph=True)[0]), [x, w]


def _batch_norm_backward_op(rng, dtype, shape):
    """native_batch_norm_backward (what a compiled step's backward runs for a training batch norm), from
    native_batch_norm's saved statistics, with every output mask and without a weight."""
    n, c = 3 + 2 * len(shape), 5

    def run(x, w, b, g, mask=(True, True, True)):
        x, w, b, g = (None if t is None else t.detach() for t in (x, w, b, g))
        rm, rv = tt.zeros(c, dtype=x.dtype), tt.ones(c, dtype=x.dtype)
        _, mean, invstd = tt.native_batch_norm(x, w, b, rm, rv, True, 0.1, 1e-5)
        out = tt.ops.aten.native_batch_norm_backward(g, x, w, rm, rv, mean, invstd, True, 1e-5, list(mask))
        return tuple(t for t in out if t is not None)

    for dims in ((n, c), (n, c, 3)):
        x, w, b, g = _arrays(rng, dtype, dims, (c,), (c,), dims)
        yield f"all gradients {dims}", run, [x, w, b, g]
        yield f"input only {dims}", (lambda x, w, b, g: run(x, w, b, g, (True, False, False))), [x, w, b, g]
        yield f"no weight {dims}", (lambda x, b, g: run(x, None, b, g)), [x, b, g]
        yield f"weight and bias only {dims}", (lambda x, w, b, g: run(x, w, b, g, (False, True, True))), [x, w, b, g]


PROGRAMS["batch_norm._train_arrays"] = [_batch_norm]
PROGRAMS["batch_norm._train_backward_arrays"] = [_batch_norm_backward_op]
PROGRAMS["NativeBatchNormBackward0"] = [_batch_norm]
