"""A small variational autoencoder on FashionMNIST with tinytorch.distributions.

    python examples/vae.py --data-root ../shared/datasets --epochs 5
    python examples/vae.py --data-root ../shared/datasets --limit 2048 --epochs 1   # a quick run

The encoder gives a diagonal Normal posterior q(z|x); a reparameterised draw (``rsample``) goes
through the decoder (Bernoulli pixel logits), and the loss is the negative ELBO: reconstruction
cross-entropy plus ``kl_divergence(q(z|x), N(0, I))``. Written with ``import tinytorch as torch``,
it is the same program in PyTorch."""
from __future__ import annotations

import argparse
import os
import sys

import tinytorch as torch
from tinytorch import distributions as D
from tinytorch import nn
from tinytorch.data import DataLoader, Subset, datasets
from tinytorch.data.transforms import ToTensor
from tinytorch.nn import functional as F


class VAE(nn.Module):
    def __init__(self, latent: int = 16, hidden: int = 256):
        super().__init__()
        self.encoder = nn.Sequential(nn.Flatten(), nn.Linear(28 * 28, hidden), nn.ReLU(), nn.Linear(hidden, 2 * latent))
        self.decoder = nn.Sequential(nn.Linear(latent, hidden), nn.ReLU(), nn.Linear(hidden, 28 * 28))

    def posterior(self, x):
        loc, pre_scale = self.encoder(x).chunk(2, dim=-1)
        return D.Independent(D.Normal(loc, F.softplus(pre_scale) + 1e-4), 1)

    def forward(self, x):
        q = self.posterior(x)
        z = q.rsample()  # gradients reach the encoder through the draw
        return q, self.decoder(z)


def negative_elbo(model, x):
    """Mean over the batch of reconstruction cross-entropy + KL(q(z|x) || N(0, I)), in nats."""
    q, logits = model(x)
    prior = D.Independent(D.Normal(torch.zeros_like(q.mean), torch.ones_like(q.mean)), 1)
    reconstruction = F.binary_cross_entropy_with_logits(logits, x.flatten(1), reduction="none").sum(-1)
    return (reconstruction + D.kl_divergence(q, prior)).mean()


def train(data_root: str, epochs: int = 5, limit: int | None = None, batch_size: int = 128, lr: float = 1e-3,
          seed: int = 0, log=print) -> list[float]:
    """Trains a VAE; returns the mean loss of each epoch."""
    torch.manual_seed(seed)
    data = datasets.FashionMNIST(data_root, train=True, transform=ToTensor())
    if limit is not None:
        data = Subset(data, range(min(limit, len(data))))
    loader = DataLoader(data, batch_size=batch_size, shuffle=True)
    model = VAE()
    optimizer = torch.optim.Adam(model.parameters(), lr=lr)
    history = []
    for epoch in range(epochs):
        total, count = 0.0, 0
        for x, _ in loader:
            loss = negative_elbo(model, x)
            optimizer.zero_grad()
            loss.backward()
            optimizer.step()
            total += loss.item() * len(x)
            count += len(x)
        history.append(total / count)
        log(f"epoch {epoch + 1}: negative ELBO {history[-1]:.2f} nats")
    return history


def main(argv=None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--data-root", default=os.path.join(os.path.dirname(__file__), "..", "..", "shared",
                                                            "datasets"))
    parser.add_argument("--epochs", type=int, default=5)
    parser.add_argument("--limit", type=int, default=None, help="train on the first N images only")
    parser.add_argument("--batch-size", type=int, default=128)
    parser.add_argument("--lr", type=float, default=1e-3)
    parser.add_argument("--seed", type=int, default=0)
    args = parser.parse_args(argv)
    train(args.data_root, args.epochs, args.limit, args.batch_size, args.lr, args.seed)
    return 0


if __name__ == "__main__":
    sys.exit(main())
