"""torch.compile against PyTorch 2.13: what a program prints (grad_fn names, OptimizedModule, state_dict keys),
when a graph is captured again (guards, recompiles, their limit and its warning), graph breaks (the eager
fallback, fullgraph's error, explain), reset and disable. PyTorch runs with the ``aot_eager`` backend (no C
compiler needed), which gives its compiled autograd node as inductor does; a counting backend tells how many
graphs each side captured."""
import functools
import io
import logging
import re

import numpy as np
import pytest

import tinytorch as tt

pytestmark = pytest.mark.filterwarnings("ignore::DeprecationWarning")


@pytest.fixture(autouse=True)
def _fresh():
    tt._dynamo.reset()
    yield
    tt._dynamo.reset()


@pytest.fixture
def torch(torch):
    """PyTorch (or a skip: tests/conftest.py's fixture), its captured graphs reset around the test as tinytorch's."""
    torch._dynamo.reset()
    yield torch
    torch._dynamo.reset()


class Counter:
    """A backend that counts the graphs it is given (and, in PyTorch, runs them as they are)."""

    def __init__(self):
        self.graphs = 0

    def __call__(self, gm, example_inputs):
        self.graphs += 1
        return gm.forward


def _tensor(lib, a, **kw):
    return lib.tensor(np.asarray(a, dtype=np.float32), **kw)


# -- the tutorial's program ------------------------------------------------------------------------------------
def foo(x, y):
    a = x.sin()
    b = y.cos()
    return a + b


def _tutorial(lib):
    out = io.StringIO()
    backend = "aot_eager" if lib is not tt else "inductor"
    opt_foo = lib.compile(foo, backend=backend)
    x = _tensor(lib, np.linspace(-1, 1, 10).reshape(2, 5), requires_grad=True)
    y = _tensor(lib, np.linspace(0, 2, 10).reshape(2, 5))
    r = opt_foo(x, y)
    print(type(opt_foo).__name__, opt_foo.__name__, type(r.grad_fn).__name__, file=out)
    print(np.round(r.detach().numpy(), 4).tolist(), file=out)

    lib.manual_seed(0)

    class MyModule(lib.nn.Module):
        def __init__(self):
            super().__init__()
            self.lin = lib.nn.Linear(5, 3)

        def forward(self, x):
            return lib.nn.functional.relu(self.lin(x))

    mod = MyModule()
    with lib.no_grad():
        mod.lin.weight.copy_(_tensor(lib, np.linspace(-0.5, 0.5, 15).reshape(3, 5)))
        mod.lin.bias.copy_(_tensor(lib, [0.1, -0.2, 0.3]))
    opt_mod = lib.compile(mod, backend=backend)
    print(type(opt_mod).__name__, opt_mod._orig_mod is mod, opt_mod.lin is mod.lin, file=out)
    print(opt_mod, file=out)
    print(list(opt_mod.state_dict().keys()), file=out)
    sgd = lib.optim.SGD(opt_mod.parameters(), lr=0.1)
    inp = _tensor(lib, np.linspace(-2, 2, 20).reshape(4, 5))
    target = _tensor(lib, np.linspace(0, 1, 12).reshape(4, 3))
    for _ in range(3):
        sgd.zero_grad()
        pred = opt_mod(inp)
        loss = lib.nn.functional.mse_loss(pred, target)
        loss.backward()
        sgd.step()
        print(type(pred.grad_fn).__name__, type(loss.grad_fn).__name__, round(float(loss), 5), file=out)
    print(np.round(mod.lin.weight.grad.numpy(), 5).tolist(), file=out)
    with lib.no_grad():
        print(opt_mod(inp).grad_fn, file=out)
    return out.getvalue()


def test_tutorial_program_prints_pytorchs_output(torch):
    assert _tutorial(tt) == _tutorial(torch)


def test_compiled_results_and_gradients_equal_eager():
    x = tt.randn(4, 5, requires_grad=True)
    y = tt.randn(4, 5, requires_grad=True)
    opt_foo = tt.compile(foo)
    for _ in range(2):  # the capturing call, then a replay
        r = opt_foo(x, y)
        (gx, gy) = tt.autograd.grad(r.sum(), (x, y))
        e = foo(x, y)
        (ex, ey) = tt.autograd.grad(e.sum(), (x, y))
        assert type(r.grad_fn).__name__ == "CompiledFunctionBackward" and type(e.grad_fn).__name__ == "AddBackward0"
        for a, b in ((r, e), (gx, ex), (gy, ey)):
            np.testing.assert_array_equal(a.detach().numpy(), b.detach().numpy())


# -- OptimizedModule --------------------------------------------------------------------------------------------
def _optimized(lib):
    lib.manual_seed(0)
    mod = lib.nn.Sequential(lib.nn.Linear(3, 4), lib.nn.BatchNorm1d(4))
    om = lib.compile(mod, backend="eager" if lib is not tt else "inductor")
    keys = list(om.state_dict().keys())
    om.load_state_dict(om.state_dict())
    om.eval()
    om.extra = 5  # set on the original
    return (type(om).__module__.split(".", 1)[1], type(om).__name__, repr(om), keys, om.training, mod.training,
            getattr(mod, "extra", None), [n for n, _ in om.named_parameters()], len(om),
            isinstance(om, lib.nn.Module))


def test_optimized_module_as_pytorchs(torch):
    assert _optimized(tt) == _optimized(torch)


def _module_compile_in_place(lib):
    """``mod.compile()`` (the compile tutorial's second form): the module stays itself and its calls are captured
    once; the results hang from the compiled node, training and eval each get a graph, and the results are the
    eager module's."""
    counter = Counter()
    lib.manual_seed(0)

    class Net(lib.nn.Module):
        def __init__(self):
            super().__init__()
            self.net = lib.nn.Sequential(lib.nn.Linear(4, 3), lib.nn.ReLU(), lib.nn.Linear(3, 2))

        def forward(self, x):
            return self.net(x)

    mod = Net()
    x = _tensor(lib, np.arange(8).reshape(2, 4) / 8 - 0.3)
    want = mod(x).detach().numpy().copy()
    assert mod.compile(backend=counter) is None
    out = mod(x)
    mod(x)
    with lib.no_grad():
        mod.eval()
        evaluated = mod(x)
    seen = [type(mod).__name__, list(mod.state_dict()), type(out.grad_fn).__name__, counter.graphs,
            bool(np.array_equal(out.detach().numpy(), want)), evaluated.grad_fn]
    out.sum().backward()
    seen.append(mod.net[0].weight.grad.shape == mod.net[0].weight.shape)
    aot = Net()
    aot.compile(backend="aot_eager")  # the compiled autograd node, as the default backend gives it
    seen.append(type(aot(x).grad_fn).__name__)
    # a copied (or pickled: its state) module leaves its compiled call behind
    import copy
    seen += [copy.deepcopy(aot)._compiled_call_impl, "_compiled_call_impl" in aot.__getstate__()]
    # a module whose forward is torch.nn's own: PyTorch's dynamo skips that code, so nothing is captured
    lib.manual_seed(0)
    library = lib.nn.Sequential(lib.nn.Linear(4, 3), lib.nn.ReLU())
    library.compile(backend=counter)
    seen += [type(library(x).grad_fn).__name__, counter.graphs]
    return seen


def test_module_compile_in_place_as_pytorchs(torch):
    got = _module_compile_in_place(tt)
    assert got == _module_compile_in_place(torch)
    assert got[3] == 2 and got[-5:] == ["CompiledFunctionBackward", None, False, "ReluBackward0", 2]  # (a backend that runs the graph: its ops' nodes)


# -- guards and recompiles --------------------------------------------------------------------------------------
def _recompiles(lib, dynamic):
    counter = Counter()

    def f(x, n):
        return x * n + 1

    cf = lib.compile(f, backend=counter, dynamic=dynamic)
    seen = []
    x = _tensor(lib, np.ones((2, 3)))
    for arg in (x, x, _tensor(lib, np.ones((2, 4))), _tensor(lib, np.ones((2, 5))), x.double(),
                _tensor(lib, np.ones((2, 3)), requires_grad=True), x[None]):
        cf(arg, 2)
        seen.append(counter.graphs)
    cf(x, 3)  # another int: specialised
    seen.append(counter.graphs)
    with lib.no_grad():
        cf(_tensor(lib, np.ones((2, 3)), requires_grad=True), 2)
    seen.append(counter.graphs)
    return seen


@pytest.mark.parametrize("dynamic", [False, None])
def test_guards_recompile_when_pytorchs_do(dynamic, torch):
    assert _recompiles(tt, dynamic) == _recompiles(torch, dynamic)


def _module_guards(lib):
    counter = Counter()
    lib.manual_seed(0)
    mod = lib.nn.Sequential(lib.nn.Linear(3, 3), lib.nn.Dropout(0.5))
    om = lib.compile(mod, backend=counter, dynamic=False)
    x = _tensor(lib, np.ones((2, 3)))
    seen = []
    om(x)
    seen.append(counter.graphs)
    om.eval()
    om(x)
    seen.append(counter.graphs)
    om(x)
    seen.append(counter.graphs)
    mod[0].weight = lib.nn.Parameter(mod[0].weight.detach().clone())  # another parameter object
    om(x)
    seen.append(counter.graphs)
    return seen


def test_module_guards_training_flag_and_parameter_identity(torch):
    assert _module_guards(tt) == _module_guards(torch)


def _submodule_assigned_anew(lib):
    mod = lib.nn.Sequential(lib.nn.Linear(2, 2), lib.nn.ReLU())
    om = lib.compile(mod, backend="aot_eager" if lib is not tt else "inductor")
    x = _tensor(lib, [[-1.0, -2.0]])
    for _ in range(3):
        om(x)
    seen = []
    mod[1] = lib.nn.Tanh()  # the graph replayed ReLU's ops: a recompile
    seen.append(np.round(om(x).detach().numpy(), 5).tolist() == np.round(mod(x).detach().numpy(), 5).tolist())
    mod.extra = lib.nn.Linear(2, 2)  # a child forward never calls
    seen.append(np.round(om(x).detach().numpy(), 5).tolist() == np.round(mod(x).detach().numpy(), 5).tolist())
    return seen


def test_a_submodule_assigned_anew_is_used_as_pytorchs(torch):
    assert _submodule_assigned_anew(tt) == _submodule_assigned_anew(torch) == [True, True]


def test_replay_reads_a_reassigned_parameter():
    lin = tt.nn.Linear(3, 2)
    om = tt.compile(lin)
    x = tt.ones(1, 3)
    om(x)
    lin.weight = tt.nn.Parameter(tt.zeros(2, 3))
    np.testing.assert_array_equal(om(x).detach().numpy(), lin(x).detach().numpy())


class _Records(logging.Handler):
    def __init__(self):
        super().__init__(logging.WARNING)
        self.messages = []

    def emit(self, record):
        self.messages.append(record.getMessage())


def _limit(lib):
    def h(x):
        return x * 2

    f = lib.compile(h, backend="eager", dynamic=False)
    logger = logging.getLogger(f"{lib.__name__}._dynamo.convert_frame")  # PyTorch's does not propagate to the root
    records = _Records()
    logger.addHandler(records)
    try:
        for n in range(1, 12):
            np.testing.assert_array_equal(f(lib.ones(n)).numpy(), np.full(n, 2, np.float32))
    finally:
        logger.removeHandler(records)
    return [m for m in records.messages if "recompile_limit" in m]


def test_recompile_limit_warns_as_pytorch_then_runs_eagerly(torch):
    ours, theirs = _limit(tt), _limit(torch)
    assert len(theirs) == 1 and ours == theirs
    assert tt._dynamo.config.recompile_limit == torch._dynamo.config.recompile_limit == 8
    tt._dynamo.config.cache_size_limit = 2  # PyTorch's older name of the same setting
    try:
        assert len(_limit(tt)) == 1 and tt._dynamo.config.limit() == 2
    finally:
        tt._dynamo.config.cache_size_limit = 8


# -- graph breaks -------------------------------------------------------------------------------------------------
def branchy(x):
    y = x.sin()
    if y.sum() > 0:
        return y * 2
    return y - 1


def test_data_dependent_branch_runs_eagerly(torch):
    for a in (np.ones(3), -np.ones(3), np.ones(3)):
        outs = []
        for lib in (tt, torch):
            f = lib.compile(branchy, backend="eager" if lib is not tt else "inductor")
            x = _tensor(lib, a, requires_grad=True)
            r = f(x)
            r.sum().backward()
            outs.append((r.detach().numpy(), x.grad.numpy()))
        np.testing.assert_allclose(outs[0][0], outs[1][0], rtol=1e-6)
        np.testing.assert_allclose(outs[0][1], outs[1][1], rtol=1e-6)


def _value_reads(lib):
    def uses_item(x):
        return x * x.sum().item()

    def uses_tolist(x):
        return x + len([v for v in x.tolist() if v > 0])

    def uses_numpy(x):
        return x * float(x.numpy().max())

    return [lib.compile(fn, backend="eager" if lib is not tt else "inductor")(_tensor(lib, [1.0, -2.0, 3.0])).numpy()
            for fn in (uses_item, uses_tolist, uses_numpy) for _ in range(2)]


def test_value_reads_run_eagerly(torch):
    for a, b in zip(_value_reads(tt), _value_reads(torch)):
        np.testing.assert_array_equal(a, b)


def _no_grad_inside(lib):
    """A forward that computes a statistic and a probe under ``torch.no_grad()``: PyTorch keeps one graph, with
    ``torch._C._set_grad_enabled`` nodes around the block; the results under no_grad carry no gradient, the
    others hang from the compiled node."""
    class Net(lib.nn.Module):
        def __init__(self):
            super().__init__()
            self.a, self.b = lib.nn.Linear(4, 8), lib.nn.Linear(8, 3)

        def forward(self, x):
            h = lib.relu(self.a(x))
            with lib.no_grad():
                scale = h.abs().mean() + 1
                probe = self.b(h)
            return self.b(h / scale), probe

    lib.manual_seed(0)
    net = Net()
    x = _tensor(lib, np.arange(12).reshape(3, 4) / 6 - 1)
    explained = lib._dynamo.explain(net)(x)
    lib._dynamo.reset()
    counter = Counter()
    with_counter = lib.compile(net, backend=counter)(x)
    y, probe = lib.compile(net, backend="aot_eager")(x)
    y.sum().backward()
    grads = [p.grad.numpy().copy() for p in net.parameters()]
    net.zero_grad()
    want, want_probe = net(x)
    want.sum().backward()
    return [explained.graph_count, explained.graph_break_count,
            sum("_set_grad_enabled" in str(op) for op in explained.ops_per_graph[0]), counter.graphs,
            type(y.grad_fn).__name__, probe.requires_grad, with_counter[1].requires_grad,
            bool(np.array_equal(y.detach().numpy(), want.detach().numpy())),
            bool(np.array_equal(probe.numpy(), want_probe.numpy())),
            all(np.array_equal(g, p.grad.numpy()) for g, p in zip(grads, net.parameters()))]


def test_no_grad_block_inside_stays_in_the_graph_as_pytorchs(torch):
    got = _no_grad_inside(tt)
    assert got == _no_grad_inside(torch)
    assert got == [1, 0, 2, 1, "CompiledFunctionBackward", False, False, True, True, True]


def _fullgraph_error(lib):
    f = lib.compile(branchy, fullgraph=True, backend="eager" if lib is not tt else "inductor")
    with pytest.raises(Exception) as info:
        f(_tensor(lib, [1.0, 2.0]))
    e = info.value
    return type(e).__module__.split(".", 1)[1], type(e).__name__, [c.__name__ for c in type(e).__mro__[1:]], str(e)


def test_fullgraph_raises_pytorchs_unsupported(torch):
    ours, theirs = _fullgraph_error(tt), _fullgraph_error(torch)
    assert ours[:3] == theirs[:3]
    # the same text, but for the carets under the condition: Dynamo's run one column past it (through the `:`)
    strip = re.compile(r"\n +\^+\n")
    assert strip.sub("", ours[3]) == strip.sub("", theirs[3])
    assert "gt = gt(sum_1, 0)" in ours[3] and "gt = gt(sum_1, 0)" in theirs[3]


def _explain(lib, fn, *args):
    out = lib._dynamo.explain(fn)(*args)
    text = str(out)
    return (out.graph_break_count, [r.reason for r in out.break_reasons],
            [str(f) for r in out.break_reasons for f in r.user_stack], text.split("\n")[1:3 if out.graph_break_count
                                                                                       else 4])


def test_explain_as_pytorchs(torch):
    args = {lib: (_tensor(lib, [1.0, 2.0]), _tensor(lib, [3.0, 4.0])) for lib in (tt, torch)}
    ours, theirs = _explain(tt, foo, *args[tt]), _explain(torch, foo, *args[torch])
    assert ours == theirs
    assert str(tt._dynamo.explain(foo)(*args[tt])).split("\n")[0] == "Graph Count: 1"
    # a data-dependent branch: PyTorch's break count and reason (stage 1 runs the frame eagerly: no graphs)
    ours, theirs = _explain(tt, branchy, args[tt][0]), _explain(torch, branchy, args[torch][0])
    assert ours[:3] == theirs[:3] and ours[0] == 1


def _reset_and_disable(lib):
    counter = Counter()
    cf = lib.compile(foo, backend=counter)
    x = _tensor(lib, [1.0, 2.0])
    cf(x, x)
    cf(x, x)
    seen = [counter.graphs]
    lib._dynamo.reset()
    cf(x, x)
    seen.append(counter.graphs)
    lib.compiler.reset()
    cf(x, x)
    seen.append(counter.graphs)

    @lib.compiler.disable
    def helper(t):
        return t * 3

    def calls_disabled(t):
        return helper(t.sin()).cos()

    counter2 = Counter()
    r = lib.compile(calls_disabled, backend=counter2)(x)
    seen.append(np.round(r.numpy(), 5).tolist())
    seen.append(lib.compile(calls_disabled, backend="eager" if lib is not tt else "inductor",
                            disable=True) is calls_disabled)
    seen.append(lib._dynamo.explain(calls_disabled)(x).graph_break_count)
    seen.append(lib._dynamo.disable(foo)(x, x).numpy().tolist() == foo(x, x).numpy().tolist())
    seen.append(lib.compiler.is_compiling())
    return seen


def test_reset_and_disable_as_pytorchs(torch):
    assert _reset_and_disable(tt) == _reset_and_disable(torch)


def test_is_compiling_inside_the_captured_program(torch):
    def f(lib, x):
        return x + (1 if lib.compiler.is_compiling() else 2)

    def calls(lib):
        cf = lib.compile(functools.partial(f, lib), backend="inductor" if lib is tt else "aot_eager")
        return [cf(lib.ones(2)).tolist() for _ in range(2)], lib.compiler.is_compiling()

    assert calls(tt) == calls(torch) == ([[2.0, 2.0], [2.0, 2.0]], False)  # the captured branch, replayed


def test_compiled_optimizer_step_gives_eager_results():
    def run(compiled):
        tt.manual_seed(0)
        model = tt.nn.Linear(4, 2)
        opt = tt.optim.Adam(model.parameters(), lr=0.1)
        step = tt.compile(opt.step) if compiled else opt.step
        x = tt.randn(8, 4)
        for _ in range(5):
            opt.zero_grad()
            model(x).pow(2).mean().backward()
            step()
        return [p.detach().numpy().copy() for p in model.parameters()]

    for a, b in zip(run(True), run(False)):
        np.testing.assert_array_equal(a, b)


def test_decorator_forms():
    @tt.compile
    def a(x):
        return x * 2

    @tt.compile(fullgraph=True, dynamic=True, mode="reduce-overhead")
    def b(x):
        return x * 3

    x = tt.ones(2)
    assert a(x).tolist() == [2.0, 2.0] and b(x).tolist() == [3.0, 3.0] and a.__name__ == "a"
    with pytest.raises(RuntimeError, match="Either mode or options"):
        tt.compile(a, mode="default", options={})


# -- modules the compiled function reaches without being given them ------------------------------------------------
_MODEL = {}


def _reads_global(x):
    return _MODEL["m"](x).relu()


def _global_module_guards(lib):
    """Graphs captured as PyTorch 2.13 captures them for a function reading a module through a global name:
    a training flag changed recompiles; a parameter assigned anew, or a new module of the same kind bound to the
    name, is read at the next call without a recompile; a parameter's requires_grad changed, or a module of the
    same kind with other submodules bound to the name, recompiles."""
    counter = Counter()
    lib.manual_seed(0)
    _MODEL["m"] = lib.nn.Sequential(lib.nn.Linear(3, 3), lib.nn.Dropout(0.5))
    holder = _MODEL
    f = lib.compile(_reads_global, backend=counter, dynamic=False)
    x = _tensor(lib, np.linspace(-1, 1, 6).reshape(2, 3))
    seen, values = [], []

    def call():
        out = f(x)
        seen.append(counter.graphs)
        values.append(np.round(out.detach().numpy(), 5).tolist())

    call()
    call()
    holder["m"].eval()
    call()
    holder["m"][0].weight = lib.nn.Parameter(_tensor(lib, np.linspace(0, 1, 9).reshape(3, 3)))
    call()
    new = lib.nn.Sequential(lib.nn.Linear(3, 3), lib.nn.Dropout(0.5)).eval()
    with lib.no_grad():
        new[0].weight.copy_(_tensor(lib, np.eye(3)))
        new[0].bias.fill_(0.25)
    holder["m"] = new
    call()
    new[0].weight.requires_grad_(False)
    call()
    other = lib.nn.Sequential(lib.nn.Linear(3, 3), lib.nn.Tanh())  # the same kind, other submodules: recompiles
    holder["m"] = other
    call()
    return seen, values[2:]


def test_global_module_guards_as_pytorchs(torch):
    try:
        assert _global_module_guards(tt) == _global_module_guards(torch)
    finally:
        _MODEL.clear()


def _closure_and_argument_modules(lib):
    lib.manual_seed(0)
    lin = lib.nn.Linear(3, 2)
    with lib.no_grad():
        lin.weight.copy_(_tensor(lib, np.linspace(-1, 1, 6).reshape(2, 3)))
        lin.bias.copy_(_tensor(lib, [0.5, -0.5]))

    def g(x):
        return lin(x) * 2

    x = _tensor(lib, np.linspace(0, 1, 6).reshape(2, 3))
    backend = "aot_eager" if lib is not tt else "inductor"
    out = []
    for _ in range(2):
        y = lib.compile(g, backend=backend)(x)
        y.sum().backward()
        out.append((type(y.grad_fn).__name__, lin.weight.grad.numpy().tolist(), lin.bias.grad.numpy().tolist()))

    def step(mod, data):
        return mod(data).sum()

    counter = Counter()
    cs = lib.compile(step, backend=counter)
    other = lib.nn.Linear(3, 2)
    with lib.no_grad():
        other.weight.fill_(1.0)
        other.bias.fill_(0.0)
    out.append([round(float(cs(m, x)), 5) for m in (lin, lin, other)] + [counter.graphs])

    class Trainer:  # a plain object whose method uses its module and loss: a compiled bound method
        def __init__(self):
            self.model, self.loss = lin, lib.nn.MSELoss()

        def step(self, data, target):
            return self.loss(self.model(data), target)

    trainer = Trainer()
    cstep = lib.compile(trainer.step, backend=backend)
    lin.weight.grad = None
    for _ in range(2):
        loss = cstep(x, x[:, :2])
        loss.backward()
    explained = lib._dynamo.explain(trainer.step)(x, x[:, :2])
    out.append((type(loss.grad_fn).__name__, round(float(loss.detach()), 5), np.round(lin.weight.grad.numpy(), 4)
                .tolist(), explained.graph_count, explained.graph_break_count))
    return out


def test_closure_and_argument_modules_as_pytorchs(torch):
    """A module in a closure: the compiled call's result hangs from PyTorch's node and the gradients reach its
    parameters; a module passed as an argument: another module of its kind is read without a recompile; a
    compiled bound method of a plain object using its module attribute: one graph, no break."""
    assert _closure_and_argument_modules(tt) == _closure_and_argument_modules(torch)


# -- backends ---------------------------------------------------------------------------------------------------
def _relu_twice(x):
    return (x * 2).relu()


def _backends(lib):
    """Each backend's result node, and what a callable backend's returned function did at the calls after the
    first. (The first call differs by design: PyTorch compiles before running it, tinytorch's capture runs it
    eagerly, so PyTorch runs the returned function at that call too.)"""
    x = _tensor(lib, [-1.0, 0.5, 2.0], requires_grad=True)
    runs = []

    def scaled(gm, example_inputs):
        runs.append(("given", len(example_inputs)))

        def run(*args):
            runs.append("run")
            return tuple(o * 10 for o in gm.forward(*args))
        return run

    seen = []
    for backend in ("eager", "aot_eager", "inductor", scaled):
        lib._dynamo.reset()
        cf = lib.compile(_relu_twice, backend=backend)
        cf(x)
        if backend is scaled:
            runs.clear()
        results = [cf(x) for _ in range(2)]
        r = results[-1]
        seen.append((type(r.grad_fn).__name__, r.detach().numpy().tolist()))
    return seen, runs


def test_backends_as_pytorchs(torch):
    """``backend="eager"`` and a callable backend run the graph as it is (each op's own node, ``ReluBackward0``),
    a callable backend's returned function runs at each replay; aot_eager and inductor give the compiled node."""
    assert _backends(tt) == _backends(torch)


def _bad_arguments(lib):
    def f(x):
        return x + 1

    out = []
    for kw in ({"mode": "bogus"}, {"backend": "bogus"}, {"dynamic": "yes"}, {"mode": "default", "options": {}},
               {"mode": "lite"}, {"mode": "max-autotune-no-cudagraphs", "backend": "eager"}):
        try:
            lib.compile(f, **kw)
            out.append("accepted")
        except Exception as e:  # noqa: BLE001 - the type and text are what is compared
            out.append((type(e).__name__, str(e)))
    try:
        lib.compile(3)
    except AssertionError as e:
        out.append(str(e))
    return out


def test_bad_arguments_refused_as_pytorch(torch):
    """An unknown mode or backend name, a non-bool ``dynamic``, mode with options, a non-callable: PyTorch's
    error types and texts, raised by ``torch.compile`` itself."""
    ours = _bad_arguments(tt)
    assert ours == _bad_arguments(torch)
    assert isinstance(ours[1], tuple) and ours[1][0] == "InvalidBackend"
    assert issubclass(tt._dynamo.exc.InvalidBackend, RuntimeError)


def _registered_backend(lib, suffix: str):
    seen = []

    def compiler(gm, example_inputs):
        seen.append(len(example_inputs))
        return gm.forward

    lib._dynamo.register_backend(compiler, name=f"tinytorch_test_{suffix}")
    lib._dynamo.register_backend(compiler, name=f"tinytorch_test_{suffix}_dbg", tags=("debug",))
    listed = lib._dynamo.list_backends()
    everything = lib._dynamo.list_backends(exclude_tags=())
    f = lib.compile(_relu_twice, backend=f"tinytorch_test_{suffix}")
    x = _tensor(lib, [1.0, -1.0], requires_grad=True)
    names = [type(f(x).grad_fn).__name__ for _ in range(2)]
    try:
        lib._dynamo.register_backend(compiler, name=f"tinytorch_test_{suffix}")
        dup = None
    except AssertionError as e:
        dup = str(e).replace(suffix, "")
    return (f"tinytorch_test_{suffix}" in listed, f"tinytorch_test_{suffix}_dbg" in listed,
            sorted(set(everything) - {n for n in everything if n.startswith("tinytorch_test_")}), names, seen, dup)


def test_register_backend_as_pytorchs(torch):
    """A backend registered by name runs as a callable backend; list_backends shows it unless its tags are
    excluded, and the full list is PyTorch's; a second registration of a name is refused."""
    import uuid

    suffix = uuid.uuid4().hex[:8]
    assert _registered_backend(tt, suffix) == _registered_backend(torch, suffix)


# -- logs --------------------------------------------------------------------------------------------------------
def _sine(x):
    return x.sin() * 2


def _recompile_log(lib):
    """The records of set_logs(recompiles=True) for a function called at three shapes (no graph break)."""
    logger = logging.getLogger(f"{lib.__name__}._dynamo.guards.__recompiles")
    records = _Records()
    records.setLevel(logging.DEBUG)
    logger.addHandler(records)
    lib._logging.set_logs(recompiles=True)
    try:
        f = lib.compile(_sine, backend="eager", dynamic=False)
        for shape in ((3,), (4,), (4, 2), (4,)):
            f(lib.ones(*shape))
    finally:
        lib._logging.set_logs()
        logger.removeHandler(records)
    return [m.replace(__file__, "<file>") for m in records.messages]


def test_recompiles_log_as_pytorchs(torch):
    ours = _recompile_log(tt)
    assert len(ours) == 2 and ours == _recompile_log(torch)
    with pytest.raises(TypeError, match="unexpected keyword argument 'recompile'"):
        tt._logging.set_logs(recompile=True)


def _compile_keywords(lib):
    """torch.compile's newer keywords and torch.compiler's backend switches, as PyTorch 2.13 has them."""
    out = []

    def h(x):
        return x * 2

    f = lib.compile(h, backend="eager", dynamic=False, recompile_limit=2, name="h2", isolate_recompiles=True)
    logger = logging.getLogger(f"{lib.__name__}._dynamo.convert_frame")
    records = _Records()
    logger.addHandler(records)
    try:
        for n in range(1, 5):
            f(lib.ones(n))
    finally:
        logger.removeHandler(records)
    out.append([m.split("\n")[0] for m in records.messages])
    out.append(lib.compiler.get_default_backend())
    lib.compiler.set_default_backend("eager")
    try:
        x = _tensor(lib, [1.0, -1.0], requires_grad=True)
        g = lib.compile(_relu_twice)
        out.append([type(g(x).grad_fn).__name__ for _ in range(2)])
        out.append(lib.compiler.get_default_backend())
    finally:
        lib.compiler.set_default_backend(None)
    out.append(lib.compiler.get_default_backend())
    out.append(lib.compiler.list_backends() == lib._dynamo.list_backends())
    lib.compiler.cudagraph_mark_step_begin()

    class Probe(lib.nn.Module):
        seen: list = []

        def forward(self, x):
            Probe.seen.append((lib.compiler.is_exporting(), lib.compiler.is_compiling()))
            return x + 1

    Probe.seen = []
    lib.export.export(Probe(), (lib.ones(2),))
    Probe()(lib.ones(2))
    out.append(Probe.seen[0])
    out.append(Probe.seen[-1])
    return out


def test_compile_keywords_and_default_backend_as_pytorchs(torch):
    assert _compile_keywords(tt) == _compile_keywords(torch)


# -- config -------------------------------------------------------------------------------------------------------
def _configs(lib):
    """error_on_recompile, the config modules' patch, unknown names, and inductor's settings as scripts set them."""
    out = []
    dc, ic = lib._dynamo.config, lib._inductor.config
    with dc.patch(error_on_recompile=True):
        f = lib.compile(_sine, backend="eager", dynamic=False)
        f(lib.ones(2))
        try:
            f(lib.ones(3))
        except lib._dynamo.exc.RecompileError as e:
            out.append(str(e).replace(__file__, "<file>"))
    out.append(dc.error_on_recompile)

    @dc.patch(recompile_limit=3)
    def limited():
        return dc.recompile_limit
    out.append((limited(), dc.recompile_limit, dc.inline_inbuilt_nn_modules))
    for name in ("coordinate_descent_tuning", "fx_graph_cache", "max_autotune", "epilogue_fusion", "freezing",
                 "conv_1x1_as_mm", "compile_threads", "cpp_wrapper"):
        out.append((name, getattr(ic, name)))
    out.append((ic.triton.unique_kernel_names, ic.triton.cudagraphs, ic.cpp.threads, ic.trace.enabled))
    with ic.patch({"triton.cudagraphs": True, "coordinate_descent_tuning": True}), ic.patch("max_autotune", True):
        out.append((ic.triton.cudagraphs, ic.coordinate_descent_tuning, ic.max_autotune))
    out.append((ic.triton.cudagraphs, ic.coordinate_descent_tuning, ic.max_autotune))
    try:
        ic.patch({"max_autotune": True}, freezing=True)
    except AssertionError as e:
        out.append(str(e))
    for read in (lambda: ic.no_such_setting, lambda: ic.triton.no_such_setting, lambda: dc.no_such_setting):
        try:
            read()
        except AttributeError as e:
            out.append(str(e))
    return out


def test_config_modules_as_pytorchs(torch):
    """``error_on_recompile`` raises PyTorch's RecompileError with its text; ``patch`` as a context and a
    decorator; inductor's settings with PyTorch's defaults; an unknown name read is PyTorch's AttributeError."""
    assert _configs(tt) == _configs(torch)
