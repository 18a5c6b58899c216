"""``traced.graph``, ``.inlined_graph`` and ``.code`` print PyTorch's TorchScript text (``tinytorch/jit/_ir.py``).

Each program below is traced by both libraries from this same file and the texts compared whole, after one
normalisation: a node's source-location comment (``# /path/file.py:12:0``) is kept only as present or absent
(PyTorch names its own library files, tinytorch its own, and PyTorch's Python-level ``F.leaky_relu`` is a frame
tinytorch does not have); and PyTorch's ``___torch_mangle_<n>.`` in a module type, which counts the times a class
was traced in the process, is dropped. Value numbers, names, types, constants, scopes and the ``.code`` lines are
compared as printed. What tinytorch cannot print as PyTorch does it refuses (the last tests)."""
import re
import warnings

import pytest

import tinytorch as tt

pytestmark = pytest.mark.filterwarnings("ignore::DeprecationWarning")


def _normalised(text: str) -> str:
    text = re.sub(r" # \S+:\d+:\d+$", " # <source>", str(text), flags=re.M)
    return re.sub(r"___torch_mangle_\d+\.", "", text)


# -- the programs (each library passes itself as ``lib``) -----------------------------------------------
def _arith(lib):
    def f(x, y):
        a = x + y
        b = a * 2
        c = lib.matmul(b, y.t())
        return lib.tanh(c).sum()
    return f


def _shapes(lib):
    def g(x, y):
        return lib.cat([x, y], 1).view(-1), x * y
    return g


def _constants(lib):
    def h(x, y):
        s = x.sum(dim=1, keepdim=True)
        z = (x - y * 0.5) / 2.0
        w = z.view(4, 3).relu()
        return s, w.mean(), lib.cat((x, y), dim=0)
    return h


def _dead_and_floats(lib):
    def k(x, y):
        u = x * 3  # noqa: F841 - unused: PyTorch drops its nodes, their numbers stay taken
        a = lib.nn.functional.leaky_relu(x, 0.5) + 1.0
        b = x.clamp(0.0, 1.0)
        return a - b
    return k


def _several_outputs(lib):
    def pair(x, y):
        z = lib.sigmoid(x)
        return z, z * y, lib.add(x, y, alpha=2)
    return pair


def _identity(lib):
    def same(x, y):
        return x
    return same


def _reshapes(lib):
    def r(x, y):
        t = x.transpose(0, 1).unsqueeze(0)
        p = lib.softmax(x.cumsum(0).flip(0), dim=-1)
        return t.flatten(1), p.permute(1, 0), lib.stack([x, y], 1)
    return r


def _functionals(lib):
    """torch.nn.functional's Python functions name a tensor after their parameter (``%input``) in PyTorch."""
    F = lib.nn.functional

    def fn(x, y):
        a = F.softmax(x.t(), 0)
        b = F.relu(y * 2)
        return F.dropout(a * 2, 0.5, False), F.log_softmax(b + 1, 1)
    return fn


FUNCTIONS = [_arith, _shapes, _constants, _dead_and_floats, _several_outputs, _identity, _reshapes, _functionals]


def _inputs(lib):
    lib.manual_seed(0)
    return lib.rand(3, 4), lib.rand(3, 4)


def _named(cls, name: str):
    """A class made in a factory, named as if written at this module's top (PyTorch prints the qualified name)."""
    cls.__module__, cls.__qualname__, cls.__name__ = __name__, name, name
    return cls


def _gate(lib):
    """The tutorial's ``MyDecisionGate`` (a leaf module: its trace keeps the branch the example took)."""
    class MyDecisionGate(lib.nn.Module):
        def forward(self, x):
            if x.sum() > 0:
                return x
            else:
                return -x
    return _named(MyDecisionGate, "MyDecisionGate")()


def _scale(lib):
    class Scale(lib.nn.Module):
        def __init__(self):
            super().__init__()
            self.weight = lib.nn.Parameter(lib.ones(4))
            self.register_buffer("shift", lib.zeros(4))

        def forward(self, x):
            y = x * self.weight
            return lib.exp(y + self.shift)
    return _named(Scale, "Scale")()


def _cell(lib):
    """The tutorial's ``MyCell``: a Linear and tanh."""
    class MyCell(lib.nn.Module):
        def __init__(self):
            super().__init__()
            self.linear = lib.nn.Linear(4, 4)

        def forward(self, x, h):
            new_h = lib.tanh(self.linear(x) + h)
            return new_h, new_h
    return _named(MyCell, "MyCell")()


def _outer(lib):
    """Nested submodules (a Sequential inside), an op of its own between the calls, a tuple out."""
    class Outer(lib.nn.Module):
        def __init__(self):
            super().__init__()
            self.body = lib.nn.Sequential(lib.nn.Linear(4, 4), lib.nn.ReLU())
            self.head = lib.nn.Linear(4, 2)

        def forward(self, x):
            y = self.body(x) * 2
            return self.head(y), y
    return _named(Outer, "Outer")()


def _two_inputs(lib):
    """A submodule of two inputs, and a parameter the forward reads itself."""
    class Two(lib.nn.Module):
        def forward(self, a, b):
            return a * b + a

    class UsesTwo(lib.nn.Module):
        def __init__(self):
            super().__init__()
            self.scale = lib.nn.Parameter(lib.ones(4))
            self.two = _named(Two, "Two")()
            self.lin = lib.nn.Linear(4, 4)

        def forward(self, x, h):
            z = x * self.scale
            return self.lin(self.two(z, h))
    return _named(UsesTwo, "UsesTwo")()


def _net(lib):
    """F.relu on a submodule's result, Dropout (eval), a Sequential in a Sequential, two outputs."""
    nn = lib.nn

    class Net(nn.Module):
        def __init__(self):
            super().__init__()
            self.fc = nn.Linear(4, 8)
            self.drop = nn.Dropout(0.2)
            self.out = nn.Sequential(nn.Sequential(nn.Linear(8, 3), nn.Tanh()), nn.Softmax(dim=1))

        def forward(self, x):
            h = nn.functional.relu(self.fc(x))
            return self.out(self.drop(h)), lib.sigmoid(h)
    return _named(Net, "Net")().eval()


def _one(lib):
    return (lib.rand(3, 4),)


def _image(lib):
    return (lib.rand(1, 2, 6, 6),)


MODULES = {
    "linear": (lambda lib: lib.nn.Linear(4, 2), _one),
    "linear_no_bias": (lambda lib: lib.nn.Linear(4, 2, bias=False), _one),
    "relu": (lambda lib: lib.nn.ReLU(), _one),
    "conv2d": (lambda lib: lib.nn.Conv2d(2, 3, 3), _image),
    "conv2d_stride_padding": (lambda lib: lib.nn.Conv2d(2, 3, 3, stride=2, padding=1, bias=False), _image),
    "gate_positive": (_gate, _one),
    "gate_negative": (_gate, lambda lib: (lib.rand(3, 4) - 2,)),
    "scale": (_scale, _one),
    "my_cell": (_cell, _inputs),
    "sequential": (lambda lib: lib.nn.Sequential(lib.nn.Linear(4, 3), lib.nn.ReLU(), lib.nn.Linear(3, 2)), _one),
    "conv_sequential": (lambda lib: lib.nn.Sequential(lib.nn.Conv2d(2, 2, 3), lib.nn.ReLU(), lib.nn.Flatten()),
                        _image),
    "outer": (_outer, _one),
    "two_inputs": (_two_inputs, _inputs),
    "cell_with_negating_gate": (lambda lib: _cell_with_gate(lib, -1.0), _inputs),
    "net": (_net, _one),
    "conv_pool_linear": (lambda lib: lib.nn.Sequential(lib.nn.Conv2d(2, 2, 3, padding=1), lib.nn.AvgPool2d(2),
                                                       lib.nn.Flatten(), lib.nn.Linear(18, 2)), _image),
    "flatten_sequential": (lambda lib: lib.nn.Sequential(lib.nn.Flatten(), lib.nn.Linear(12, 2), lib.nn.Sigmoid()),
                           lambda lib: (lib.rand(2, 3, 4),)),
}

# the submodules whose .code PyTorch prints (the methods it made of their calls)
SUBMODULES = {"my_cell": ["linear"], "sequential": ["0", "1", "2"], "conv_sequential": ["0", "1", "2"],
              "outer": ["body", "body.0", "body.1", "head"], "two_inputs": ["two", "lin"],
              "cell_with_negating_gate": ["dg", "linear"], "net": ["fc", "drop", "out", "out.0", "out.0.1", "out.1"],
              "flatten_sequential": ["0", "1", "2"], "conv_pool_linear": ["0", "1", "2", "3"]}


def _traced_function(lib, make):
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        return lib.jit.trace(make(lib), _inputs(lib))


def _traced_module(lib, key):
    make, inputs = MODULES[key]
    lib.manual_seed(0)
    m = make(lib)
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        return lib.jit.trace(m, inputs(lib))


def _submodule(traced, path: str):
    for part in path.split("."):
        traced = getattr(traced, part)
    return traced


# -- the comparisons ----------------------------------------------------------------------------------------
@pytest.mark.parametrize("make", FUNCTIONS, ids=lambda m: m.__name__.strip("_"))
@pytest.mark.parametrize("what", ["graph", "inlined_graph", "code"])
def test_traced_function_prints_pytorchs_text(make, what, torch):
    ours, theirs = _traced_function(tt, make), _traced_function(torch, make)
    assert _normalised(getattr(ours, what)) == _normalised(getattr(theirs, what))


@pytest.mark.parametrize("key", list(MODULES))
@pytest.mark.parametrize("what", ["graph", "inlined_graph", "code"])
def test_traced_module_prints_pytorchs_text(key, what, torch):
    ours, theirs = _traced_module(tt, key), _traced_module(torch, key)
    assert _normalised(getattr(ours, what)) == _normalised(getattr(theirs, what))


@pytest.mark.parametrize("key,path", [(k, p) for k, paths in SUBMODULES.items() for p in paths])
def test_traced_submodule_code_is_pytorchs(key, path, torch):
    ours, theirs = _traced_module(tt, key), _traced_module(torch, key)
    assert _submodule(ours, path).code == _submodule(theirs, path).code


def test_the_normalisation_keeps_what_it_compares(torch):
    """The comparison is not vacuous: the texts hold numbered values, types and source comments."""
    text = _normalised(_traced_function(torch, _constants).graph)
    assert "%z : Float(3, 4, strides=[4, 1], requires_grad=0, device=cpu) = aten::div(%10, %11) # <source>" in text
    ours = _normalised(_traced_function(tt, _constants).graph)
    assert ours.count("# <source>") == text.count("# <source>") > 10


def test_graph_prints_as_text():
    traced = _traced_function(tt, _arith)
    assert str(traced.graph).startswith("graph(%x : Float(3, 4, strides=[4, 1], requires_grad=0, device=cpu),")
    assert repr(traced.graph) == str(traced.graph)


# -- what tinytorch refuses to print --------------------------------------------------------------------
def _cell_with_gate(lib, sign: float = 1.0):
    """The tutorial's second ``MyCell``, its Linear's parameters all ``sign * 0.1`` (so the gate's branch is
    known: on positive inputs its input unchanged, where PyTorch's method for it returns None and the cell reads the
    Linear's result; else ``-x``)."""
    class MyCell(lib.nn.Module):
        def __init__(self):
            super().__init__()
            self.dg = _gate(lib)
            self.linear = lib.nn.Linear(4, 4)

        def forward(self, x, h):
            new_h = lib.tanh(self.dg(self.linear(x)) + h)
            return new_h, new_h
    cell = _named(MyCell, "MyCell")()
    with lib.no_grad():
        cell.linear.weight.fill_(0.1 * sign)
        cell.linear.bias.fill_(0.1 * sign)
    return cell


def _twice(lib):
    class Twice(lib.nn.Module):
        def __init__(self):
            super().__init__()
            self.lin = lib.nn.Linear(4, 4)

        def forward(self, x):
            return self.lin(self.lin(x))
    return _named(Twice, "Twice")()


@pytest.mark.parametrize("make,match", [(_cell_with_gate, "returns its input"), (_twice, "more than once")])
@pytest.mark.parametrize("what", ["graph", "inlined_graph", "code"])
def test_submodule_calls_it_cannot_follow_are_refused(make, match, what, torch):
    args = _inputs(tt) if make is _cell_with_gate else _one(tt)
    module = make(tt)
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        traced = tt.jit.trace(module, args)
        rtraced = torch.jit.trace(make(torch), _inputs(torch) if make is _cell_with_gate else _one(torch))
    assert "prim::CallMethod" in str(rtraced.graph)  # (PyTorch prints them)
    with pytest.raises(NotImplementedError, match=match):
        getattr(traced, what)
    assert tt.equal(traced(*args)[0], module(*args)[0])  # (it runs all the same)


def test_a_submodules_graph_is_refused():
    traced = _traced_module(tt, "my_cell")
    assert "aten::linear" in str(traced.inlined_graph) and "def forward" in traced.linear.code
    for what in ("graph", "inlined_graph"):
        with pytest.raises(NotImplementedError, match="a submodule's graph"):
            getattr(traced.linear, what)


def test_unknown_constructs_are_refused():
    x, y = _inputs(tt)
    F = tt.nn.functional
    cases = [lambda x, y: x[0] + y,                      # indexing
             lambda x, y: x.clone().add_(y),            # an in-place op
             lambda x, y: x.max(dim=0)[0] + y,          # an op with several outputs
             lambda x, y: F.leaky_relu(x * 2) + y,      # a tensor PyTorch's Python F.leaky_relu names
             lambda x, y: tt.zeros(3, 4) + x,           # a factory (PyTorch records the dtype it resolved)
             lambda x, y: x.to(tt.float64) + y,         # a dtype argument (PyTorch records it as a number)
             lambda x, y: F.batch_norm(x, y[0], y[1])]  # cudnn_enabled: False here, True in PyTorch
    for fn in cases:
        with warnings.catch_warnings():
            warnings.simplefilter("ignore")
            traced = tt.jit.trace(fn, (x, y))
        for what in ("graph", "code"):
            with pytest.raises(NotImplementedError, match="cannot print this traced program as TorchScript"):
                getattr(traced, what)


def test_loaded_programs_are_refused(tmp_path):
    traced = _traced_module(tt, "linear")
    assert "aten::linear" in str(traced.graph)
    tt.jit.save(traced, tmp_path / "m.pt")
    loaded = tt.jit.load(tmp_path / "m.pt")
    with pytest.raises(NotImplementedError, match="a loaded program"):
        _ = loaded.code


def test_structured_inputs_and_outputs_are_refused():
    x, y = _inputs(tt)
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        nested_in = tt.jit.trace(lambda pair: pair[0] * pair[1], ((x, y),))
        list_out = tt.jit.trace(lambda x, y: [x * y, x], (x, y), strict=False)
    with pytest.raises(NotImplementedError, match="an input that is a tuple"):
        _ = nested_in.code
    with pytest.raises(NotImplementedError, match="an output other than"):
        _ = list_out.graph


def test_a_submodule_under_two_names_is_refused():
    class Shared(tt.nn.Module):
        def __init__(self):
            super().__init__()
            self.a = tt.nn.Linear(4, 4)
            self.b = self.a

        def forward(self, x):
            return self.b(x) * 2
    x = tt.rand(3, 4)
    traced = tt.jit.trace(Shared(), x)
    with pytest.raises(NotImplementedError, match="held under several names"):
        _ = traced.code
    assert traced(x).shape == (3, 4)


def test_unused_submodule_results_and_local_classes_are_refused():
    class Unused(tt.nn.Module):
        def __init__(self):
            super().__init__()
            self.lin = tt.nn.Linear(4, 4)

        def forward(self, x):
            self.lin(x)
            return x * 2
    x = tt.rand(3, 4)
    with pytest.raises(NotImplementedError, match="does not use"):
        _ = tt.jit.trace(_named(Unused, "Unused")(), x).graph

    class Local(tt.nn.Module):
        def forward(self, x):
            return x * 2
    with pytest.raises(NotImplementedError, match="defined inside a function"):
        _ = tt.jit.trace(Local(), x).code


def test_a_direct_forward_call_is_no_method_call(torch):
    """``self.lin.forward(x)`` is no scope to PyTorch's tracer: its ops are the caller's, its weight read through
    a chain of GetAttr, which tinytorch refuses to print."""
    def make(lib):
        class Direct(lib.nn.Module):
            def __init__(self):
                super().__init__()
                self.lin = lib.nn.Linear(4, 4)

            def forward(self, x):
                return self.lin.forward(x) * 2
        return _named(Direct, "Direct")()
    rtraced = torch.jit.trace(make(torch), _one(torch))
    assert "prim::CallMethod" not in str(rtraced.graph)
    traced = tt.jit.trace(make(tt), _one(tt))
    with pytest.raises(NotImplementedError, match="read outside its module's forward"):
        _ = traced.graph
