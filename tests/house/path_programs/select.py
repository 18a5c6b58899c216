"""Programs that reach the paths of ``tinytorch/_cpu/select.py`` (topk's and kthvalue's lines answered by a sort where
they have one answer, the tied ones by the step): target -> [make(rng, dtype, shape) yielding (name, fn, arrays)].
Each input mixes lines of distinct values with tied lines (few distinct values, NaNs, -0.0 beside 0.0), along the
last dim and along the first; lines long enough for topk's partial sort (k * 64 <= n) and its nth_element, sorted
and not, largest and smallest."""
import numpy as np

import tinytorch as tt


def _mixed(rng, dtype, shape):
    """``shape`` (a line of 6 for a 0-d case) whose even lines along the last dim hold few distinct values."""
    shape = shape or (6,)
    x = np.asarray(rng.standard_normal(shape), dtype=dtype)
    lines = x.reshape(-1, shape[-1])
    lines[::2] = rng.integers(-2, 2, size=lines[::2].shape)
    flat = lines.reshape(-1)
    if flat.size > 8:
        flat[rng.choice(flat.size, 2, replace=False)] = np.nan
        flat[flat == 0] = -0.0
    return x


def _topks(rng, dtype, shape):
    x = _mixed(rng, dtype, shape)
    n = x.shape[-1]
    for k in sorted({1, min(2, n), n}):
        for largest in (True, False):
            for srt in (True, False):
                yield f"topk k={k} largest={largest} sorted={srt}", \
                    (lambda t, k=k, lg=largest, s=srt: tt.topk(t, k, -1, lg, s)), [x]
    yield "topk along dim 0", (lambda t: tt.topk(t, 1, 0)), [x]
    long = _mixed(rng, dtype, (5, 700))
    for k in (3, 10, 11, 300):  # partial_sort (k * 64 <= 700), then nth_element
        yield f"topk of long lines k={k}", (lambda t, k=k: tt.topk(t, k)), [long]
        yield f"topk of long lines k={k}, smallest, unsorted", (lambda t, k=k: tt.topk(t, k, 1, False, False)), [long]


def _kthvalues(rng, dtype, shape):
    x = _mixed(rng, dtype, shape)
    n = x.shape[-1]
    for k in sorted({1, (n + 1) // 2, n}):
        yield f"kthvalue k={k}", (lambda t, k=k: tt.kthvalue(t, k)), [x]
        yield f"kthvalue k={k}, keepdim", (lambda t, k=k: tt.kthvalue(t, k, -1, True)), [x]
    yield "kthvalue along dim 0", (lambda t: tt.kthvalue(t, 1, 0)), [x]
    long = _mixed(rng, dtype, (4, 500))
    for k in (1, 250, 500):
        yield f"kthvalue of long lines k={k}", (lambda t, k=k: tt.kthvalue(t, k)), [long]


PROGRAMS = {"sort._topk_indices": [_topks], "sort._kth_indices": [_kthvalues]}
