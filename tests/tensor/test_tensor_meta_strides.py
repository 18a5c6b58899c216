"""Strides of results and gradients that PyTorch lays out otherwise than C order, on CPU and on meta tensors:
pinv's gradient (column-major matrices, its formula starting from a conjugate transpose), conv_transpose3d's
input gradient (contiguous, whatever order the composite works in), nonzero_static's meta result (column-major,
an empty one's strides too), and pointwise results of transposed, permuted or channels-last inputs (their inputs'
order kept, on meta tensors as on CPU ones)."""
import random
import warnings

import numpy as np
import pytest

import tinytorch


def _make(L, shape, device, dtype=None, seed=0):
    if device == "meta":
        return L.empty(shape, device="meta", dtype=dtype or L.float32)
    a = np.random.default_rng(seed).standard_normal(shape).astype(np.float32)
    t = L.tensor(a)
    return t if dtype is None else t.to(dtype)


def _seen(t, values: bool):
    out = (tuple(t.shape), tuple(t.stride()), str(t.dtype).split(".")[-1], t.device.type)
    if values:
        v = t.detach().resolve_conj().numpy() if t.is_complex() else t.detach().numpy()
        out += (np.round(v.astype(np.complex128 if t.is_complex() else np.float64), 3).tolist(),)
    return out


@pytest.mark.parametrize("device", ["cpu", "meta"])
@pytest.mark.parametrize("shape", [(5, 5), (3, 5, 4), (2, 4, 6)])
@pytest.mark.parametrize("dtype", ["float32", "complex64"])
def test_pinv_gradient_layout(torch, device, shape, dtype):
    seen = []
    for L in (torch, tinytorch):
        fns = [lambda a: L.linalg.pinv(a), lambda a: L.pinverse(a)]
        if shape[-1] == shape[-2]:
            fns.append(lambda a: L.linalg.pinv(a @ a.mH + L.eye(shape[-1], device=device), hermitian=True))
        row = []
        for fn in fns:
            A = _make(L, shape, device, getattr(L, dtype)).requires_grad_()
            X = fn(A)
            g, = L.autograd.grad(X, A, _make(L, tuple(X.shape), device, getattr(L, dtype), seed=1))
            row.append(_seen(g, device == "cpu"))
        seen.append(row)
    assert seen[0] == seen[1]


@pytest.mark.parametrize("device", ["cpu", "meta"])
@pytest.mark.parametrize("shape,kw", [((1, 3, 4, 4, 4), {}), ((3, 4, 4, 4), {"stride": 2}),
                                      ((2, 3, 5, 4, 4), {"stride": 2, "padding": 1, "output_padding": 1})])
def test_conv_transpose3d_gradient_layout(torch, device, shape, kw):
    seen = []
    for L in (torch, tinytorch):
        x = _make(L, shape, device).requires_grad_()
        w = _make(L, (3, 2, 2, 2, 2), device, seed=1).requires_grad_()
        b = _make(L, (2,), device, seed=2).requires_grad_()
        y = L.nn.functional.conv_transpose3d(x, w, b, **kw)
        grads = L.autograd.grad(y, (x, w, b), _make(L, tuple(y.shape), device, seed=3))
        seen.append([_seen(y, device == "cpu")] + [_seen(g, device == "cpu") for g in grads])
    assert seen[0] == seen[1]


@pytest.mark.parametrize("device", ["cpu", "meta"])
@pytest.mark.parametrize("shape,kernel,kw", [((2, 3, 4, 5, 6), (3, 3, 3), {"padding": "same"}),
                                             ((2, 3, 4, 5, 6), (2, 3, 2), {"padding": "same"}),
                                             ((1, 1, 5, 4, 4), (2, 2, 2), {"padding": "same", "dilation": 2}),
                                             ((3, 4, 5, 6), (3, 3, 3), {"padding": 1}),
                                             ((2, 3, 5, 4, 4), (2, 2, 2), {"stride": 2})])
def test_conv3d_gradient_layout(torch, device, shape, kernel, kw):
    """conv3d's result and its input's gradient: contiguous, as PyTorch's (the composite's depth-as-batch order
    once came back as the input gradient's strides), with "same" padding too, odd and even kernels."""
    seen = []
    channels = shape[-4]
    for L in (torch, tinytorch):
        x = _make(L, shape, device).requires_grad_()
        w = _make(L, (2, channels) + kernel, device, seed=1).requires_grad_()
        b = _make(L, (2,), device, seed=2).requires_grad_()
        with warnings.catch_warnings():
            warnings.simplefilter("ignore")  # PyTorch's warning for an even kernel's padded copy
            y = L.nn.functional.conv3d(x, w, b, **kw)
        outs = (y,) + L.autograd.grad(y, (x, w, b), _make(L, tuple(y.shape), device, seed=3))
        seen.append(outs)
    assert [_seen(t, False) for t in seen[1]] == [_seen(t, False) for t in seen[0]]
    if device == "cpu":  # the values too (float32 sums in other orders: close)
        for ours, theirs in zip(seen[1], seen[0]):
            np.testing.assert_allclose(ours.detach().numpy(), theirs.detach().numpy(), rtol=1e-5, atol=1e-5)


@pytest.mark.parametrize("device", ["cpu", "meta"])
def test_nonzero_static_layout(torch, device):
    seen = []
    for L in (torch, tinytorch):
        row = []
        for shape in [(), (3,), (2, 3), (2, 0, 3)]:
            x = L.empty(shape, device="meta") if device == "meta" else \
                (L.arange(float(np.prod(shape))) % 2).reshape(shape)
            # (a 1-d input's empty result, (0, 1) with strides (1, 0), reads as a new axis's (1, 1) on meta)
            for size in (0, 1, 4) if len(shape) != 1 or device == "cpu" else (1, 4):
                row.append(_seen(L.nonzero_static(x, size=size), device == "cpu"))
        seen.append(row)
    assert seen[0] == seen[1]


_BAG_CASES = [
    dict(input=(7,), offsets=(3,)),
    dict(input=(7,), offsets=(3,), include_last_offset=True),
    dict(input=(2, 4)),
    dict(input=(7,), offsets=(3,), mode="max"),
    dict(input=(7,), offsets=(3,), mode="sum", per_sample_weights=(7,)),
    dict(input=(2, 4), mode="sum", per_sample_weights=(2, 4)),
    dict(input=(7,), offsets=(3,), padding_idx=2),
    dict(input=(10 ** 7,), offsets=(10 ** 6,), weight=(10 ** 6, 8192)),  # 32 GB of weight, 327 GB of rows
]


@pytest.mark.parametrize("case", range(len(_BAG_CASES)))
def test_embedding_bag_on_meta_computes_shapes_only(torch, case):
    """The result's and the gradients' shapes and strides, with no index read (PyTorch's meta kernel)."""
    kw = dict(_BAG_CASES[case])
    seen = []
    for L in (torch, tinytorch):
        args = dict(kw)
        w = L.empty(args.pop("weight", (10, 5)), device="meta").requires_grad_()
        args["input"] = L.empty(args["input"], device="meta", dtype=L.int64)
        if "offsets" in args:
            args["offsets"] = L.empty(args["offsets"], device="meta", dtype=L.int64)
        leaves = [w]
        if "per_sample_weights" in args:
            args["per_sample_weights"] = L.empty(args["per_sample_weights"], device="meta").requires_grad_()
            leaves.append(args["per_sample_weights"])
        out = L.nn.functional.embedding_bag(weight=w, **args)
        grads = L.autograd.grad(out, leaves, L.empty(out.shape, device="meta"))
        seen.append([_seen(t, False) for t in (out,) + tuple(grads)])
    assert seen[0] == seen[1]


def test_to_sparse_refuses_meta_tensors(torch):
    """PyTorch has no meta kernel for the conversions to sparse layouts (which elements are stored depends on the
    values): the same NotImplementedError, before any argument is looked at, and nothing allocated."""
    seen = []
    for L in (torch, tinytorch):
        m, big = L.empty(3, 4, device="meta"), L.empty(2 ** 20, 2 ** 20, device="meta")
        row = []
        for f in (lambda: m.to_sparse(), lambda: m.to_sparse(1), lambda: m.to_sparse(5), lambda: big.to_sparse(),
                  lambda: m.to_sparse(layout=L.sparse_csr), lambda: m.to_sparse_csr(), lambda: m.to_sparse_coo(),
                  lambda: L.empty(2, 3, 4, device="meta").to_sparse_csr()):
            with pytest.raises(Exception) as e:
                f()
            row.append((type(e.value).__name__, str(e.value)))
        seen.append(row)
    assert seen[0] == seen[1]


@pytest.mark.parametrize("device", ["cpu", "meta"])
@pytest.mark.parametrize("kw", [{}, {"transpose": True}, {"upper": False, "unitriangular": True}])
def test_triangular_solve_coefficient_layout(torch, device, kw):
    """The second result, A's copy, is column-major as PyTorch's (the matrix its LAPACK call was given). The
    solution: column-major on meta; tinytorch's CPU solution keeps numpy's C order (not compared there)."""
    seen = []
    for L in (torch, tinytorch):
        A = _make(L, (2, 4, 4), device).requires_grad_()
        B = _make(L, (2, 4, 3), device, seed=1)
        with warnings.catch_warnings():
            warnings.simplefilter("ignore")  # the deprecation (PyTorch warns once per process)
            x, coefficient = L.triangular_solve(B, A, **kw)
        g, = L.autograd.grad(coefficient, A, _make(L, (2, 4, 4), device, seed=2))
        seen.append([_seen(coefficient, device == "cpu"), _seen(g, device == "cpu")] +
                    ([_seen(x, False)] if device == "meta" else []))
    assert seen[0] == seen[1]



def test_multinomial_on_meta_checks_only_the_rank(torch):
    """PyTorch's meta multinomial takes any number of categories and samples (its CPU kernel's checks read values
    or limit sizes) and refuses only a rank other than 1 or 2, in its own words."""
    def seen(L, shape, n, replacement):
        try:
            return tuple(L.multinomial(L.empty(shape, device="meta"), n, replacement).shape)
        except RuntimeError as e:
            return str(e)
    for case in [((2 ** 24 + 1,), 3, False), ((5,), 6, False), ((2, 5), 0, True), ((2, 2, 5), 3, True)]:
        assert seen(tinytorch, *case) == seen(torch, *case), case


def test_alpha_dropouts_on_meta_stay_meta(torch):
    """Training alpha dropout of a meta tensor: a meta result and gradient (the mask is drawn on no device)."""
    seen = []
    for L in (torch, tinytorch):
        x = L.empty(5, 4, 3, 2, device="meta", requires_grad=True)
        outs = [L.nn.functional.feature_alpha_dropout(x, 0.5, True), L.nn.functional.alpha_dropout(x, 0.3, True)]
        grads = [L.autograd.grad(y, x, L.empty(y.shape, device="meta"))[0] for y in outs]
        seen.append([(tuple(t.shape), t.stride(), t.device.type) for t in outs + grads])
    assert seen[0] == seen[1]


def _pointwise_cases(L, device):
    def E(*shape):
        return L.empty(*shape, device=device) if device == "meta" else L.zeros(*shape)
    t, p = E(3, 4).t(), E(2, 3, 4).permute(2, 0, 1)
    cl = E(2, 3, 4, 5).contiguous(memory_format=L.channels_last)
    cl3 = E(2, 3, 2, 4, 5).contiguous(memory_format=L.channels_last_3d)
    return {
        "t+1": lambda: t + 1, "t*t": lambda: t * t, "exp(t)": lambda: t.exp(), "sigmoid(t)": lambda: t.sigmoid(),
        "p+1": lambda: p + 1, "-p": lambda: -p, "relu(p)": lambda: L.relu(p), "clamp(p)": lambda: p.clamp(0, 1),
        "p**2": lambda: p ** 2, "p+row": lambda: p + E(3), "t+row": lambda: t + E(3), "t>0": lambda: t > 0,
        "where(t)": lambda: L.where(t > 0, t, t), "t.double()+1": lambda: t.double() + 1,
        "cl+1": lambda: cl + 1, "cl*cl": lambda: cl * cl, "cl3*2": lambda: cl3 * 2,
        "gapped+1": lambda: E(4, 6)[:, ::2] + 1, "expanded.t()+1": lambda: E(4, 1).expand(4, 3).t() + 1,
        "c+p": lambda: E(4, 2, 3) + p, "size1.t()+1": lambda: E(5, 1).t() + 1,
    }


def test_pointwise_meta_results_keep_their_inputs_order(torch):
    """A pointwise op on meta tensors lays its result out as PyTorch's meta kernels do: a transposed, permuted,
    gapped or channels-last input's order kept (they once all came back in C order)."""
    theirs, ours = _pointwise_cases(torch, "meta"), _pointwise_cases(tinytorch, "meta")
    for case in theirs:
        got, want = ours[case](), theirs[case]()
        assert (tuple(got.shape), got.stride(), got.device.type) == (tuple(want.shape), want.stride(), "meta"), case


def test_pointwise_layout_is_pytorchs_on_meta_and_cpu(torch):
    """Each device's rule, as PyTorch's, for random slices, permutations and broadcasts of the operands: on CPU
    TensorIterator's order (the first operand that orders two dims decides, a binary op's number counted as a 0-d
    operand), on meta PyTorch's meta kernels' (numbers left out, but where's; another fast path): the two differ
    only in some size-1 dims' strides (``t + 1`` of a (1, 5) tensor with strides (1, 1)), which place those dims in
    the sort of either."""
    rng = random.Random(77)

    def operand(L, device, shape, perm, step, keep):
        base = L.empty(*[shape[d] * step[d] for d in perm], device=device) if device == "meta" else \
            L.zeros(*[shape[d] * step[d] for d in perm])
        inv = sorted(range(len(perm)), key=perm.__getitem__)
        x = base.permute(*inv)[tuple(slice(None, None, s) for s in step)]
        return x[tuple(slice(None) if k else slice(0, 1) for k in keep)]

    for _ in range(150):
        shape = [rng.choice([1, 2, 3]) for _ in range(rng.randint(2, 4))]
        specs = []
        for _ in range(2):
            perm = list(range(len(shape)))
            rng.shuffle(perm)
            specs.append((perm, [rng.choice([1, 1, 2]) for _ in shape], [rng.random() < 0.8 for _ in shape]))
        seen = {}
        for L in (torch, tinytorch):
            for device in ("cpu", "meta"):
                a, b = (operand(L, device, shape, *spec) for spec in specs)
                seen[L, device] = [(tuple(y.shape), tuple(y.stride())) for y in (
                    a + b, b - a, a * 2, L.where(a > 0, a, b), L.where(a > 0, a, 0.0), a.exp(), a < b)]
        assert seen[tinytorch, "cpu"] == seen[torch, "cpu"], (shape, specs)
        assert seen[tinytorch, "meta"] == seen[torch, "meta"], (shape, specs)


def test_size1_dims_meta_strides_as_pytorch(torch):
    """Size-1 dims' strides of meta results as PyTorch's: elementwise results of permuted inputs with size-1 dims
    (placed by the sort: C-ordered inputs but for them give C order's own strides there), keepdim reductions,
    unsqueeze/expand views and matrix products whose inner size is 1 (an outer product, C-ordered)."""
    def cases(L):
        def E(shape, perm):
            inv = sorted(range(len(perm)), key=perm.__getitem__)
            return L.empty([shape[d] for d in perm], device="meta").permute(*inv)
        out = []
        for shape, perm in [((1, 3, 4), (2, 1, 0)), ((3, 1, 4), (1, 0, 2)), ((3, 4, 1), (0, 2, 1)),
                            ((2, 1, 3, 1), (0, 2, 3, 1)), ((3, 1), (1, 0))]:
            a = E(shape, perm)
            out += [-a, a + 1, a + a, a + L.empty(shape[-1], device="meta"), L.where(a > 0, a, 0.0),
                    a.sum(-1, keepdim=True), a.amax(0, keepdim=True), a.unsqueeze(1), a.unsqueeze(0).expand(2, *shape),
                    a @ L.empty(shape[-1], 1, device="meta"), a.mT @ L.empty(shape[-2], 2, device="meta")]
        return [(tuple(t.shape), t.stride()) for t in out]
    assert cases(tinytorch) == cases(torch)
