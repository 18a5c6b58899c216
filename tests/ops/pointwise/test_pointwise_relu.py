"""relu against PyTorch: the same bits as PyTorch's relu and as ``np.maximum(0, x)`` (float32 through
numpy's clip ufunc; NaN payloads, -0.0, infinities) for contiguous, strided and 0-d inputs, every
dtype's values (bool refused), the backward with special values and the double backward."""
import numpy as np
import pytest

import tinytorch as tt

from _oracle import torch  # noqa: E402  (PyTorch when a test reads it)

_SPECIAL = [np.nan, -np.nan, -0.0, 0.0, -np.inf, np.inf, -1.5, 1.5, 1e-45, -1e-45, 3.4e38, -3.4e38]


def _inputs(dtype, n):
    rng = np.random.default_rng(0)
    x = np.array((_SPECIAL * (n // len(_SPECIAL) + 1))[:n], dtype)
    rng.shuffle(x)
    ints = np.int32 if dtype == np.float32 else np.int64
    payloads = [0x7FC00001, -0x3FFFFE, 0x7F800001] if dtype == np.float32 else [0x7FF8000000000001, -3, 0x7FF0000000000001]
    x[:3] = np.array(payloads, ints).view(dtype)
    return x, ints


@pytest.mark.bitexact
@pytest.mark.parametrize("dtype", [np.float32, np.float64])
@pytest.mark.parametrize("n", [12, 1000, 64 * 512])
def test_relu_bits_match_pytorch_and_maximum(dtype, n):
    x, ints = _inputs(dtype, n)
    for view in (lambda a: a, lambda a: a[::3], lambda a: a.reshape(-1, 4)[:, 1:3]):
        xs = view(x)
        got = tt.relu(tt.from_numpy(xs)).numpy()
        want = torch.relu(torch.from_numpy(np.ascontiguousarray(xs))).numpy()
        np.testing.assert_array_equal(got.view(ints), want.view(ints))
        np.testing.assert_array_equal(got.view(ints), np.maximum(np.zeros((), dtype), xs).view(ints))


@pytest.mark.bitexact
@pytest.mark.parametrize("value", [-0.0, 0.0, -2.0, 3.0, float("nan"), float("-inf")])
def test_relu_zero_dim_and_grad(value):
    a = tt.tensor(value, requires_grad=True)
    b = torch.tensor(value, requires_grad=True)
    ya, yb = tt.relu(a), torch.relu(b)
    assert ya.shape == () and ya.grad_fn.name() == yb.grad_fn.name()
    np.testing.assert_array_equal(np.array(ya.item()).view(np.int32 if False else np.int64),
                                  np.array(yb.item()).view(np.int64))
    ya.backward()
    yb.backward()
    assert a.grad.item() == b.grad.item()


@pytest.mark.bitexact
@pytest.mark.parametrize("dtype", [np.float32, np.float64, np.float16])
@pytest.mark.parametrize("n", [12, 1000])
def test_relu_backward_with_special_values_matches_pytorch(dtype, n):
    """A NaN output passes its gradient (PyTorch's ``x <= 0 ? 0 : grad``); masked inf/NaN gradients give +0.0."""
    x, _ = _inputs(np.float64, n)
    with np.errstate(all="ignore"):  # the specials overflow float16
        x = x.astype(dtype)
        g = np.random.default_rng(2).permutation(np.array((_SPECIAL * (n // len(_SPECIAL) + 1))[:n], dtype))
    a, b = tt.tensor(x, requires_grad=True), torch.tensor(x, requires_grad=True)
    tt.relu(a).backward(tt.tensor(g))
    torch.relu(b).backward(torch.tensor(g))
    got, want = a.grad.numpy(), b.grad.numpy()
    ints = {2: np.int16, 4: np.int32, 8: np.int64}[got.itemsize]
    # NaN payloads aside (numpy and PyTorch may quiet them differently), the same bits
    nan = np.isnan(want)
    np.testing.assert_array_equal(np.isnan(got), nan)
    np.testing.assert_array_equal(got.view(ints)[~nan], want.view(ints)[~nan])


@pytest.mark.bitexact
def test_relu_double_backward_with_nan_output_matches_pytorch():
    got = []
    for lib in (tt, torch):
        x = lib.tensor([float("nan"), -1.0, 2.0], requires_grad=True)
        (g,) = lib.autograd.grad(lib.relu(x).sum(), x, create_graph=True)
        g2 = g * lib.tensor([1.0, 2.0, 3.0])
        g2.sum().backward()
        got.append((g.detach().numpy().tolist(), g2.grad_fn.name()))
    assert got[0] == got[1]


DTYPES = ["float16", "float32", "float64", "int32", "int64", "bool"]


@pytest.mark.parametrize("dtype", DTYPES)
def test_relu_values_and_dtype(dtype):
    x = np.array([-1.5, -0.0, 0.0, 2.0, np.nan, -np.inf, np.inf, 3.0]) if dtype.startswith("float") else \
        np.array([-2, 0, 1, 3, 0, 1, -7, 5])
    x = x.astype(dtype)
    got = tt.from_numpy(x.copy()).relu()
    want = torch.from_numpy(x.copy()).relu() if dtype != "bool" else None
    if want is None:
        with pytest.raises(RuntimeError):
            torch.from_numpy(x.copy()).relu()
        return
    assert str(got.dtype) == str(want.dtype).replace("torch.", "tinytorch.")
    np.testing.assert_array_equal(got.numpy(), want.numpy())
    assert np.array_equal(np.signbit(got.numpy()), np.signbit(want.numpy()))
