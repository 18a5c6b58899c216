"""Which index topk and kthvalue report among equal values: the references (``_ops/reduce/sort.py``'s steps, PyTorch's
selections written out in ``_ops/reduce/selection.py``) against PyTorch on generated tied lines, whatever CPU path
is bound (``tinytorch/_cpu/select.py`` answers the untied lines by a sort; the house tests hold it to these
steps). No sort gives these indices: a stable sort misses most tied lines (the last test shows it, so the inputs
here do hold ties that matter)."""
import numpy as np
import pytest

from _oracle import torch  # noqa: E402  (PyTorch when a test reads it)
from tinytorch._ops._core import paths
from tinytorch._ops.reduce import selection, sort

_topk = paths.reference_kernel(sort, "_topk_indices")
_kth = paths.reference_kernel(sort, "_kth_indices")

# lengths on both sides of topk's switch (std::partial_sort when k * 64 <= n, else nth_element then sort)
_SIZES = (1, 2, 3, 7, 16, 17, 40, 64, 65, 129, 300, 1000)


def _tied(rng, shape, dtype):
    """Values drawn from few distinct ones (some lines from one or two), NaNs in some floating ones."""
    n = shape[-1]
    x = rng.integers(0, int(rng.integers(1, max(2, n // 3) + 1)), size=shape)
    if np.dtype(dtype).kind == "f":
        x = x.astype(dtype)
        if rng.random() < 0.4:
            x[rng.random(shape) < 0.1] = np.nan
        if rng.random() < 0.3:
            x[x == 0] = -0.0  # equal to 0.0
    return x.astype(dtype)


def _ks(rng, n):
    return sorted({1, n, min(2, n), min(5, n), max(1, n // 64), int(rng.integers(1, n + 1))})


@pytest.mark.parametrize("n", _SIZES)
@pytest.mark.parametrize("dtype", (np.float32, np.float64, np.int64))
def test_topk_reference_tie_indices_are_pytorchs(n, dtype):
    rng = np.random.default_rng(n * 7 + np.dtype(dtype).num)
    for _ in range(6):
        x = _tied(rng, (3, n), dtype)
        for k in _ks(rng, n):
            for largest in (True, False):
                for srt in (True, False):
                    want = torch.topk(torch.from_numpy(x), k, 1, largest, srt).indices.numpy()
                    np.testing.assert_array_equal(_topk(x, k, 1, largest, srt), want,
                                                  err_msg=f"k={k} largest={largest} sorted={srt}\n{x}")
                    # along dim 0 of the transposed lines
                    np.testing.assert_array_equal(_topk(np.ascontiguousarray(x.T), k, 0, largest, srt), want.T)


@pytest.mark.parametrize("n", _SIZES)
@pytest.mark.parametrize("dtype", (np.float32, np.float64, np.int64))
def test_kthvalue_reference_tie_index_is_pytorchs(n, dtype):
    rng = np.random.default_rng(n * 11 + np.dtype(dtype).num)
    for _ in range(6):
        x = _tied(rng, (2, 3, n), dtype)
        for k in _ks(rng, n):
            want = torch.kthvalue(torch.from_numpy(x), k, -1, keepdim=True).indices.numpy()
            np.testing.assert_array_equal(_kth(x, k - 1, 2), want, err_msg=f"k={k}\n{x}")
            np.testing.assert_array_equal(_kth(np.moveaxis(x, 2, 0).copy(), k - 1, 0), np.moveaxis(want, 2, 0))


def _deep(n: int, k: int) -> np.ndarray:
    """A line on which libstdc++'s nth_element partitions 2 log2(n) times without reaching k - 1 (then selects by a
    heap): McIlroy's adversary, each value fixed only when the selection first compares two unfixed ones."""
    unfixed, val, state = n, [n] * n, {"fixed": 0, "candidate": None}

    def before(p, q):
        a, b = p[1], q[1]
        if val[a] == unfixed and val[b] == unfixed:
            val[a if a == state["candidate"] else b] = state["fixed"]
            state["fixed"] += 1
        if val[a] == unfixed:
            state["candidate"] = a
        elif val[b] == unfixed:
            state["candidate"] = b
        return val[a] < val[b]
    line = [(0, i) for i in range(n)]
    selection._nth_element(line, k - 1, before)
    selection._std_sort(line, 0, k - 1, before)
    return np.array(val, dtype=np.float64)


@pytest.mark.parametrize("n, k", [(200, 40), (1000, 500), (1000, 999), (3000, 40)])
def test_topk_reference_past_the_partition_depth(n, k, monkeypatch):
    calls = []
    heap_select = selection._heap_select
    monkeypatch.setattr(selection, "_heap_select", lambda *a: calls.append(a[1:4]) or heap_select(*a))
    x = _deep(n, k)
    for y in (x, np.floor(x / 3)):  # and with ties
        for largest, srt in ((False, True), (False, False), (True, True), (True, False)):
            line = -y if largest else y
            calls.clear()
            got = _topk(line[None], k, 1, largest, srt)[0]
            np.testing.assert_array_equal(got, torch.topk(torch.from_numpy(line), k, 0, largest, srt).indices.numpy())
            if y is x:
                assert calls, "the line did not reach the heap selection"


def test_a_stable_sort_gives_other_indices():
    # the inputs above hold ties that decide the index: a stable sort's answer differs on many of them
    rng = np.random.default_rng(5)
    differ = 0
    for _ in range(40):
        x = _tied(rng, (4, 100), np.float64)
        want = torch.topk(torch.from_numpy(x), 10, 1, False, True).indices.numpy()
        differ += not np.array_equal(np.argsort(x, 1, kind="stable")[:, :10], want)
        want = torch.kthvalue(torch.from_numpy(x), 50, 1).indices.numpy()
        differ += not np.array_equal(np.argsort(x, 1, kind="stable")[:, 49], want)
    assert differ > 40
