"""The plans' graph rewrites (``tinytorch/_dynamo/split_gradients.py``) against the ops they replace, bit for bit.

``fill_slots``: a sum of zero-padded slice gradients (``select_backward`` nodes added up), with the clones before
it and the axis moves and clone after it, becomes one ``filled_slots`` node. Held to:

  - the ops' own result (values, -0.0 and NaN included, dtype, shape, contiguity) on generated slices of any dim,
    layout and coverage, with and without the moves after the sum;
  - compiled programs that index a tensor several times: gradients equal eager's bit for bit (which are PyTorch's
    where eager's are), the rewrite present in the backward plan, and absent where it does not apply (a slice
    read twice, a slice gradient also read elsewhere)."""
import numpy as np
import pytest

import tinytorch as tt
from tinytorch._dynamo.split_gradients import filled_slots

aten = tt.ops.aten


@pytest.fixture(autouse=True)
def _fresh():
    tt._dynamo.reset()
    yield
    tt._dynamo.reset()


def _values(rng, shape, dtype):
    """Gradients with the values a sum treats apart: -0.0, +0.0, NaN, infinities."""
    a = rng.standard_normal(shape).astype(dtype)
    flat = a.reshape(-1)
    k = flat.size
    if k:
        picks = rng.integers(0, k, max(1, k // 4))
        flat[picks] = rng.choice(np.array([-0.0, 0.0, np.nan, np.inf, -np.inf], dtype), picks.size)
    return a


def _bits(a: np.ndarray) -> np.ndarray:
    return a.view(np.uint32 if a.itemsize == 4 else np.uint64)


def _same(got, want):
    g, w = got.numpy(), want.numpy()
    assert g.dtype == w.dtype and g.shape == w.shape
    assert g.flags.c_contiguous == w.flags.c_contiguous
    np.testing.assert_array_equal(_bits(g), _bits(w))


def _sum_of_padded(sources, slots, sizes, dim):
    total = None
    for g, slot in zip(sources, slots):
        part = aten.select_backward.default(g, sizes, dim, slot)
        total = part if total is None else aten.add.Tensor(total, part)
    return total


CASES = [  # sizes, dim, slots
    ([3, 5, 4], 0, [2, 1, 0]),
    ([3, 5, 4], 0, [0, 2]),          # slot 1 never filled: zeros
    ([4, 3, 2], 1, [1, 0, 2]),
    ([2, 3, 4], -1, [3, 0]),
    ([6, 1, 4], 0, [5, 0, 3, 1]),
]


@pytest.mark.parametrize("dtype", [np.float32, np.float64])
@pytest.mark.parametrize("case", range(len(CASES)))
def test_filled_slots_is_the_sum_of_the_padded_gradients(case, dtype):
    sizes, dim, slots = CASES[case]
    rng = np.random.default_rng(case)
    slot_shape = [s for i, s in enumerate(sizes) if i != dim % len(sizes)]
    sources = [tt.tensor(_values(rng, slot_shape, dtype)) for _ in slots]
    with tt.no_grad():
        want = _sum_of_padded(sources, [s - sizes[dim] if k % 2 else s for k, s in enumerate(slots)], sizes, dim)
        got = filled_slots(sources, slots, sizes, dim % len(sizes))
    _same(got, want)


def test_filled_slots_reads_each_source_in_any_layout_and_moves_the_sum():
    """MultiheadAttention's case: each slice's gradient a transposed (B*H, T, D) array that a clone made
    contiguous and a view read as (T, B, E); the sum moved by unsqueeze(3), transpose(0, 3), squeeze(0) and
    copied contiguous again. The fused node reads the transposed arrays as they are and fills the final layout."""
    rng = np.random.default_rng(1)
    t, b, h, d = 5, 3, 2, 4
    sizes = [3, t, b, h * d]
    heads = [tt.tensor(_values(rng, (b * h, t, d), np.float32)) for _ in range(3)]
    with tt.no_grad():
        views = [aten._unsafe_view.default(aten.clone.default(aten.transpose.int(x, 0, 1),
                                                              memory_format=tt.contiguous_format), [t, b, h * d])
                 for x in heads]
        total = _sum_of_padded(views, [2, 1, 0], sizes, 0)
        moved = aten.squeeze.dim(aten.transpose.int(aten.unsqueeze.default(total, 3), 0, 3), 0)
        want = aten.clone.default(moved, memory_format=tt.contiguous_format)
        got = filled_slots([aten.transpose.int(x, 0, 1) for x in heads], [2, 1, 0], sizes, 0, axes=[1, 2, 0, 3])
    _same(got, want)
    # a source whose shape shares no finer split with the slot's ((4, 6) against (6, 4)): copied through a reshape
    src = [tt.tensor(_values(rng, (4, 6), np.float64)) for _ in range(2)]
    with tt.no_grad():
        want = _sum_of_padded([aten.view.default(s, [6, 4]) for s in src], [0, 1], [2, 6, 4], 0)
        got = filled_slots(src, [0, 1], [2, 6, 4], 0)
    _same(got, want)


def _grads(fn, x, compiled):
    tt._dynamo.reset()
    run = tt.compile(fn) if compiled else fn
    got = []
    for _ in range(2):  # the second call runs the plans
        x.grad = None
        run(x).backward()
        got.append(x.grad.numpy().copy())
    return got[-1], run


def _backward_source(run) -> str:
    plans = [p for e in run._tinytorch_frame.entries for p in e.plans.values()]
    assert plans and all(p is not None for p in plans)
    return plans[0].backward.source


def _packed(x):
    """qkv's three slices, each moved and multiplied: their gradients are filled into one array."""
    q, k, v = x[0], x[1], x[2]
    return (q.t() * 2.0 + k.t() * -1.0 + v.t() * v.t()).sum()


def _two_of_four(x):
    return (x[:, 3] * x[:, 0].exp()).sum()


def _slice_read_twice(x):
    a = x[1]
    return (a * a.sin() + x[0]).sum()


@pytest.mark.parametrize("fn,fused", [(_packed, True), (_two_of_four, True), (_slice_read_twice, True)])
def test_compiled_gradients_of_slices_equal_eager(fn, fused):
    rng = np.random.default_rng(2)
    data = _values(rng, (3, 4, 5) if fn is _packed else (4, 5), np.float32)
    data[np.isnan(data) | np.isinf(data)] = 1.5  # (finite: a NaN loss compares equal anyway, but says nothing)
    x = tt.tensor(data, requires_grad=True)
    want, _ = _grads(fn, x, compiled=False)
    got, run = _grads(fn, x, compiled=True)
    np.testing.assert_array_equal(_bits(got), _bits(want))
    source = _backward_source(run)
    assert ("filled_slots" in source) == fused, source
    if fused:
        assert "select_backward" not in source, source


def test_slices_summed_with_another_gradient_keep_eagers_order():
    """x read whole as well as by slices: its gradient adds the padded slice gradients and the whole one in the
    engine's order; only the adds of padded gradients alone become a fill, the rest stay adds."""
    def fn(x):
        return (x[0] * x[2]).sum() + (x * x.cos()).sum() + x[1].exp().sum()

    data = _values(np.random.default_rng(3), (3, 6), np.float32)
    data[np.isnan(data) | np.isinf(data)] = -2.5
    x = tt.tensor(data, requires_grad=True)
    want, _ = _grads(fn, x, compiled=False)
    got, run = _grads(fn, x, compiled=True)
    np.testing.assert_array_equal(_bits(got), _bits(want))
    source = _backward_source(run)
    assert "aten_add" in source, source


def test_a_source_written_in_place_after_its_copy_keeps_the_copy():
    """``view(clone(x))`` is read as ``x`` itself only where nothing writes into ``x`` between the clone and the
    sum: here ``x.add_`` runs in between, so the fill reads the clone (the values before the write)."""
    from tinytorch.fx.experimental.proxy_tensor import make_fx
    from tinytorch._dynamo.split_gradients import fill_slots

    def program(x, y, written):
        copy = aten._unsafe_view.default(aten.clone.default(x.t(), memory_format=tt.contiguous_format), [4, 3])
        padded = aten.select_backward.default(copy, [2, 4, 3], 0, 0)
        if written:
            x.add_(1.0)
        return aten.add.Tensor(padded, aten.select_backward.default(y, [2, 4, 3], 0, 1))

    for written in (False, True):
        gm = make_fx(lambda x, y: program(x, y, written))(tt.randn(3, 4), tt.randn(4, 3))
        fill_slots(gm.graph)
        gm.recompile()
        code = gm.code
        assert "filled_slots" in code and "select_backward" not in code, code
        assert ("clone" in code) == written, code
        x, y = tt.randn(3, 4), tt.randn(4, 3)
        want = program(x.clone(), y, written)
        np.testing.assert_array_equal(gm(x, y).numpy(), want.numpy())
