"""PyTorch's quickstart, trained for real with tinytorch: FashionMNIST, an MLP (or a CNN), SGD, batch 64.

    python train_fashion_mnist.py                                  # downloads the data into ./data
    python train_fashion_mnist.py --data-root ../shared/datasets --no-download
    python train_fashion_mnist.py --model cnn --data-root ../shared/datasets --no-download
    mpiexec -n 2 python train_fashion_mnist.py ...                # data-parallel over MPI
    python train_fashion_mnist.py --tensorboard runs/mlp --plot curves.png   # logs and curves

The code below is the quickstart's, with ``import tinytorch as torch``; around it: options, progress
bars, checkpoints that resume bit for bit, and a clean stop on Ctrl-C."""
from __future__ import annotations

import argparse
import csv
import os
import signal
import sys
import time

from tqdm import tqdm

import tinytorch as torch
from tinytorch import distributed as dist
from tinytorch import nn
from tinytorch.nn import functional as F
from tinytorch.data import DataLoader, Subset, datasets
from tinytorch.data.transforms import ToTensor
from tinytorch.nn.parallel import DistributedDataParallel

CLASSES = ["T-shirt/top", "Trouser", "Pullover", "Dress", "Coat", "Sandal", "Shirt", "Sneaker", "Bag",
           "Ankle boot"]
EXIT_INTERRUPTED = 130


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


class Net(nn.Module):
    """pytorch/examples' MNIST network: two convolutions, max-pooling, dropout, two linear layers."""

    def __init__(self):
        super().__init__()
        self.conv1 = nn.Conv2d(1, 32, 3, 1)
        self.conv2 = nn.Conv2d(32, 64, 3, 1)
        self.dropout1 = nn.Dropout(0.25)
        self.dropout2 = nn.Dropout(0.5)
        self.fc1 = nn.Linear(9216, 128)
        self.fc2 = nn.Linear(128, 10)

    def forward(self, x):
        x = self.conv1(x)
        x = F.relu(x)
        x = self.conv2(x)
        x = F.relu(x)
        x = F.max_pool2d(x, 2)
        x = self.dropout1(x)
        x = torch.flatten(x, 1)
        x = self.fc1(x)
        x = F.relu(x)
        x = self.dropout2(x)
        x = self.fc2(x)
        output = F.log_softmax(x, dim=1)
        return output


MODELS = {"mlp": NeuralNetwork, "cnn": Net}
# the MLP keeps the quickstart's plain SGD at 1e-3; the CNN gets what trains it in 5 epochs on the subset
DEFAULT_LR = {"mlp": 1e-3, "cnn": 0.05}
DEFAULT_MOMENTUM = {"mlp": 0.0, "cnn": 0.9}


def make_loss(kind: str):
    """The quickstart's CrossEntropyLoss on logits; the CNN ends in log_softmax, so NLLLoss, as pytorch/examples."""
    return nn.NLLLoss() if kind == "cnn" else nn.CrossEntropyLoss()


def parse_args(argv=None) -> argparse.Namespace:
    # every option's default is shown by --help
    p = argparse.ArgumentParser(description=__doc__.splitlines()[0],
                                formatter_class=argparse.ArgumentDefaultsHelpFormatter)
    p.add_argument("--data-root", default="data", help="folder holding FashionMNIST/raw/")
    p.add_argument("--download", action=argparse.BooleanOptionalAction, default=True,
                   help="download the dataset when it is missing")
    p.add_argument("--model", choices=sorted(MODELS), default="mlp",
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
                   help="one CSV row per epoch: epoch, step, loss (training mean), accuracy (test), lr, seconds "
                        "(default: metrics.csv beside --checkpoint)")
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
    return ckpt


def load_data(args):
    try:
        training_data = datasets.FashionMNIST(root=args.data_root, train=True, download=args.download,
                                              transform=ToTensor())
        test_data = datasets.FashionMNIST(root=args.data_root, train=False, download=args.download,
                                          transform=ToTensor())
    except (RuntimeError, OSError, ValueError) as e:
        raw = os.path.join(args.data_root, "FashionMNIST", "raw")
        cause = f" ({type(e.__cause__).__name__}: {e.__cause__})" if e.__cause__ is not None else ""
        sys.exit(f"Could not load FashionMNIST: {e}{cause}\n"
                 f"Put train-images-idx3-ubyte.gz, train-labels-idx1-ubyte.gz, t10k-images-idx3-ubyte.gz and "
                 f"t10k-labels-idx1-ubyte.gz into {raw}/ (or point --data-root at the folder that holds "
                 f"FashionMNIST/raw/), or run with --download where the internet can be reached.")
    return training_data, test_data


def mpi_world_size() -> int:
    """How many processes ``mpiexec`` started with this one (1 when run plainly)."""
    for var in ("OMPI_COMM_WORLD_SIZE", "PMI_SIZE"):  # Open MPI, MPICH
        if var in os.environ:
            return int(os.environ[var])
    return 1


def rank_share(order: list, rank: int, world: int, batch_size: int) -> list:
    """This rank's part of an epoch: its 1/world slice of every global batch of ``batch_size`` samples.

    So N ranks take exactly the steps one process takes, on the same global batches (the averaged
    gradient of equal slices is the whole batch's gradient). A short last batch is padded with the
    epoch's first samples until it divides evenly, so every rank takes the same number of steps."""
    short = len(order) % batch_size
    if short:
        order = order + order[:-(-short // world) * world - short]
    share = []
    for start in range(0, len(order), batch_size):
        chunk = order[start:start + batch_size]
        part = len(chunk) // world
        share += chunk[rank * part:(rank + 1) * part]
    return share


class StopFlag:
    """Ctrl-C sets a flag; the training loop stops at the next step boundary, never mid-update."""

    def __init__(self, world: int = 1):
        self.requested = False
        self.world = world

    def agreed(self) -> bool:
        """Whether any rank was asked to stop: all ranks must stop after the same step."""
        if self.world == 1:
            return self.requested
        flag = torch.tensor([int(self.requested)])
        dist.all_reduce(flag, op=dist.ReduceOp.MAX)
        self.requested = bool(flag.item())
        return self.requested

    def __call__(self, signum, frame):
        if self.requested:  # a second Ctrl-C: stop at once
            raise KeyboardInterrupt
        self.requested = True


def epoch_order(n: int, seed: int, epoch: int, shuffle: bool) -> list:
    """The sample order of one epoch: a function of (seed, epoch) alone, so a resumed run sees the same."""
    if not shuffle:
        return list(range(n))
    gen = torch.Generator().manual_seed(seed * 1_000_003 + epoch)
    return torch.randperm(n, generator=gen).tolist()


def save_checkpoint(path, model, optimizer, epoch: int, step: int, args) -> None:
    if args.rank != 0:  # every rank holds the same weights: one writes them
        return
    torch.save({"model": model.state_dict(), "optimizer": optimizer.state_dict(), "epoch": epoch, "step": step,
                "rng_state": torch.get_rng_state(), "seed": args.seed, "batch_size": args.batch_size,
                "shuffle": args.shuffle, "world_size": args.world_size, "model_kind": args.model}, path)


def train(dataloader, model, loss_fn, optimizer, first_batch: int, stop: StopFlag, bar, world: int = 1,
          log=None):
    """One (possibly partial) epoch; returns the number of batches done when it stops and the mean loss
    of this rank's batches. ``log(batch, loss)`` is called every 100 batches."""
    size = len(dataloader.dataset)
    model.train()
    batch = first_batch
    loss_sum, count = 0.0, 0
    for X, y in dataloader:
        pred = model(X)
        loss = loss_fn(pred, y)
        loss.backward()
        optimizer.step()
        optimizer.zero_grad()
        batch += 1
        loss_sum += loss.item()
        count += 1
        if bar is not None:
            bar.update(1)
        if batch % 100 == 0:
            current = batch * dataloader.batch_size * world
            if world > 1:  # report the global batch's loss: the mean of the ranks' equal slices
                loss = loss.detach().clone()
                dist.all_reduce(loss, op=dist.ReduceOp.AVG)
            tqdm.write(f"loss: {loss.item():>7f}  [{current:>5d}/{size:>5d}]")
            if log is not None:
                log(batch, loss.item())
        if stop.agreed():
            break
    return batch, (loss_sum / count if count else float("nan"))


def test(dataloader, model, loss_fn, progress: bool):
    size = len(dataloader.dataset)
    num_batches = len(dataloader)
    model.eval()
    test_loss, correct = 0, 0
    with torch.no_grad():
        for X, y in tqdm(dataloader, desc="test", leave=False, disable=not progress):
            pred = model(X)
            test_loss += loss_fn(pred, y).item()
            correct += (pred.argmax(1) == y).type(torch.float).sum().item()
    test_loss /= num_batches
    correct /= size
    print(f"Test Error: \n Accuracy: {(100 * correct):>0.1f}%, Avg loss: {test_loss:>8f} \n")
    return correct, test_loss


def draw_graph(path, model, loss_fn, data, batch_size) -> None:
    """Write the graph that loss.backward() walks for one batch (no RNG is drawn, training is unchanged)."""
    from tinytorch.utils.viz import make_dot

    # its own generator: the default one's state (saved in checkpoints) stays as training leaves it
    X, y = next(iter(DataLoader(data, batch_size=batch_size, generator=torch.Generator())))
    dot = make_dot(loss_fn(model(X), y), params=dict(model.named_parameters()))
    if os.path.splitext(path)[1].lower() in (".dot", ".gv", ""):
        dot.save(path)
    else:
        try:  # rendered by Graphviz's dot program, the format from the suffix
            dot.render(outfile=path, cleanup=True)
        except (RuntimeError, OSError) as e:  # no graphviz to render with: the DOT text says the same
            path = os.path.splitext(path)[0] + ".dot"
            dot.save(path)
            print(f"{str(e).splitlines()[0]}; wrote the DOT text instead")
    print(f"Wrote the backward graph to {path}")


class MetricsLogger:
    """metrics.csv (a row per epoch) and, with --tensorboard, TensorBoard scalars and weight histograms.

    Only rank 0 writes. A resumed run appends to the CSV its first run wrote."""

    FIELDS = ("epoch", "step", "loss", "accuracy", "lr", "seconds")

    def __init__(self, args, optimizer, appending: bool) -> None:
        self.optimizer, self.t0 = optimizer, time.monotonic()
        self.writer, self.csv = None, None
        if args.rank != 0:
            return
        fresh = not (appending and os.path.isfile(args.metrics))
        self.csv = open(args.metrics, "w" if fresh else "a", newline="")
        self.rows = csv.writer(self.csv)
        if fresh:
            self.rows.writerow(self.FIELDS)
        if args.tensorboard:
            from tinytorch.utils.tensorboard import SummaryWriter

            self.writer = SummaryWriter(args.tensorboard)

    def lr(self) -> float:
        return self.optimizer.param_groups[0]["lr"]

    def step_logger(self, epoch: int, steps_per_epoch: int):
        if self.writer is None:
            return None
        return lambda batch, loss: self.writer.add_scalar("Loss/train", loss, epoch * steps_per_epoch + batch)

    def epoch_end(self, epoch, step, train_loss, accuracy, test_loss, model) -> None:
        if self.csv is None:
            return
        seconds = time.monotonic() - self.t0
        self.rows.writerow([epoch + 1, step, f"{train_loss:.6f}", f"{accuracy:.6f}", self.lr(), f"{seconds:.2f}"])
        self.csv.flush()
        if self.writer is not None:
            w = self.writer
            w.add_scalar("Loss/epoch_train", train_loss, epoch + 1)
            w.add_scalar("Loss/test", test_loss, epoch + 1)
            w.add_scalar("Accuracy/test", accuracy, epoch + 1)
            w.add_scalar("LearningRate", self.lr(), epoch + 1)
            for name, p in model.named_parameters():
                w.add_histogram(name, p.detach(), epoch + 1)
            w.flush()

    def close(self) -> None:
        if self.csv is not None:
            self.csv.close()
        if self.writer is not None:
            self.writer.close()


def plot_metrics(metrics_path: str, out_path: str) -> None:
    """The loss and accuracy curves of metrics.csv side by side in one PNG (matplotlib, no display)."""
    import matplotlib

    matplotlib.use("Agg")
    import matplotlib.pyplot as plt

    with open(metrics_path, newline="") as f:
        rows = list(csv.DictReader(f))
    epochs = [int(r["epoch"]) for r in rows]
    fig, (ax_loss, ax_acc) = plt.subplots(1, 2, figsize=(10, 4))
    ax_loss.plot(epochs, [float(r["loss"]) for r in rows], marker="o")
    ax_loss.set(title="Training loss", xlabel="epoch", ylabel="loss")
    ax_acc.plot(epochs, [100 * float(r["accuracy"]) for r in rows], marker="o", color="tab:green")
    ax_acc.set(title="Test accuracy", xlabel="epoch", ylabel="accuracy (%)")
    fig.tight_layout()
    fig.savefig(out_path)
    plt.close(fig)


def main(argv=None) -> int:
    args = parse_args(argv)
    args.world_size = mpi_world_size()
    args.rank = 0
    if args.world_size > 1:
        dist.init_process_group("mpi")
        args.rank = dist.get_rank()
        if args.rank != 0:  # rank 0 alone reports; the others train quietly (errors still reach stderr)
            args.progress = False
            sys.stdout = open(os.devnull, "w")
    ckpt = read_checkpoint(args.resume) if args.resume else None
    torch.manual_seed(args.seed)
    device = torch.accelerator.current_accelerator().type if torch.accelerator.is_available() else "cpu"
    print(f"Using {device} device")

    training_data, test_data = load_data(args)
    if args.limit is not None:
        training_data = Subset(training_data, range(min(args.limit, len(training_data))))
        test_data = Subset(test_data, range(min(args.limit, len(test_data))))
    test_dataloader = DataLoader(test_data, batch_size=args.batch_size, num_workers=args.num_workers,
                                 generator=torch.Generator().manual_seed(args.seed))

    model = MODELS[args.model]().to(device)
    print(model)
    # data-parallel: ``net`` is the model every rank trains; ``model`` stays the plain one that is saved
    net = DistributedDataParallel(model) if args.world_size > 1 else model
    loss_fn = make_loss(args.model)
    optimizer = torch.optim.SGD(model.parameters(), lr=args.lr, momentum=args.momentum)

    if args.draw_graph and args.rank == 0:
        draw_graph(args.draw_graph, model, loss_fn, training_data, args.batch_size)

    start_epoch, start_step = 0, 0
    if args.resume:
        if ckpt.get("world_size", 1) != args.world_size:
            sys.exit(f"{args.resume} was written by a run of {ckpt.get('world_size', 1)} process(es); "
                     f"resume it with the same number (this run has {args.world_size})")
        kind = ckpt.get("model_kind", "mlp")  # checkpoints from before --model hold the MLP
        if kind != args.model:
            sys.exit(f"{args.resume} holds a {kind} model, but --model is {args.model}: resume with --model {kind}")
        try:
            model.load_state_dict(ckpt["model"])
            optimizer.load_state_dict(ckpt["optimizer"])
            torch.set_rng_state(ckpt["rng_state"])
            start_epoch, start_step = ckpt["epoch"], ckpt["step"]
            for key in ("seed", "batch_size", "shuffle"):  # the run continues as it started
                if key in ckpt and ckpt[key] != getattr(args, key):
                    print(f"--{key.replace('_', '-')} {getattr(args, key)} ignored: the checkpoint's "
                          f"{ckpt[key]} continues the run")
                    setattr(args, key, ckpt[key])
        except (RuntimeError, ValueError, KeyError, TypeError, AttributeError) as e:
            sys.exit(f"Cannot resume from {args.resume}: {str(e).splitlines()[0] if str(e) else repr(e)}")
        print(f"Resumed from {args.resume}: epoch {start_epoch + 1}, batch {start_step}")

    logger = MetricsLogger(args, optimizer, appending=args.resume is not None)
    stop = StopFlag(args.world_size)
    previous_handler = signal.signal(signal.SIGINT, stop)
    steps_per_epoch = -(-len(training_data) // args.batch_size)
    rank_batch = args.batch_size // args.world_size  # --batch-size is the global batch
    try:
        for epoch in range(start_epoch, args.epochs):
            print(f"Epoch {epoch + 1}\n-------------------------------")
            first = start_step if epoch == start_epoch else 0
            order = epoch_order(len(training_data), args.seed, epoch, args.shuffle)
            if args.world_size > 1:
                order = rank_share(order, args.rank, args.world_size, args.batch_size)
            # resuming mid-epoch: skip the batches already trained on, without loading them
            # the loader's own generator: drawing its base seed from the global one would shift the
            # dropout masks of a resumed run against an uninterrupted one
            loader = DataLoader(training_data, batch_size=rank_batch, sampler=order[first * rank_batch:],
                                num_workers=args.num_workers, generator=torch.Generator().manual_seed(args.seed))
            with tqdm(total=steps_per_epoch, initial=first, desc=f"epoch {epoch + 1}", leave=False,
                      disable=not args.progress) as bar:
                done, train_loss = train(loader, net, loss_fn, optimizer, first, stop, bar, args.world_size,
                                         log=logger.step_logger(epoch, steps_per_epoch))
            if stop.requested and done < steps_per_epoch:
                save_checkpoint(args.checkpoint, model, optimizer, epoch, done, args)
                print(f"Interrupted: saved the training state after epoch {epoch + 1}, batch {done} to "
                      f"{args.checkpoint}; continue with --resume {args.checkpoint}")
                return EXIT_INTERRUPTED
            save_checkpoint(args.checkpoint, model, optimizer, epoch + 1, 0, args)
            if args.rank == 0:
                accuracy, test_loss = test(test_dataloader, model, loss_fn, args.progress)
                logger.epoch_end(epoch, (epoch + 1) * steps_per_epoch, train_loss, accuracy, test_loss, model)
            if stop.requested:
                print(f"Interrupted after epoch {epoch + 1}; continue with --resume {args.checkpoint}")
                return EXIT_INTERRUPTED
    except KeyboardInterrupt:
        print(f"Interrupted twice: stopped at once; the last checkpoint in {args.checkpoint} is intact")
        return EXIT_INTERRUPTED
    finally:
        signal.signal(signal.SIGINT, previous_handler)
        logger.close()
    print("Done!")
    if args.rank != 0:
        return 0

    torch.save(model.state_dict(), args.save)
    print(f"Saved PyTorch Model State to {args.save}")
    if args.plot:
        plot_metrics(args.metrics, args.plot)
        print(f"Wrote the loss and accuracy curves to {args.plot}")

    model = MODELS[args.model]().to(device)
    model.load_state_dict(torch.load(args.save, weights_only=True))

    model.eval()
    x, y = test_data[0][0], test_data[0][1]
    if args.model == "cnn":
        x = x.unsqueeze(0)  # Net's flatten(x, 1) needs a batch dimension; the MLP's Flatten does not
    with torch.no_grad():
        x = x.to(device)
        pred = model(x)
        predicted, actual = CLASSES[pred[0].argmax(0)], CLASSES[y]
        print(f'Predicted: "{predicted}", Actual: "{actual}"')
    return 0


if __name__ == "__main__":
    sys.exit(main())
