"""torch.jit.trace / script / save / load against PyTorch: the same numbers as eager, PyTorch's warnings and
errors where tinytorch gives the same, tinytorch's own refusals where it cannot follow. The comparisons take
PyTorch from the ``torch`` fixture (they skip without it); tinytorch's own checks run everywhere."""
import io
import warnings

import numpy as np
import pytest

import tinytorch as tt

pytestmark = pytest.mark.filterwarnings("ignore::DeprecationWarning")


def _model(lib):
    lib.manual_seed(0)

    class M(lib.nn.Module):
        def __init__(self):
            super().__init__()
            self.conv = lib.nn.Conv2d(1, 2, 3)
            self.bn = lib.nn.BatchNorm2d(2)
            self.fc = lib.nn.Linear(8, 3)

        def forward(self, x):
            y = lib.relu(self.bn(self.conv(x)))
            return self.fc(y.flatten(1)), y.mean()
    return M()


def _pair(torch, train: bool):
    m, ref = _model(tt), _model(torch)
    ref.load_state_dict({k: torch.tensor(v.numpy()) for k, v in m.state_dict().items()})
    return (m.train(train), ref.train(train))


@pytest.mark.parametrize("train", [False, True])
def test_trace_module_runs_pytorchs_numbers(train, torch):
    m, ref = _pair(torch, train)
    x = np.random.default_rng(0).standard_normal((2, 1, 4, 4)).astype(np.float32)
    traced = tt.jit.trace(m, tt.tensor(x))
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        rtraced = torch.jit.trace(ref, torch.tensor(x), check_trace=False)
    x2 = np.random.default_rng(1).standard_normal((5, 1, 4, 4)).astype(np.float32)
    for a, b in zip(traced(tt.tensor(x2)), rtraced(torch.tensor(x2))):
        np.testing.assert_allclose(a.detach().numpy(), b.detach().numpy(), rtol=1e-5, atol=1e-6)
    assert list(traced.state_dict()) == list(rtraced.state_dict())
    assert repr(traced) == repr(rtraced)
    assert traced.conv.weight is m.conv.weight
    assert isinstance(traced, tt.jit.ScriptModule) and type(traced).__name__ == type(rtraced).__name__


def test_trace_graph_and_code_are_torchscript():
    """(compared with PyTorch's text in test_jit_ir_print.py)"""
    traced = tt.jit.trace(tt.nn.Linear(3, 2), tt.ones(1, 3))
    assert "return torch.linear(input, weight, bias)" in traced.code
    assert traced.code.startswith("def forward(self,\n    input: Tensor) -> Tensor:")
    assert "= aten::linear(%input, %weight, %bias)" in str(traced.graph)
    bound = tt.jit.trace(tt.nn.Linear(3, 2).forward, tt.ones(1, 3))
    assert type(bound).__name__ == "TopLevelTracedModule" and repr(bound) == "Linear(original_name=Linear)"
    fn = tt.jit.trace(lambda x: x * 2, tt.ones(2))
    assert fn.name == "_lambda" and "torch.mul(x, CONSTANTS.c0)" in fn.code


def _warnings(lib, fn, *args, **kwargs):
    with warnings.catch_warnings(record=True) as w:
        warnings.simplefilter("always")
        warnings.simplefilter("ignore", DeprecationWarning)
        out = lib.jit.trace(fn, *args, **kwargs)
    return out, [(x.category.__name__, str(x.message), x.filename, x.lineno) for x in w
                 if x.category.__name__ == "TracerWarning"]


@pytest.mark.parametrize("body", [lambda x: x + x.sum().item(), lambda x: x + int(x.sum()),
                                  lambda x: x + float(x.sum()), lambda x: x + x.tolist()[0],
                                  lambda x: x + 1 if x.sum() > 0 else x - 1])
def test_tracer_warning_as_pytorchs(body, torch):
    traced, ours = _warnings(tt, body, tt.ones(2))
    _, theirs = _warnings(torch, body, torch.ones(2), check_trace=False)
    assert ours == theirs and ours


def test_data_dependent_trace_freezes_branch_like_pytorch(torch):
    def f(x):
        if x.sum() > 0:
            return x + 1
        return x - 1
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        ours = tt.jit.trace(f, tt.ones(2))
        theirs = torch.jit.trace(f, torch.ones(2), check_trace=False)
    assert ours(-tt.ones(2)).tolist() == theirs(-torch.ones(2)).tolist() == [0.0, 0.0]
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        with pytest.raises(tt.jit.TracingCheckError, match="Graphs differed across invocations"):
            tt.jit.trace(f, tt.ones(2), check_inputs=[(-tt.ones(2),)])
        with pytest.raises(torch.jit.TracingCheckError, match="Graphs differed across invocations"):
            torch.jit.trace(f, torch.ones(2), check_inputs=[(-torch.ones(2),)])


def test_errors_as_pytorchs(torch):
    def same(fn_tt, fn_torch):
        with pytest.raises(RuntimeError) as a:
            fn_tt()
        with warnings.catch_warnings():
            warnings.simplefilter("ignore")
            with pytest.raises(RuntimeError) as b:
                fn_torch()
        assert str(a.value) == str(b.value)
    same(lambda: tt.jit.trace(lambda x, n: x * n, (tt.ones(2), 3)),
         lambda: torch.jit.trace(lambda x, n: x * n, (torch.ones(2), 3)))
    same(lambda: tt.jit.trace(lambda x: 3, (tt.ones(2),)), lambda: torch.jit.trace(lambda x: 3, (torch.ones(2),)))
    same(lambda: tt.jit.trace(lambda x: {"a": x}, (tt.ones(2),)),
         lambda: torch.jit.trace(lambda x: {"a": x}, (torch.ones(2),)))
    same(lambda: tt.jit.trace(lambda x: (x, {"a": x}), (tt.ones(2),)),
         lambda: torch.jit.trace(lambda x: (x, {"a": x}), (torch.ones(2),)))
    same(lambda: tt.jit.trace(lambda x: [{"a": x}], (tt.ones(2),)),
         lambda: torch.jit.trace(lambda x: [{"a": x}], (torch.ones(2),)))
    assert [t.tolist() for t in tt.jit.trace(lambda x: [x, x * 2], tt.ones(1))(tt.ones(1))] == [[1.0], [2.0]]
    assert tt.jit.trace(lambda x: {"a": x}, tt.ones(1), strict=False)(tt.ones(1))["a"].tolist() == [1.0]
    fn = tt.jit.trace(lambda x: x * 2, tt.ones(2))
    with pytest.raises(RuntimeError, match=r"_lambda\(\) expected at most 1 argument\(s\) but received 2"):
        fn(tt.ones(2), tt.ones(2))


def test_sizes_read_refuse_other_shapes():
    traced = tt.jit.trace(lambda x: x.view(x.size(0), -1) * 2, tt.ones(2, 3, 2))
    assert traced(tt.ones(2, 3, 2)).shape == (2, 6)
    with pytest.raises(RuntimeError, match="read their sizes in Python"):
        traced(tt.ones(4, 3, 2))
    plain = tt.jit.trace(lambda x: x.flatten(1) * 2, tt.ones(2, 3, 2))
    assert plain(tt.ones(4, 3, 2)).shape == (4, 6)


def test_script_function_and_module(torch):
    def g(x, n: int):
        return x * x.size(0) + n
    sg = tt.jit.script(g)
    rg = torch.jit.script(g)
    for shape, n in (((3,), 1), ((5,), 2)):
        assert sg(tt.ones(shape), n).tolist() == rg(torch.ones(shape), n).tolist()
    for what in ("code", "graph"):  # an int parameter is outside what tinytorch prints as TorchScript (_script_ir)
        with pytest.raises(NotImplementedError, match="the parameter n annotated int"):
            getattr(sg, what)
    m, ref = _pair(torch, False)
    s = tt.jit.script(m)
    rs = torch.jit.script(ref)
    x = np.random.default_rng(2).standard_normal((3, 1, 4, 4)).astype(np.float32)
    for a, b in zip(s(tt.tensor(x)), rs(torch.tensor(x))):
        np.testing.assert_allclose(a.detach().numpy(), b.detach().numpy(), rtol=1e-5, atol=1e-6)
    assert list(s.state_dict()) == list(rs.state_dict())
    s.train()  # the training flag reaches the original and is part of the traces' key
    assert m.training and s(tt.tensor(x))[0].shape == (3, 3)


def test_script_refuses_data_dependent_flow(torch):
    def f(x):
        if x.sum() > 0:
            return x + 1
        return x - 1
    assert torch.jit.script(f)(-torch.ones(2)).tolist() == [-2.0, -2.0]  # PyTorch compiles it
    sf = tt.jit.script(f)
    with pytest.raises(RuntimeError, match="tinytorch.jit.script cannot compile f: it converts a tensor to a "
                                           "Python boolean"):
        sf(-tt.ones(2))


def test_save_load_round_trip(tmp_path):
    m = _model(tt).eval()
    x = tt.randn(2, 1, 4, 4)
    traced = tt.jit.trace(m, x)
    tt.jit.save(traced, tmp_path / "m.pt")
    loaded = tt.jit.load(tmp_path / "m.pt")
    for a, b in zip(loaded(x), m(x)):
        assert a.tolist() == b.tolist()
    assert list(loaded.state_dict()) == list(m.state_dict()) and repr(loaded) == repr(traced)
    with pytest.raises(NotImplementedError, match="a loaded program"):
        _ = loaded.code  # (tinytorch's file keeps no names to print TorchScript with)
    c = tt.tensor([1.0, 2.0])
    fn = tt.jit.trace(lambda x: (x * c, x.relu()), tt.ones(2))
    buf = io.BytesIO()
    fn.save(buf)
    buf.seek(0)
    back = tt.jit.load(buf)
    assert [t.tolist() for t in back(-tt.ones(2))] == [[-1.0, -2.0], [0.0, 0.0]]
    with pytest.raises(RuntimeError, match="scripted one is traced again"):
        tt.jit.save(tt.jit.script(m), io.BytesIO())


def test_decorators_and_flags_keep_working():
    seen = []

    def f(x):
        seen.append(tt.jit.is_tracing())
        return x + 1
    tt.jit.trace(f, tt.ones(1))
    assert seen == [True] and not tt.jit.is_tracing() and not tt.jit.is_scripting()
    assert tt.jit.ignore(f) is f and tt.jit.unused(f) is f and tt.jit.export(f) is f


def test_is_tracing_only_under_jit_trace_as_pytorchs(torch):
    # torch.compile's and torch.export's captures share jit.trace's watch on tensor reads, not its answer here
    def seen_by(lib):
        seen = []

        def f(x):
            seen.append(lib.jit.is_tracing())
            return x * 2

        class M(lib.nn.Module):
            def forward(self, x):
                return f(x)
        with warnings.catch_warnings():
            warnings.simplefilter("ignore")
            lib.compile(f, backend="eager")(lib.ones(2))
            lib.export.export(M(), (lib.ones(2),))
            lib.jit.trace(f, lib.ones(2), check_trace=False)
        return seen
    assert seen_by(tt) == seen_by(torch)


def test_backward_in_another_thread_is_not_captured():
    # the capture watches the engine in its own thread only: the other thread's backward runs as eager's, and the
    # capture's graph holds none of its ops
    import threading

    from tinytorch.fx.experimental.proxy_tensor import make_fx

    w = tt.tensor([1.0, 2.0], requires_grad=True)
    seen = {}

    def elsewhere():
        (w * w).sum().backward()
        seen["grad"] = w.grad.clone()

    def f(x):
        worker = threading.Thread(target=elsewhere)
        worker.start()
        worker.join()
        return x * 3

    gm = make_fx(f)(tt.ones(2))
    assert [str(n.target) for n in gm.graph.nodes if n.op == "call_function"] == ["aten.mul.Tensor"]
    assert seen["grad"].tolist() == [2.0, 4.0]


def test_traced_module_backward_as_eager(torch):
    m, ref = _pair(torch, True)
    x = np.random.default_rng(3).standard_normal((2, 1, 4, 4)).astype(np.float32)
    traced = tt.jit.trace(m, tt.tensor(x))
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        rtraced = torch.jit.trace(ref, torch.tensor(x), check_trace=False)
    out, rout = traced(tt.tensor(x)), rtraced(torch.tensor(x))
    (out[0].sum() + out[1]).backward()
    (rout[0].sum() + rout[1]).backward()
    for (name, p), rp in zip(m.named_parameters(), ref.parameters()):
        np.testing.assert_allclose(p.grad.numpy(), rp.grad.numpy(), rtol=1e-4, atol=1e-5, err_msg=name)
    # the running statistics move as the eager module's do
    np.testing.assert_allclose(m.bn.running_mean.numpy(), ref.bn.running_mean.numpy(), rtol=1e-5, atol=1e-6)


def test_indexing_and_unseen_paths():
    def f(x):
        y = x[:, 1:] * 2
        y[0] = 0.0
        return y
    traced = tt.jit.trace(f, tt.ones(2, 3))
    x = tt.arange(6.0).reshape(2, 3)
    assert traced(x).tolist() == f(x).tolist() == [[0.0, 0.0], [8.0, 10.0]]
    buf = io.BytesIO()
    tt.jit.save(traced, buf)
    buf.seek(0)
    assert tt.jit.load(buf)(x).tolist() == f(x).tolist()
    gru = tt.nn.GRU(4, 3, batch_first=True)  # its layers run below the ops the capture records
    with pytest.raises(RuntimeError, match="a tensor computed during the trace .* reached the graph as a constant"):
        tt.jit.trace(gru, tt.randn(2, 3, 4))
    with tt.no_grad(), pytest.warns(tt.jit.TracerWarning, match="a tensor made during the trace outside the ops"):
        tt.jit.trace(gru, tt.randn(2, 3, 4))
    # a float32 LSTM's layers are recorded as PyTorch's oneDNN operators: the trace runs them at other inputs
    lstm = tt.nn.LSTM(4, 3, batch_first=True)
    traced = tt.jit.trace(lstm, tt.randn(2, 3, 4))
    x = tt.randn(2, 3, 4)
    for got, want in zip(tt.utils._pytree.tree_leaves(traced(x)), tt.utils._pytree.tree_leaves(lstm(x))):
        assert tt.equal(got, want)
