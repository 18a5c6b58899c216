"""torch.func to the end, compared with PyTorch: PyTorch's "Model ensembling" and "Per-sample gradients"
tutorials as written (``stack_module_state`` + ``functional_call`` + ``vmap`` over a meta-device skeleton),
``vmap`` over stacked weights through the nn functionals (values and gradients), in-place ops on batched
tensors (BatchNorm's running statistics inside a vmapped ensemble), ``vmap`` over the function
``torch.func.vjp`` returns, functorch's ``make_functional`` era (``tinytorch._functorch``), gradcheck's
forward-mode and batched-gradient checks, and the ``torch._dynamo`` / ``cudnn.flags`` names scripts touch."""
from __future__ import annotations

import copy
import warnings

import numpy as np
import pytest

import tinytorch
from _messages import normalise


@pytest.fixture(scope="module")
def torch():
    return pytest.importorskip("torch")


def _np(x):
    return np.asarray(x.detach().double().tolist() if x.dim() else x.detach().double().item())


def _close(a, b, rtol=1e-5, atol=1e-6):
    if isinstance(a, (list, tuple)):
        assert len(a) == len(b)
        for x, y in zip(a, b):
            _close(x, y, rtol, atol)
        return
    if isinstance(a, dict):
        assert sorted(a) == sorted(b)
        for k in a:
            _close(a[k], b[k], rtol, atol)
        return
    np.testing.assert_allclose(_np(a), _np(b), rtol=rtol, atol=atol)


# -- the tutorials ------------------------------------------------------------------------------------------
def _ensembling(lib):
    """PyTorch's "Model ensembling" tutorial, smaller; returns what it prints and checks."""
    nn, F = lib.nn, lib.nn.functional
    lib.manual_seed(0)

    class SimpleMLP(nn.Module):
        def __init__(self):
            super().__init__()
            self.fc1 = nn.Linear(784, 32)
            self.fc2 = nn.Linear(32, 32)
            self.fc3 = nn.Linear(32, 10)

        def forward(self, x):
            x = x.flatten(1)
            x = F.relu(self.fc1(x))
            x = F.relu(self.fc2(x))
            return self.fc3(x)

    num_models = 4
    data = lib.randn(10, 8, 1, 28, 28)
    models = [SimpleMLP() for _ in range(num_models)]
    minibatches = data[:num_models]
    loop1 = [model(mb) for model, mb in zip(models, minibatches)]
    minibatch = data[0]
    loop2 = [model(minibatch) for model in models]
    params, buffers = lib.func.stack_module_state(models)
    base_model = copy.deepcopy(models[0]).to("meta")

    def fmodel(params, buffers, x):
        return lib.func.functional_call(base_model, (params, buffers), (x,))

    vmap1 = lib.func.vmap(fmodel)(params, buffers, minibatches)
    vmap2 = lib.func.vmap(fmodel, in_dims=(0, 0, None))(params, buffers, minibatch)
    return {"shapes": [tuple(p.shape) for p in params.values()], "requires_grad": [p.requires_grad for p in params.values()],
            "is_leaf": [p.is_leaf for p in params.values()], "vmap1": vmap1, "loop1": lib.stack(loop1),
            "vmap2": vmap2, "loop2": lib.stack(loop2), "skeleton": normalise(repr(base_model.fc1.weight)),
            "vmap1_grad_fn": vmap1.grad_fn.name() if vmap1.grad_fn else None}


def test_model_ensembling_tutorial(torch):
    got, expected = _ensembling(tinytorch), _ensembling(torch)
    for key in ("shapes", "requires_grad", "is_leaf", "skeleton"):
        assert got[key] == expected[key], key
    _close(got["vmap1"], expected["vmap1"], 1e-4, 1e-5)
    _close(got["vmap2"], expected["vmap2"], 1e-4, 1e-5)
    _close(got["vmap1"], got["loop1"], 1e-4, 1e-5)
    _close(got["vmap2"], got["loop2"], 1e-4, 1e-5)


def _per_sample_grads(lib):
    """PyTorch's "Per-sample gradients" tutorial, smaller: a CNN's per-sample gradients by a loop and by
    vmap(grad(functional_call))."""
    nn, F = lib.nn, lib.nn.functional
    lib.manual_seed(0)

    class SimpleCNN(nn.Module):
        def __init__(self):
            super().__init__()
            self.conv1 = nn.Conv2d(1, 4, 3, 1)
            self.conv2 = nn.Conv2d(4, 8, 3, 1)
            self.fc1 = nn.Linear(8 * 5 * 5, 16)
            self.fc2 = nn.Linear(16, 10)

        def forward(self, x):
            x = F.relu(self.conv1(x))
            x = F.relu(self.conv2(x))
            x = F.max_pool2d(x, 2)
            x = lib.flatten(x, 1)
            x = F.relu(self.fc1(x))
            return F.log_softmax(self.fc2(x), dim=1)

    def loss_fn(predictions, targets):
        return F.nll_loss(predictions, targets)

    data = lib.randn(4, 1, 14, 14)
    targets = lib.randint(10, (4,))
    model = SimpleCNN()

    def compute_grad(sample, target):
        prediction = model(sample.unsqueeze(0))
        return lib.autograd.grad(loss_fn(prediction, target.unsqueeze(0)), list(model.parameters()))

    loop = [lib.stack(shards) for shards in zip(*[compute_grad(data[i], targets[i]) for i in range(4)])]
    params = {k: v.detach() for k, v in model.named_parameters()}
    buffers = {k: v.detach() for k, v in model.named_buffers()}

    def compute_loss(params, buffers, sample, target):
        predictions = lib.func.functional_call(model, (params, buffers), (sample.unsqueeze(0),))
        return loss_fn(predictions, target.unsqueeze(0))

    ft = lib.func.vmap(lib.func.grad(compute_loss), in_dims=(None, None, 0, 0))(params, buffers, data, targets)
    return loop, ft


def test_per_sample_gradients_tutorial(torch):
    (loop_tt, ft_tt), (loop_t, ft_t) = _per_sample_grads(tinytorch), _per_sample_grads(torch)
    _close(list(ft_tt.values()), list(ft_t.values()), 1e-4, 1e-5)
    _close(loop_tt, loop_t, 1e-4, 1e-5)
    _close(list(ft_tt.values()), loop_tt, 1e-4, 1e-5)
    assert list(ft_tt) == list(ft_t)


# -- vmap over stacked weights through the nn functionals ------------------------------------------------------
B = 3
FUNCTIONALS = {
    "linear": (lambda F, w, b, x: F.linear(x, w, b), [(B, 4, 5), (B, 4), (2, 5)], (0, 0, None)),
    "linear_all_batched": (lambda F, w, b, x: F.linear(x, w, b), [(B, 4, 5), (B, 4), (B, 2, 5)], (0, 0, 0)),
    "linear_no_bias": (lambda F, w, x: F.linear(x, w), [(B, 4, 5), (2, 5)], (0, None)),
    "conv1d": (lambda F, w, b, x: F.conv1d(x, w, b, padding=1), [(B, 4, 2, 3), (B, 4), (2, 2, 7)], (0, 0, None)),
    "conv2d": (lambda F, w, b, x: F.conv2d(x, w, b, stride=2), [(B, 4, 2, 3, 3), (B, 4), (2, 2, 7, 7)], (0, 0, None)),
    "conv2d_groups": (lambda F, w, x: F.conv2d(x, w, groups=2), [(B, 4, 1, 3, 3), (2, 2, 6, 6)], (0, None)),
    "conv3d": (lambda F, w, x: F.conv3d(x, w), [(B, 2, 1, 2, 2, 2), (1, 1, 4, 4, 4)], (0, None)),
    "conv_transpose2d": (lambda F, w, x: F.conv_transpose2d(x, w), [(B, 2, 3, 3, 3), (1, 2, 4, 4)], (0, None)),
    "layer_norm": (lambda F, w, b, x: F.layer_norm(x, (5,), w, b), [(B, 5), (B, 5), (2, 5)], (0, 0, None)),
    "group_norm": (lambda F, w, b, x: F.group_norm(x, 2, w, b), [(B, 4), (B, 4), (2, 4, 3)], (0, 0, None)),
    "instance_norm": (lambda F, w, b, x: F.instance_norm(x, weight=w, bias=b), [(B, 2), (B, 2), (2, 2, 5)],
                      (0, 0, None)),
    "embedding": (lambda F, w: F.embedding(tinytorch_or_torch_index(w), w), [(B, 6, 3)], (0,)),
    "bilinear": (lambda F, w, b, x1, x2: F.bilinear(x1, x2, w, b), [(B, 4, 2, 3), (B, 4), (2, 2), (2, 3)],
                 (0, 0, None, None)),
    "mlp": (lambda F, w1, b1, w2, x: F.log_softmax(F.linear(F.relu(F.linear(x, w1, b1)), w2), -1),
            [(B, 6, 5), (B, 6), (B, 3, 6), (4, 5)], (0, 0, 0, None)),
    "cnn": (lambda F, w, x: F.max_pool2d(F.relu(F.conv2d(x, w)), 2).flatten(1), [(B, 2, 1, 3, 3), (2, 1, 6, 6)],
            (0, None)),
    "adaptive_avg_pool": (lambda F, w, x: F.adaptive_avg_pool2d(F.conv2d(x, w), 1), [(B, 2, 1, 3, 3), (2, 1, 6, 6)],
                          (0, None)),
    "mse_loss": (lambda F, w, x, t: F.mse_loss(F.linear(x, w), t), [(B, 4, 5), (3, 5), (3, 4)], (0, None, None)),
    "dropout_eval": (lambda F, w, x: F.dropout(F.linear(x, w), 0.5, training=False), [(B, 4, 5), (3, 5)], (0, None)),
    "rnn_cell": (lambda F, wih, whh, x, h: (F.linear(x, wih) + F.linear(h, whh)).tanh(),
                 [(B, 4, 3), (B, 4, 4), (2, 3), (2, 4)], (0, 0, None, None)),
    "attention": (lambda F, wq, x: F.scaled_dot_product_attention(F.linear(x, wq), x, x), [(B, 4, 4), (2, 3, 4)],
                  (0, None)),
}


def tinytorch_or_torch_index(w):
    lib = tinytorch if isinstance(w, tinytorch.Tensor) else __import__("torch")
    return lib.tensor([[0, 2], [5, 1]])


def _run_functional(lib, name):
    fn, shapes, dims = FUNCTIONALS[name]
    gen = np.random.default_rng(sum(map(ord, name)))
    args = [lib.from_numpy(gen.standard_normal(s)).requires_grad_(d == 0) for s, d in zip(shapes, dims)]
    out = lib.func.vmap(lambda *a: fn(lib.nn.functional, *a), in_dims=dims)(*args)
    (out.double() ** 2).sum().backward()
    return out, [a.grad for a, d in zip(args, dims) if d == 0]


@pytest.mark.parametrize("name", sorted(FUNCTIONALS))
def test_vmap_over_stacked_weights_through_functionals(torch, name):
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")  # PyTorch's own "performance drop" warnings of its fallback
        out_t, grads_t = _run_functional(torch, name)
    out_tt, grads_tt = _run_functional(tinytorch, name)
    assert tuple(out_tt.shape) == tuple(out_t.shape)
    _close(out_tt, out_t, 1e-7, 1e-9)
    _close(grads_tt, grads_t, 1e-7, 1e-9)


def test_in_place_ops_on_batched_tensors(torch):
    def run(lib):
        x = lib.ones(2, 3)
        y = lib.func.vmap(lambda a: a.add_(1).mul_(2))(x)
        return x, y

    _close(run(tinytorch), run(torch))


# -- vmap over the function vjp returns -------------------------------------------------------------------------
VJP_CASES = {
    "sin_jacobian": (lambda lib: lib.sin, lambda lib: (lib.linspace(-1, 2, 5, dtype=lib.float64),),
                     lambda lib: lib.eye(5, dtype=lib.float64), 0),
    "two_outputs": (lambda lib: (lambda x, y: (x * y, (x * y).sum())),
                    lambda lib: (lib.linspace(-1, 2, 4, dtype=lib.float64), lib.linspace(3, 1, 4, dtype=lib.float64)),
                    lambda lib: (lib.eye(4, dtype=lib.float64), lib.ones(4, dtype=lib.float64)), 0),
    "unbatched_part": (lambda lib: (lambda x, y: (x * y, (x * y).sum())),
                       lambda lib: (lib.linspace(-1, 2, 4, dtype=lib.float64), lib.linspace(3, 1, 4, dtype=lib.float64)),
                       lambda lib: (lib.eye(4, dtype=lib.float64), lib.tensor(2.0, dtype=lib.float64)), ((0, None),)),
    "matrix_function": (lambda lib: (lambda w: (w @ w.t()).tanh()),
                        lambda lib: (lib.arange(6.0, dtype=lib.float64).reshape(2, 3) / 5,),
                        lambda lib: lib.eye(4, dtype=lib.float64).reshape(4, 2, 2), 0),
}


@pytest.mark.parametrize("case", sorted(VJP_CASES))
def test_vmap_over_vjp_fn(torch, case):
    def run(lib):
        f, primals, cot, dims = (c(lib) if callable(c) and i < 3 else c for i, c in enumerate(VJP_CASES[case]))
        _, vjp_fn = lib.func.vjp(f, *primals)
        return lib.func.vmap(vjp_fn, in_dims=dims)(cot)

    _close(run(tinytorch), run(torch), 1e-12, 1e-12)


def test_jacrev_by_vmap_of_vjp_matches_jacrev(torch):
    x = tinytorch.linspace(-1, 1, 4, dtype=tinytorch.float64)
    _, vjp_fn = tinytorch.func.vjp(lambda v: v.exp() * v.sum(), x)
    jac = tinytorch.func.vmap(vjp_fn)(tinytorch.eye(4, dtype=tinytorch.float64))[0]
    _close(jac, tinytorch.func.jacrev(lambda v: v.exp() * v.sum())(x), 1e-12, 1e-12)


# -- functorch's make_functional era ------------------------------------------------------------------------------
def _functorch_program(lib, functorch):
    nn = lib.nn
    lib.manual_seed(0)
    x, t = lib.randn(4, 3), lib.randn(4, 3)
    seen = {}
    with warnings.catch_warnings(record=True) as caught:
        warnings.simplefilter("always")
        func, params = functorch.make_functional(nn.Linear(3, 3))
        seen["warnings"] = [(w.category.__name__, str(w.message)) for w in caught]
    seen["func"] = (type(func).__name__, [tuple(p.shape) for p in params], [p.requires_grad for p in params],
                    normalise(repr(func.stateless_model.weight)))
    seen["out"] = func(params, x)
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        seen["grad"] = list(functorch.grad(lambda p, x, t: nn.functional.mse_loss(func(p, x), t))(params, x, t))
        models = [nn.Sequential(nn.Linear(3, 4), nn.BatchNorm1d(4), nn.Linear(4, 2)) for _ in range(3)]
        fmodel, ps, bs = functorch.combine_state_for_ensemble(models)
        seen["ensemble"] = ([tuple(p.shape) for p in ps], [p.requires_grad for p in ps], [tuple(b.shape) for b in bs])
        seen["ensemble_out"] = functorch.vmap(fmodel, in_dims=(0, 0, None))(ps, bs, x)
        seen["running_means_updated"] = bs[0]
        f2, p2, b2 = functorch.make_functional_with_buffers(models[0], disable_autograd_tracking=True)
        seen["with_buffers"] = (len(p2), len(b2), [p.requires_grad for p in p2], f2.param_names, f2.buffer_names)
        seen["with_buffers_out"] = f2(p2, b2, x)
    return seen


def test_functorch_names_as_pytorch(torch):
    import functorch

    import tinytorch._functorch as tt_functorch

    got, expected = _functorch_program(tinytorch, tt_functorch), _functorch_program(torch, functorch)
    for key in ("warnings", "func", "ensemble", "with_buffers"):
        assert got[key] == expected[key], key
    for key in ("out", "grad", "ensemble_out", "running_means_updated", "with_buffers_out"):
        _close(got[key], expected[key], 1e-5, 1e-6)
    public = {n for n in dir(functorch) if not n.startswith("_") and n not in ("make_fx", "torch", "dim", "compile",
                                                                                "einops", "experimental")}
    assert public <= set(dir(tt_functorch))


# -- gradcheck's modes ---------------------------------------------------------------------------------------------
def _functions(lib):
    class WrongBackward(lib.autograd.Function):
        @staticmethod
        def forward(ctx, x):
            ctx.save_for_backward(x)
            return x.sin()

        @staticmethod
        def backward(ctx, g):
            (x,) = ctx.saved_tensors
            return g * x.cos() * 2

        @staticmethod
        def jvp(ctx, t):
            return t * 3

    return {"sin": lambda x: x.sin(), "wrong": WrongBackward.apply,
            "linear_tanh": lambda x: lib.nn.functional.linear(x, lib.linspace(-1, 1, 6, dtype=lib.float64).reshape(2, 3)).tanh(),
            "softmax": lambda x: x.softmax(-1)}


GRADCHECK_MODES = {
    "default": {}, "forward": {"check_forward_ad": True}, "forward_only": {"check_forward_ad": True,
                                                                          "check_backward_ad": False},
    "batched": {"check_batched_grad": True}, "all": {"check_forward_ad": True, "check_batched_grad": True,
                                                     "check_batched_forward_grad": True},
    "neither": {"check_backward_ad": False}, "fast": {"fast_mode": True, "check_forward_ad": True},
}


@pytest.mark.parametrize("mode", sorted(GRADCHECK_MODES))
@pytest.mark.parametrize("fn", ["sin", "wrong", "linear_tanh", "softmax"])
def test_gradcheck_modes_as_pytorch(torch, fn, mode):
    def run(lib):
        x = lib.linspace(-1, 1, 6, dtype=lib.float64).reshape(2, 3).requires_grad_()
        try:
            return ("ok", lib.autograd.gradcheck(_functions(lib)[fn], (x,), **GRADCHECK_MODES[mode]))
        except Exception as e:  # noqa: BLE001 - the error is compared
            return ("raised", type(e).__name__, normalise(str(e)).split(",\n")[0])

    assert run(tinytorch) == run(torch)


def test_gradgradcheck_modes(torch):
    for lib in (tinytorch, torch):
        x = lib.linspace(-1, 1, 4, dtype=lib.float64).requires_grad_()
        assert lib.autograd.gradgradcheck(lambda v: v.sin() * v, (x,), check_fwd_over_rev=True, check_batched_grad=True)


def test_is_grads_batched(torch):
    def run(lib):
        x = lib.linspace(-1, 1, 3, dtype=lib.float64).requires_grad_()
        y = x.exp() * x.sum()
        (g,) = lib.autograd.grad(y, x, lib.eye(3, dtype=lib.float64), is_grads_batched=True)
        return g

    _close(run(tinytorch), run(torch), 1e-12, 1e-12)


# -- names scripts touch -------------------------------------------------------------------------------------------
def test_dynamo_names(torch):
    for lib in (tinytorch, torch):
        dynamo = lib._dynamo
        assert dynamo.is_compiling() is False
        assert dynamo.config.suppress_errors is False and dynamo.config.cache_size_limit == 8
        dynamo.config.suppress_errors = True
        dynamo.config.suppress_errors = False
        dynamo.reset()

        @dynamo.disable
        def f(x):
            return x * 2

        assert f(3) == 6
        assert dynamo.disable(recursive=False)(f)(2) == 4


def test_cudnn_flags_is_a_context_manager(torch):
    def run(lib):
        cudnn = lib.backends.cudnn
        seen = []
        with cudnn.flags(enabled=False, deterministic=True):
            seen.append((cudnn.enabled, cudnn.deterministic, cudnn.benchmark, cudnn.allow_tf32))
        seen.append((cudnn.enabled, cudnn.deterministic, cudnn.benchmark, cudnn.allow_tf32, cudnn.benchmark_limit))
        with cudnn.flags():
            seen.append((cudnn.enabled, cudnn.deterministic))
        return seen, type(cudnn.flags()).__name__

    assert run(tinytorch) == run(torch)
