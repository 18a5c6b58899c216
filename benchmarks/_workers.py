"""One measurement in one fresh process: ``python _workers.py TASK IMPL PARAMS_JSON``.

TASK is prebatched, quickstart, micro, rng or accuracy; IMPL is torch, tinytorch or numpy. The result
is one JSON line on stdout starting with ``BENCH_RESULT``. bench.py sets the thread variables in
the environment; they are set again here, before numpy is imported, for runs by hand."""

from __future__ import annotations

import os
import sys

_THREAD_VARS = (
    "OMP_NUM_THREADS",
    "OPENBLAS_NUM_THREADS",
    "MKL_NUM_THREADS",
    "VECLIB_MAXIMUM_THREADS",
    "NUMEXPR_NUM_THREADS",
)
for _name in _THREAD_VARS:
    os.environ.setdefault(_name, "1")

import gc  # noqa: E402
import json  # noqa: E402
import time  # noqa: E402

import numpy as np  # noqa: E402

import _cnn  # noqa: E402
import _common as common  # noqa: E402
import _numpy_mlp  # noqa: E402

RESULT_PREFIX = "BENCH_RESULT "


def _framework(impl: str):
    """The library under test, imported only now, pinned to one thread."""
    if impl == "torch":
        import torch

        torch.set_num_threads(1)
        return torch
    if impl == "tinytorch":
        import tinytorch
        import tinytorch.nn  # noqa: F401  (explicit: works whether or not the package imports them itself)
        import tinytorch.optim  # noqa: F401

        tinytorch.set_num_threads(1)
        return tinytorch
    raise ValueError(f"no framework called {impl!r}")


def _train_step(model, loss_fn, optimizer, x, y):
    pred = model(x)
    loss = loss_fn(pred, y)
    loss.backward()
    optimizer.step()
    optimizer.zero_grad()
    return loss


def prebatched(impl: str, p: dict) -> dict:
    """One epoch over pre-made batches (no loader): per-step times, epoch time, peak memory."""
    images, labels = common.load_split(p["root"], train=True)
    batches = common.shuffled_float_batches(images, labels, p["seed"], p["samples"])
    if impl == "numpy":
        model = _numpy_mlp.NumpyMLP(p["seed"])

        def step(x, y):
            return model.step(x, y, common.QUICKSTART_LR)
    else:
        lib = _framework(impl)
        batches = [(lib.from_numpy(x), lib.from_numpy(y)) for x, y in batches]
        lib.manual_seed(p["seed"])
        net = common.quickstart_model(lib)
        loss_fn = lib.nn.CrossEntropyLoss()
        optimizer = lib.optim.SGD(net.parameters(), lr=common.QUICKSTART_LR)
        net.train()

        def step(x, y):
            return _train_step(net, loss_fn, optimizer, x, y)

    step_s = []
    clock = common.CLOCKS[p["clock"]]
    wall_start, start = time.perf_counter(), clock()
    for x, y in batches:
        t0 = clock()
        loss = step(x, y)
        step_s.append(clock() - t0)
    epoch_s = clock() - start
    wall_s = time.perf_counter() - wall_start
    return {
        "epoch_s": epoch_s,
        "epoch_wall_s": wall_s,
        "step_median_s": common.median(step_s),
        "step_min_s": min(step_s),
        "steps": len(step_s),
        "final_loss": float(loss.item()),
        "peak_rss_mib": common.peak_rss_mib(),
    }


class _ToTensorStandIn:
    """torchvision's ToTensor for a PIL image: HWC uint8 array -> CHW tensor -> float / 255."""

    def __init__(self, torch) -> None:
        self.torch = torch
        self.pil_image = __import__("PIL.Image", fromlist=["Image"])
        torch._C._log_api_usage_once("torchvision.transforms.transforms.ToTensor")

    def __call__(self, pic):
        torch = self.torch
        # torchvision's functional to_tensor logs its use and checks its input on every call
        if not torch.jit.is_scripting() and not torch.jit.is_tracing():
            torch._C._log_api_usage_once("torchvision.transforms.functional.to_tensor")
        if not isinstance(pic, self.pil_image.Image):
            raise TypeError(f"pic should be PIL Image or ndarray. Got {type(pic)}")
        float_dtype = torch.get_default_dtype()
        wide = {"I": np.int32, "I;16": np.int16, "F": np.float32}
        img = torch.from_numpy(np.array(pic, wide.get(pic.mode, np.uint8), copy=True))
        if pic.mode == "1":
            img = 255 * img
        img = (
            img.view(pic.size[1], pic.size[0], len(pic.getbands())).permute((2, 0, 1)).contiguous()
        )
        if isinstance(img, torch.ByteTensor):
            return img.to(dtype=float_dtype).div(255)
        return img


def _torch_fashion_mnist(torch, images: np.ndarray, labels: np.ndarray):
    """A stand-in for torchvision.datasets.FashionMNIST (not installable here) with ToTensor."""
    from PIL import Image

    class FashionMNIST(torch.utils.data.Dataset):
        def __init__(self, data, targets, transform=None, target_transform=None):
            self.data, self.targets = data, targets
            self.transform, self.target_transform = transform, target_transform

        def __getitem__(self, index):
            img, target = self.data[index], int(self.targets[index])
            img = Image.fromarray(
                img.numpy(), mode="L"
            )  # torchvision's step, so transforms see PIL
            if self.transform is not None:
                img = self.transform(img)
            if self.target_transform is not None:
                target = self.target_transform(target)
            return img, target

        def __len__(self):
            return len(self.data)

    return FashionMNIST(
        torch.from_numpy(images), torch.from_numpy(labels), transform=_ToTensorStandIn(torch)
    )


def _user_dataset(impl: str, lib, root: str, train: bool, images=None, labels=None):
    """The dataset object a quickstart user builds, optionally holding other (tiled) arrays."""
    if images is None:
        images, labels = common.load_split(root, train)
    if impl == "torch":
        return _torch_fashion_mnist(lib, images, labels)
    from tinytorch.data.datasets import FashionMNIST
    from tinytorch.data.transforms import ToTensor

    dataset = FashionMNIST(root, train=train, transform=ToTensor())
    dataset.data, dataset.targets = lib.from_numpy(images), lib.from_numpy(labels)
    return dataset


def _data_loader(impl: str):
    if impl == "torch":
        from torch.utils.data import DataLoader
    else:
        from tinytorch.data import DataLoader
    return DataLoader


def quickstart(impl: str, p: dict) -> dict:
    """The user's epoch: dataset + ToTensor, shuffled DataLoader, train loop; the loader alone."""
    lib = _framework(impl)
    images, labels = common.tiled_training_set(p["root"], p["samples"])
    dataset = _user_dataset(impl, lib, p["root"], True, images, labels)
    lib.manual_seed(p["seed"])
    loader = _data_loader(impl)(dataset, batch_size=common.BATCH_SIZE, shuffle=True)
    clock = common.CLOCKS[p["clock"]]
    start = clock()
    n_batches = 0
    for _x, _y in loader:
        n_batches += 1
    load_s = clock() - start

    model = common.quickstart_model(lib)
    loss_fn = lib.nn.CrossEntropyLoss()
    optimizer = lib.optim.SGD(model.parameters(), lr=common.QUICKSTART_LR)
    model.train()
    wall_start, start = time.perf_counter(), clock()
    for batch, (x, y) in enumerate(loader):
        loss = _train_step(model, loss_fn, optimizer, x, y)
        if batch % 100 == 0:
            loss.item()  # the quickstart reads the loss every 100 batches to print it
    epoch_s = clock() - start
    wall_s = time.perf_counter() - wall_start
    return {
        "epoch_s": epoch_s,
        "epoch_wall_s": wall_s,
        "load_s": load_s,
        "load_per_batch_s": load_s / n_batches,
        "batches": n_batches,
        "final_loss": float(loss.item()),
        "peak_rss_mib": common.peak_rss_mib(),
    }


def _framework_op_thunks(lib, arrays: dict) -> dict:
    a, b, w, tiny = (lib.from_numpy(arrays[k]) for k in ("a", "b", "w", "tiny"))
    return {
        "add": lambda: a + b,
        "mul": lambda: a * b,
        "relu": lambda: lib.relu(a),
        "sum": lambda: a.sum(),
        "matmul": lambda: a @ w,
        "tiny add (1,)": lambda: tiny + tiny,
    }


def _chain(lib, n_ops: int, repeats: int, clock) -> dict:
    """Build and backward an ``n_ops``-long chain of alternating mul/add; min seconds of each."""
    best_forward = best_backward = float("inf")
    for _ in range(repeats):
        x = lib.ones(16, requires_grad=True)
        start = clock()
        y = x
        for i in range(n_ops):
            y = y * 1.0001 if i % 2 == 0 else y + 0.0
        loss = y.sum()
        best_forward = min(best_forward, clock() - start)
        gc.collect()  # leftovers of the previous repeat are not this backward's cost
        start = clock()
        loss.backward()
        best_backward = min(best_backward, clock() - start)
        del x, y, loss
    return {"forward_s": best_forward, "backward_s": best_backward}


def micro(impl: str, p: dict) -> dict:
    """Frameworks: per-op times and the long-chain backward; numpy: the matmul FLOP bound.

    tinytorch's ops are timed in turn with the same numpy calls on the same arrays, in the same
    process, so the difference is tinytorch's own overhead and not two moments of a busy machine."""
    repeats, clock = p["repeats"], common.CLOCKS[p["clock"]]
    if impl == "numpy":
        return {"flop_bound": _numpy_mlp.flop_bound(p["matmul_repeats"])}
    lib = _framework(impl)
    arrays = _numpy_mlp.op_arrays()
    thunks = _framework_op_thunks(lib, arrays)
    result = {"op_us": {}}
    if impl == "tinytorch":
        result["numpy_op_us"] = {}
        for name, np_thunk in _numpy_mlp.op_thunks(arrays).items():
            us, np_us = common.paired_per_call_us(thunks[name], np_thunk, repeats, clock)
            result["op_us"][name], result["numpy_op_us"][name] = us, np_us
    else:
        for name, thunk in thunks.items():
            result["op_us"][name] = common.per_call_us(thunk, repeats, clock)
    lengths = p["chain_lengths"]
    result["chain"] = {str(n): _chain(lib, n, p["chain_repeats"], clock) for n in lengths}
    return result


def accuracy(impl: str, p: dict) -> dict:
    """Test accuracy after ``epochs`` epochs at lr 0.1 on the stored (untiled) data, per seed."""
    lib = _framework(impl)
    DataLoader = _data_loader(impl)
    train_set = _user_dataset(impl, lib, p["root"], True)
    test_set = _user_dataset(impl, lib, p["root"], False)
    runs = []
    for seed in p["seeds"]:
        start = time.perf_counter()
        lib.manual_seed(seed)
        model = common.quickstart_model(lib)
        loss_fn = lib.nn.CrossEntropyLoss()
        optimizer = lib.optim.SGD(model.parameters(), lr=common.ACCURACY_LR)
        train_loader = DataLoader(train_set, batch_size=common.BATCH_SIZE, shuffle=True)
        for _ in range(p["epochs"]):
            model.train()
            for x, y in train_loader:
                _train_step(model, loss_fn, optimizer, x, y)
        model.eval()
        correct = 0
        with lib.no_grad():
            for x, y in DataLoader(test_set, batch_size=common.BATCH_SIZE):
                correct += (model(x).argmax(1) == y).type(lib.float).sum().item()
        runs.append(
            {
                "seed": seed,
                "accuracy": correct / len(test_set),
                "seconds": time.perf_counter() - start,
            }
        )
    return {"runs": runs, "mean_accuracy": float(np.mean([r["accuracy"] for r in runs]))}


def rng(impl: str, p: dict) -> dict:
    """The random-number cases of ``_rng`` (the same bits from both libraries)."""
    import _rng

    return _rng.rng(_framework(impl), p)


def cnn(impl: str, p: dict) -> dict:
    """pytorch/examples' MNIST CNN: the training step's time; numpy: the step's GEMM floor."""
    if impl == "numpy":
        return {"gemm_floor": _cnn.gemm_floor(p["matmul_repeats"] // 10 + 3, common.CLOCKS[p["clock"]])}
    return _cnn.cnn_step(_framework(impl), p)


TASKS = {"prebatched": prebatched, "quickstart": quickstart, "micro": micro, "accuracy": accuracy, "rng": rng,
         "cnn": cnn}


def main(argv: list) -> None:
    task, impl, params = argv[0], argv[1], json.loads(argv[2])
    result = TASKS[task](impl, params)
    sys.stdout.write(RESULT_PREFIX + json.dumps(result) + "\n")


if __name__ == "__main__":
    main(sys.argv[1:])
