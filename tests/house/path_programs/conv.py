"""Programs that reach the paths of ``tinytorch/_cpu/conv.py`` (the convolution's chunked im2col kernels and
both gradients from shared rows): target -> [make(rng, dtype, shape) yielding (name, fn, arrays)].

``shape`` picks the batch (its length plus one), so the four shapes give batches of 1 to 4 samples; the
geometries cover the layouts the path chooses between: stride 1 (wide rows) and strided, padding,
dilation, groups, 1-d, transposed with output_padding, and an image large enough for chunks of one sample."""
import numpy as np

import tinytorch.nn.functional as F

# (C, H, W, O, kernel, stride, padding, dilation, groups)
GEOMETRIES = [
    (3, 8, 9, 4, 3, 1, 0, 1, 1),
    (4, 7, 6, 6, (3, 2), 2, 1, 1, 2),
    (2, 9, 8, 3, 2, (1, 2), (2, 0), (2, 1), 1),
    (16, 34, 34, 8, 3, 1, 1, 1, 1),  # 144 x 34 x 36 columns of a sample: one sample a chunk
]


def _arrays(rng, dtype, shapes):
    return [np.asarray(rng.standard_normal(s), dtype=dtype) for s in shapes]


def _conv2d(rng, dtype, shape):
    n = len(shape) + 1
    for c, h, w, o, k, s, p, d, g in GEOMETRIES:
        kk = (k, k) if isinstance(k, int) else k
        x, wt, b = _arrays(rng, dtype, [(n, c, h, w), (o, c // g) + kk, (o,)])
        conv = (lambda s, p, d, g: lambda X, W, B: F.conv2d(X, W, B, s, p, d, g))(s, p, d, g)
        yield f"conv2d {c}x{h}x{w} k{k} s{s} p{p} d{d} g{g}", conv, [x, wt, b]
        yield f"weight only {c}x{h}x{w} k{k}", (lambda conv: lambda X, W, B: conv(X.detach(), W, B))(conv), [x, wt, b]


def _conv1d(rng, dtype, shape):
    x, w = _arrays(rng, dtype, [(len(shape) + 1, 4, 30), (6, 2, 5)])
    yield "conv1d", (lambda X, W: F.conv1d(X, W, None, 2, 3, 2, 2)), [x, w]


def _transposed(rng, dtype, shape):
    x, w, b = _arrays(rng, dtype, [(len(shape) + 1, 4, 6, 7), (4, 3, 3, 2), (6,)])
    yield "conv_transpose2d", (lambda X, W, B: F.conv_transpose2d(X, W, B, 2, 1, 1, 2, 1)), [x, w, b]
    yield "conv_transpose1d", (lambda X, W: F.conv_transpose1d(X[:, :, 0], W[:, :, 0], None, 1, 2)), [x, w]


def _double(rng, dtype, shape):
    """Second derivatives: the gradient's own graph runs every primitive with grad mode on."""
    import tinytorch as tt

    def second(X, W):
        y = F.conv2d(X, W, None, 1, 1)
        return tt.autograd.grad(y, (X, W), y, create_graph=True)
    x, w = _arrays(rng, dtype, [(len(shape) + 1, 3, 6, 5), (2, 3, 3, 3)])
    yield "second derivatives", second, [x, w]


_ALL = [_conv2d, _conv1d, _transposed, _double]
PROGRAMS = {
    "conv._conv_arrays": _ALL,
    "conv._conv_t_arrays": _ALL,
    "conv._conv_w_arrays": _ALL,
    "conv._conv_grads_arrays": [_conv2d, _conv1d],
}
