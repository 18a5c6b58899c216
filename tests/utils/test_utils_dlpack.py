"""DLPack and array interchange: from_dlpack / __dlpack__ / __array__ / asarray / frombuffer share memory
with numpy and PyTorch both ways, as PyTorch's do; a module given a numpy array or a PyTorch tensor
raises PyTorch's TypeError."""
import warnings

import numpy as np
import pytest

import tinytorch
from tinytorch._numpy_compat import NUMPY2

from _oracle import torch  # noqa: E402  (PyTorch when a test reads it)


def test_pytorch_reads_tinytorch_memory_and_back():
    t = tinytorch.arange(6.0).reshape(2, 3)
    assert t.__dlpack_device__() == torch.arange(1.0).__dlpack_device__()
    p = torch.from_dlpack(t)
    assert p.dtype == torch.float32 and p.shape == (2, 3) and p.data_ptr() == t.data_ptr()
    p[0, 0] = 100.0  # written through PyTorch, seen by tinytorch
    assert t[0, 0].item() == 100.0
    t.mul_(2)  # written by tinytorch, seen by PyTorch
    assert p[1, 2].item() == 10.0
    back = tinytorch.from_dlpack(p)
    assert back.data_ptr() == t.data_ptr() and tinytorch.equal(back, t)
    # a non-contiguous view keeps its strides
    v = t.t()
    pv = torch.from_dlpack(v)
    assert pv.stride() == (1, 3) and torch.equal(pv, p.t())


def test_tinytorch_reads_pytorch_memory():
    for dtype in (torch.float32, torch.float64, torch.int64, torch.int32, torch.uint8, torch.bool):
        src = (torch.arange(12) % 3).to(dtype).reshape(3, 4)
        mine = tinytorch.from_dlpack(src)
        assert str(mine.dtype).split(".")[1] == str(dtype).split(".")[1]
        assert mine.data_ptr() == src.data_ptr() and mine.tolist() == src.tolist()
    src = torch.zeros(4)
    tinytorch.from_dlpack(src).add_(1)
    assert src.tolist() == [1.0] * 4
    tinytorch.from_dlpack(torch.zeros(3).__dlpack__())  # a bare capsule (the old protocol)
    assert tinytorch.from_dlpack(src.to_dlpack() if hasattr(src, "to_dlpack") else
                                 torch.utils.dlpack.to_dlpack(src)).data_ptr() == src.data_ptr()


def test_requires_grad_refuses_as_pytorch():
    with pytest.raises(BufferError) as theirs:
        torch.ones(2, requires_grad=True).__dlpack__()
    with pytest.raises(BufferError) as mine:
        torch.from_dlpack(tinytorch.ones(2, requires_grad=True))
    assert str(mine.value) == str(theirs.value)


def test_numpy_both_ways():
    t = tinytorch.arange(4.0)
    a = np.from_dlpack(t)
    t[1] = -2.0
    assert a[1] == -2.0
    if a.flags.writeable:  # numpy 1.x's np.from_dlpack gives read-only arrays (numpy's choice, not the tensor's)
        a[0] = -1.0
        assert t[0].item() == -1.0
    assert np.shares_memory(np.asarray(t), a)
    assert not np.shares_memory(np.array(t, copy=True), a)
    assert np.asarray(t, dtype=np.float64).dtype == np.float64
    # numpy 2's asarray(copy=False) asks __array__ for no copy; numpy 1.x has no such request (copy=False
    # there means "copy if needed"), so the protocol is also asked directly
    with pytest.raises(ValueError, match="Unable to avoid copy"):
        t.__array__(np.float64, copy=False)
    if NUMPY2:
        with pytest.raises(ValueError, match="Unable to avoid copy"):
            np.asarray(t, dtype=np.float64, copy=False)
    arr = np.arange(3.0)
    mine = tinytorch.from_dlpack(arr)
    mine[1] = 7.0
    assert arr[1] == 7.0 and mine.dtype == tinytorch.float64


def test_asarray_matches_pytorch():
    arr = np.arange(3.0)
    for lib in (torch, tinytorch):
        shared = lib.asarray(arr)
        assert str(shared.dtype).endswith("float64") and np.shares_memory(shared.numpy(), arr)
        assert not np.shares_memory(lib.asarray(arr, copy=True).numpy(), arr)
        t = lib.tensor([1.0, 2.0])
        assert lib.asarray(t) is t
        assert str(lib.asarray([1, 2.5]).dtype).endswith("float32") and lib.asarray(np.float32(3)).shape == ()
        assert lib.asarray(arr, dtype=lib.float32).tolist() == [0.0, 1.0, 2.0]
    for args, kwargs in [((arr,), dict(dtype="float32", copy=False)), (([1, 2],), dict(copy=False))]:
        with pytest.raises(ValueError) as theirs:
            torch.asarray(*args, **{k: getattr(torch, v) if k == "dtype" else v for k, v in kwargs.items()})
        with pytest.raises(ValueError) as mine:
            tinytorch.asarray(*args, **{k: getattr(tinytorch, v) if k == "dtype" else v for k, v in kwargs.items()})
        assert str(mine.value) == str(theirs.value)
    src = torch.arange(3.0)
    assert tinytorch.asarray(src).data_ptr() == src.data_ptr()  # through DLPack, no copy
    grad = tinytorch.asarray(arr, requires_grad=True)
    assert grad.requires_grad and grad.is_leaf


def test_frombuffer_matches_pytorch():
    buf = bytearray(np.arange(6, dtype=np.int32).tobytes())
    for value, lib in ((50, torch), (60, tinytorch)):
        t = lib.frombuffer(buf, dtype=lib.int32, count=3, offset=4)
        assert t.tolist()[1:] == [2, 3]
        t[0] = value
        assert np.frombuffer(buf, dtype=np.int32)[1] == value  # written into the buffer itself
    cases = [(bytearray(), {}), (bytearray(4), dict(offset=4)), (bytearray(4), dict(offset=-1)),
             (bytearray(4), dict(count=3, offset=2)), (bytearray(4), dict(count=0)),
             (bytearray(4), dict(dtype="int32", count=2)), (bytearray(5), dict(dtype="int32"))]
    for data, kw in cases:
        kw = {"dtype": "uint8", **kw}
        with pytest.raises(ValueError) as theirs:
            torch.frombuffer(data, **{**kw, "dtype": getattr(torch, kw["dtype"])})
        with pytest.raises(ValueError) as mine:
            tinytorch.frombuffer(data, **{**kw, "dtype": getattr(tinytorch, kw["dtype"])})
        assert str(mine.value) == str(theirs.value), kw
    with warnings.catch_warnings(record=True) as caught:
        warnings.simplefilter("always")
        assert tinytorch.frombuffer(b"ab", dtype=tinytorch.uint8).tolist() == [97, 98]
    assert not caught or "not writable" in str(caught[0].message)


@pytest.mark.parametrize("make, arg", [
    ("Linear(3, 2)", np.ones((2, 3), np.float32)), ("ReLU()", np.ones((2, 3), np.float32)),
    ("MaxPool2d(2)", np.ones((1, 1, 4, 4), np.float32)), ("LayerNorm(3)", np.ones((2, 3), np.float32)),
    ("Embedding(3, 2)", np.ones(2, np.int64)), ("Dropout()", np.ones(3, np.float32)),
    ("Sigmoid()", np.ones(3, np.float32)), ("GELU()", np.ones(3, np.float32)), ("LeakyReLU()", np.ones(3, np.float32)),
    ("Linear(3, 2)", [1.0, 2.0, 3.0]),
])
def test_module_given_a_numpy_array_raises_pytorchs_type_error(make, arg):
    with pytest.raises(TypeError) as theirs:
        eval(f"torch.nn.{make}")(arg)
    with pytest.raises(TypeError) as mine:
        eval(f"tinytorch.nn.{make}")(arg)
    assert str(mine.value) == str(theirs.value)


def test_module_given_a_pytorch_tensor_and_other_errors():
    model = tinytorch.nn.Sequential(tinytorch.nn.Flatten(0), tinytorch.nn.Linear(3, 2))
    with pytest.raises(TypeError, match=r"linear\(\): argument 'input' \(position 1\) must be Tensor, not torch.Tensor"):
        tinytorch.nn.Linear(3, 2)(torch.ones(2, 3))
    with pytest.raises(TypeError, match="must be Tensor, not numpy.ndarray"):
        tinytorch.nn.CrossEntropyLoss()(tinytorch.ones(2, 3), np.zeros(2, np.int64))

    class Broken(tinytorch.nn.Module):
        def forward(self, x):
            return x.no_such_attribute  # the user's own AttributeError stays as it is

    with pytest.raises(AttributeError, match="no_such_attribute"):
        Broken()(tinytorch.ones(1))
    assert model(tinytorch.ones(3)).shape == (2,)
