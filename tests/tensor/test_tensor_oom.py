"""Memory: a failed allocation is PyTorch's RuntimeError naming the bytes, not numpy's MemoryError; the
allocator tuning done at import (``tinytorch._malloc``) is harmless and ``TINYTORCH_NO_MALLOPT`` turns it off.

Each case runs under an address-space cap in a child process, so nothing here can take the machine's
memory (an allocation past the cap fails at once)."""
import subprocess
import sys
import textwrap

import pytest

import tinytorch
from tinytorch._malloc import tune_malloc

resource = pytest.importorskip("resource")

CHILD = textwrap.dedent('''
    import resource, sys
    import tinytorch as torch
    from tinytorch import nn

    x = torch.ones(100_000, requires_grad=True)
    resource.setrlimit(resource.RLIMIT_AS, (3 << 30, 3 << 30))
    case = sys.argv[1]
    try:
        if case == "module":
            class Outer(nn.Module):
                def forward(self, v):
                    return v[:, None] * v[None, :]  # 100000 x 100000 float32: 40 GB
            Outer()(x)
        elif case == "backward":
            class Widen(torch.autograd.Function):
                @staticmethod
                def forward(ctx, v):
                    return v * 1

                @staticmethod
                def backward(ctx, g):
                    return (g.expand(60_000, 100_000) * 2).sum(0)  # 60000 x 100000 float32: 24 GB
            Widen.apply(x).sum().backward()
        elif case == "factory":
            torch.zeros(10**12)
    except RuntimeError as e:
        print(e)
''')

EXPECTED = {
    "module": 40_000_000_000,
    "backward": 24_000_000_000,
    "factory": 4_000_000_000_000,
}


@pytest.mark.parametrize("case", list(EXPECTED))
def test_failed_allocation_is_pytorchs_runtime_error(case):
    done = subprocess.run([sys.executable, "-c", CHILD, case], capture_output=True, text=True, timeout=120)
    assert done.returncode == 0, done.stderr[-2000:]
    assert done.stdout.strip() == (
        "[enforce fail at alloc_cpu.cpp:127] err == 0. DefaultCPUAllocator: can't allocate memory: you tried "
        f"to allocate {EXPECTED[case]} bytes. Error code 12 (Cannot allocate memory)")


def test_tune_malloc_is_harmless(monkeypatch):
    assert tune_malloc() in (True, False)
    assert float(tinytorch.ones(1 << 20).sum()) == float(1 << 20)
    monkeypatch.setenv("TINYTORCH_NO_MALLOPT", "1")
    assert tune_malloc() is False  # the opt-out for programs that tune malloc themselves


# The torch-level functions (factories and ops alike) and methods inside a module's forward: PyTorch's
# RuntimeError naming the bytes of the result it could not allocate, under the same address-space cap.
OPS_CHILD = textwrap.dedent('''
    import importlib, resource, sys
    torch = importlib.import_module(sys.argv[1])
    x = torch.ones(100_000)
    xi = torch.ones(100_000, dtype=torch.int64)
    m = torch.ones(100_000, 1)

    class Forward(torch.nn.Module):
        def __init__(self, fn):
            super().__init__()
            self.fn = fn

        def forward(self):
            return self.fn()

    cases = {
        "arange": lambda: torch.arange(10**12),
        "arange_float": lambda: torch.arange(0, 10**11, 0.5),  # numpy's float64 steps: twice the result's bytes
        "linspace": lambda: torch.linspace(0, 1, 10**12),
        "randn": lambda: torch.randn(10**11),
        "add_broadcast": lambda: torch.add(x[:, None], x[None, :]),
        "mul_int_broadcast": lambda: torch.mul(xi[:, None], xi[None, :]),
        "matmul": lambda: torch.matmul(m, m.T),
        "mm": lambda: torch.mm(m, m.T),
        "outer": lambda: torch.outer(x, x),
        "exp": lambda: torch.exp(x.expand(100_000, 100_000)),
        "cat": lambda: torch.cat([x.expand(50_000, 100_000), x.expand(50_000, 100_000)]),
        "zeros_like": lambda: torch.zeros_like(x.expand(100_000, 100_000)),
        "module_matmul_operator": lambda: Forward(lambda: m @ m.T)(),
        "module_broadcast_operator": lambda: Forward(lambda: x[:, None] * x[None, :])(),
        "module_repeat_method": lambda: Forward(lambda: x.repeat(100_000))(),
    }
    resource.setrlimit(resource.RLIMIT_AS, (4 << 30, 4 << 30))
    try:
        cases[sys.argv[2]]()
        print("no error")
    except Exception as e:
        print(type(e).__name__, str(e))
''')
OPS = ["arange", "arange_float", "linspace", "randn", "add_broadcast", "mul_int_broadcast", "matmul", "mm", "outer",
       "exp", "cat", "zeros_like", "module_matmul_operator", "module_broadcast_operator", "module_repeat_method"]


@pytest.mark.parametrize("case", OPS)
def test_failed_allocation_in_an_op_is_pytorchs_runtime_error(case):
    pytest.importorskip("torch")
    said = {}
    for lib in ("torch", "tinytorch"):
        done = subprocess.run([sys.executable, "-c", OPS_CHILD, lib, case], capture_output=True, text=True,
                              timeout=120)
        assert done.returncode == 0, done.stderr[-2000:]
        said[lib] = done.stdout.strip()
    assert said["torch"].startswith("RuntimeError [enforce fail at alloc_cpu.cpp")
    assert said["tinytorch"] == said["torch"]
