"""``scripted.graph`` and ``.code`` print PyTorch's compiled TorchScript (``tinytorch/jit/_script_ir.py``).

Each program is written to a file twice, once importing ``torch`` and once ``tinytorch as torch``, under the same
module name in two folders; both libraries script it and the texts are compared whole after one normalisation: the
folder in the source comments (``# <folder>/prog.py:4:16``) and PyTorch's ``___torch_mangle_<n>.`` (it counts the
classes scripted in the process). Most programs come from a generator of random straight-line programs; the rest
are rows it found or that show a rule (a literal made once per value, a negated one folded, parentheses)."""
import importlib.util
import random
import re
import warnings

import pytest

import tinytorch as tt
from tinytorch.jit import _script_ir

pytestmark = pytest.mark.filterwarnings("ignore::DeprecationWarning")


def _load(folder, lib_import: str, source: str):
    folder.mkdir(exist_ok=True)
    path = folder / "prog.py"
    path.write_text(f"{lib_import}\n\n\n{source}")
    spec = importlib.util.spec_from_file_location("prog", path)
    module = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(module)
    return module


def _texts(lib, obj) -> tuple:
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        scripted = lib.jit.script(obj)
    return str(scripted.graph), scripted.code


def _compare(torch, tmp_path, source: str, name: str, module: bool = False) -> None:
    ref = _load(tmp_path / "ref", "import torch", source)
    ours = _load(tmp_path / "ours", "import tinytorch as torch", source)
    make = (lambda m: getattr(m, name)()) if module else (lambda m: getattr(m, name))
    want = _texts(torch, make(ref))
    got = _texts(tt, make(ours))
    normalised = tuple(re.sub(r"___torch_mangle_\d+\.", "", t).replace(str(tmp_path / "ref"), str(tmp_path / "ours"))
                       for t in want)
    assert got == normalised, f"{source}\n--- PyTorch:\n{normalised[0]}{normalised[1]}\n--- tinytorch:\n{got[0]}{got[1]}"


# -- rows ----------------------------------------------------------------------------------------------
_ROWS = {
    "issue": """\
@torch.jit.script
def f(x, y):
    z = x * y + 1
    return z.relu()
""",
    "literal_once_per_value": """\
def f(x):
    a = x * 2
    b = x + 2
    return x * 3 + a + b
""",
    "negated_literals": """\
def f(x):
    a = x.view(-1)
    b = a * -1
    return b - -2.5, x * 2 + x.view(-1)
""",
    "parentheses_and_dead_code": """\
def f(x, y):
    u = x - x
    v = (x + y) * 2
    return (v)
""",
    "defaults_and_lists": """\
def f(x):
    return torch.softmax(x, 1), x.t(), x.mean(), torch.sum(x, 0), x.sum(1), x ** 2, x @ x
""",
    "reassigned_and_aliased": """\
def f(x: torch.Tensor, y):
    \"\"\"a docstring\"\"\"
    a = x
    a = a * 2.0
    a = a / y
    b = a
    return b, a, -x
""",
    "expressions_over_lines": """\
def f(x, y):
    z = torch.matmul(x,
                     y) + (x *
                           2)
    return (z,
            -z)
""",
    "unused_parameter_and_long_lines": """\
def f(x, y, zzz):
    return torch.matmul(x, y).tanh() + x
""",
}


@pytest.mark.parametrize("name", sorted(_ROWS))
def test_script_function_rows(torch, tmp_path, name):
    _compare(torch, tmp_path, _ROWS[name], "f")


# one program for each overload _script_ir follows (its VERIFIED): positional, keyword, list and varargs forms
_VERIFIED_PROGRAMS = {
    "add.Tensor": "def f(x, y):\n    return x + y, x + 1, x + 2.5, torch.add(x, y), x.add(y, alpha=2), torch.add(x, 1),"
                  " x.add(1.5, alpha=-1)\n",
    "sub.Tensor": "def f(x, y):\n    return x - y, x - -1, torch.sub(x, y), torch.sub(x, y, alpha=-1.5),"
                  " x.sub(2, alpha=3)\n",
    "mul.Tensor": "def f(x, y):\n    return x * y, x * 0.5, torch.mul(x, y), torch.mul(x, -1), x.mul(y)\n",
    "div.Tensor": "def f(x, y):\n    return x / y, x / 3, torch.div(x, y), x.div(2.0)\n",
    "pow.Tensor_Scalar": "def f(x):\n    return x ** 2, x.pow(0.5), torch.pow(x, -1)\n",
    "pow.Tensor_Tensor": "def f(x, y):\n    return x ** y, x.pow(y)\n",
    "matmul.default": "def f(x, y):\n    return x @ y, torch.matmul(x, y), x.matmul(y)\n",
    "neg.default": "def f(x):\n    return -x, torch.neg(x), x.neg()\n",
    "relu.default": "def f(x):\n    return torch.relu(x), x.relu()\n",
    "tanh.default": "def f(x):\n    return torch.tanh(x), x.tanh()\n",
    "sigmoid.default": "def f(x):\n    return torch.sigmoid(x), x.sigmoid()\n",
    "exp.default": "def f(x):\n    return torch.exp(x), x.exp()\n",
    "t.default": "def f(x):\n    return x.t(), torch.t(x)\n",
    "sum.default": "def f(x):\n    return x.sum(), torch.sum(x)\n",
    "sum.dim_IntList": "def f(x):\n    return x.sum(1), x.sum(dim=0), x.sum(0, keepdim=True), x.sum(keepdim=True, dim=1),"
                       " x.sum([0, 1]), torch.sum(x, -1, True)\n",
    "mean.default": "def f(x):\n    return x.mean(), torch.mean(x)\n",
    "softmax.int": "def f(x):\n    return torch.softmax(x, 1), x.softmax(-1), torch.softmax(x, dim=0)\n",
    "log_softmax.int": "def f(x):\n    return torch.log_softmax(x, 1), x.log_softmax(dim=-1)\n",
    "view.default": "def f(x):\n    return x.view(-1), x.view(2, 3), x.view([2, -1]), x.view(2, -1, 1)\n",
    "reshape.default": "def f(x):\n    return x.reshape(-1), x.reshape(3, 2), torch.reshape(x, [6])\n",
    "permute.default": "def f(x):\n    return x.permute(1, 0), x.permute([1, 0]), torch.permute(x, [0, 1])\n",
    "transpose.int": "def f(x):\n    return x.transpose(0, 1), torch.transpose(x, -1, -2)\n",
    "flatten.using_ints": "def f(x):\n    return x.flatten(), x.flatten(1), torch.flatten(x, 0, -1)\n",
    "unsqueeze.default": "def f(x):\n    return x.unsqueeze(0), torch.unsqueeze(x, -1)\n",
    "expand.default": "def f(x):\n    return x.expand(2, 3), x.expand([4, 2, 3])\n",
    "cat.default": "def f(x, y):\n    return torch.cat([x, y]), torch.cat([x, y, x], 1), torch.cat([y], dim=-1)\n",
    "stack.default": "def f(x, y):\n    return torch.stack([x, y]), torch.stack([x, y], 1)\n",
    "cumsum.default": "def f(x):\n    return x.cumsum(1), torch.cumsum(x, 0)\n",
    "logsumexp.default": "def f(x):\n    return x.logsumexp(1), torch.logsumexp(x, [0, 1], True)\n",
    "amax.default": "def f(x):\n    return torch.amax(x, 1), x.amax(1, True), x.amax()\n",
    "mm.default": "def f(x, y):\n    return torch.mm(x, y), x.mm(y)\n",
    "addmm.default": "def f(x, y):\n    return torch.addmm(x, x, y), x.addmm(y, y)\n",
    "flip.default": "def f(x):\n    return torch.flip(x, [0]), x.flip(0, 1)\n",
    "tril.default": "def f(x):\n    return torch.tril(x), x.tril(1), torch.tril(x, -1)\n",
    "triu.default": "def f(x):\n    return torch.triu(x), x.triu(1)\n",
    "roll.default": "def f(x):\n    return torch.roll(x, 1, 0), x.roll(1), x.roll([1, 2], [0, 1])\n",
}


@pytest.mark.parametrize("overload", sorted(_script_ir.VERIFIED))
def test_script_verified_overloads(torch, tmp_path, overload):
    _compare(torch, tmp_path, _VERIFIED_PROGRAMS[overload], "f")


# -- random straight-line programs ------------------------------------------------------------------
def _program(seed: int) -> str:
    """A function of 1-3 tensors: a few assignments (some reassigning, some unused) of random expressions, then a
    return of one or several variables or expressions."""
    rng = random.Random(seed)
    params = ["x", "y", "w"][:rng.randint(1, 3)]
    names = list(params)
    numbers = ["1", "2", "0", "3", "2.5", "1.0", "0.5", "-1", "-2.0"]

    def tensor(depth: int) -> str:
        if depth <= 0 or rng.random() < 0.3:
            return rng.choice(names)
        kind = rng.randrange(14)
        a = operand(depth - 1)
        if kind == 0:
            return f"{a} {rng.choice('+-*/')} {operand(depth - 1)}"
        if kind == 1:
            return f"{a} {rng.choice('+-*/')} {rng.choice(numbers)}"
        if kind == 2:
            return f"torch.{rng.choice(['relu', 'tanh', 'sigmoid', 'exp', 'neg'])}({a})"
        if kind == 3:
            return f"({a}).{rng.choice(['relu', 'tanh', 'sigmoid', 't'])}()"
        if kind == 4:
            return f"({a}).sum({rng.choice(['', '0', '1', '-1'])})"
        if kind == 5:
            return f"torch.softmax({a}, {rng.choice(['0', '1', '-1'])})"
        if kind == 6:
            return f"torch.matmul({a}, {tensor(depth - 1)})"
        if kind == 7:
            return f"({a}) ** {rng.choice(['2', '0.5', '3'])}"
        if kind == 8:
            return f"-({a})"
        dim = rng.choice(['0', '1', '-1'])
        if kind == 9:
            return f"torch.{rng.choice(['cat', 'stack'])}([{a}, {operand(depth - 1)}], {dim})"
        if kind == 10:
            return f"({a}).{rng.choice(['view', 'reshape'])}({rng.choice(['-1', '2, -1', '[3, 2]', '-1, 1, 2'])})"
        if kind == 12:
            other = rng.choice([operand(depth - 1), rng.choice(numbers)])
            alpha = rng.choice(["", "", ", alpha=2", ", alpha=-0.5"])
            op = rng.choice(["add", "sub"] if alpha else ["add", "sub", "mul", "div"])
            return f"({a}).{op}({other}{alpha})" if rng.random() < 0.5 else f"torch.{op}({a}, {other}{alpha})"
        if kind == 11:
            return f"({a}).sum({rng.choice([dim + ', True', 'dim=' + dim, dim + ', keepdim=False', '[0, 1]'])})"
        return f"torch.{rng.choice(['transpose', 'flatten'])}({a}, 0, {dim})"
    def operand(depth: int) -> str:  # (parenthesised unless one token: no number ends up on an operator's left)
        text = tensor(depth)
        return f"({text})" if " " in text else text
    lines = []
    for _ in range(rng.randint(0, 4)):
        target = rng.choice(names + ["a", "b", "c"]) if rng.random() < 0.4 else rng.choice(["a", "b", "c", "h"])
        lines.append(f"    {target} = {tensor(rng.randint(1, 3))}")
        if target not in names:
            names.append(target)
    outs = [rng.choice(names) if rng.random() < 0.5 else tensor(2) for _ in range(rng.randint(1, 3))]
    lines.append(f"    return {', '.join(outs)}")
    return f"def f({', '.join(params)}):\n" + "\n".join(lines) + "\n"


@pytest.mark.parametrize("seed", range(40))
def test_script_random_programs(torch, tmp_path, seed):
    _compare(torch, tmp_path, _program(seed), "f")


# -- modules --------------------------------------------------------------------------------------------
_MODULES = """\
class M(torch.nn.Module):
    def __init__(s):
        super().__init__()
        s.l = torch.nn.Linear(3, 2)

    def forward(s, x):
        return torch.tanh(s.l(x))


class N(torch.nn.Module):
    def __init__(self):
        super().__init__()
        self.l = torch.nn.Linear(3, 3)
        self.w = torch.nn.Parameter(torch.ones(3))

    def forward(self, x):
        y = x * 2
        z = self.l(y) + self.l(x)
        return z * self.w, y


class Outer(torch.nn.Module):
    def __init__(self):
        super().__init__()
        self.m = M()
        self.fc = torch.nn.Linear(3, 3)

    def forward(self, x):
        a = self.fc(x)
        return self.m(a) / 2.0


class NeuralNetwork(torch.nn.Module):  # PyTorch's quickstart
    def __init__(self):
        super().__init__()
        self.flatten = torch.nn.Flatten()
        self.linear_relu_stack = torch.nn.Sequential(
            torch.nn.Linear(28*28, 512),
            torch.nn.ReLU(),
            torch.nn.Linear(512, 10),
        )

    def forward(self, x):
        x = self.flatten(x)
        logits = self.linear_relu_stack(x)
        return logits


class Stack(torch.nn.Module):
    def __init__(self):
        super().__init__()
        self.body = torch.nn.Sequential(M(), torch.nn.Tanh())

    def forward(self, x):
        return self.body(x)
"""


@pytest.mark.parametrize("name", ["M", "N", "Outer", "NeuralNetwork", "Stack"])
def test_script_module(torch, tmp_path, name):
    _compare(torch, tmp_path, _MODULES, name, module=True)


def _module_program(seed: int) -> str:
    """A module with a few submodules and a parameter whose forward mixes their calls with tensor arithmetic."""
    rng = random.Random(seed)
    subs = [(f"l{i}", rng.choice(["torch.nn.Linear(4, 4)", "torch.nn.ReLU()", "torch.nn.Tanh()"]))
            for i in range(rng.randint(1, 3))]
    me = rng.choice(["self", "s"])
    init = "".join(f"        {me}.{n} = {m}\n" for n, m in subs)
    names = ["x"]
    lines = []

    def expr(depth: int) -> str:
        kind = rng.randrange(5) if depth > 0 else 0
        if kind == 0:
            return rng.choice(names)
        if kind == 1:
            return f"{me}.{rng.choice(subs)[0]}({expr(depth - 1)})"
        if kind == 2:
            return f"({expr(depth - 1)}) * {me}.w"
        if kind == 3:
            return f"({expr(depth - 1)}) {rng.choice('+-')} ({expr(depth - 1)})"
        return f"torch.relu({expr(depth - 1)})"
    for _ in range(rng.randint(0, 3)):
        target = rng.choice(["a", "b", "x"])
        lines.append(f"        {target} = {expr(2)}")
        names.append(target)
    outs = [expr(2) for _ in range(rng.randint(1, 2))]
    lines.append(f"        return {', '.join(outs)}")
    return (f"class M(torch.nn.Module):\n    def __init__({me}):\n        super().__init__()\n{init}"
            f"        {me}.w = torch.nn.Parameter(torch.ones(4))\n\n    def forward({me}, x):\n" + "\n".join(lines)
            + "\n")


@pytest.mark.parametrize("seed", range(15))
def test_script_random_modules(torch, tmp_path, seed):
    _compare(torch, tmp_path, _module_program(seed), "M", module=True)


# -- refusals -------------------------------------------------------------------------------------------
@pytest.mark.parametrize("body, what", [
    ("    if x.sum() > 0:\n        x = x + 1\n    return x", "the statement If"),
    ("    for i in range(2):\n        x = x + 1\n    return x", "the statement For"),
    ("    return 2 * x", "a number on the left of 2 \\* x"),
    ("    return x.sum(axis=0)", "torch.sum with these arguments"),
    ("    return x.mean(1)", "aten::mean.dim, which tinytorch has not compared"),
    ("    return torch.max(x, 0)", "torch.max"),
    ("    return [y for y in (x, x)][0]", "the expression"),
    ("    n = 2\n    return x * n", "not a tensor"),
    ("    return x.view(2, 3.0)", "torch.view with these arguments"),
    ("    return x.sum(0) if True else x", "the expression IfExp"),
    ("    return x + True", "the number True"),
    ("    return torch.nn.functional.relu(x)", "the expression Attribute"),
    ("    return F.relu(x)", "the call F.relu\\(x\\) \\(a Python function"),
])
def test_script_outside_the_subset_refused(tmp_path, body, what):
    program = _load(tmp_path, "import tinytorch as torch\nimport tinytorch.nn.functional as F", f"def f(x):\n{body}\n")
    scripted = tt.jit.script(program.f)
    for attr in ("graph", "code"):
        with pytest.raises(NotImplementedError, match=what):
            getattr(scripted, attr)


def test_script_return_annotation(torch, tmp_path):
    _compare(torch, tmp_path, "def f(x) -> torch.Tensor:\n    return x.relu()\n", "f")
    program = _load(tmp_path / "optional", "import tinytorch as torch\nfrom typing import Optional",
                    "def f(x) -> Optional[torch.Tensor]:\n    return x.relu()\n")
    with pytest.raises(NotImplementedError, match=r"the return annotation Optional\[torch.Tensor\]"):
        _ = tt.jit.script(program.f).code


def test_script_without_source_refused():
    scripted = tt.jit.script(eval("lambda x: x + 1"))  # noqa: S307 - no source to compile
    with pytest.raises(NotImplementedError, match="source"):
        _ = scripted.graph
