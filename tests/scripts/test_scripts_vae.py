"""examples/vae.py: its model and loss are PyTorch's (the same source run under PyTorch gives the
same negative ELBO and gradients for the same seed), and it trains on the shared FashionMNIST."""
import _repo
import importlib.util
import os

import numpy as np
import pytest

import tinytorch
from conftest import data_root

ROOT = _repo.ROOT
EXAMPLE = os.path.join(ROOT, "examples", "vae.py")


def _load_tinytorch_example():
    spec = importlib.util.spec_from_file_location("vae_example", EXAMPLE)
    module = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(module)
    return module


def _load_under_pytorch():
    # the same source with PyTorch in place of tinytorch (data loading left out: torchvision may be absent)
    src = open(EXAMPLE).read()
    src = "\n".join(line for line in src.splitlines() if not line.startswith("from tinytorch.data"))
    ns = {"__name__": "vae_torch"}
    exec(compile(src.replace("tinytorch", "torch"), EXAMPLE, "exec"), ns)
    return ns


def test_vae_loss_and_gradients_match_pytorch():
    torch = pytest.importorskip("torch")
    ours, theirs = _load_tinytorch_example(), _load_under_pytorch()
    x = np.random.RandomState(0).uniform(0, 1, (8, 1, 28, 28)).astype(np.float32)
    tinytorch.manual_seed(0)
    torch.manual_seed(0)
    tm, pm = ours.VAE(latent=4, hidden=32), theirs["VAE"](latent=4, hidden=32)
    tl = ours.negative_elbo(tm, tinytorch.tensor(x))
    pl = theirs["negative_elbo"](pm, torch.tensor(x))
    np.testing.assert_allclose(tl.item(), pl.item(), rtol=1e-5)
    tl.backward()
    pl.backward()
    for (name, a), (_, b) in zip(tm.named_parameters(), pm.named_parameters()):
        np.testing.assert_allclose(a.grad.numpy(), b.grad.numpy(), rtol=1e-3, atol=1e-5, err_msg=name)


@pytest.mark.skipif(not os.path.exists(os.path.join(data_root(), "FashionMNIST", "raw", "train-images-idx3-ubyte.gz")),
                    reason="the shared FashionMNIST subset is not there")
def test_vae_trains_on_fashion_mnist():
    example = _load_tinytorch_example()
    history = example.train(data_root(), epochs=2, limit=512, batch_size=64, log=lambda *_: None)
    assert history[1] < history[0] < 600  # nats per image; 784 * log 2 = 543 for a coin-flip decoder
