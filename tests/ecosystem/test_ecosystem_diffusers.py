"""diffusers, unchanged, on tinytorch: a small ``UNet2DModel`` (with attention blocks) and ``DDPMScheduler``, one
training step (noise added at random timesteps, the noise predicted, MSE, AdamW) and a five-step sampling loop,
against PyTorch running the same diffusers. diffusers detects PyTorch through ``importlib.metadata``: without
install_as_torch's ``torch`` distribution every model class would be a placeholder asking to install PyTorch."""
from __future__ import annotations

import numpy as np

from _ecosystem import run_on_pytorch, run_on_tinytorch

MODULES = ("diffusers", "huggingface_hub", "regex", "safetensors")

TRAIN_STEP = """
    import numpy as np
    import torch.nn.functional as F
    from diffusers import DDPMScheduler, UNet2DModel

    torch.manual_seed(0)
    model = UNet2DModel(sample_size=16, in_channels=3, out_channels=3, layers_per_block=1,
                        block_out_channels=(32, 64), norm_num_groups=8,
                        down_block_types=("DownBlock2D", "AttnDownBlock2D"),
                        up_block_types=("AttnUpBlock2D", "UpBlock2D"))
    scheduler = DDPMScheduler(num_train_timesteps=100)
    optimizer = torch.optim.AdamW(model.parameters(), lr=1e-4)
    clean = torch.from_numpy(np.random.default_rng(0).uniform(-1, 1, (2, 3, 16, 16)).astype(np.float32))
    noise = torch.randn(clean.shape)
    timesteps = torch.randint(0, scheduler.config.num_train_timesteps, (2,)).long()
    noisy = scheduler.add_noise(clean, noise, timesteps)
    loss = F.mse_loss(model(noisy, timesteps, return_dict=False)[0], noise)
    loss.backward()
    grad = sum(float(p.grad.double().abs().sum()) for p in model.parameters())
    optimizer.step()
    optimizer.zero_grad()
    with torch.no_grad():
        after = F.mse_loss(model(noisy, timesteps).sample, noise)
    scheduler.set_timesteps(5)
    sample = torch.randn(1, 3, 16, 16)
    with torch.no_grad():
        for t in scheduler.timesteps:
            sample = scheduler.step(model(sample, t).sample, t, sample).prev_sample
    print(json.dumps({"type": type(model).__name__, "timesteps": timesteps.tolist(), "loss": float(loss),
                      "grad": grad, "after": float(after), "n_params": sum(p.numel() for p in model.parameters()),
                      "sample": sample.flatten().tolist()}))
"""


def test_unet2d_ddpm_training_step_and_sampling():
    ours = run_on_tinytorch(TRAIN_STEP, MODULES)
    assert ours["type"] == "UNet2DModel" and ours["after"] < ours["loss"]
    theirs = run_on_pytorch(TRAIN_STEP, MODULES)
    assert ours["timesteps"] == theirs["timesteps"] and ours["n_params"] == theirs["n_params"]
    np.testing.assert_allclose(ours["loss"], theirs["loss"], rtol=1e-6)
    np.testing.assert_allclose(ours["grad"], theirs["grad"], rtol=1e-6)
    np.testing.assert_allclose(ours["after"], theirs["after"], rtol=1e-6)
    # DDPM's sampler clips to [-1, 1] and adds PyTorch's normal draws at each step: same draws, outputs to float32
    # rounding of the convolutions' sums
    np.testing.assert_allclose(ours["sample"], theirs["sample"], atol=1e-5)
