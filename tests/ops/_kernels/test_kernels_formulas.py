"""Every array path of a backward against its formula, and every fast array helper against the numpy
call it stands for, on generated inputs.

A node's formula is written once and runs on tensors when a graph of the gradient is wanted
(``create_graph=True``); without one, the node runs the same formula on the saved arrays, or a kernel of
``_ops/_kernels/`` that computes it in fewer steps (compiled, fused, or in the order of PyTorch's CPU
kernel). Here each case is differentiated both ways: the formula on arrays must give the tensor
formula's bits; a kernel that follows PyTorch's own steps (oneDNN's float32 GELU, the flash-attention
kernel's row sums) must stay within float rounding of it.

The array helpers (``HELPERS``: the row max behind the softmaxes, the batch mean of the norms, the
outer-product matmul) must give their numpy reference's bits, NaN, infinities and signed zeros
included."""
import numpy as np
import pytest

import tinytorch as tt
from tinytorch._ops._core.util import last_axis_max
from tinytorch._ops.linalg.matmul import _np_matmul
from tinytorch._ops.nn.norm import _mean_np

F = tt.nn.functional


def _elementwise(name):
    def build(rng, dtype, shape):
        x = rng.standard_normal(shape) * 2
        return getattr(tt, name), (x,)
    return build


def _mul(kind):
    """mul's node: the products on the arrays by mul's own fast forward (two tensors, a tensor and a number)."""
    def build(rng, dtype, shape):
        x = rng.standard_normal(shape) * 3
        if kind == "tensors":
            return (lambda a, b: a * b), (x, rng.standard_normal(shape) * 3)
        if kind == "number":
            return (lambda a: a * 0.3), (x,)
        return (lambda a: 1.7 * a), (x,)
    return build


def _gelu(rng, dtype, shape):
    return F.gelu, (rng.standard_normal(shape) * 2,)


def _log_softmax(rng, dtype, shape):
    return (lambda x: tt.log_softmax(x, -1)), (rng.standard_normal(shape) * 3,)


def _cross_entropy(kind):
    def build(rng, dtype, shape):
        n, c = shape[0], shape[-1]
        spatial = kind == "spatial"
        logits = rng.standard_normal((n, c, 3) if spatial else (n, c)) * 3
        target = tt.tensor(rng.integers(0, c, (n, 3) if spatial else n))
        kwargs = {"reduction": kind} if kind in ("mean", "sum", "none") else {}
        if kind == "weight":
            kwargs["weight"] = tt.tensor(rng.random(c).astype(dtype))
        if kind == "ignore":
            target[0] = 1
            kwargs["ignore_index"] = 1
        return (lambda x: F.cross_entropy(x, target, **kwargs)), (logits,)
    return build


def _layer_norm(rng, dtype, shape):
    c = shape[-1]
    return (lambda x, w, b: F.layer_norm(x, (c,), w, b)), (rng.standard_normal(shape) * 3 + 1,
                                                            rng.standard_normal(c), rng.standard_normal(c))


def _layer_norm_transposed(rng, dtype, shape):
    c = shape[0]  # a transposed input: its normalised input is in Fortran order
    return (lambda x, w, b: F.layer_norm(x.t(), (c,), w, b)), (rng.standard_normal(shape) * 3 + 1,
                                                                rng.standard_normal(c), rng.standard_normal(c))


def _linear(rng, dtype, shape):
    return F.linear, (rng.standard_normal(shape), rng.standard_normal((4, shape[-1])), rng.standard_normal(4))


def _batch_norm(training, affine):
    def build(rng, dtype, shape):
        c = shape[1]
        rm, rv = tt.tensor(rng.standard_normal(c).astype(dtype)), tt.tensor((rng.random(c) + 0.5).astype(dtype))
        arrays = (rng.standard_normal(shape) * 3 + 1,) + ((rng.standard_normal(c), rng.standard_normal(c))
                                                            if affine else ())

        def fn(x, w=None, b=None):
            return F.batch_norm(x, rm.clone(), rv.clone(), w, b, training=training)
        return fn, arrays
    return build


def _attention(rng, dtype, shape):
    b, h, L, e = shape
    return F.scaled_dot_product_attention, tuple(rng.standard_normal((b, h, L, e)) for _ in range(3))


def _attention_gqa(rng, dtype, shape):
    b, h, L, e = shape
    q = rng.standard_normal((b, h, L, e))
    kv = [rng.standard_normal((b, h // 2, L + 1, e)) for _ in range(2)]
    return (lambda q, k, v: F.scaled_dot_product_attention(q, k, v, enable_gqa=True)), (q, *kv)


def _packed_self_attention(rng, dtype, shape):
    """Self-attention through one packed in-projection: without a graph of the gradient its three selects
    fill one gradient array (``_PackedSelectBackward``), where the formula sums three zero-padded ones."""
    L, n, e, heads = shape

    def fn(x, w, b, ow, ob):
        return F.multi_head_attention_forward(x, x, x, e, heads, w, b, None, None, False, 0.0, ow, ob,
                                              need_weights=False)[0]
    return fn, (rng.standard_normal((L, n, e)), rng.standard_normal((3 * e, e)) * 0.3,
                rng.standard_normal(3 * e) * 0.1, rng.standard_normal((e, e)) * 0.3, rng.standard_normal(e) * 0.1)


def _grid_sample(mode):
    def build(rng, dtype, shape):
        n, c, h, w, points = shape
        padding = ("zeros", "border", "reflection")[h % 3]
        grid = rng.random((n, points, points + 1, 2)) * 2.4 - 1.2  # some points outside the input
        return (lambda x, g: F.grid_sample(x, g, mode=mode, padding_mode=padding, align_corners=bool(w % 2))), (
            rng.standard_normal((n, c, h, w)), grid)
    return build


def _recurrent(mode, **kwargs):
    def build(rng, dtype, shape):
        t, b, i, h = shape
        # one layer's weights as its own inputs: (input, h0[, c0], w_ih, w_hh, b_ih, b_hh)
        gates = {"LSTM": 4, "GRU": 3}.get(mode, 1)
        arrays = [rng.standard_normal((t, b, i)), rng.standard_normal((1, b, h))]
        if mode == "LSTM":
            arrays.append(rng.standard_normal((1, b, h)))
        arrays += [rng.standard_normal((gates * h, i)) * 0.5, rng.standard_normal((gates * h, h)) * 0.5,
                   rng.standard_normal(gates * h) * 0.1, rng.standard_normal(gates * h) * 0.1]
        name = {"LSTM": "LSTM", "GRU": "GRU"}.get(mode, "RNN")
        layer = getattr(tt.nn, name)(i, h, dtype=getattr(tt, dtype.name), **kwargs)

        def fn(x, h0, *rest):
            state = (h0, rest[0]) if mode == "LSTM" else h0
            params = dict(zip(("weight_ih_l0", "weight_hh_l0", "bias_ih_l0", "bias_hh_l0"), rest[-4:]))
            out, _ = tt.func.functional_call(layer, params, (x, state))
            return out
        return fn, tuple(arrays)
    return build


SHAPES = [(3, 40), (17, 9), (2, 3, 6), (5, 3, 4, 2)]
CASES = {
    "tanh": (_elementwise("tanh"), SHAPES + [()]),
    "sigmoid": (_elementwise("sigmoid"), SHAPES + [()]),
    "exp": (_elementwise("exp"), SHAPES + [()]),
    "gelu": (_gelu, SHAPES + [()]),
    **{f"mul_{k}": (_mul(k), SHAPES + [(), (300, 300)]) for k in ("tensors", "number", "rnumber")},
    "log_softmax": (_log_softmax, SHAPES),
    **{f"cross_entropy_{k}": (_cross_entropy(k), [(6, 5), (32, 27)])
       for k in ("mean", "sum", "none", "weight", "ignore", "spatial")},
    "layer_norm": (_layer_norm, SHAPES),
    "layer_norm_transposed": (_layer_norm_transposed, [(4, 6), (9, 33)]),
    "linear": (_linear, [(2, 3, 6), (7, 5), (6,)]),
    **{f"batch_norm_{'train' if t else 'eval'}{'_affine' if a else ''}": (_batch_norm(t, a),
                                                                         [(32, 10), (5, 3, 4), (2, 3, 2, 2)])
       for t in (True, False) for a in (True, False)},
    # the 2-d kernels (``_kernels/grid_sample_2d.py``) against the composite grid_sample differentiated by the engine
    **{f"grid_sample_{m}": (_grid_sample(m), [(2, 3, 5, 6, 4), (1, 2, 4, 5, 3), (2, 1, 3, 4, 5)])
       for m in ("bilinear", "nearest")},
    "attention": (_attention, [(2, 3, 5, 4), (1, 2, 9, 8)]),
    "attention_gqa": (_attention_gqa, [(2, 4, 5, 4)]),
    "self_attention_packed": (_packed_self_attention, [(5, 2, 8, 2), (3, 1, 6, 3)]),
    "rnn_tanh": (_recurrent("RNN_TANH"), [(5, 3, 4, 6), (1, 2, 3, 3)]),
    "rnn_relu": (_recurrent("RNN_RELU", nonlinearity="relu"), [(5, 3, 4, 6)]),
    "gru": (_recurrent("GRU"), [(5, 3, 4, 6), (1, 2, 3, 3)]),
    "lstm": (_recurrent("LSTM"), [(5, 3, 4, 6), (1, 2, 3, 3)]),
}

# the array paths that follow PyTorch's kernel steps instead of the formula's: (case, dtype) -> rtol
ROUNDING = {("gelu", "float32"): 2e-6, ("attention", "float32"): 2e-5, ("attention", "float64"): 1e-12,
            # float32 layer_norm's CPU path keeps PyTorch's kernel's statistics (its Welford order), the formula
            # numpy's
            ("layer_norm", "float32"): 2e-5, ("layer_norm_transposed", "float32"): 2e-5,
            ("grid_sample_bilinear", "float32"): 2e-6, ("grid_sample_bilinear", "float64"): 1e-14,
            ("attention_gqa", "float32"): 2e-5, ("attention_gqa", "float64"): 1e-12,
            ("self_attention_packed", "float32"): 2e-5, ("self_attention_packed", "float64"): 1e-12,
            # the recurrent layers' time loops (``_kernels/lstm.py``, ``_kernels/rnn_gru.py``) against the
            # step cells differentiated by the engine: other association orders of the same sums
            **{(m, d): (2e-5 if d == "float32" else 1e-12) for m in ("rnn_tanh", "rnn_relu", "gru", "lstm")
               for d in ("float32", "float64")}}


@pytest.mark.parametrize("dtype", ["float32", "float64"])
@pytest.mark.parametrize("case", sorted(CASES))
def test_array_path_is_the_formula(case, dtype):
    build, shapes = CASES[case]
    for k, shape in enumerate(shapes):
        rng = np.random.default_rng([k, len(case), dtype == "float32"])
        fn, arrays = build(rng, np.dtype(dtype), shape)
        inputs = [tt.tensor(np.asarray(a, dtype=dtype), requires_grad=True) for a in arrays]
        out = fn(*inputs)
        g = tt.tensor(rng.standard_normal(tuple(out.shape)).astype(dtype))
        on_arrays = tt.autograd.grad(out, inputs, g)
        formula = tt.autograd.grad(fn(*inputs), inputs, g, create_graph=True)
        for a, f in zip(on_arrays, formula):
            assert a.dtype == f.dtype and a.shape == f.shape and a.grad_fn is None
            a, f = a.numpy(), f.detach().numpy()
            rtol = ROUNDING.get((case, dtype))
            if rtol is None:
                assert np.array_equal(a, f), (case, dtype, shape, np.abs(a - f).max())
            else:
                np.testing.assert_allclose(a, f, rtol=rtol, atol=rtol)


# -- fast array helpers against the numpy call each stands for: name -> (helper, reference, dtypes,
# generator of argument tuples)
def _row_max_inputs(rng, dtype):
    # (3, 10) and (63, 2): below the helper's reduceat threshold of 64 rows, with the NaN and infinities below;
    # (64, 2) at it
    for shape in ((4, 3, 32, 32), (512, 65), (3, 10), (63, 2), (64, 2), (7, 1), (5,), (3, 0), (0, 4)):
        x = rng.standard_normal(shape).astype(dtype)
        if x.size > 8:
            flat = x.reshape(-1)
            flat[:4] = [np.nan, np.inf, -np.inf, -0.0]
            flat[-3:] = -np.inf
        for a in (x, x[..., ::2] if x.shape[-1] > 1 else x):
            if a.shape[-1]:  # np.max's own error for an empty reduction: not a case for the helper
                yield (a,)


def _batch_mean_inputs(rng, dtype):
    for shape, axes in [((32, 100), (0,)), ((7, 3, 5), (0, 2)), ((3, 9), (1,)), ((2, 4, 3, 3), (0, 2, 3))]:
        yield (rng.standard_normal(shape) * 10 ** rng.uniform(-3, 3)).astype(dtype), axes


def _outer_matmul_inputs(rng, dtype):
    # inner dimension 1: the product is an outer product (plain multiplies, no sums)
    for m in (1, 2, 5, 9):
        for n in (1, 3, 8, 9):
            for batch in ((), (3,), (2, 1)):
                a = (rng.standard_normal(batch + (m, 1)) * 100).astype(dtype)
                yield a, (rng.standard_normal((1, n)) * 100).astype(dtype)


FLOATS = (np.float16, np.float32, np.float64)
HELPERS = {
    "last_axis_max": (last_axis_max, lambda a: np.max(a, axis=-1, keepdims=True), FLOATS, _row_max_inputs),
    "batch_mean": (_mean_np, lambda x, axes: x.mean(axis=axes, keepdims=True), FLOATS, _batch_mean_inputs),
    "outer_matmul": (_np_matmul, np.matmul,
                     (np.float32, np.float64, np.int64), _outer_matmul_inputs),
}


# bitexact: numpy's own results change with its version and CPU features, which CI's bitexact runs vary
@pytest.mark.bitexact
@pytest.mark.parametrize("case,dtype", [(c, np.dtype(d).name) for c in sorted(HELPERS) for d in HELPERS[c][2]])
def test_array_helper_is_its_numpy_reference(case, dtype):
    helper, reference, _, inputs = HELPERS[case]
    rng = np.random.default_rng([len(case), np.dtype(dtype).itemsize])
    count = 0
    for args in inputs(rng, np.dtype(dtype)):
        got, want = helper(*args), reference(*args)
        assert got.dtype == want.dtype and got.shape == want.shape, (case, [np.shape(a) for a in args])
        assert np.array_equal(np.ascontiguousarray(got).view(np.uint8), np.ascontiguousarray(want).view(np.uint8)), \
            (case, [np.shape(a) for a in args])
        count += 1
    assert count
