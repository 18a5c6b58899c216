"""inference_mode against PyTorch: inference tensors, their errors, inference_mode(False), nesting."""
import pytest

import tinytorch

from _oracle import torch  # noqa: E402  (PyTorch when a test reads it)


def _run(lib, body):
    try:
        return ("ok", body(lib))
    except Exception as e:  # noqa: BLE001  (the error itself is what is compared)
        return (type(e).__name__, str(e).replace("tinytorch.", "torch."))


def _norm(x):
    if isinstance(x, (tuple, list)):
        return tuple(_norm(v) for v in x)
    if isinstance(x, (tinytorch.Tensor, torch.Tensor)):
        return ("T", x.tolist(), x.requires_grad, type(x.grad_fn).__name__ if x.grad_fn is not None else None)
    return x


def _same(body):
    a, b = _run(tinytorch, body), _run(torch, body)
    assert _norm(a) == _norm(b), (a, b)


def _made_inside(lib):
    with lib.inference_mode():
        return lib.ones(3) * 2


CASES = {
    "flags_inside": lambda L: _flags_inside(L),
    "made_inside_is_inference": lambda L: (_made_inside(L).is_inference(), L.ones(2).is_inference()),
    "version_raises": lambda L: _made_inside(L)._version,
    "inplace_outside": lambda L: _made_inside(L).add_(1),
    "inplace_outside_mul": lambda L: _made_inside(L).mul_(2),
    "inplace_outside_setitem": lambda L: _made_inside(L).__setitem__(0, 1.0),
    "inplace_outside_zero": lambda L: _made_inside(L).zero_(),
    "requires_grad_outside": lambda L: _made_inside(L).requires_grad_(),
    "saved_for_backward": lambda L: L.ones(3, requires_grad=True) * _made_inside(L),
    "saved_by_exp_input": lambda L: (L.ones(3, requires_grad=True) + 0).pow(_made_inside(L)),
    "not_saved_is_fine": lambda L: L.ones(3, requires_grad=True) + _made_inside(L),
    "plain_use_outside": lambda L: (_made_inside(L) * 3, (_made_inside(L) * 3).is_inference()),
    "clone_is_normal": lambda L: (_made_inside(L).clone().is_inference(),
                                  L.ones(3, requires_grad=True) * _made_inside(L).clone()),
    "detach_and_view_stay": lambda L: (_made_inside(L).detach().is_inference(), _made_inside(L)[0].is_inference(),
                                       _made_inside(L).view(3, 1).is_inference()),
    "inplace_inside_ok": lambda L: _inplace_inside(L),
    "normal_view_inside": lambda L: _normal_view_inside(L),
    "mode_false_inside": lambda L: _mode_false(L),
    "decorators": lambda L: _decorators(L),
    "no_graph_inside": lambda L: _no_graph(L),
}


def _flags_inside(L):
    with L.inference_mode():
        inner = (L.is_inference_mode_enabled(), L.is_grad_enabled())
    return inner, L.is_inference_mode_enabled(), L.is_grad_enabled()


def _inplace_inside(L):
    with L.inference_mode():
        x = L.ones(3)
        x.add_(1)
        x[0] = 5.0
        return x, x.is_inference()


def _normal_view_inside(L):
    n = L.ones(3)
    with L.inference_mode():
        v = n[:2]
        v.add_(1)
        w = n * 1
    return v.is_inference(), n._version, w.is_inference(), n


def _mode_false(L):
    with L.inference_mode():
        with L.inference_mode(False):
            inner = (L.is_inference_mode_enabled(), L.is_grad_enabled(), L.ones(1).is_inference())
        after = L.is_inference_mode_enabled()
    with L.no_grad():
        with L.inference_mode(False):
            off = L.is_grad_enabled()
    return inner, after, off


def _decorators(L):
    @L.inference_mode
    def f():
        return L.ones(1)

    @L.inference_mode(mode=False)
    def g():
        return L.ones(1)
    with L.inference_mode():
        gi = g().is_inference()
    return f().is_inference(), gi


def _no_graph(L):
    a = L.ones(2, requires_grad=True)
    with L.inference_mode():
        y = a * 2
        z = L.ones(2, requires_grad=True)
    return y.requires_grad, y.grad_fn, y.is_inference(), z.requires_grad, z.is_inference(), z.is_leaf


@pytest.mark.parametrize("name", list(CASES))
def test_inference_mode_vs_torch(name):
    _same(CASES[name])


def test_inference_tensors_skip_version_bookkeeping():
    # inside the mode in-place ops on inference tensors count nothing; normal tensors still count
    n = tinytorch.ones(3)
    with tinytorch.inference_mode():
        x = tinytorch.ones(3)
        for _ in range(3):
            x.add_(1)
        n.add_(1)
        assert x.is_inference() and not n.is_inference()
    assert n._version == 1 and x.tolist() == [4.0, 4.0, 4.0]


def _grad_mode_inside(L):
    x = L.ones(2, requires_grad=True)
    out = []
    with L.inference_mode():
        out.append(L.is_grad_enabled())
        with L.enable_grad():  # grad mode on, as is_grad_enabled says, yet inference mode records nothing
            y = (x * x).sum()
            out += [L.is_grad_enabled(), y.requires_grad, y.is_inference()]
        with L.set_grad_enabled(True):
            out += [L.is_grad_enabled(), x.exp().requires_grad]
        with L.no_grad():
            with L.enable_grad():
                out.append(L.is_grad_enabled())
            out.append(L.is_grad_enabled())
        L.set_grad_enabled(True)
        out += [L.is_grad_enabled(), (x * 2).requires_grad]

        @L.enable_grad()
        def f(t):
            return (t * 3).requires_grad, L.is_grad_enabled()
        out.append(f(x))
        with L.inference_mode(False):
            with L.enable_grad():
                z = x * 2
                out += [z.requires_grad, type(z.grad_fn).__name__, z.is_inference()]
        out.append(L.autograd.functional.jacobian(lambda t: t * t, L.ones(2)))  # no graph: zeros
        out.append(L.func.grad(lambda t: (t * t).sum())(L.ones(2)))  # the transforms still differentiate
    out += [L.is_grad_enabled(), (x * 2).requires_grad]
    return out


def _optimizer_on_inference_params(L):
    with L.inference_mode():
        model = L.nn.Linear(2, 2)
    opt = L.optim.SGD(model.parameters(), lr=0.1)
    model(L.ones(1, 2)).sum().backward()
    before = model.weight.clone()
    try:
        opt.step()
    finally:
        assert L.equal(model.weight, before)  # refused before anything was written


def _parameter_of_inference_tensor(L):
    with L.inference_mode():
        t = L.ones(3)
    return L.nn.Parameter(t)


def _parameter_inside_inference_mode(L):
    with L.inference_mode():
        p = L.nn.Parameter(L.ones(3))
        return p.is_inference(), p.requires_grad


@pytest.mark.parametrize("body", [_grad_mode_inside, _optimizer_on_inference_params, _parameter_of_inference_tensor,
                                  _parameter_inside_inference_mode, lambda L: L.nn.Parameter(L.ones(2)) * 1])
def test_grad_mode_parameters_and_optimizers_vs_torch(body):
    _same(body)
