"""The training script's records: metrics.csv, TensorBoard logs and the loss and accuracy curves."""
from __future__ import annotations

import csv
import os
import sys
import time


class MetricsLogger:
    """metrics.csv (a row per epoch) and, with --tensorboard, TensorBoard scalars and weight histograms.

    Only rank 0 writes. Every row names its run (the id a fresh run draws, kept in its checkpoints), so a file
    never mixes two runs: a fresh run moves a file left by another run aside (``metrics.csv.1``, the next free
    number) and starts its own; a resumed run continues its own file, dropping the rows of the epochs it is about
    to train again, and moves any other run's file aside as a fresh run does. ``seconds`` counts the run's
    training time across resumes."""

    FIELDS = ("epoch", "step", "loss", "accuracy", "lr", "seconds", "run")

    def __init__(self, args, optimizer, run: str, start_epoch: int = 0, seconds: float = 0.0) -> None:
        self.optimizer, self.t0, self.run = optimizer, time.monotonic() - seconds, run
        self.writer, self.csv = None, None
        if args.rank != 0:
            return
        path = args.metrics
        kept = _own_rows(path, run, start_epoch)
        if kept is None and os.path.isfile(path) and os.path.getsize(path):
            aside = _free_name(path)
            os.replace(path, aside)
            print(f"{path} held another run's rows: moved to {aside}", file=sys.stderr)
        # the rows kept rewritten whole, then appended to: a crash leaves the old file or the new one
        tmp = f"{path}.tmp{os.getpid()}"
        with open(tmp, "w", newline="") as f:
            rows = csv.writer(f)
            rows.writerow(self.FIELDS)
            rows.writerows(kept or ())
        os.replace(tmp, path)
        self.csv = open(path, "a", newline="")
        self.rows = csv.writer(self.csv)
        if args.tensorboard:
            from tinytorch.utils.tensorboard import SummaryWriter

            self.writer = SummaryWriter(args.tensorboard)

    def seconds(self) -> float:
        """The run's training time so far (this process's, plus what its checkpoint had counted)."""
        return time.monotonic() - self.t0

    def lr(self) -> float:
        return self.optimizer.param_groups[0]["lr"]

    def step_logger(self, epoch: int, steps_per_epoch: int):
        if self.writer is None:
            return None
        return lambda batch, loss: self.writer.add_scalar("Loss/train", loss, epoch * steps_per_epoch + batch)

    def epoch_end(self, epoch, step, train_loss, accuracy, test_loss, model) -> None:
        if self.csv is None:
            return
        self.rows.writerow([epoch + 1, step, f"{train_loss:.6f}", f"{accuracy:.6f}", self.lr(), f"{self.seconds():.2f}",
                            self.run])
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


def _own_rows(path: str, run: str, start_epoch: int) -> list | None:
    """The rows of ``path`` a run resumed at ``start_epoch`` keeps (those of the epochs before it), when every
    row of the file is run ``run``'s; None when the file is missing, empty, of another run or unreadable."""
    try:
        with open(path, newline="") as f:
            table = list(csv.reader(f))
    except (OSError, UnicodeDecodeError, csv.Error):
        return None
    if not table or tuple(table[0]) != MetricsLogger.FIELDS:
        return None
    body = table[1:]
    if any(len(row) != len(MetricsLogger.FIELDS) or row[-1] != run for row in body):
        return None
    try:
        return [row for row in body if int(row[0]) <= start_epoch]
    except ValueError:
        return None


def _free_name(path: str) -> str:
    n = 1
    while os.path.exists(f"{path}.{n}"):
        n += 1
    return f"{path}.{n}"


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
