"""torch.fx.symbolic_trace against PyTorch's: for MLPs, CNNs with BatchNorm, transformer blocks and functions
traced with ``concrete_args``, ``print(gm.graph)``, ``gm.code`` and ``print_tabular()`` must print the same text,
and the traced module must compute what the eager PyTorch model computes."""
import numpy as np
import pytest

from _fx_compare import assert_same_numbers, assert_same_texts, load, run_both, traced_pair

MLP = '''
class NeuralNetwork(nn.Module):
    def __init__(self):
        super().__init__()
        self.flatten = nn.Flatten()
        self.linear_relu_stack = nn.Sequential(
            nn.Linear(28 * 28, 64), nn.ReLU(), nn.Linear(64, 64), nn.ReLU(), nn.Linear(64, 10))

    def forward(self, x):
        x = self.flatten(x)
        return self.linear_relu_stack(x)
'''

CNN = '''
class Net(nn.Module):
    def __init__(self):
        super().__init__()
        self.conv1 = nn.Conv2d(1, 8, 3, 1)
        self.bn1 = nn.BatchNorm2d(8)
        self.conv2 = nn.Conv2d(8, 16, 3, 1)
        self.bn2 = nn.BatchNorm2d(16)
        self.dropout1 = nn.Dropout(0.25)
        self.fc1 = nn.Linear(16 * 5 * 5, 32)
        self.fc2 = nn.Linear(32, 10)

    def forward(self, x):
        x = F.relu(self.bn1(self.conv1(x)))
        x = torch.relu(self.bn2(self.conv2(x)))
        x = F.max_pool2d(x, 2)
        x = self.dropout1(x)
        x = torch.flatten(x, 1)
        x = F.relu(self.fc1(x))
        return F.log_softmax(self.fc2(x), dim=1)

def make_cnn():
    net = Net()
    with torch.no_grad():  # statistics that are not the identity, so the eval-mode BatchNorm does something
        for bn in (net.bn1, net.bn2):
            bn.running_mean.uniform_(-0.5, 0.5)
            bn.running_var.uniform_(0.5, 2.0)
    return net.eval()
'''

BLOCK = '''
class CausalSelfAttention(nn.Module):
    def __init__(self, n_embd, n_head):
        super().__init__()
        self.c_attn = nn.Linear(n_embd, 3 * n_embd)
        self.c_proj = nn.Linear(n_embd, n_embd)
        self.n_head, self.n_embd = n_head, n_embd
        self.register_buffer("bias", torch.tril(torch.ones(8, 8)).view(1, 1, 8, 8))

    def forward(self, x):
        B, T, C = x.size()
        q, k, v = self.c_attn(x).split(self.n_embd, dim=2)
        k = k.view(B, T, self.n_head, C // self.n_head).transpose(1, 2)
        q = q.view(B, T, self.n_head, C // self.n_head).transpose(1, 2)
        v = v.view(B, T, self.n_head, C // self.n_head).transpose(1, 2)
        att = (q @ k.transpose(-2, -1)) * (1.0 / math.sqrt(k.size(-1)))
        att = att.masked_fill(self.bias == 0, float('-inf'))
        att = F.softmax(att, dim=-1)
        y = (att @ v).transpose(1, 2).contiguous().view(B, T, C)
        return self.c_proj(y)

class Block(nn.Module):
    def __init__(self, n_embd=16, n_head=4):
        super().__init__()
        self.ln_1 = nn.LayerNorm(n_embd)
        self.attn = CausalSelfAttention(n_embd, n_head)
        self.ln_2 = nn.LayerNorm(n_embd)
        self.mha = nn.MultiheadAttention(n_embd, n_head, batch_first=True)
        self.mlp = nn.Sequential(nn.Linear(n_embd, 4 * n_embd), nn.GELU(), nn.Linear(4 * n_embd, n_embd),
                                 nn.Dropout(0.1))

    def forward(self, x):
        x = x + self.attn(self.ln_1(x))
        h = self.ln_2(x)
        a, _ = self.mha(h, h, h, need_weights=False)
        x = x + a
        return x + self.mlp(self.ln_2(x))
'''

ENCODER = '''
class Encoder(nn.Module):
    def __init__(self):
        super().__init__()
        self.emb = nn.Embedding(20, 16)
        self.pos = nn.Parameter(torch.randn(1, 8, 16))
        self.layer = nn.TransformerEncoderLayer(16, 4, 32, dropout=0.0, batch_first=True)
        self.head = nn.Linear(16, 20)

    def forward(self, idx):
        x = self.emb(idx) + self.pos[:, :idx.shape[1]]
        return self.head(self.layer(x)).mean(dim=1)
'''

_rng = np.random.default_rng(0)
MODELS = {
    "mlp": (MLP, "NeuralNetwork()", [_rng.standard_normal((2, 1, 28, 28)).astype("float32")]),
    "cnn_batchnorm": (CNN, "make_cnn()", [_rng.standard_normal((2, 1, 14, 14)).astype("float32")]),
    "transformer_block": (BLOCK, "Block().eval()", [_rng.standard_normal((2, 8, 16)).astype("float32")]),
    "transformer_encoder": (ENCODER, "Encoder().eval()", [_rng.integers(0, 20, (2, 8))]),
}


@pytest.fixture
def tabulate():
    return pytest.importorskip("tabulate")  # PyTorch's print_tabular needs it


@pytest.mark.parametrize("name", MODELS)
def test_traced_model_prints_and_computes_as_pytorch(torch, tabulate, name):
    source, make, inputs = MODELS[name]
    pairs = traced_pair(source, lambda ns: ns["fx"].symbolic_trace(eval(make, ns)))
    ours = assert_same_texts(pairs)
    assert "call_module" in ours["graph"]
    ns = load(source, "torch")  # the eager PyTorch model, made after the same seed: the traced ones' weights
    ns["torch"].manual_seed(0)
    eager = eval(make, ns)
    assert_same_numbers(eager(*[torch.tensor(x) for x in inputs]), run_both(pairs, inputs)[1], rtol=1e-5, atol=1e-5)


def _trace_pair(source, make):
    return traced_pair(source, make)


def test_nested_modules_are_traced_through_and_named_by_path(torch, tabulate):
    source = '''
class Inner(nn.Module):
    def __init__(self):
        super().__init__()
        self.lin = nn.Linear(4, 4)
        self.weight = nn.Parameter(torch.randn(4))
        self.register_buffer("shift", torch.ones(4))
        self.scale = torch.full((4,), 0.5)   # a plain tensor attribute: a constant of the graph

    def forward(self, x):
        return self.lin(x) * self.weight + self.shift * self.scale

class Outer(nn.Module):
    def __init__(self):
        super().__init__()
        self.blocks = nn.ModuleList([Inner(), Inner()])
        self.seq = nn.Sequential(nn.ReLU(), Inner())

    def forward(self, x):
        for block in self.blocks:
            x = block(x) + torch.ones(4)
        return self.seq(x).sum(-1, keepdim=True)
'''
    pairs = _trace_pair(source, lambda ns: ns["fx"].symbolic_trace(ns["Outer"]()))
    ours = assert_same_texts(pairs)
    assert "blocks.0.lin" in ours["graph"] and "_tensor_constant0" in ours["code"]
    x = np.random.default_rng(1).standard_normal((3, 4)).astype("float32")
    assert_same_numbers(*run_both(pairs, [x]))


FUNCTIONS = '''
def specialised(a, b, c=None, d=3):
    if b:
        a = a * 2
    if c is not None:
        a = a + c
    return a + d

def summed(x):
    out = 0
    for v in x.values():
        out += v
    return out

def keywords(x, flag: bool = True, *, scale=2.0):
    y = x.relu() if flag else x
    return torch.sum(y, dim=-1) * scale, y.shape[0], y.dtype

class VarArgs(nn.Module):
    def forward(self, *args):
        return args[0] * args[1]

def varargs():
    return fx.symbolic_trace(VarArgs(), concrete_args=(fx.PH, fx.PH))

def ops(x, y: torch.Tensor):
    z = torch.cat([x, y], dim=0)
    w = z[1:, ::2] ** 2 - (-z[1:, :2]) / 3
    m = torch.max(z, dim=1)
    s = x.to(torch.float64).sum(1, keepdim=True)
    t = 2 * x + x @ y.t() @ x
    parts = torch.split(z, 2)
    return (w, m.values, m.indices, s, t.float(), z.shape, x.new_zeros(2, 3), parts[0],
            torch.zeros(x.size(0), dtype=torch.int64), F.gelu(x), F.linear(x, y), abs(x), x > 0)
'''


@pytest.mark.parametrize("name, concrete, inputs", [
    ("specialised", {"b": False, "c": None, "d": 4}, [np.ones((2, 3), "float32"), False, None, 4]),
    ("summed", "PH dict", [{"a": np.ones(3, "float32"), "b": np.arange(3, dtype="float32")}]),
    ("keywords", {"flag": True}, None),
    ("varargs", "module", [np.full(3, 2.0, "float32"), np.arange(3, dtype="float32")]),
    ("ops", None, [np.arange(9, dtype="float32").reshape(3, 3) - 4, np.eye(3, dtype="float32")]),
])
def test_functions_with_concrete_args_trace_as_pytorch(torch, tabulate, name, concrete, inputs):
    def make(ns):
        fx = ns["fx"]
        if concrete == "module":
            return ns[name]()
        args = {"x": {"a": fx.PH, "b": fx.PH}} if concrete == "PH dict" else concrete
        return fx.symbolic_trace(ns[name], concrete_args=args)

    pairs = _trace_pair(FUNCTIONS, make)
    assert_same_texts(pairs)
    if inputs is not None:
        assert_same_numbers(*run_both(pairs, inputs))


def test_a_specialised_argument_is_checked_when_called(torch):
    pairs = _trace_pair(FUNCTIONS, lambda ns: ns["fx"].symbolic_trace(ns["specialised"],
                                                                       concrete_args={"b": False, "c": None}))
    for lib, (gm, ns) in pairs.items():
        x = ns["torch"].ones(2)
        with pytest.raises(AssertionError, match="b has been specialized to have value False but got another value"):
            gm(x, True, None)
        with pytest.raises(AssertionError, match="c has been specialized to have value None but got another value"):
            gm(x, False, x)


WRAPPED = '''
def leaf_helper(x, y):
    return x * x + y * y
fx.wrap("leaf_helper")

@fx.wrap
def counted(x):
    return len(x)

fx.wrap("len")

def uses_wrapped(x, y):
    return leaf_helper(x, y) + counted(x) + len(y) + math.sqrt(2.0) * math.floor(x.size(0) / 2)

class Pair(metaclass=fx.ProxyableClassMeta):
    def __init__(self, left, right):
        self.left, self.right = left, right

    def total(self):
        return self.left + self.right

def uses_pair(x, y):
    return Pair(x, y).total()
'''


@pytest.mark.parametrize("name", ["uses_wrapped", "uses_pair"])
def test_wrapped_functions_and_proxyable_classes_stay_calls(torch, tabulate, name):
    pairs = _trace_pair(WRAPPED, lambda ns: ns["fx"].symbolic_trace(ns[name]))
    ours = assert_same_texts(pairs)
    if name == "uses_wrapped":
        assert "fx_case_leaf_helper(x, y)" in ours["code"] and 'torch.fx._symbolic_trace.wrap("len")' in ours["code"]
    x = np.arange(4, dtype="float32")
    assert_same_numbers(*run_both(pairs, [x, x + 1]))


CUSTOM_TRACERS = '''
class M1(torch.nn.Module):
    def __init__(self):
        super().__init__()
        self.relu = torch.nn.ReLU()
        self.lin = torch.nn.Linear(3, 3)

    def forward(self, x):
        return self.relu(self.lin(x))

class LowerReluTracer(fx.Tracer):
    def is_leaf_module(self, m, qualname):
        if isinstance(m, torch.nn.ReLU):
            return False
        return super().is_leaf_module(m, qualname)

class TaggingTracer(fx.Tracer):
    def create_node(self, kind, target, args, kwargs, name=None, type_expr=None):
        n = super().create_node(kind, target, args, kwargs, name)
        n.tag = "foo"
        return n

class EverythingTracer(fx.Tracer):
    def is_leaf_module(self, m, qualname):
        return isinstance(m, torch.nn.Linear)

class ModulePathTracer(fx.Tracer):
    current = ""
    def call_module(self, m, forward, args, kwargs):
        old, self.current = self.current, self.path_of_module(m)
        try:
            return super().call_module(m, forward, args, kwargs)
        finally:
            self.current = old
    def create_proxy(self, kind, target, args, kwargs, name=None, type_expr=None):
        proxy = super().create_proxy(kind, target, args, kwargs, name, type_expr)
        proxy.node.meta["from_module"] = self.current
        return proxy

def traced_with(tracer_class):
    m = M1()
    tracer = tracer_class()
    gm = fx.GraphModule(m, tracer.trace(m))
    gm.tags = [getattr(n, "tag", None) for n in gm.graph.nodes]
    gm.paths = [n.meta.get("from_module") for n in gm.graph.nodes]
    gm.stacks = [list(n.meta.get("nn_module_stack", {})) for n in gm.graph.nodes]
    return gm
'''


@pytest.mark.parametrize("tracer", ["LowerReluTracer", "TaggingTracer", "EverythingTracer", "ModulePathTracer"])
def test_custom_tracers_as_pytorch(torch, tabulate, tracer):
    pairs = _trace_pair(CUSTOM_TRACERS, lambda ns: ns["traced_with"](ns[tracer]))
    assert_same_texts(pairs)
    theirs, ours = pairs["torch"][0], pairs["tinytorch"][0]
    assert (ours.tags, ours.paths, ours.stacks) == (theirs.tags, theirs.paths, theirs.stacks)
    x = np.random.default_rng(2).standard_normal((2, 3)).astype("float32")
    assert_same_numbers(*run_both(pairs, [x]))


@pytest.mark.parametrize("tracer", ["ShapesTracer(param_shapes_constant=True)", "BufferTracer()"])
def test_param_shapes_constant_and_proxy_buffers(torch, tabulate, tracer):
    source = '''
class Shapes(nn.Module):
    def __init__(self):
        super().__init__()
        self.w = nn.Parameter(torch.ones(3, 4))
        self.register_buffer("b", torch.zeros(4))

    def forward(self, x):
        return x @ self.w + self.b * self.w.shape[1]  # the shape a constant with param_shapes_constant

class BufferTracer(fx.Tracer):
    proxy_buffer_attributes = True

class ShapesTracer(fx.Tracer):
    pass

def traced(tracer):
    m = Shapes()
    return fx.GraphModule(m, tracer.trace(m))
'''
    pairs = _trace_pair(source, lambda ns: ns["traced"](eval(tracer, ns)))
    assert_same_texts(pairs)
    assert_same_numbers(*run_both(pairs, [np.ones((2, 3), "float32")]))


def test_control_flow_on_a_traced_value_is_refused_as_pytorch_does(torch):
    source = '''
def branches(x):
    if x.sum() > 0:
        return x
    return -x

def iterates(x):
    return [y for y in x]

def measures(x):
    return len(x)
'''
    for name in ("branches", "iterates", "measures"):
        errors = []
        for lib in ("torch", "tinytorch"):
            ns = load(source, lib)
            with pytest.raises(Exception) as info:
                ns["fx"].symbolic_trace(ns[name])
            errors.append((type(info.value).__name__, str(info.value)))
        assert errors[0] == errors[1]


def test_tracing_leaves_module_and_function_attributes_as_they_were():
    import math

    import tinytorch

    ns = load(WRAPPED + "\ndef refused(x):\n    return x if x.sum() > 0 else -x\n", "tinytorch")
    before = (tinytorch.nn.Module.__call__, tinytorch.nn.Module.__getattr__, math.sqrt, ns["leaf_helper"])
    ns["fx"].symbolic_trace(ns["uses_wrapped"])
    with pytest.raises(ns["fx"].proxy.TraceError):
        ns["fx"].symbolic_trace(ns["refused"])
    assert (tinytorch.nn.Module.__call__, tinytorch.nn.Module.__getattr__, math.sqrt, ns["leaf_helper"]) == before
    assert "len" not in ns  # the global that stood in for the builtin is gone again


def test_modules_run_as_usual_in_another_thread_while_tracing():
    # the tracer stands in for Module.__call__ and __getattr__ on the class; another thread is not traced
    import threading

    import tinytorch

    other = tinytorch.nn.Linear(3, 2)
    x = tinytorch.ones(1, 3)
    seen = {}

    class Traced(tinytorch.nn.Module):
        def __init__(self):
            super().__init__()
            self.lin = tinytorch.nn.Linear(3, 3)

        def forward(self, inp):
            def elsewhere():
                seen["out"] = other(x)
                seen["weight"] = other.weight

            worker = threading.Thread(target=elsewhere)
            worker.start()
            worker.join()
            return self.lin(inp)

    gm = tinytorch.fx.symbolic_trace(Traced())
    assert [n.op for n in gm.graph.nodes] == ["placeholder", "call_module", "output"]
    assert type(seen["out"]) is tinytorch.Tensor and seen["weight"] is other.weight
    assert tinytorch.equal(seen["out"], other(x))
