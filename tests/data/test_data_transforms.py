"""ToTensor, Normalize, Compose, Lambda: values vs PyTorch ops; reprs and errors as torchvision."""

import numpy as np
import pytest

import tinytorch
from tinytorch.data import transforms
from tinytorch.data.transforms import ImageBatch


def _error(fn):
    try:
        fn()
    except Exception as e:  # noqa: BLE001 - the type is what is compared
        return type(e), str(e)
    return None


RNG = np.random.default_rng(0)
HW = RNG.integers(0, 256, size=(5, 7), dtype=np.uint8)
HWC = RNG.integers(0, 256, size=(5, 7, 3), dtype=np.uint8)


def test_to_tensor_uint8_arrays_scaled_like_torchvision(torch):
    for arr in (HW, HWC):
        chw = arr[:, :, None] if arr.ndim == 2 else arr
        # torchvision: from_numpy(pic.transpose(2, 0, 1)).contiguous().to(float32).div(255)
        expected = (
            torch.from_numpy(np.ascontiguousarray(chw.transpose(2, 0, 1)))
            .to(torch.float32)
            .div(255)
        )
        got = transforms.ToTensor()(arr)
        assert got.dtype == tinytorch.float32 and tuple(got.shape) == tuple(expected.shape)
        np.testing.assert_array_equal(got.numpy(), expected.numpy())


def test_to_tensor_keeps_other_dtypes_unscaled():
    floats = RNG.random((4, 4, 2))
    got = transforms.ToTensor()(floats)
    assert got.dtype == tinytorch.float64
    np.testing.assert_array_equal(got.numpy(), floats.transpose(2, 0, 1))
    ints = np.arange(6, dtype=np.int16).reshape(2, 3)
    assert transforms.ToTensor()(ints).tolist() == [ints.tolist()]


def test_to_tensor_from_pil_modes():
    Image = pytest.importorskip("PIL.Image")
    for arr in (HW, HWC):
        got = transforms.ToTensor()(Image.fromarray(arr))
        chw = arr[None] if arr.ndim == 2 else arr.transpose(2, 0, 1)
        np.testing.assert_array_equal(got.numpy(), chw.astype(np.float32) / np.float32(255))
    bits = Image.fromarray(HW > 128).convert("1")
    np.testing.assert_array_equal(
        transforms.ToTensor()(bits).numpy()[0], (HW > 128).astype(np.float32)
    )
    floats = Image.fromarray(HW.astype(np.float32) * 3.5)
    got = transforms.ToTensor()(floats)
    assert got.dtype == tinytorch.float32
    np.testing.assert_array_equal(got.numpy()[0], HW.astype(np.float32) * 3.5)


def test_to_tensor_errors():
    assert _error(lambda: transforms.ToTensor()([[1, 2]])) == (
        TypeError,
        "pic should be PIL Image or ndarray. Got <class 'list'>",
    )
    assert _error(lambda: transforms.ToTensor()(np.zeros((1, 2, 3, 4)))) == (
        ValueError,
        "pic should be 2/3 dimensional. Got 4 dimensions.",
    )


def _torch_normalize(torch, arr, mean, std):
    t = torch.from_numpy(arr.copy())
    return t.sub_(torch.as_tensor(mean, dtype=t.dtype).view(-1, 1, 1)).div_(
        torch.as_tensor(std, dtype=t.dtype).view(-1, 1, 1)
    )


def test_normalize_matches_torch_bitwise(torch):
    x = RNG.random((3, 4, 5), dtype=np.float32)
    mean, std = (0.485, 0.456, 0.406), (0.229, 0.224, 0.225)
    got = transforms.Normalize(mean, std)(tinytorch.from_numpy(x.copy()))
    np.testing.assert_array_equal(got.numpy(), _torch_normalize(torch, x, mean, std).numpy())
    batch = RNG.random((2, 3, 4, 5), dtype=np.float32)
    got = transforms.Normalize(mean, std)(tinytorch.from_numpy(batch))
    np.testing.assert_array_equal(got.numpy(), _torch_normalize(torch, batch, mean, std).numpy())


def test_normalize_inplace_and_copy():
    x = np.ones((1, 2, 2), dtype=np.float32)
    t = tinytorch.from_numpy(x)
    out = transforms.Normalize((0.5,), (0.25,))(t)
    assert out is not t and x[0, 0, 0] == 1.0 and out.numpy()[0, 0, 0] == 2.0
    out = transforms.Normalize((0.5,), (0.25,), inplace=True)(t)
    assert out is t and x[0, 0, 0] == 2.0


def test_normalize_errors(torch):
    norm = transforms.Normalize((0.5,), (0.5,))
    assert _error(lambda: norm(np.zeros((1, 2, 2)))) == (
        TypeError,
        "img should be Tensor Image. Got <class 'numpy.ndarray'>",
    )
    assert _error(lambda: norm(tinytorch.from_numpy(np.zeros((1, 2, 2), np.uint8)))) == (
        TypeError,
        "Input tensor should be a float tensor. Got tinytorch.uint8.",
    )
    assert _error(lambda: norm(tinytorch.from_numpy(np.zeros((2, 2), np.float32)))) == (
        ValueError,
        "Expected tensor to be a tensor image of size (..., C, H, W). Got tensor.size() = "
        "tinytorch.Size([2, 2])",
    )
    zero_std = transforms.Normalize((0.5,), (0.0,))
    assert _error(lambda: zero_std(tinytorch.from_numpy(np.zeros((1, 2, 2), np.float32)))) == (
        ValueError,
        "std evaluated to zero after conversion to tinytorch.float32, leading to division by zero.",
    )
    # shape clashes: PyTorch's broadcasting messages
    for shape, mean in (
        ((1, 4, 4), (0.1, 0.2, 0.3)),
        ((3, 4, 4), (0.1, 0.2)),
        ((2, 3, 4, 4), (0.1, 0.2)),
    ):
        x, std = np.zeros(shape, np.float32), (1.0,) * len(mean)
        norm = transforms.Normalize(mean, std)
        ours = _error(lambda norm=norm, x=x: norm(tinytorch.from_numpy(x)))
        theirs = _error(lambda x=x, mean=mean, std=std: _torch_normalize(torch, x, mean, std))
        assert ours == theirs


def test_lambda_and_compose():
    double = transforms.Lambda(lambda x: x * 2)
    assert transforms.Compose([double, transforms.Lambda(lambda x: x + 1)])(3) == 7
    assert _error(lambda: transforms.Lambda(5)) == (
        TypeError,
        "Argument lambd should be callable, got 'int'",
    )


def test_reprs_like_torchvision():
    chain = transforms.Compose(
        [transforms.ToTensor(), transforms.Normalize((0.1307,), (0.3081,)), transforms.Lambda(abs)]
    )
    assert repr(chain) == (
        "Compose(\n    ToTensor()\n    Normalize(mean=(0.1307,), std=(0.3081,))\n    Lambda()\n)"
    )
    assert (
        repr(transforms.Normalize([0.5, 0.5], [1, 2])) == "Normalize(mean=[0.5, 0.5], std=[1, 2])"
    )


def test_batched_chain_equals_stacked_per_image_calls():
    images = RNG.integers(0, 256, size=(6, 5, 7), dtype=np.uint8)
    chain = transforms.Compose([transforms.ToTensor(), transforms.Normalize((0.3,), (0.7,))])
    batched = chain._batch(ImageBatch(images))
    per_image = np.stack([chain(img).numpy() for img in images])
    assert batched.dtype == tinytorch.float32
    np.testing.assert_array_equal(batched.numpy(), per_image)


def test_chains_that_cannot_batch_say_so():
    images = ImageBatch(np.zeros((2, 3, 3), np.uint8))
    assert (
        transforms.Compose([transforms.ToTensor(), transforms.Lambda(abs)])._batch(images)
        is NotImplemented
    )
    # Normalize first would fail per image (a PIL image is no tensor): the batch must not hide that
    assert (
        transforms.Compose([transforms.Normalize((0.5,), (0.5,))])._batch(images) is NotImplemented
    )
