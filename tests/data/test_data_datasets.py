"""MNIST/FashionMNIST: the shared real subset, batched vs per-sample paths, strict IDX checks."""

import gzip
import os
import struct

import numpy as np
import pytest
from conftest import data_root

import tinytorch
from tinytorch.data import DataLoader, datasets, default_collate, transforms
from tinytorch.data.datasets import mnist as mnist_module

RAW = os.path.join(data_root(), "FashionMNIST", "raw")
needs_shared = pytest.mark.skipif(
    not os.path.isdir(RAW), reason="shared FashionMNIST subset missing"
)


def _read_gz(name, header):
    with gzip.open(os.path.join(RAW, name)) as f:
        return np.frombuffer(f.read(), dtype=np.uint8, offset=header)


def _normalized():
    return transforms.Compose([transforms.ToTensor(), transforms.Normalize((0.2860,), (0.3530,))])


@needs_shared
def test_shared_subset_against_numpy():
    train = datasets.FashionMNIST(data_root(), train=True)
    test = datasets.FashionMNIST(data_root(), train=False)
    assert len(train) == 8192 and len(test) == 4096
    images = _read_gz("train-images-idx3-ubyte.gz", 16).reshape(-1, 28, 28)
    labels = _read_gz("train-labels-idx1-ubyte.gz", 8)
    assert train.data.dtype == tinytorch.uint8 and tuple(train.data.shape) == (8192, 28, 28)
    assert train.targets.dtype == tinytorch.int64
    assert int(train.targets[0]) == int(labels[0])
    assert int(train.data._data[0].sum()) == int(images[0].sum())
    np.testing.assert_array_equal(train.data.numpy(), images)
    np.testing.assert_array_equal(train.targets.numpy(), labels)
    assert train.classes[0] == "T-shirt/top" and train.class_to_idx["Ankle boot"] == 9
    assert train.root == data_root() and train.train and not test.train


@needs_shared
def test_getitem_gives_a_pil_image_and_an_int():
    Image = pytest.importorskip("PIL.Image")
    ds = datasets.FashionMNIST(data_root())
    img, target = ds[3]
    assert isinstance(img, Image.Image) and img.mode == "L" and img.size == (28, 28)
    assert type(target) is int and target == int(ds.targets[3])
    np.testing.assert_array_equal(np.array(img), ds.data.numpy()[3])


@needs_shared
def test_without_pil_getitem_gives_the_uint8_array(monkeypatch):
    monkeypatch.setattr(mnist_module, "_PIL_IMAGE", False)
    ds = datasets.FashionMNIST(data_root())
    img, _ = ds[5]
    assert isinstance(img, np.ndarray) and img.dtype == np.uint8
    np.testing.assert_array_equal(img, ds.data.numpy()[5])
    img[:] = 0  # a copy: the dataset keeps its pixels
    assert ds.data.numpy()[5].any()


@needs_shared
@pytest.mark.parametrize("pil", [True, False])
def test_batched_path_equals_per_sample_path(monkeypatch, pil):
    if not pil:
        monkeypatch.setattr(mnist_module, "_PIL_IMAGE", False)
    elif mnist_module._pil_image_module() is False:
        pytest.skip("PIL not installed")
    ds = datasets.FashionMNIST(data_root(), transform=_normalized())
    indices = [5, 0, 8191, 17, 17, 4000]
    samples = ds.__getitems__(indices)
    assert samples._collated is not None  # the batched path was taken
    per_sample = [ds[i] for i in indices]
    assert len(samples) == len(per_sample)
    for (img, t), (img2, t2) in zip(samples, per_sample):
        assert t == t2 and type(t) is int
        np.testing.assert_array_equal(img.numpy(), img2.numpy())
    fast, slow = default_collate(samples), default_collate(per_sample)
    assert isinstance(fast, list) and fast[0].dtype == slow[0].dtype == tinytorch.float32
    assert fast[1].dtype == slow[1].dtype == tinytorch.int64
    np.testing.assert_array_equal(fast[0].numpy(), slow[0].numpy())
    np.testing.assert_array_equal(fast[1].numpy(), slow[1].numpy())


@needs_shared
def test_loader_batches_identical_with_and_without_batched_transform():
    fast = datasets.FashionMNIST(data_root(), transform=_normalized())
    # a Lambda makes the chain unbatchable: every sample goes through __getitem__
    slow = datasets.FashionMNIST(
        data_root(),
        transform=transforms.Compose(
            [
                transforms.ToTensor(),
                transforms.Lambda(lambda x: x),
                transforms.Normalize((0.2860,), (0.3530,)),
            ]
        ),
    )
    assert type(slow.__getitems__([0, 1])) is list
    loaders = [
        DataLoader(ds, batch_size=100, shuffle=True, generator=tinytorch.Generator().manual_seed(4))
        for ds in (fast, slow)
    ]
    for (x1, y1), (x2, y2) in zip(*loaders):
        np.testing.assert_array_equal(x1.numpy(), x2.numpy())
        np.testing.assert_array_equal(y1.numpy(), y2.numpy())
    assert len(loaders[0]) == 82


@needs_shared
def test_custom_collate_sees_plain_samples_and_mutation_drops_the_stack():
    ds = datasets.FashionMNIST(data_root(), transform=transforms.ToTensor())
    seen = []
    loader = DataLoader(ds, batch_size=4, collate_fn=lambda batch: seen.append(batch) or len(batch))
    next(iter(loader))
    batch = seen[0]
    assert isinstance(batch, list) and len(batch) == 4
    img, target = batch[1]
    assert tuple(img.shape) == (1, 28, 28) and type(target) is int
    batch.pop()  # a changed list must collate from what it now holds
    out = default_collate(batch)
    assert (
        tuple(out[0].shape) == (3, 1, 28, 28) and out[1].tolist() == ds.targets.numpy()[:3].tolist()
    )


@needs_shared
def test_target_transform_and_repr():
    ds = datasets.FashionMNIST(
        data_root(),
        train=False,
        transform=_normalized(),
        target_transform=transforms.Lambda(lambda t: t + 100),
    )
    assert ds[0][1] == int(ds.targets[0]) + 100
    x, y = next(iter(DataLoader(ds, batch_size=3)))
    assert y.tolist() == [t + 100 for t in ds.targets.numpy()[:3].tolist()]
    assert repr(ds) == (
        "Dataset FashionMNIST\n"
        "    Number of datapoints: 4096\n"
        f"    Root location: {data_root()}\n"
        "    Split: Test\n"
        "    StandardTransform\n"
        "Transform: Compose(\n"
        "               ToTensor()\n"
        "               Normalize(mean=(0.286,), std=(0.353,))\n"
        "           )\n"
        "Target transform: Lambda()"
    )
    plain = datasets.FashionMNIST(data_root())
    assert repr(plain) == (
        "Dataset FashionMNIST\n    Number of datapoints: 8192\n"
        f"    Root location: {data_root()}\n    Split: Train"
    )


def test_missing_dataset(tmp_path):
    with pytest.raises(RuntimeError) as info:
        datasets.FashionMNIST(str(tmp_path), download=False)
    assert str(info.value) == "Dataset not found. You can use download=True to download it"


# -- strict IDX validation on small generated files ----------------------------------------------


def idx_bytes(array, code=0x08, ndim=None, dims=None):
    ndim = array.ndim if ndim is None else ndim
    dims = array.shape if dims is None else dims
    return (
        bytes([0, 0, code, ndim]) + b"".join(struct.pack(">i", d) for d in dims) + array.tobytes()
    )


def make_mnist(root, images=None, labels=None, gz=True, cls="MNIST", prefix="train"):
    """Write a small valid (unless told otherwise) split; returns (images array, labels array)."""
    rng = np.random.default_rng(1)
    arr = rng.integers(0, 256, size=(5, 28, 28), dtype=np.uint8)
    lab = np.array([3, 1, 4, 1, 5], dtype=np.uint8)
    raw = os.path.join(root, cls, "raw")
    os.makedirs(raw, exist_ok=True)
    for name, content in (
        (f"{prefix}-images-idx3-ubyte", idx_bytes(arr) if images is None else images),
        (f"{prefix}-labels-idx1-ubyte", idx_bytes(lab) if labels is None else labels),
    ):
        path = os.path.join(raw, name)
        if gz:
            with gzip.open(path + ".gz", "wb") as f:
                f.write(content)
        else:
            with open(path, "wb") as f:
                f.write(content)
    return arr, lab


IMG = np.zeros((5, 28, 28), np.uint8)
LAB = np.zeros(5, np.uint8)
CORRUPT = {
    "bad magic": (dict(images=b"\x08\x03" + idx_bytes(IMG)[2:]), "images", "magic number"),
    "too short for magic": (dict(images=b"\x00\x00"), "images", "magic number"),
    "dtype code": (dict(images=idx_bytes(IMG, code=0x0C)), "images", "dtype code 0x0C"),
    "image ndim": (
        dict(images=idx_bytes(IMG.reshape(5, 784))),
        "images",
        "number of dimensions is 2",
    ),
    "label ndim": (
        dict(labels=idx_bytes(LAB.reshape(5, 1))),
        "labels",
        "number of dimensions is 2",
    ),
    "dims": (dict(images=idx_bytes(np.zeros((5, 27, 28), np.uint8))), "images", "dims are 27x28"),
    "header cut": (dict(images=idx_bytes(IMG)[:10]), "images", "header"),
    "negative count": (dict(images=idx_bytes(IMG, dims=(-5, 28, 28))), "images", "count -5"),
    "short payload": (dict(images=idx_bytes(IMG)[:-1]), "images", "truncated"),
    # a .gz stops inflating at the first byte past the header's size, so it cannot count them
    "trailing bytes": (dict(images=idx_bytes(IMG) + b"\x00\x00"), "images", "trailing bytes"),
    "label count": (dict(labels=idx_bytes(np.zeros(4, np.uint8))), "labels", "label count 4"),
    "label range": (
        dict(labels=idx_bytes(np.array([0, 1, 10, 2, 3], np.uint8))),
        "labels",
        "label value 10 at index 2",
    ),
}


@pytest.mark.parametrize("gz", [True, False], ids=["gz", "raw"])
@pytest.mark.parametrize("case", list(CORRUPT))
def test_corrupt_idx_names_file_and_field(tmp_path, case, gz):
    kwargs, which, field = CORRUPT[case]
    make_mnist(str(tmp_path), gz=gz, **kwargs)
    with pytest.raises(ValueError) as info:
        datasets.MNIST(str(tmp_path))
    message = str(info.value)
    assert f"train-{which}-idx" in message and field in message


def test_valid_generated_files_load_from_gz_and_raw(tmp_path):
    for gz, sub in ((True, "a"), (False, "b")):
        arr, lab = make_mnist(str(tmp_path / sub), gz=gz, prefix="t10k")
        ds = datasets.MNIST(str(tmp_path / sub), train=False)
        np.testing.assert_array_equal(ds.data.numpy(), arr)
        assert ds.targets.tolist() == lab.tolist() and ds[2][1] == 4


def test_corrupt_gzip_stream(tmp_path):
    make_mnist(str(tmp_path))
    path = tmp_path / "MNIST" / "raw" / "train-images-idx3-ubyte.gz"
    path.write_bytes(path.read_bytes()[:-30])
    with pytest.raises(
        ValueError, match="train-images-idx3-ubyte.gz: gzip stream is corrupt or truncated"
    ):
        datasets.MNIST(str(tmp_path))


def test_partial_extraction_falls_back_to_the_gz(tmp_path):
    arr, _ = make_mnist(str(tmp_path))
    raw = tmp_path / "MNIST" / "raw" / "train-images-idx3-ubyte"
    raw.write_bytes(idx_bytes(arr)[:3000])  # an extraction interrupted part way
    ds = datasets.MNIST(str(tmp_path))
    np.testing.assert_array_equal(ds.data.numpy(), arr)
    (tmp_path / "MNIST" / "raw" / "train-images-idx3-ubyte.gz").unlink()
    with pytest.raises(ValueError, match="train-images-idx3-ubyte: payload is .* truncated"):
        datasets.MNIST(str(tmp_path))


def test_gzip_bomb_stops_inflating_at_the_size_its_header_gives(tmp_path):
    # a small .gz inflated to hundreds of MB before the size check failed
    import gzip
    import tracemalloc

    make_mnist(str(tmp_path))
    raw = os.path.join(str(tmp_path), "MNIST", "raw", "train-images-idx3-ubyte.gz")
    header = idx_bytes(IMG)[:16]
    with gzip.open(raw, "wb", compresslevel=9) as f:  # ~60 KB that inflates to 64 MB
        f.write(header + bytes(5 * 28 * 28))
        for _ in range(64):
            f.write(bytes(1 << 20))
    assert os.path.getsize(raw) < 200_000
    tracemalloc.start()
    try:
        with pytest.raises(ValueError) as info:
            datasets.MNIST(str(tmp_path))
        peak = tracemalloc.get_traced_memory()[1]
    finally:
        tracemalloc.stop()
    assert "train-images-idx3-ubyte.gz" in str(info.value) and "inflates past" in str(info.value)
    assert peak < 5_000_000  # the header's 3936 bytes and one byte more, not 64 MB


@pytest.mark.parametrize("header,says", [
    (bytes([0, 0, 8, 3]) + struct.pack(">3i", 5000, 81, 81), "dims are 81x81; expected 28x28"),
    (bytes([0, 0, 0x0D, 3]) + struct.pack(">3i", 5000, 28, 28), "dtype code 0x0D (float32)"),
    (bytes([0, 0, 8, 4]) + struct.pack(">4i", 5000, 28, 28, 8), "number of dimensions is 4; expected 3"),
])
def test_gzip_bomb_with_a_wrong_header_is_refused_before_inflating(tmp_path, header, says):
    # a header that fails only the checks made on the whole file: before, its 32 MB were inflated first
    import tracemalloc

    make_mnist(str(tmp_path))
    path = os.path.join(str(tmp_path), "MNIST", "raw", "train-images-idx3-ubyte.gz")
    with gzip.open(path, "wb", compresslevel=9) as f:
        f.write(header)
        for _ in range(32):
            f.write(bytes(1 << 20))
    assert os.path.getsize(path) < 100_000
    tracemalloc.start()
    try:
        with pytest.raises(ValueError) as info:
            datasets.MNIST(str(tmp_path))
        peak = tracemalloc.get_traced_memory()[1]
    finally:
        tracemalloc.stop()
    assert str(info.value).startswith(path) and says in str(info.value)
    assert peak < 2_000_000


def test_raw_file_of_the_wrong_size_is_refused_before_reading(tmp_path):
    # an extracted file whose length the header does not describe is refused from its size alone (before,
    # its 64 MB were read first); a sparse file, so the test writes nothing to disk
    import tracemalloc

    arr, _ = make_mnist(str(tmp_path))
    raw = tmp_path / "MNIST" / "raw" / "train-images-idx3-ubyte"
    raw.write_bytes(idx_bytes(arr))
    with open(raw, "r+b") as f:
        f.truncate(len(idx_bytes(arr)) + (64 << 20))
    (tmp_path / "MNIST" / "raw" / "train-images-idx3-ubyte.gz").unlink()
    tracemalloc.start()
    try:
        with pytest.raises(ValueError, match="train-images-idx3-ubyte: payload has 67108864 trailing bytes"):
            datasets.MNIST(str(tmp_path))
        peak = tracemalloc.get_traced_memory()[1]
    finally:
        tracemalloc.stop()
    assert peak < 2_000_000


@pytest.mark.parametrize("which", ["labels", "images"])
def test_header_count_beyond_the_split_is_refused_before_inflating(tmp_path, which):
    # a .gz of a few hundred kB whose header claims 2**31 - 1 items: nothing is inflated past the
    # header (before, labels inflated 300 MB and peaked at 651 MB)
    import tracemalloc

    make_mnist(str(tmp_path))
    name = f"train-{which}-idx{1 if which == 'labels' else 3}-ubyte.gz"
    path = os.path.join(str(tmp_path), "MNIST", "raw", name)
    dims = (2**31 - 1,) if which == "labels" else (2**31 - 1, 28, 28)
    with gzip.open(path, "wb", compresslevel=9) as f:
        f.write(bytes([0, 0, 8, len(dims)]) + b"".join(struct.pack(">i", d) for d in dims))
        for _ in range(32):
            f.write(bytes(1 << 20))
    tracemalloc.start()
    try:
        with pytest.raises(ValueError) as info:
            datasets.MNIST(str(tmp_path))
        peak = tracemalloc.get_traced_memory()[1]
    finally:
        tracemalloc.stop()
    bound = "5 images" if which == "labels" else "60000"
    assert name in str(info.value) and "claims 2147483647 items" in str(info.value) and bound in str(info.value)
    assert peak < 5_000_000
