"""torch.compile's planned replay (stage 2): the captured graph becomes a joint forward/backward graph, cut in two
and written out as two Python functions that run each op with autograd off, under one CompiledFunctionBackward
node. What holds it to eager tinytorch:

  - training through the plans gives eager's losses, parameters and buffers bit for bit (an MLP, PyTorch's MNIST
    CNN with its dropouts and max pooling, an embedding + BatchNorm MLP, a transformer layer, a ResNet block with
    in-place ReLUs, einsum attention), and the plans are really used;
  - each lowering (an ATen op's shortcut to its array step) gives its op's result exactly;
  - the fake trace behind the joint graph leaves the random stream where it was (as PyTorch's fake mode does) and
    the ops' meta checks off once it is done;
  - inference calls, another shape, ``TORCH_LOGS=output_code``."""
import logging

import numpy as np
import pytest

import tinytorch as tt
from tinytorch._dynamo.lowering import LOWERINGS

F = tt.nn.functional


@pytest.fixture(autouse=True)
def _fresh():
    tt._dynamo.reset()
    yield
    tt._dynamo.reset()


def _mlp():
    return tt.nn.Sequential(tt.nn.Flatten(), tt.nn.Linear(48, 32), tt.nn.ReLU(), tt.nn.Linear(32, 32), tt.nn.ReLU(),
                            tt.nn.Linear(32, 10))


class _Net(tt.nn.Module):
    """PyTorch's MNIST example network, narrower."""

    def __init__(self):
        super().__init__()
        self.conv1, self.conv2 = tt.nn.Conv2d(1, 4, 3, 1), tt.nn.Conv2d(4, 8, 3, 1)
        self.dropout1, self.dropout2 = tt.nn.Dropout(0.25), tt.nn.Dropout(0.5)
        self.fc1, self.fc2 = tt.nn.Linear(8 * 6 * 6, 16), tt.nn.Linear(16, 10)

    def forward(self, x):
        x = F.max_pool2d(F.relu(self.conv2(F.relu(self.conv1(x)))), 2)
        x = F.relu(self.fc1(tt.flatten(self.dropout1(x), 1)))
        return F.log_softmax(self.fc2(self.dropout2(x)), dim=1)


def _activations():
    nn = tt.nn
    return nn.Sequential(nn.Flatten(), nn.Linear(48, 32), nn.ELU(), nn.Linear(32, 32), nn.SELU(), nn.Linear(32, 32),
                         nn.Hardswish(), nn.Linear(32, 24), nn.Hardsigmoid(), nn.Linear(24, 24), nn.SiLU(),
                         nn.Linear(24, 16), nn.ELU(0.5), nn.Hardtanh(-0.5, 2.0), nn.ReLU6(), nn.Linear(16, 10))


def _celu_and_in_place():
    """CELU (its gradient is elu_backward's with input_scale 1/alpha) and in-place activations: nodes that save
    their results (CeluBackward1, EluBackward1 for ELU and SELU, LeakyReluBackward1, ReLU's threshold_) and nodes
    that keep a copy of their input (SiLU, Mish, Hardtanh, Hardswish, Hardsigmoid: a clone in the graph)."""
    nn = tt.nn
    return nn.Sequential(nn.Flatten(), nn.Linear(48, 32), nn.CELU(), nn.Linear(32, 32), nn.CELU(0.6, inplace=True),
                         nn.Linear(32, 32), nn.ELU(0.7, inplace=True), nn.Linear(32, 24), nn.SELU(inplace=True),
                         nn.Linear(24, 24), nn.LeakyReLU(0.1, inplace=True), nn.Linear(24, 24), nn.SiLU(inplace=True),
                         nn.Mish(inplace=True), nn.Linear(24, 16), nn.ReLU(inplace=True), nn.Linear(16, 16),
                         nn.Hardtanh(-0.5, 2.0, inplace=True), nn.Hardswish(inplace=True), nn.Linear(16, 16),
                         nn.Hardsigmoid(inplace=True), nn.Linear(16, 10))


def _prelu():
    """PReLU per channel after a convolution and shared after a linear layer: the weight viewed to (1, C, 1, 1),
    _prelu_kernel, and its backward's weight gradient summed to the view's shape (PyTorch's engine's sum_to)."""
    nn = tt.nn
    return nn.Sequential(nn.Conv2d(3, 4, 3), nn.PReLU(4, init=0.3), nn.Flatten(), nn.Linear(16, 12), nn.PReLU(),
                         nn.Linear(12, 10))


class _FrozenNorm(tt.nn.Module):
    """An instance norm, a batch norm kept in eval mode under a trained layer (fine-tuning), picked columns, an
    L1 term."""

    def __init__(self):
        super().__init__()
        self.fc, self.bn, self.head = tt.nn.Linear(48, 24), tt.nn.BatchNorm1d(24), tt.nn.Linear(12, 10)
        self.bn.running_mean.uniform_(-0.5, 0.5)
        self.bn.running_var.uniform_(0.5, 2.0)
        self.bn.eval()
        self.register_buffer("picked", tt.arange(0, 24, 2))

    def forward(self, x):
        x = tt.nn.functional.instance_norm(x, eps=1e-3)
        h = self.bn(self.fc(x.flatten(1))).index_select(1, self.picked)
        return self.head(F.elu(h)) - F.l1_loss(h, h.detach() * 0.5)


def _embedding_bn():
    return tt.nn.Sequential(tt.nn.Embedding(27, 6), tt.nn.Flatten(), tt.nn.Linear(18, 24, bias=False),
                            tt.nn.BatchNorm1d(24), tt.nn.Tanh(), tt.nn.Linear(24, 10, bias=False),
                            tt.nn.BatchNorm1d(10))


class _Encoder(tt.nn.Module):
    """A pre-norm causal transformer layer (GELU feed-forward) over embeddings, as the GPT-style benchmark."""

    def __init__(self):
        super().__init__()
        self.tok = tt.nn.Embedding(27, 16)
        self.layer = tt.nn.TransformerEncoderLayer(16, 2, 32, dropout=0.0, activation="gelu", batch_first=True,
                                                   norm_first=True)
        self.head = tt.nn.Linear(16, 10)
        self.register_buffer("mask", tt.nn.Transformer.generate_square_subsequent_mask(6))

    def forward(self, idx):
        return self.head(self.layer(self.tok(idx), src_mask=self.mask, is_causal=True)).mean(1)


class _ResidualBlock(tt.nn.Module):
    """A ResNet basic block with a strided stem (torchvision's layout): in-place ReLUs, ``out += identity``,
    BatchNorm2d, max pooling and adaptive average pooling."""

    def __init__(self):
        super().__init__()
        self.stem = tt.nn.Sequential(tt.nn.Conv2d(3, 4, 5, 2, 2, bias=False), tt.nn.BatchNorm2d(4),
                                     tt.nn.ReLU(inplace=True), tt.nn.MaxPool2d(3, 2, 1))
        self.conv1, self.bn1 = tt.nn.Conv2d(4, 4, 3, 1, 1, bias=False), tt.nn.BatchNorm2d(4)
        self.conv2, self.bn2 = tt.nn.Conv2d(4, 4, 3, 1, 1, bias=False), tt.nn.BatchNorm2d(4)
        self.relu = tt.nn.ReLU(inplace=True)
        self.pool, self.fc = tt.nn.AdaptiveAvgPool2d((1, 1)), tt.nn.Linear(4, 10)

    def forward(self, x):
        identity = self.stem(x)
        out = self.bn2(self.conv2(self.relu(self.bn1(self.conv1(identity)))))
        out += identity
        return self.fc(tt.flatten(self.pool(self.relu(out)), 1))


class _LiteralAndNoneIndex(tt.nn.Module):
    """A tensor literal inside the forward (``aten.tensor`` in the graph) and views made by indexing with None."""

    def __init__(self):
        super().__init__()
        self.lin, self.bias = tt.nn.Linear(48, 10), tt.nn.Parameter(tt.zeros(10))

    def forward(self, x):
        h = self.lin(x.flatten(1))[:, None] + self.bias[None, None]
        return (h * tt.tensor([0.5, 2.0, 1.0, 1.5, 1.0, 1.0, 0.25, 1.0, 1.0, 3.0])).sum(1)


class _PickedValues(tt.nn.Module):
    """Values picked by index (a DQN's gather of Q-values, max, topk, sort) after a LeakyReLU."""

    def __init__(self):
        super().__init__()
        self.lin = tt.nn.Linear(48, 16)
        self.register_buffer("actions", (tt.arange(10) * 7 % 16)[None])

    def forward(self, x):
        h = tt.nn.functional.leaky_relu(self.lin(x.flatten(1)), 0.1)
        picked = h.gather(1, self.actions.expand(h.shape[0], -1))
        return picked + h.max(1, keepdim=True)[0] + h.topk(2, 1)[0].sum(1, keepdim=True) + h.sort(1)[0][:, 3:13]


class _IndexedByTensors(tt.nn.Module):
    """Rows and columns picked by index tensors and a list, repeats included (a lookup table, a permutation of
    features): the backward adds the gradient into zeros at the indices (index_put with accumulate, as PyTorch's)."""

    def __init__(self):
        super().__init__()
        self.lin = tt.nn.Linear(48, 16)
        self.register_buffer("cols", tt.tensor([3, 0, 3, 15, 7, 7, 1, 2, 9, 3]))
        self.register_buffer("rows", tt.tensor([5, 0, 0, 2, 3, 1]))

    def forward(self, x):
        h = self.lin(x.flatten(1))
        pairs = h[self.rows[:, None], self.cols[None, :4]].sum(1)[:, None]
        return h[:, self.cols] + h[self.rows][:, :10] * 0.5 + pairs + h[[1, 1, 4, 0, 2, 3]][:, 6:]


class _ClippedObjective(tt.nn.Module):
    """PPO's clipped surrogate's ops: a ratio clamped to [0.8, 1.2], the minimum of the two terms, a maximum."""

    def __init__(self):
        super().__init__()
        self.lin = tt.nn.Linear(48, 10)

    def forward(self, x):
        h = self.lin(x.flatten(1))
        ratio = tt.exp(h - h.detach().mean())
        return tt.minimum(ratio * 2, ratio.clamp(0.8, 1.2) * 3) + tt.maximum(h, h * -0.5) + h.clamp(min=0.1)


class _UpsampledEmbedding(tt.nn.Module):
    """A decoder's and a contrastive head's functionals: channel dropout, nearest and bilinear upsampling, a
    padding, L2-normalised features, cosine similarities, log-sigmoid."""

    def __init__(self):
        super().__init__()
        self.conv = tt.nn.Conv2d(3, 4, 3)
        self.lin = tt.nn.Linear(4 * 8 * 8, 10)

    def forward(self, x):
        h = F.dropout2d(self.conv(F.pad(x, (1, 1, 1, 1))), 0.25)
        h = F.interpolate(h, scale_factor=2) + F.interpolate(h, size=(8, 8), mode="bilinear")
        z = F.normalize(self.lin(h.flatten(1)), dim=1)
        return z * 3 + F.cosine_similarity(z, z.flip(0))[:, None] + F.logsigmoid(z)


class _EinsumAttention(tt.nn.Module):
    """Attention written with einsum, as vit-pytorch and x-transformers write it, and an RMSNorm (both composite in
    ATen: the plans run the ops they are made of), its heads moved with movedim."""

    def __init__(self):
        super().__init__()
        self.qkv = tt.nn.Linear(8, 24)
        self.norm = tt.nn.RMSNorm(6 * 8)
        self.out = tt.nn.Linear(6 * 8, 10)

    def forward(self, x):
        q, k, v = (t.view(x.shape[0], 6, 2, 4).movedim(2, 1) for t in self.qkv(x).chunk(3, -1))
        attn = (tt.einsum("bhid,bhjd->bhij", q, k) * 0.5).softmax(-1)
        h = tt.einsum("bhij,bhjd->bhid", attn, v).movedim(1, 2)
        skip = tt.einsum("bi,i->b", x.flatten(1), x[0].flatten())[:, None]
        return self.out(self.norm(h.reshape(x.shape[0], -1))) + skip


def _conv1d_pool():
    """A 1-d convolutional classifier: average pooling over time (avg_pool1d is avg_pool2d between views in ATen)."""
    return tt.nn.Sequential(tt.nn.Conv1d(3, 4, 3, padding=1), tt.nn.ReLU(), tt.nn.AvgPool1d(2),
                            tt.nn.Conv1d(4, 4, 3), tt.nn.AvgPool1d(3, 1, 1, count_include_pad=False), tt.nn.Flatten(),
                            tt.nn.Linear(4 * 6, 10))


def _lenet():
    """LeNet-5's layout: convolutions, tanh, average pooling."""
    return tt.nn.Sequential(tt.nn.Conv2d(1, 4, 3, padding=1), tt.nn.Tanh(), tt.nn.AvgPool2d(2),
                            tt.nn.Conv2d(4, 6, 3), tt.nn.Tanh(), tt.nn.AvgPool2d(2, 1), tt.nn.Flatten(),
                            tt.nn.Linear(6 * 5 * 5, 10))


MODELS = {
    "lenet": (_lenet, lambda rng: tt.tensor(rng.standard_normal((4, 1, 16, 16), dtype=np.float32))),
    "conv1d_pool": (_conv1d_pool, lambda rng: tt.tensor(rng.standard_normal((4, 3, 16), dtype=np.float32))),
    "einsum_attention": (_EinsumAttention, lambda rng: tt.tensor(rng.standard_normal((4, 6, 8), dtype=np.float32))),
    "upsampled_embedding": (_UpsampledEmbedding,
                            lambda rng: tt.tensor(rng.standard_normal((4, 3, 4, 4), dtype=np.float32))),
    "clipped_objective": (_ClippedObjective,
                          lambda rng: tt.tensor(rng.standard_normal((6, 3, 4, 4), dtype=np.float32))),
    "indexed_by_tensors": (_IndexedByTensors,
                           lambda rng: tt.tensor(rng.standard_normal((6, 3, 4, 4), dtype=np.float32))),
    "picked_values": (_PickedValues, lambda rng: tt.tensor(rng.standard_normal((6, 3, 4, 4), dtype=np.float32))),
    "literal_and_none_index": (_LiteralAndNoneIndex,
                               lambda rng: tt.tensor(rng.standard_normal((6, 3, 4, 4), dtype=np.float32))),
    "resnet_block": (_ResidualBlock, lambda rng: tt.tensor(rng.standard_normal((4, 3, 16, 16), dtype=np.float32))),
    "mlp": (_mlp, lambda rng: tt.tensor(rng.standard_normal((6, 3, 4, 4), dtype=np.float32))),
    "frozen_norm": (_FrozenNorm, lambda rng: tt.tensor(rng.standard_normal((6, 3, 4, 4), dtype=np.float32))),
    "celu_and_in_place": (_celu_and_in_place,
                          lambda rng: tt.tensor(rng.standard_normal((6, 3, 4, 4), dtype=np.float32) * 3)),
    "prelu": (_prelu, lambda rng: tt.tensor(rng.standard_normal((6, 3, 4, 4), dtype=np.float32))),
    "activations": (_activations, lambda rng: tt.tensor(rng.standard_normal((6, 3, 4, 4), dtype=np.float32) * 3)),
    "mnist_cnn": (_Net, lambda rng: tt.tensor(rng.standard_normal((4, 1, 16, 16), dtype=np.float32))),
    "embedding_batchnorm": (_embedding_bn, lambda rng: tt.tensor(rng.integers(0, 27, (8, 3)))),
    "transformer_encoder": (_Encoder, lambda rng: tt.tensor(rng.integers(0, 27, (4, 6)))),
}


def _train(name: str, compiled: bool, steps: int = 12):
    make, batch = MODELS[name]
    tt.manual_seed(0)
    model = make()
    run = tt.compile(model) if compiled else model
    opt = tt.optim.SGD(model.parameters(), lr=0.05, momentum=0.9)
    rng = np.random.default_rng(0)
    losses = []
    for _ in range(steps):
        x = batch(rng)
        target = tt.tensor(rng.integers(0, 10, x.shape[0]))
        loss = F.cross_entropy(run(x), target)
        opt.zero_grad()
        loss.backward()
        opt.step()
        losses.append(loss.detach().numpy().copy())
    state = [t.detach().numpy().copy() for t in [*model.parameters(), *model.buffers()]]
    return np.array(losses), state, run


@pytest.mark.parametrize("name", sorted(MODELS))
def test_training_through_plans_is_eager_bit_for_bit(name):
    eager_losses, eager_state, _ = _train(name, compiled=False)
    losses, state, run = _train(name, compiled=True)
    np.testing.assert_array_equal(losses, eager_losses)
    for got, want in zip(state, eager_state):
        np.testing.assert_array_equal(got, want)
    entry, = run.forward._tinytorch_frame.entries
    assert entry.program is not None and list(entry.plans.values()) and all(
        p is not None for p in entry.plans.values()), "the steps after the first ran the plans"


def test_a_backward_reading_a_saved_result_of_several_runs_in_the_plans():
    """std_mean's node saves its own results (a pair); its backward unpacks them as new tensors over the same
    arrays, which the joint trace maps back to the recorded results (it refused them as constants before, and
    the step replayed op by op)."""
    w = tt.randn(8, requires_grad=True)

    def f(x):
        std, mean = tt.std_mean(x * w, 1)
        return (std * 2 + mean).sum()

    compiled = tt.compile(f)
    x = tt.randn(4, 8)
    for _ in range(2):
        w.grad = None
        compiled(x).backward()
    got = w.grad.numpy().copy()
    w.grad = None
    f(x).backward()
    np.testing.assert_array_equal(got, w.grad.numpy())
    plans = [p for e in compiled._tinytorch_frame.entries for p in e.plans.values()]
    assert plans and all(p is not None for p in plans)


def test_the_plans_result_hangs_from_one_compiled_node():
    tt.manual_seed(0)
    model = tt.compile(_mlp())
    x = tt.randn(2, 3, 4, 4)
    for _ in range(2):
        out = model(x)
    assert type(out.grad_fn).__name__ == "CompiledFunctionBackward"
    out.sum().backward()
    with pytest.raises(RuntimeError, match="does not currently support double backward"):
        y = model(x)
        g, = tt.autograd.grad(y.sum(), model._orig_mod[1].weight, create_graph=True)
        g.sum().backward()


def test_a_label_smoothed_loss_inside_the_compiled_function_runs_in_the_plans():
    """cross_entropy with label smoothing (and class weights, an ignored target) is ATen's composite of ops: compiled
    with the model, it runs in the plans and gives eager's losses and gradients bit for bit."""
    def losses(model, x, y, w):
        out = model(x)
        return (F.cross_entropy(out, y, label_smoothing=0.1)
                + F.cross_entropy(out, y, weight=w, label_smoothing=0.3, reduction="sum") / 7)

    rng = np.random.default_rng(0)
    y = tt.tensor([0, 1, -100, 3, 2, 1])
    w = tt.tensor(rng.random(4, dtype=np.float32))
    results = []
    for compiled in (False, True):
        tt.manual_seed(0)
        model = tt.nn.Sequential(tt.nn.Linear(5, 8), tt.nn.Tanh(), tt.nn.Linear(8, 4))
        step = tt.compile(losses) if compiled else losses
        got = []
        for _ in range(4):
            loss = step(model, tt.tensor(rng.standard_normal((6, 5), dtype=np.float32)), y, w)
            grads = tt.autograd.grad(loss, list(model.parameters()))
            got.append([loss.detach().numpy().copy()] + [g.numpy().copy() for g in grads])
        results.append(got)
        rng = np.random.default_rng(0)
        w = tt.tensor(rng.random(4, dtype=np.float32))
    for eager, planned in zip(*results):
        for a, b in zip(eager, planned):
            np.testing.assert_array_equal(a, b)
    plans = [p for e in step._tinytorch_frame.entries for p in e.plans.values()]
    assert plans and all(p is not None for p in plans), "the calls after the first ran the plans"


def test_a_compiled_step_leaves_no_reference_cycles():
    """What a compiled call makes is freed by reference counting: a cycle per call (a nested function that calls
    itself, in the inputs' flattening) held the call's node and tensors until the cycle collector's passes, whose
    full pass over a large program costs more than a step. (Counted among what the collector finds: tinytorch's
    objects and functions. Earlier tests in the process may leave PyTorch's compile machinery in cycles that
    become unreachable only later; those are not this call's.)"""
    import gc

    def ours(obj) -> bool:
        owner = obj if isinstance(obj, type(ours)) else type(obj)
        return getattr(owner, "__module__", "").partition(".")[0] == "tinytorch"

    tt.manual_seed(0)
    model = tt.compile(_mlp())
    x = tt.randn(2, 3, 4, 4)
    for _ in range(3):
        model(x).sum().backward()
    gc.collect()
    gc.disable()
    gc.set_debug(gc.DEBUG_SAVEALL)
    try:
        for _ in range(3):
            model(x).sum().backward()
        gc.collect()
        leaked = [o for o in gc.garbage if ours(o)]
        assert not leaked, leaked[:5]
    finally:
        gc.set_debug(0)
        gc.garbage.clear()
        gc.enable()


def test_a_plan_frees_each_intermediate_after_its_last_reader():
    """A plan's intermediates go as soon as no later op reads them (a ``del`` in its source, as inductor's code
    frees its buffers): a chain of ten ops on a 4 MB array peaks at a few arrays, not eleven. Held alive to the
    end, every step's tensors also outlived the collector's first generation, which then ran at each step."""
    import tracemalloc

    def chain(x):
        for k in range(10):
            x = x * 1.5 if k % 2 else x + 1.0
        return x

    compiled = tt.compile(chain)
    x = tt.ones(1 << 20)
    with tt.no_grad():
        want = chain(x)
        compiled(x)  # the capture and the plan
        tracemalloc.start()
        try:
            got = compiled(x)
            peak = tracemalloc.get_traced_memory()[1]
        finally:
            tracemalloc.stop()
    np.testing.assert_array_equal(got.numpy(), want.numpy())
    assert peak < 3.5 * x.numpy().nbytes, peak
    plan = next(p for e in compiled._tinytorch_frame.entries for p in e.plans.values())
    assert "    del " in plan.forward.source


def test_inference_and_a_second_shape_run_their_own_plans():
    tt.manual_seed(0)
    eager = _mlp()
    model = tt.compile(eager)
    for shape in ((2, 3, 4, 4), (2, 3, 4, 4), (5, 3, 4, 4), (5, 3, 4, 4)):
        x = tt.randn(*shape)
        with tt.no_grad():
            got, want = model(x), eager(x)
        assert got.grad_fn is None
        np.testing.assert_array_equal(got.numpy(), want.numpy())
    plans = [p for e in model.forward._tinytorch_frame.entries for p in e.plans.values()]
    assert len(plans) == 2 and all(p is not None for p in plans)


@pytest.mark.parametrize("how", ["TORCH_LOGS", "set_logs"])
def test_output_code_prints_each_plan(monkeypatch, caplog, how):
    if how == "TORCH_LOGS":
        monkeypatch.setenv("TORCH_LOGS", "output_code")
    else:
        monkeypatch.delenv("TORCH_LOGS", raising=False)
        tt._logging.set_logs(output_code=True)
    model = tt.compile(_mlp())
    x = tt.randn(2, 3, 4, 4)
    try:
        with caplog.at_level(logging.WARNING, logger="tinytorch._inductor.output_code"):
            for _ in range(2):
                model(x).sum().backward()
    finally:
        tt._logging.set_logs()
    text = "\n".join(r.getMessage() for r in caplog.records)
    assert "def forward(" in text and "def backward(" in text and "aten_addmm(" in text
    # the joint graph's detach nodes and transposes of transposes are gone from the plans (skip_renames): the
    # weight gradients are the mm results themselves
    assert "aten_detach(" not in text
    backward = text[text.index("def backward("):]
    returned = backward[backward.index("return ("):].split("\n")[0]
    assert returned.count("mm") == 3 and "t_" not in returned, returned


def test_fake_trace_leaves_the_generator_and_the_meta_checks_alone(torch):
    from tinytorch._ops._core import registry
    from tinytorch._subclasses.fake_tensor import FakeTensorMode

    for lib, mode in ((torch, torch._subclasses.fake_tensor.FakeTensorMode), (tt, FakeTensorMode)):
        lib.manual_seed(3)
        state = lib.get_rng_state()
        with mode():
            lib.rand(3)
            lib.nn.functional.dropout(lib.ones(4, 4), 0.5)
        assert lib.equal(state, lib.get_rng_state()), lib.__name__
    model = tt.compile(_mlp())
    x = tt.randn(2, 3, 4, 4)
    before = registry.META_ON[0]
    for _ in range(2):
        model(x).sum().backward()
    assert registry.META_ON[0] == before  # eager ops after a compile skip the meta check as before


def _rand(rng, shape, dtype=np.float32):
    return tt.tensor(rng.standard_normal(shape).astype(dtype))


LOWERED = {  # op: argument makers (rng -> args), covering the guarded case and the fallbacks
    "aten.t.default": [lambda r: (_rand(r, (3, 5)),), lambda r: (_rand(r, (4,)),)],
    "aten.detach.default": [lambda r: (_rand(r, (3, 5)),)],
    "aten.view.default": [lambda r: (_rand(r, (3, 4)), [2, 6]), lambda r: (_rand(r, (4, 3)), [-1]),
                          lambda r: (_rand(r, (4, 3)).t(), [3, 1, 4])],
    "aten.mm.default": [lambda r: (_rand(r, (3, 7)), _rand(r, (7, 5))),
                        lambda r: (_rand(r, (1, 7)), _rand(r, (7, 300))),
                        lambda r: (_rand(r, (300, 1)), _rand(r, (1, 300))),
                        lambda r: (_rand(r, (3, 7), np.float64), _rand(r, (5, 7), np.float64).t()),
                        lambda r: (tt.ones(2, 3, dtype=tt.int64), tt.ones(3, 2, dtype=tt.int64))],
    "aten.addmm.default": [lambda r: (_rand(r, (5,)), _rand(r, (8, 7)), _rand(r, (5, 7)).t()),
                           lambda r: (_rand(r, (200,)), _rand(r, (16, 300)), _rand(r, (200, 300)).t()),
                           lambda r: (_rand(r, (5,)), _rand(r, (8, 7)), _rand(r, (7, 5))),
                           lambda r: (_rand(r, (8, 5)), _rand(r, (8, 7)), _rand(r, (5, 7)).t())],
    "aten.unsqueeze.default": [lambda r: (_rand(r, (3, 5)), 1), lambda r: (_rand(r, (3, 5)).t(), -1),
                               lambda r: (_rand(r, (3, 5))[:, ::2], 0), lambda r: (_rand(r, ()), 0)],
    "aten.squeeze.dim": [lambda r: (_rand(r, (3, 1, 5)), 1), lambda r: (_rand(r, (3, 1, 5)), 0),
                         lambda r: (_rand(r, (3, 5, 1)).transpose(0, 1), -1), lambda r: (_rand(r, ()), 0)],
    "aten.transpose.int": [lambda r: (_rand(r, (3, 4, 5)), 0, 2), lambda r: (_rand(r, (3, 4, 5)), -1, 1),
                           lambda r: (_rand(r, (3, 4)).t(), 1, 1), lambda r: (_rand(r, ()), 0, -1)],
    "aten.permute.default": [lambda r: (_rand(r, (3, 4, 5)), [2, 0, 1]), lambda r: (_rand(r, (3, 4, 5)), [-1, 0, -2]),
                             lambda r: (_rand(r, (3, 4))[:, ::2], [1, 0]), lambda r: (_rand(r, ()), [])],
    "aten.select.int": [lambda r: (_rand(r, (3, 4, 5)), 0, 2), lambda r: (_rand(r, (3, 4, 5)), -1, -5),
                        lambda r: (_rand(r, (3, 4)).t(), 1, 0), lambda r: (_rand(r, (6,)), 0, 3)],
    "aten.relu.default": [lambda r: (_rand(r, (3, 5)),), lambda r: (_rand(r, (70000,)),)],
    "aten.threshold_backward.default": [lambda r: (_rand(r, (3, 5)), _rand(r, (3, 5)), 0),
                                        lambda r: (_rand(r, (70000,)), _rand(r, (70000,)), 0),
                                        lambda r: (_rand(r, (3, 5)), _rand(r, (3, 5)), 0.5)],
    "aten.tanh.default": [lambda r: (_rand(r, (3, 5)),), lambda r: (_rand(r, (4, 2), np.float64).t(),),
                          lambda r: (_rand(r, ()),), lambda r: (tt.arange(6).reshape(2, 3),)],
    "aten.tanh_backward.default": [lambda r: (_rand(r, (3, 5)), _rand(r, (3, 5)).tanh()),
                                   lambda r: (_rand(r, (4, 2), np.float64), _rand(r, (2, 4), np.float64).t()),
                                   lambda r: (_rand(r, (3, 5)), _rand(r, (3, 5), np.float64)),
                                   lambda r: (_rand(r, (3, 5)), _rand(r, (5,)))],
    "aten.add_.Tensor": [lambda r: (tt.tensor(int(r.integers(0, 1000))), 1),
                         lambda r: (tt.tensor(2**63 - 1), 1),  # wraps round, as PyTorch's int64 does
                         lambda r: (tt.tensor(-2**63), -1),
                         lambda r: (tt.tensor(7), 3, {"alpha": 2}),
                         lambda r: (_rand(r, (3,)), 1),
                         lambda r: (tt.tensor([4]), 1),
                         lambda r: (tt.tensor(7), 2**40)],
    "aten.sum.dim_IntList": [lambda r: (_rand(r, (8, 5)), [0], True),
                             lambda r: (_rand(r, (1, 300)), [0], True),  # a batch of one's bias gradient
                             lambda r: (_rand(r, (4, 3, 6), np.float64), [-1, 0]),
                             lambda r: (_rand(r, (6, 4)).t(), [1], False),
                             lambda r: (_rand(r, (700, 400)), [0], True),  # split across threads: the op
                             lambda r: (_rand(r, (3, 5)), [0], False, {"dtype": tt.float64}),
                             lambda r: (tt.arange(6).reshape(2, 3), [0]),
                             lambda r: (_rand(r, ()), [0]),
                             lambda r: (tt.tensor([[0.0, -0.0], [-0.0, -0.0]]), [0], True),
                             lambda r: (tt.tensor([[np.inf, 1.0], [-np.inf, np.nan]]), [0, 1])],
    "aten.native_batch_norm.default": [
        lambda r: (_rand(r, (8, 5)) * 3 + 1, _rand(r, (5,)), _rand(r, (5,)), _rand(r, (5,)), _rand(r, (5,)).abs(),
                   True, 0.1, 1e-5),
        lambda r: (_rand(r, (6, 3), np.float64), None, None, None, None, True, 0.3, 1e-3),
        lambda r: (_rand(r, (8, 5)), None, None, _rand(r, (5,)), _rand(r, (5,)).abs(), False, 0.1, 1e-5),
        lambda r: (_rand(r, (4, 3, 2)), _rand(r, (3,)), None, _rand(r, (3,)), _rand(r, (3,)).abs(), True, 0.1, 1e-5),
        lambda r: (_rand(r, (5, 8)).t(), _rand(r, (5,)), None, None, None, True, 0.1, 1e-5),
        lambda r: (_rand(r, (1, 5)), None, None, _rand(r, (5,)), _rand(r, (5,)).abs(), True, 0.1, 1e-5)],
    "aten.native_batch_norm_backward.default": [
        lambda r: _bn_backward_args(r, (8, 5), True, [True, True, True]),
        lambda r: _bn_backward_args(r, (6, 4), False, [True, False, True], np.float64),
        lambda r: _bn_backward_args(r, (6, 4), True, [False, True, False]),
        lambda r: _bn_backward_args(r, (4, 3, 2), True, [True, True, True])],
}


def _bn_backward_args(rng, shape, weighted: bool, mask: list, dtype=np.float32):
    """native_batch_norm_backward's arguments after a training forward of that shape."""
    x, g = _rand(rng, shape, dtype), _rand(rng, shape, dtype)
    w = _rand(rng, shape[1:2], dtype) if weighted else None
    rm, rv = _rand(rng, shape[1:2], dtype), _rand(rng, shape[1:2], dtype).abs()
    with tt.no_grad():
        _, mean, invstd = tt.ops.aten.native_batch_norm(x, w, None, rm, rv, True, 0.1, 1e-5)
    return g, x, w, rm, rv, mean, invstd, True, 1e-5, mask


_VIEWS = ("aten.t.default", "aten.view.default", "aten.unsqueeze.default", "aten.squeeze.dim", "aten.transpose.int",
          "aten.permute.default", "aten.select.int")


def _eager(name: str, args: tuple, kwargs=None):
    """What eager tinytorch computes where the graph holds ``name`` with ``args``: the op itself, except that an
    ``addmm`` of a 1-d bias and a transposed weight is how the joint graph writes ``F.linear``, whose kernel
    the lowering runs. (aten.addmm's own kernel, ``x @ W.t() + b``, may round otherwise than linear's: OpenBLAS's
    Haswell kernels, which it picks on AMD Zen 5, sum ``W @ x.T`` in another order.)"""
    op = getattr(getattr(tt.ops.aten, name.split(".")[1]), name.split(".")[2])
    if name == "aten.addmm.default" and args[0].dim() == 1:
        return tt.nn.functional.linear(args[1], args[2].t(), args[0])
    return op(*args, **(kwargs or {}))


def _assert_same(got, want, name, k) -> None:
    if isinstance(want, (tuple, list)):
        assert isinstance(got, (tuple, list)) and len(got) == len(want), (name, k)
        for g, w in zip(got, want):
            _assert_same(g, w, name, k)
        return
    if want is None:
        assert got is None, (name, k)
        return
    assert got.dtype == want.dtype and got.shape == want.shape, (name, k)
    np.testing.assert_array_equal(got.numpy(), want.numpy())
    assert np.array_equal(np.signbit(got.numpy()), np.signbit(want.numpy())), (name, k)
    assert got.stride() == want.stride(), (name, k)


@pytest.mark.parametrize("name", sorted(LOWERED))
def test_each_lowering_gives_its_ops_result(name):
    for k, make in enumerate(LOWERED[name]):
        # each side gets arguments of its own (drawn alike): an in-place op, or batch norm's running statistics,
        # writes into them, and what it wrote (and the versions it counted) is compared too
        args, own = make(np.random.default_rng(k)), make(np.random.default_rng(k))
        kwargs = args[-1] if isinstance(args[-1], dict) else {}
        args, own = (args[:-1], own[:-1]) if kwargs else (args, own)
        with tt.no_grad():
            got, want = LOWERINGS[name](*args, **kwargs), _eager(name, own, kwargs)
        _assert_same(got, want, name, k)
        if name in _VIEWS:  # a view of its input where the op's result is one (the same storage, counted versions)
            assert (got._base is not None) == (want._base is not None), (name, k)
        if name.split(".")[1].endswith("_"):  # an in-place op hands back its input
            assert got is args[0] and want is own[0], (name, k)
        for a, b in zip(args, own):
            if isinstance(a, tt.Tensor):
                _assert_same(a, b, name, k)
                assert a._version == b._version, (name, k)


def test_a_second_backward_without_retain_graph_raises_as_pytorch(torch):
    """The plans' saved values are freed with the graph: a second backward raises PyTorch's error (its compiled
    node frees them too); with retain_graph=True the second one works and gives the same gradients."""
    texts = []
    for lib, kw in ((torch, {"backend": "aot_eager"}), (tt, {})):
        torch._dynamo.reset()
        lib.manual_seed(0)
        model = lib.compile(lib.nn.Sequential(lib.nn.Linear(4, 4), lib.nn.ReLU()), **kw)
        x = lib.randn(2, 4)
        for _ in range(2):
            y = model(x).sum()
        y.backward(retain_graph=True)
        first = model._orig_mod[0].weight.grad.clone()
        y.backward()
        np.testing.assert_array_equal((model._orig_mod[0].weight.grad / 2).numpy(), first.numpy())
        with pytest.raises(RuntimeError) as e:
            y.backward()
        texts.append(str(e.value))
    assert texts[1] == texts[0]


def test_attention_with_a_key_padding_mask_and_a_fully_padded_row():
    """A padding mask reaches the flash operator as a tensor keyword (recorded as its node, not frozen); a row whose
    keys are all padded takes the math path at replay, as eager does: outputs (NaN where eager's are) and the
    parameters' gradients equal eager's."""
    tt.manual_seed(0)
    layer = tt.nn.TransformerEncoderLayer(16, 2, 32, dropout=0.0, batch_first=True, norm_first=True)
    compiled = tt.compile(layer)
    x = tt.randn(2, 5, 16)
    pad = tt.tensor([[False] * 5, [False, False, True, True, True]])
    every_key = tt.tensor([[False] * 5, [True] * 5])
    for mask in (pad, pad, every_key, pad):
        grads = []
        outs = []
        for run in (layer, compiled):
            layer.zero_grad()
            y = run(x, src_key_padding_mask=mask)
            y.nan_to_num().sum().backward()
            outs.append(y.detach().numpy())
            grads.append([p.grad.numpy().copy() for p in layer.parameters()])
        np.testing.assert_array_equal(outs[1], outs[0])
        for got, want in zip(grads[1], grads[0]):
            np.testing.assert_array_equal(got, want)
    entry, = compiled.forward._tinytorch_frame.entries
    assert all(p is not None for p in entry.plans.values())


@pytest.mark.parametrize("call", ["interpolate(h, scale_factor=0.5, mode='bilinear', antialias=True)",
                                  "interpolate(h, size=(3, 3), mode='area')", "dropout2d(h, 0.3, inplace=True)",
                                  "interpolate(h, scale_factor=0.5, mode='bilinear')"])
def test_resampling_without_a_recorded_backward_keeps_eagers_gradient(call):
    """The antialiased and area modes (and an in-place channel dropout) have no PyTorch operator recorded for
    them here: their graphs replay op by op, never another mode's backward; the plain mode runs the plans."""
    w = tt.randn(4, requires_grad=True)
    fn = eval(f"lambda x: F.{call.replace('h,', '(x * w),')} * 2", {"F": F, "w": w})
    compiled = tt.compile(fn)
    x = tt.randn(2, 3, 8, 4)
    for _ in range(3):
        tt.manual_seed(1)
        got = tt.autograd.grad(compiled(x).sum(), w)[0]
        tt.manual_seed(1)
        want = tt.autograd.grad(fn(x).sum(), w)[0]
        np.testing.assert_array_equal(got.numpy(), want.numpy())
    entry, = compiled._tinytorch_frame.entries
    assert all((p is not None) == ("antialias" not in call and "area" not in call and "inplace" not in call)
               for p in entry.plans.values())
