"""PyTorch's quickstart, trained for real with tinytorch: FashionMNIST, an MLP (or a CNN), SGD, batch 64.

    python train_fashion_mnist.py                                  # downloads the data into ./data
    python train_fashion_mnist.py --data-root ../shared/datasets --no-download
    python train_fashion_mnist.py --model cnn --data-root ../shared/datasets --no-download
    mpiexec -n 2 python train_fashion_mnist.py ...                # data-parallel over MPI
    python train_fashion_mnist.py --tensorboard runs/mlp --plot curves.png   # logs and curves

The code below is the quickstart's, with ``import tinytorch as torch``; around it: options, progress
bars, checkpoints that resume bit for bit, and a clean stop on Ctrl-C."""
from __future__ import annotations

import os
import signal
import sys
import uuid

from tqdm import tqdm

import tinytorch as torch
from tinytorch import distributed as dist
from tinytorch import nn
from tinytorch.nn import functional as F
from tinytorch.data import DataLoader, Subset, datasets
from tinytorch.data.transforms import ToTensor
from tinytorch.nn.parallel import DistributedDataParallel

from fashion_mnist_job import options
from fashion_mnist_job.metrics import MetricsLogger, plot_metrics
from fashion_mnist_job.options import mpi_world_size, read_checkpoint

TORCHVISION = False
if torch._as_torch.is_installed():  # `python -m tinytorch.run train_fashion_mnist.py` or TINYTORCH_AS_TORCH=1
    try:
        # the quickstart's own lines: real torchvision, running on tinytorch (README: PyTorch's ecosystem)
        from torchvision import datasets as _tv_datasets
        from torchvision.transforms import ToTensor as _TVToTensor
    except ImportError:  # torchvision is not installed: tinytorch's built-in datasets, as without the alias
        pass
    else:
        datasets, ToTensor, TORCHVISION = _tv_datasets, _TVToTensor, True

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


def make_loss(kind: str):
    """The quickstart's CrossEntropyLoss on logits; the CNN ends in log_softmax, so NLLLoss, as pytorch/examples."""
    return nn.NLLLoss() if kind == "cnn" else nn.CrossEntropyLoss()


def parse_args(argv=None):
    return options.parse_args(argv, __doc__.splitlines()[0], sorted(MODELS))


def torchvision_root(root: str) -> str:
    """torchvision reads the unpacked IDX files its download leaves in FashionMNIST/raw/: unpack the .gz files
    found there (beside them, or into a temporary folder when that one is read-only) and return the root."""
    import gzip
    import shutil
    import tempfile

    raw = os.path.join(root, "FashionMNIST", "raw")
    packed = [n for n in sorted(os.listdir(raw)) if n.endswith(".gz")] if os.path.isdir(raw) else []
    if not packed or all(os.path.exists(os.path.join(raw, n[:-3])) for n in packed):
        return root
    if not os.access(raw, os.W_OK):
        root = os.path.join(tempfile.gettempdir(), "tinytorch-torchvision-data")
    dest = os.path.join(root, "FashionMNIST", "raw")
    os.makedirs(dest, exist_ok=True)
    for name in packed:
        if not os.path.exists(os.path.join(dest, name[:-3])):
            with gzip.open(os.path.join(raw, name)) as f, open(os.path.join(dest, name[:-3]) + ".part", "wb") as g:
                shutil.copyfileobj(f, g)
            os.replace(os.path.join(dest, name[:-3]) + ".part", os.path.join(dest, name[:-3]))
    return root


def load_data(args):
    try:
        if TORCHVISION:  # torchvision's FashionMNIST: the same images and labels, bit for bit
            root = torchvision_root(args.data_root)
            import torchvision
            print(f"Data: torchvision {torchvision.__version__}'s FashionMNIST and ToTensor, on tinytorch",
                  file=sys.stderr)
            training_data = datasets.FashionMNIST(root=root, train=True, download=args.download,
                                                  transform=ToTensor())
            test_data = datasets.FashionMNIST(root=root, train=False, download=args.download, transform=ToTensor())
            return training_data, test_data
        # progress: a byte counter on stderr while the files download, as torchvision shows
        training_data = datasets.FashionMNIST(root=args.data_root, train=True, download=args.download,
                                              transform=ToTensor(), progress=args.progress)
        test_data = datasets.FashionMNIST(root=args.data_root, train=False, download=args.download,
                                          transform=ToTensor(), progress=args.progress)
    except (RuntimeError, OSError, ValueError) as e:
        raw = os.path.join(args.data_root, "FashionMNIST", "raw")
        cause = f" ({type(e.__cause__).__name__}: {e.__cause__})" if e.__cause__ is not None else ""
        sys.exit(f"Could not load FashionMNIST: {e}{cause}\n"
                 f"Put train-images-idx3-ubyte.gz, train-labels-idx1-ubyte.gz, t10k-images-idx3-ubyte.gz and "
                 f"t10k-labels-idx1-ubyte.gz into {raw}/ (or point --data-root at the folder that holds "
                 f"FashionMNIST/raw/), or run with --download where the internet can be reached.")
    return training_data, test_data


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


def save_checkpoint(path, model, optimizer, epoch: int, step: int, args, logger, losses=(0.0, 0)) -> None:
    """The training state; ``losses``: the sum and count of the losses of the epoch's batches done so far (its
    row in metrics.csv is their mean over the whole epoch, however often it was resumed)."""
    if args.rank != 0:  # every rank holds the same weights: one writes them
        return
    torch.save({"model": model.state_dict(), "optimizer": optimizer.state_dict(), "epoch": epoch, "step": step,
                "rng_state": torch.get_rng_state(), "seed": args.seed, "batch_size": args.batch_size,
                "shuffle": args.shuffle, "world_size": args.world_size, "model_kind": args.model,
                "run": logger.run, "loss_sum": float(losses[0]), "loss_count": losses[1],
                "seconds": float(logger.seconds())}, path)


def train(dataloader, model, loss_fn, optimizer, first_batch: int, stop: StopFlag, bar, world: int = 1,
          log=None, losses=(0.0, 0)):
    """One (possibly partial) epoch; returns the number of batches done when it stops and the sum and count of
    this rank's batch losses, carried on from ``losses`` (those of the batches before ``first_batch``).
    ``log(batch, loss)`` is called every 100 batches."""
    size = len(dataloader.dataset)
    model.train()
    batch = first_batch
    loss_sum, count = losses
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
    return batch, (loss_sum, count)


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
    if args.rank == 0:  # stderr, beside the progress bars: stdout stays the quickstart's own lines
        print(f"Kernels: {torch.backends.cpu.describe()}", file=sys.stderr)

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

    # a run keeps its id across resumes: metrics.csv's rows name it (fashion_mnist_job/metrics.py)
    run = ckpt.get("run") if ckpt and ckpt.get("run") else uuid.uuid4().hex[:12]
    logger = MetricsLogger(args, optimizer, run, start_epoch, ckpt.get("seconds", 0.0) if ckpt else 0.0)
    losses = (ckpt.get("loss_sum", 0.0), ckpt.get("loss_count", 0)) if ckpt and start_step else (0.0, 0)
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
                done, sums = train(loader, net, loss_fn, optimizer, first, stop, bar, args.world_size,
                                   log=logger.step_logger(epoch, steps_per_epoch),
                                   losses=losses if epoch == start_epoch else (0.0, 0))
            train_loss = sums[0] / sums[1] if sums[1] else float("nan")
            if stop.requested and done < steps_per_epoch:
                save_checkpoint(args.checkpoint, model, optimizer, epoch, done, args, logger, sums)
                print(f"Interrupted: saved the training state after epoch {epoch + 1}, batch {done} to "
                      f"{args.checkpoint}; continue with --resume {args.checkpoint}")
                return EXIT_INTERRUPTED
            if args.rank == 0:
                accuracy, test_loss = test(test_dataloader, model, loss_fn, args.progress)
                logger.epoch_end(epoch, (epoch + 1) * steps_per_epoch, train_loss, accuracy, test_loss, model)
            # after the epoch's row: a checkpoint never says an epoch is done whose row metrics.csv lacks
            save_checkpoint(args.checkpoint, model, optimizer, epoch + 1, 0, args, logger)
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
