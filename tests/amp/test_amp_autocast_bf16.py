"""CPU autocast against PyTorch: which ops run in the autocast dtype, which in float32, and a small
MLP's forward and backward (values, dtypes, gradients)."""
import numpy as np
import pytest

import tinytorch as tt

import _paths

from _oracle import torch  # noqa: E402  (PyTorch when a test reads it)
pytest.importorskip("ml_dtypes")


def name(d) -> str:
    return str(d).split(".")[-1]


def mlp(T):
    T.manual_seed(0)
    return T.nn.Sequential(T.nn.Linear(32, 64), T.nn.ReLU(), T.nn.Linear(64, 10))


@pytest.mark.parametrize("dtype", ["bfloat16", "float16"])
def test_mlp_forward_backward_matches_torch(dtype):
    mt, mr = mlp(tt), mlp(torch)
    for p, q in zip(mt.parameters(), mr.parameters()):
        p.data = tt.tensor(q.detach().numpy())
    torch.manual_seed(1)
    x, y = torch.randn(16, 32), torch.randint(0, 10, (16,))
    xt, yt = tt.tensor(x.numpy()), tt.tensor(y.numpy())
    with tt.autocast("cpu", dtype=getattr(tt, dtype)):
        assert tt.is_autocast_enabled("cpu") and tt.get_autocast_dtype("cpu") is getattr(tt, dtype)
        out_t = mt(xt)
        loss_t = tt.nn.functional.cross_entropy(out_t, yt)
    with torch.autocast("cpu", dtype=getattr(torch, dtype)):
        out_r = mr(x)
        loss_r = torch.nn.functional.cross_entropy(out_r, y)
    assert not tt.is_autocast_enabled("cpu")
    assert name(out_t.dtype) == name(out_r.dtype) == dtype
    assert name(loss_t.dtype) == name(loss_r.dtype) == "float32"
    assert out_t.grad_fn.name() == out_r.grad_fn.name()
    if dtype == "bfloat16":
        np.testing.assert_array_equal(out_t.detach().float().numpy(), out_r.detach().float().numpy())
    else:
        # half GEMMs: bit for bit where PyTorch's kernel sums in float32 and rounds once; on a CPU with
        # AVX512-FP16 and AMX (measured on a Xeon) 2 of 160 outputs lie 1 and 2 half ulps away
        _paths.assert_bits(out_t.detach().numpy(), out_r.detach().numpy(), ulps=2, exact_on=(),
                           what="float16 linear outputs")
    # Measured: float32 cross_entropy's mean differs by one float32 ulp from PyTorch's (also without
    # autocast: the reduction order), so the loss is compared to 2 ulp
    np.testing.assert_allclose(loss_t.item(), loss_r.item(), rtol=2 ** -22)
    loss_t.backward()
    loss_r.backward()
    # Measured: bfloat16 gradients are bit-exact; in half, 1 of 640 weight-gradient elements differs by
    # one half ulp (PyTorch's half GEMM sums in another order)
    rtol = 1e-6 if dtype == "bfloat16" else 2 ** -10
    for p, q in zip(mt.parameters(), mr.parameters()):
        assert p.grad.dtype is tt.float32
        np.testing.assert_allclose(p.grad.numpy(), q.grad.numpy(), rtol=rtol, atol=1e-7)


def test_op_lists_match_torch():
    cases = {
        "matmul": lambda T, a, b: a @ b,
        "mm": lambda T, a, b: T.mm(a, b),
        "bmm": lambda T, a, b: T.bmm(a[None], b[None]),
        "addmm": lambda T, a, b: T.addmm(a, a, b),
        "linear": lambda T, a, b: T.nn.functional.linear(a, b),
        "mse_loss": lambda T, a, b: T.nn.functional.mse_loss(a.bfloat16(), b.bfloat16()),
        "prod": lambda T, a, b: T.prod(a.bfloat16()),
        "softmax": lambda T, a, b: T.softmax(a, 1),
        "softmax_bf16": lambda T, a, b: T.softmax(a.bfloat16(), 1),
        "add": lambda T, a, b: a + b,
        "relu": lambda T, a, b: T.relu(a),
        "double_matmul": lambda T, a, b: a.double() @ b.double(),
    }
    g = torch.Generator().manual_seed(0)
    a, b = torch.randn(4, 4, generator=g), torch.randn(4, 4, generator=g)
    at, bt = tt.tensor(a.numpy()), tt.tensor(b.numpy())
    for key, f in cases.items():
        with torch.autocast("cpu"):
            want = f(torch, a, b)
        with tt.autocast("cpu"):
            got = f(tt, at, bt)
        assert name(got.dtype) == name(want.dtype), key
        if name(want.dtype) == "bfloat16":
            np.testing.assert_array_equal(got.float().numpy(), want.float().numpy(), err_msg=key)
        else:  # float32 softmax differs from PyTorch's by an ulp, with or without autocast
            np.testing.assert_allclose(got.numpy(), want.numpy(), rtol=1e-6, err_msg=key)


def test_leaving_autocast_restores_ops():
    matmul = tt.Tensor.matmul
    with tt.autocast("cpu"):
        assert (tt.ones(2, 2) @ tt.ones(2, 2)).dtype is tt.bfloat16
        with tt.autocast("cpu", enabled=False):
            assert (tt.ones(2, 2) @ tt.ones(2, 2)).dtype is tt.float32
        assert tt.mm(tt.ones(2, 2), tt.ones(2, 2)).dtype is tt.bfloat16
    assert tt.Tensor.matmul is matmul
    assert (tt.ones(2, 2) @ tt.ones(2, 2)).dtype is tt.float32
    assert tt.nn.functional.linear(tt.ones(2, 2), tt.ones(2, 2)).dtype is tt.float32
    with pytest.raises(ZeroDivisionError):
        with tt.autocast("cpu"):
            raise ZeroDivisionError
    assert tt.Tensor.matmul is matmul and not tt.is_autocast_enabled("cpu")

    @tt.autocast("cpu")
    def f(x):
        return x @ x
    assert f(tt.ones(2, 2)).dtype is tt.bfloat16 and (tt.ones(2, 2) @ tt.ones(2, 2)).dtype is tt.float32


def test_autocast_is_per_thread():
    # PyTorch keeps autocast state per thread: a thread without it computes in float32 meanwhile
    import threading
    x = tt.ones(2, 3)
    w = tt.ones(4, 3)
    entered, release = threading.Event(), threading.Event()
    seen = {}

    def in_autocast():
        with tt.autocast("cpu", dtype=tt.bfloat16):
            seen["inside"] = tt.nn.functional.linear(x, w).dtype
            entered.set()
            release.wait(10)

    t = threading.Thread(target=in_autocast)
    t.start()
    assert entered.wait(10)
    seen["other"] = tt.nn.functional.linear(x, w).dtype
    seen["other_matmul"] = (x @ w.t()).dtype
    release.set()
    t.join(10)
    assert seen == {"inside": tt.bfloat16, "other": tt.float32, "other_matmul": tt.float32}
    assert tt.nn.functional.linear(x, w).dtype == tt.float32  # uninstalled after the last thread left
