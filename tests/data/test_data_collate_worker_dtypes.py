"""default_collate of samples of different dtypes, as PyTorch: the main process promotes the batch; a worker
stacks into shared memory of the first sample's dtype, so the batch takes that dtype and a float after an int
raises PyTorch's TypeError (re-raised by the loader as caught in the worker)."""
import numpy as np
import pytest

import tinytorch

from _oracle import torch  # noqa: E402  (PyTorch when a test reads it)


def _loader(lib, dtypes, num_workers):
    class Samples(lib.utils.data.Dataset):
        def __len__(self):
            return len(dtypes)

        def __getitem__(self, i):
            return lib.tensor([3]).to(getattr(lib, dtypes[i]))

    return lib.utils.data.DataLoader(Samples(), batch_size=len(dtypes), num_workers=num_workers)


@pytest.mark.parametrize("num_workers", [0, 2])
@pytest.mark.parametrize("dtypes", [["int64", "float32"], ["float32", "int64"], ["int32", "int64"],
                                    ["bool", "int64"], ["float64", "float32"]])
def test_mixed_dtypes(dtypes, num_workers):
    try:
        want = [b.numpy() for b in _loader(torch, dtypes, num_workers)]
    except TypeError as err:
        with pytest.raises(TypeError) as got:
            list(_loader(tinytorch, dtypes, num_workers))
        assert str(got.value).splitlines()[0] == str(err).splitlines()[0]
        assert str(got.value).strip().splitlines()[-1] == str(err).strip().splitlines()[-1]
        return
    got = [b.numpy() for b in _loader(tinytorch, dtypes, num_workers)]
    for w, g in zip(want, got):
        assert g.dtype == w.dtype
        np.testing.assert_array_equal(g, w)


def _numpy_loader(lib, dtypes, num_workers, scalar):
    class Samples(lib.utils.data.Dataset):
        def __len__(self):
            return len(dtypes)

        def __getitem__(self, i):
            a = np.array([3], dtype=dtypes[i])
            return a[0] if scalar else a

    return lib.utils.data.DataLoader(Samples(), batch_size=len(dtypes), num_workers=num_workers)


@pytest.mark.parametrize("num_workers", [0, 1])
@pytest.mark.parametrize("scalar", [False, True])
@pytest.mark.parametrize("dtypes", [["int64", "float32"], ["float32", "float64"]])
def test_mixed_numpy_dtypes(dtypes, scalar, num_workers):
    # PyTorch collates numpy arrays as the tensors as_tensor makes of them (in a worker: the first one's dtype,
    # or the TypeError), and numpy scalars as as_tensor of the list (int64 then float32: float32)
    try:
        want = [b.numpy() for b in _numpy_loader(torch, dtypes, num_workers, scalar)]
    except TypeError as err:
        with pytest.raises(TypeError) as got:
            list(_numpy_loader(tinytorch, dtypes, num_workers, scalar))
        assert str(got.value).splitlines()[0] == str(err).splitlines()[0]
        assert str(got.value).strip().splitlines()[-1] == str(err).strip().splitlines()[-1]
        return
    got = [b.numpy() for b in _numpy_loader(tinytorch, dtypes, num_workers, scalar)]
    for w, g in zip(want, got):
        assert g.dtype == w.dtype
        np.testing.assert_array_equal(g, w)
