"""make_fx: the ATen graph of a program, traced under PyTorch and under tinytorch, prints the same ``gm.code`` and
``print(gm.graph)``, and the traced module computes the program's numbers.

Each case is source naming ``torch``, ``nn`` and ``F`` (``_fx_compare.load``) that defines ``f`` and ``inputs(t)``
(``t`` makes a tensor from a numpy array). The programs are ones whose ATen graph PyTorch's CPU build gives the same
on every path (no dtype-dependent decompositions)."""
import numpy as np
import pytest

from _fx_compare import LIBRARIES, load

CASES = {
    "conversions": """
def f(x):
    return x.double() + 1, x.to(torch.float64) * 2, x.float() + 3, x.to(dtype=torch.float16), x.half(), x.to(x.dtype)
def inputs(t): return (t((3, 4)),)
""",
    "squeezes": """
def f(x):
    return x.squeeze(), x.squeeze(1).squeeze(-1), x.squeeze((1, 2)), torch.squeeze(x, -1).squeeze(1)
def inputs(t): return (t((2, 1, 1)),)
""",
    "where_forms": """
def f(x, y):
    return torch.where(x > 0, x, y), torch.where(x > 0, x, 0.0), torch.where(x > 0, 1.0, y), x.clamp(min=0.5)
def inputs(t): return (t((3, 4)), t((3, 4)))
""",
    "amax_prod": """
def f(x):
    return (x.amax(), x.prod(), x.amax(0), x.amin(), x.prod(1), torch.amax(x, (0, 1), True), x.prod(dtype=torch.float64),
            x.amin(-1, keepdim=True), torch.prod(x, 0, True))
def inputs(t): return (t((3, 2)),)
""",
    "index_reductions": """
def f(x):
    return (x.argmax(), torch.argmax(x, dim=-1), x.argmin(0, keepdim=True), x.logsumexp(1), torch.logsumexp(x, (0, 1), True),
            x.nansum(), x.nansum(1), torch.nansum(x, (0, 1), keepdim=True), x.nansum(dtype=torch.float64),
            x.median(), x.median(1), x.median(0, keepdim=True))
def inputs(t): return (t((3, 4)),)
""",
    "all_any": """
def f(x):
    b = x > 0
    return b.all(), b.any(1), b.all((0, 1)), torch.any(b, 0, keepdim=True), torch.all(b, dim=-1)
def inputs(t): return (t((3, 4)),)
""",
    "scans_and_moves": """
def f(x):
    return (x.cumsum(0), x.cumsum(1, dtype=torch.float64), torch.cumprod(x, dim=-1), x.flip(0), x.flip((0, 1)),
            torch.flip(x, [1]), x.flip(0, 1), x.roll(1, 0), x.roll((1, 2), (0, 1)), x.roll(2), x.tril(), x.tril(-1),
            torch.triu(x, diagonal=2), x.diagonal(), x.diagonal(1), torch.diagonal(x, offset=-1, dim1=1, dim2=0))
def inputs(t): return (t((3, 4)),)
""",
    "pieces": """
def f(x):
    return (x.chunk(2, 1), x.chunk(3, 1), torch.chunk(x, 2), x.split(1), x.split([1, 2], 0), torch.split(x, 3, dim=1),
            x.split(split_size=2, dim=-1), x.narrow(1, 0, 2), x.narrow(-1, 1, 2), torch.narrow(x, 0, -2, 2),
            x.view_as(x.reshape(4, 3)), x[:, :0].chunk(2, 1), x[:0].chunk(3))
def inputs(t): return (t((3, 4)),)
""",
    "round_lerp_addc": """
def f(x):
    return (x.round(), x.round(decimals=2), torch.round(x, decimals=0), torch.lerp(x, x * 2, 0.3), x.lerp(x * 2, x.sigmoid()),
            torch.addcmul(x, x, x, value=0.5), torch.addcdiv(x, x, x + 3))
def inputs(t): return (t((3, 4)),)
""",
    "losses": """
def f(x, y):
    return (F.mse_loss(x, y), F.mse_loss(x, y, reduction="sum"), nn.MSELoss(reduction="none")(x, y), F.huber_loss(x, y),
            F.huber_loss(x, y, delta=0.5), F.smooth_l1_loss(x, y, beta=0.5, reduction="sum"), F.smooth_l1_loss(x, y),
            F.binary_cross_entropy_with_logits(x, y.sigmoid()),
            F.binary_cross_entropy_with_logits(x, y.sigmoid(), pos_weight=y[0].abs()),
            F.binary_cross_entropy_with_logits(x, y.sigmoid(), weight=y.abs(), reduction="none"))
def inputs(t): return (t((3, 4)), t((3, 4)))
""",
    "factories": """
def f(x):
    return (x + torch.ones(3, 4), x + torch.zeros(3, 4, dtype=torch.float32), x + torch.arange(4), x + torch.arange(1, 5),
            x + torch.arange(0, 8, 2), x + torch.linspace(0, 1, 4), x + torch.full((3, 4), 2.0),
            x + torch.empty(3, 4).fill_(1), x + torch.ones(4, dtype=torch.float64), torch.arange(4.0) + x,
            x + torch.eye(4)[0], x + torch.arange(1, 5, 1), x + torch.eye(4, 4)[0], x + torch.ones(3, 4, layout=torch.strided),
            x + torch.empty(3, 4, memory_format=torch.contiguous_format).fill_(0), x + torch.full([3, 4], 1),
            torch.arange(4, dtype=torch.float32) + x, x + torch.linspace(0, 1, steps=4, dtype=torch.float64),
            x + torch.arange(end=4), x + torch.arange(start=0, end=4, step=1), x + torch.zeros(4))
def inputs(t): return (t((3, 4)),)
""",
    "variances": """
def f(x):
    return (x.var(), x.var(1), x.var(1, unbiased=False, keepdim=True), torch.var(x, dim=0, correction=2), x.std(),
            x.std(dim=(0, 1)), x.std(0, False), torch.var_mean(x, 1), torch.std_mean(x), x.var(unbiased=False),
            x.var(correction=1), x.var(dim=None, keepdim=True), x.var(1, correction=0.5), x.var([-1]), x.var(False),
            torch.std_mean(x, dim=1, unbiased=False, keepdim=True), torch.var_mean(x, correction=0))
def inputs(t): return (t((3, 4)),)
""",
    "norms": """
def f(x):
    return (x.norm(), x.norm(p=1, dim=1), torch.norm(x, dim=(0, 1)), x.norm(float("inf")), x.norm(2, 1, True),
            x.norm(None), x.norm(3), torch.norm(x, dtype=torch.float64), x.norm("fro", 1), x.norm(0, dim=-1),
            x.norm(float("-inf"), 0, True), torch.linalg.vector_norm(x, 3, dim=1), torch.linalg.norm(x),
            torch.linalg.norm(x, dim=1), torch.linalg.norm(x, 3, 1), torch.linalg.norm(x, "fro"),
            torch.linalg.norm(x, dim=(0, 1), keepdim=True), torch.linalg.norm(x[0]), torch.linalg.matrix_norm(x),
            torch.linalg.matrix_norm(x, "fro", (1, 0), True))
def inputs(t): return (t((3, 4)),)
""",
    "einsums": """
def f(x, y):
    return (torch.einsum("ij,jk->ik", x[0], y[0]), torch.einsum("bij,bjk->bik", x, y), torch.einsum("bij,bkj->bik", x, x),
            torch.einsum("bhid,bhjd->bhij", x[None], y[None]), torch.einsum("bij->b", x), torch.einsum("ii", y[0]),
            torch.einsum("i,j->ij", x[0, 0], y[0, 0]), torch.einsum("...ij,...jk->...ik", x, y),
            torch.einsum("bij,bjk", [x, y]), torch.einsum("bij,bjk,bkl->bil", x, y, y))
def inputs(t): return (t((2, 4, 4)), t((2, 4, 4)))
""",
    "bmm_gradients": """
def f(x, y):
    out = torch.bmm(x, y)
    return out, torch.autograd.grad((out * out).sum(), (x, y))
def inputs(t): return (t((2, 3, 4)).requires_grad_(), t((2, 4, 5)).requires_grad_())
""",
    "rms_norms": """
def f(x, w):
    return (F.rms_norm(x, (4,)), F.rms_norm(x, (4,), w, 1e-5), F.rms_norm(x.double(), [4]), F.rms_norm(x.half(), (4,)),
            F.rms_norm(x, (3, 4), eps=0.1), x.type_as(w.double()), x.half().type_as(x))
def inputs(t): return (t((2, 3, 4)), t((4,)))
""",
    "label_smoothing": """
def f(x, y, w):
    t = (y.abs() * 2).long().clamp(max=4)
    return (F.cross_entropy(x, t, label_smoothing=0.1), F.cross_entropy(x, t, weight=w.abs(), label_smoothing=0.2),
            F.cross_entropy(x, t, reduction="sum", label_smoothing=0.3), nn.CrossEntropyLoss(label_smoothing=0.1)(x, t),
            F.cross_entropy(x, t, reduction="none", ignore_index=1, label_smoothing=0.5), F.cross_entropy(x, t))
def inputs(t): return (t((6, 5)), t((6,)), t((5,)))
""",
    "avg_pool1d": """
def f(x):
    out = F.avg_pool1d(x, 2) + F.avg_pool1d(x, 3, 2, 1, True, False)[..., :4] + nn.AvgPool1d(3, 1, 1)(x)[..., ::2]
    return out, torch.autograd.grad((out * out).sum(), x), F.avg_pool1d(x[0], 2)
def inputs(t): return (t((2, 3, 8)).requires_grad_(),)
""",
    "elu_gradients": """
def f(x):
    def grad_of(y):  # one branch each: the engines' orders between branches differ (tinytorch's is a stack)
        return torch.autograd.grad((y * y).sum(), x)
    y = x * 1
    F.elu(y, 0.7, inplace=True)
    z = x * 2
    F.celu_(z, 0.5)
    return (grad_of(y), grad_of(z), grad_of(F.selu(x * 3, inplace=True)), grad_of(F.celu(x)), grad_of(F.celu(x, 1.3)),
            grad_of(F.elu(x)), grad_of(F.selu(x)))
def inputs(t): return (t((3, 5)).requires_grad_(),)
""",
    "inplace_activations": """
def f(x):
    return (F.elu(x * 1, 0.7, inplace=True), F.elu_(x * 1), F.selu(x * 1, inplace=True), torch.selu_(x * 1),
            F.celu(x * 1, 0.5, inplace=True), F.celu_(x * 1), F.celu_(x * 1, 2.0), F.hardtanh(x * 1, -1.0, 2.0, True),
            F.hardtanh_(x * 1), F.hardtanh_(x * 1, -2.0), F.relu6(x * 1, inplace=True), F.leaky_relu(x * 1, 0.2, True),
            F.silu(x * 1, inplace=True), F.hardswish(x * 1, inplace=True), F.hardsigmoid(x * 1, inplace=True),
            F.mish(x * 1, inplace=True), torch.ops.aten.silu_(x * 1))
def inputs(t): return (t((2, 6)),)
""",
    "index_gradients": """
def f(x, i):
    out = x[i] * x[:, i] + x[i[:, None], i[None, :]]
    return out, torch.autograd.grad((out * out).sum(), x)
def inputs(t): return (t((3, 3)).requires_grad_(), (t((3,)).abs() * 2).long().clamp(max=2))
""",
    "list_index": """
def f(x):
    out = x[[0, 2, 2]].sum(0) + x[:, [1, 3, 3, 0]].sum(0) + x[range(3)][0]
    return (out, torch.autograd.grad((out * out).sum(), x), x[[True, False, True]], x[None, [1, 1]],
            x[[0, 2], 1:], x[..., [3]])
def inputs(t): return (t((3, 4)).requires_grad_(),)
""",
    "inplace_gradients": """
def f(x):
    def grad_of(y):  # one branch each (the engines' orders between branches differ)
        return torch.autograd.grad((y * y).sum(), x)
    return (grad_of(F.silu(x * 2, inplace=True)), grad_of(F.mish(x * 2, inplace=True)), grad_of(F.silu(x)),
            grad_of(F.mish(x)), grad_of(F.hardtanh(x * 2, -0.5, 0.5, inplace=True)), grad_of(F.relu6(x * 2, True)),
            grad_of(F.hardswish(x * 2, inplace=True)), grad_of(F.hardsigmoid(x * 2, inplace=True)),
            grad_of(F.threshold(x * 2, 0.1, 3.0, inplace=True)), grad_of(F.threshold(x, 0.1, 3.0)),
            grad_of((x * 2).sigmoid_()), grad_of((x * 2).tanh_()), grad_of((x * 2).exp_()), grad_of((x * 2).sin_()),
            grad_of((x * 2).clamp_(-1, 1)), grad_of((x * 2).mul_(x)))
def inputs(t): return (t((2, 5)).requires_grad_(),)
""",
    "prelu_gradients": """
def f(x, w, v):
    y = F.prelu(x, w)  # per channel: the weight viewed to (1, C, 1), its gradient summed back to that view
    z = F.prelu(y, v)  # shared
    return (F.prelu(x[0, 0], v), torch._prelu_kernel(x, w.view(1, 4, 1)),
            torch.autograd.grad((z * z).sum(), (x, w, v), create_graph=True))
def inputs(t): return (t((3, 4, 2)).requires_grad_(), t((4,)).abs().requires_grad_(), t((1,)).requires_grad_())
""",
    "movedims": """
def f(x):
    return (x.movedim(0, -1), torch.movedim(x, (0, 1), (2, 0)), x.moveaxis(-1, 0), torch.movedim(x, [1], [2]),
            torch.movedim(x.sum(), (), ()))
def inputs(t): return (t((2, 3, 4)),)
""",
    "unflatten": """
def f(x):
    return x.unflatten(-1, (3, 4)).sum(1), torch.unflatten(x.t(), 0, [2, 2, 3]), x.unflatten(0, (-1, 1)) * 2
def inputs(t): return (t((2, 12)),)
""",
    "pointwise": """
def f(x, y):
    return x * y + 2
def inputs(t): return (t((3, 4)), t((3, 4)))
""",
    "relu_sum": """
def f(x, y):
    return (x * y).relu().sum()
def inputs(t): return (t((3, 4)), t((3, 4)))
""",
    "scalars": """
def f(x):
    return 2 * x + 1 - x / 3
def inputs(t): return (t((3, 4)),)
""",
    "unary_chain": """
def f(x):
    return torch.tanh(x).neg().abs().sqrt() + x.pow(2).exp()
def inputs(t): return (t((3, 4)),)
""",
    "linear": """
def f(x, w, b):
    return F.linear(x, w, b)
def inputs(t): return (t((3, 4)), t((5, 4)), t((5,)))
""",
    "linear_3d": """
def f(x, w, b):
    return F.linear(x, w, b)
def inputs(t): return (t((2, 3, 4)), t((5, 4)), t((5,)))
""",
    "linear_3d_no_bias": """
def f(x, w):
    return F.linear(x, w)
def inputs(t): return (t((2, 3, 4)), t((5, 4)))
""",
    "linear_no_bias": """
def f(x, w):
    return F.linear(x, w)
def inputs(t): return (t((3, 4)), t((5, 4)))
""",
    "matmul_t": """
def f(x, w):
    return x @ w.t()
def inputs(t): return (t((3, 4)), t((5, 4)))
""",
    "softmax": """
def f(x):
    return torch.softmax(x, -1)
def inputs(t): return (t((3, 4)),)
""",
    "softmax_sum_dim": """
def f(x):
    return x.softmax(dim=1).sum(0) + torch.log_softmax(x, 1).mean()
def inputs(t): return (t((3, 4)),)
""",
    "reductions": """
def f(x):
    return x.mean(0, keepdim=True), x.sum(dim=(0, 1)), x.max(1)
def inputs(t): return (t((3, 4)),)
""",
    "views": """
def f(x):
    return x.view(12).sin() * 3.0, x.reshape(2, 6).flatten(), x.unsqueeze(0).expand(2, 3, 4).clone()
def inputs(t): return (t((3, 4)),)
""",
    "transpose_contiguous": """
def f(x):
    return x.transpose(0, 1).contiguous(), x.reshape(4, 3).contiguous(), x.T.reshape(12)
def inputs(t): return (t((3, 4)),)
""",
    "cat_gelu": """
def f(x, y):
    return torch.cat([F.gelu(x), torch.sigmoid(y)], 1)
def inputs(t): return (t((3, 4)), t((3, 2)))
""",
    "mlp_params_as_inputs": """
def f(w1, b1, w2, b2, x):
    return F.linear(F.relu(F.linear(x, w1, b1)), w2, b2)
def inputs(t): return (t((8, 4)), t((8,)), t((2, 8)), t((2,)), t((3, 4)))
""",
    "conv": """
def f(x, w, b):
    return F.conv2d(x, w, b, padding=1)
def inputs(t): return (t((2, 3, 5, 5)), t((4, 3, 3, 3)), t((4,)))
""",
    "basic_indexing": """
def f(m):
    return (m[:, :, :2, :2], m[0], m[..., 1:3], m[None, 1, ::2], m[:, -1], m[1:2, :, 0:100], m[:, 1:100],
            m[:, -2:], m[:, :-1], m[:, 5:], m[None], m[..., None], m[:, None, 1], m[:, :, -5:], m[..., 0, :],
            m[1, ..., None, 2])
def inputs(t): return (t((2, 3, 4, 4)),)
""",
    "indexing_no_op": """
def f(m):
    return m[:, ::1] * 2
def inputs(t): return (t((2, 3)),)
""",
    "indexing_by_tensors": """
def f(m):
    return m[m > 0], m[:, (m[0, :, 0, 0] > 0)], (m * 2)[1, :, 1:3][..., None]
def inputs(t): return (t((2, 3, 4, 4)),)
""",
    "comparisons": """
def f(x, y):
    return x > 0, x < y, x >= 1.5, x <= y, x == y, x != 0
def inputs(t): return (t((3, 4)), t((3, 4)))
""",
    "dropout_eval": """
def f(x):
    return F.dropout(x, training=False) * 2
def inputs(t): return (t((3, 4)),)
""",
    # functions PyTorch writes in Python over other ops: their ops, never an ATen operator of their own name
    "python_functionals": """
def f(x):
    return (F.normalize(x, dim=1), F.softsign(x), F.tanhshrink(x), F.softmin(x, 1), F.logsigmoid(x),
            F.normalize(x, p=1.0, dim=0, eps=1e-3))
def inputs(t): return (t((3, 4)),)
""",
    "python_pooling": """
def f(x):
    return (F.lp_pool2d(x, 2, 2), F.local_response_norm(x, 2), F.pad(x, (1, 2)), F.pad(x, (1, 1, 2, 0), value=2.0),
            F.pad(x, (1, 1, 2, 0), mode="reflect"), F.pad(x, (1, 1, 1, 1), mode="replicate"), x.view(2, -1),
            x.reshape(-1, 4), x.transpose(1, 2).reshape(2, -1))
def inputs(t): return (t((2, 3, 4, 4)),)
""",
    "distances": """
def f(x, y):
    return (F.cosine_similarity(x, y), F.cosine_similarity(x, y[:1]), torch.linalg.vecdot(x, y),
            torch.linalg.multi_dot([x, y.t(), x]))
def inputs(t): return (t((3, 4)), t((3, 4)))
""",
    "namespaced_ops": """
def f(x):
    return (torch.linalg.vector_norm(x, dim=1), torch.linalg.vector_norm(x, 3, (0, 1), True),
            torch.special.xlog1py(x, x.abs()), torch.special.entr(x.abs()), torch.special.log_ndtr(x),
            torch.special.i1(x))
def inputs(t): return (t((3, 4)),)
""",
    # activations whose functional form takes an inplace flag, or whose defaults PyTorch's printing leaves out
    "activations": """
def f(x):
    return (F.silu(x), F.mish(x), F.hardsigmoid(x), F.hardswish(x), F.hardtanh(x), F.hardtanh(x, -2.0, 2.5),
            F.relu6(x), F.elu(x), F.elu(x, 0.5), F.selu(x), F.celu(x), F.celu(x, 0.5), F.softplus(x),
            F.softplus(x, beta=2.0), F.hardshrink(x), F.softshrink(x, 0.25), F.glu(x), F.glu(x, 0))
def inputs(t): return (t((4, 6)),)
""",
    "resampling": """
def f(x, theta):
    return (F.interpolate(x, scale_factor=2), F.interpolate(x, size=(5, 7)), F.interpolate(x, scale_factor=1.5,
            mode="bilinear"), F.interpolate(x, size=(6, 6), mode="bilinear", align_corners=True),
            F.interpolate(x, scale_factor=2, mode="bicubic", recompute_scale_factor=True),
            F.interpolate(x[0], scale_factor=2, mode="linear"), F.grid_sample(x, F.affine_grid(theta, [2, 3, 3, 3],
            align_corners=False), align_corners=False, padding_mode="border"), F.fold(x.reshape(2, 12, 4), (3, 3), 2))
def inputs(t): return (t((2, 3, 4, 4)), t((2, 2, 3)))
""",
}


def _trace(library: str, source: str, mode: str = "real", requires_grad: bool = False):
    ns = load(source, library)
    torch = ns["torch"]
    rng = np.random.default_rng(0)

    def t(shape):
        return torch.tensor(rng.standard_normal(shape).astype(np.float32), requires_grad=requires_grad)

    make_fx = __import__(f"{library}.fx.experimental.proxy_tensor", fromlist=["make_fx"]).make_fx
    args = ns["inputs"](t)
    gm = make_fx(ns["f"], tracing_mode=mode)(*args)
    return gm, ns["f"], args


def _numbers(value):
    if isinstance(value, (tuple, list)):
        return [_numbers(v) for v in value]
    return value.detach().numpy()


def _flat(value) -> list:
    return [x for v in value for x in _flat(v)] if isinstance(value, list) else [value]


@pytest.mark.parametrize("mode", ["real", "fake"])
@pytest.mark.parametrize("name", sorted(CASES))
def test_make_fx_prints_pytorchs_graph(torch, name, mode):
    theirs, _, _ = _trace("torch", CASES[name], mode)
    ours, f, args = _trace("tinytorch", CASES[name], mode)
    assert ours.code == theirs.code, f"--- PyTorch\n{theirs.code}\n--- tinytorch\n{ours.code}"
    assert str(ours.graph) == str(theirs.graph)
    # the traced module (real or fake trace) computes the program's numbers on real inputs
    _, _, args = _trace("tinytorch", CASES[name], "real")
    expected, got = _numbers(f(*args)), _numbers(ours(*args))
    assert len(_flat(got)) == len(_flat(expected))
    for e, g in zip(_flat(expected), _flat(got)):
        np.testing.assert_allclose(np.asarray(g, dtype=np.float64), np.asarray(e, dtype=np.float64), rtol=1e-6, atol=1e-6)


MODULE_PROGRAMS = """
torch.manual_seed(0)
m = nn.Sequential(nn.Linear(4, 8), nn.ReLU(), nn.Linear(8, 2))
def functional(params, x):
    return torch.func.functional_call(m, params, (x,))
def direct(x):
    return m(x)
def saves_outputs(x):
    return (x.exp().sigmoid() + x.tanh()).sum()
"""


@pytest.mark.parametrize("program", ["functional", "direct", "saves_outputs"])
def test_make_fx_of_a_module_prints_pytorchs_graph(torch, program):
    """An MLP through functional_call (its parameters a dict input: the pytree codegen), called directly (its
    parameters read as ``_param_constant`` attributes), and ops whose backward saves their output (PyTorch's
    tracer shows an unused ``detach`` of each)."""
    codes, values = [], []
    for library in LIBRARIES:
        ns = load(MODULE_PROGRAMS, library)
        lib = ns["torch"]
        make_fx = __import__(f"{library}.fx.experimental.proxy_tensor", fromlist=["make_fx"]).make_fx
        x = lib.tensor(np.random.default_rng(1).standard_normal((3, 4)).astype(np.float32),
                       requires_grad=program == "saves_outputs")
        args = (dict(ns["m"].named_parameters()), x) if program == "functional" else (x,)
        gm = make_fx(ns[program])(*args)
        codes.append(gm.code)
        values.append(gm(*args).detach().numpy())
    assert codes[1] == codes[0], f"--- PyTorch\n{codes[0]}\n--- tinytorch\n{codes[1]}"
    np.testing.assert_allclose(values[1], values[0], rtol=1e-5, atol=1e-6)


def test_make_fx_refuses_symbolic_and_unknown_modes():
    import tinytorch
    from tinytorch.fx.experimental.proxy_tensor import make_fx
    with pytest.raises(NotImplementedError, match="symbolic"):
        make_fx(lambda x: x * 2, tracing_mode="symbolic")(tinytorch.ones(2))
    with pytest.raises(AssertionError, match="Unexpected tracing type: bogus"):
        make_fx(lambda x: x * 2, tracing_mode="bogus")


def test_capture_leaves_no_hook_behind():
    """Once make_fx returns, the declarations' hook is off again and the Tensor methods are the ops' own."""
    import tinytorch
    from tinytorch._ops._core import registry
    from tinytorch.fx.experimental.proxy_tensor import make_fx
    mul = tinytorch.Tensor.__mul__
    make_fx(lambda x: x * x)(tinytorch.ones(2))
    assert registry.CAPTURE[0] is None and tinytorch.Tensor.__mul__ is mul
    with pytest.raises(ZeroDivisionError):
        make_fx(lambda x: (x * x, 1 / 0))(tinytorch.ones(2))
    assert registry.CAPTURE[0] is None and tinytorch.Tensor.__mul__ is mul


BACKWARD_PROGRAMS = """
F = torch.nn.functional
def product(x):
    y = (x.sin() * x).sum()
    return torch.autograd.grad(y, x)
def two_inputs(x, w):
    y = (x * w).exp().sum()
    return torch.autograd.grad(y, (x, w))
def relu_layer(x, w):
    return torch.autograd.grad(F.relu(x @ w.t()).sum(), w)
def both_operands(x, w):
    return torch.autograd.grad(F.relu(x @ w).sum(), (x, w))
def softmax_weighted(x, w):
    return torch.autograd.grad((F.softmax(x @ w.t(), 1) * x).sum(), w)
def log_softmax_nll(x, w, t):
    return torch.autograd.grad(F.nll_loss(F.log_softmax(x @ w.t(), 1), t), w)
def cross_entropy_mlp(x, w, t):
    return torch.autograd.grad(F.cross_entropy(F.relu(x @ w.t()) @ w, t, reduction="sum"), w)
def linear_layers(x, w, t):
    return torch.autograd.grad(F.cross_entropy(F.linear(F.relu(F.linear(x, w)), w), t), (x, w))
def conv_weight(x, w):
    return torch.autograd.grad(F.conv2d(x, w, stride=2, padding=1).sum(), w)
def conv1d_both(x, w):
    return torch.autograd.grad(F.conv1d(x, w, padding=2, dilation=2).sum(), (x, w))
def cnn_step(x, w, b, t):
    return torch.autograd.grad(F.cross_entropy(F.relu(F.conv2d(x, w, b)).flatten(1), t), (x, w, b))
def layer_norm_params(x, w, b):
    return torch.autograd.grad((F.layer_norm(x, (8,), w, b) * x).sum(), (x, w, b))
def gelu_layer(x, w):
    return torch.autograd.grad((F.gelu(x @ w) * x).sum(), (x, w))
def gelu_tanh(x):
    return torch.autograd.grad(F.gelu(x, approximate="tanh").sum(), x)
def max_pooled(x):
    return torch.autograd.grad(F.max_pool2d(x, 2).sum() + F.max_pool2d(x * 2, 3, 1, 1).sum(), x)
def embedding_rows(w, t):
    return torch.autograd.grad((F.embedding(t, w) * 2).sum(), w)
def indexed(x):
    return torch.autograd.grad((x[1] * 2).sum() + x[:, 1:3].sum() + x[..., ::2].sum(), x)
def tanh_sigmoid(x):
    return torch.autograd.grad((torch.tanh(x) * 2).sum() + torch.sigmoid(x).sum() + (1 - x).sum(), x)
def unsqueezed_by_none(x):
    return torch.autograd.grad((x[None] * 2).sum() + (x[:, None] * 3).sum() + x[..., None, None].sum(), x)
def leaky_relus(x):
    return torch.autograd.grad(F.leaky_relu(x, 0.2).sum() + F.leaky_relu(x * 2, inplace=True).sum(), x)
def picked_values(x, i):
    return torch.autograd.grad(x.gather(1, i).sum() + x.max(1)[0].sum() + x.topk(2, 1)[0].sum()
                               + x.sort(1)[0][:, 0].sum(), x)
def clamped(x):
    return torch.autograd.grad(x.clamp(-0.5, 0.5).sum() + x.clamp(min=0.1).sum() + x.clamp(max=0.2).sum()
                               + torch.clamp(x, 0.0).sum(), x)
def avg_pooled(x):
    return torch.autograd.grad(F.avg_pool2d(x, 2).sum() + F.avg_pool2d(x, 3, 1, 1, count_include_pad=False).sum(), x)
def normalized(x, w):
    return torch.autograd.grad(F.normalize(x * w, dim=1).sum(), w)
def cosine(x, w):
    return torch.autograd.grad(F.cosine_similarity(x * w, x).sum(), w)
def divided_by_broadcast(x, w):
    return torch.autograd.grad((x / (w * 2)).sum(), w)
def indexed_steps(x):
    y = x[0, ..., None, None].sum() + x[1:, None, -1].exp().sum() + x[:, ::2, 1:4].sum() + x[...].sin().sum()
    return torch.autograd.grad(y + x[:, :].cos().sum(), x)
def resampled(x, w):
    y = x * w
    z = F.interpolate(y, scale_factor=2) + F.interpolate(y, size=(8, 8), mode="bilinear")
    z = z.sum() + F.interpolate(y, size=(5, 7)).sum() + F.interpolate(y, scale_factor=1.5, mode="bicubic",
                                                                        align_corners=True).sum()
    return torch.autograd.grad(z + F.interpolate(y[0], scale_factor=2, mode="linear").sum(), w)
def elu_family(x, w):
    y = x * w
    return torch.autograd.grad(F.elu(y).sum() + F.elu(y, 0.5).sum() + F.selu(y).sum(), w)
def hard_activations(x, w):
    y = x * w
    return torch.autograd.grad((F.hardswish(y) * 2).sum() + F.hardsigmoid(y).sum() + F.hardtanh(y, -0.5, 2.0).sum()
                               + F.relu6(y * 4).sum(), w)
def l1_and_means(x, y):
    return torch.autograd.grad(F.l1_loss(x, y) + F.l1_loss(x * 2, y, reduction="sum") + x.mean(0).sum(), x)
def selected_columns(x, i):
    return torch.autograd.grad((x.index_select(1, i) * 2).sum(), x)
def batch_norm_eval(x, w, b, rm, rv):
    return torch.autograd.grad((F.batch_norm(x, rm, rv.abs(), w, b, training=False) * x).sum(), (x, w, b))
def batch_norm_eval_input_only(x, rm, rv):
    return torch.autograd.grad((F.batch_norm(x, rm, rv.abs(), training=False) * x).sum(), x)
def instance_normed(x, w):
    return torch.autograd.grad((F.instance_norm((x * w).reshape(2, 4, 8)) * x.reshape(2, 4, 8)).sum(), w)
def summed_rows(x):
    return torch.autograd.grad(x.sum(1).exp().sum(), x)
def relu_in_place(x, w):
    return torch.autograd.grad((x * w).relu_().sum(), w)
def quickstart_step(x, w, b, t):
    h = F.relu(F.linear(x, w, b))
    return torch.autograd.grad(F.cross_entropy(F.linear(h, w, b), t, ignore_index=2), (w, b))
"""
# each program's arguments: (shape, requires_grad) of float32 normals, "t" for class indices into 8 classes
BACKWARD_ARGS = {
    "product": [((3,), True)], "two_inputs": [((3,), True), ((3,), True)],
    "relu_layer": [((4, 8), False), ((8, 8), True)], "both_operands": [((4, 8), True), ((8, 8), True)],
    "softmax_weighted": [((4, 8), False), ((8, 8), True)], "log_softmax_nll": [((4, 8), False), ((8, 8), True), "t"],
    "cross_entropy_mlp": [((4, 8), False), ((8, 8), True), "t"], "linear_layers": [((4, 8), True), ((8, 8), True), "t"],
    "quickstart_step": [((4, 8), False), ((8, 8), True), ((8,), True), "t"],
    "conv_weight": [((2, 3, 6, 6), False), ((2, 3, 3, 3), True)], "conv1d_both": [((2, 3, 9), True), ((4, 3, 3), True)],
    "cnn_step": [((4, 3, 4, 4), True), ((2, 3, 3, 3), True), ((2,), True), "t"],
    "layer_norm_params": [((2, 3, 8), True), ((8,), True), ((8,), True)],
    "gelu_layer": [((8, 8), True), ((8, 8), True)], "gelu_tanh": [((3, 5), True)],
    "max_pooled": [((2, 3, 6, 6), True)], "embedding_rows": [((8, 5), True), "t"],
    "indexed": [((3, 4, 5), True)], "tanh_sigmoid": [((3, 4), True)],
    "relu_in_place": [((3, 4), False), ((3, 4), True)], "unsqueezed_by_none": [((3, 4), True)],
    "leaky_relus": [((3, 4), True)], "picked_values": [((4, 8), True), "i"],
    "clamped": [((3, 4), True)], "avg_pooled": [((1, 2, 4, 4), True)],
    "normalized": [((4, 8), False), ((8,), True)], "cosine": [((4, 8), False), ((8,), True)],
    "divided_by_broadcast": [((4, 8), False), ((8,), True)], "summed_rows": [((3, 4), True)],
    "indexed_steps": [((3, 4, 5), True)], "elu_family": [((4, 8), False), ((8,), True)],
    "hard_activations": [((4, 8), False), ((8,), True)], "l1_and_means": [((4, 8), True), ((4, 8), False)],
    "selected_columns": [((4, 8), True), "i2"], "instance_normed": [((8, 8), False), ((8,), True)],
    "batch_norm_eval": [((4, 3), True), ((3,), True), ((3,), True), ((3,), False), ((3,), False)],
    "batch_norm_eval_input_only": [((4, 3, 2), True), ((3,), False), ((3,), False)], "resampled": [((2, 3, 4, 4), False), ((4,), True)],
}


def _backward_args(lib, program, seed):
    rng = np.random.default_rng(seed)
    return [lib.tensor(rng.integers(0, 8, 4)) if spec == "t" else lib.tensor(rng.integers(0, 8, (4, 1))) if spec == "i" else
            lib.tensor([1, 3, 1]) if spec == "i2" else
            lib.tensor(rng.standard_normal(spec[0]).astype(np.float32), requires_grad=spec[1])
            for spec in BACKWARD_ARGS[program]]


@pytest.mark.parametrize("program", list(BACKWARD_ARGS))
def test_make_fx_of_a_backward_records_it(torch, program):
    """A program that calls ``autograd.grad`` is traced with its backward: the seed as ``ones_like``, each node's
    formula (not the array paths that compute gradients unseen) or PyTorch's operator for it (``threshold_backward``,
    ``_softmax_backward_data``, ``_log_softmax_backward_data``, ``nll_loss_backward``; cross_entropy as
    ``_log_softmax`` and ``nll_loss_forward``; ``convolution_backward``, ``native_layer_norm_backward``,
    ``gelu_backward``, ``tanh_backward``, ``sigmoid_backward``, ``max_pool2d_with_indices_backward``, ``embedding_dense_backward``, ``select_backward``, relu_'s saved output,
    ``slice_backward``; a linear layer's ``t``/``addmm`` and mm's gradients in the transposed operand's layout),
    the sums of gradients; the traced module then computes the gradient at other inputs (a
    backward left out would replay the trace's numbers as constants)."""
    codes, traced = [], []
    for library in LIBRARIES:
        ns = load(BACKWARD_PROGRAMS, library)
        lib = ns["torch"]
        make_fx = __import__(f"{library}.fx.experimental.proxy_tensor", fromlist=["make_fx"]).make_fx
        gm = make_fx(ns[program])(*_backward_args(lib, program, 2))
        codes.append(gm.code)
        traced.append((gm, ns[program], lib))
    assert codes[1] == codes[0], f"--- PyTorch\n{codes[0]}\n--- tinytorch\n{codes[1]}"
    gm, f, lib = traced[1]
    others = _backward_args(lib, program, 3)
    for got, expected in zip(gm(*others), f(*others)):
        np.testing.assert_array_equal(got.detach().numpy(), expected.detach().numpy())


def test_make_fx_of_a_backward_it_cannot_see_refuses():
    """A backward whose formula computes a gradient on arrays (below the recorded ops) refuses, rather than
    freezing that gradient into the graph as a constant; one written in ops (a training BatchNorm's) traces and
    recomputes at other inputs."""
    import tinytorch
    import tinytorch.nn.functional as F
    from tinytorch.fx.experimental.proxy_tensor import make_fx

    def ln(x, w):
        return tinytorch.autograd.grad(F.adaptive_max_pool1d((x @ w)[None], 2).sum(), w)

    rng = np.random.default_rng(4)

    def t(*shape):
        return tinytorch.tensor(rng.standard_normal(shape).astype(np.float32), requires_grad=True)

    with pytest.raises(NotImplementedError, match="make_fx cannot trace this backward"):
        make_fx(ln)(t(3, 4), t(4, 5))

    def accumulates(x):
        (x * x).sum().backward()
        return x.grad

    with pytest.raises(NotImplementedError, match=r"make_fx cannot trace backward\(\)"):
        make_fx(accumulates)(t(3))

    def bn(x, w, b):
        y = F.batch_norm(x, None, None, w, b, training=True).sigmoid().sum()
        return tinytorch.autograd.grad(y, (x, w))

    gm = make_fx(bn)(t(4, 3), t(3), t(3))
    others = (t(4, 3), t(3), t(3))
    for got, expected in zip(gm(*others), bn(*others)):
        np.testing.assert_array_equal(got.detach().numpy(), expected.detach().numpy())


@pytest.mark.parametrize("call", ["dropout1d(x[0], 0.25)", "dropout1d(x, 0.4)", "dropout2d(x[..., None], 0.25)",
                                  "dropout3d(x[..., None, None], 0.5)", "dropout3d(x[0, ..., None, None], 0.5)"])
def test_channel_dropout_is_feature_dropout(torch, call):
    """F.dropout1d/2d/3d are Python calling ``feature_dropout`` (export shows it, on a batch of one for an unbatched
    input); below autograd that is dropout's composite with one noise value per channel, forward and backward;
    the traced module draws eager's mask from the same seed."""
    import tinytorch

    codes = []
    for lib in (torch, tinytorch):
        proxy = __import__(f"{lib.__name__}.fx.experimental.proxy_tensor", fromlist=["make_fx"])
        fn = eval(f"lambda x: lib.nn.functional.{call}", {"lib": lib})
        x = lib.ones(3, 4, 5, requires_grad=True)
        codes.append(proxy.make_fx(lambda x: lib.autograd.grad(fn(x).sum(), x))(x).code)
        codes.append(proxy.make_fx(fn)(x.detach()).code)

        class M(lib.nn.Module):
            def forward(self, x):
                return fn(x)
        codes.append(lib.export.export(M(), (x.detach(),)).graph_module.code)
    assert codes[3:] == codes[:3]
    from tinytorch.fx.experimental.proxy_tensor import make_fx
    fn = eval(f"lambda x: F.{call}", {"F": tinytorch.nn.functional})
    x = tinytorch.randn(3, 4, 5)
    gm = make_fx(fn)(x)
    tinytorch.manual_seed(7)
    want = fn(x)
    tinytorch.manual_seed(7)
    np.testing.assert_array_equal(gm(x).numpy(), want.numpy())


def test_training_dropout_is_pytorchs_cpu_composite(torch):
    """Training dropout below autograd: PyTorch's CPU composite (empty_like, bernoulli_, div_, mul), forward and
    backward (the gradient multiplies by the div_); the traced module draws eager's mask from the same seed."""
    import tinytorch

    codes = []
    for lib in (torch, tinytorch):
        make_fx = __import__(f"{lib.__name__}.fx.experimental.proxy_tensor", fromlist=["make_fx"]).make_fx
        x = lib.ones(4, 4, requires_grad=True)
        codes.append(make_fx(lambda x: lib.autograd.grad(lib.nn.functional.dropout(x, 0.25).sum(), x))(x).code)
        codes.append(make_fx(lambda x: lib.nn.functional.dropout(x, 0.25))(x.detach()).code)
    assert codes[2:] == codes[:2]
    from tinytorch.fx.experimental.proxy_tensor import make_fx
    x = tinytorch.randn(5, 6)
    gm = make_fx(lambda x: tinytorch.nn.functional.dropout(x, 0.3))(x)
    tinytorch.manual_seed(7)
    want = tinytorch.nn.functional.dropout(x, 0.3)
    tinytorch.manual_seed(7)
    np.testing.assert_array_equal(gm(x).numpy(), want.numpy())
