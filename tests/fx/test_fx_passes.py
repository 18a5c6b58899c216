"""Interpreter, Transformer, subgraph_rewriter.replace_pattern and passes.shape_prop.ShapeProp against PyTorch's:
the same results, the same rewritten graphs and the same recorded shapes."""
import numpy as np
import pytest

from _fx_compare import assert_same_numbers, assert_same_texts, load, run_both, traced_pair

SOURCE = '''
class NegSigmSwapInterpreter(fx.Interpreter):
    def call_function(self, target, args, kwargs):
        if target is torch.sigmoid:
            return torch.neg(*args, **kwargs)
        return super().call_function(target, args, kwargs)

    def call_method(self, target, args, kwargs):
        if target == "neg":
            call_self, *args_tail = args
            return call_self.sigmoid(*args_tail, **kwargs)
        return super().call_method(target, args, kwargs)

class NegSigmSwapXformer(fx.Transformer):
    def call_function(self, target, args, kwargs):
        if target is torch.sigmoid:
            return torch.neg(*args, **kwargs)
        return super().call_function(target, args, kwargs)

    def call_method(self, target, args, kwargs):
        if target == "neg":
            call_self, *args_tail = args
            return call_self.sigmoid(*args_tail, **kwargs)
        return super().call_method(target, args, kwargs)

def fn(x):
    return torch.sigmoid(x).neg()

class Net(nn.Module):
    def __init__(self):
        super().__init__()
        self.conv = nn.Conv2d(2, 4, 3, padding=1)
        self.bn = nn.BatchNorm2d(4)
        self.fc = nn.Linear(4 * 4 * 4, 5)

    def forward(self, x):
        y = F.relu(self.bn(self.conv(x)))
        y = y.permute(0, 2, 3, 1).contiguous().permute(0, 3, 1, 2)
        parts = torch.chunk(y, 2, dim=1)
        flat = torch.cat(parts, 1).flatten(1)
        return self.fc(flat).max(dim=1), flat.shape

class Counter(fx.Interpreter):
    def run_node(self, n):
        self.seen = getattr(self, "seen", []) + [n.name]
        return super().run_node(n)

class ModuleSwapper(fx.Transformer):
    def call_module(self, target, args, kwargs):
        if target == "bn":   # the BatchNorm becomes a plain affine of its eval statistics
            bn = self.fetch_attr(target)
            scale = bn.weight / torch.sqrt(bn.running_var + bn.eps)
            shift = bn.bias - bn.running_mean * scale
            return args[0] * scale.view(1, -1, 1, 1).detach() + shift.view(1, -1, 1, 1).detach()
        return super().call_module(target, args, kwargs)

def interpreted():
    gm = fx.symbolic_trace(fn)
    return gm, NegSigmSwapInterpreter(gm)

def transformed():
    return NegSigmSwapXformer(fx.symbolic_trace(fn)).transform()

def swapped():
    return ModuleSwapper(fx.symbolic_trace(Net().eval())).transform()

def counted():
    gm = fx.symbolic_trace(Net().eval())
    return gm, Counter(gm, garbage_collect_values=False)
'''

_x = np.linspace(-2, 2, 12, dtype="float32").reshape(3, 4)
_image = np.random.default_rng(0).standard_normal((2, 2, 4, 4)).astype("float32")


@pytest.fixture
def tabulate():
    return pytest.importorskip("tabulate")


@pytest.mark.parametrize("name, inputs", [("interpreted", [_x]), ("counted", [_image])])
def test_interpreter_runs_as_pytorch(torch, name, inputs):
    pairs = traced_pair(SOURCE, lambda ns: ns[name]())
    results = run_both(pairs, inputs, lambda made, ns, args: made[1].run(*args))
    assert_same_numbers(*results)
    theirs, ours = (pairs[lib][0][1] for lib in ("torch", "tinytorch"))
    assert getattr(ours, "seen", None) == getattr(theirs, "seen", None)
    assert sorted(n.name for n in ours.env) == sorted(n.name for n in theirs.env)  # kept (no garbage collection)
    if name == "interpreted":
        assert_same_numbers(torch.neg(torch.tensor(_x)).sigmoid(), results[1])


@pytest.mark.parametrize("name, inputs", [("transformed", [_x]), ("swapped", [_image])])
def test_transformer_builds_pytorchs_graph(torch, tabulate, name, inputs):
    pairs = traced_pair(SOURCE, lambda ns: ns[name]())
    assert_same_texts(pairs)
    assert_same_numbers(*run_both(pairs, inputs), rtol=1e-5, atol=1e-5)


def test_interpreter_reports_the_failing_node_as_pytorch(torch):
    source = SOURCE + '''
def failing():
    gm = fx.symbolic_trace(lambda x: torch.relu(x) @ x)
    return fx.Interpreter(gm).run(torch.ones(2, 3))
'''
    errors = []
    for lib in ("torch", "tinytorch"):
        with pytest.raises(RuntimeError) as info:
            load(source, lib)["failing"]()
        errors.append(str(info.value).split("\n\n", 1)[1])  # the node's line and traceback; the op's own words differ
    assert errors[0] == errors[1]


def test_shape_prop_records_pytorchs_metadata(torch):
    records = []
    for lib in ("torch", "tinytorch"):
        ns = load(SOURCE, lib)
        ns["torch"].manual_seed(0)
        gm = ns["fx"].symbolic_trace(ns["Net"]().eval())
        out = ns["fx"].passes.shape_prop.ShapeProp(gm).propagate(ns["torch"].tensor(_image))
        rows = []
        for n in gm.graph.nodes:
            meta = n.meta.get("tensor_meta")
            metas = meta if isinstance(meta, (tuple, list)) and not hasattr(meta, "shape") else [meta]
            rows.append((n.name, n.meta["type"].__name__, [None if m is None or not hasattr(m, "shape") else
                                                           (tuple(m.shape), str(m.dtype), m.requires_grad, m.stride,
                                                            str(m.memory_format), m.is_quantized, m.qparams)
                                                           for m in metas]))
        records.append(([r for r in rows], out))
    theirs, ours = records
    assert str(ours[0]).replace("tinytorch", "torch") == str(theirs[0])
    assert_same_numbers(theirs[1][0], ours[1][0], rtol=1e-5, atol=1e-5)


def test_print_readable_as_pytorch(torch):
    # the verbose code: a comment on where the nodes come from, then, once ShapeProp has run, dtypes and shapes
    texts = []
    for lib in ("torch", "tinytorch"):
        ns = load(SOURCE, lib)
        T, fx = ns["torch"], ns["fx"]
        T.manual_seed(0)
        gm = fx.symbolic_trace(ns["Net"]().eval())
        before = gm.print_readable(print_output=False)
        fx.passes.shape_prop.ShapeProp(gm).propagate(T.tensor(_image))
        graph = fx.Graph()
        x = graph.placeholder("x")
        graph.output(graph.call_module("net", (x,)))
        outer = fx.GraphModule({"net": gm}, graph, "Outer")
        texts.append((before, gm.print_readable(print_output=False), outer.print_readable(print_output=False)))
    assert texts[1] == texts[0]
    assert 'f32[2, 4, 4, 4]' in texts[1][1]


REWRITES = '''
class M(torch.nn.Module):
    def forward(self, x, w1, w2):
        val1 = torch.neg(w1)
        m1 = torch.cat([val1, w2]).sum()
        val2 = torch.neg(w1)
        m2 = torch.cat([val2, w2]).sum()
        return x + torch.max(m1) + torch.max(m2)

def pattern(a1, a2):
    val1 = torch.neg(a1)
    return torch.cat([val1, a2]).sum()

def replacement(w1, w2):
    return torch.stack([w1, w2])

class Docstring(torch.nn.Module):
    def forward(self, x, w1, w2):
        m1 = torch.cat([w1, w2]).sum()
        m2 = torch.cat([w1, w2]).sum()
        return x + torch.max(m1) + torch.max(m2)

def cat_pattern(w1, w2):
    return torch.cat([w1, w2])

def stack_replacement(w1, w2):
    return torch.stack([w1, w2])

class Chained(torch.nn.Module):   # overlapping occurrences, a literal, a two-output pattern
    def forward(self, x, y):
        a = torch.sigmoid(x) * 2 + y
        b = torch.sigmoid(a) * 2 + y
        c = torch.sigmoid(b) * 3 + y
        return c, torch.relu(x).split(2)

def chain_pattern(x, y):
    return torch.sigmoid(x) * 2 + y

def chain_replacement(x, y):
    return torch.tanh(x) - y

def split_pattern(x):
    parts = torch.relu(x).split(2)
    return parts

def split_replacement(x):
    return x.split(2)

def rewrite(model, pattern, replacement):
    traced = fx.symbolic_trace(model)
    matches = fx.replace_pattern(traced, pattern, replacement)
    traced.matches = [(m.anchor.name, sorted((k.name, v.name) for k, v in m.nodes_map.items())) for m in matches]
    return traced
'''


@pytest.mark.parametrize("model, pattern, replacement, inputs", [
    ("M()", "pattern", "replacement", [np.ones(2, "float32"), np.arange(2, dtype="float32"), np.ones(2, "float32")]),
    ("Docstring()", "cat_pattern", "stack_replacement", [np.ones(3, "float32"), np.arange(3, dtype="float32"),
                                                          np.ones(3, "float32")]),
    ("Chained()", "chain_pattern", "chain_replacement", [np.linspace(-1, 1, 4, dtype="float32"), np.ones(4, "float32")]),
    ("Chained()", "split_pattern", "split_replacement", [np.linspace(-1, 1, 4, dtype="float32"), np.ones(4, "float32")]),
])
def test_replace_pattern_as_pytorch(torch, tabulate, model, pattern, replacement, inputs):
    pairs = traced_pair(REWRITES, lambda ns: ns["rewrite"](eval(model, ns), ns[pattern], ns[replacement]))
    assert_same_texts(pairs)
    theirs, ours = (pairs[lib][0] for lib in ("torch", "tinytorch"))
    assert ours.matches == theirs.matches
    assert_same_numbers(*run_both(pairs, inputs))


def test_replace_pattern_with_filters_and_no_match(torch):
    results = []
    for lib in ("torch", "tinytorch"):
        ns = load(REWRITES, lib)
        fx = ns["fx"]
        traced = fx.symbolic_trace(ns["Chained"]())
        replaced = fx.subgraph_rewriter.replace_pattern_with_filters(
            traced, ns["chain_pattern"], ns["chain_replacement"],
            match_filters=[lambda match, original, pattern: match.anchors[0].name != "add"])
        none = fx.replace_pattern(fx.symbolic_trace(ns["M"]()), ns["chain_pattern"], ns["chain_replacement"])
        results.append(([(r.anchor.name, [n.name for n in r.replacements]) for r in replaced], traced.code, none))
    assert results[0] == results[1]
