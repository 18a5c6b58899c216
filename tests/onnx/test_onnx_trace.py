"""tinytorch.onnx.export records through the registry's per-thread dispatch: nothing in any tinytorch
module changes during an export, another thread's ops are not recorded, and the spellings that the
patching used to catch (parameters on the left, their methods, in-place ops) are still recorded."""
import sys
import threading

import numpy as np
import pytest

onnx = pytest.importorskip("onnx")
ort = pytest.importorskip("onnxruntime")

import tinytorch  # noqa: E402
from tinytorch import nn  # noqa: E402
from tinytorch.nn import functional as F  # noqa: E402


def _snapshot():
    mods = {name: dict(vars(m)) for name, m in list(sys.modules.items())
            if m is not None and (name == "tinytorch" or name.startswith("tinytorch."))}
    classes = {c: dict(vars(c)) for c in (tinytorch.Tensor, nn.Parameter, nn.Module)}
    return mods, classes


def _changes(before):
    mods, classes = before
    changed = []
    for name, attrs in mods.items():
        now = vars(sys.modules[name])
        changed += [f"{name}.{k}" for k, v in attrs.items() if now.get(k, object()) is not v]
    for c, attrs in classes.items():
        now = vars(c)
        changed += [f"{c.__name__}.{k}" for k, v in attrs.items() if now.get(k, object()) is not v]
        changed += [f"{c.__name__}.{k} (new)" for k in now if k not in attrs]
    return changed


def _run(proto, **feed):
    sess = ort.InferenceSession(proto.SerializeToString(), providers=["CPUExecutionProvider"])
    return sess.run(None, {k: v.numpy() for k, v in feed.items()})


class Probe(nn.Module):
    """Looks at the process from inside its forward while an export records it."""

    def __init__(self, inside):
        super().__init__()
        self.fc = nn.Linear(4, 4)
        self.inside = inside

    def forward(self, x):
        h = F.relu(self.fc(x)) + x * 2
        self.inside(self)
        return tinytorch.tanh(h).sum(1)


def test_no_module_attribute_changes_during_export():
    tinytorch.onnx.export(Probe(lambda m: None), (tinytorch.randn(2, 4),), None)  # the exporter loaded once
    seen = {}

    def inside(model):
        seen["changed"] = _changes(before)
        seen["exporting"] = tinytorch.onnx.is_in_onnx_export()

    before = _snapshot()
    proto = tinytorch.onnx.export(Probe(inside), (tinytorch.randn(2, 4),), None)
    assert seen == {"changed": [], "exporting": True}
    assert _changes(before) == [] and not tinytorch.onnx.is_in_onnx_export()
    assert [n.op_type for n in proto.graph.node] == ["Gemm", "Relu", "Mul", "Add", "Tanh", "ReduceSum", "Identity"]


def test_another_thread_is_not_recorded():
    tinytorch.manual_seed(0)
    other = {}

    def work(model):
        a = tinytorch.randn(2, 4, requires_grad=True)
        w = model.fc.weight  # the model's own parameter, read by another thread
        out = [tinytorch.add(a, 1), a * 3, F.relu(a), a.exp().sum(), a @ w.t(), F.linear(a, w), model.fc(a)]
        other["types"] = {type(t) for t in out} | {type(w)}
        other["exporting"] = tinytorch.onnx.is_in_onnx_export()
        other["values"] = (out[4].detach().numpy(), (a.detach().numpy() @ w.detach().numpy().T))

    def inside(model):
        t = threading.Thread(target=work, args=(model,))
        t.start()
        t.join()  # the export is half-way through its forward while the other thread runs

    model = Probe(inside)
    x = tinytorch.randn(3, 4)
    proto = tinytorch.onnx.export(model, (x,), None)
    plain = tinytorch.onnx.export(Probe(lambda m: None), (x,), None)
    assert len(proto.graph.node) == len(plain.graph.node) == 7
    assert other["types"] == {tinytorch.Tensor, nn.Parameter} and other["exporting"] is False
    np.testing.assert_allclose(*other["values"], rtol=1e-6)
    with tinytorch.no_grad():
        want = model(x)
    np.testing.assert_allclose(_run(proto, x=x)[0], want.numpy(), rtol=1e-5, atol=1e-6)


def test_two_threads_export_at_once():
    tinytorch.manual_seed(1)
    barrier = threading.Barrier(2)
    exporting = [True]  # both forwards meet half-way while both threads export

    def inside(model):
        if exporting[0]:
            barrier.wait(timeout=30)

    models = [Probe(inside), Probe(inside)]
    x = tinytorch.randn(2, 4)
    protos = [None, None]

    def export(i):
        protos[i] = tinytorch.onnx.export(models[i], (x,), None)

    threads = [threading.Thread(target=export, args=(i,)) for i in range(2)]
    for t in threads:
        t.start()
    for t in threads:
        t.join()
    exporting[0] = False
    for proto, model in zip(protos, models):
        assert len(proto.graph.node) == 7
        with tinytorch.no_grad():
            np.testing.assert_allclose(_run(proto, x=x)[0], model(x).numpy(), rtol=1e-5, atol=1e-6)


class ParamsAndInplace(nn.Module):
    def __init__(self):
        super().__init__()
        self.w = nn.Parameter(tinytorch.randn(4, 4))
        self.scale = nn.Parameter(tinytorch.rand(4) + 0.5)
        self.register_buffer("shift", tinytorch.randn(4))

    def forward(self, x):
        assert isinstance(self.w, nn.Parameter)  # still a parameter to the forward
        h = self.scale * x - self.shift          # a parameter and a buffer on the left
        h = h @ self.w.t()                        # a method of a parameter
        h += x                                    # in place: the tensor then holds the sum
        h.relu_()
        F.relu(h, inplace=True)
        return 1 - h.exp().neg()


def test_parameters_on_the_left_their_methods_and_inplace_ops():
    tinytorch.manual_seed(2)
    model = ParamsAndInplace()
    x = tinytorch.randn(3, 4)
    proto = tinytorch.onnx.export(model, (x,), None, dynamic_axes={"x": {0: "batch"}})
    names = {i.name for i in proto.graph.initializer}
    assert {"w", "scale", "shift"} <= names
    assert [n.op_type for n in proto.graph.node] == ["Mul", "Sub", "Transpose", "MatMul", "Add", "Relu", "Relu", "Exp",
                                                     "Neg", "Sub", "Identity"]
    for batch in (3, 5):
        xb = tinytorch.randn(batch, 4)
        with tinytorch.no_grad():
            want = model(xb)
        np.testing.assert_allclose(_run(proto, x=xb)[0], want.numpy(), rtol=1e-5, atol=1e-6)
    assert type(model.w) is nn.Parameter and type(model.shift) is tinytorch.Tensor


def test_unrecordable_inplace_op_is_a_clear_error():
    class Odd(nn.Module):
        def forward(self, x):
            y = x * 1
            y.cumsum_(0)
            return y

    with pytest.raises(tinytorch.onnx.OnnxExporterError, match="in-place Tensor.cumsum_"):
        tinytorch.onnx.export(Odd(), (tinytorch.randn(2, 3),), None)
    assert not tinytorch.onnx.is_in_onnx_export()
