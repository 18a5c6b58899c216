"""``traced.graph``, ``.inlined_graph`` and ``.code`` print PyTorch's TorchScript text (``tinytorch/jit/_ir.py``).

Each program below is traced by both libraries from this same file and the texts compared whole, after one
normalisation: a node's source-location comment (``# /path/file.py:12:0``) is kept only as present or absent
(PyTorch names its own library files, tinytorch its own, and PyTorch's Python-level ``F.leaky_relu`` is a frame
tinytorch does not have); and PyTorch's ``___torch_mangle_<n>.`` in a module type, which counts the times a class
was traced in the process, is dropped. Value numbers, names, types, constants and the ``.code`` lines are compared
as printed. What tinytorch cannot print as PyTorch does it refuses (the last tests)."""
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


FUNCTIONS = [_arith, _shapes, _constants, _dead_and_floats, _several_outputs, _identity, _reshapes]


def _inputs(lib):
    lib.manual_seed(0)
    return lib.rand(3, 4), lib.rand(3, 4)


class _Gate:
    """The tutorial's ``MyDecisionGate`` (a leaf module: its trace keeps the branch the example took)."""

    @staticmethod
    def make(lib):
        class MyDecisionGate(lib.nn.Module):
            def forward(self, x):
                if x.sum() > 0:
                    return x
                else:
                    return -x
        MyDecisionGate.__module__, MyDecisionGate.__qualname__ = __name__, "MyDecisionGate"
        return MyDecisionGate()


class _Scale:
    @staticmethod
    def make(lib):
        class Scale(lib.nn.Module):
            def __init__(self):
                super().__init__()
                self.weight = lib.nn.Parameter(lib.ones(4))
                self.register_buffer("shift", lib.zeros(4))

            def forward(self, x):
                y = x * self.weight
                return lib.exp(y + self.shift)
        Scale.__module__, Scale.__qualname__ = __name__, "Scale"
        return Scale()


MODULES = {
    "linear": (lambda lib: lib.nn.Linear(4, 2), (3, 4)),
    "linear_no_bias": (lambda lib: lib.nn.Linear(4, 2, bias=False), (3, 4)),
    "relu": (lambda lib: lib.nn.ReLU(), (3, 4)),
    "conv2d": (lambda lib: lib.nn.Conv2d(2, 3, 3), (1, 2, 5, 5)),
    "conv2d_stride_padding": (lambda lib: lib.nn.Conv2d(2, 3, 3, stride=2, padding=1, bias=False), (1, 2, 6, 6)),
    "gate_positive": (_Gate.make, (3, 4)),
    "gate_negative": (_Gate.make, (3, 4)),
    "scale": (_Scale.make, (3, 4)),
}


def _traced_function(lib, make):
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        return lib.jit.trace(make(lib), _inputs(lib))


def _traced_module(lib, key):
    make, shape = MODULES[key]
    lib.manual_seed(0)
    m = make(lib)
    x = lib.rand(*shape) - (2 if key == "gate_negative" else 0)
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        return lib.jit.trace(m, x)


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
class _Cell:
    """The tutorial's ``MyCell``: a module that calls a submodule (PyTorch prints ``prim::CallMethod``)."""

    @staticmethod
    def make(lib):
        class MyCell(lib.nn.Module):
            def __init__(self):
                super().__init__()
                self.linear = lib.nn.Linear(4, 4)

            def forward(self, x, h):
                new_h = lib.tanh(self.linear(x) + h)
                return new_h, new_h
        return MyCell()


@pytest.mark.parametrize("what", ["graph", "inlined_graph", "code"])
def test_submodule_calls_are_refused(what, torch):
    x, h = _inputs(tt)
    traced = tt.jit.trace(_Cell.make(tt), (x, h))
    rtraced = torch.jit.trace(_Cell.make(torch), _inputs(torch))
    assert 'prim::CallMethod[name="forward"]' in str(rtraced.graph) or what != "graph"
    with pytest.raises(NotImplementedError, match="calls submodules"):
        getattr(traced, what)
    assert traced(x, h)[0].shape == (3, 4)  # (it runs all the same)
    seq = tt.jit.trace(tt.nn.Sequential(tt.nn.Linear(4, 3), tt.nn.ReLU()), x)
    with pytest.raises(NotImplementedError, match="calls submodules"):
        getattr(seq, what)


def test_unknown_constructs_are_refused():
    x, y = _inputs(tt)
    cases = [lambda x, y: x[0] + y,                     # indexing
             lambda x, y: x.clone().add_(y),           # an in-place op
             lambda x, y: x.max(dim=0)[0] + y]           # an op with several outputs
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
        loaded.code
