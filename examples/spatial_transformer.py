"""PyTorch's spatial transformer network tutorial (Jaderberg et al., 2015), on FashionMNIST, in PyTorch code run by
tinytorch.

    python examples/spatial_transformer.py --data-root ../shared/datasets            # one epoch, tinytorch
    python examples/spatial_transformer.py --data-root ../shared/datasets --torch    # the same under PyTorch
    python examples/spatial_transformer.py --data-root ../shared/datasets --limit 4096 --log-every 8

A localisation network regresses a 2x3 affine transform per image (initialised to the identity); the image is
resampled through it (``F.affine_grid`` + ``F.grid_sample``, bilinear, float32) before a small convolutional
classifier; SGD on the negative log-likelihood. The images are read from the dataset's idx files with numpy
and shuffled with ``torch.randperm``, dropout draws from the generator: with the same seed the script prints
the same losses under both libraries."""
from __future__ import annotations

import argparse
import gzip
import os
import sys

import numpy as np

HERE = os.path.dirname(os.path.abspath(__file__))
if "--torch" in sys.argv:
    import torch
else:
    sys.path.insert(0, os.path.dirname(HERE))  # this checkout's tinytorch, wherever the script is run from
    import tinytorch as torch
nn = torch.nn
F = torch.nn.functional


def read_idx(path: str) -> np.ndarray:
    """An idx file (MNIST's format), gzipped or not."""
    opener = gzip.open if path.endswith(".gz") else open
    with opener(path, "rb") as f:
        data = f.read()
    ndim = data[3]
    shape = tuple(int.from_bytes(data[4 + 4 * i: 8 + 4 * i], "big") for i in range(ndim))
    return np.frombuffer(data, dtype=np.uint8, offset=4 + 4 * ndim).reshape(shape)


def load(root: str, train: bool = True):
    """(images (N, 1, 28, 28) float32 normalised as the tutorial's MNIST transform, labels (N,) int64)."""
    raw = os.path.join(root, "FashionMNIST", "raw")
    prefix = "train" if train else "t10k"

    def find(name):
        path = os.path.join(raw, name)
        return path if os.path.exists(path) else path + ".gz"

    images = read_idx(find(f"{prefix}-images-idx3-ubyte")).astype(np.float32) / 255.0
    labels = read_idx(find(f"{prefix}-labels-idx1-ubyte")).astype(np.int64)
    images = ((images - 0.1307) / 0.3081).astype(np.float32)[:, None]
    return images, labels


class Net(nn.Module):
    def __init__(self):
        super().__init__()
        self.conv1 = nn.Conv2d(1, 10, kernel_size=5)
        self.conv2 = nn.Conv2d(10, 20, kernel_size=5)
        self.conv2_drop = nn.Dropout2d()
        self.fc1 = nn.Linear(320, 50)
        self.fc2 = nn.Linear(50, 10)

        # Spatial transformer localization-network
        self.localization = nn.Sequential(
            nn.Conv2d(1, 8, kernel_size=7),
            nn.MaxPool2d(2, stride=2),
            nn.ReLU(True),
            nn.Conv2d(8, 10, kernel_size=5),
            nn.MaxPool2d(2, stride=2),
            nn.ReLU(True),
        )

        # Regressor for the 3 * 2 affine matrix
        self.fc_loc = nn.Sequential(
            nn.Linear(10 * 3 * 3, 32),
            nn.ReLU(True),
            nn.Linear(32, 3 * 2),
        )

        # Initialize the weights/bias with identity transformation
        self.fc_loc[2].weight.data.zero_()
        self.fc_loc[2].bias.data.copy_(torch.tensor([1, 0, 0, 0, 1, 0], dtype=torch.float))

    # Spatial transformer network forward function
    def stn(self, x):
        xs = self.localization(x)
        xs = xs.view(-1, 10 * 3 * 3)
        theta = self.fc_loc(xs)
        theta = theta.view(-1, 2, 3)

        grid = F.affine_grid(theta, x.size(), align_corners=False)
        x = F.grid_sample(x, grid, align_corners=False)

        return x

    def forward(self, x):
        # transform the input
        x = self.stn(x)

        # Perform the usual forward pass
        x = F.relu(F.max_pool2d(self.conv1(x), 2))
        x = F.relu(F.max_pool2d(self.conv2_drop(self.conv2(x)), 2))
        x = x.view(-1, 320)
        x = F.relu(self.fc1(x))
        x = F.dropout(x, training=self.training)
        x = self.fc2(x)
        return F.log_softmax(x, dim=1)


def train(data_root: str, limit: int | None = None, batch_size: int = 64, lr: float = 0.01, seed: int = 0,
          log_every: int = 100, log=print) -> dict:
    """One epoch of SGD; returns {step: loss} at the logged steps."""
    images, labels = load(data_root)
    if limit is not None:
        images, labels = images[:limit], labels[:limit]
    torch.manual_seed(seed)
    model = Net()
    optimizer = torch.optim.SGD(model.parameters(), lr=lr)
    x_all, y_all = torch.tensor(images), torch.tensor(labels)
    order = torch.randperm(len(labels))
    logged = {}
    model.train()
    steps = (len(labels) + batch_size - 1) // batch_size
    for step in range(steps):
        idx = order[step * batch_size:(step + 1) * batch_size]
        data, target = x_all[idx], y_all[idx]
        optimizer.zero_grad()
        output = model(data)
        loss = F.nll_loss(output, target)
        loss.backward()
        optimizer.step()
        if step % log_every == 0 or step == steps - 1:
            logged[step] = loss.item()
            log(f"step {step:4d}: train loss {loss.item():.6f}")
    return logged


def main(argv=None) -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--data-root", default=os.path.join(HERE, "..", "..", "shared", "datasets"))
    parser.add_argument("--limit", type=int, default=None, help="train on the first N images only")
    parser.add_argument("--log-every", type=int, default=100)
    parser.add_argument("--seed", type=int, default=0)
    parser.add_argument("--torch", action="store_true", help="run under PyTorch (read before the imports)")
    args = parser.parse_args(argv)
    print(f"{torch.__name__} spatial transformer:")
    train(args.data_root, args.limit, seed=args.seed, log_every=args.log_every)


if __name__ == "__main__":
    main()
