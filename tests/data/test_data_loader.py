"""DataLoader in one process: argument errors, batches, shuffling, default_collate vs PyTorch."""

import collections
import os
import warnings

import numpy as np
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

import tinytorch
from tinytorch.data import (
    BatchSampler,
    DataLoader,
    Dataset,
    IterableDataset,
    SequentialSampler,
    default_collate,
    default_convert,
)


class Squares(Dataset):
    """Sample i is (i, i*i) as Python ints: every batch says which indices it holds."""

    def __init__(self, n):
        self.n = n

    def __getitem__(self, i):
        return i, i * i

    def __len__(self):
        return self.n


def _error(fn):
    try:
        fn()
    except Exception as e:  # noqa: BLE001 - the type is what is compared
        return type(e), str(e)
    return None


def _indices(loader):
    return [batch[0].tolist() for batch in loader]


ARG_CASES = [
    dict(batch_size=0),
    dict(batch_size=-1),
    dict(batch_size=2.5),
    dict(batch_size=True),
    dict(drop_last="yes"),
    dict(num_workers=-1),
    dict(timeout=-1),
    dict(prefetch_factor=2),
    dict(persistent_workers=True),
    dict(sampler=[0, 1], shuffle=True),
    dict(batch_sampler=[[0]], batch_size=2),
    dict(batch_sampler=[[0]], drop_last=True),
    dict(batch_sampler=[[0]], shuffle=True),
    dict(batch_size=None, drop_last=True),
    dict(multiprocessing_context="fork"),
    dict(num_workers=1, multiprocessing_context="nonsense"),
    dict(num_workers=1, multiprocessing_context=3),
    dict(num_workers=1, prefetch_factor=-1),
]


@pytest.mark.parametrize("kwargs", ARG_CASES, ids=[repr(k) for k in ARG_CASES])
def test_argument_errors_match_torch(torch, kwargs):
    ours = _error(lambda: DataLoader(Squares(4), **kwargs))
    theirs = _error(lambda: torch.utils.data.DataLoader(Squares(4), **kwargs))
    assert ours is not None
    assert ours == theirs


def test_batch_size_error_text():
    with pytest.raises(ValueError) as info:
        DataLoader(Squares(3), batch_size=0)
    assert str(info.value) == "batch_size should be a positive integer value, but got batch_size=0"


@pytest.mark.parametrize(
    "attr", ["batch_size", "sampler", "batch_sampler", "drop_last", "dataset", "persistent_workers"]
)
def test_setting_attributes_after_init_matches_torch(torch, attr):
    ours, theirs = DataLoader(Squares(3)), torch.utils.data.DataLoader(Squares(3))
    assert _error(lambda: setattr(ours, attr, None)) == _error(lambda: setattr(theirs, attr, None))


def test_public_attributes():
    ds = Squares(10)
    loader = DataLoader(ds, batch_size=4, drop_last=True)
    assert loader.dataset is ds and loader.batch_size == 4 and loader.drop_last is True
    assert isinstance(loader.sampler, SequentialSampler)
    assert (
        isinstance(loader.batch_sampler, BatchSampler)
        and loader.batch_sampler.sampler is loader.sampler
    )
    assert len(loader) == 2


def test_empty_dataset(torch):
    loader = DataLoader(Squares(0), batch_size=3)
    assert list(loader) == [] and len(loader) == 0
    ours = _error(lambda: DataLoader(Squares(0), batch_size=3, shuffle=True))
    assert ours == (
        ValueError,
        "num_samples should be a positive integer value, but got num_samples=0",
    )
    assert ours == _error(
        lambda: torch.utils.data.DataLoader(Squares(0), batch_size=3, shuffle=True)
    )


@settings(max_examples=80, deadline=None)
@given(
    n=st.integers(1, 50),
    batch_size=st.integers(1, 16),
    drop_last=st.booleans(),
    shuffle=st.booleans(),
    seed=st.integers(0, 2**32),
)
def test_every_index_exactly_once_per_epoch(n, batch_size, drop_last, shuffle, seed):
    torch = pytest.importorskip("torch")
    loader = DataLoader(
        Squares(n),
        batch_size=batch_size,
        shuffle=shuffle,
        drop_last=drop_last,
        generator=tinytorch.Generator().manual_seed(seed),
    )
    batches = _indices(loader)
    seen = [i for b in batches for i in b]
    kept = n - n % batch_size if drop_last else n
    assert len(seen) == kept and len(set(seen)) == kept
    if not drop_last:
        assert sorted(seen) == list(range(n))
    assert all(len(b) == batch_size for b in batches[:-1])
    assert all(len(b) == batch_size for b in batches) or not drop_last
    assert (
        len(loader)
        == len(batches)
        == len(torch.utils.data.DataLoader(range(n), batch_size=batch_size, drop_last=drop_last))
    )
    if not shuffle:
        assert seen == list(range(kept))


def test_samples_are_collated_as_a_list_of_columns():
    batch = next(iter(DataLoader(Squares(5), batch_size=3)))
    assert isinstance(batch, list) and len(batch) == 2
    assert batch[0].dtype == tinytorch.int64 and batch[1].tolist() == [0, 1, 4]


def test_seeded_shuffle_reproducible_and_epochs_differ():
    loader = DataLoader(Squares(64), batch_size=8, shuffle=True)
    tinytorch.manual_seed(3)
    first, second = _indices(loader), _indices(loader)
    tinytorch.manual_seed(3)
    assert _indices(loader) == first and _indices(loader) == second
    assert first != second


def test_explicit_generator_shuffle_reproducible_across_loaders():
    def run(seed):
        loader = DataLoader(
            Squares(30),
            batch_size=7,
            shuffle=True,
            generator=tinytorch.Generator().manual_seed(seed),
        )
        return _indices(loader), _indices(loader)

    assert run(11) == run(11)
    assert run(11)[0] != run(11)[1] and run(11) != run(12)


def test_every_epoch_draws_from_the_default_generator_like_torch(torch):
    # PyTorch draws a base seed per iterator even without shuffling or workers; so do we,
    # so that code consuming the default generator around a DataLoader stays in step
    before = torch.get_rng_state().clone()
    list(torch.utils.data.DataLoader(Squares(4)))
    torch_advanced = not torch.equal(before, torch.get_rng_state())
    ours_before = tinytorch.get_rng_state().tolist()
    list(DataLoader(Squares(4)))
    assert torch_advanced
    assert tinytorch.get_rng_state().tolist() != ours_before


def test_custom_batch_sampler_and_sampler():
    loader = DataLoader(Squares(10), batch_sampler=[[3, 1], [9]])
    assert _indices(loader) == [[3, 1], [9]] and len(loader) == 2
    loader = DataLoader(Squares(10), sampler=[5, 4, 3], batch_size=2)
    assert _indices(loader) == [[5, 4], [3]]


def test_batch_size_none_converts_each_sample():
    class Arrays(Dataset):
        def __getitem__(self, i):
            return {"x": np.full(2, i, dtype=np.float32), "name": f"s{i}"}

        def __len__(self):
            return 3

    out = list(DataLoader(Arrays(), batch_size=None))
    assert len(out) == 3
    assert isinstance(out[2]["x"], tinytorch.Tensor) and out[2]["x"].tolist() == [2.0, 2.0]
    assert out[2]["name"] == "s2"


class Stream(IterableDataset):
    def __init__(self, n):
        self.n = n

    def __iter__(self):
        return iter(range(self.n))

    def __len__(self):
        return self.n


def test_iterable_dataset_single_process():
    assert [b.tolist() for b in DataLoader(Stream(7), batch_size=3)] == [[0, 1, 2], [3, 4, 5], [6]]
    assert [b.tolist() for b in DataLoader(Stream(7), batch_size=3, drop_last=True)] == [
        [0, 1, 2],
        [3, 4, 5],
    ]
    assert len(DataLoader(Stream(7), batch_size=3)) == 3
    with pytest.raises(ValueError, match="expected unspecified shuffle option"):
        DataLoader(Stream(3), shuffle=True)


# -- default_collate against PyTorch's -------------------------------------------------------------

Point = collections.namedtuple("Point", "x y")


def _plain(obj, tensor_type):
    """A comparable form of a collated batch: tensors become ('tensor', dtype name, values)."""
    if isinstance(obj, tensor_type):
        return ("tensor", str(obj.dtype).split(".")[-1], obj.numpy().tolist(), tuple(obj.shape))
    if isinstance(obj, dict):
        return {k: _plain(v, tensor_type) for k, v in obj.items()}
    if isinstance(obj, tuple) and hasattr(obj, "_fields"):
        return ("namedtuple", type(obj).__name__, [_plain(v, tensor_type) for v in obj])
    if isinstance(obj, (list, tuple)):
        return (type(obj).__name__, [_plain(v, tensor_type) for v in obj])
    return obj


COLLATE_CASES = {
    "ints": [1, 2, 3],
    "floats": [1.5, 2.0],
    "bools": [True, False],
    "strings": ["a", "bc"],
    "numpy float32": [np.ones((2, 3), np.float32), np.zeros((2, 3), np.float32)],
    "numpy uint8 and int32 scalars": [(np.uint8(3), np.int32(-4)), (np.uint8(5), np.int32(6))],
    "numpy float64 scalars": [np.float64(0.25), np.float64(1)],
    "tuples": [(1, 2.5, "a"), (3, 4.5, "b")],
    "lists": [[1, 2], [3, 4]],
    "dicts": [{"a": 1, "b": [np.arange(3), 2.0]}, {"a": 2, "b": [np.arange(3) * 2, 3.0]}],
    "namedtuples": [Point(1, np.float32(2)), Point(3, np.float32(4))],
    "nested": [
        {"img": np.eye(2), "meta": (Point(1, "x"), [True, 7])},
        {"img": np.eye(2) * 3, "meta": (Point(2, "y"), [False, 8])},
    ],
}


@pytest.mark.parametrize("name", list(COLLATE_CASES))
def test_default_collate_matches_torch(torch, name):
    batch = COLLATE_CASES[name]
    ours = _plain(default_collate(batch), tinytorch.Tensor)
    theirs = _plain(torch.utils.data.default_collate(batch), torch.Tensor)
    assert ours == theirs


def test_default_collate_of_tensors_matches_torch(torch):
    rows = [np.arange(6, dtype=np.float32).reshape(2, 3) + i for i in range(4)]
    ours = default_collate([(tinytorch.from_numpy(r), i) for i, r in enumerate(rows)])
    theirs = torch.utils.data.default_collate(
        [(torch.from_numpy(r), i) for i, r in enumerate(rows)]
    )
    assert _plain(ours, tinytorch.Tensor) == _plain(theirs, torch.Tensor)


def test_default_collate_accepts_pytorch_tensors(torch):
    rows = [torch.arange(3, dtype=torch.float64) * i for i in range(3)]
    out = default_collate(rows)
    assert isinstance(out, tinytorch.Tensor) and out.dtype == tinytorch.float64
    np.testing.assert_array_equal(out.numpy(), torch.stack(rows).numpy())


def test_default_collate_keeps_the_graph_when_samples_require_grad():
    w = tinytorch.from_numpy(np.array([1.0, 2.0], dtype=np.float32)).requires_grad_()
    out = default_collate([w, w])
    assert out.requires_grad and out.shape == (2, 2)


ERROR_CASES = {
    "ragged lists": [[1, 2], [3]],
    "string arrays": [np.array(["a"]), np.array(["b"])],
    "objects": [object(), object()],
    "arrays of different shapes": [np.zeros(3), np.zeros(4)],
}


@pytest.mark.parametrize("name", list(ERROR_CASES))
def test_default_collate_errors_match_torch(torch, name):
    batch = ERROR_CASES[name]
    ours, theirs = (
        _error(lambda: default_collate(batch)),
        _error(lambda: torch.utils.data.default_collate(batch)),
    )
    assert ours is not None
    assert ours[0] is theirs[0]
    if name != "objects":  # the message names the type, printed with its module
        assert ours == theirs


def test_default_collate_promotes_dtypes_like_torch_stack(torch):
    ours = default_collate(
        [
            tinytorch.from_numpy(np.array([1, 2])),
            tinytorch.from_numpy(np.array([0.5, 1.0], np.float32)),
        ]
    )
    theirs = torch.utils.data.default_collate([torch.tensor([1, 2]), torch.tensor([0.5, 1.0])])
    assert _plain(ours, tinytorch.Tensor) == _plain(theirs, torch.Tensor)


def test_pil_images_are_not_collated_like_torch(torch):
    Image = pytest.importorskip("PIL.Image")
    images = [Image.new("L", (2, 2)), Image.new("L", (2, 2))]
    assert _error(lambda: default_collate(images))[0] is TypeError
    assert _error(lambda: torch.utils.data.default_collate(images))[0] is TypeError
    loader = DataLoader(images, batch_size=2, collate_fn=lambda batch: batch)
    assert next(iter(loader)) == images


def test_too_many_workers_warning_matches_torch(torch):
    many = (
        len(os.sched_getaffinity(0)) if hasattr(os, "sched_getaffinity") else os.cpu_count()
    ) + 1
    with warnings.catch_warnings(record=True) as ours:
        warnings.simplefilter("always")
        DataLoader(Squares(3), num_workers=many)
    with warnings.catch_warnings(record=True) as theirs:
        warnings.simplefilter("always")
        torch.utils.data.DataLoader(Squares(3), num_workers=many)
    assert len(ours) == 1
    assert [str(w.message) for w in ours] == [str(w.message) for w in theirs]


def test_default_convert_matches_torch(torch):
    data = {
        "a": np.arange(3),
        "b": (np.float32(2), "s", [np.ones(2), 5]),
        "c": Point(np.int16(1), 2.5),
        "d": np.array(["text"]),
    }
    ours = _plain(default_convert(data), tinytorch.Tensor)
    theirs = _plain(torch.utils.data.default_convert(data), torch.Tensor)
    ours["d"], theirs["d"] = ours["d"].tolist(), theirs["d"].tolist()  # both left as numpy arrays
    assert ours == theirs


def test_torch_spelling_of_the_module():
    import tinytorch.utils.data as utils_data
    from tinytorch.utils.data import DataLoader as SpelledLikeTorch

    assert SpelledLikeTorch is DataLoader
    assert utils_data.default_collate is default_collate and utils_data.get_worker_info() is None
