"""The CNN case: pytorch/examples' MNIST network, one SGD training step at batch 64, and the numpy
GEMM floor of that step (the matrix products an im2col formulation needs, timed alone in numpy).

Conv2d(1, 32, 3) → ReLU → Conv2d(32, 64, 3) → ReLU → max_pool2d(2) → Dropout(0.25) → flatten →
Linear(9216, 128) → ReLU → Dropout(0.5) → Linear(128, 10) → log_softmax, NLL loss, SGD lr 0.05
momentum 0.9 (the training script's CNN defaults). Only numpy is imported at module level."""

from __future__ import annotations

import time

import numpy as np

import _common as common

CNN_LR, CNN_MOMENTUM = 0.05, 0.9


def cnn_model(torch_like):
    """pytorch/examples' MNIST ``Net``, written once for any torch-compatible module."""
    nn, F = torch_like.nn, torch_like.nn.functional

    class Net(nn.Module):
        def __init__(self):
            super().__init__()
            self.conv1 = nn.Conv2d(1, 32, 3, 1)
            self.conv2 = nn.Conv2d(32, 64, 3, 1)
            self.dropout1 = nn.Dropout(0.25)
            self.dropout2 = nn.Dropout(0.5)
            self.fc1 = nn.Linear(9216, 128)
            self.fc2 = nn.Linear(128, 10)

        def forward(self, x):
            x = F.relu(self.conv1(x))
            x = F.relu(self.conv2(x))
            x = F.max_pool2d(x, 2)
            x = self.dropout1(x)
            x = torch_like.flatten(x, 1)
            x = F.relu(self.fc1(x))
            x = self.dropout2(x)
            x = self.fc2(x)
            return F.log_softmax(x, dim=1)

    return Net()


def step_gemms(rng: np.random.Generator, b: int = common.BATCH_SIZE) -> list:
    """The GEMMs of one training step in an im2col formulation, as (name, flops, thunk).

    Columns are channel-major (C*k*k, N*H*W), so each convolution is one product over the batch.
    The first convolution needs no input gradient (its input is the images)."""

    def rand(*shape):
        return rng.standard_normal(shape, dtype=np.float32)

    l1, l2 = 26 * 26, 24 * 24
    col1, w1, g1 = rand(9, b * l1), rand(32, 9), rand(32, b * l1)
    col2, w2, g2 = rand(288, b * l2), rand(64, 288), rand(64, b * l2)
    h, wf1, gf1 = rand(b, 9216), rand(128, 9216), rand(b, 128)
    h2, wf2, gf2 = rand(b, 128), rand(10, 128), rand(b, 10)
    return [
        ("conv1 forward", 2 * 32 * 9 * b * l1, lambda: w1 @ col1),
        ("conv1 weight grad", 2 * 32 * 9 * b * l1, lambda: g1 @ col1.T),
        ("conv2 forward", 2 * 64 * 288 * b * l2, lambda: w2 @ col2),
        ("conv2 weight grad", 2 * 64 * 288 * b * l2, lambda: g2 @ col2.T),
        ("conv2 input grad (columns)", 2 * 64 * 288 * b * l2, lambda: w2.T @ g2),
        ("fc1 forward", 2 * b * 9216 * 128, lambda: h @ wf1.T),
        ("fc1 weight grad", 2 * b * 9216 * 128, lambda: gf1.T @ h),
        ("fc1 input grad", 2 * b * 9216 * 128, lambda: gf1 @ wf1),
        ("fc2 forward", 2 * b * 128 * 10, lambda: h2 @ wf2.T),
        ("fc2 weight grad", 2 * b * 128 * 10, lambda: gf2.T @ h2),
        ("fc2 input grad", 2 * b * 128 * 10, lambda: gf2 @ wf2),
    ]


def gemm_floor(repeats: int, clock=time.perf_counter) -> dict:
    """Seconds of each GEMM of the step (min over ``repeats`` calls) and their sum."""
    rows = []
    for name, flops, thunk in step_gemms(np.random.default_rng(0)):
        for _ in range(2):  # warm the BLAS code path and the caches
            thunk()
        best = float("inf")
        for _ in range(repeats):
            start = clock()
            thunk()
            best = min(best, clock() - start)
        rows.append({"name": name, "flops": flops, "seconds": best})
    return {"gemms": rows, "step_s": sum(r["seconds"] for r in rows), "step_flops": sum(r["flops"] for r in rows)}


def cnn_batches(root: str, steps: int, seed: int) -> list:
    """``steps`` (float32 64 x 1 x 28 x 28, int64 64) batches of shuffled stored training images."""
    images, labels = common.load_split(root, train=True)
    return common.shuffled_float_batches(images, labels, seed, steps * common.BATCH_SIZE)


def cnn_step(lib, p: dict) -> dict:
    """Median and min seconds of the CNN's training step over pre-made batches (after a warm-up)."""
    batches = [(lib.from_numpy(x), lib.from_numpy(y)) for x, y in cnn_batches(p["root"], p["cnn_steps"], p["seed"])]
    lib.manual_seed(p["seed"])
    net = cnn_model(lib)
    loss_fn = lib.nn.NLLLoss()
    optimizer = lib.optim.SGD(net.parameters(), lr=CNN_LR, momentum=CNN_MOMENTUM)
    net.train()
    clock = common.CLOCKS[p["clock"]]
    times = []
    for i, (x, y) in enumerate(batches):
        start = clock()
        loss = loss_fn(net(x), y)
        loss.backward()
        optimizer.step()
        optimizer.zero_grad()
        if i >= 3:  # the first steps pay for allocations and BLAS warm-up
            times.append(clock() - start)
    return {"step_median_s": common.median(times), "step_min_s": min(times), "steps": len(times),
            "final_loss": float(loss.item()), "peak_rss_mib": common.peak_rss_mib()}


def make_step(lib, compiled: bool = False):
    """One training step of the CNN as a closure, on 8 random (64 x 1 x 28 x 28, 64 labels) batches in turn:
    the step bench_threads and bench_fast time (no dataset needed)."""
    rng = np.random.default_rng(0)
    batches = [(lib.from_numpy(rng.random((64, 1, 28, 28), dtype=np.float32)),
                lib.from_numpy(rng.integers(0, 10, 64))) for _ in range(8)]
    lib.manual_seed(0)
    net = cnn_model(lib)
    net.train()
    loss_fn = lib.nn.NLLLoss()
    opt = lib.optim.SGD(net.parameters(), lr=CNN_LR, momentum=CNN_MOMENTUM)
    return common.cycling_step(lib.compile(net) if compiled else net, loss_fn, opt, batches)
