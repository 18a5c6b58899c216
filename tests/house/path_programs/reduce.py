"""Programs that reach the paths of ``tinytorch/_cpu/reduce.py`` (PyTorch's cascade sum and mean with the
compiled kernels; rows added at indices in one compiled pass): target -> [make(rng, dtype, shape) yielding (name,
fn, arrays)]. Sums and means of generated arrays (values over six orders of magnitude) over their leading dims,
kept or not, one leading dim or several, over their last dim, over all, a linear layer's bias gradient (its backward's ``sum``), and the cases the sum's path hands to numpy (dims not
adjacent, a transposed input); embeddings' weight gradients and the gradients of ``t[idx]``, indices repeated
(in and out of order), negative, or each once, tables of one row element or several."""
import numpy as np

import tinytorch as tt
from tinytorch._ops._kernels import compiled


def _kernels_in_use() -> None:
    """The rows-at path takes its kernel only where numba is already in use (another family loaded): load its
    family, so that the programs below reach it wherever numba is installed, whatever ran before."""
    compiled.family("reduce")


def _of_a_copy(fn):
    """``fn`` of ``t * 1.0``: the input's gradient then comes back as an array of its own (a sum's backward hands
    out a broadcast view, which the harness's bitwise comparison cannot view as bytes)."""
    return lambda t: fn(t * 1.0)


def _sums(rng, dtype, shape):
    # the case's own shape behind a few rows (its elements the kept ones), and shapes of their own
    # (256, 130) and (2, 17000): sizes the cascade's kernel takes (its columns, its rows, its full sum); the others
    # are below them, numpy's. Their values are positive, within a factor of 2: two orders of thousands of
    # additions differ by ulps of the sum of the magnitudes, which a sum that cancels would not show at the
    # program's largest magnitude (the bound the path states)
    shapes = [(3, *shape), (1, *shape), (7, 2, *shape), (513, 5), (64, 65), (9, 1), (2, 3, 4, 6), (256, 130),
              (2, 17000)]
    for s in shapes:
        if np.prod(s) >= 32768:
            x = np.asarray(rng.uniform(0.5, 1.0, s), dtype=dtype)
        else:
            x = np.asarray(rng.standard_normal(s) * 10.0 ** rng.uniform(-3, 3, s), dtype=dtype)
        yield f"{s}.sum(0)", _of_a_copy(lambda t: t.sum(0)), [x]
        yield f"{s}.sum(0, keepdim)", _of_a_copy(lambda t: t.sum(0, keepdim=True)), [x]
        if len(s) >= 3:
            yield f"{s}.sum((1, 0))", _of_a_copy(lambda t: t.sum((1, 0))), [x]
            yield f"{s}.sum([0, 1], keepdim)", _of_a_copy(lambda t: tt.ops.aten.sum(t, [0, 1], True)), [x]
            yield f"{s}.sum(-1): not leading", _of_a_copy(lambda t: t.sum(-1)), [x]
        if len(s) >= 2:
            yield f"{s}.transpose(0, 1).sum(0): transposed", _of_a_copy(lambda t: t.transpose(0, 1).sum(0)), [x]
        if len(s) >= 3:
            yield f"{s}.sum((0, 2)): not adjacent", _of_a_copy(lambda t: t.sum((0, 2))), [x]
        yield f"{s}.sum()", _of_a_copy(lambda t: t.sum()), [x]
        yield f"{s}.sum(-1)", _of_a_copy(lambda t: t.sum(-1)), [x]
    # past parallel.SPLIT_FROM: numpy's sums (float64, or sums the cascade leaves) cut over kept dims across threads
    big = np.asarray(rng.uniform(0.5, 1.0, (300, 1000)), dtype=dtype)
    yield "(300, 1000).sum(-1): across threads", _of_a_copy(lambda t: t.sum(-1)), [big]
    yield "(300, 1000).t().sum(0): transposed", _of_a_copy(lambda t: t.t().sum(0)), [big]


def _means(rng, dtype, shape):
    for s in [(3, *shape), (40, 33), (9, 1), (2, 3, 4, 6), (70000,), (260, 130), (2, 16400)]:
        x = np.asarray(rng.standard_normal(s) * 10.0 ** rng.uniform(-3, 3, s), dtype=dtype)
        yield f"{s}.mean()", _of_a_copy(lambda t: t.mean()), [x]
        yield f"{s}.mean(0)", _of_a_copy(lambda t: t.mean(0)), [x]
        yield f"{s}.mean(-1, keepdim)", _of_a_copy(lambda t: t.mean(-1, keepdim=True)), [x]


def _bias_gradient(rng, dtype, shape):
    n = int(np.prod(shape)) or 1
    x = np.asarray(rng.standard_normal((17, 6)), dtype=dtype)
    w = np.asarray(rng.standard_normal((n + 1, 6)), dtype=dtype)
    b = np.asarray(rng.standard_normal(n + 1), dtype=dtype)
    yield "linear's bias gradient", lambda x, w, b: tt.nn.functional.linear(x, w, b), [x, w, b]


def _rows_at(rng, dtype, shape):
    _kernels_in_use()
    width = max(2, int(np.prod(shape)))
    for n, rows in [(7, 40), (65, 512), (5, 3), (300, 20)]:
        table = np.asarray(rng.standard_normal((n, width)), dtype=dtype)
        idx = rng.integers(0, n, rows)
        yield f"embedding {n}x{width}, {rows} lookups", lambda w, i=idx: tt.nn.functional.embedding(
            tt.tensor(i), w), [table]
        yield f"{n}x{width}[idx] with negative indices", lambda w, i=idx - n: w[tt.tensor(i)] * 1.0, [table]
    table = np.asarray(rng.standard_normal((6, 3, width)), dtype=dtype)
    once = rng.permutation(6)
    yield "rows of two dims, each index once", lambda w: w[tt.tensor(once)] * 1.0, [table]
    narrow = np.asarray(rng.standard_normal((9, 1)), dtype=dtype)
    picks = rng.integers(0, 9, 30)
    yield "rows of one element (numpy's)", lambda w: w[tt.tensor(picks)] * 1.0, [narrow]


PROGRAMS = {
    "reduce._sum_array": [_sums, _bias_gradient],
    "reduce._mean_array": [_means],
    "_adjoint._add_rows_at": [_rows_at],
}
