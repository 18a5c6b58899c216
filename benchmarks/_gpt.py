"""The GPT-style training step of ``bench_transformer.py``, ``bench_fast.py`` and ``bench_threads.py``,
importable without side effects (bench_transformer.py pins its process to one thread as it loads): token +
position embeddings, 4 pre-norm causal TransformerEncoderLayers (GELU feed-forward of 4 C), a final LayerNorm
and a linear head over 65 symbols, batch 16, cross-entropy, AdamW. Written once for any torch-compatible
module."""
from __future__ import annotations

B, LAYERS, HEADS, VOCAB = 16, 4, 4, 65
CONFIGS = {"small": (32, 64, 0.0), "large": (64, 128, 0.2)}  # T, C, dropout


def build(lib, cfg: tuple):
    """(model, AdamW optimizer) for ``cfg`` = (T, C, dropout), the parameters drawn from seed 0."""
    t, c, dropout = cfg
    nn = lib.nn

    class GPT(nn.Module):
        def __init__(self):
            super().__init__()
            self.tok = nn.Embedding(VOCAB, c)
            self.pos = nn.Embedding(t, c)
            layer = nn.TransformerEncoderLayer(c, HEADS, 4 * c, dropout=dropout, activation="gelu", batch_first=True,
                                               norm_first=True)
            self.blocks = nn.TransformerEncoder(layer, LAYERS, norm=nn.LayerNorm(c), enable_nested_tensor=False)
            self.head = nn.Linear(c, VOCAB)
            self.register_buffer("mask", nn.Transformer.generate_square_subsequent_mask(t))

        def forward(self, idx):
            x = self.tok(idx) + self.pos(lib.arange(idx.shape[1]))
            return self.head(self.blocks(x, mask=self.mask, is_causal=True))

    lib.manual_seed(0)
    model = GPT()
    return model, lib.optim.AdamW(model.parameters(), lr=1e-3)


def make_step(lib, model, opt, batches):
    """One training step over ``batches`` (int arrays (B, T) of inputs and targets), cycling."""
    F = lib.nn.functional
    data = [(lib.tensor(x), lib.tensor(y)) for x, y in batches]
    state = {"i": 0}

    def step():
        x, y = data[state["i"] % len(data)]
        state["i"] += 1
        logits = model(x)
        loss = F.cross_entropy(logits.reshape(-1, VOCAB), y.reshape(-1))
        opt.zero_grad()
        loss.backward()
        opt.step()
        return loss.item()
    return step
