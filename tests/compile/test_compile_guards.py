"""torch.compile is safe to turn on: what a compiled program reads from Python (globals, closure variables, module
attributes, the training flag) is guarded and a change recompiles; side effects (a list appended to, ``print``,
``out=``, in-place writes, a generator's draws) happen at every call; ``fullgraph=True`` refuses what breaks a
graph; a misspelled ``options=`` key is refused; a compiled call's graph is freed by backward as eager's is.
Each program runs the same in tinytorch and in PyTorch 2.13 (``aot_eager``: no C compiler needed; tinytorch's
default backend, whose replay is the planned one)."""
import numpy as np
import pytest

import tinytorch as tt

from _oracle import torch  # noqa: E402  (PyTorch when a test reads it)

pytestmark = pytest.mark.filterwarnings("ignore::DeprecationWarning")


@pytest.fixture(autouse=True)
def _fresh():
    tt._dynamo.reset()
    torch._dynamo.reset()
    yield
    tt._dynamo.reset()
    torch._dynamo.reset()


def _backend(lib):
    return "aot_eager" if lib is torch else "inductor"


def _outcome(call):
    """What ``call()`` gives: its value, or the error's type name and text."""
    try:
        return call()
    except Exception as e:  # noqa: BLE001 - the error is the outcome compared
        return type(e).__name__, str(e)


# -- options= ----------------------------------------------------------------------------------------------------
def _options(lib, options):
    return _outcome(lambda: lib.compile(lambda x: x, options=options) and "accepted")


def test_a_misspelled_option_is_refused_as_pytorch():
    ours, theirs = _options(tt, {"trition.cudagraphs": True}), _options(torch, {"trition.cudagraphs": True})
    assert ours[0] == theirs[0] == "RuntimeError"
    head = "Unexpected optimization option trition.cudagraphs, known options are ["
    assert ours[1].startswith(head) and theirs[1].startswith(head)
    good = {"triton.cudagraphs": False, "max_autotune": False, "epilogue_fusion": True}
    assert _options(tt, good) == _options(torch, good) == "accepted"


# -- backward twice --------------------------------------------------------------------------------------------
def _backward_twice(lib, retain: bool):
    """Per call of a compiled Linear (the first, captured; the second, replayed): the second backward's outcome
    and the weight's gradient after it."""
    lib.manual_seed(0)
    model = lib.nn.Linear(3, 2)
    compiled = lib.compile(model, backend=_backend(lib))
    x = lib.tensor(np.linspace(-1, 1, 6, dtype=np.float32).reshape(2, 3))
    seen = []
    for _ in range(2):
        model.zero_grad()
        loss = compiled(x).square().sum()
        loss.backward(retain_graph=retain)
        second = _outcome(lambda: loss.backward() or "ran")
        seen.append((second, model.weight.grad.numpy().tolist()))
    return seen


@pytest.mark.parametrize("retain", [False, True])
def test_backward_twice_through_a_compiled_call_as_pytorch(retain):
    ours, theirs = _backward_twice(tt, retain), _backward_twice(torch, retain)
    assert [s for s, _ in ours] == [s for s, _ in theirs]
    if not retain:
        assert ours[0][0][1].startswith("Trying to backward through the graph a second time")
    np.testing.assert_allclose([g for _, g in ours], [g for _, g in theirs], rtol=1e-6)


# -- the Python values a compiled program reads ------------------------------------------------------------------
class Counter:
    """A backend that counts the graphs it is given (and, in PyTorch, runs them as they are)."""

    def __init__(self):
        self.graphs = 0

    def __call__(self, gm, example_inputs):
        self.graphs += 1
        return gm.forward


SCALE = 2.0
SHIFT = 1


class _Config:
    def __init__(self):
        self.eps = 0.5


CFG = _Config()


def _scaled(x):
    return x * SCALE


def _shift_helper(x):
    return x + SHIFT


def _calls_helper(x):
    return _shift_helper(x) * 2


def _comprehended(x):
    return sum([x * SCALE for _ in range(2)])


def _reads_config(x):
    return x + CFG.eps


def _values(lib, fn, change, calls: int = 4, backend=None):
    """The compiled ``fn``'s results, ``change(k)`` run before its k-th call, and the graphs captured."""
    counter = Counter()
    compiled = lib.compile(fn, backend=backend or counter)
    x = lib.tensor(np.array([1.0, -2.0, 3.0], dtype=np.float32))
    out = []
    for k in range(calls):
        change(k)
        out.append(compiled(x).tolist())
    return out, counter.graphs


def _set_global(name, values):
    def change(k):
        globals()[name] = values[k]
    return change


@pytest.mark.parametrize("fn, name, values", [
    (_scaled, "SCALE", [2.0, 3.0, 3.0, -0.5]),
    (_calls_helper, "SHIFT", [1, 1, 4, 2]),
    (_comprehended, "SCALE", [2.0, 2.0, 0.5, 1.0]),
])
def test_a_changed_global_recompiles_as_pytorch(fn, name, values):
    saved = globals()[name]
    try:
        ours, theirs = _values(tt, fn, _set_global(name, values)), _values(torch, fn, _set_global(name, values))
    finally:
        globals()[name] = saved
    assert ours[0] == theirs[0]
    assert ours[0][0] != ours[0][-1]  # the values were read again


def test_a_changed_object_attribute_recompiles_as_pytorch():
    def change(k):
        CFG.eps = [0.5, 0.25, 0.25, 2.0][k]
    try:
        assert _values(tt, _reads_config, change)[0] == _values(torch, _reads_config, change)[0]
    finally:
        CFG.eps = 0.5


def _closure(lib):
    k = 2.0

    def scaled(x):
        return x * k

    def change(i):
        nonlocal k
        k = [2.0, 5.0, 5.0, 0.25][i]
    return scaled, change


def test_a_changed_closure_variable_recompiles_as_pytorch():
    assert _values(tt, *_closure(tt))[0] == _values(torch, *_closure(torch))[0]


def test_unchanged_values_keep_one_graph_as_pytorch():
    ours, theirs = _values(tt, _scaled, lambda k: None), _values(torch, _scaled, lambda k: None)
    assert ours == theirs and ours[1] == 1


def test_past_the_recompile_limit_the_values_are_still_read():
    """Each new value is a recompile (PyTorch makes the float an input of its second graph, tinytorch has no
    symbolic floats): past the limit the calls run eagerly, still with the value of the moment."""
    values = [float(k) for k in range(12)]
    saved = SCALE
    try:
        ours = _values(tt, _scaled, _set_global("SCALE", values), calls=12, backend="inductor")[0]
        theirs = _values(torch, _scaled, _set_global("SCALE", values), calls=12, backend="aot_eager")[0]
    finally:
        globals()["SCALE"] = saved
    assert ours == theirs


def _module_values(lib, change, calls=4):
    class Tempered(lib.nn.Module):
        def __init__(self):
            super().__init__()
            self.temperature = 1.0
            self.lin = lib.nn.Linear(3, 2)
            self.drop = lib.nn.Dropout(0.0)

        def forward(self, x):
            y = self.drop(self.lin(x)) / self.temperature
            return y * 2 if self.training else y - 1

    lib.manual_seed(0)
    model = Tempered()
    compiled = lib.compile(model, backend=_backend(lib))
    x = lib.tensor(np.linspace(-1, 1, 6, dtype=np.float32).reshape(2, 3))
    out = []
    for k in range(calls):
        change(model, k)
        out.append(compiled(x).detach().numpy())
    return out


def _temperature(model, k):
    model.temperature = [1.0, 2.0, 2.0, 0.5][k]


def _training(model, k):
    model.train([True, False, True, False][k])


def _dropout_p(model, k):
    model.drop.p = [0.0, 0.0, 1.0, 0.0][k]


@pytest.mark.parametrize("change", [_temperature, _training, _dropout_p])
def test_a_changed_module_attribute_recompiles_as_pytorch(change):
    ours, theirs = _module_values(tt, change), _module_values(torch, change)
    for a, b in zip(ours, theirs):
        np.testing.assert_allclose(a, b, rtol=1e-6, atol=1e-7)
    assert not np.array_equal(ours[0], ours[-1]) or change is _dropout_p


# -- side effects -----------------------------------------------------------------------------------------------
def _side_effects(lib, capsys):
    """What five calls of programs with side effects leave behind, and what they print."""
    log, stats = [], {"calls": 0}
    counter = [0]
    out = lib.zeros(3)
    total = lib.zeros(3)
    x = lib.tensor(np.array([1.0, -2.0, 3.0], dtype=np.float32))
    gen = lib.Generator().manual_seed(7)

    def appends(x):
        log.append(len(log))
        return x + 1

    def updates(x):
        stats["calls"] += 1
        return x * 2

    def writes_out(x):
        lib.mul(x, 2, out=out)
        return x - 1

    def accumulates(x):
        total.add_(x)
        return x * 3

    def prints(x):
        print("calls so far:", len(log))
        return x - 2

    def draws(x):
        return x + lib.rand(3, generator=gen)

    def bumps(x):
        counter[0] += 1
        return x * counter[0]

    def in_place(y):
        y.mul_(2)
        return y + 1

    backend = _backend(lib)
    fns = [lib.compile(f, backend=backend) for f in (appends, updates, writes_out, accumulates, prints, draws, bumps)]
    compiled_in_place = lib.compile(in_place, backend=backend)
    y = x.clone()
    results = []
    for k in range(5):
        results.append([f(x * (k + 1)).tolist() for f in fns] + [compiled_in_place(y).tolist()])
    return (log, stats, counter, out.tolist(), total.tolist(), y.tolist(), results, gen.get_state().tolist(),
            capsys.readouterr().out)


def test_side_effects_happen_at_every_call_as_pytorchs(capsys):
    ours, theirs = _side_effects(tt, capsys), _side_effects(torch, capsys)
    assert ours == theirs
    assert len(ours[0]) == 5 and ours[-1].count("calls so far") == 5


def test_a_list_the_program_makes_stays_in_the_graph_as_pytorchs():
    def stacked(x):
        parts = []
        for k in range(3):
            parts.append(x * k)
        return sum(parts)
    ours, theirs = _values(tt, stacked, lambda k: None), _values(torch, stacked, lambda k: None)
    assert ours == theirs and ours[1] == 1


def _fullgraph(lib, fn):
    compiled = lib.compile(fn, backend=_backend(lib), fullgraph=True)
    x = lib.tensor(np.array([1.0, 2.0], dtype=np.float32))
    with pytest.raises(Exception) as info:  # noqa: B017,PT011 - the type is compared below
        compiled(x)
    return type(info.value), str(info.value)


def _prints(x):
    print("hello")
    return x + 1


_GEN = {}


def _draws(x):
    return x + _GEN["lib"].rand(2, generator=_GEN["gen"])


@pytest.mark.parametrize("fn, head", [
    (_prints, "Failed to trace builtin operator\n  Explanation: Dynamo does not know how to trace builtin operator "
              "`print`"),
    (_draws, "Failed to convert args/kwargs to proxy\n  Explanation: Missing `as_proxy()` implementation for "
             "some arg/kwarg."),
])
def test_fullgraph_refuses_a_side_effect_as_pytorch(fn, head, capsys):
    seen = []
    for lib in (tt, torch):
        _GEN.update(lib=lib, gen=lib.Generator().manual_seed(0))
        seen.append(_fullgraph(lib, fn))
    (ours, ours_text), (theirs, theirs_text) = seen
    assert ours.__name__ == theirs.__name__ == "Unsupported"
    assert ours.__module__.replace("tinytorch", "torch") == theirs.__module__
    assert ours_text.startswith(head) and theirs_text.startswith(head)
    assert "from user code:" in ours_text and f"in {fn.__name__}" in ours_text


def _prints_names(x):
    label = "x is"
    print(label, x, None, 2.5)
    return x + 1


def _prints_keywords(x):
    print(f"size {x.shape[0]}", x.shape[0], True, end="", sep=",")
    return x + 1


@pytest.mark.parametrize("fn", [_prints, _prints_names, _prints_keywords])
def test_fullgraph_print_text_as_pytorchs(fn, capsys):
    """PyTorch 2.13 names print's argument types (``['str', 'Tensor']``) and whether keywords were given."""
    seen = [_fullgraph(lib, fn) for lib in (tt, torch)]
    assert seen[0][1] == seen[1][1]
    assert "with argument types ['str'" in seen[0][1]


class _Scaler:
    def __init__(self, k):
        self.k = k

    def scale(self, x):
        return self._twice(x) * self.k

    def _twice(self, x):
        return x * 2


def test_a_compiled_methods_object_attribute_is_guarded_as_pytorchs():
    def run(lib):
        obj = _Scaler(1.5)

        def change(k):
            obj.k = [1.5, 1.5, -3.0, 0.5][k]
        return _values(lib, obj.scale, change, backend=_backend(lib))[0]
    assert run(tt) == run(torch)


_MODEL = None


def test_a_global_modules_attribute_is_guarded_as_pytorchs():
    def run(lib):
        global _MODEL

        class Tempered(lib.nn.Module):
            def __init__(self):
                super().__init__()
                self.temperature = 1.0

            def forward(self, x):
                return x / self.temperature

        _MODEL = Tempered()

        def step(x):
            return _MODEL(x) + 1

        def change(k):
            _MODEL.temperature = [1.0, 4.0, 4.0, 0.5][k]
        return _values(lib, step, change, backend=_backend(lib))[0]
    try:
        assert run(tt) == run(torch)
    finally:
        globals()["_MODEL"] = None


def test_an_object_bound_anew_to_a_global_is_read_as_pytorchs():
    """A config object replaced by another (its attribute read through the global name, not the old object's)."""
    def change(k):
        globals()["CFG"] = [CFG, _Config(), _Config(), _Config()][k]
        CFG.eps = [0.5, 0.5, 4.0, 0.5][k]
    saved = CFG
    try:
        ours = _values(tt, _reads_config, change)[0]
        globals()["CFG"] = saved
        saved.eps = 0.5
        assert ours == _values(torch, _reads_config, change)[0]
    finally:
        globals()["CFG"] = saved
        saved.eps = 0.5


def _module_bound_anew_then_changed(lib):
    """A function reading a module through a global name: the module bound anew to another of its kind, then a
    parameter of the new one assigned anew, then the old one's weights changed (no longer read), then a weight of the
    new one written in place; each call's values (a counting backend's and the default one's) and the number of
    graphs the counting backend was given."""
    global _MODEL
    lib.manual_seed(0)

    def linear(value, n_in=3):
        lin = lib.nn.Linear(n_in, 2)
        with lib.no_grad():
            lin.weight.fill_(value)
            lin.bias.fill_(-value)
        return lin

    _MODEL = lib.nn.Sequential(linear(1.0), lib.nn.ReLU(), linear(0.5, 2))
    calls = []

    def backend(gm, inputs):
        calls.append(1)
        return gm.forward

    def step(x):
        return _MODEL(x) * 2

    fs = {"counted": lib.compile(step, backend=backend), "planned": lib.compile(step, backend=_backend(lib))}
    x = lib.tensor(np.linspace(-1, 2, 6, dtype=np.float32).reshape(2, 3))
    old = _MODEL
    out = {name: [] for name in fs}
    for k in range(5):
        if k == 1:
            _MODEL = lib.nn.Sequential(linear(2.0), lib.nn.ReLU(), linear(-1.0, 2))
        elif k == 2:
            _MODEL[2].weight = lib.nn.Parameter(lib.full((2, 2), 3.0))
        elif k == 3:
            with lib.no_grad():
                old[0].weight.fill_(7.0)
        elif k == 4:
            with lib.no_grad():
                _MODEL[0].weight.mul_(0.5)
        for name, f in fs.items():
            out[name].append(f(x).detach().numpy().tolist())
    return out, len(calls)


def test_a_module_bound_anew_then_changed_is_read_as_pytorchs():
    """The tensors of a module found through a name are read from the module bound there now, at every call: after
    it is bound anew, its own parameters (one assigned anew, one written in place), never the old module's."""
    try:
        ours = _module_bound_anew_then_changed(tt)
        assert ours[0]["planned"] == ours[0]["counted"]
        assert ours == _module_bound_anew_then_changed(torch)
    finally:
        globals()["_MODEL"] = None
