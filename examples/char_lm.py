"""A character-level language model of names (makemore's task), in PyTorch code run by tinytorch.

    python examples/char_lm.py                                   # transformer, ../shared/datasets/makemore
    python examples/char_lm.py --model lstm --steps 3000
    python examples/char_lm.py --data names.txt --checkpoint lm.pth        # save at the end
    python examples/char_lm.py --checkpoint lm.pth --resume --steps 4000   # continue from it
    python examples/char_lm.py --torch                           # the same script under real PyTorch
                                                                 # (or CHAR_LM_TORCH=1)

Each name becomes one sequence ``.name`` -> ``name.`` ('.' starts and ends a name); a model reads the
characters left to right and predicts the next one. 90% of the names train it, the other 10% measure
the loss it has not seen. With the same ``--seed`` the script prints the same numbers under tinytorch
and PyTorch (the names are shuffled by Python's ``random``; batches, initialisation and sampling come
from the library's own generator, which tinytorch reproduces)."""
from __future__ import annotations

import argparse
import math
import os
import random
import sys

from tqdm import tqdm

USE_TORCH = "--torch" in sys.argv or os.environ.get("CHAR_LM_TORCH") == "1"
HERE = os.path.dirname(os.path.abspath(__file__))
if USE_TORCH:
    import torch
else:
    sys.path.insert(0, os.path.dirname(HERE))  # this checkout's tinytorch, wherever the script is run from
    import tinytorch as torch
nn = torch.nn
F = torch.nn.functional

DEFAULT_DATA = os.path.join(HERE, "..", "..", "shared", "datasets", "makemore", "names.txt")


# -- data --------------------------------------------------------------------------------------------
class Names:
    """The names of a text file (one a line) as padded index tensors: ``x`` starts with '.', ``y`` is ``x``
    shifted by one and ends with '.', positions after the end are -1 (ignored by the loss)."""

    def __init__(self, words: list[str], chars: list[str], block_size: int):
        self.stoi = {c: i + 1 for i, c in enumerate(chars)}
        xs, ys = [], []
        for w in words:
            ix = [self.stoi[c] for c in w][:block_size - 1]
            x = [0] + ix
            y = ix + [0]
            xs += x + [0] * (block_size - len(x))
            ys += y + [-1] * (block_size - len(y))
        self.x = torch.tensor(xs, dtype=torch.long).view(-1, block_size)
        self.y = torch.tensor(ys, dtype=torch.long).view(-1, block_size)

    def __len__(self):
        return self.x.shape[0]

    def batch(self, batch_size: int):
        ix = torch.randint(0, len(self), (batch_size,))
        return self.x[ix], self.y[ix]


def load_names(path: str, seed: int, block_size: int):
    with open(path) as f:
        words = [w.strip() for w in f if w.strip()]
    chars = sorted(set("".join(words)))
    random.Random(seed).shuffle(words)
    n_test = max(1, len(words) // 10)
    return Names(words[n_test:], chars, block_size), Names(words[:n_test], chars, block_size), chars


# -- models ------------------------------------------------------------------------------------------
class Transformer(nn.Module):
    """A small GPT: token + position embeddings, pre-norm causal self-attention blocks, a linear head."""

    def __init__(self, vocab_size: int, block_size: int, n_embd: int, n_head: int, n_layer: int, dropout: float):
        super().__init__()
        self.block_size = block_size
        self.tok_emb = nn.Embedding(vocab_size, n_embd)
        self.pos_emb = nn.Embedding(block_size, n_embd)
        layer = nn.TransformerEncoderLayer(n_embd, n_head, 4 * n_embd, dropout=dropout, activation="gelu",
                                           batch_first=True, norm_first=True)
        self.blocks = nn.TransformerEncoder(layer, n_layer, norm=nn.LayerNorm(n_embd), enable_nested_tensor=False)
        self.head = nn.Linear(n_embd, vocab_size)

    def forward(self, idx):
        t = idx.shape[1]
        pos = torch.arange(t)
        x = self.tok_emb(idx) + self.pos_emb(pos)
        mask = nn.Transformer.generate_square_subsequent_mask(t)
        return self.head(self.blocks(x, mask=mask, is_causal=True))


class Recurrent(nn.Module):
    """Embedding, an LSTM or GRU over the characters, a linear head."""

    def __init__(self, kind: str, vocab_size: int, n_embd: int, hidden: int, n_layer: int, dropout: float):
        super().__init__()
        self.emb = nn.Embedding(vocab_size, n_embd)
        rnn = nn.LSTM if kind == "lstm" else nn.GRU
        self.rnn = rnn(n_embd, hidden, num_layers=n_layer, batch_first=True, dropout=dropout if n_layer > 1 else 0.0)
        self.head = nn.Linear(hidden, vocab_size)

    def forward(self, idx):
        out, _ = self.rnn(self.emb(idx))
        return self.head(out)


def build_model(args, vocab_size: int):
    if args.model == "transformer":
        return Transformer(vocab_size, args.block_size, args.n_embd, args.n_head, args.n_layer, args.dropout)
    return Recurrent(args.model, vocab_size, args.n_embd, args.hidden, args.n_layer, args.dropout)


# -- training, evaluation, sampling ------------------------------------------------------------------
def loss_of(model, x, y):
    logits = model(x)
    return F.cross_entropy(logits.reshape(-1, logits.shape[-1]), y.reshape(-1), ignore_index=-1)


@torch.no_grad()
def evaluate(model, data: Names, batch_size: int, max_batches: int) -> float:
    """Mean loss per predicted character over (the first ``max_batches`` batches of) ``data``."""
    model.eval()
    total, count = 0.0, 0
    for start in range(0, min(len(data), batch_size * max_batches), batch_size):
        x, y = data.x[start:start + batch_size], data.y[start:start + batch_size]
        n = int((y >= 0).sum())
        total += loss_of(model, x, y).item() * n
        count += n
    model.train()
    return total / count


@torch.no_grad()
def sample(model, n: int, block_size: int, itos: dict) -> list[str]:
    """``n`` new names, one character at a time from the model's predicted distribution."""
    model.eval()
    names = []
    for _ in range(n):
        idx = torch.zeros((1, 1), dtype=torch.long)
        out = []
        while len(out) < block_size - 1:
            probs = F.softmax(model(idx)[:, -1, :], dim=-1)
            nxt = torch.multinomial(probs, num_samples=1)
            if nxt.item() == 0:
                break
            out.append(itos[nxt.item()])
            idx = torch.cat([idx, nxt], dim=1)
        names.append("".join(out))
    model.train()
    return names


def parse_args(argv=None):
    p = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    p.add_argument("--data", default=DEFAULT_DATA, help="text file, one name a line")
    p.add_argument("--model", choices=["transformer", "lstm", "gru"], default="transformer")
    p.add_argument("--steps", type=int, default=2000)
    p.add_argument("--seed", type=int, default=1337)
    p.add_argument("--batch-size", type=int, default=32)
    p.add_argument("--block-size", type=int, default=16, help="longest sequence (names are cut to block-size - 1)")
    p.add_argument("--n-embd", type=int, default=32)
    p.add_argument("--n-head", type=int, default=4)
    p.add_argument("--n-layer", type=int, default=2)
    p.add_argument("--hidden", type=int, default=64, help="LSTM/GRU hidden size")
    p.add_argument("--dropout", type=float, default=0.0)
    p.add_argument("--lr", type=float, default=3e-3)
    p.add_argument("--weight-decay", type=float, default=0.01)
    p.add_argument("--print-every", type=int, default=100, help="print the training loss every N steps")
    p.add_argument("--eval-every", type=int, default=500)
    p.add_argument("--eval-batches", type=int, default=8)
    p.add_argument("--samples", type=int, default=10, help="names to sample at the end")
    p.add_argument("--checkpoint", help="save model, optimizer and step here at the end")
    p.add_argument("--resume", action="store_true", help="start from --checkpoint")
    p.add_argument("--no-progress", action="store_true")
    p.add_argument("--torch", action="store_true", help="run under real PyTorch (or CHAR_LM_TORCH=1)")
    return p.parse_args(argv)


def main(argv=None) -> None:
    args = parse_args(argv)
    torch.manual_seed(args.seed)
    train, test, chars = load_names(args.data, args.seed, args.block_size)
    itos = {i + 1: c for i, c in enumerate(chars)}
    itos[0] = "."
    model = build_model(args, len(chars) + 1)
    optimizer = torch.optim.AdamW(model.parameters(), lr=args.lr, weight_decay=args.weight_decay)
    start = 0
    if args.resume:
        ckpt = torch.load(args.checkpoint)
        model.load_state_dict(ckpt["model"])
        optimizer.load_state_dict(ckpt["optimizer"])
        torch.set_rng_state(ckpt["rng_state"])
        start = ckpt["step"]
    n_params = sum(p.numel() for p in model.parameters())
    print(f"{'torch' if USE_TORCH else 'tinytorch'} {args.model}: {n_params} parameters, "
          f"{len(train)} training names, {len(test)} held out")
    bar = tqdm(range(start, args.steps), disable=args.no_progress, initial=start, total=args.steps)
    for step in bar:
        x, y = train.batch(args.batch_size)
        loss = loss_of(model, x, y)
        optimizer.zero_grad()
        loss.backward()
        optimizer.step()
        if step < start + 5 or (step + 1) % args.print_every == 0:
            tqdm.write(f"step {step + 1}: train loss {loss.item():.4f}")
        bar.set_postfix(loss=f"{loss.item():.3f}")
        if (step + 1) % args.eval_every == 0 and step + 1 < args.steps:
            tqdm.write(f"step {step + 1}: test loss {evaluate(model, test, 256, args.eval_batches):.4f}")
    test_loss = evaluate(model, test, 256, args.eval_batches)
    print(f"final: test loss {test_loss:.4f} (perplexity {math.exp(test_loss):.2f})")
    if args.checkpoint:
        torch.save({"model": model.state_dict(), "optimizer": optimizer.state_dict(), "step": args.steps,
                    "rng_state": torch.get_rng_state()}, args.checkpoint)
        print(f"saved {args.checkpoint}")
    torch.manual_seed(args.seed + 1)
    for name in sample(model, args.samples, args.block_size, itos):
        print("sample:", name)


if __name__ == "__main__":
    main()
