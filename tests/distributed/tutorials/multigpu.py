"""The DDP tutorial series' ``multigpu.py`` (pytorch/examples, distributed/ddp-tutorial-series) on CPUs,
adapted as a user without GPUs would: backend ``"gloo"``, no ``device_ids`` and no ``.to(gpu)``, the world
size from the command line instead of ``torch.cuda.device_count()``. Two more changes make its numbers
worth comparing: a seed, so every run draws the same data and weights, and ``mse_loss`` instead of the
tutorial's ``cross_entropy`` over one output column, which is identically zero and trains nothing. Rank 0
prints the trained weights at the end.

``python multigpu.py EPOCHS SAVE_EVERY [--world_size N]`` on PyTorch; ``python -m tinytorch.run multigpu.py
...`` on tinytorch. Workers start with ``mp.spawn`` and meet through ``env://`` (MASTER_PORT may be set by
the caller; the tutorial fixes 12355)."""
import os

import torch
import torch.multiprocessing as mp
import torch.nn.functional as F
from datautils import MyTrainDataset
from torch.distributed import destroy_process_group, init_process_group
from torch.nn.parallel import DistributedDataParallel as DDP
from torch.utils.data import DataLoader, Dataset
from torch.utils.data.distributed import DistributedSampler


def ddp_setup(rank, world_size):
    os.environ["MASTER_ADDR"] = "localhost"
    os.environ.setdefault("MASTER_PORT", "12355")
    init_process_group(backend="gloo", rank=rank, world_size=world_size)


class Trainer:
    def __init__(self, model, train_data, optimizer, rank, save_every):
        self.rank = rank
        self.train_data = train_data
        self.optimizer = optimizer
        self.save_every = save_every
        self.model = DDP(model)

    def _run_batch(self, source, targets):
        self.optimizer.zero_grad()
        loss = F.mse_loss(self.model(source), targets)
        loss.backward()
        self.optimizer.step()
        return loss

    def _run_epoch(self, epoch):
        b_sz = len(next(iter(self.train_data))[0])
        print(f"[CPU{self.rank}] Epoch {epoch} | Batchsize: {b_sz} | Steps: {len(self.train_data)}")
        self.train_data.sampler.set_epoch(epoch)
        for source, targets in self.train_data:
            loss = self._run_batch(source, targets)
        print(f"[CPU{self.rank}] Epoch {epoch} | last loss {loss.item():.6f}")

    def _save_checkpoint(self, epoch):
        torch.save(self.model.module.state_dict(), "checkpoint.pt")
        print(f"Epoch {epoch} | Training checkpoint saved at checkpoint.pt")

    def train(self, max_epochs):
        for epoch in range(max_epochs):
            self._run_epoch(epoch)
            if self.rank == 0 and epoch % self.save_every == 0:
                self._save_checkpoint(epoch)


def load_train_objs():
    torch.manual_seed(0)
    train_set = MyTrainDataset(2048)
    model = torch.nn.Linear(20, 1)
    optimizer = torch.optim.SGD(model.parameters(), lr=1e-3)
    return train_set, model, optimizer


def prepare_dataloader(dataset: Dataset, batch_size: int):
    return DataLoader(dataset, batch_size=batch_size, shuffle=False, sampler=DistributedSampler(dataset))


def main(rank, world_size, save_every, total_epochs, batch_size):
    ddp_setup(rank, world_size)
    dataset, model, optimizer = load_train_objs()
    trainer = Trainer(model, prepare_dataloader(dataset, batch_size), optimizer, rank, save_every)
    trainer.train(total_epochs)
    if rank == 0:
        print("weight", model.weight.detach(), "bias", model.bias.detach())
    destroy_process_group()


if __name__ == "__main__":
    import argparse

    parser = argparse.ArgumentParser(description="simple distributed training job")
    parser.add_argument("total_epochs", type=int, help="Total epochs to train the model")
    parser.add_argument("save_every", type=int, help="How often to save a snapshot")
    parser.add_argument("--batch_size", default=32, type=int, help="Input batch size on each process")
    parser.add_argument("--world_size", default=2, type=int, help="Processes to start")
    args = parser.parse_args()
    mp.spawn(main, args=(args.world_size, args.save_every, args.total_epochs, args.batch_size),
             nprocs=args.world_size)
