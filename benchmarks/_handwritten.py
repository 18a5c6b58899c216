"""The hand-written case: a residual block written the way minGPT and llama-style code write their pieces, in
elementwise tensor arithmetic rather than library modules, so torch.compile's pointwise fusion has runs to fuse.

RMSNorm (x * rsqrt(mean(x^2) + eps) * w) → Linear(64, 256) → minGPT's NewGELU (0.5 * x * (1 + tanh(c * (x +
0.044715 * x^3)))) → Linear(256, 64) → residual add → RMSNorm, four blocks, on (16, 32, 64) float32 inputs; the
loss is the mean square of the output, SGD lr 0.01. Only numpy is imported at module level."""

from __future__ import annotations

import math

import numpy as np

import _common as common

B, T, C, LAYERS = 16, 32, 64, 4


def build(lib):
    nn = lib.nn

    class RMSNorm(nn.Module):
        def __init__(self, d, eps=1e-6):
            super().__init__()
            self.eps = eps
            self.weight = nn.Parameter(lib.ones(d))

        def forward(self, x):
            return x * lib.rsqrt(x.pow(2).mean(-1, keepdim=True) + self.eps) * self.weight

    class NewGELU(nn.Module):
        def forward(self, x):
            return 0.5 * x * (1.0 + lib.tanh(math.sqrt(2.0 / math.pi) * (x + 0.044715 * lib.pow(x, 3.0))))

    class Block(nn.Module):
        def __init__(self, d):
            super().__init__()
            self.norm1, self.norm2 = RMSNorm(d), RMSNorm(d)
            self.fc, self.act, self.proj = nn.Linear(d, 4 * d), NewGELU(), nn.Linear(4 * d, d)

        def forward(self, x):
            return self.norm2(x + self.proj(self.act(self.fc(self.norm1(x)))))

    lib.manual_seed(0)
    return nn.Sequential(*[Block(C) for _ in range(LAYERS)])


def make_step(lib, compiled: bool = False):
    model = build(lib)
    opt = lib.optim.SGD(model.parameters(), lr=0.01)
    rng = np.random.default_rng(0)
    batches = [(lib.from_numpy(rng.standard_normal((B, T, C)).astype(np.float32)), None) for _ in range(4)]
    return common.cycling_step(lib.compile(model) if compiled else model, lambda out, _: out.pow(2).mean(), opt,
                               batches)
