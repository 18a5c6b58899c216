"""tinytorch.onnx.export of the recurrent modules (ONNX RNN/LSTM/GRU nodes, PyTorch's gates reordered)
and of the Transformer encoder family (MultiheadAttention expanded to MatMul/Softmax): onnx.checker
passes and onnxruntime reproduces tinytorch's outputs, at other batch sizes and sequence lengths too."""
import io

import numpy as np
import pytest

onnx = pytest.importorskip("onnx")
ort = pytest.importorskip("onnxruntime")

import tinytorch  # noqa: E402
from tinytorch import nn  # noqa: E402
from tinytorch.nn import functional as F  # noqa: E402


def _export(model, args, **kw):
    buf = io.BytesIO()
    tinytorch.onnx.export(model, args, buf, **kw)
    proto = onnx.load_from_string(buf.getvalue())
    onnx.checker.check_model(proto, full_check=True)
    return proto, ort.InferenceSession(buf.getvalue(), providers=["CPUExecutionProvider"])


def _flat(x):
    if isinstance(x, (tuple, list)):
        return [t for i in x for t in _flat(i)]
    return [x]


def _check(sess, model, names, inputs, rtol=1e-4, atol=1e-5):
    with tinytorch.no_grad():
        want = _flat(model(*inputs))
    got = sess.run(None, {n: t.numpy() for n, t in zip(names, inputs)})
    assert len(got) == len(want)
    for g, w in zip(got, want):
        assert g.shape == tuple(w.shape)
        np.testing.assert_allclose(g, w.numpy(), rtol=rtol, atol=atol)


class Recurrent(nn.Module):
    def __init__(self, rnn, with_state):
        super().__init__()
        self.rnn, self.with_state = rnn, with_state

    def forward(self, x, *state):
        if not self.with_state:
            return self.rnn(x)
        return self.rnn(x, (state[0], state[1]) if isinstance(self.rnn, nn.LSTM) else state[0])


CASES = [
    ("LSTM", dict(num_layers=2, batch_first=True), True),
    ("LSTM", dict(bidirectional=True), False),
    ("LSTM", dict(num_layers=2, bidirectional=True, bias=False, batch_first=True), True),
    ("GRU", dict(num_layers=2, batch_first=True), True),
    ("GRU", dict(bidirectional=True), False),
    ("RNN", dict(nonlinearity="relu", num_layers=2), True),
    ("RNN", dict(bidirectional=True, batch_first=True), False),
]


@pytest.mark.parametrize("kind,kw,with_state", CASES)
def test_recurrent_modules(kind, kw, with_state):
    tinytorch.manual_seed(0)
    rnn = getattr(nn, kind)(5, 6, **kw)
    model = Recurrent(rnn, with_state)
    layers = rnn.num_layers * (2 if rnn.bidirectional else 1)
    bf = rnn.batch_first

    def inputs(batch, seq):
        x = tinytorch.randn(batch, seq, 5) if bf else tinytorch.randn(seq, batch, 5)
        if not with_state:
            return (x,)
        state = [tinytorch.randn(layers, batch, 6) for _ in range(2 if kind == "LSTM" else 1)]
        return (x, *state)

    names = ["x", "h0", "c0"][:len(inputs(1, 1))]
    outs = ["y", "h_n", "c_n"][:3 if kind == "LSTM" else 2]
    batch_axis = 0 if bf else 1
    dyn = {"x": {batch_axis: "batch", 1 - batch_axis: "seq"}, "y": {batch_axis: "batch", 1 - batch_axis: "seq"}}
    for n in names[1:] + outs[1:]:
        dyn[n] = {1: "batch"}
    proto, sess = _export(model, inputs(3, 4), input_names=names, output_names=outs, dynamic_axes=dyn)
    onnx_op = {"LSTM": "LSTM", "GRU": "GRU", "RNN": "RNN"}[kind]
    assert sum(n.op_type == onnx_op for n in proto.graph.node) == rnn.num_layers
    for batch, seq in ((3, 4), (2, 7), (5, 1)):
        _check(sess, model, names, inputs(batch, seq))


def test_unbatched_lstm_and_gru():
    tinytorch.manual_seed(1)
    for rnn, state in ((nn.LSTM(3, 4, num_layers=2), 2), (nn.GRU(3, 4, bidirectional=True), 1)):
        layers = rnn.num_layers * (2 if rnn.bidirectional else 1)
        model = Recurrent(rnn, True)
        args = (tinytorch.randn(6, 3), *[tinytorch.randn(layers, 4) for _ in range(state)])
        names = ["x", "h0", "c0"][:len(args)]
        proto, sess = _export(model, args, input_names=names)
        _check(sess, model, names, args)


def test_lstm_with_proj_size_is_a_clear_error():
    with pytest.raises(tinytorch.onnx.OnnxExporterError, match="proj_size"):
        tinytorch.onnx.export(nn.LSTM(3, 4, proj_size=2), (tinytorch.randn(2, 1, 3),), None)


class Encoder(nn.Module):
    def __init__(self, batch_first, norm_first, activation, causal):
        super().__init__()
        layer = nn.TransformerEncoderLayer(16, 4, dim_feedforward=32, dropout=0.1, activation=activation,
                                           batch_first=batch_first, norm_first=norm_first)
        self.encoder = nn.TransformerEncoder(layer, 2, norm=nn.LayerNorm(16), enable_nested_tensor=False)
        self.head = nn.Linear(16, 3)
        self.causal, self.batch_first = causal, batch_first

    def forward(self, x):
        mask = None
        if self.causal:
            seq = x.size(1 if self.batch_first else 0)
            mask = nn.Transformer.generate_square_subsequent_mask(seq)
        return self.head(self.encoder(x, mask=mask))


@pytest.mark.parametrize("batch_first,norm_first,activation", [(True, False, "relu"), (False, True, "gelu")])
def test_transformer_encoder(batch_first, norm_first, activation):
    tinytorch.manual_seed(2)
    model = Encoder(batch_first, norm_first, activation, causal=False)
    model.train()  # exported in eval mode, as PyTorch does
    ax = {0: "batch", 1: "seq"} if batch_first else {1: "batch", 0: "seq"}
    x = tinytorch.randn(2, 5, 16) if batch_first else tinytorch.randn(5, 2, 16)
    proto, sess = _export(model, (x,), input_names=["x"], output_names=["y"], dynamic_axes={"x": ax, "y": ax})
    assert model.training
    ops = {n.op_type for n in proto.graph.node}
    assert {"MatMul", "Softmax", "LayerNormalization"} <= ops and "Dropout" not in ops
    model.eval()
    for shape in ((2, 5), (3, 8), (1, 1)):
        b, s = shape
        xs = tinytorch.randn(b, s, 16) if batch_first else tinytorch.randn(s, b, 16)
        _check(sess, model, ["x"], (xs,))


def test_transformer_encoder_with_causal_mask_fixed_length():
    tinytorch.manual_seed(3)
    model = Encoder(True, False, "relu", causal=True).eval()
    x = tinytorch.randn(2, 6, 16)
    proto, sess = _export(model, (x,), input_names=["x"], dynamic_axes={"x": {0: "batch"}})
    for b in (2, 4):
        _check(sess, model, ["x"], (tinytorch.randn(b, 6, 16),))


class Attention(nn.Module):
    def __init__(self, **kw):
        super().__init__()
        self.attn = nn.MultiheadAttention(8, 2, **kw)

    def forward(self, q, kv, mask):
        return self.attn(q, kv, kv, attn_mask=mask)


@pytest.mark.parametrize("kw", [dict(batch_first=True), dict(kdim=5, vdim=5, bias=False)])
def test_multihead_attention_with_weights_and_a_float_mask_input(kw):
    tinytorch.manual_seed(4)
    model = Attention(**kw).eval()
    kdim = kw.get("kdim", 8)
    bf = kw.get("batch_first", False)

    def inputs(b, tgt, src):
        shape = (lambda s, e: (b, s, e)) if bf else (lambda s, e: (s, b, e))
        return tinytorch.randn(*shape(tgt, 8)), tinytorch.randn(*shape(src, kdim)), tinytorch.randn(tgt, src)

    proto, sess = _export(model, inputs(2, 3, 4), input_names=["q", "kv", "mask"], output_names=["out", "weights"])
    _check(sess, model, ["q", "kv", "mask"], inputs(2, 3, 4))


def test_encoder_with_a_key_padding_mask_input():
    # a bool mask given as an input is recorded (Where), not folded as the traced mask's values
    tinytorch.manual_seed(5)
    layer = nn.TransformerEncoderLayer(8, 2, 16, batch_first=True)
    model = nn.TransformerEncoder(layer, 2, enable_nested_tensor=False).eval()
    x = tinytorch.randn(2, 4, 8)
    pad = tinytorch.tensor([[False, False, True, True], [False] * 4])
    proto, sess = _export(model, (x, None, pad), input_names=["x", "pad"],
                          dynamic_axes={"x": {0: "b", 1: "s"}, "pad": {0: "b", 1: "s"}})
    assert [i.name for i in proto.graph.input] == ["x", "pad"]
    for mask in ([[False] * 4, [False, True, True, True]], [[False] * 5, [False] * 3 + [True] * 2] * 2):
        m = tinytorch.tensor(mask)
        xs = tinytorch.randn(m.shape[0], m.shape[1], 8)
        with tinytorch.no_grad():
            want = model(xs, src_key_padding_mask=m)
        got = sess.run(None, {"x": xs.numpy(), "pad": m.numpy()})[0]
        np.testing.assert_allclose(got, want.numpy(), rtol=1e-4, atol=1e-5)


def test_an_unrecorded_op_on_an_integer_input_is_not_folded():
    class Odd(nn.Module):
        def forward(self, x, tokens):
            return x * tokens.cumsum(0)  # cumsum has no converter: its result must not become a constant

    with pytest.raises(tinytorch.onnx.OnnxExporterError, match="cumsum"):
        tinytorch.onnx.export(Odd(), (tinytorch.randn(3), tinytorch.tensor([1, 2, 3])), None)


class LastStep(nn.Module):
    """The usual sequence classifier: the LSTM's last time step, a few basic indexings on the way."""

    def __init__(self):
        super().__init__()
        self.lstm = nn.LSTM(4, 6, batch_first=True, num_layers=2)
        self.fc = nn.Linear(6, 3)

    def forward(self, x):
        out, (h, c) = self.lstm(x)
        last = out[:, -1]                       # (batch, hidden)
        first = out[:, 0, None, ::2][..., None]  # (batch, 1, 3, 1)
        return self.fc(last) + first.sum() + h[-1, :, 1:4].mean() + c[1][:, None].sum()


def test_lstm_last_step_with_basic_indexing():
    tinytorch.manual_seed(6)
    model = LastStep().eval()
    proto, sess = _export(model, (tinytorch.randn(2, 5, 4),), input_names=["x"],
                          dynamic_axes={"x": {0: "batch", 1: "seq"}})
    for shape in ((2, 5), (3, 9)):
        _check(sess, model, ["x"], (tinytorch.randn(*shape, 4),))


def test_indexing_with_a_tensor_is_a_clear_error():
    class Odd(nn.Module):
        def forward(self, x):
            return x[tinytorch.tensor([0, 2])]

    with pytest.raises(tinytorch.onnx.OnnxExporterError, match="basic indexing"):
        tinytorch.onnx.export(Odd(), (tinytorch.randn(3, 2),), None)


class HandWrittenAttention(nn.Module):
    """Attention as people write it: a fused projection, heads by view/transpose, sdpa, casts."""

    def __init__(self, causal):
        super().__init__()
        self.qkv, self.out, self.causal = nn.Linear(8, 24), nn.Linear(8, 8), causal

    def forward(self, x, keep):
        b, t, _ = x.shape
        q, k, v = (y.reshape(b, t, 2, 4).transpose(1, 2) for y in (self.qkv(x)[..., :8], self.qkv(x)[..., 8:16],
                                                                  self.qkv(x)[..., 16:]))
        mask = None if self.causal else keep[:, None, None, :]
        h = F.scaled_dot_product_attention(q, k, v, attn_mask=mask, is_causal=self.causal)
        h = h.transpose(1, 2).reshape(b, t, 8)
        return self.out(h) * keep.float()[..., None]


@pytest.mark.parametrize("causal", [False, True])
def test_scaled_dot_product_attention_and_casts(causal):
    tinytorch.manual_seed(7)
    model = HandWrittenAttention(causal).eval()

    def inputs(b, t):
        keep = tinytorch.ones(b, t, dtype=tinytorch.bool)
        keep[0, -1] = False
        return tinytorch.randn(b, t, 8), keep

    dyn = {"x": {0: "b"}, "keep": {0: "b"}} if causal else {"x": {0: "b", 1: "t"}, "keep": {0: "b", 1: "t"}}
    proto, sess = _export(model, inputs(2, 5), input_names=["x", "keep"], dynamic_axes=dyn)
    for b, t in ((2, 5), (3, 5)) if causal else ((2, 5), (3, 7)):
        _check(sess, model, ["x", "keep"], inputs(b, t))
