"""``traced.graph``, ``.inlined_graph`` and ``.code`` print PyTorch's TorchScript text (``tinytorch/jit/_ir.py``).

Each program below is traced by both libraries from this same file and the texts compared whole, after one
normalisation: a node's source-location comment (``# /path/file.py:12:0``) is kept only as present or absent
(PyTorch names its own library files, tinytorch its own, and PyTorch's Python-level ``F.leaky_relu`` is a frame
tinytorch does not have); and PyTorch's ``___torch_mangle_<n>.`` in a module type, which counts the times a class
was traced in the process, is dropped (a scripted function is compiled once, ``_script_once``: its mangled name's
length would move where ``.code`` splits a line). Value numbers, names, types, constants, scopes and the ``.code``
lines are compared as printed. What tinytorch cannot print as PyTorch does it refuses (the last tests)."""
import functools
import re
import warnings

import numpy as np
import pytest

import tinytorch as tt
from _oracle import pytorchs_own_script_calls

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


def _reordered(lib):
    """A submodule that reads its second input first, one that never reads an input, one called twice (PyTorch
    makes ``forward`` and ``forward1`` of the calls), and one whose result is unused (its method returns None)."""
    nn = lib.nn

    class Swapped(nn.Module):
        def forward(self, a, b):
            return b * a + a

    class Ignores(nn.Module):
        def forward(self, a, b):
            return lib.sigmoid(b)

    class Uses(nn.Module):
        def __init__(self):
            super().__init__()
            self.swapped = _named(Swapped, "Swapped")()
            self.ignores = _named(Ignores, "Ignores")()
            self.lin = nn.Linear(4, 4)
            self.unused = nn.Tanh()

        def forward(self, x, h):
            self.unused(h)
            z = self.lin(self.swapped(x, h))
            return self.lin(self.ignores(z, x)) - z
    return _named(Uses, "Uses")()


def _nested_twice(lib):
    """A submodule called twice inside another one, beside an op of the caller's, inside a Sequential."""
    nn = lib.nn

    class Block(nn.Module):
        def __init__(self):
            super().__init__()
            self.lin = nn.Linear(4, 4)

        def forward(self, x):
            return self.lin(lib.relu(self.lin(x))) * 2
    return nn.Sequential(_named(Block, "Block")(), nn.ReLU(), _named(Block, "Block")())


def _pair(lib):
    """A submodule returning a tuple (its results given in the order the caller first uses them)."""
    class Pair(lib.nn.Module):
        def __init__(self):
            super().__init__()
            self.lin = lib.nn.Linear(4, 4)

        def forward(self, x):
            y = self.lin(x)
            return y.relu(), y * 2
    return _named(Pair, "Pair")()


def _uses_pair(lib):
    class UsesPair(lib.nn.Module):
        def __init__(self):
            super().__init__()
            self.pair = _pair(lib)

        def forward(self, x):
            a, b = self.pair(x)
            return a + b
    return _named(UsesPair, "UsesPair")()


def _nested_pairs(lib):
    """A tuple from a submodule's submodule, used there in the other order, and a tuple returned from there."""
    class Wrap(lib.nn.Module):
        def __init__(self):
            super().__init__()
            self.pair = _pair(lib)

        def forward(self, x):
            a, b = self.pair(x)
            return b - a, a

    class Top(lib.nn.Module):
        def __init__(self):
            super().__init__()
            self.body = lib.nn.Sequential(lib.nn.Linear(4, 4), lib.nn.ReLU())
            self.wrap = _named(Wrap, "Wrap")()

        def forward(self, x):
            p, q = self.wrap(self.body(x))
            return p * q
    return _named(Top, "Top")()


def _pairs_and_siblings(lib):
    """Results of one call given to the next calls, one result unused, one call's results all unused."""
    class Two(lib.nn.Module):
        def forward(self, a, b):
            return a * b + a

    class Siblings(lib.nn.Module):
        def __init__(self):
            super().__init__()
            self.pair, self.pair2, self.spare = _pair(lib), _pair(lib), _pair(lib)
            self.two = _named(Two, "Two")()

        def forward(self, x):
            a, b = self.pair(x)
            c, d = self.pair2(b)
            self.spare(x)
            return self.two(d, a), c, self.two(a, x)
    return _named(Siblings, "Siblings")()


def _kept_on_self(lib):
    """A submodule keeping a value on itself (and a view of its Linear's result) that its caller reads."""
    class Keeps(lib.nn.Module):
        def __init__(self):
            super().__init__()
            self.lin = lib.nn.Linear(4, 4)

        def forward(self, x):
            y = self.lin(x)
            self.kept = x * 3
            self.flat = y.view(-1)
            return y.t()

    class Reads(lib.nn.Module):
        def __init__(self):
            super().__init__()
            self.keeps = _named(Keeps, "Keeps")()

        def forward(self, x):
            t = self.keeps(x)
            return t * 2, self.keeps.flat.sigmoid() + self.keeps.kept.sum()
    return _named(Reads, "Reads")()


def _shared_activations(lib):
    """One submodule instance under two names, called through both (PyTorch calls it by its first name: forward,
    forward1), and a shared Sequential called through its second name only."""
    class SharedActs(lib.nn.Module):
        def __init__(self):
            super().__init__()
            self.lin = lib.nn.Linear(4, 4)
            self.act = lib.nn.Tanh()
            self.post = lib.nn.Sequential(lib.nn.ReLU(), lib.nn.Sigmoid())
            self.act_again = self.act
            self.post_again = self.post

        def forward(self, x):
            return self.post_again(self.act_again(self.act(self.lin(x))) * 2)
    return _named(SharedActs, "SharedActs")()


def _shared_linear(lib):
    class Shared(lib.nn.Module):
        def __init__(self):
            super().__init__()
            self.a = lib.nn.Linear(4, 4)
            self.b = self.a

        def forward(self, x):
            return self.b(self.a(x)) * 2
    return _named(Shared, "Shared")()


def _shared_across_modules(lib):
    class Across(lib.nn.Module):
        def __init__(self):
            super().__init__()
            self.act = lib.nn.Tanh()
            self.body = lib.nn.Sequential(self.act, lib.nn.ReLU())

        def forward(self, x):
            return self.act(self.body(x))
    return _named(Across, "Across")()


def _sub_in_two(lib):
    """One Linear held by two modules (``a.sub is b.sub``): PyTorch's scope for its calls is its last name
    (``b.sub``), so ``a`` takes it as an input, and ``b``'s call takes the weight and bias (first bound under
    ``a.sub``) as inputs."""
    class Holder(lib.nn.Module):
        def __init__(self, sub):
            super().__init__()
            self.sub = sub
            self.post = lib.nn.ReLU()

        def forward(self, x):
            return self.post(self.sub(x))

    class TwoHolders(lib.nn.Module):
        def __init__(self):
            super().__init__()
            lin = lib.nn.Linear(4, 4)
            self.a = _named(Holder, "Holder")(lin)
            self.b = _named(Holder, "Holder")(lin)

        def forward(self, x):
            return self.b(self.a(x)) + x
    return _named(TwoHolders, "TwoHolders")()


def _tied(lib):
    """A weight shared by two Linears (the decoder reads the encoder's: an input of its method)."""
    class Tied(lib.nn.Module):
        def __init__(self):
            super().__init__()
            self.enc = lib.nn.Linear(4, 4)
            self.dec = lib.nn.Linear(4, 4)
            self.dec.weight = self.enc.weight

        def forward(self, x):
            return self.dec(self.enc(x).relu())
    return _named(Tied, "Tied")()


def _shared_buffer(lib):
    """A submodule holding a buffer under two names, called through both, a Linear between."""
    class Shift(lib.nn.Module):
        def __init__(self):
            super().__init__()
            self.register_buffer("shift", lib.ones(4))

        def forward(self, x):
            return x + self.shift

    class SharedBuf(lib.nn.Module):
        def __init__(self):
            super().__init__()
            self.lin = lib.nn.Linear(4, 4)
            self.s = _named(Shift, "Shift")()
            self.t = self.s

        def forward(self, x):
            return self.t(self.lin(self.s(x)))
    return _named(SharedBuf, "SharedBuf")()


def _across_linear(lib):
    """A Linear held by the module and by its Sequential, called through both."""
    class AcrossLin(lib.nn.Module):
        def __init__(self):
            super().__init__()
            self.lin = lib.nn.Linear(4, 4)
            self.body = lib.nn.Sequential(self.lin, lib.nn.ReLU())

        def forward(self, x):
            return self.lin(self.body(x))
    return _named(AcrossLin, "AcrossLin")()


def _deep_shared(lib):
    """A Linear under three names (in a Sequential's Holder, in another Holder, on the module), called through
    each, its tensors read by a Holder's forward and by the module's own."""
    class Holder(lib.nn.Module):
        def __init__(self, sub):
            super().__init__()
            self.sub = sub

        def forward(self, x):
            return self.sub(x) * self.sub.weight.sum()

    class Deep(lib.nn.Module):
        def __init__(self):
            super().__init__()
            lin = lib.nn.Linear(4, 4)
            self.first = lib.nn.Sequential(_named(Holder, "Holder")(lin), lib.nn.ReLU())
            self.second = _named(Holder, "Holder")(lin)
            self.register_buffer("scale", lib.ones(4))
            self.lin = lin

        def forward(self, x):
            y = self.first(x) + self.lin.bias
            return self.second(y) * self.scale + self.lin(x)
    return _named(Deep, "Deep")()


def _unused_shared(lib):
    """A shared Linear never called: its tensors bound again still number the graph."""
    class Unused(lib.nn.Module):
        def __init__(self):
            super().__init__()
            self.lin = lib.nn.Linear(4, 4)
            self.spare = self.lin
            self.other = lib.nn.Sequential(self.lin)

        def forward(self, x):
            return x * 2 + 1
    return _named(Unused, "Unused")()


def _shared_sequential(lib):
    """One Linear twice in a Sequential (called by its first name twice: forward, forward1)."""
    lin = lib.nn.Linear(4, 4)
    return lib.nn.Sequential(lin, lib.nn.ReLU(), lin)


def _direct(lib):
    """``self.lin.forward(x)`` is no scope to PyTorch's tracer: its ops are the caller's, its weight read through
    a chain of GetAttr."""
    class Direct(lib.nn.Module):
        def __init__(self):
            super().__init__()
            self.lin = lib.nn.Linear(4, 4)

        def forward(self, x):
            return self.lin.forward(x) * 2
    return _named(Direct, "Direct")()


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
    # the tutorial's MyCell with its MyDecisionGate taking the branch that returns its input: PyTorch's method of
    # the gate returns None and the cell reads the Linear's result
    "cell_with_gate": (_cell_with_gate, _inputs),
    "twice": (_twice, _one),
    "reordered": (_reordered, _inputs),
    "nested_twice": (_nested_twice, _one),
    # the tutorial's MyCell traced on (x, x): PyTorch's tracer gives the program a view for the second place
    "my_cell_same_input": (_cell, lambda lib: _inputs(lib)[:1] * 2),
    "cell_with_gate_same_input": (_cell_with_gate, lambda lib: _inputs(lib)[:1] * 2),
    # values a submodule made used outside it: PyTorch's method returns them (a tuple where several)
    "tuple_result": (_uses_pair, _one),
    "nested_tuples": (_nested_pairs, _one),
    "tuples_and_siblings": (_pairs_and_siblings, _one),
    "kept_on_self": (_kept_on_self, _one),
    "shared_activations": (_shared_activations, _one),
    # a submodule or tensor held under several names (tests/jit: _sub_in_two... above)
    "shared_linear": (_shared_linear, _one),
    "shared_across_modules": (_shared_across_modules, _one),
    "sub_in_two_modules": (_sub_in_two, _one),
    "tied_weight": (_tied, _one),
    "shared_buffer": (_shared_buffer, _one),
    "shared_in_sequential": (_shared_sequential, _one),
    "across_linear": (_across_linear, _one),
    "direct_forward": (_direct, _one),
    "deep_shared": (_deep_shared, _one),
    "unused_shared": (_unused_shared, _one),
}

# the modules with submodules (each prints the method PyTorch made of its call)
WITH_SUBMODULES = [k for k in MODULES if k not in ("linear", "linear_no_bias", "relu", "conv2d",
                                                   "conv2d_stride_padding", "gate_positive", "gate_negative", "scale",
                                                   "direct_forward", "unused_shared")]


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


@pytest.mark.parametrize("key", WITH_SUBMODULES)
@pytest.mark.parametrize("what", ["graph", "inlined_graph", "code"])
def test_traced_submodules_print_pytorchs_text(key, what, torch):
    """Each submodule prints the method PyTorch made of its (first) call: its own graph, numbered as the lifting
    of the call into a method left it (``traced.linear.graph``)."""
    ours, theirs = _traced_module(tt, key), _traced_module(torch, key)
    paths = [p for p, _ in theirs.named_modules(remove_duplicate=False) if p]  # (each name of a shared one)
    assert [p for p, _ in ours.named_modules(remove_duplicate=False) if p] == paths and paths
    printed = 0
    for path in paths:  # (a submodule called only under another name has no method: the errors compared)
        assert _printed(_submodule(ours, path), what) == _printed(_submodule(theirs, path), what), path
        printed += "Error" not in _printed(_submodule(theirs, path), what)
    assert printed


def _printed(obj, what: str) -> str:
    try:
        return _normalised(getattr(obj, what))
    except (RuntimeError, AttributeError) as e:
        return f"{type(e).__name__}: {e}"


@pytest.mark.parametrize("what", ["graph", "inlined_graph", "code"])
def test_a_submodule_never_called_as_a_module_has_no_method(what, torch):
    """PyTorch makes no method of a submodule the trace did not call (or called by ``.forward``): its graph
    raises, its code and inlined graph are missing attributes."""
    def make(lib):
        class Spare(lib.nn.Module):
            def __init__(self):
                super().__init__()
                self.lin = lib.nn.Linear(4, 4)
                self.act = lib.nn.ReLU()
                self.spare = lib.nn.Tanh()

            def forward(self, x):
                return self.act.forward(self.lin(x))
        return _named(Spare, "Spare")()
    ours, theirs = tt.jit.trace(make(tt), _one(tt)), torch.jit.trace(make(torch), _one(torch))
    for path in ("spare", "act", "lin"):
        assert _printed(getattr(ours, path), what) == _printed(getattr(theirs, path), what)
    assert "Error" in _printed(ours.spare, what) and "Error" not in _printed(ours.lin, what)


def _same_weights(lib, cell):
    with lib.no_grad():
        cell.linear.weight.copy_(lib.linspace(-1, 1, 16).reshape(4, 4))
        cell.linear.bias.copy_(lib.linspace(-0.5, 0.5, 4))
    return cell


@pytest.mark.parametrize("kind", ["module", "function", "three_places"])
def test_a_tensor_given_twice_is_traced_as_an_input_for_each_place(kind, torch):
    """``trace(cell, (x, x))``: PyTorch's tracer gives the program a view of ``x`` for the second place, so its
    graph takes ``x`` and ``h`` apart (the view's nodes, dropped, keep their numbers); called later on two
    tensors, the traced program computes what the original does."""
    printed, results = [], []
    for lib in (tt, torch):
        if kind == "module":
            program = _same_weights(lib, _cell(lib))
        else:
            program = (lambda x, y: x * 2 + y) if kind == "function" else (lambda x, y, z: x * 2 + y - z)
        n = 3 if kind == "three_places" else 2
        x = lib.linspace(0, 1, 12).reshape(3, 4)
        with warnings.catch_warnings():
            warnings.simplefilter("ignore")
            traced = lib.jit.trace(program, (x,) * n)
        others = [lib.linspace(-1, 1, 12).reshape(3, 4) * (k + 1) for k in range(n)]
        got, expected = traced(*others), program(*others)
        got, expected = (got[0], expected[0]) if kind == "module" else (got, expected)
        assert lib.equal(got, expected)
        assert not lib.equal(got, program(*[others[0]] * n)[0] if kind == "module" else program(*[others[0]] * n))
        printed.append((_normalised(traced.graph), _normalised(traced.inlined_graph), traced.code))
        results.append(got.detach().numpy())
    assert printed[0] == printed[1]
    np.testing.assert_allclose(results[0], results[1], rtol=1e-6, atol=1e-7)


def test_the_normalisation_keeps_what_it_compares(torch):
    """The comparison is not vacuous: the texts hold numbered values, types and source comments."""
    text = _normalised(_traced_function(torch, _constants).graph)
    assert "%z : Float(3, 4, strides=[4, 1], requires_grad=0, device=cpu) = aten::div(%10, %11) # <source>" in text
    ours = _normalised(_traced_function(tt, _constants).graph)
    assert ours.count("# <source>") == text.count("# <source>") > 10
    sub = _normalised(_traced_module(torch, "my_cell").linear.graph)
    assert "= aten::linear(%x, %weight, %bias), scope: __module.linear # <source>" in sub and "%3 :" in sub


def test_graph_prints_as_text():
    traced = _traced_function(tt, _arith)
    assert str(traced.graph).startswith("graph(%x : Float(3, 4, strides=[4, 1], requires_grad=0, device=cpu),")
    assert repr(traced.graph) == str(traced.graph)


# -- what tinytorch refuses to print --------------------------------------------------------------------
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


@pytest.mark.parametrize("key", ["tuple_result", "nested_tuples", "tuples_and_siblings", "kept_on_self",
                                 "shared_activations", "shared_linear", "shared_across_modules",
                                 "sub_in_two_modules", "tied_weight", "shared_buffer", "shared_in_sequential",
                                 "across_linear", "direct_forward", "deep_shared"])
def test_a_submodules_values_used_outside_it_are_right_on_new_inputs(key, torch):
    """The traced programs whose submodules give out several values, or are held under several names, compute
    what the originals do."""
    results = []
    for lib in (tt, torch):
        make, inputs = MODULES[key]
        lib.manual_seed(0)
        m = make(lib)
        with warnings.catch_warnings():
            warnings.simplefilter("ignore")
            traced = lib.jit.trace(m, inputs(lib))
        new = lib.linspace(-2, 2, 12).reshape(3, 4)
        got, expected = traced(new), m(new)
        got, expected = (got, expected) if isinstance(got, tuple) else ((got,), (expected,))
        assert len(got) == len(expected)
        for a, b in zip(got, expected):
            assert lib.allclose(a, b)
        results.append([a.detach().numpy() for a in got])
    for a, b in zip(*results):
        np.testing.assert_allclose(a, b, rtol=1e-5, atol=1e-6)


def test_local_classes_are_refused():
    x = tt.rand(3, 4)

    class Local(tt.nn.Module):
        def forward(self, x):
            return x * 2
    with pytest.raises(NotImplementedError, match="defined inside a function"):
        _ = tt.jit.trace(Local(), x).code


def test_shared_submodules_print_what_pytorch_does_not_shortcut(torch):
    """The shared cases are compared on what makes them differ from the plain ones: a direct forward call is no
    method call, a module above a block's scope is an input of its method, a tensor bound again numbers the graph."""
    assert "prim::CallMethod" not in str(_traced_module(torch, "direct_forward").graph)
    ours = _traced_module(tt, "sub_in_two_modules")
    assert "argument_1: __torch__.torch.nn.modules.linear.Linear" in ours.a.code
    assert 'prim::GetAttr[name="weight"]' in str(ours.graph)
    assert _normalised(ours.a.code) == _normalised(_traced_module(torch, "sub_in_two_modules").a.code)
    assert "%bias.3" in str(_traced_module(tt, "shared_linear").a.graph)


# -- scripted programs called by a traced one -----------------------------------------------------------
def shifted(x):
    return x.sigmoid() + 1


def twice(x, y):
    return x * y + x


def scaled(a, b):
    return a * b + 2.0


@functools.cache
def _script_once(lib, fn):
    """``fn`` scripted by ``lib``, once in the process: PyTorch renames a function compiled again
    (``___torch_mangle_<n>.``), which the comparison drops but which moves where ``.code`` splits a long line."""
    return lib.jit.script(fn)


def _calls_scripted(lib):
    """A scripted submodule and a scripted function inside a traced forward."""
    class Inner(lib.nn.Module):
        def __init__(self):
            super().__init__()
            self.lin = lib.nn.Linear(4, 4)

        def forward(self, x):
            return self.lin(x).relu()

    shifted_ = _script_once(lib, shifted)

    class CallsScripted(lib.nn.Module):
        def __init__(self):
            super().__init__()
            self.inner = lib.jit.script(_named(Inner, "Inner")())

        def forward(self, x):
            return shifted_(self.inner(x) * 2) - x
    return _named(CallsScripted, "CallsScripted")()


def _scripted_in_submodule(lib):
    """A scripted module called inside a traced submodule (its call scoped there), a scripted function called by
    the forward on a variable (PyTorch names the call's input after it)."""
    class Act(lib.nn.Module):
        def forward(self, x):
            return lib.tanh(x) * 2

    twice_ = _script_once(lib, twice)

    class Wrap(lib.nn.Module):
        def __init__(self):
            super().__init__()
            self.lin = lib.nn.Linear(4, 4)
            self.act = lib.jit.script(_named(Act, "Act")())

        def forward(self, x):
            return self.act(self.lin(x))

    class ScriptedInSub(lib.nn.Module):
        def __init__(self):
            super().__init__()
            self.wrap = _named(Wrap, "Wrap")()

        def forward(self, x):
            y = self.wrap(x)
            return twice_(y, x)
    return _named(ScriptedInSub, "ScriptedInSub")()


def _function_in_module(lib):
    """A scripted function called by a module's forward (its inlined graph is PyTorch's too)."""
    shifted_ = _script_once(lib, shifted)

    class FnInModule(lib.nn.Module):
        def __init__(self):
            super().__init__()
            self.lin = lib.nn.Linear(4, 4)

        def forward(self, x):
            h = self.lin(x)
            return shifted_(h) * h
    return _named(FnInModule, "FnInModule")()


def _scripted_two_names(lib):
    """A scripted module under two names: PyTorch's call reads it by the last."""
    class Act(lib.nn.Module):
        def forward(self, x):
            return lib.tanh(x) * 2

    class TwoNames(lib.nn.Module):
        def __init__(self):
            super().__init__()
            self.act = lib.jit.script(_named(Act, "Act")())
            self.act2 = self.act

        def forward(self, x):
            return self.act2(x) + 1
    return _named(TwoNames, "TwoNames")()


def _functions_in_submodule(lib):
    """Scripted functions called by a traced submodule (one's result given to the other) and by the forward."""
    shifted_, twice_ = _script_once(lib, shifted), _script_once(lib, twice)

    class Sub(lib.nn.Module):
        def forward(self, x):
            a = shifted_(x)
            return twice_(a, x)

    class FnTwice(lib.nn.Module):
        def __init__(self):
            super().__init__()
            self.sub = _named(Sub, "Sub")()

        def forward(self, x):
            return shifted_(self.sub(x)) + shifted_(x)
    return _named(FnTwice, "FnTwice")()


def _calls_scripted_function(lib):
    scaled_ = _script_once(lib, scaled)

    def f(x, y):
        s = x + y
        t = scaled_(s, y)
        return t.relu(), s
    return f


SCRIPTED = {"calls_scripted": _calls_scripted, "scripted_in_submodule": _scripted_in_submodule,
            "function_in_module": _function_in_module, "scripted_two_names": _scripted_two_names,
            "functions_in_submodule": _functions_in_submodule}


@pytest.mark.parametrize("key", list(SCRIPTED))
def test_a_scripted_program_called_in_a_trace_runs_right(key, torch):
    """tinytorch's trace runs the scripted program's ops inline: the traced program computes what the original
    does on new inputs."""
    results = []
    for lib in (tt, torch):
        lib.manual_seed(0)
        m = SCRIPTED[key](lib)
        with warnings.catch_warnings():
            warnings.simplefilter("ignore")
            traced = lib.jit.trace(m, _one(lib))
        new = lib.linspace(-2, 2, 12).reshape(3, 4)
        got = traced(new)
        assert lib.allclose(got, m(new))
        results.append(got.detach().numpy())
    np.testing.assert_allclose(results[0], results[1], rtol=1e-6, atol=1e-7)


# (path, what) PyTorch prints that tinytorch refuses: the inlined graph of a scripted module's call or of a call
# inside a traced submodule (PyTorch inlines the compiled graph, optimized), and a scripted nn.Linear (its forward
# calls F.linear, outside _script_ir's subset)
_SCRIPTED_REFUSED = {
    "calls_scripted": {("", "inlined_graph"), ("inner", "inlined_graph"), ("inner.lin", "graph"),
                       ("inner.lin", "code"), ("inner.lin", "inlined_graph")},
    "scripted_in_submodule": {("", "inlined_graph"), ("wrap", "inlined_graph"), ("wrap.act", "inlined_graph")},
    "function_in_module": set(),
    "scripted_two_names": {("", "inlined_graph"), ("act", "inlined_graph"), ("act2", "inlined_graph")},
    "functions_in_submodule": {("", "inlined_graph")},
}


@pytest.mark.parametrize("key", list(SCRIPTED))
def test_a_scripted_program_called_in_a_trace_prints_pytorchs_call(key, torch):
    """PyTorch keeps a ``prim::CallMethod`` / ``prim::CallFunction`` of the scripted program in the trace; the
    texts, the top module's and the submodules', are PyTorch's, or refused where listed (never another text)."""
    texts = []
    for lib in (tt, torch):
        lib.manual_seed(0)
        with warnings.catch_warnings():
            warnings.simplefilter("ignore")
            traced = lib.jit.trace(SCRIPTED[key](lib), _one(lib))
        printed = {}
        for path, sub in [("", traced)] + [(p, s) for p, s in traced.named_modules(remove_duplicate=False) if p]:
            for what in ("graph", "code", "inlined_graph"):
                try:
                    printed[(path, what)] = _normalised(getattr(sub, what))
                except NotImplementedError as e:
                    printed[(path, what)] = e
                except (RuntimeError, AttributeError) as e:
                    printed[(path, what)] = f"{type(e).__name__}: {e}"
        texts.append(printed)
    ours, theirs = texts
    assert set(ours) == set(theirs)
    refused = {k for k, v in ours.items() if isinstance(v, NotImplementedError)}
    assert refused == _SCRIPTED_REFUSED[key]
    for k in refused:
        assert "cannot print this" in str(ours[k]) and "Error" not in theirs[k][:20]
    for k in set(ours) - refused:
        assert ours[k] == theirs[k], k
    assert "prim::CallMethod" in ours[("", "graph")] or "prim::CallMethod" in ours[("wrap", "graph")]
    assert ("prim::CallFunction" if key != "scripted_two_names" else "(%act2, %x)") in ours[("", "graph")]


@pytest.mark.parametrize("what", ["graph", "code", "inlined_graph"])
def test_a_traced_function_calling_a_scripted_one_prints_pytorchs_call(what, torch):
    ours, theirs = (lib.jit.trace(_calls_scripted_function(lib), _inputs(lib)) for lib in (tt, torch))
    assert _normalised(getattr(ours, what)) == _normalised(getattr(theirs, what))
    assert "scaled" in str(getattr(ours, what))
    if what == "inlined_graph":  # (the function's ops, in place of the call)
        assert "aten::mul(%s, %y)" in str(ours.inlined_graph)


def test_pytorchs_test_utilities_leave_the_oracles_scripted_calls_alone(torch, monkeypatch):
    """PyTorch's ``common_utils`` (imported by the op_db tests, so in every worker of a full run) wraps its scripted
    calls in Python; its tracer then names the call's inputs after the wrapper's locals, not the caller's ``s``.
    ``_oracle.pytorchs_own_script_calls`` (the conftest's fixture around each test) gives PyTorch's own calls back."""
    utils = pytest.importorskip("torch.testing._internal.common_utils")
    monkeypatch.setattr(torch._C.ScriptFunction, "__call__", utils.prof_func_call)  # (as that module leaves it)
    ours = tt.jit.trace(_calls_scripted_function(tt), _inputs(tt))
    wrapped = torch.jit.trace(_calls_scripted_function(torch), _inputs(torch))
    assert "%s : Float" in str(ours.graph) and "%s : Float" not in str(wrapped.graph)
    with pytorchs_own_script_calls():
        assert torch._C.ScriptFunction.__call__ is utils.func_call
        theirs = torch.jit.trace(_calls_scripted_function(torch), _inputs(torch))
    assert torch._C.ScriptFunction.__call__ is utils.prof_func_call
    assert _normalised(ours.graph) == _normalised(theirs.graph)


def test_a_scripted_function_in_a_trace_never_freezes_its_branch(torch):
    """PyTorch's scripted function keeps its ``if`` in the trace; tinytorch's inlined ops cannot, so reading a
    tensor's value there raises (never the example's branch for every input)."""
    def make(lib):
        @lib.jit.script
        def branchy(x):
            if x.sum() > 0:
                return x * 2
            return -x
        return lambda x: branchy(x) + 1
    x = tt.rand(3, 4)
    rx = torch.from_numpy(x.numpy())
    fn = make(torch)
    traced = torch.jit.trace(fn, rx)
    assert torch.equal(traced(-rx), fn(-rx))  # PyTorch follows the branch
    with pytest.raises(RuntimeError, match="cannot compile branchy: it converts a tensor to a Python boolean"):
        tt.jit.trace(make(tt), x)
