"""tinytorch.onnx.export: the quickstart MLP and the CNN (and a model using every recorded module and op)
exported, checked by onnx.checker, and run by onnxruntime to tinytorch's own outputs."""
import _repo
import importlib.util
import io
import os
import subprocess
import sys

import numpy as np
import pytest

onnx = pytest.importorskip("onnx")
ort = pytest.importorskip("onnxruntime")

import tinytorch  # noqa: E402
from tinytorch import nn  # noqa: E402
from tinytorch.nn import functional as F  # noqa: E402

ROOT = _repo.ROOT


def _script():
    # the script imports its sibling package fashion_mnist_job, found beside it as when it runs
    if ROOT not in sys.path:
        sys.path.insert(0, ROOT)
    spec = importlib.util.spec_from_file_location("train_fashion_mnist", os.path.join(ROOT, "train_fashion_mnist.py"))
    mod = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(mod)
    return mod


def _export(model, args, **kw):
    buf = io.BytesIO()
    tinytorch.onnx.export(model, args, buf, **kw)
    proto = onnx.load_from_string(buf.getvalue())
    onnx.checker.check_model(proto, full_check=True)
    return proto, ort.InferenceSession(buf.getvalue(), providers=["CPUExecutionProvider"])


def _expected(model, *inputs):
    model.eval()
    with tinytorch.no_grad():
        return model(*inputs).numpy()


def test_import_costs_nothing():
    # a plain import loads no exporter; tinytorch.onnx (loaded on first use) imports the onnx package only
    # when export is called
    code = ("import sys, tinytorch; print('tinytorch.onnx' in sys.modules); tinytorch.onnx.export; "
            "print('onnx' in sys.modules, 'onnxruntime' in sys.modules)")
    out = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, check=True).stdout
    assert out.split() == ["False", "False", "False"]


@pytest.mark.parametrize("kind", ["mlp", "cnn"])
def test_script_models_match_onnxruntime(kind, tmp_path):
    script = _script()
    tinytorch.manual_seed(0)
    model = script.MODELS[kind]()
    model.train()
    x = tinytorch.rand(2, 1, 28, 28)
    path = tmp_path / f"{kind}.onnx"
    tinytorch.onnx.export(model, (x,), str(path), input_names=["input"], output_names=["logits"],
                          dynamic_axes={"input": {0: "batch"}, "logits": {0: "batch"}})
    assert model.training and all(m.training for m in model.modules())  # the mode is put back
    proto = onnx.load(str(path))
    onnx.checker.check_model(proto, full_check=True)
    assert proto.opset_import[0].version == 20
    assert [i.name for i in proto.graph.input] == ["input"] and [o.name for o in proto.graph.output] == ["logits"]
    assert proto.graph.input[0].type.tensor_type.shape.dim[0].dim_param == "batch"
    weights = {i.name: onnx.numpy_helper.to_array(i) for i in proto.graph.initializer}
    for name, p in model.state_dict().items():
        np.testing.assert_array_equal(weights[name], p.numpy())
    sess = ort.InferenceSession(str(path), providers=["CPUExecutionProvider"])
    for batch in (2, 7):  # another batch size than the traced one
        xb = tinytorch.rand(batch, 1, 28, 28)
        got = sess.run(None, {"input": xb.numpy()})[0]
        np.testing.assert_allclose(got, _expected(model, xb), rtol=1e-5, atol=1e-5)
    ops = [n.op_type for n in proto.graph.node]
    if kind == "mlp":
        assert ops == ["Reshape", "Gemm", "Relu", "Gemm", "Relu", "Gemm", "Identity"]
    else:
        assert ops[:5] == ["Conv", "Relu", "Conv", "Relu", "MaxPool"] and "LogSoftmax" in ops


class Everything(nn.Module):
    """Every recorded module and the tensor ops forward code uses between them."""

    def __init__(self):
        super().__init__()
        self.conv = nn.Sequential(nn.Conv2d(3, 8, 3, padding=1), nn.BatchNorm2d(8), nn.GELU(), nn.MaxPool2d(2),
                                  nn.Conv2d(8, 8, 3, padding="same", groups=2), nn.Tanh(), nn.AvgPool2d(2),
                                  nn.AdaptiveAvgPool2d(1), nn.Flatten())
        self.conv1d = nn.Conv1d(4, 6, 3, stride=2)
        self.bn1 = nn.BatchNorm1d(6)
        self.emb = nn.Embedding(10, 8)
        self.norm = nn.LayerNorm(8)
        self.head = nn.Sequential(nn.Linear(16, 16), nn.LeakyReLU(0.2), nn.Dropout(0.3), nn.Linear(16, 5),
                                  nn.Sigmoid(), nn.SiLU(), nn.Softmax(dim=-1))
        self.proj = nn.Parameter(tinytorch.randn(6, 8))

    def forward(self, image, seq, tokens):
        a = self.conv(image)                                      # (N, 8)
        s = self.bn1(self.conv1d(seq)).mean(dim=2)                # (N, 6)
        b = F.relu(s) @ self.proj                                 # (N, 8)
        e = self.emb(tokens).sum(1) / 3                           # (N, 8)
        h = self.norm(a + 2 * b - e * 0.5)
        h = h.view(h.size(0), 2, 4).permute(0, 2, 1).reshape(-1, 8).t().transpose(0, 1)
        h = tinytorch.cat([h.unsqueeze(1).squeeze(1), -h], dim=1)                    # (N, 16)
        return F.log_softmax(self.head(h), dim=1) + tinytorch.flatten(h.unsqueeze(2), 1).sum(1, keepdim=True)


def test_every_recorded_module_and_op():
    tinytorch.manual_seed(0)
    model = Everything()
    for bn in (model.conv[1], model.bn1):  # running statistics away from 0 and 1
        bn.running_mean.copy_(tinytorch.randn(bn.num_features))
        bn.running_var.copy_(tinytorch.rand(bn.num_features) + 0.5)
    inputs = (tinytorch.randn(3, 3, 8, 8), tinytorch.randn(3, 4, 9), tinytorch.tensor([[1, 2, 3]] * 3))
    proto, sess = _export(model, inputs, input_names=["image", "seq", "tokens"])
    feed = dict(zip(["image", "seq", "tokens"], [t.numpy() for t in inputs]))
    np.testing.assert_allclose(sess.run(None, feed)[0], _expected(model, *inputs), rtol=1e-4, atol=1e-5)
    ops = {n.op_type for n in proto.graph.node}
    assert {"BatchNormalization", "Gelu", "LayerNormalization", "Gather", "GlobalAveragePool", "AveragePool",
            "MatMul", "Transpose", "Concat", "Unsqueeze", "Squeeze", "ReduceMean", "ReduceSum", "LeakyRelu", "Softmax", "LogSoftmax"} <= ops
    assert "proj" in {i.name for i in proto.graph.initializer}


def test_older_opset_decomposes_gelu():
    tinytorch.manual_seed(1)
    model = nn.Sequential(nn.Linear(4, 4), nn.GELU(), nn.Linear(4, 3), nn.GELU(approximate="tanh"))
    x = tinytorch.randn(5, 4)
    proto, sess = _export(model, (x,), opset_version=17)
    assert "Gelu" not in {n.op_type for n in proto.graph.node} and proto.opset_import[0].version == 17
    np.testing.assert_allclose(sess.run(None, {"input": x.numpy()})[0], _expected(model, x), rtol=1e-5, atol=1e-6)


def test_unrecorded_op_is_a_clear_error():
    class Odd(nn.Module):
        def __init__(self):
            super().__init__()
            self.fc = nn.Linear(3, 3)

        def forward(self, x):
            return self.fc(x).cumsum(1)  # not recorded: must not be baked in as a constant

    before = (tinytorch.flatten, tinytorch.Tensor.__add__, F.relu)
    with pytest.raises(tinytorch.onnx.OnnxExporterError, match="CumsumBackward0"):
        tinytorch.onnx.export(nn.Sequential(Odd(), nn.ReLU()), (tinytorch.randn(2, 3),), None)
    # the patched spellings are put back after an export, even a failed one
    assert (tinytorch.flatten, tinytorch.Tensor.__add__, F.relu) == before


def test_missing_onnx_is_a_clear_error(monkeypatch):
    monkeypatch.setitem(sys.modules, "onnx", None)
    with pytest.raises(ImportError, match="pip install onnx"):
        tinytorch.onnx.export(nn.Linear(2, 2), (tinytorch.randn(1, 2),), None)


def test_constants_made_in_forward_are_folded_and_returns_proto():
    class WithConstant(nn.Module):
        def forward(self, x):
            return x * tinytorch.arange(4.0) + tinytorch.ones(4)

    x = tinytorch.randn(2, 4)
    proto = tinytorch.onnx.export(WithConstant(), x, None)
    assert isinstance(proto, onnx.ModelProto) and proto.graph.input[0].name == "x"
    sess = ort.InferenceSession(proto.SerializeToString(), providers=["CPUExecutionProvider"])
    np.testing.assert_allclose(sess.run(None, {"x": x.numpy()})[0], (x * tinytorch.arange(4.0) + 1).numpy())


def test_residual_shared_module_two_outputs_and_a_new_batch():
    class Residual(nn.Module):
        def __init__(self):
            super().__init__()
            self.fc, self.out = nn.Linear(8, 8), nn.Linear(8, 2)

        def forward(self, x):
            h = x.view(x.size(0), -1)          # the batch size read in forward stays dynamic
            h = h + self.fc(h).relu()
            h = self.fc(h) * h                 # one module called twice
            return self.out(h), h.mean()

    tinytorch.manual_seed(3)
    model = Residual()
    proto = tinytorch.onnx.export(model, (tinytorch.randn(3, 2, 4),), None, output_names=["y", "m"],
                                  dynamic_axes={"x": [0], "y": [0]})
    assert proto.graph.input[0].type.tensor_type.shape.dim[0].dim_param == "x_dynamic_axes_1"
    sess = ort.InferenceSession(proto.SerializeToString(), providers=["CPUExecutionProvider"])
    x = tinytorch.randn(6, 2, 4)
    with tinytorch.no_grad():
        want = model(x)
    for got, w in zip(sess.run(None, {"x": x.numpy()}), want):
        np.testing.assert_allclose(got, w.numpy(), rtol=1e-5, atol=1e-6)
    assert sum(n.op_type == "Gemm" for n in proto.graph.node) == 3
    assert tinytorch.onnx.is_in_onnx_export() is False
