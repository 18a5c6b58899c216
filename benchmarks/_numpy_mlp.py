"""The "numpy floor": the quickstart MLP trained by hand in numpy, and the matmul-only FLOP bound.

No framework: the forward pass, the backward pass of cross-entropy, ReLU and the linear layers
written out, and SGD as ``W -= lr * G``. Weights are stored (out, in) like ``nn.Linear`` so every
matmul has the same shapes and transposes as PyTorch's and tinytorch's."""

from __future__ import annotations

import time

import numpy as np

from _common import BATCH_SIZE

LAYER_SIZES = ((784, 512), (512, 512), (512, 10))


class NumpyMLP:
    """Flatten, Linear(784, 512), ReLU, Linear(512, 512), ReLU, Linear(512, 10); float32."""

    def __init__(self, seed: int = 0) -> None:
        rng = np.random.default_rng(seed)
        self.params = []
        for fan_in, fan_out in LAYER_SIZES:
            bound = 1.0 / np.sqrt(fan_in)  # nn.Linear's default init bound, for weights and biases
            self.params.append(rng.uniform(-bound, bound, (fan_out, fan_in)).astype(np.float32))
            self.params.append(rng.uniform(-bound, bound, fan_out).astype(np.float32))

    def step(self, images: np.ndarray, labels: np.ndarray, lr: float) -> np.ndarray:
        """One SGD step on a batch; returns the batch's mean cross-entropy loss (0-d float32)."""
        w1, b1, w2, b2, w3, b3 = self.params
        n = len(images)
        x = images.reshape(n, -1)
        h1 = x @ w1.T
        h1 += b1
        np.maximum(h1, 0, out=h1)
        h2 = h1 @ w2.T
        h2 += b2
        np.maximum(h2, 0, out=h2)
        logits = h2 @ w3.T
        logits += b3

        rows = np.arange(n)
        shifted = logits - logits.max(axis=1, keepdims=True)
        exp = np.exp(shifted)
        total = exp.sum(axis=1, keepdims=True)
        loss = (np.log(total[:, 0]) - shifted[rows, labels]).mean()

        g3 = exp / total  # d(mean CE)/d(logits) = (softmax - onehot) / n
        g3[rows, labels] -= 1
        g3 /= np.float32(n)
        g2 = g3 @ w3
        g2 *= h2 > 0
        g1 = g2 @ w2
        g1 *= h1 > 0
        grads = (g1.T @ x, g1.sum(axis=0), g2.T @ h1, g2.sum(axis=0), g3.T @ h2, g3.sum(axis=0))
        for param, grad in zip(self.params, grads):
            param -= lr * grad
        return loss


def _step_matmuls(rng: np.random.Generator) -> list:
    """The 8 matmuls of one training step as (name, flops, thunk), with NumpyMLP's layouts."""

    def rand(*shape):
        return rng.standard_normal(shape, dtype=np.float32)

    b = BATCH_SIZE
    x, h1, h2 = rand(b, 784), rand(b, 512), rand(b, 512)
    w1, w2, w3 = rand(512, 784), rand(512, 512), rand(10, 512)
    g1, g2, g3 = rand(b, 512), rand(b, 512), rand(b, 10)
    return [
        ("fwd x @ W1.T", 2 * b * 784 * 512, lambda: x @ w1.T),
        ("fwd h1 @ W2.T", 2 * b * 512 * 512, lambda: h1 @ w2.T),
        ("fwd h2 @ W3.T", 2 * b * 512 * 10, lambda: h2 @ w3.T),
        ("dW1 = g1.T @ x", 2 * b * 512 * 784, lambda: g1.T @ x),
        ("dW2 = g2.T @ h1", 2 * b * 512 * 512, lambda: g2.T @ h1),
        ("dW3 = g3.T @ h2", 2 * b * 10 * 512, lambda: g3.T @ h2),
        ("dh2 = g3 @ W3", 2 * b * 10 * 512, lambda: g3 @ w3),
        ("dh1 = g2 @ W2", 2 * b * 512 * 512, lambda: g2 @ w2),
    ]


def flop_bound(repeats: int) -> dict:
    """Seconds of each of the step's matmuls (min over ``repeats`` calls) and their sum."""
    rows = []
    for name, flops, thunk in _step_matmuls(np.random.default_rng(0)):
        for _ in range(3):  # warm the BLAS code path and the caches
            thunk()
        best = float("inf")
        for _ in range(repeats):
            start = time.perf_counter()
            thunk()
            best = min(best, time.perf_counter() - start)
        rows.append({"name": name, "flops": flops, "seconds": best, "gflops": flops / best / 1e9})
    total = sum(r["seconds"] for r in rows)
    return {"matmuls": rows, "step_s": total, "step_flops": sum(r["flops"] for r in rows)}


def op_arrays() -> dict:
    """The operands of the op-overhead calls: two (64, 512) arrays, a (512, 512) one, a (1,) one."""
    rng = np.random.default_rng(0)
    return {
        "a": rng.standard_normal((64, 512), dtype=np.float32),
        "b": rng.standard_normal((64, 512), dtype=np.float32),
        "w": rng.standard_normal((512, 512), dtype=np.float32),
        "tiny": np.ones(1, np.float32),
    }


def op_thunks(arrays: dict) -> dict:
    """The op-overhead calls on numpy arrays: name -> thunk (the frameworks run the same ops)."""
    a, b, w, tiny = arrays["a"], arrays["b"], arrays["w"], arrays["tiny"]
    zero = np.float32(0)
    return {
        "add": lambda: a + b,
        "mul": lambda: a * b,
        "relu": lambda: np.maximum(a, zero),
        "sum": lambda: a.sum(),
        "matmul": lambda: a @ w,
        "tiny add (1,)": lambda: tiny + tiny,
    }
