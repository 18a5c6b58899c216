"""Module API against PyTorch: registration, iteration order, state_dict round trips and their
errors (RELIABILITY rows 30-32), modes, conversion, hooks, containers and Parameter."""
import copy
import pickle
import re
import warnings
from collections import OrderedDict

import numpy as np
import pytest

import tinytorch as tt
import tinytorch.nn as nn


def _quickstart(lib):
    class NeuralNetwork(lib.nn.Module):
        def __init__(self):
            super().__init__()
            self.flatten = lib.nn.Flatten()
            self.linear_relu_stack = lib.nn.Sequential(
                lib.nn.Linear(28 * 28, 512), lib.nn.ReLU(), lib.nn.Linear(512, 512), lib.nn.ReLU(),
                lib.nn.Linear(512, 10))

        def forward(self, x):
            return self.linear_relu_stack(self.flatten(x))

    return NeuralNetwork()


def _spelt_ours(text: str) -> str:
    """PyTorch's text with ``torch.`` spelt ``tinytorch.``."""
    return re.sub(r"(?<!tiny)torch\.", "tinytorch.", text)


def _same_text(ours: str, theirs: str) -> None:
    assert ours == _spelt_ours(theirs)


# -- the quickstart model -------------------------------------------------------------------------
def test_quickstart_print_and_state_dict_match_torch(torch):
    ours, theirs = _quickstart(tt), _quickstart(torch)
    assert repr(ours) == repr(theirs)
    assert str(ours) == str(theirs)
    sd, ref = ours.state_dict(), theirs.state_dict()
    assert isinstance(sd, OrderedDict)
    assert list(sd) == list(ref)
    assert [tuple(v.shape) for v in sd.values()] == [tuple(v.shape) for v in ref.values()]
    assert [n for n, _ in ours.named_parameters()] == [n for n, _ in theirs.named_parameters()]


def test_quickstart_with_torch_weights_gives_torch_logits_and_gradients(torch):
    ours, theirs = _quickstart(tt), _quickstart(torch)
    ours.load_state_dict({k: tt.tensor(v.numpy()) for k, v in theirs.state_dict().items()})
    x = np.random.default_rng(0).uniform(0, 1, (8, 1, 28, 28)).astype(np.float32)
    y = np.array([0, 1, 2, 3, 4, 5, 6, 9])
    logits, ref_logits = ours(tt.tensor(x)), theirs(torch.tensor(x))
    np.testing.assert_allclose(logits.detach().numpy(), ref_logits.detach().numpy(), atol=1e-5)
    loss, ref_loss = nn.CrossEntropyLoss()(logits, tt.tensor(y)), torch.nn.CrossEntropyLoss()(ref_logits,
                                                                                               torch.tensor(y))
    np.testing.assert_allclose(loss.item(), ref_loss.item(), atol=1e-5)
    loss.backward()
    ref_loss.backward()
    for (name, p), (_, q) in zip(ours.named_parameters(), theirs.named_parameters()):
        np.testing.assert_allclose(p.grad.numpy(), q.grad.numpy(), atol=1e-5, err_msg=name)


# -- registration and lookup ----------------------------------------------------------------------
def _tree(lib):
    """A tree with a shared child and a shared parameter, a buffer and a non-persistent buffer."""
    shared = lib.nn.Linear(2, 2)
    root = lib.nn.Module()
    root.a = lib.nn.Sequential(shared, lib.nn.ReLU())
    root.b = shared
    root.c = lib.nn.ModuleList([lib.nn.Linear(2, 3, bias=False), None])
    root.c[0].tied = shared.weight
    root.register_buffer("steps", lib.zeros(1))
    root.register_buffer("scratch", lib.ones(2), persistent=False)
    return root


def test_iteration_order_and_dedup_match_torch(torch):
    ours, theirs = _tree(tt), _tree(torch)
    for args in [(), ("prefix",)]:
        assert [n for n, _ in ours.named_modules(prefix=args[0] if args else "")] == \
            [n for n, _ in theirs.named_modules(prefix=args[0] if args else "")]
    assert [n for n, _ in ours.named_modules(remove_duplicate=False)] == \
        [n for n, _ in theirs.named_modules(remove_duplicate=False)]
    assert [n for n, _ in ours.named_parameters()] == [n for n, _ in theirs.named_parameters()]
    assert [n for n, _ in ours.named_parameters(remove_duplicate=False)] == \
        [n for n, _ in theirs.named_parameters(remove_duplicate=False)]
    assert [n for n, _ in ours.named_parameters(recurse=False)] == []
    assert [n for n, _ in ours.named_children()] == [n for n, _ in theirs.named_children()]
    assert [n for n, _ in ours.named_buffers()] == [n for n, _ in theirs.named_buffers()]
    assert list(ours.state_dict()) == list(theirs.state_dict())
    assert len(list(ours.parameters())) == len(list(theirs.parameters())) == 3
    assert len(list(ours.modules())) == len(list(theirs.modules()))


def test_attribute_errors_match_torch(torch):
    def errors(lib):
        m = lib.nn.Linear(2, 3)
        out = []
        for action in [lambda: m.foo, lambda: setattr(m, "weight", lib.zeros(3, 2)),
                       lambda: m.register_buffer("weight", lib.zeros(1)), lambda: m.register_buffer("a.b", None),
                       lambda: m.register_buffer("", None), lambda: m.register_buffer("x", 3),
                       lambda: m.register_parameter("p", lib.zeros(2)), lambda: m.add_module("x", 3),
                       lambda: m.add_module("bias", lib.nn.ReLU()), lambda: m.add_module("a.b", lib.nn.ReLU()),
                       lambda: m.get_submodule("a"), lambda: m.get_parameter("foo"),
                       lambda: m.get_submodule("weight"), lambda: m.get_buffer("weight"),
                       lambda: m.train("yes"), lambda: m.to(lib.int64), lambda: lib.nn.Module()(1)]:
            try:
                action()
                out.append(None)
            except Exception as e:  # noqa: BLE001 - the type and text are what is compared
                out.append((type(e).__name__, _spelt_ours(str(e))))
        return out

    assert errors(tt) == errors(torch)


def test_setattr_routing_and_delattr():
    m = nn.Module()
    m.p = nn.Parameter(tt.zeros(2))
    assert "p" in m._parameters and "p" not in m.__dict__
    m.p = None
    assert m.p is None and list(m.parameters()) == []
    with pytest.raises(TypeError, match="cannot assign 'tinytorch.FloatTensor' as parameter 'p'"):
        m.p = tt.zeros(2)
    m.child = nn.ReLU()
    with pytest.raises(TypeError, match=r"cannot assign 'int' as child module 'child' \(tinytorch.nn.Module or None"):
        m.child = 3
    m.register_buffer("buf", tt.zeros(1))
    m.buf = tt.ones(1)  # a tensor over a buffer name replaces the buffer
    assert m._buffers["buf"].item() == 1.0
    m.child = nn.Parameter(tt.zeros(1))  # a parameter over a module name moves it
    assert "child" in m._parameters and "child" not in m._modules
    del m.child, m.buf
    assert not hasattr(m, "child") and not hasattr(m, "buf")
    m.plain = 3
    del m.plain
    with pytest.raises(AttributeError, match="^'Module' object has no attribute 'plain'$"):
        _ = m.plain
    with pytest.raises(AttributeError, match="cannot assign parameters before Module.__init__"):
        class Early(nn.Module):
            def __init__(self):
                self.w = nn.Parameter(tt.zeros(1))
        Early()


def test_dir_lists_members_but_not_digit_names(torch):
    ours, theirs = _tree(tt), _tree(torch)
    assert {"a", "b", "c", "steps", "scratch", "forward", "training"} <= set(dir(ours))
    assert "0" not in dir(ours.a)
    assert [k for k in dir(ours.c[0]) if not k.startswith("_")] == \
        [k for k in dir(theirs.c[0]) if not k.startswith("_") and k in dir(ours.c[0])]


def test_get_submodule_parameter_buffer():
    root = _tree(tt)
    assert root.get_submodule("a.0") is root.b
    assert root.get_parameter("a.0.bias") is root.b.bias
    assert root.get_buffer("steps") is root.steps
    assert root.get_submodule("") is root


# -- state_dict / load_state_dict ------------------------------------------------------------------
def test_state_dict_values_are_detached_views():
    m = nn.Linear(3, 2)
    sd = m.state_dict()
    assert not sd["weight"].requires_grad and type(sd["weight"]) is tt.Tensor
    sd["weight"].zero_()
    assert (m.weight.detach().numpy() == 0).all()  # shares storage
    assert m.state_dict(keep_vars=True)["weight"] is m.weight
    assert list(m.state_dict(prefix="lin.")) == ["lin.weight", "lin.bias"]


def test_non_persistent_buffers_and_buffer_marker():
    m = nn.Module()
    m.register_buffer("kept", tt.zeros(1))
    m.register_buffer("temp", tt.zeros(1), persistent=False)
    m.marked = nn.Buffer(tt.ones(2), persistent=False)
    assert list(m.state_dict()) == ["kept"]
    assert [n for n, _ in m.named_buffers()] == ["kept", "temp", "marked"]


def test_load_state_dict_copies_in_place():
    m = nn.Linear(4, 2)
    w, b = m.weight, m.bias
    ptr = w.data_ptr()
    new = {"weight": tt.ones(2, 4), "bias": tt.full((2,), 3.0, dtype=tt.float64)}
    keys = m.load_state_dict(new)
    assert repr(keys) == "<All keys matched successfully>"
    assert m.weight is w and m.bias is b and w.data_ptr() == ptr and w.requires_grad
    assert (w.detach().numpy() == 1).all() and b.dtype == tt.float32 and (b.detach().numpy() == 3).all()
    new["weight"].add_(1)  # the model holds a copy, not the caller's tensor
    assert (w.detach().numpy() == 1).all()


def test_load_state_dict_errors_rows_30_to_32(torch):
    def attempt(lib, sd, strict):
        m = lib.nn.Linear(4, 2)
        before = m.bias.detach().numpy().copy()
        try:
            keys = m.load_state_dict(sd(lib), strict=strict)
            return repr(keys), (m.bias.detach().numpy() == before).all()
        except RuntimeError as e:
            return _spelt_ours(str(e)), None

    cases = [lambda lib: {"weight": lib.zeros(2, 4), "foo": lib.zeros(1)},
             lambda lib: {"weight": lib.zeros(3, 4), "bias": lib.zeros(2)},
             lambda lib: {"weight": lib.zeros(3, 4), "foo": lib.zeros(1)},
             lambda lib: {"weight": lib.zeros(2, 4), "bias": 3}]
    for sd in cases:
        for strict in (True, False):
            assert attempt(tt, sd, strict) == attempt(torch, sd, strict)
    assert attempt(tt, cases[0], True)[0] == ('Error(s) in loading state_dict for Linear:\n\tMissing key(s) in '
                                             'state_dict: "bias". \n\tUnexpected key(s) in state_dict: "foo". ')
    missing, unexpected = nn.Linear(4, 2).load_state_dict(cases[0](tt), strict=False)
    assert (missing, unexpected) == (["bias"], ["foo"])


def test_load_state_dict_nested_unexpected_and_assign(torch):
    ours, theirs = _quickstart(tt), _quickstart(torch)
    sd = {k: v.numpy() for k, v in theirs.state_dict().items()}
    sd["linear_relu_stack.1.weight"] = np.zeros(1, np.float32)  # ReLU has no parameters
    sd["linear_relu_stack.9.weight"] = np.zeros(1, np.float32)  # no such child
    del sd["linear_relu_stack.4.bias"]
    r1 = ours.load_state_dict({k: tt.tensor(v) for k, v in sd.items()}, strict=False)
    r2 = theirs.load_state_dict({k: torch.tensor(v) for k, v in sd.items()}, strict=False)
    assert repr(r1) == repr(r2)
    lin = nn.Linear(2, 2)
    fresh = tt.ones(2, 2)
    lin.load_state_dict({"weight": fresh, "bias": tt.zeros(2)}, assign=True)
    assert isinstance(lin.weight, nn.Parameter) and lin.weight.requires_grad
    assert lin.weight.data_ptr() == fresh.data_ptr()


def test_state_dict_round_trip_between_models():
    a, b = _quickstart(tt), _quickstart(tt)
    b.load_state_dict(a.state_dict())
    x = tt.rand(2, 28, 28)
    np.testing.assert_array_equal(a(x).detach().numpy(), b(x).detach().numpy())


# -- modes, gradients, conversion -----------------------------------------------------------------
def test_train_eval_propagate():
    m = _quickstart(tt)
    assert m.training and all(c.training for c in m.modules())
    assert m.eval() is m
    assert not any(c.training for c in m.modules())
    m.linear_relu_stack.train()
    assert not m.training and m.linear_relu_stack[0].training


def test_zero_grad_and_requires_grad():
    m = nn.Linear(3, 2)
    m(tt.ones(1, 3)).sum().backward()
    m.zero_grad(set_to_none=False)
    assert (m.weight.grad.numpy() == 0).all() and not m.weight.grad.requires_grad
    m.zero_grad()
    assert m.weight.grad is None and m.bias.grad is None
    assert m.requires_grad_(False) is m and not m.weight.requires_grad


def test_to_dtype_keeps_parameter_identity(torch):
    m = nn.Linear(3, 2)
    m.register_buffer("count", tt.zeros(1, dtype=tt.int64))
    w = m.weight
    m(tt.ones(1, 3)).sum().backward()
    assert m.to(tt.float64) is m
    assert m.weight is w and w.dtype == tt.float64 and w.grad.dtype == tt.float64
    assert m.count.dtype == tt.int64
    assert m.float().weight.dtype == tt.float32 and m.double().bias.dtype == tt.float64
    assert m.to("cpu") is m and m.cpu() is m and m.to(tt.device("cpu"), dtype=tt.float32).weight.dtype == tt.float32
    with pytest.raises(TypeError, match="nn.Module.to only accepts floating point"):
        m.to(tt.int32)


def test_apply_visits_children_first():
    m = _quickstart(tt)
    seen = []
    m.apply(lambda mod: seen.append(type(mod).__name__))
    assert seen == ["Flatten", "Linear", "ReLU", "Linear", "ReLU", "Linear", "Sequential", "NeuralNetwork"]


def test_custom_extra_repr_matches_torch(torch):
    def build(lib):
        class Block(lib.nn.Module):
            def __init__(self):
                super().__init__()
                self.fc = lib.nn.Linear(2, 2)

            def extra_repr(self):
                return "scale=2,\nshift=1"
        outer = lib.nn.Sequential(Block(), lib.nn.Dropout(0.1))
        outer.add_module("empty", None)
        return outer

    assert repr(build(tt)) == repr(build(torch))


# -- hooks ----------------------------------------------------------------------------------------
def _hook_log(lib):
    log = []
    lin = lib.nn.Linear(3, 2)
    with lib.no_grad():
        lin.weight.copy_(lib.tensor(np.arange(6, dtype=np.float32).reshape(2, 3) / 10))
        lin.bias.copy_(lib.tensor([0.5, -0.5]))

    def arr(g):
        return None if g is None else np.round(g.detach().numpy(), 4).tolist()

    def backward_hook(m, grad_in, grad_out):
        log.append(("bwd", [arr(g) for g in grad_in], [arr(g) for g in grad_out]))
        return None if grad_in[0] is None else (grad_in[0] * 2,)

    lin.register_full_backward_hook(backward_hook)
    lin.register_full_backward_pre_hook(lambda m, go: log.append(("bwd_pre", [arr(g) for g in go])))
    lin.register_forward_hook(lambda m, args, out: out * 3)
    lin.register_forward_hook(lambda m, args, kwargs, out: log.append(("fwd_kw", sorted(kwargs))),
                              with_kwargs=True)
    lin.register_forward_pre_hook(lambda m, args: args[0] + 1)
    handle = lin.register_forward_pre_hook(lambda m, args: log.append("first"), prepend=True)
    removed = lin.register_forward_hook(lambda m, args, out: log.append("never"))
    removed.remove()
    x = lib.tensor([[1.0, 2.0, 3.0], [4.0, 5.0, 6.0]], requires_grad=True)
    y = lin(x)
    log.append(("y", arr(y), y.grad_fn.name()))
    y.sum().backward()
    log.append(("x.grad", arr(x.grad), arr(lin.weight.grad)))
    handle.remove()
    with warnings.catch_warnings(record=True) as w:
        warnings.simplefilter("always")
        lin(lib.tensor([[1.0, 2.0, 3.0]])).sum().backward()
    log.append(("warned", [str(i.message)[:60] for i in w]))
    return log


def test_hooks_fire_and_replace_like_torch(torch):
    assert _hook_log(tt) == _hook_log(torch)


def test_no_hooks_means_plain_forward():
    calls = []

    class Probe(nn.Module):
        def forward(self, x, scale=1):
            calls.append(scale)
            return x * scale

    p = Probe()
    assert p(tt.ones(1), scale=3).item() == 3 and calls == [3]


# -- containers -----------------------------------------------------------------------------------
def test_sequential_operations_match_torch(torch):
    def build(lib):
        seq = lib.nn.Sequential(lib.nn.Linear(1, 2), lib.nn.ReLU(), lib.nn.Linear(2, 3), lib.nn.Tanh())
        out = [repr(seq[-1]), repr(seq[1:3]), type(seq[1:3]).__name__, len(seq)]
        seq.append(lib.nn.Sigmoid()).insert(1, lib.nn.Identity()).extend([lib.nn.Softmax(1)])
        del seq[2]
        seq[0] = lib.nn.Linear(1, 5)
        seq.insert(-1, lib.nn.GELU())
        popped = seq.pop(-1)
        out += [repr(seq), repr(popped), len(seq), list(seq._modules), repr(seq + seq[:1]), repr(seq[:2] * 2)]
        named = lib.nn.Sequential(OrderedDict([("first", lib.nn.ReLU()), ("second", lib.nn.Flatten(0, -1))]))
        out += [repr(named), repr(named.first), repr(named[1])]
        for bad in (lambda: seq[10], lambda: seq.insert(20, lib.nn.ReLU())):
            with pytest.raises(IndexError) as e:
                bad()
            out.append(str(e.value))
        return out

    assert build(tt) == build(torch)


def test_module_list_and_dict_match_torch(torch):
    def build(lib):
        ml = lib.nn.ModuleList([lib.nn.ReLU(), lib.nn.ReLU(), lib.nn.Linear(2, 2), lib.nn.ReLU()])
        out = [repr(ml), repr(lib.nn.ModuleList()), repr(ml[1:]), len(ml)]
        ml.insert(0, lib.nn.Tanh())
        ml += [lib.nn.Tanh()]
        del ml[1:3]
        out += [repr(ml), list(ml._modules), repr(ml[-1])]
        md = lib.nn.ModuleDict({"act": lib.nn.ReLU(), "lin": lib.nn.Linear(1, 1)})
        md.update([("drop", lib.nn.Dropout())])
        out += [repr(md), list(md), "lin" in md, len(md), repr(md.pop("act")), list(md.keys())]
        return out

    assert build(tt) == build(torch)
    with pytest.raises(TypeError, match="ModuleList.extend should be called with an iterable, but got int"):
        nn.ModuleList().extend(3)


def test_sequential_forward_chains_modules():
    seq = nn.Sequential(nn.Flatten(), nn.Linear(4, 3), nn.ReLU())
    x = tt.randn(2, 2, 2)
    ref = seq[2](seq[1](seq[0](x)))
    np.testing.assert_array_equal(seq(x).detach().numpy(), ref.detach().numpy())


# -- Parameter ------------------------------------------------------------------------------------
def test_parameter_behaviour(torch):
    data = tt.tensor([[1.0, -2.0], [0.5, 4.0]])
    p = nn.Parameter(data)
    assert isinstance(p, tt.Tensor) and isinstance(p, nn.Parameter)
    assert p.is_leaf and p.requires_grad and p.data_ptr() == data.data_ptr()
    ref = torch.nn.Parameter(torch.tensor([[1.0, -2.0], [0.5, 4.0]]))
    _same_text(repr(p), repr(ref))
    frozen = nn.Parameter(tt.zeros(2), requires_grad=False)
    _same_text(repr(frozen), repr(torch.nn.Parameter(torch.zeros(2), requires_grad=False)))
    assert type(p * 2) is tt.Tensor and type(p.detach()) is tt.Tensor and (p * 2).grad_fn is not None
    assert nn.Parameter().shape == (0,)
    with pytest.raises(RuntimeError, match="^Only Tensors of floating point and complex dtype can require gradients$"):
        nn.Parameter(tt.tensor([1, 2]))
    nn.Parameter(tt.tensor([1, 2]), requires_grad=False)


def test_parameter_pickle_and_deepcopy():
    m = nn.Linear(3, 2)
    m(tt.ones(1, 3)).sum().backward()
    for clone in (pickle.loads(pickle.dumps(m)), copy.deepcopy(m)):
        assert type(clone.weight) is nn.Parameter and clone.weight.requires_grad
        assert clone.weight.data_ptr() != m.weight.data_ptr()
        np.testing.assert_array_equal(clone.weight.detach().numpy(), m.weight.detach().numpy())
    assert copy.deepcopy(m).weight.grad is None  # as PyTorch: a deep-copied parameter starts without grad
