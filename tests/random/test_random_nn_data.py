"""PyTorch's streams through nn and data: module initialisation, nn.init, dropout, samplers,
random_split and the DataLoader's per-epoch draws, compared bit for bit with the generator state."""
import math
import os
import warnings

import numpy as np
import pytest

import tinytorch as tt

from conftest import data_root
from test_random import same_bits, same_state

pytestmark = pytest.mark.bitexact


def _quickstart(m):
    nn = m.nn
    return nn.Sequential(nn.Flatten(), nn.Linear(28 * 28, 512), nn.ReLU(), nn.Linear(512, 512), nn.ReLU(),
                         nn.Linear(512, 10))


@pytest.mark.parametrize("seed", [0, 1, 42, 2 ** 40 + 7])
def test_quickstart_model_weights_are_pytorchs(torch, seed):
    tt.manual_seed(seed)
    torch.manual_seed(seed)
    ours, theirs = _quickstart(tt), _quickstart(torch)
    for (_, a), (_, b) in zip(ours.named_parameters(), theirs.named_parameters()):
        same_bits(a.detach(), b.detach())
    same_state(torch)


def test_quickstart_first_batch_loss(torch):
    """A seeded model on the first batch of a seeded shuffled loader: PyTorch's weights, PyTorch's
    batch, and the loss to float32 rounding (matmul summation order is BLAS's, not bitwise)."""
    images = np.random.RandomState(0).randint(0, 256, (300, 1, 28, 28)).astype(np.float32) / 255
    labels = np.random.RandomState(1).randint(0, 10, 300)
    root = data_root()
    if os.path.isdir(os.path.join(root, "FashionMNIST", "raw")):
        ds = tt.data.datasets.FashionMNIST(root, train=True, download=False)
        images = ds.data[:300].numpy()[:, None].astype(np.float32) / 255
        labels = ds.targets[:300].numpy()
    out = []
    for m in (tt, torch):
        m.manual_seed(0)
        model = _quickstart(m)
        data = m.utils.data.TensorDataset(m.tensor(images), m.tensor(labels))
        x, y = next(iter(m.utils.data.DataLoader(data, batch_size=64, shuffle=True)))
        loss = m.nn.CrossEntropyLoss()(model(x), y)
        out.append((x.numpy(), y.numpy(), loss.item(), m.get_rng_state().numpy()))
    (xa, ya, la, sa), (xb, yb, lb, sb) = out
    assert xa.tobytes() == xb.tobytes() and ya.tobytes() == yb.tobytes() and sa.tobytes() == sb.tobytes()
    assert math.isclose(la, lb, rel_tol=1e-6)


def test_linear_without_bias_and_other_shapes(torch):
    for args in [(784, 512), (3, 1), (1, 7), (20, 30, False)]:
        tt.manual_seed(5)
        torch.manual_seed(5)
        a, b = tt.nn.Linear(*args), torch.nn.Linear(*args)
        same_bits(a.weight.detach(), b.weight.detach())
        if a.bias is not None:
            same_bits(a.bias.detach(), b.bias.detach())
        same_state(torch)


INITS = {
    "uniform_": lambda m, w, g: m.nn.init.uniform_(w, -0.1, 0.3, generator=g),
    "normal_": lambda m, w, g: m.nn.init.normal_(w, 0.1, 0.02, generator=g),
    "xavier_uniform_": lambda m, w, g: m.nn.init.xavier_uniform_(w, gain=1.3, generator=g),
    "xavier_normal_": lambda m, w, g: m.nn.init.xavier_normal_(w, generator=g),
    "kaiming_uniform_": lambda m, w, g: m.nn.init.kaiming_uniform_(w, generator=g),
    "kaiming_uniform_sqrt5": lambda m, w, g: m.nn.init.kaiming_uniform_(w, a=math.sqrt(5), generator=g),
    "kaiming_normal_": lambda m, w, g: m.nn.init.kaiming_normal_(w, mode="fan_out", nonlinearity="relu",
                                                                 generator=g),
    "trunc_normal_": lambda m, w, g: m.nn.init.trunc_normal_(w, std=0.02, generator=g),
    "trunc_normal_narrow": lambda m, w, g: m.nn.init.trunc_normal_(w, mean=0.5, a=-0.1, b=0.1, generator=g),
}


@pytest.mark.parametrize("name", sorted(INITS))
@pytest.mark.parametrize("shape", [(30, 20), (16, 3, 5, 5), (8, 4, 3)])
def test_init_functions(torch, name, shape):
    tt.manual_seed(1)
    torch.manual_seed(1)
    fill = INITS[name]
    same_bits(fill(tt, tt.empty(*shape), None), fill(torch, torch.empty(*shape), None))
    same_state(torch)
    # on a transposed view too (the per-element paths, in memory order)
    same_bits(fill(tt, tt.empty(*shape[::-1]).transpose(0, -1), None),
              fill(torch, torch.empty(*shape[::-1]).transpose(0, -1), None))
    same_state(torch)
    g, h = tt.Generator().manual_seed(3), torch.Generator().manual_seed(3)
    same_bits(fill(tt, tt.empty(*shape), g), fill(torch, torch.empty(*shape), h))
    same_state(torch, g, h)


def test_fan_in_and_fan_out_match(torch):
    for shape in [(30, 20), (16, 3, 5, 5), (8, 4, 3), (2, 3, 4, 5, 6)]:
        assert (tt.nn.init._calculate_fan_in_and_fan_out(tt.empty(*shape))
                == torch.nn.init._calculate_fan_in_and_fan_out(torch.empty(*shape)))


def test_dirac_and_sparse_match(torch):
    # every nn.init function PyTorch has (transformers records them all at import)
    public = {n for n in dir(torch.nn.init) if not n.startswith("_") and callable(getattr(torch.nn.init, n))
              and getattr(getattr(torch.nn.init, n), "__module__", "") == "torch.nn.init"}
    assert public <= set(dir(tt.nn.init))
    for shape, groups in [((6, 4, 3), 1), ((6, 4, 3, 3), 2), ((4, 6, 3, 2, 5), 4)]:
        same_bits(tt.nn.init.dirac_(tt.empty(*shape), groups), torch.nn.init.dirac_(torch.empty(*shape), groups))
    tt.manual_seed(4)
    torch.manual_seed(4)
    same_bits(tt.nn.init.sparse_(tt.empty(7, 5), 0.3), torch.nn.init.sparse_(torch.empty(7, 5), 0.3))
    g, h = tt.Generator().manual_seed(3), torch.Generator().manual_seed(3)
    same_bits(tt.nn.init.sparse_(tt.empty(6, 4), 0.5, std=2.0, generator=g),
              torch.nn.init.sparse_(torch.empty(6, 4), 0.5, std=2.0, generator=h))
    same_state(torch, g, h)
    for mod in (tt, torch):
        with pytest.raises(ValueError, match="Only tensors with 3, 4, or 5 dimensions are supported"):
            mod.nn.init.dirac_(mod.empty(3, 3))
        with pytest.raises(ValueError, match="dim 0 must be divisible by groups"):
            mod.nn.init.dirac_(mod.empty(3, 3, 3), 2)


def test_orthogonal_takes_pytorchs_draws(torch):
    tt.manual_seed(2)
    torch.manual_seed(2)
    a, b = tt.nn.init.orthogonal_(tt.empty(6, 10)), torch.nn.init.orthogonal_(torch.empty(6, 10))
    same_state(torch)
    np.testing.assert_allclose(a.numpy(), b.numpy(), atol=1e-5)  # QR is LAPACK's on both sides


@pytest.mark.parametrize("p", [0.2, 0.5, 0.9])
def test_dropout_in_training(torch, p):
    for m in (tt, torch):
        m.manual_seed(0)
    x = tt.randn(64, 100)
    torch.randn(64, 100)
    # the same inputs on both sides (PyTorch's DEFAULT path draws other float32 normals): what is
    # compared is the masks and the scaling
    y = torch.from_numpy(x.numpy().copy())
    same_bits(tt.nn.functional.dropout(x, p), torch.nn.functional.dropout(y, p))
    same_bits(tt.nn.Dropout(p)(x), torch.nn.Dropout(p)(y))
    same_state(torch)
    same_bits(tt.nn.functional.dropout(x.double(), p), torch.nn.functional.dropout(y.double(), p))
    same_state(torch)
    # eval mode, p=0 and p=1 draw nothing
    tt.nn.Dropout(p).eval()(x), torch.nn.Dropout(p).eval()(y)
    same_bits(tt.nn.functional.dropout(x, 1.0), torch.nn.functional.dropout(y, 1.0))
    tt.nn.functional.dropout(x, 0.0), torch.nn.functional.dropout(y, 0.0)
    same_state(torch)


def test_samplers_and_random_split(torch):
    cases = [
        lambda m: list(m.utils.data.RandomSampler(range(10), replacement=True, num_samples=70)),
        lambda m: list(m.utils.data.RandomSampler(range(10), num_samples=25)),
        lambda m: list(m.utils.data.RandomSampler(range(10), num_samples=25, generator=m.Generator().manual_seed(4))),
        lambda m: list(m.utils.data.SubsetRandomSampler([3, 5, 7, 9, 11])),
        lambda m: list(m.utils.data.WeightedRandomSampler([0.1, 0.9, 0.4, 0.7, 3.0], 12)),
        lambda m: list(m.utils.data.WeightedRandomSampler([0.1, 0.9, 0.4, 0.7, 3.0], 3, replacement=False)),
        lambda m: [list(s) for s in m.utils.data.random_split(range(10), [3, 7])],
        lambda m: [list(s) for s in m.utils.data.random_split(range(11), [0.3, 0.7],
                                                              generator=m.Generator().manual_seed(1))],
    ]
    for seed in (0, 5):
        for case in cases:
            tt.manual_seed(seed)
            torch.manual_seed(seed)
            assert case(tt) == case(torch)
            same_state(torch)


@pytest.mark.parametrize("n", [1, 17, 1000])
@pytest.mark.parametrize("explicit", [False, True])
def test_shuffled_dataloader_epochs(torch, n, explicit):
    orders = []
    for m in (tt, torch):
        m.manual_seed(3)
        data = m.utils.data.TensorDataset(m.arange(n))
        g = m.Generator().manual_seed(7) if explicit else None
        loader = m.utils.data.DataLoader(data, batch_size=5, shuffle=True, generator=g)
        orders.append([b[0].tolist() for _ in range(2) for b in loader])
        orders.append(g.get_state().numpy().tobytes() if explicit else None)
    assert orders[0] == orders[2] and orders[1] == orders[3]
    same_state(torch)


def test_worker_seeds_are_pytorchs(torch):
    from torch.utils.data._utils.worker import _generate_state

    from tinytorch.data._worker import _numpy_seed

    for base, wid in [(0, 0), (123456789012, 3), (2 ** 63 - 1, 7)]:
        assert list(_numpy_seed(base, wid)) == list(_generate_state(base, wid))


def test_init_of_empty_tensor_warns_and_draws_nothing(torch):
    tt.manual_seed(0)
    torch.manual_seed(0)
    with warnings.catch_warnings(record=True) as ours:
        warnings.simplefilter("always")
        tt.nn.init.kaiming_uniform_(tt.empty(0, 3))
    with warnings.catch_warnings(record=True) as theirs:
        warnings.simplefilter("always")
        torch.nn.init.kaiming_uniform_(torch.empty(0, 3))
    assert [str(w.message) for w in ours] == [str(w.message) for w in theirs]
    same_state(torch)


@pytest.mark.parametrize("dtype", ["float32", "float64"])
@pytest.mark.parametrize("case", [
    ("dropout1d", lambda F, x: F.dropout1d(x[:, :, 0, 0], 0.4)),
    ("dropout2d", lambda F, x: F.dropout2d(x, 0.3)),
    ("dropout3d", lambda F, x: F.dropout3d(x[..., None], 0.5)),
    ("rrelu", lambda F, x: F.rrelu(x, training=True)),
    ("rrelu bounds", lambda F, x: F.rrelu(x, 0.1, 0.7, training=True)),
])
def test_channel_dropout_and_rrelu_draw_pytorchs_numbers(torch, case, dtype):
    _, fn = case
    x = np.random.default_rng(5).standard_normal((4, 6, 3, 2)).astype(dtype)
    for seed in (0, 7):
        tt.manual_seed(seed)
        torch.manual_seed(seed)
        same_bits(fn(tt.nn.functional, tt.tensor(x)), fn(torch.nn.functional, torch.tensor(x)))
        same_state(torch)


def test_gumbel_softmax_takes_pytorchs_draws(torch):
    x = np.random.default_rng(6).standard_normal((5, 7))
    tt.manual_seed(1)
    torch.manual_seed(1)
    ours = tt.nn.functional.gumbel_softmax(tt.tensor(x), tau=0.5)
    theirs = torch.nn.functional.gumbel_softmax(torch.tensor(x), tau=0.5)
    np.testing.assert_allclose(ours.numpy(), theirs.numpy(), rtol=1e-12, atol=1e-15)  # log/softmax rounding
    same_state(torch)


@pytest.mark.parametrize("p", [0.2, 0.5, 1 / 3, 0.999])
def test_dropout_masks_are_pytorchs_stream(torch, p):
    """bernoulli_(1 - p) compared as integers (the draw's low 53 bits against ceil((1 - p) 2^53)) keeps
    PyTorch's masks and leaves the generator where PyTorch's does: F.dropout, then attention's."""
    x = np.random.default_rng(0).standard_normal((8, 4, 16, 16)).astype(np.float32) + 2
    outs = []
    for lib in (tt, torch):
        lib.manual_seed(123)
        a = lib.nn.functional.dropout(lib.tensor(x), p=p)
        q = lib.tensor(x)
        b = lib.nn.functional.scaled_dot_product_attention(q, q, q, dropout_p=p)
        outs.append((a.numpy(), b.numpy(), lib.rand(3).numpy()))
    np.testing.assert_array_equal(outs[0][0], outs[1][0])
    np.testing.assert_allclose(outs[0][1], outs[1][1], rtol=1e-5, atol=1e-5)  # the same weights dropped
    np.testing.assert_array_equal(outs[0][2], outs[1][2])
