"""accelerate, unchanged, on tinytorch: the training loop of its README (``Accelerator``, ``prepare`` of the model,
optimizer and a shuffled DataLoader, ``accelerator.backward``) on the CPU, its losses against PyTorch running the
same accelerate. accelerate finds PyTorch through ``importlib.metadata`` (install_as_torch's ``torch``
distribution) and asks whether parameters are DTensors (``torch.distributed.tensor``)."""
from __future__ import annotations

import numpy as np

from _ecosystem import run_on_pytorch, run_on_tinytorch

MODULES = ("accelerate", "psutil", "huggingface_hub", "yaml")

README_LOOP = """
    import importlib.metadata
    import numpy as np
    import torch.nn.functional as F
    from accelerate import Accelerator
    from torch.utils.data import DataLoader, TensorDataset

    accelerator = Accelerator(cpu=True)
    torch.manual_seed(0)
    rng = np.random.default_rng(0)
    X = torch.from_numpy(rng.standard_normal((64, 8)).astype(np.float32))
    Y = torch.from_numpy(rng.integers(0, 3, 64))
    model = torch.nn.Sequential(torch.nn.Linear(8, 16), torch.nn.ReLU(), torch.nn.Linear(16, 3))
    optimizer = torch.optim.Adam(model.parameters(), lr=1e-2)
    data = DataLoader(TensorDataset(X, Y), batch_size=16, shuffle=True)
    model, optimizer, data = accelerator.prepare(model, optimizer, data)
    losses = []
    model.train()
    for epoch in range(2):
        for source, targets in data:
            optimizer.zero_grad()
            output = model(source)
            loss = F.cross_entropy(output, targets)
            accelerator.backward(loss)
            optimizer.step()
            losses.append(float(loss))
    print(json.dumps({"losses": losses, "device": str(accelerator.device), "processes": accelerator.num_processes,
                      "torch_dist": importlib.metadata.version("torch").split("+")[0]}))
"""


def test_accelerate_readme_loop():
    ours = run_on_tinytorch(README_LOOP, MODULES)
    assert ours["device"] == "cpu" and ours["processes"] == 1 and ours["torch_dist"] == "2.13.0"
    assert len(ours["losses"]) == 8 and ours["losses"][-1] < ours["losses"][0]
    theirs = run_on_pytorch(README_LOOP, MODULES)
    # the same shuffles (PyTorch's generator), the same initial weights; Adam's steps round alike to an ulp or two
    np.testing.assert_allclose(ours["losses"], theirs["losses"], rtol=1e-6)
