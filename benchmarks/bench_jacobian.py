"""Jacobians and forward-mode AD.

Jacobians: one vmap'ed pass (tinytorch.func.jacrev/jacfwd, autograd.functional.jacobian(vectorize=True))
against the element-by-element loop they fall back to, with PyTorch's figures beside them.

    python benchmarks/bench_jacobian.py [--n 100] [--repeat 5]

f(x) = tanh(W x) * sum(x) on R^n -> R^n (float64). Prints a Markdown table of the best of
``--repeat`` CPU times per call. One thread (set before numpy/torch are imported). Not part of the
test suite; it asserts only that every method gives the same Jacobian.

Forward mode: the tangent of a small MLP's loss (linear, relu, log_softmax, nll) under
``forward_ad.dual_level``, with the ops' own ``jvp`` rules against the generic rule they replace
(each node's backward differentiated once more, the double-backward trick)."""
from __future__ import annotations

import argparse
import os
import sys
import time

for _v in ("OMP_NUM_THREADS", "OPENBLAS_NUM_THREADS", "MKL_NUM_THREADS"):
    os.environ[_v] = "1"

import numpy as np  # noqa: E402

sys.path.insert(0, os.path.dirname(os.path.dirname(os.path.abspath(__file__))))  # this checkout's tinytorch


def _best(fn, repeat: int) -> float:
    best = float("inf")
    for _ in range(repeat):
        t0 = time.process_time()
        fn()
        best = min(best, time.process_time() - t0)
    return best


def main() -> None:
    ap = argparse.ArgumentParser()
    ap.add_argument("--n", type=int, default=100)
    ap.add_argument("--repeat", type=int, default=5)
    args = ap.parse_args()
    import tinytorch
    import tinytorch.func._vectorized as vec

    rng = np.random.default_rng(0)
    w_np, x_np = rng.standard_normal((args.n, args.n)) / args.n ** 0.5, rng.standard_normal(args.n)

    def fn(L, w):
        return lambda x: (x @ w.t()).tanh() * x.sum()

    w, x = tinytorch.tensor(w_np), tinytorch.tensor(x_np)
    f = fn(tinytorch, w)
    scalar = lambda x: (f(x) ** 2).sum()  # noqa: E731

    def looped(call):
        """The same call with the batched path switched off (as for a function vmap cannot batch)."""
        def run():
            orig = vec._run
            vec._run = lambda *a: (_ for _ in ()).throw(vec.VmapUnsupported("off"))
            try:
                return call()
            finally:
                vec._run = orig
        return run

    calls = {
        "func.jacrev": lambda: tinytorch.func.jacrev(f)(x),
        "func.jacfwd": lambda: tinytorch.func.jacfwd(f)(x),
        "func.hessian (of a scalar)": lambda: tinytorch.func.hessian(scalar)(x),
        "autograd.functional.jacobian(vectorize=True)":
            lambda: tinytorch.autograd.functional.jacobian(f, x, vectorize=True),
        "autograd.functional.hessian(vectorize=True)":
            lambda: tinytorch.autograd.functional.hessian(scalar, x, vectorize=True),
    }
    torch_calls = {}
    try:
        import torch
        torch.set_num_threads(1)
        tw, tx = torch.tensor(w_np), torch.tensor(x_np)
        tf = fn(torch, tw)
        tscalar = lambda x: (tf(x) ** 2).sum()  # noqa: E731
        torch_calls = {
            "func.jacrev": lambda: torch.func.jacrev(tf)(tx),
            "func.jacfwd": lambda: torch.func.jacfwd(tf)(tx),
            "func.hessian (of a scalar)": lambda: torch.func.hessian(tscalar)(tx),
            "autograd.functional.jacobian(vectorize=True)":
                lambda: torch.autograd.functional.jacobian(tf, tx, vectorize=True),
            "autograd.functional.hessian(vectorize=True)":
                lambda: torch.autograd.functional.hessian(tscalar, tx, vectorize=True),
        }
    except ImportError:
        pass

    print(f"f: R^{args.n} -> R^{args.n}, float64, best of {args.repeat} (CPU seconds per call)\n")
    print("| call | tinytorch loop | tinytorch vectorised | speed-up | PyTorch |")
    print("|---|---:|---:|---:|---:|")
    for name, call in calls.items():
        ref = call().numpy()
        np.testing.assert_allclose(looped(call)().numpy(), ref, rtol=1e-9, atol=1e-9)
        if name in torch_calls:
            np.testing.assert_allclose(torch_calls[name]().numpy(), ref, rtol=1e-9, atol=1e-9)
        t_loop = _best(looped(call), args.repeat)
        t_vec = _best(call, args.repeat)
        t_torch = _best(torch_calls[name], args.repeat) if name in torch_calls else float("nan")
        print(f"| {name} | {t_loop * 1e3:.1f} ms | {t_vec * 1e3:.1f} ms | {t_loop / t_vec:.1f}x | "
              f"{t_torch * 1e3:.1f} ms |")

    _forward_mode(args.repeat)


def _forward_mode(repeat: int) -> None:
    import tinytorch
    import tinytorch.autograd.forward_ad as fw
    F = tinytorch.nn.functional

    rng = np.random.default_rng(1)
    w1, w2 = tinytorch.tensor(rng.standard_normal((256, 784)) * 0.05), tinytorch.tensor(rng.standard_normal((10, 256)))
    b1, x = tinytorch.tensor(rng.standard_normal(256)), tinytorch.tensor(rng.standard_normal((64, 784)))
    target = tinytorch.tensor(rng.integers(0, 10, 64))
    tangent = tinytorch.tensor(rng.standard_normal((256, 784)))

    def run():
        with fw.dual_level():
            w = fw.make_dual(w1, tangent)
            h = F.relu(F.linear(x, w, b1))
            loss = F.cross_entropy(F.linear(h, w2), target)
            return fw.unpack_dual(loss).tangent.item()

    def generic():
        orig = fw._apply_rule

        def rule(node, ins):  # the explicit rules switched off: every node's tangent from its backward
            if type(node).__name__ in fw._RULES:
                return orig(node, ins)
            out = fw._double_backward_rule(node, ins)
            out = out if isinstance(out, tuple) else (out,)
            return tuple(fw._fit(t, m) for t, m in zip(out, fw._out_meta(node) or [None] * len(out)))
        fw._apply_rule = rule
        try:
            return run()
        finally:
            fw._apply_rule = orig

    assert abs(run() - generic()) <= 1e-9 * max(1.0, abs(run()))
    t_rules, t_generic = _best(run, repeat), _best(generic, repeat)
    print("\nforward_ad: tangent of an MLP loss (64x784 -> 256 -> 10, dual first weight), CPU seconds per call\n")
    print("| generic rule (double backward) | own jvp rules | speed-up |")
    print("|---:|---:|---:|")
    print(f"| {t_generic * 1e3:.1f} ms | {t_rules * 1e3:.1f} ms | {t_generic / t_rules:.1f}x |")


if __name__ == "__main__":
    main()
