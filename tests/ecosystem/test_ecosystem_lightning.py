"""Lightning (``lightning``) on tinytorch: a LightningModule trained by ``Trainer(max_epochs=1)`` on the CPU,
with a validation loop, logged metrics and a seeded shuffle, prints PyTorch's numbers."""
from _libraries import assert_close, on_pytorch, on_tinytorch

CODE = """
import json, tempfile
import numpy as np
import lightning as L
from torch.utils.data import DataLoader, TensorDataset

class LitModel(L.LightningModule):
    def __init__(self):
        super().__init__()
        self.net = torch.nn.Sequential(torch.nn.Linear(8, 16), torch.nn.ReLU(), torch.nn.Linear(16, 3))
        self.losses = []
    def training_step(self, batch, batch_idx):
        x, y = batch
        loss = torch.nn.functional.cross_entropy(self.net(x), y)
        self.log("train_loss", loss)
        self.losses.append(loss.item())
        return loss
    def validation_step(self, batch, batch_idx):
        x, y = batch
        self.log("val_loss", torch.nn.functional.cross_entropy(self.net(x), y))
    def configure_optimizers(self):
        return torch.optim.SGD(self.parameters(), lr=0.1, momentum=0.9)

rng = np.random.default_rng(0)
x = torch.from_numpy(rng.standard_normal((64, 8)).astype(np.float32))
y = torch.from_numpy(rng.integers(0, 3, 64))
L.seed_everything(0)
model = LitModel()
trainer = L.Trainer(max_epochs=1, accelerator="cpu", logger=False, enable_checkpointing=False,
                    enable_progress_bar=False, default_root_dir=tempfile.mkdtemp())
trainer.fit(model, DataLoader(TensorDataset(x, y), batch_size=16, shuffle=True),
            DataLoader(TensorDataset(x, y), batch_size=32))
print(json.dumps({"losses": model.losses, "metrics": {k: float(v) for k, v in trainer.callback_metrics.items()},
                  "w": model.net[0].weight.sum().item(), "epoch": trainer.current_epoch, "step": trainer.global_step,
                  "device": str(model.device), "dtype": str(model.dtype)}))
"""


def test_trainer_fit_one_epoch_matches_pytorch():
    ours = on_tinytorch(CODE, "lightning")
    assert ours["epoch"] == 1 and ours["step"] == 4 and len(ours["losses"]) == 4
    assert sorted(ours["metrics"]) == ["train_loss", "val_loss"] and ours["device"] == "cpu"
    theirs = on_pytorch(CODE)
    assert ours["dtype"] == theirs["dtype"] == "torch.float32"
    assert_close(ours, theirs, rtol=1e-5, atol=1e-6)
