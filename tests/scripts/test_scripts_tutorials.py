"""PyTorch's "Learn the Basics" code, run as a user would with ``import tinytorch as torch``.

Each snippet is written once against a module ``T`` and run with PyTorch and with tinytorch; what it
prints (reprs with ``tinytorch.`` spelt ``torch.``) must be the same. What PyTorch printed is stored beside
this file (``learn_the_basics_pytorch.json``, written by ``python tests/scripts/test_scripts_tutorials.py``), so
the comparison runs where PyTorch is not installed too; with PyTorch, the stored text is checked to be its own."""
import contextlib
import io
import json
import os
import sys

import numpy as np
import pytest

import tinytorch

STORED = os.path.join(os.path.dirname(os.path.abspath(__file__)), "learn_the_basics_pytorch.json")


def _run(snippet, T):
    buf = io.StringIO()
    with contextlib.redirect_stdout(buf):
        snippet(T)
    return buf.getvalue().replace("tinytorch.", "torch.")


def tensors_tutorial(T):
    data = [[1, 2], [3, 4]]
    x_data = T.tensor(data)
    x_np = T.from_numpy(np.array(data))
    print(x_data, x_np, T.ones_like(x_data), T.zeros((2, 3,)))
    tensor = T.ones(4, 4)
    print(f"First row: {tensor[0]}")
    print(f"First column: {tensor[:, 0]}")
    print(f"Last column: {tensor[..., -1]}")
    tensor[:, 1] = 0
    print(tensor, tensor.shape, tensor.dtype, tensor.device)
    print(T.cat([tensor, tensor, tensor], dim=1))
    y1 = tensor @ tensor.T
    y2 = tensor.matmul(tensor.T)
    y3 = T.rand_like(y1)
    T.matmul(tensor, tensor.T, out=y3)
    z1 = tensor * tensor
    z2 = tensor.mul(tensor)
    z3 = T.rand_like(tensor)
    T.mul(tensor, tensor, out=z3)
    print(y1, y2, y3, z1, z2, z3)
    agg = tensor.sum()
    agg_item = agg.item()
    print(agg_item, type(agg_item))
    print(f"{tensor} \n")
    tensor.add_(5)
    print(tensor)
    t = T.ones(5)
    n = t.numpy()
    t.add_(1)
    print(f"t: {t}", f"n: {n}")
    n = np.ones(5)
    t = T.from_numpy(n)
    np.add(n, 1, out=n)
    print(f"t: {t}", f"n: {n}")


def autograd_tutorial(T):
    x = T.ones(5)
    y = T.zeros(3)
    w = T.tensor(np.linspace(-1, 1, 15, dtype=np.float32).reshape(5, 3), requires_grad=True)
    b = T.tensor([0.1, -0.2, 0.3], requires_grad=True)
    z = T.matmul(x, w) + b
    loss = T.nn.functional.binary_cross_entropy_with_logits(z, y)
    print(f"Gradient function for z = {type(z.grad_fn).__name__}")
    print(f"Gradient function for loss = {type(loss.grad_fn).__name__}")
    loss.backward()
    print(w.grad, b.grad)
    print(z.requires_grad)
    with T.no_grad():
        z = T.matmul(x, w) + b
    print(z.requires_grad)
    print(z.detach().requires_grad)
    inp = T.eye(4, 5, requires_grad=True)
    out = (inp + 1).pow(2).t()
    out.backward(T.ones_like(out), retain_graph=True)
    print(f"First call\n{inp.grad}")
    out.backward(T.ones_like(out), retain_graph=True)
    print(f"\nSecond call\n{inp.grad}")
    inp.grad.zero_()
    out.backward(T.ones_like(out), retain_graph=True)
    print(f"\nCall after zeroing gradients\n{inp.grad}")


def model_tutorial(T):
    nn = T.nn
    T.manual_seed(0)

    class NeuralNetwork(nn.Module):
        def __init__(self):
            super().__init__()
            self.flatten = nn.Flatten()
            self.linear_relu_stack = nn.Sequential(
                nn.Linear(28 * 28, 512), nn.ReLU(), nn.Linear(512, 512), nn.ReLU(), nn.Linear(512, 10))

        def forward(self, x):
            return self.linear_relu_stack(self.flatten(x))

    device = T.accelerator.current_accelerator().type if T.accelerator.is_available() else "cpu"
    model = NeuralNetwork().to(device)
    print(model)
    with T.no_grad():  # same weights in both libraries, whatever their random streams
        for i, p in enumerate(model.parameters()):
            p.copy_(T.from_numpy(np.cos(np.arange(p.numel(), dtype=np.float32) + i).reshape(p.shape) / 30))
    X = T.from_numpy(np.linspace(0, 1, 784, dtype=np.float32).reshape(1, 28, 28))
    logits = model(X)
    pred_probab = nn.Softmax(dim=1)(logits)
    print(f"Predicted class: {pred_probab.argmax(1)}")
    for name, param in model.named_parameters():
        print(f"Layer: {name} | Size: {param.size()} | Values : {param[:2]} \n")
    flat = nn.Flatten()(T.ones(3, 28, 28))
    print(flat.size())
    print(nn.ReLU()(T.tensor([[-1.0, 0.5]])))


def transforms_tutorial(T):
    target = T.zeros(10, dtype=T.float).scatter_(0, T.tensor(3), value=1)
    print(target)


SNIPPETS = [tensors_tutorial, autograd_tutorial, model_tutorial, transforms_tutorial]


def _stored() -> dict:
    with open(STORED, encoding="utf-8") as f:
        return json.load(f)


@pytest.mark.parametrize("snippet", SNIPPETS)
def test_learn_the_basics_prints_what_pytorch_prints(snippet, torch):
    assert _run(snippet, tinytorch) == _run(snippet, torch) == _stored()[snippet.__name__]


@pytest.mark.parametrize("snippet", SNIPPETS)
def test_learn_the_basics_prints_what_pytorch_printed(snippet):
    # the stored text: the comparison for a machine without PyTorch
    assert _run(snippet, tinytorch) == _stored()[snippet.__name__]


def test_out_argument_refuses_autograd_and_resizes_like_pytorch(torch):
    for T in (torch, tinytorch):
        a = T.ones(2, requires_grad=True)
        with pytest.raises(RuntimeError, match="functions with out=... arguments don't support automatic"):
            T.mul(a, a, out=T.zeros(2))
        out = T.zeros(0)
        T.add(T.ones(3), 1, out=out)
        assert out.tolist() == [2.0, 2.0, 2.0]
        with pytest.raises(RuntimeError, match="result type Float can't be cast to the desired output type Long"):
            T.mul(T.ones(2), 1.5, out=T.zeros(2, dtype=T.long))


@pytest.mark.parametrize("case", ["src", "value", "2d"])
def test_scatter_values_gradients_and_nodes_match_pytorch(case, torch):
    def run(T):
        x = T.tensor([[1.0, 2.0, 3.0], [4.0, 5.0, 6.0]], requires_grad=True)
        # src shaped like index: PyTorch's own backward rejects a larger src
        if case == "src":
            src = T.tensor([[10.0, 20.0], [40.0, 50.0]], requires_grad=True)
            y = x.scatter(1, T.tensor([[2, 0], [1, 2]]), src)
        elif case == "value":
            src = T.tensor([0.0], requires_grad=True)
            y = x.scatter(0, T.tensor([[1, 0, 1]]), value=-1.0)
        else:
            src = T.tensor([[10.0, 20.0, 30.0]], requires_grad=True)
            y = (x * 1).scatter_(0, T.tensor([[1, 1, 0]]), src)
        (y * T.tensor([[1.0, 2.0, 3.0], [4.0, 5.0, 6.0]])).sum().backward()
        return (y.tolist(), type(y.grad_fn).__name__, x.grad.tolist(),
                None if src.grad is None else src.grad.tolist())

    assert run(tinytorch) == run(torch)


def test_scatter_first_and_second_derivatives_against_finite_differences():
    x = tinytorch.randn(2, 3, dtype=tinytorch.float64, requires_grad=True)
    src = tinytorch.randn(2, 2, dtype=tinytorch.float64, requires_grad=True)
    index = tinytorch.tensor([[2, 0], [1, 2]])

    def f(x, src):
        return x.scatter(1, index, src) * x

    assert tinytorch.autograd.gradcheck(f, (x, src))
    assert tinytorch.autograd.gradgradcheck(f, (x, src))


if __name__ == "__main__":
    import torch

    printed = {snippet.__name__: _run(snippet, torch) for snippet in SNIPPETS}
    with open(STORED, "w", encoding="utf-8") as f:
        json.dump(printed, f, indent=1)
        f.write("\n")
    print(f"wrote what PyTorch {torch.__version__} printed to {os.path.relpath(STORED)}", file=sys.stderr)
