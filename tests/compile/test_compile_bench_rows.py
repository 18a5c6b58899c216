"""Every benchmark row's model, trained 200 steps eagerly and compiled, prints the same losses bit for bit (issue 76:
compiled = eager is what makes ``torch.compile`` safe to turn on, and the benchmark's compiled columns are worth
only what they compute).

The models and their data are the benchmark's own (``benchmarks/``'s row makers, each built from seed 0): the
micrograd MLP on 0-d tensors with its loss function compiled, the makemore MLP with BatchNorm1d, the quickstart MLP
at batch 64 with ``torch.compile(model)`` and at batches 1 and 8 with the whole training step compiled, the MNIST
CNN (SGD with momentum), the GPT-style models (AdamW; the larger with dropout 0.2, so the compiled run must draw
eager's random stream), ``nn.LSTM`` with SGD and the character model with Adam. Each run's compiled function must
also keep one graph (no recompiles) for the 200 steps.

Under ``TINYTORCH_REFERENCE=1`` (CI's second pass of the suite, every op on its plain reference) the runs are 40 steps
long: the same captures and replays on the other path, at a fifth of the cost (the 200-step runs were that pass's
largest test: 4.6 minutes on 2 workers)."""
from __future__ import annotations

import os
import sys

import pytest

import tinytorch
from _paths import reference_mode

BENCHMARKS = os.path.join(os.path.dirname(os.path.dirname(os.path.dirname(os.path.abspath(__file__)))), "benchmarks")
STEPS = 40 if reference_mode() else 200


@pytest.fixture(scope="module", autouse=True)
def _benchmarks_importable():
    sys.path.insert(0, BENCHMARKS)
    yield
    sys.path.remove(BENCHMARKS)


def _maker(row: str):
    """(row) -> a function of ``compiled`` returning the row's training step (a closure giving the step's loss)."""
    import _cnn
    import _gpt
    import bench_rnn
    import bench_small
    import numpy as np

    def impl(compiled):
        return "tinytorch-compiled" if compiled else "tinytorch"

    def gpt(cfg):
        def make(compiled):
            rng = np.random.default_rng(0)
            t = _gpt.CONFIGS[cfg][0]
            batches = [(rng.integers(0, _gpt.VOCAB, (_gpt.B, t)), rng.integers(0, _gpt.VOCAB, (_gpt.B, t)))
                       for _ in range(8)]
            model, opt = _gpt.build(tinytorch, _gpt.CONFIGS[cfg])
            return _gpt.make_step(tinytorch, tinytorch.compile(model) if compiled else model, opt, batches)
        return make

    return {
        "micrograd": lambda c: bench_small.make_micrograd(tinytorch, impl(c)),
        "makemore": lambda c: bench_small.make_makemore(tinytorch, impl(c)),
        "quickstart64": lambda c: bench_small.make_quickstart(tinytorch, 64, impl(c)),
        "quickstart1-step": lambda c: bench_small.make_quickstart_step(tinytorch, 1, impl(c)),
        "quickstart8-step": lambda c: bench_small.make_quickstart_step(tinytorch, 8, impl(c)),
        "cnn": lambda c: _cnn.make_step(tinytorch, c),
        "gpt": gpt("small"),
        "gpt-large": gpt("large"),
        "lstm": lambda c: bench_rnn.make_step(tinytorch, False, c),
        "char": lambda c: bench_rnn.make_step(tinytorch, True, c),
    }[row]


def _losses(row: str, compiled: bool) -> list:
    tinytorch._dynamo.reset()
    tinytorch.manual_seed(0)  # the rows draw dropout masks after their models' seeds: one start for both runs
    step = _maker(row)(compiled)
    out = []
    for _ in range(STEPS):
        loss = step()
        out.append(loss if isinstance(loss, float) else loss.item())
    return out


@pytest.mark.parametrize("row", ["micrograd", "makemore", "quickstart64", "quickstart1-step", "quickstart8-step",
                                 "cnn", "gpt", "gpt-large", "lstm", "char"])
def test_bench_row_compiled_prints_eager_losses_for_200_steps(row):
    eager = _losses(row, compiled=False)
    with tinytorch._dynamo.config.patch(error_on_recompile=True):
        compiled = _losses(row, compiled=True)
    first = next((i for i, (a, b) in enumerate(zip(eager, compiled)) if a != b), None)
    assert first is None, f"{row}: step {first}'s loss {compiled[first]!r}, eagerly {eager[first]!r}"
    # the model trains: the batch of step 0 (the rows cycle through 8 batches, or one) gives another loss 8 steps
    # before the end
    assert eager[STEPS - 8] != eager[0]
