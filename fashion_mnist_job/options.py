"""The training script's command line and resume file: options, their checks, and reading a checkpoint.

Every usage error is argparse's one-line message (exit 2), found before any data is loaded or any
epoch is trained; a checkpoint that cannot be resumed from is a one-line exit naming what is wrong."""
from __future__ import annotations

import argparse
import os
import sys

import tinytorch as torch

DEFAULT_LR = {"mlp": 1e-3, "cnn": 0.05}
DEFAULT_MOMENTUM = {"mlp": 0.0, "cnn": 0.9}


def parse_args(argv, description: str, models: list) -> argparse.Namespace:
    """The command line, checked: every usage error exits with argparse's message."""
    # every option's default is shown by --help
    p = argparse.ArgumentParser(description=description,
                                formatter_class=argparse.ArgumentDefaultsHelpFormatter)
    p.add_argument("--data-root", default="data", help="folder holding FashionMNIST/raw/")
    p.add_argument("--download", action=argparse.BooleanOptionalAction, default=True,
                   help="download the dataset when it is missing")
    p.add_argument("--model", choices=sorted(models), default="mlp",
                   help="mlp: the quickstart's network; cnn: pytorch/examples' MNIST CNN")
    p.add_argument("--epochs", type=int, default=5, help="passes over the training set")
    p.add_argument("--batch-size", type=int, default=64, help="the global batch (split among MPI processes)")
    p.add_argument("--lr", type=float, default=None, help="None means 1e-3 for mlp, 0.05 for cnn")
    p.add_argument("--momentum", type=float, default=None, help="None means 0 for mlp, 0.9 for cnn")
    p.add_argument("--seed", type=int, default=0, help="seeds the weights, the shuffle and dropout")
    p.add_argument("--shuffle", action=argparse.BooleanOptionalAction, default=True,
                   help="reshuffle the training set every epoch (the quickstart does not)")
    p.add_argument("--num-workers", type=int, default=0, help="DataLoader worker processes")
    p.add_argument("--save", default="model.pth", help="where the trained weights go (a state_dict)")
    p.add_argument("--checkpoint", default="checkpoint.pth",
                   help="training state written after every epoch and on Ctrl-C (for --resume)")
    p.add_argument("--resume", metavar="CHECKPOINT", help="continue from a checkpoint written by this script")
    p.add_argument("--progress", action=argparse.BooleanOptionalAction, default=True, help="tqdm progress bars")
    p.add_argument("--draw-graph", metavar="PATH",
                   help="write the backward graph of one training batch's loss (DOT text; SVG/PNG by the suffix)")
    p.add_argument("--metrics", metavar="FILE",
                   help="one CSV row per epoch: epoch, step, loss (training mean), accuracy (test), lr, seconds, "
                        "run (default: metrics.csv beside --checkpoint; another run's file is moved aside)")
    p.add_argument("--tensorboard", metavar="DIR",
                   help="TensorBoard logs: loss, accuracy, learning rate, weight histograms (needs tensorboard)")
    p.add_argument("--plot", metavar="FILE.png", help="draw the loss and accuracy curves (needs matplotlib)")
    p.add_argument("--limit", type=int, metavar="N",
                   help="train and test on the first N images of each split only (for quick checks)")
    args = p.parse_args(argv)
    if args.lr is None:
        args.lr = DEFAULT_LR[args.model]
    if args.momentum is None:
        args.momentum = DEFAULT_MOMENTUM[args.model]
    for name in ("epochs", "batch_size") + (("limit",) if args.limit is not None else ()):
        if not 0 < getattr(args, name) <= sys.maxsize:
            p.error(f"--{name.replace('_', '-')} must be a positive integer of at most {sys.maxsize}")
    check_args(p, args)
    world = mpi_world_size()
    if args.batch_size % world:
        p.error(f"--batch-size {args.batch_size} is the global batch and must divide evenly among "
                f"the {world} MPI processes")
    return args


def check_args(p: argparse.ArgumentParser, args: argparse.Namespace) -> None:
    """The other arguments' usage errors, before any data is loaded or any epoch is trained."""
    if args.num_workers < 0:
        p.error(f"--num-workers must be 0 or more, got {args.num_workers}")
    for name in ("lr", "momentum"):
        value = getattr(args, name)
        if not value >= 0 or value == float("inf"):  # also NaN
            p.error(f"--{name} must be a non-negative number, got {value}")
    if args.metrics is None:
        args.metrics = os.path.join(os.path.dirname(args.checkpoint), "metrics.csv")
    for name, package in (("tensorboard", "tensorboard"), ("plot", "matplotlib")):
        if getattr(args, name) is not None:
            try:
                __import__(package)
            except ImportError:
                p.error(f"--{name} needs the {package} package: pip install {package}")
    for name in ("save", "checkpoint", "metrics") + tuple(n for n in ("plot", "draw_graph") if getattr(args, n)):
        path = getattr(args, name)
        flag = "--" + name.replace("_", "-")
        folder = os.path.dirname(os.path.abspath(path))
        if not os.path.isdir(folder):
            p.error(f"{flag}: the folder {folder} does not exist")
        if os.path.isdir(path):
            p.error(f"{flag}: {path} is a folder; give a file name (for example {os.path.join(path, 'x')})")
    if args.resume is not None and not os.path.isfile(args.resume):
        p.error(f"--resume: {args.resume} is not a file")


def mpi_world_size() -> int:
    """How many processes ``mpiexec`` started with this one (1 when run plainly)."""
    for var in ("OMPI_COMM_WORLD_SIZE", "PMI_SIZE"):  # Open MPI, MPICH
        if var in os.environ:
            return int(os.environ[var])
    return 1


CHECKPOINT_KEYS = ("model", "optimizer", "epoch", "step")


def read_checkpoint(path: str) -> dict:
    """The training state in ``path``, or a one-line exit naming what is wrong with the file."""
    try:
        ckpt = torch.load(path, map_location="cpu")  # a GPU machine's checkpoint loads onto the CPU
    except (OSError, ValueError) as e:  # SerializationError is a ValueError
        sys.exit(f"Cannot resume from {path}: {str(e).splitlines()[0] if str(e) else type(e).__name__}")
    if not isinstance(ckpt, dict) or not all(k in ckpt for k in CHECKPOINT_KEYS):
        kind = "a model's weights (a state_dict)" if isinstance(ckpt, dict) else type(ckpt).__name__
        sys.exit(f"Cannot resume from {path}: it holds {kind}, not a training checkpoint written by "
                 f"this script's --checkpoint")
    for key, kind, low in (("epoch", int, 0), ("step", int, 0), ("seed", int, None), ("batch_size", int, 1),
                           ("shuffle", bool, None)):
        value = ckpt.get(key)
        if key not in ckpt and key in ("seed", "batch_size", "shuffle"):
            continue  # checkpoints from before these were stored keep the command line's
        ok = type(value) is kind and (low is None or value >= low)
        if not ok:
            need = "true or false" if kind is bool else f"an integer >= {low}" if low is not None else "an integer"
            sys.exit(f"Cannot resume from {path}: its {key} is {value!r}; it must be {need}")
    # the run's own records (checkpoints from before them lack these: the run then starts new metrics)
    for key, ok, need in (("run", lambda v: type(v) is str and v.isalnum(), "a run id of letters and digits"),
                          ("loss_sum", lambda v: type(v) is float, "a float"),
                          ("loss_count", lambda v: type(v) is int and v >= 0, "an integer >= 0"),
                          ("seconds", lambda v: type(v) is float and v >= 0, "a float >= 0")):
        if key in ckpt and not ok(ckpt[key]):
            sys.exit(f"Cannot resume from {path}: its {key} is {ckpt[key]!r}; it must be {need}")
    return ckpt
