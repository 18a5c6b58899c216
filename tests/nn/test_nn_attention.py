"""scaled_dot_product_attention, rms_norm/RMSNorm, MultiheadAttention and Embedding's options against
PyTorch: values, grad_fn names, every input's and parameter's gradient, random streams, init, errors."""
import numpy as np
import pytest

import tinytorch as tt

import _paths

from _layer_compare import compare, rand

TOL = {np.float32: dict(rtol=3e-5, atol=3e-5), np.float64: dict(rtol=1e-10, atol=1e-10)}


def _close(a, b, dtype=np.float64):
    a = a.detach().numpy() if hasattr(a, "detach") else a
    b = b.detach().numpy() if hasattr(b, "detach") else b
    np.testing.assert_allclose(a, b, **TOL[np.dtype(dtype).type], equal_nan=True)


# -- scaled_dot_product_attention ------------------------------------------------------------------
def _bool(shape, seed):
    m = np.random.default_rng(seed).random(shape) > 0.4
    m[..., 0] = True  # every query sees a key (fully masked rows are a case of their own)
    return m


SDPA_CASES = {
    "plain": ((2, 3, 5, 8), (2, 3, 6, 8), (2, 3, 6, 8), {}),
    "causal": ((2, 3, 5, 8), (2, 3, 5, 8), (2, 3, 5, 8), dict(is_causal=True)),
    "causal_rect": ((1, 2, 4, 8), (1, 2, 6, 8), (1, 2, 6, 8), dict(is_causal=True)),
    "scale": ((2, 2, 4, 8), (2, 2, 4, 8), (2, 2, 4, 8), dict(scale=0.37)),
    "bool_mask": ((2, 3, 5, 8), (2, 3, 6, 8), (2, 3, 6, 8), dict(bool_mask=(5, 6))),
    "bool_mask_4d": ((2, 3, 5, 8), (2, 3, 6, 8), (2, 3, 6, 8), dict(bool_mask=(2, 1, 5, 6))),
    "float_mask": ((2, 3, 5, 8), (2, 3, 6, 8), (2, 3, 6, 8), dict(float_mask=(5, 6))),
    "float_mask_bcast": ((2, 3, 5, 8), (2, 3, 6, 8), (2, 3, 6, 8), dict(float_mask=(2, 1, 1, 6))),
    "gqa": ((2, 4, 5, 8), (2, 2, 6, 8), (2, 2, 6, 8), dict(enable_gqa=True)),
    "gqa_causal": ((1, 6, 5, 4), (1, 2, 5, 4), (1, 2, 5, 4), dict(enable_gqa=True, is_causal=True)),
    "value_dim": ((2, 2, 5, 8), (2, 2, 6, 8), (2, 2, 6, 3), {}),
    "3d": ((3, 5, 8), (3, 6, 8), (3, 6, 8), {}),
    "3d_mask": ((3, 5, 8), (3, 6, 8), (3, 6, 8), dict(float_mask=(5, 6))),
    "5d": ((2, 2, 2, 4, 8), (2, 2, 2, 4, 8), (2, 2, 2, 4, 8), dict(is_causal=True)),
    "2d": ((5, 8), (6, 8), (6, 8), {}),
    "bcast_batch": ((2, 3, 5, 8), (1, 3, 6, 8), (1, 3, 6, 8), {}),
}


def _sdpa_args(case, dtype):
    qs, ks, vs, opts = SDPA_CASES[case]
    arrays = [rand(qs, 1, dtype), rand(ks, 2, dtype), rand(vs, 3, dtype)]
    kw = {k: v for k, v in opts.items() if k not in ("bool_mask", "float_mask")}
    if "bool_mask" in opts:
        arrays.append(_bool(opts["bool_mask"], 4))
    if "float_mask" in opts:
        arrays.append(rand(opts["float_mask"], 5, dtype))
    return arrays, kw


@pytest.mark.parametrize("dtype", [np.float32, np.float64])
@pytest.mark.parametrize("case", sorted(SDPA_CASES))
def test_sdpa_matches_pytorch(torch, case, dtype):
    """Output, grad_fn name (flash kernel or the math composite's last node) and the gradient of
    query, key, value and a float mask."""
    arrays, kw = _sdpa_args(case, dtype)

    def fn(lib, q, k, v, *mask):
        return lib.nn.functional.scaled_dot_product_attention(q, k, v, *mask, **kw)
    compare(torch, fn, arrays)


@pytest.mark.parametrize("case", ["plain", "float_mask", "gqa", "value_dim", "3d", "bool_mask_4d"])
def test_sdpa_double_backward_matches_pytorch(torch, case):
    """create_graph=True: the gradient is itself differentiable, and its gradients are PyTorch's math
    path's (PyTorch's flash kernel has no double backward: a known difference, tinytorch has one)."""
    arrays, kw = _sdpa_args(case, np.float64)
    results = []
    for lib in (tt, torch):
        ts = [lib.tensor(a, requires_grad=a.dtype.kind == "f") for a in arrays]
        if lib is tt:
            out = lib.nn.functional.scaled_dot_product_attention(*ts, **kw)
        else:
            mask = ts[3] if len(ts) > 3 else None
            if mask is not None and mask.dtype == torch.bool:  # the public function's conversion
                mask = torch.zeros(mask.shape, dtype=ts[0].dtype).masked_fill(~mask, float("-inf"))
            out = torch._scaled_dot_product_attention_math(*ts[:3], mask, 0.0,
                                                           kw.get("is_causal", False), None, scale=None,
                                                           enable_gqa=kw.get("enable_gqa", False))[0]
        g = lib.tensor(rand(tuple(out.shape), 9))
        diff = [t for t in ts if t.requires_grad]
        grads = lib.autograd.grad(out, diff, g, create_graph=True)
        total = sum((gr * lib.tensor(rand(tuple(gr.shape), 10 + i))).sum() for i, gr in enumerate(grads))
        results.append([gg.detach().numpy() for gg in lib.autograd.grad(total, diff)])
    for a, b in zip(*results):
        _close(a, b)


@pytest.mark.parametrize("case", ["plain", "float_mask", "gqa", "3d", "causal"])
def test_sdpa_gradcheck(case):
    arrays, kw = _sdpa_args(case, np.float64)
    shrink = [a[..., :3, :] if a.dtype.kind == "f" and a.ndim >= 2 and a.shape[-1] == 8 else a for a in arrays]
    ts = [tt.tensor(a, requires_grad=a.dtype.kind == "f") for a in (shrink if case != "float_mask" else arrays)]

    def fn(*xs):
        return tt.nn.functional.scaled_dot_product_attention(*xs, **kw)
    assert tt.autograd.gradcheck(fn, tuple(ts))
    assert tt.autograd.gradgradcheck(fn, tuple(ts))


@pytest.mark.parametrize("grad", [False, True])
def test_sdpa_dropout_uses_pytorchs_stream(torch, grad):
    arrays, _ = _sdpa_args("plain", np.float32)
    outs = []
    for lib in (tt, torch):
        lib.manual_seed(3)
        ts = [lib.tensor(a, requires_grad=grad) for a in arrays]
        out = lib.nn.functional.scaled_dot_product_attention(*ts, dropout_p=0.3)
        g = rand(tuple(out.shape), 5, np.float32)
        if grad:
            out.backward(lib.tensor(g))
            assert out.grad_fn.name() == "UnsafeViewBackward0"
        outs.append([out] + ([t.grad for t in ts] if grad else []))
    for a, b in zip(*outs):
        _close(a, b, np.float32)


# (query, key shapes, a float mask's shape or None, whether the query requires grad): PyTorch's math path
SDPA_KEY_LAYOUTS = [((4, 3, 8), (4, 6, 8), None, True), ((2, 4, 3, 8), (2, 4, 6, 8), (3, 6), True),
                    ((2, 4, 3, 8), (1, 4, 6, 8), (3, 6), True), ((2, 4, 3, 8), (4, 6, 8), (3, 6), True),
                    ((1, 3, 8), (4, 6, 8), None, True), ((1, 3, 8), (4, 6, 8), None, False),
                    ((4, 3, 8), (1, 6, 8), None, True), ((3, 8), (6, 8), None, True), ((4, 3, 8), (6, 8), None, True),
                    ((2, 4, 3, 8), (2, 2, 6, 8), (3, 6), True)]


@pytest.mark.parametrize("create_graph", [False, True])
def test_sdpa_key_gradient_layout(torch, create_graph):
    """The math path's key gradient is laid out as PyTorch's: a transpose where its matmul runs Q @ (Kᵀ·scale) as a
    bmm, C-ordered where it folds the product into an mm (2-d K, a 3-d batch of one) or repeats heads."""
    for qs, ks, ms, q_grad in SDPA_KEY_LAYOUTS:
        arrays = [rand(qs, 1, np.float32), rand(ks, 2, np.float32), rand(ks, 3, np.float32)]
        arrays += [rand(ms, 4, np.float32)] if ms else []
        gqa = len(ks) == 4 and ks[1] != qs[1]
        seen = []
        for lib in (torch, tt):
            ts = [lib.tensor(a, requires_grad=i > 0 or q_grad) for i, a in enumerate(arrays)]
            out = lib.nn.functional.scaled_dot_product_attention(*ts[:3], attn_mask=ts[3] if ms else None,
                                                                 enable_gqa=gqa)
            gk = lib.autograd.grad(out, ts[1], lib.ones_like(out), create_graph=create_graph)[0]
            seen.append((out.grad_fn.name(), [st for n, st in zip(gk.shape, gk.stride()) if n > 1]))
        assert seen[1] == seen[0], (qs, ks, ms, q_grad)


def test_sdpa_fully_masked_rows_give_zeros(torch):
    arrays, _ = _sdpa_args("plain", np.float64)
    mask = _bool((5, 6), 4)
    mask[2] = False

    def fn(lib, q, k, v, m):
        return lib.nn.functional.scaled_dot_product_attention(q, k, v, m)
    y, ty = compare(torch, fn, arrays + [mask])
    assert not np.isnan(y.detach().numpy()).any()


def test_sdpa_causal_and_mask(torch):
    """Flash-eligible inputs combine the two masks; PyTorch's math path refuses the pair."""
    arrays, _ = _sdpa_args("bool_mask", np.float64)

    def fn(lib, q, k, v, m):
        return lib.nn.functional.scaled_dot_product_attention(q, k[..., :5, :], v[..., :5, :], m[:, :5],
                                                               is_causal=True)
    compare(torch, fn, arrays)
    q = tt.tensor(rand((5, 8), 1))
    with pytest.raises(RuntimeError, match="Explicit attn_mask should not be set when is_causal=True"):
        tt.nn.functional.scaled_dot_product_attention(q, q, q, attn_mask=tt.ones(5, 5, dtype=tt.bool),
                                                      is_causal=True)


def test_sdpa_errors(torch):
    q = rand((1, 2, 3, 4), 0, np.float32)
    cases = [
        lambda lib: lib.nn.functional.scaled_dot_product_attention(lib.tensor(q), lib.tensor(q).double(),
                                                                   lib.tensor(q)),
        lambda lib: lib.nn.functional.scaled_dot_product_attention(lib.tensor(q), lib.tensor(q), lib.tensor(q),
                                                                   attn_mask=lib.ones(3, 3, dtype=lib.int64)),
        lambda lib: lib.nn.functional.scaled_dot_product_attention(lib.zeros(1, 4, 3, 4), lib.zeros(1, 3, 3, 4),
                                                                   lib.zeros(1, 3, 3, 4)),
    ]
    for case in cases:
        with pytest.raises(RuntimeError) as theirs:
            case(torch)
        with pytest.raises(RuntimeError) as ours:
            case(tt)
        assert str(ours.value) == str(theirs.value)


# -- rms_norm / RMSNorm ----------------------------------------------------------------------------
@pytest.mark.parametrize("dtype", [np.float32, np.float64])
@pytest.mark.parametrize("shape,norm,weight,eps", [((2, 3, 4), [4], True, None), ((2, 3, 4), [3, 4], False, 1e-3),
                                                   ((5,), [5], True, 1e-6)])
def test_rms_norm_matches_pytorch(torch, dtype, shape, norm, weight, eps):
    arrays = [rand(shape, 1, dtype)]
    if weight:
        arrays.append(rand(norm if isinstance(norm, list) else [norm], 2, dtype))

    def fn(lib, x, *w):
        return lib.rms_norm(x, norm, *(w or [None]), eps=eps)
    compare(torch, fn, arrays)

    def fn_f(lib, x, *w):
        return lib.nn.functional.rms_norm(x, norm, *(w or [None]), eps=eps)
    compare(torch, fn_f, arrays)


@pytest.mark.parametrize("dtype", ["float16", "bfloat16"])
def test_rms_norm_of_narrow_floats_computes_in_float(torch, dtype):
    """Half and bfloat16 are normalised in float32 with float32's epsilon (PyTorch's opmath type), then rounded
    back: small values, whose mean square is near the epsilon, show a wrong precision or epsilon."""
    x = rand((3, 8), 1) * 0.01
    got, want = (lib.nn.functional.rms_norm(lib.tensor(x).to(getattr(lib, dtype)), (8,)) for lib in (tt, torch))
    assert str(got.dtype) == str(want.dtype).replace("torch", "tinytorch")
    np.testing.assert_allclose(got.float().numpy(), want.float().numpy(), rtol=8e-3, atol=1e-3)


def test_rms_norm_gradcheck_and_errors(torch):
    x = tt.tensor(rand((2, 3), 1), requires_grad=True)
    w = tt.tensor(rand((3,), 2), requires_grad=True)
    assert tt.autograd.gradgradcheck(lambda a, b: tt.rms_norm(a, [3], b), (x, w))
    for args in (([4],), ([3], "w4")):
        msgs = []
        for lib in (tt, torch):
            extra = [lib.ones(4)] if len(args) > 1 else []
            with pytest.raises(RuntimeError) as e:
                lib.rms_norm(lib.zeros(2, 3), args[0], *extra)
            msgs.append(str(e.value))
        assert msgs[0] == msgs[1]


@pytest.mark.parametrize("kw", [dict(), dict(eps=1e-5, elementwise_affine=False)])
def test_rms_norm_module(torch, kw):
    ours, theirs = tt.nn.RMSNorm([3, 4], **kw), torch.nn.RMSNorm([3, 4], **kw)
    assert repr(ours) == repr(theirs)
    assert list(ours.state_dict()) == list(theirs.state_dict())
    x = rand((2, 3, 4), 3, np.float32)
    _close(ours(tt.tensor(x)), theirs(torch.tensor(x)), np.float32)


# -- MultiheadAttention ----------------------------------------------------------------------------
MHA_CASES = {
    "default": (dict(), {}),
    "batch_first": (dict(batch_first=True), {}),
    "kdim_vdim": (dict(kdim=5, vdim=3), {}),
    "no_bias": (dict(bias=False), {}),
    "bias_kv": (dict(add_bias_kv=True), {}),
    "zero_attn": (dict(add_zero_attn=True), dict(key_padding_mask="bool")),
    "bias_kv_zero_attn_masks": (dict(add_bias_kv=True, add_zero_attn=True), dict(key_padding_mask="bool",
                                                                                    attn_mask="float")),
    "per_head_weights": (dict(), dict(average_attn_weights=False)),
    "no_weights": (dict(), dict(need_weights=False)),
    "no_weights_masks": (dict(batch_first=True), dict(need_weights=False, key_padding_mask="bool",
                                                      attn_mask="bool")),
    "float_kpm": (dict(), dict(key_padding_mask="float")),
    "mask_3d": (dict(), dict(attn_mask="float3d")),
    "causal": (dict(), dict(attn_mask="causal", is_causal=True)),
    "causal_no_weights": (dict(), dict(attn_mask="causal", is_causal=True, need_weights=False)),
    "self_attention": (dict(batch_first=True), dict(same=True)),
    "unbatched": (dict(), dict(unbatched=True, key_padding_mask="bool")),
}

E, H, L, S, N = 8, 2, 4, 5, 3


def _mha_inputs(mod_kw, call_kw, dtype):
    kdim, vdim = mod_kw.get("kdim", E), mod_kw.get("vdim", E)
    unb = call_kw.get("unbatched")
    shape = (lambda n, d: (n, d)) if unb else ((lambda n, d: (N, n, d)) if mod_kw.get("batch_first")
                                                else (lambda n, d: (n, N, d)))
    s = L if call_kw.get("same") or call_kw.get("attn_mask") == "causal" else S
    arrays = {"query": rand(shape(L, E), 1, dtype), "key": rand(shape(s, kdim), 2, dtype),
              "value": rand(shape(s, vdim), 3, dtype)}
    kw = {k: v for k, v in call_kw.items() if k in ("need_weights", "average_attn_weights", "is_causal")}
    kpm, am = call_kw.get("key_padding_mask"), call_kw.get("attn_mask")
    pad = np.zeros((s,) if unb else (N, s), dtype=bool)
    pad[..., -1] = True
    if kpm == "bool":
        kw["key_padding_mask"] = pad
    elif kpm == "float":
        kw["key_padding_mask"] = np.where(pad, -1e9, rand(pad.shape, 4, dtype)).astype(dtype)
    if am == "float":
        kw["attn_mask"] = rand((L, s), 5, dtype)
    elif am == "bool":
        m = np.random.default_rng(6).random((L, s)) > 0.7
        m[:, 0] = False
        kw["attn_mask"] = m
    elif am == "float3d":
        kw["attn_mask"] = rand((N * H, L, s), 7, dtype)
    elif am == "causal":
        kw["attn_mask"] = np.triu(np.full((L, L), -np.inf, dtype), 1)
    return arrays, kw


def _run_mha(lib, mod_kw, call_kw, dtype, seed=0):
    lib.manual_seed(seed)
    mod = lib.nn.MultiheadAttention(E, H, **mod_kw, dtype=lib.float64 if dtype == np.float64 else lib.float32)
    arrays, kw = _mha_inputs(mod_kw, call_kw, dtype)
    ts = {k: lib.tensor(v, requires_grad=True) for k, v in arrays.items()}
    if call_kw.get("same"):
        ts["key"] = ts["value"] = ts["query"]
    kw = {k: lib.tensor(v) if isinstance(v, np.ndarray) else v for k, v in kw.items()}
    out, weights = mod(ts["query"], ts["key"], ts["value"], **kw)
    loss = (out * lib.tensor(rand(tuple(out.shape), 8, dtype))).sum()
    if weights is not None:
        loss = loss + (weights * lib.tensor(rand(tuple(weights.shape), 9, dtype))).sum()
    loss.backward()
    grads = {n: p.grad for n, p in mod.named_parameters()}
    grads.update({k: t.grad for k, t in ts.items() if k == "query" or not call_kw.get("same")})
    return mod, out, weights, grads


@pytest.mark.parametrize("dtype", [np.float32, np.float64])
@pytest.mark.parametrize("case", sorted(MHA_CASES))
def test_mha_matches_pytorch(torch, case, dtype):
    """Same seed: same parameters (names, order, values bit for bit); outputs, weights and the gradient
    of every parameter and input agree."""
    mod_kw, call_kw = MHA_CASES[case]
    ours, y, w, g = _run_mha(tt, mod_kw, call_kw, dtype)
    theirs, ty, tw, tg = _run_mha(torch, mod_kw, call_kw, dtype)
    assert repr(ours) == repr(theirs)
    sd, tsd = ours.state_dict(), theirs.state_dict()
    assert list(sd) == list(tsd)
    for k in sd:  # same seed, same draws: bit for bit (on PyTorch's FMA paths, _paths.assert_drawn)
        _paths.assert_drawn(sd[k], tsd[k], what=k)
    _close(y, ty, dtype)
    assert (w is None) == (tw is None)
    if w is not None:
        _close(w, tw, dtype)
    assert sorted(g) == sorted(tg)
    for k in g:
        _close(g[k], tg[k], dtype)


@pytest.mark.parametrize("mod_kw", [dict(), dict(kdim=5, vdim=3), dict(add_bias_kv=True), dict(bias=False)])
def test_mha_init_bit_for_bit_and_state_dict_round_trip(torch, mod_kw):
    tt.manual_seed(11)
    torch.manual_seed(11)
    ours, theirs = tt.nn.MultiheadAttention(E, H, **mod_kw), torch.nn.MultiheadAttention(E, H, **mod_kw)
    sd, tsd = ours.state_dict(), theirs.state_dict()
    assert list(sd) == list(tsd)
    for k in sd:
        _paths.assert_drawn(sd[k], tsd[k], what=k)
    # both ways: PyTorch's weights into tinytorch and back
    fresh, tfresh = tt.nn.MultiheadAttention(E, H, **mod_kw), torch.nn.MultiheadAttention(E, H, **mod_kw)
    fresh.load_state_dict({k: tt.tensor(v.numpy()) for k, v in tsd.items()})
    tfresh.load_state_dict({k: torch.tensor(v.numpy()) for k, v in fresh.state_dict().items()})
    for k, v in tfresh.state_dict().items():
        assert np.array_equal(v.numpy(), tsd[k].numpy())


def test_mha_dropout_stream(torch):
    outs = []
    for lib in (tt, torch):
        lib.manual_seed(0)
        mod = lib.nn.MultiheadAttention(E, H, dropout=0.3)
        arrays, _ = _mha_inputs({}, {}, np.float32)
        lib.manual_seed(5)
        y, w = mod(*(lib.tensor(arrays[k]) for k in ("query", "key", "value")))
        outs.append((y, w))
    _close(outs[0][0], outs[1][0], np.float32)
    _close(outs[0][1], outs[1][1], np.float32)


def test_mha_gradcheck():
    mod = tt.nn.MultiheadAttention(4, 2, add_bias_kv=True, dtype=tt.float64)
    q, k = (tt.tensor(rand((3, 2, 4), s), requires_grad=True) for s in (1, 2))
    kpm = tt.tensor(np.array([[False, False, True], [False, False, False]]))
    assert tt.autograd.gradcheck(lambda a, b: mod(a, b, b, key_padding_mask=kpm)[0], (q, k))
    assert tt.autograd.gradgradcheck(lambda a, b: mod(a, b, b, need_weights=False)[0], (q, k))


def test_mha_errors_and_warnings(torch):
    for lib in (tt, torch):
        with pytest.raises(AssertionError, match="embed_dim must be divisible by num_heads"):
            lib.nn.MultiheadAttention(6, 4)
        with pytest.raises(ValueError, match="embed_dim and num_heads must be greater than 0"):
            lib.nn.MultiheadAttention(0, 4)
        mod = lib.nn.MultiheadAttention(4, 2)
        x = lib.zeros(3, 2, 4)
        with pytest.raises(RuntimeError, match="Need attn_mask if specifying the is_causal hint"):
            mod(x, x, x, is_causal=True)
        with pytest.raises(AssertionError, match="only bool and floating types of key_padding_mask"):
            mod(x, x, x, key_padding_mask=lib.zeros(2, 3, dtype=lib.int64))
        with pytest.raises(RuntimeError, match=r"The shape of the 2D attn_mask is torch.Size\(\[2, 3\]\), but should "
                                               r"be \(3, 3\)."):
            mod(x, x, x, attn_mask=lib.zeros(2, 3))
        with pytest.warns(UserWarning, match="Support for mismatched key_padding_mask and attn_mask is deprecated"):
            mod(x, x, x, key_padding_mask=lib.zeros(2, 3, dtype=lib.bool), attn_mask=lib.zeros(3, 3))


def test_mha_module_home_and_functional(torch):
    from tinytorch.nn.modules import activation, linear
    assert tt.nn.MultiheadAttention.__module__ == "tinytorch.nn.modules.activation"
    assert activation.MultiheadAttention is tt.nn.MultiheadAttention
    assert type(tt.nn.MultiheadAttention(4, 2).out_proj) is linear.NonDynamicallyQuantizableLinear
    # F.multi_head_attention_forward called directly, with separate projection weights and static keys
    arrays = [rand((3, 2, 4), 1), rand((5, 2, 4), 2)]
    w = [rand((4, 4), 3 + i) for i in range(4)]
    outs = []
    for lib in (tt, torch):
        q, k = (lib.tensor(a) for a in arrays)
        wq, wk, wv, wo = (lib.tensor(a) for a in w)
        static = lib.tensor(rand((4, 6, 2), 9))
        outs.append(lib.nn.functional.multi_head_attention_forward(
            q, k, k, 4, 2, None, None, None, None, False, 0.0, wo, None, use_separate_proj_weight=True,
            q_proj_weight=wq, k_proj_weight=wk, v_proj_weight=wv, static_k=static, static_v=static))
    _close(outs[0][0], outs[1][0])
    _close(outs[0][1], outs[1][1])


# -- Embedding's options ---------------------------------------------------------------------------
@pytest.mark.parametrize("kw", [dict(max_norm=1.0), dict(max_norm=0.5, norm_type=1.0), dict(scale_grad_by_freq=True),
                                dict(padding_idx=2, scale_grad_by_freq=True), dict(sparse=False)])
def test_embedding_options(torch, kw):
    idx = np.array([[1, 2, 2], [4, 1, 1]])
    res = []
    for lib in (tt, torch):
        lib.manual_seed(0)
        emb = lib.nn.Embedding(6, 3, **kw)
        y = emb(lib.tensor(idx))
        (y * lib.tensor(rand(y.shape, 1, np.float32))).sum().backward()
        res.append((repr(emb), y.detach().numpy(), emb.weight.detach().numpy(), emb.weight.grad.numpy()))
    assert res[0][0] == res[1][0]
    for a, b in zip(res[0][1:], res[1][1:]):
        _close(a, b, np.float32)
