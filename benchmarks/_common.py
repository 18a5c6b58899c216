"""What every benchmark worker shares: data (read, tiled, batched), the quickstart model, timers.

Only numpy is imported here, never torch or tinytorch: each worker process imports the one library
it measures, so import time and peak memory are that library's alone."""

from __future__ import annotations

import gzip
import os
import resource
import statistics
import time
import timeit

import numpy as np

BATCH_SIZE = 64
IMAGE_SHAPE = (28, 28)
N_CLASSES = 10
QUICKSTART_LR = 1e-3
ACCURACY_LR = 0.1
THREAD_VARS = (
    "OMP_NUM_THREADS",
    "OPENBLAS_NUM_THREADS",
    "MKL_NUM_THREADS",
    "VECLIB_MAXIMUM_THREADS",
    "NUMEXPR_NUM_THREADS",
)
SYNTHETIC_TRAIN, SYNTHETIC_TEST = 8192, 4096
# cpu: the worker's CPU time, which for a one-thread process is its wall time on an idle machine and
# leaves out the time it waits for a core that other processes hold; wall: elapsed time
CLOCKS = {"cpu": time.process_time, "wall": time.perf_counter}


def raw_folder(root: str) -> str:
    """Where torchvision's layout keeps FashionMNIST's IDX files under ``root``."""
    return os.path.join(root, "FashionMNIST", "raw")


def _read_idx(path: str, ndim: int) -> np.ndarray:
    opener = gzip.open if path.endswith(".gz") else open
    with opener(path, "rb") as f:
        buf = f.read()
    if buf[:2] != b"\0\0" or buf[2] != 0x08 or buf[3] != ndim:
        raise ValueError(f"{path}: not an unsigned-byte IDX file with {ndim} dimensions")
    dims = tuple(int(d) for d in np.frombuffer(buf, ">i4", count=ndim, offset=4))
    return np.frombuffer(buf, np.uint8, offset=4 + 4 * ndim).reshape(dims).copy()


def _idx_path(root: str, basename: str) -> str:
    path = os.path.join(raw_folder(root), basename)
    return path if os.path.exists(path) else path + ".gz"


def load_split(root: str, train: bool) -> tuple[np.ndarray, np.ndarray]:
    """The uint8 N x 28 x 28 images and int64 labels of one split."""
    prefix = "train" if train else "t10k"
    images = _read_idx(_idx_path(root, f"{prefix}-images-idx3-ubyte"), 3)
    labels = _read_idx(_idx_path(root, f"{prefix}-labels-idx1-ubyte"), 1).astype(np.int64)
    if images.shape[1:] != IMAGE_SHAPE or len(images) != len(labels):
        raise ValueError(
            f"{raw_folder(root)}: images {images.shape} do not match labels {labels.shape}"
        )
    return images, labels


def tiled_training_set(root: str, samples: int) -> tuple[np.ndarray, np.ndarray]:
    """``samples`` training images made by repeating the stored ones (8192 -> a 60k epoch)."""
    images, labels = load_split(root, train=True)
    index = np.arange(samples) % len(images)
    return images[index], labels[index]


def write_synthetic_dataset(root: str, seed: int = 0) -> None:
    """Gzipped IDX files of class-dependent noisy uint8 images, torchvision's layout, in ``root``.

    Each class gets a random template and every image is its template plus noise, so a model can
    learn them and the accuracy comparison still means something."""
    rng = np.random.default_rng(seed)
    templates = rng.integers(0, 256, size=(N_CLASSES, *IMAGE_SHAPE)).astype(np.float32)
    os.makedirs(raw_folder(root), exist_ok=True)
    for prefix, n in (("train", SYNTHETIC_TRAIN), ("t10k", SYNTHETIC_TEST)):
        labels = rng.integers(0, N_CLASSES, size=n).astype(np.uint8)
        noise = rng.normal(0.0, 90.0, size=(n, *IMAGE_SHAPE)).astype(np.float32)
        images = np.clip(0.5 * templates[labels] + noise + 64, 0, 255).astype(np.uint8)
        for kind, arr in (("images-idx3", images), ("labels-idx1", labels)):
            header = bytes([0, 0, 0x08, arr.ndim]) + np.asarray(arr.shape, ">i4").tobytes()
            with gzip.open(os.path.join(raw_folder(root), f"{prefix}-{kind}-ubyte.gz"), "wb") as f:
                f.write(header + arr.tobytes())


def shuffled_float_batches(images: np.ndarray, labels: np.ndarray, seed: int, samples=None) -> list:
    """(float32 B x 1 x 28 x 28, int64 B) pairs: a seeded shuffle of ``samples`` tiled images."""
    samples = len(images) if samples is None else samples
    # the tiled epoch's i-th image is images[i % n]: index the stored images directly, so the only
    # epoch-sized array is the float one and the peak-memory figure is mostly the library's
    order = np.random.default_rng(seed).permutation(samples) % len(images)
    x = np.empty((samples, 1, *IMAGE_SHAPE), np.float32)
    for start in range(0, samples, 8192):
        x[start : start + 8192, 0] = images[order[start : start + 8192]]
    x /= np.float32(255)
    y = labels[order]
    return [(x[i : i + BATCH_SIZE], y[i : i + BATCH_SIZE]) for i in range(0, samples, BATCH_SIZE)]


def quickstart_model(torch_like):
    """PyTorch quickstart's ``NeuralNetwork``, written once for any torch-compatible module."""
    nn = torch_like.nn

    class NeuralNetwork(nn.Module):
        def __init__(self):
            super().__init__()
            self.flatten = nn.Flatten()
            self.linear_relu_stack = nn.Sequential(
                nn.Linear(28 * 28, 512),
                nn.ReLU(),
                nn.Linear(512, 512),
                nn.ReLU(),
                nn.Linear(512, 10),
            )

        def forward(self, x):
            x = self.flatten(x)
            logits = self.linear_relu_stack(x)
            return logits

    return NeuralNetwork()


def cycling_step(model, loss_fn, opt, batches: list):
    """A training step as a closure: each call takes the next of ``batches`` (x, y) in turn, then the loss,
    its backward, the optimizer's step and zero_grad; it returns the loss."""
    state = [0]

    def step():
        x, y = batches[state[0] % len(batches)]
        state[0] += 1
        loss = loss_fn(model(x), y)
        loss.backward()
        opt.step()
        opt.zero_grad()
        return loss
    return step


def peak_rss_mib() -> float:
    """This process's peak resident set size so far (Linux reports ru_maxrss in KiB)."""
    return resource.getrusage(resource.RUSAGE_SELF).ru_maxrss / 1024


def per_call_us(fn, repeat: int, clock=time.perf_counter, target_s: float = 0.01) -> float:
    """µs per call of ``fn``: min over ``repeat`` timings of a loop lasting about ``target_s``."""
    timer = timeit.Timer(fn, timer=clock)
    number = 1
    while True:
        if timer.timeit(number) >= target_s or number >= 1 << 20:
            break
        number *= 4
    return min(timer.repeat(repeat=repeat, number=number)) / number * 1e6


def paired_per_call_us(fn_a, fn_b, repeat: int, clock=time.perf_counter, target_s: float = 0.01):
    """µs per call of ``fn_a`` and ``fn_b``, timed alternately (same loop length), min of each."""
    timer_a, timer_b = timeit.Timer(fn_a, timer=clock), timeit.Timer(fn_b, timer=clock)
    number = 1
    while timer_a.timeit(number) < target_s and number < 1 << 20:
        number *= 4
    best_a = best_b = float("inf")
    for _ in range(repeat):
        best_a = min(best_a, timer_a.timeit(number))
        best_b = min(best_b, timer_b.timeit(number))
    return best_a / number * 1e6, best_b / number * 1e6


def median(values: list) -> float:
    return float(statistics.median(values))

