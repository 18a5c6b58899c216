"""nn.Transformer and its layers against PyTorch: initialisation (same seed, same parameters bit for bit),
print(model), eval- and train-mode outputs (dropout on PyTorch's stream), every gradient, masks of every
kind, the nested-tensor padding of TransformerEncoder, state_dict both ways, gradcheck."""
import warnings

import numpy as np
import pytest

import tinytorch as tt

import _paths

from _layer_compare import rand

D, NH, FF, S, T, N = 8, 2, 16, 5, 4, 3
TOL = {np.float32: dict(rtol=1e-4, atol=1e-5), np.float64: dict(rtol=1e-9, atol=1e-10)}


def _np(t):
    return t.detach().numpy()


def _close(a, b, dtype):
    np.testing.assert_allclose(_np(a) if hasattr(a, "detach") else a, _np(b) if hasattr(b, "detach") else b,
                               **TOL[np.dtype(dtype).type])


def _activation(lib, name):
    return {"relu": lib.nn.functional.relu, "gelu_str": "gelu", "gelu_mod": lib.nn.GELU(),
            "tanh": lib.tanh}[name]


def _build(lib, kind, seed=0, dtype=np.float32, **kw):
    lib.manual_seed(seed)
    if "activation" in kw:
        kw = dict(kw, activation=_activation(lib, kw["activation"]))
    dt = lib.float64 if dtype == np.float64 else lib.float32
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        if kind == "encoder_layer":
            return lib.nn.TransformerEncoderLayer(D, NH, FF, dtype=dt, **kw)
        if kind == "decoder_layer":
            return lib.nn.TransformerDecoderLayer(D, NH, FF, dtype=dt, **kw)
        if kind == "encoder":
            norm = kw.pop("final_norm", False)
            extra = {k: kw.pop(k) for k in ("enable_nested_tensor", "mask_check") if k in kw}
            layer = lib.nn.TransformerEncoderLayer(D, NH, FF, dtype=dt, **kw)
            return lib.nn.TransformerEncoder(layer, 2, lib.nn.LayerNorm(D, dtype=dt) if norm else None, **extra)
        if kind == "decoder":
            layer = lib.nn.TransformerDecoderLayer(D, NH, FF, dtype=dt, **kw)
            return lib.nn.TransformerDecoder(layer, 2, lib.nn.LayerNorm(D, dtype=dt))
        return lib.nn.Transformer(D, NH, 2, 2, FF, dtype=dt, **kw)


def _masks(lib, spec, dtype, batch_first):
    """Call keywords from a spec: 'src_mask=float', 'tgt_mask=causal', 'src_key_padding_mask=bool', ..."""
    out = {}
    for item in spec:
        name, kind = item.split("=")
        if kind in ("True", "False"):
            out[name] = kind == "True"
            continue
        rows = T if name.startswith(("tgt", "memory")) else S
        cols = T if name.startswith("tgt") else S
        if name.endswith("key_padding_mask"):
            m = np.zeros((N, cols), dtype=bool)
            m[1, -2:] = True
            m[2, -1] = True
            out[name] = lib.tensor(m if kind == "bool" else np.where(m, -np.inf, 0).astype(dtype))
        elif kind == "causal":
            out[name] = lib.tensor(np.triu(np.full((rows, cols), -np.inf, dtype), 1))
        elif kind == "bool":
            m = np.random.default_rng(3).random((rows, cols)) > 0.7
            m[:, 0] = False
            out[name] = lib.tensor(m)
        else:
            out[name] = lib.tensor(rand((rows, cols), 4, dtype))
    return out


def _run(lib, kind, build_kw, call_spec, dtype, train, seed=0, backward=True):
    mod = _build(lib, kind, seed, dtype, **build_kw)
    mod.train(train)
    bf = build_kw.get("batch_first", False)
    shape = (lambda n: (N, n, D)) if bf else (lambda n: (n, N, D))
    src = lib.tensor(rand(shape(S), 1, dtype), requires_grad=backward)
    tgt = lib.tensor(rand(shape(T), 2, dtype), requires_grad=backward)
    kw = _masks(lib, call_spec, dtype, bf)
    lib.manual_seed(seed + 100)
    if kind in ("encoder_layer", "encoder"):
        out, inputs = mod(src, **kw), [src]
    elif kind in ("decoder_layer", "decoder"):
        out, inputs = mod(tgt, src, **kw), [tgt, src]
    else:
        out, inputs = mod(src, tgt, **kw), [src, tgt]
    grads = {}
    if backward:
        (out * lib.tensor(rand(tuple(out.shape), 5, dtype))).sum().backward()
        grads = {n: p.grad for n, p in mod.named_parameters()}
        grads.update({f"input{i}": t.grad for i, t in enumerate(inputs)})
    return mod, out, grads


CASES = [
    ("encoder_layer", {}, []),
    ("encoder_layer", dict(norm_first=True), []),
    ("encoder_layer", dict(activation="gelu_str", batch_first=True), ["src_mask=float"]),
    ("encoder_layer", dict(activation="gelu_mod", bias=False), ["src_key_padding_mask=bool"]),
    ("encoder_layer", dict(activation="tanh", layer_norm_eps=1e-3), ["src_mask=causal", "is_causal=True"]),
    ("encoder_layer", dict(batch_first=True), ["src_mask=bool", "src_key_padding_mask=bool"]),
    ("decoder_layer", {}, ["tgt_mask=causal", "memory_key_padding_mask=bool"]),
    ("decoder_layer", dict(norm_first=True, batch_first=True, activation="gelu_str"),
     ["tgt_mask=causal", "tgt_is_causal=True", "memory_mask=float", "tgt_key_padding_mask=float"]),
    ("decoder_layer", dict(bias=False, activation="gelu_mod"), ["memory_mask=bool"]),
    ("encoder", dict(final_norm=True), ["mask=causal"]),
    ("encoder", dict(batch_first=True), ["src_key_padding_mask=bool"]),
    ("encoder", dict(batch_first=True, norm_first=True), ["src_key_padding_mask=float", "mask=float"]),
    ("decoder", {}, ["tgt_mask=causal", "memory_key_padding_mask=bool"]),
    ("transformer", {}, ["tgt_mask=causal"]),
    ("transformer", dict(batch_first=True, norm_first=True, activation="gelu_str"),
     ["src_key_padding_mask=bool", "tgt_mask=causal", "tgt_key_padding_mask=bool", "memory_key_padding_mask=bool"]),
    ("transformer", dict(bias=False, layer_norm_eps=1e-4), ["src_mask=float", "memory_mask=bool"]),
]


def _id(case):
    kind, kw, spec = case
    return "-".join([kind] + [f"{k}={v}" for k, v in kw.items()] + spec)


@pytest.mark.parametrize("dtype", [np.float32, np.float64])
@pytest.mark.parametrize("train", [False, True], ids=["eval", "train"])
@pytest.mark.parametrize("case", CASES, ids=[_id(c) for c in CASES])
def test_matches_pytorch(torch, case, train, dtype):
    """Same seed: same parameters bit for bit and the same repr; outputs and every parameter's and input's
    gradient agree, in eval mode and in train mode with dropout drawn from PyTorch's stream."""
    kind, build_kw, spec = case
    ours, y, g = _run(tt, kind, build_kw, spec, dtype, train)
    theirs, ty, tg = _run(torch, kind, build_kw, spec, dtype, train)
    assert repr(ours) == repr(theirs)
    sd, tsd = ours.state_dict(), theirs.state_dict()
    assert list(sd) == list(tsd)
    for k in sd:  # bit for bit on PyTorch's FMA paths (_paths.assert_drawn)
        _paths.assert_drawn(sd[k], tsd[k], what=k)
    _close(y, ty, dtype)
    assert sorted(g) == sorted(tg)
    for k in g:
        assert (g[k] is None) == (tg[k] is None), k
        if g[k] is not None:
            _close(g[k], tg[k], dtype)


@pytest.mark.parametrize("spec", [["src_key_padding_mask=bool"], ["src_key_padding_mask=float"]])
def test_encoder_nested_tensor_padding_is_zero_in_eval(torch, spec):
    """PyTorch packs a padded batch into a nested tensor when it can (eval, batch_first, no grad wanted)
    and pads the output back with zeros; the final norm then sees those zeros."""
    outs = []
    for lib in (tt, torch):
        with lib.no_grad():
            _, y, _ = _run(lib, "encoder", dict(batch_first=True, final_norm=True), spec, np.float32, False,
                           backward=False)
        outs.append(y)
    _close(outs[0], outs[1], np.float32)
    # and the padded rows are really PyTorch's zeros-then-norm, not ordinary outputs
    with tt.no_grad():
        _, plain, _ = _run(tt, "encoder", dict(batch_first=True, final_norm=True, enable_nested_tensor=False), spec,
                           np.float32, False, backward=False)
    assert not np.allclose(_np(plain)[1, -1], _np(outs[0])[1, -1])
    _close(plain[0], outs[0][0], np.float32)


def test_encoder_nested_tensor_warning(torch):
    for kw in (dict(), dict(batch_first=True, norm_first=True), dict(batch_first=True, bias=False),
               dict(batch_first=True, activation="tanh"), dict(batch_first=True, layer_norm_eps=1e-3)):
        messages = []
        for lib in (tt, torch):
            kw_lib = dict(kw, activation=_activation(lib, kw["activation"])) if "activation" in kw else kw
            layer = lib.nn.TransformerEncoderLayer(D, NH, FF, **kw_lib)
            with warnings.catch_warnings(record=True) as w:
                warnings.simplefilter("always")
                enc = lib.nn.TransformerEncoder(layer, 2)
            messages.append(([str(x.message) for x in w], enc.use_nested_tensor))
        assert messages[0] == messages[1]


def test_generate_square_subsequent_mask(torch):
    for sz in (1, 4):
        a, b = tt.nn.Transformer.generate_square_subsequent_mask(sz), torch.nn.Transformer.generate_square_subsequent_mask(sz)
        assert np.array_equal(_np(a), _np(b)) and str(a.dtype).replace("tinytorch", "torch") == str(b.dtype)
    m = tt.nn.Transformer.generate_square_subsequent_mask(3, dtype=tt.float64)
    assert m.dtype == tt.float64


def test_state_dict_round_trip_both_ways(torch):
    ours, theirs = _build(tt, "transformer", seed=1), _build(torch, "transformer", seed=2)
    ours.load_state_dict({k: tt.tensor(_np(v)) for k, v in theirs.state_dict().items()})
    for k, v in ours.state_dict().items():
        assert np.array_equal(_np(v), _np(theirs.state_dict()[k]))
    fresh = _build(torch, "transformer", seed=3)
    fresh.load_state_dict({k: torch.tensor(_np(v)) for k, v in ours.state_dict().items()})
    ours.eval()
    fresh.eval()
    src, tgt = rand((S, N, D), 1, np.float32), rand((T, N, D), 2, np.float32)
    with tt.no_grad(), torch.no_grad():
        _close(ours(tt.tensor(src), tt.tensor(tgt)), fresh(torch.tensor(src), torch.tensor(tgt)), np.float32)


def test_errors(torch):
    for lib in (tt, torch):
        with pytest.raises(RuntimeError, match="activation should be relu/gelu, not tanh"):
            lib.nn.TransformerEncoderLayer(D, NH, activation="tanh")
        with warnings.catch_warnings():
            warnings.simplefilter("ignore")
            model = lib.nn.Transformer(D, NH, 1, 1, FF)
        with pytest.raises(RuntimeError, match="the batch number of src and tgt must be equal"):
            model(lib.zeros(S, 2, D), lib.zeros(T, 3, D))
        with pytest.raises(RuntimeError, match="the feature number of src and tgt must be equal to d_model"):
            model(lib.zeros(S, 2, D + 1), lib.zeros(T, 2, D + 1))


def test_gradcheck_small_layers():
    tt.manual_seed(0)
    enc = tt.nn.TransformerEncoderLayer(4, 2, 6, dropout=0.0, dtype=tt.float64)
    dec = tt.nn.TransformerDecoderLayer(4, 2, 6, dropout=0.0, norm_first=True, activation="gelu", dtype=tt.float64)
    src = tt.tensor(rand((3, 1, 4), 1), requires_grad=True)
    tgt = tt.tensor(rand((2, 1, 4), 2), requires_grad=True)
    mask = tt.nn.Transformer.generate_square_subsequent_mask(2, dtype=tt.float64)
    assert tt.autograd.gradcheck(lambda s: enc(s), (src,))
    assert tt.autograd.gradcheck(lambda t, s: dec(t, s, tgt_mask=mask), (tgt, src))
    assert tt.autograd.gradgradcheck(lambda s: enc(s), (src,))


def test_module_homes():
    assert tt.nn.Transformer.__module__ == "tinytorch.nn.modules.transformer"
    assert tt.nn.TransformerEncoderLayer.__module__ == "tinytorch.nn.modules.transformer"
    from tinytorch.nn.modules import normalization
    assert normalization.RMSNorm is tt.nn.RMSNorm


@pytest.mark.parametrize("kw", [dict(), dict(activation="gelu_str", norm_first=True), dict(bias=False)])
def test_encoder_layer_eval_rows_that_see_nothing(torch, kw):
    """Eval without gradients: PyTorch's fused encoder layer gives NaN at a query that every mask hides
    (a fully padded sequence, a fully masked row), its composite path (bias=False here) gives numbers."""
    x = rand((3, 5, D), 1, np.float32)
    pad = np.zeros((3, 5), dtype=bool)
    pad[1, -2:] = True
    pad[2] = True
    rows = np.zeros((5, 5), dtype=bool)
    rows[3] = True
    outs = []
    for lib in (tt, torch):
        layer = _build(lib, "encoder_layer", batch_first=True, **kw).eval()
        with lib.no_grad():
            outs.append(_np(layer(lib.tensor(x), src_mask=lib.tensor(rows), src_key_padding_mask=lib.tensor(pad))))
    assert np.array_equal(np.isnan(outs[0]), np.isnan(outs[1]))
    assert np.isnan(outs[1]).any() == (kw.get("bias", True))
    np.testing.assert_allclose(np.nan_to_num(outs[0]), np.nan_to_num(outs[1]), **TOL[np.float32])
