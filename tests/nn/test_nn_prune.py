"""torch.nn.utils.prune against PyTorch: the same program, seeded the same, run by both libraries must
prune the same entries (the random methods draw PyTorch's stream bit for bit), leave the same
parameters, buffers, state_dict keys and forward pre-hooks, compute the same forwards and gradients,
refuse what PyTorch refuses with its messages, and write state_dicts each library loads from the other.
The last test runs examples/pruning_tutorial.py (PyTorch's pruning tutorial on LeNet) under both."""
import _paths
import _repo
import copy
import io
import os
import re
import subprocess
import sys

import numpy as np
import pytest
from _raises_same import raises_same

import tinytorch as tt
import tinytorch.nn.utils.prune as tprune

ROOT = _repo.ROOT


def _np(x):
    return None if x is None else x.detach().numpy().copy()


def _prune_mod(lib):
    if lib is tt:
        return tprune
    import torch.nn.utils.prune as prune  # PyTorch's torch.nn.utils does not import it

    return prune


def lenet(lib):
    nn, F = lib.nn, lib.nn.functional

    class LeNet(nn.Module):
        def __init__(self):
            super().__init__()
            self.conv1 = nn.Conv2d(1, 6, 3)
            self.conv2 = nn.Conv2d(6, 16, 3)
            self.fc1 = nn.Linear(16 * 5 * 5, 120)
            self.fc2 = nn.Linear(120, 84)
            self.fc3 = nn.Linear(84, 10)

        def forward(self, x):
            x = F.max_pool2d(F.relu(self.conv1(x)), (2, 2))
            x = F.max_pool2d(F.relu(self.conv2(x)), 2)
            x = x.view(-1, int(x.nelement() / x.shape[0]))
            x = F.relu(self.fc1(x))
            x = F.relu(self.fc2(x))
            return self.fc3(x)

    return LeNet()


def snapshot(lib, model, x=None):
    """Everything pruning leaves on a model, as plain values: parameter and buffer names and values,
    state_dict keys, each module's pruning hooks (class, tensor name, a container's methods), the pruned
    attributes, and with ``x`` the forward and the gradients of every parameter."""
    prune = _prune_mod(lib)
    out = {"params": [(n, _np(p)) for n, p in model.named_parameters()],
           "buffers": [(n, _np(b)) for n, b in model.named_buffers()],
           "state_dict": list(model.state_dict().keys()), "hooks": [], "attrs": [], "is_pruned": prune.is_pruned(model)}
    for mname, m in model.named_modules():
        for k, hook in m._forward_pre_hooks.items():
            if isinstance(hook, prune.BasePruningMethod):
                inner = [type(h).__name__ for h in hook] if isinstance(hook, prune.PruningContainer) else None
                out["hooks"].append((mname, k - min(m._forward_pre_hooks), type(hook).__name__, hook._tensor_name,
                                     inner))
                t = getattr(m, hook._tensor_name)
                out["attrs"].append((mname, hook._tensor_name, type(t).__name__.replace("Parameter", "Tensor"),
                                     _np(t), t.requires_grad, type(t.grad_fn).__name__ if t.grad_fn else None))
    if x is not None:
        y = model(lib.tensor(x))
        y.sum().backward()
        out["forward"] = _np(y)
        out["grads"] = [(n, _np(p.grad)) for n, p in model.named_parameters()]
    return out


def assert_same(a, b, path="", exact=True):
    if isinstance(a, dict):
        assert a.keys() == b.keys(), path
        for k in a:
            assert_same(a[k], b[k], f"{path}.{k}", exact)
    elif isinstance(a, (list, tuple)):
        assert len(a) == len(b), (path, a, b)
        for i, (u, v) in enumerate(zip(a, b)):
            assert_same(u, v, f"{path}[{i}]", exact)
    elif isinstance(a, np.ndarray):
        assert a.dtype == b.dtype and a.shape == b.shape, path
        if exact:
            np.testing.assert_array_equal(a, b, err_msg=path)
        else:
            np.testing.assert_allclose(a, b, rtol=1e-5, atol=1e-6, err_msg=path)
    elif isinstance(a, float) and not exact:
        assert abs(a - b) <= 1e-5 * max(1.0, abs(b)), (path, a, b)
    else:
        assert a == b, (path, a, b)


def run_both(torch, program, x=None, exact=True):
    """``program(lib, prune, model)`` on a freshly seeded LeNet in each library; the snapshots must agree
    (parameters, masks and pruned weights exactly; forwards and gradients to float32 rounding)."""
    models = {}
    for lib in (tt, torch):
        lib.manual_seed(0)
        models[lib] = lenet(lib)
    # the initial weights are PyTorch's draws (bit for bit on its FMA paths); elsewhere tinytorch's model
    # takes PyTorch's parameters, so that what pruning does next starts from the same bits
    for (n, a), (_, b) in zip(models[tt].state_dict().items(), models[torch].state_dict().items()):
        _paths.assert_drawn(a, b, what=n)
    _paths.adopt_state(models[tt], models[torch])
    results = []
    for lib in (tt, torch):
        model = models[lib]
        ret = program(lib, _prune_mod(lib), model)
        snap = snapshot(lib, model, x)
        snap["ret"] = ret
        results.append(snap)
    ours, theirs = results
    for key in ("forward", "grads"):
        if key in ours:
            assert_same(ours.pop(key), theirs.pop(key), key, exact=False)
    assert_same(ours, theirs, exact=exact)
    return ours


X = np.random.default_rng(0).standard_normal((2, 1, 28, 28)).astype(np.float32)

# one pruning call each: (module, name, method, args)
SINGLE = [
    ("conv1", "weight", "random_unstructured", dict(amount=0.3)),
    ("conv1", "bias", "random_unstructured", dict(amount=2)),
    ("fc1", "weight", "random_unstructured", dict(amount=0.75)),
    ("conv2", "weight", "l1_unstructured", dict(amount=0.2)),
    ("conv1", "bias", "l1_unstructured", dict(amount=3)),
    ("fc2", "weight", "l1_unstructured", dict(amount=1.0)),
    ("fc3", "weight", "l1_unstructured", dict(amount=0)),
    ("conv1", "weight", "random_structured", dict(amount=0.5, dim=0)),
    ("conv2", "weight", "random_structured", dict(amount=2, dim=1)),
    ("fc1", "weight", "random_structured", dict(amount=0.3, dim=-1)),
    ("conv2", "weight", "random_structured", dict(amount=0, dim=3)),
    ("conv1", "weight", "ln_structured", dict(amount=0.5, n=2, dim=0)),
    ("conv2", "weight", "ln_structured", dict(amount=3, n=1, dim=1)),
    ("fc1", "weight", "ln_structured", dict(amount=0.25, n=float("inf"), dim=0)),
    ("fc2", "weight", "ln_structured", dict(amount=10, n=float("-inf"), dim=1)),
    ("fc2", "weight", "ln_structured", dict(amount=0.4, n="fro", dim=-1)),
    ("conv2", "weight", "ln_structured", dict(amount=0.4, n=3, dim=-1)),
    ("fc3", "bias", "identity", dict()),
]


@pytest.mark.parametrize("mname,pname,method,kwargs", SINGLE, ids=lambda v: str(v))
def test_single_pruning_matches_pytorch(torch, mname, pname, method, kwargs):
    def program(lib, prune, model):
        module = getattr(model, mname)
        ret = getattr(prune, method)(module, pname, **kwargs)
        assert ret is module
        mask = getattr(module, pname + "_mask")
        return (_np(mask), mask.dtype.is_floating_point, int((mask == 0).sum()))

    ours = run_both(torch, program, X)
    classes = {"identity": "Identity", "random_unstructured": "RandomUnstructured", "l1_unstructured": "L1Unstructured",
               "random_structured": "RandomStructured", "ln_structured": "LnStructured"}
    assert ours["hooks"][0][2:4] == (classes[method], pname)


def test_custom_from_mask_and_importance_scores(torch):
    def program(lib, prune, model):
        g = np.random.default_rng(1)
        mask = lib.tensor(g.integers(0, 2, (120, 400)).astype(np.float32))
        prune.custom_from_mask(model.fc1, "weight", mask=mask)
        scores = lib.tensor(g.standard_normal((6, 1, 3, 3)).astype(np.float32))
        prune.l1_unstructured(model.conv1, "weight", amount=20, importance_scores=scores)
        chan = lib.tensor(g.standard_normal((16, 6, 3, 3)).astype(np.float32))
        prune.ln_structured(model.conv2, "weight", amount=0.5, n=1, dim=0, importance_scores=chan)
        # custom_from_mask with a bool mask: the mask buffer is in the parameter's dtype
        prune.custom_from_mask(model.fc3, "bias", mask=lib.tensor([True, False] * 5))
        return str(model.fc3.bias_mask.dtype).split(".")[1]

    run_both(torch, program, X)


ITERATIVE = [
    ["random_unstructured(conv1, weight, amount=0.3)", "l1_unstructured(conv1, weight, amount=0.3)",
     "ln_structured(conv1, weight, amount=0.5, n=2, dim=0)"],
    ["ln_structured(conv2, weight, amount=0.25, n=1, dim=0)", "random_structured(conv2, weight, amount=0.5, dim=1)",
     "random_unstructured(conv2, weight, amount=100)", "l1_unstructured(conv2, weight, amount=0.1)"],
    ["l1_unstructured(fc1, weight, amount=0.5)", "random_structured(fc1, weight, amount=0.5, dim=0)",
     "random_structured(fc1, weight, amount=0.5, dim=0)", "identity(fc1, weight)",
     "ln_structured(fc1, weight, amount=0.2, n=inf, dim=1)"],
    ["random_unstructured(fc3, bias, amount=3)", "random_unstructured(fc3, bias, amount=3)",
     "l1_unstructured(fc3, bias, amount=0.5)", "random_unstructured(fc2, weight, amount=0.9)",
     "random_structured(fc2, weight, amount=10, dim=1)"],
]


def _call(prune, model, spec: str):
    name, rest = spec.split("(", 1)
    parts = [p.strip() for p in rest[:-1].split(",")]
    kwargs = {}
    for p in parts[2:]:
        k, v = p.split("=")
        kwargs[k] = v if v == "fro" else float(v) if ("." in v or v == "inf") else int(v)
    return getattr(prune, name)(getattr(model, parts[0]), parts[1], **kwargs)


@pytest.mark.parametrize("steps", ITERATIVE, ids=lambda s: " > ".join(x.split("(")[0] for x in s))
def test_iterative_pruning_builds_the_same_container(torch, steps):
    def program(lib, prune, model):
        masks = []
        for spec in steps:
            _call(prune, model, spec)
            mname, pname = [w.strip(" )") for w in spec.split("(")[1].split(",")[:2]]
            masks.append(_np(getattr(getattr(model, mname), pname + "_mask")))
        return masks

    ours = run_both(torch, program, X)
    assert any(h[2] == "PruningContainer" for h in ours["hooks"])


@pytest.mark.parametrize("method,amount", [("L1Unstructured", 0.2), ("L1Unstructured", 1000),
                                           ("RandomUnstructured", 0.35), ("RandomUnstructured", 7)])
@pytest.mark.parametrize("prepruned", [False, True])
def test_global_unstructured(torch, method, amount, prepruned):
    def program(lib, prune, model):
        if prepruned:
            prune.random_structured(model.conv2, "weight", amount=0.25, dim=0)
            prune.l1_unstructured(model.fc1, "weight", amount=0.5)
        params = [(model.conv1, "weight"), (model.conv2, "weight"), (model.fc1, "weight"), (model.fc2, "weight"),
                  (model.fc3, "weight"), (model.fc3, "bias")]
        prune.global_unstructured(params, pruning_method=getattr(prune, method), amount=amount)
        return [float((getattr(m, n) == 0).sum()) for m, n in params]

    run_both(torch, program, X)


def test_global_unstructured_importance_scores(torch):
    def program(lib, prune, model):
        g = np.random.default_rng(2)
        scores = {(model.fc2, "weight"): lib.tensor(g.standard_normal((84, 120)).astype(np.float32))}
        params = [(model.fc1, "weight"), (model.fc2, "weight")]
        prune.global_unstructured(params, prune.L1Unstructured, importance_scores=scores, amount=0.3)

    run_both(torch, program, X)


@pytest.mark.parametrize("steps", [["random_unstructured(conv1, weight, amount=0.3)"],
                                   ITERATIVE[0], ITERATIVE[3]])
def test_remove_makes_pruning_permanent(torch, steps):
    def program(lib, prune, model):
        for spec in steps:
            _call(prune, model, spec)
        for spec in steps:
            mname, pname = [w.strip(" )") for w in spec.split("(")[1].split(",")[:2]]
            module = getattr(model, mname)
            if hasattr(module, pname + "_orig"):
                assert prune.remove(module, pname) is module
        return prune.is_pruned(model)

    ours = run_both(torch, program, X)
    assert not ours["is_pruned"] and not ours["hooks"] and ours["ret"] is False


def test_prune_method_instances_and_manual_containers(torch):
    def program(lib, prune, model):
        t = model.fc2.weight.detach()
        a = prune.L1Unstructured(amount=0.4).prune(t)
        b = prune.RandomUnstructured(amount=50).prune(t, default_mask=(t > 0).float())
        c = prune.LnStructured(amount=2, n=2, dim=0).prune(t, importance_scores=t.abs())
        d = prune.RandomStructured(amount=0.5, dim=1).compute_mask(t, lib.ones_like(t))
        m1, m2 = prune.L1Unstructured(0.1), prune.RandomStructured(0.2, 0)
        m1._tensor_name = m2._tensor_name = "w"
        cont = prune.PruningContainer()
        cont._tensor_name = "w"
        cont.add_pruning_method(m1)
        cont.add_pruning_method(m2)
        e = cont.compute_mask(t, lib.ones_like(t))
        f = prune.PruningContainer(m1)
        f.add_pruning_method(m2)
        return [_np(a), _np(b), _np(c), _np(d), _np(e), len(cont), [type(m).__name__ for m in f], f[0] is m1]

    run_both(torch, program)


def test_pruned_module_trains_on_orig_and_deepcopies(torch):
    def program(lib, prune, model):
        prune.random_unstructured(model.fc1, "weight", amount=0.5)
        prune.l1_unstructured(model.conv1, "bias", amount=2)
        opt = lib.optim.SGD(model.parameters(), lr=0.1)
        x = lib.tensor(X)
        losses = []
        for _ in range(3):
            opt.zero_grad()
            loss = model(x).pow(2).mean()
            loss.backward()
            opt.step()
            losses.append(loss.item())
        return [losses, _np(model.fc1.weight_orig.grad * (1 - model.fc1.weight_mask))]

    ours = run_both(torch, program, X, exact=False)
    assert not ours["ret"][1].any()  # the pruned entries get no gradient


def test_deepcopy_of_a_pruned_module_is_refused_as_in_pytorch(torch):
    """The pruned weight is a non-leaf attribute: PyTorch's deepcopy refuses it (and names weight_norm)."""
    def make(lib):
        m = lib.nn.Linear(3, 2)
        _prune_mod(lib).random_unstructured(m, "weight", 0.5)
        return lambda: copy.deepcopy(m)

    raises_same(make(torch), make(tt))


def _save(lib, obj):
    buf = io.BytesIO()
    lib.save(obj, buf)
    buf.seek(0)
    return buf


def test_state_dicts_load_across_libraries(torch):
    """A pruned model's state_dict (weight_orig, weight_mask) saved by either library loads into the other's
    model pruned the same way, and the forward pre-hooks then compute the same weights."""
    def pruned(lib, seed):
        lib.manual_seed(seed)
        model = lenet(lib)
        prune = _prune_mod(lib)
        prune.random_unstructured(model.conv1, "weight", amount=0.3)
        prune.ln_structured(model.conv1, "weight", amount=0.5, n=2, dim=0)
        prune.l1_unstructured(model.fc1, "bias", amount=10)
        return model

    for src, dst in ((tt, torch), (torch, tt)):
        a, b = pruned(src, 0), pruned(dst, 1)
        sd = dst.load(_save(src, a.state_dict()))
        assert list(sd) == list(a.state_dict())
        b.load_state_dict(sd)
        ya, yb = a(src.tensor(X)), b(dst.tensor(X))
        np.testing.assert_allclose(_np(ya), _np(yb), rtol=1e-5, atol=1e-6)
        np.testing.assert_array_equal(_np(b.conv1.weight), _np(a.conv1.weight))
        np.testing.assert_array_equal(_np(b.conv1.weight_mask), _np(a.conv1.weight_mask))
    # into an unpruned model the keys do not fit, in both
    theirs = lenet(torch)
    ours = lenet(tt)
    raises_same(lambda: theirs.load_state_dict(torch.load(_save(tt, pruned(tt, 0).state_dict()))),
                lambda: ours.load_state_dict(tt.load(_save(torch, pruned(torch, 0).state_dict()))))


ERRORS = [
    lambda lib, p, m: p.random_unstructured(m.fc1, "weight", amount=1.5),
    lambda lib, p, m: p.random_unstructured(m.fc1, "weight", amount=-1),
    lambda lib, p, m: p.l1_unstructured(m.fc1, "weight", amount="half"),
    lambda lib, p, m: p.l1_unstructured(m.fc3, "bias", amount=11),
    lambda lib, p, m: p.random_structured(m.fc3, "bias", amount=1, dim=0),
    lambda lib, p, m: p.ln_structured(m.fc3, "weight", amount=1, n=2, dim=2),
    lambda lib, p, m: p.ln_structured(m.fc3, "weight", amount=11, n=2, dim=0),
    lambda lib, p, m: p.ln_structured(m.conv2, "weight", amount=0.4, n="fro", dim=-1),
    lambda lib, p, m: p.ln_structured(m.conv2, "weight", amount=0.4, n="nuc", dim=0),
    lambda lib, p, m: p.remove(m.fc3, "weight"),
    lambda lib, p, m: p.global_unstructured([(m.fc3, "weight")], p.RandomStructured, amount=1),
    lambda lib, p, m: p.global_unstructured(3, p.L1Unstructured, amount=1),
    lambda lib, p, m: p.global_unstructured([(m.fc3, "weight")], p.L1Unstructured, importance_scores=[], amount=1),
    lambda lib, p, m: p.custom_from_mask(m.fc3, "bias", mask=lib.ones(3)),
    lambda lib, p, m: p.l1_unstructured(m.fc3, "weight", amount=1, importance_scores=lib.ones(3)),
    lambda lib, p, m: p.L1Unstructured(0.5).prune(lib.ones(3), importance_scores=lib.ones(2)),
    lambda lib, p, m: p.PruningContainer(p.L1Unstructured.apply(m.fc3, "weight", 1)).add_pruning_method(3),
    lambda lib, p, m: p.PruningContainer(p.L1Unstructured.apply(m.fc3, "weight", 1)).add_pruning_method(
        p.L1Unstructured.apply(m.fc3, "bias", 1)),
]


@pytest.mark.parametrize("i", range(len(ERRORS)))
def test_errors_match_pytorch(torch, i):
    def call(lib):
        lib.manual_seed(0)
        model = lenet(lib)
        return lambda: ERRORS[i](lib, _prune_mod(lib), model)

    with pytest.raises(Exception) as expected:
        call(torch)()
    with pytest.raises(type(expected.value)) as got:
        call(tt)()
    assert _normalise(str(got.value)) == _normalise(str(expected.value))


def test_failed_pruning_rolls_back(torch):
    for lib in (tt, torch):
        model = lenet(lib)
        with pytest.raises(ValueError):
            _prune_mod(lib).l1_unstructured(model.fc3, "bias", amount=11)
        assert [n for n, _ in model.fc3.named_parameters()] == ["weight", "bias"]
        assert not _prune_mod(lib).is_pruned(model)


def test_custom_pruning_method_subclass(torch):
    def program(lib, prune, model):
        class FooBar(prune.BasePruningMethod):
            PRUNING_TYPE = "unstructured"

            def compute_mask(self, t, default_mask):
                mask = default_mask.clone()
                mask.view(-1)[::2] = 0
                return mask

        FooBar.apply(model.fc3, "bias")
        FooBar.apply(model.fc3, "bias")  # on what is left: a container
        return _np(model.fc3.bias_mask)

    run_both(torch, program, X)


def test_module_repr_and_namespace(torch):
    assert sorted(n for n in dir(_prune_mod(torch)) if not n.startswith("_") and n[0].isupper()) == sorted(
        n for n in dir(tprune) if not n.startswith("_") and n[0].isupper())
    for name in ["identity", "random_unstructured", "l1_unstructured", "random_structured", "ln_structured",
                 "global_unstructured", "custom_from_mask", "remove", "is_pruned"]:
        assert callable(getattr(tprune, name))
    m = tt.nn.Linear(3, 2)
    tprune.l1_unstructured(m, "weight", 1)
    assert repr(m) == "Linear(in_features=3, out_features=2, bias=True)"
    assert tt.nn.utils.prune is tprune


def _normalise(text: str) -> str:
    return re.sub(r"0x[0-9a-f]+", "ADDR", text.replace("tinytorch", "torch"))


def test_pruning_tutorial_example_prints_pytorchs_output(torch):
    script = os.path.join(ROOT, "examples", "pruning_tutorial.py")
    env = dict(os.environ, OMP_NUM_THREADS="1", OPENBLAS_NUM_THREADS="1", MKL_NUM_THREADS="1")
    outs = []
    for extra in ([], ["--torch"]):
        proc = subprocess.run([sys.executable, script, *extra], capture_output=True, text=True, timeout=300,
                              cwd=ROOT, env=env)
        assert proc.returncode == 0, proc.stderr[-3000:]
        outs.append(_normalise(proc.stdout))
    ours, theirs = outs
    assert "Global sparsity: 20.00%" in theirs
    assert ours == theirs
