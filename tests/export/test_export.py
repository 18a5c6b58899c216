"""torch.export.export of a small MLP and of a conv+BatchNorm model (eval): ``print(ep)``, the graph signature, the
lifted state and ``ep.module()``'s numbers as PyTorch 2.13's. The ``# File:`` comments name each library's own
files, so they are compared by their count and place only."""
import re
import sys

import numpy as np
import pytest

sys.path.insert(0, __file__.rsplit("/tests/", 1)[0] + "/tests/fx")
from _fx_compare import load  # noqa: E402

MODELS = """
class MLP(nn.Module):
    def __init__(self):
        super().__init__()
        self.fc1 = nn.Linear(4, 8)
        self.fc2 = nn.Linear(8, 2)

    def forward(self, x):
        return self.fc2(torch.relu(self.fc1(x)))


class ConvBN(nn.Module):
    def __init__(self):
        super().__init__()
        self.conv = nn.Conv2d(3, 4, 3, padding=1)
        self.bn = nn.BatchNorm2d(4)

    def forward(self, x):
        return torch.relu(self.bn(self.conv(x)))


class Overloads(nn.Module):
    # where with number operands, clamp, masked_fill, squeeze and leaky_relu: PyTorch's overloads and arguments
    def forward(self, x):
        return (torch.where(x > 0, x, 0.0) + torch.where(x > 0, 1.0, x) + x.clamp(min=0.5)
                + x.masked_fill(x > 1, 2.0) + x[None].squeeze(0) + nn.functional.leaky_relu(x, 0.2))


class Unflatten(nn.Module):
    # a composite PyTorch keeps in export's graph (aten.unflatten.int) and decomposes into a view
    def forward(self, x):
        return x.unflatten(-1, (2, 2)).sum(-1).sum(-1, keepdim=True) + torch.unflatten(x, 0, [3, 1]).squeeze(1)


class Reductions(nn.Module):
    # ops outside the core ATen opset (squeeze's dim and all-dims forms, sum of everything), and amax/prod's overloads
    def forward(self, x):
        return (x.squeeze(-1) + x.squeeze().sum() + torch.squeeze(x.unsqueeze(0)).sum() + x.squeeze(0).sum()
                + x.amax() + x.prod() + x.amin(0) + x.t().sum() + x.unsqueeze(-1).squeeze(-1).sum(1).sum())


class Spreads(nn.Module):
    # var/std by the overload each call chose (export's pre-dispatch graph), std as var's square root in core ATen;
    # linalg's norms as called, then as linalg_vector_norm; avg_pool1d as called, then as avg_pool2d between views
    def forward(self, x):
        return (x.var(1) + x.std(0, False, True).sum() + x.var(unbiased=False) + x.var(dim=None, keepdim=True).sum()
                + torch.std_mean(x)[0] + torch.var_mean(x, correction=2)[1] + x.std(1, keepdim=True).sum()
                + x.norm() + torch.linalg.norm(x, dim=1) + torch.linalg.norm(x, "fro") + torch.linalg.norm(x, 3, 1)
                + torch.linalg.matrix_norm(x) + torch.linalg.matrix_norm(x, "fro", (0, 1), True).sum() + x.var()
                + nn.functional.avg_pool1d(x[None], 2, 1, 1, True, False)[0].sum(-1))


class ListIndex(nn.Module):
    # list and range indices: tensors the program makes, lifted into the program as constant inputs (a list of bools
    # is left out: its result's size is data-dependent, an unbacked symbol in PyTorch's export)
    def forward(self, x):
        return x[[0, 2, 2]] * 2 + x[:, [1, 0, 0, 3]] + x[range(3)] + x[1:, [0, 1]].sum(1).sum()


class PReLU(nn.Module):
    # prelu as called (pre-dispatch), then the weight's view and _prelu_kernel's formula (where, gt, mul)
    def __init__(self):
        super().__init__()
        self.channels, self.shared = nn.PReLU(3, 0.2), nn.PReLU()

    def forward(self, x):
        return self.shared(self.channels(x))


class NewFactories(nn.Module):
    # a tensor's own factories: each size as a list, new_full's fill value after it, pin_memory from Python
    def forward(self, x):
        return x + x.new_full((3, 4), 7) + x.new_zeros(3, 4) + x.new_ones((3, 4)) + torch.zeros_like(x.new_empty([3, 4]))


class Fills(nn.Module):
    # the fills as export's decompositions write them: full_like (zero_ and fill_ on a clone functionalised)
    def forward(self, x):
        y = x.clone()
        y.zero_()
        z = (x * 2).fill_(2.5)
        return torch.zeros_like(x) + y + z * torch.ones_like(x) + torch.full_like(x, 3)


class FillDtypes(nn.Module):
    def forward(self, x):
        return torch.zeros_like(x, dtype=torch.float64) + torch.ones_like(x, dtype=torch.int64), torch.empty_like(x)


class FillView(nn.Module):
    # a write into a view stays in place (PyTorch scatters it into the base; the printed graphs differ)
    def forward(self, x):
        y = x.clone()
        y[0].zero_()
        y[1].fill_(2.0)
        return y


class NewFilled(nn.Module):
    # the same factories as export's decompositions write them: full (new_empty's own value is never read alone)
    def forward(self, x):
        return x + x.new_full((3, 4), 7) + x.new_zeros(3, 4) + x.new_ones((3, 4))
"""

SHAPES = {"MLP": (3, 4), "ConvBN": (2, 3, 5, 5), "Overloads": (3, 4), "Unflatten": (3, 4), "Reductions": (3, 1),
          "Spreads": (3, 4), "ListIndex": (3, 4), "PReLU": (2, 3, 4),
          "NewFactories": (3, 4), "NewFilled": (3, 4), "Fills": (3, 4), "FillDtypes": (3, 4), "FillView": (3, 4)}


def _export(library: str, name: str):
    ns = load(MODELS, library)
    torch = ns["torch"]
    torch.manual_seed(0)
    model = ns[name]().eval()
    x = torch.tensor(np.random.default_rng(0).standard_normal(SHAPES[name]).astype(np.float32))
    return torch.export.export(model, (x,)), model, x


def _without_files(text: str) -> str:
    return re.sub(r"# File: .*", "# File: ...", text)


@pytest.mark.parametrize("name", ["MLP", "ConvBN", "Overloads", "Unflatten", "Reductions", "Spreads", "ListIndex",
                                  "PReLU", "NewFactories"])
def test_export_prints_pytorchs_program(torch, name):
    theirs, _, _ = _export("torch", name)
    ours, model, x = _export("tinytorch", name)
    assert _without_files(str(ours)) == _without_files(str(theirs)), f"--- PyTorch\n{theirs}\n--- tinytorch\n{ours}"
    assert ours.graph_module.code == theirs.graph_module.code
    assert str(ours.graph_signature) == str(theirs.graph_signature)
    for attr in ("user_inputs", "user_outputs", "parameters", "buffers", "lifted_tensor_constants"):
        assert getattr(ours.graph_signature, attr) == getattr(theirs.graph_signature, attr)
    assert list(ours.state_dict) == list(theirs.state_dict)
    np.testing.assert_allclose(ours.module()(x).detach().numpy(), model(x).detach().numpy(), rtol=1e-6, atol=1e-6)


@pytest.mark.parametrize("name", ["MLP", "Unflatten", "Reductions", "Spreads", "ListIndex", "PReLU",
                                  "NewFilled", "Fills", "FillDtypes"])
def test_run_decompositions_prints_pytorchs_program(torch, name):
    theirs, ours = _export("torch", name)[0], _export("tinytorch", name)[0]
    assert ours.run_decompositions().graph_module.code == theirs.run_decompositions().graph_module.code


def test_export_refuses_what_it_does_not_do():
    import tinytorch
    with pytest.raises(ValueError, match="Expected `mod` to be an instance of `torch.nn.Module`"):
        tinytorch.export.export(lambda x: x, (tinytorch.ones(2),))
    ep = tinytorch.export.export(tinytorch.nn.Linear(2, 2), (tinytorch.ones(1, 2),))
    with pytest.raises(RuntimeError, match="Unable to call ExportedProgram directly"):
        ep(tinytorch.ones(1, 2))


@pytest.mark.parametrize("body", ["y.add_(1)", "y += x", "y.mul_(2)", "y.sub_(x)", "y.relu_()", "y.exp_()",
                                  "y.clamp_(0, 1)", "y.zero_()", "y.fill_(2.5)"])
def test_run_decompositions_keeps_in_place_writes(torch, body):
    """An in-place method on a clone: the exported program and its decomposition compute the eager value, as
    PyTorch's do (the decomposition's graph lost ``add_``, ``clamp_`` and ``exp_``: ``torch.ops.aten.add_`` held
    ``Tensor.add_`` as found before the capture swapped in its recording wrapper)."""
    src = f"""
class InPlace(nn.Module):
    def forward(self, x):
        y = x.clone()
        {body}
        return y * 1
"""
    results = []
    for library in ("torch", "tinytorch"):
        ns = load(src, library)
        lib = ns["torch"]
        x = lib.tensor([-0.5, 0.25, 2.0])
        ep = lib.export.export(ns["InPlace"](), (x,))
        results.append([m(x).tolist() for m in (ns["InPlace"](), ep.module(), ep.run_decompositions().module())])
    np.testing.assert_allclose(results[1], results[0], rtol=1e-6)  # (exp's last bit: numpy's, not SLEEF's)


@pytest.mark.parametrize("name", ["Fills", "FillDtypes", "FillView"])
def test_run_decompositions_of_fills_compute_eagers_values(torch, name):
    ep, model, x = _export("tinytorch", name)
    want = model(x)
    want = want if isinstance(want, tuple) else (want,)
    got = ep.run_decompositions().module()(x)
    got = got if isinstance(got, tuple) else (got,)
    assert len(got) == len(want)
    for i, (g, w) in enumerate(zip(got, want)):
        assert g.dtype == w.dtype and g.shape == w.shape
        if not (name == "FillDtypes" and i == 1):  # (empty_like's values are whatever the memory held)
            np.testing.assert_array_equal(g.numpy(), w.numpy())


@pytest.mark.parametrize("spelling", ["exp_", "relu_", "sigmoid_", "tanh_", "neg_", "abs_", "sqrt_", "clamp_"])
def test_torch_inplace_function_spellings_are_recorded(torch, spelling):
    """``torch.exp_(y)`` (the function spelling of ``y.exp_()``) is a node of the exported program, as in PyTorch:
    it was run uncaptured and left out, so the program returned ``y`` unwritten."""
    import tinytorch

    def program(lib):
        class M(lib.nn.Module):
            def forward(self, x):
                y = x.clone()
                args = (y, None, 2.0) if spelling == "clamp_" else (y,)
                getattr(lib, spelling)(*args)
                return y * 2

        x = lib.tensor([0.25, 1.0, 2.5])
        ep = lib.export.export(M(), (x,))
        return ep.graph_module.code, ep.module()(x).numpy(), M()(x).numpy()

    theirs, ours = program(torch), program(tinytorch)
    assert ours[0] == theirs[0]
    np.testing.assert_array_equal(ours[1], ours[2])  # the exported program computes what the module computes
    np.testing.assert_allclose(ours[1], theirs[1], rtol=1e-6)


def test_torch_inplace_function_spelling_in_a_compiled_step():
    """The same spelling inside torch.compile writes its tensor on every call (replayed, never dropped)."""
    import tinytorch

    def f(x):
        y = x.clone()
        tinytorch.exp_(y)
        return y + 1

    cf = tinytorch.compile(f)
    for v in ([0.0, 1.0], [2.0, -1.0], [0.5, 0.5]):
        x = tinytorch.tensor(v)
        np.testing.assert_array_equal(cf(x).numpy(), f(x).numpy())
