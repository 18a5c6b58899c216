"""Helpers shared by the layer tests: run one function under tinytorch and PyTorch and compare."""
import numpy as np

import tinytorch as tt

TOL = {np.float32: dict(rtol=2e-5, atol=2e-5), np.float64: dict(rtol=1e-10, atol=1e-10)}


def rand(shape, seed=0, dtype=np.float64):
    return np.random.default_rng(seed).standard_normal(shape).astype(dtype)


def compare(torch, fn, arrays, grad=True, seed=7, check_name=True):
    """fn(lib, *tensors) under both libraries: values, dtype, grad_fn name and input gradients agree.

    ``arrays`` holds numpy arrays (floating ones require grad) or other arguments passed as they are."""
    def make(lib):
        return [lib.tensor(a, requires_grad=grad and a.dtype.kind == "f") if isinstance(a, np.ndarray) else a
                for a in arrays]

    ours, theirs = make(tt), make(torch)
    y, ty = fn(tt, *ours), fn(torch, *theirs)
    out = ty.detach().numpy()
    tol = TOL.get(out.dtype.type, dict(rtol=0, atol=0))
    assert tuple(y.shape) == tuple(ty.shape)
    assert str(y.dtype).replace("tinytorch", "torch") == str(ty.dtype)
    np.testing.assert_allclose(y.detach().numpy(), out, **tol)
    if not grad or ty.grad_fn is None:
        return y, ty
    if check_name:
        assert y.grad_fn.name() == ty.grad_fn.name()
    g = np.random.default_rng(seed).standard_normal(out.shape).astype(out.dtype)
    y.backward(tt.tensor(g))
    ty.backward(torch.tensor(g))
    for a, ta in zip(ours, theirs):
        if hasattr(ta, "grad") and getattr(ta, "requires_grad", False):
            np.testing.assert_allclose(a.grad.numpy(), ta.grad.numpy(), **tol)
    return y, ty


def raises_like(torch, fn):
    """fn(lib) raises the same exception type and text under both libraries."""
    try:
        fn(torch)
    except Exception as e:  # noqa: BLE001
        expected = e
    else:
        raise AssertionError("PyTorch did not raise")
    try:
        fn(tt)
    except Exception as e:  # noqa: BLE001
        got = e
    else:
        raise AssertionError(f"tinytorch did not raise {type(expected).__name__}: {expected}")
    assert type(got) is type(expected), (got, expected)
    assert str(got).replace("tinytorch", "torch") == str(expected), (str(got), str(expected))
