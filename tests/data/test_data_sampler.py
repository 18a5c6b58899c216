"""Samplers, BatchSampler, Subset/ConcatDataset/random_split: orders, lengths, PyTorch's errors."""

import warnings

import numpy as np
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

import tinytorch
from tinytorch.data import (
    BatchSampler,
    ConcatDataset,
    RandomSampler,
    SequentialSampler,
    StackDataset,
    Subset,
    SubsetRandomSampler,
    TensorDataset,
    WeightedRandomSampler,
    random_split,
)


def _error(fn):
    try:
        fn()
    except Exception as e:  # noqa: BLE001 - the type is what is compared
        return type(e), str(e)
    return None


def test_sequential_sampler_visits_in_order():
    assert list(SequentialSampler(range(7))) == list(range(7))
    assert len(SequentialSampler(range(7))) == 7


def test_random_sampler_with_generator_is_pytorchs_permutation(torch):
    # tinytorch.Generator draws PyTorch's streams: the same seed gives PyTorch's order
    got = list(RandomSampler(range(50), generator=tinytorch.Generator().manual_seed(123)))
    expected = list(torch.utils.data.RandomSampler(range(50), generator=torch.Generator().manual_seed(123)))
    assert got == expected


def test_random_sampler_matches_randperm_for_the_same_generator_state():
    got = list(RandomSampler(range(20), generator=tinytorch.Generator().manual_seed(5)))
    assert got == tinytorch.randperm(20, generator=tinytorch.Generator().manual_seed(5)).tolist()


def test_random_sampler_default_generator_seeded_reproducible_and_epochs_differ():
    sampler = RandomSampler(range(100))
    tinytorch.manual_seed(0)
    first, second = list(sampler), list(sampler)
    tinytorch.manual_seed(0)
    assert list(sampler) == first and list(sampler) == second
    assert first != second
    assert sorted(first) == list(range(100))


def test_random_sampler_num_samples_beyond_length_repeats_whole_permutations():
    sampler = RandomSampler(
        range(4), num_samples=10, generator=tinytorch.Generator().manual_seed(1)
    )
    got = list(sampler)
    assert len(got) == len(sampler) == 10
    assert sorted(got[:4]) == sorted(got[4:8]) == [0, 1, 2, 3]
    assert len(set(got[8:])) == 2


def test_random_sampler_with_replacement():
    sampler = RandomSampler(
        range(3), replacement=True, num_samples=200, generator=tinytorch.Generator().manual_seed(2)
    )
    got = list(sampler)
    assert len(got) == 200 and set(got) == {0, 1, 2}


@pytest.mark.bitexact
@pytest.mark.parametrize("num_samples", [1, 31, 32, 33, 75, 200])
def test_random_sampler_with_replacement_is_pytorchs_stream(torch, num_samples):
    # randint(high=n) in chunks of 32, the last one num_samples % 32 long (empty included)
    got = list(RandomSampler(range(7), replacement=True, num_samples=num_samples,
                             generator=tinytorch.Generator().manual_seed(11)))
    expected = list(torch.utils.data.RandomSampler(range(7), replacement=True,
                                                   num_samples=num_samples,
                                                   generator=torch.Generator().manual_seed(11)))
    assert got == expected


@pytest.mark.bitexact
def test_infinite_sampler_draws_lazily_as_pytorch_does(torch):
    # the "infinite loader" idiom: num_samples far beyond anything consumed. The first draws are
    # PyTorch's, the generator has advanced by exactly the chunks used (so nothing was drawn ahead),
    # and the memory held does not grow with num_samples.
    import itertools
    import tracemalloc

    n, taken, huge = 1000, 100, 10**12
    g, tg = tinytorch.Generator().manual_seed(3), torch.Generator().manual_seed(3)
    tracemalloc.start()
    try:
        it = iter(RandomSampler(range(n), replacement=True, num_samples=huge, generator=g))
        got = list(itertools.islice(it, taken))
        peak = tracemalloc.get_traced_memory()[1]
    finally:
        tracemalloc.stop()
    t_it = iter(torch.utils.data.RandomSampler(range(n), replacement=True, num_samples=huge,
                                               generator=tg))
    assert got == list(itertools.islice(t_it, taken))
    assert peak < 1 << 20
    # 100 draws used 4 chunks of 32 in both: the next value of each generator agrees
    assert (tinytorch.randint(0, 1000, (8,), generator=g).tolist()
            == torch.randint(0, 1000, (8,), generator=tg).tolist())
    # the default generator too (seed drawn at the start of the pass)
    tinytorch.manual_seed(5)
    torch.manual_seed(5)
    got = list(itertools.islice(iter(RandomSampler(range(n), replacement=True, num_samples=huge)), 70))
    expected = list(itertools.islice(
        iter(torch.utils.data.RandomSampler(range(n), replacement=True, num_samples=huge)), 70))
    assert got == expected
    assert len(RandomSampler(range(n), replacement=True, num_samples=huge)) == huge


def test_infinite_sampler_through_a_dataloader_stays_lazy():
    # DataLoader(sampler=...) wraps it in a BatchSampler: only the batches taken are drawn
    import itertools

    ds = tinytorch.data.TensorDataset(tinytorch.arange(50))
    sampler = RandomSampler(ds, replacement=True, num_samples=10**15,
                            generator=tinytorch.Generator().manual_seed(0))
    loader = tinytorch.data.DataLoader(ds, batch_size=16, sampler=sampler)
    batches = list(itertools.islice(iter(loader), 3))
    assert [tuple(b[0].shape) for b in batches] == [(16,)] * 3
    assert len(loader) == (10**15 + 15) // 16


@pytest.mark.parametrize(
    "kwargs",
    [dict(replacement=1), dict(num_samples=0), dict(num_samples=-3), dict(num_samples=2.5)],
)
def test_random_sampler_errors_match_torch(torch, kwargs):
    assert _error(lambda: RandomSampler(range(5), **kwargs)) == _error(
        lambda: torch.utils.data.RandomSampler(range(5), **kwargs)
    )


def test_random_sampler_on_empty_dataset_matches_torch(torch):
    err = _error(lambda: RandomSampler([]))
    assert err == (
        ValueError,
        "num_samples should be a positive integer value, but got num_samples=0",
    )
    assert err == _error(lambda: torch.utils.data.RandomSampler([]))


def test_subset_random_sampler_permutes_the_given_indices():
    indices = [3, 9, 27, 81]
    got = list(SubsetRandomSampler(indices, generator=tinytorch.Generator().manual_seed(0)))
    assert sorted(got) == indices


def test_weighted_random_sampler_never_draws_zero_weight():
    got = list(
        WeightedRandomSampler(
            [0.0, 1.0, 0.0, 3.0], 300, generator=tinytorch.Generator().manual_seed(0)
        )
    )
    assert set(got) == {1, 3}
    assert 150 < got.count(3) < 300  # 3:1 odds; a broken weighting lands far outside


@settings(max_examples=60, deadline=None)
@given(n=st.integers(0, 40), batch_size=st.integers(1, 12), drop_last=st.booleans())
def test_batch_sampler_equals_torch(n, batch_size, drop_last):
    torch = pytest.importorskip("torch")
    ours = BatchSampler(SequentialSampler(range(n)), batch_size, drop_last)
    theirs = torch.utils.data.BatchSampler(
        torch.utils.data.SequentialSampler(range(n)), batch_size, drop_last
    )
    assert list(ours) == list(theirs)
    assert len(ours) == len(theirs) == len(list(ours))


@pytest.mark.parametrize(
    "batch_size, drop_last",
    [(0, False), (-1, False), (2.5, False), (True, False), (2, "yes"), (2, 1)],
)
def test_batch_sampler_errors_match_torch(torch, batch_size, drop_last):
    err = _error(lambda: BatchSampler(range(4), batch_size, drop_last))
    assert err is not None and err[0] is ValueError
    assert err == _error(lambda: torch.utils.data.BatchSampler(range(4), batch_size, drop_last))


def test_subset_and_concat_index_like_torch(torch):
    a, b = list(range(10)), list(range(100, 105))
    ours = ConcatDataset([Subset(a, [9, 0, 4]), b])
    theirs = torch.utils.data.ConcatDataset([torch.utils.data.Subset(a, [9, 0, 4]), b])
    assert len(ours) == len(theirs) == 8
    assert [ours[i] for i in range(-8, 8)] == [theirs[i] for i in range(-8, 8)]
    assert _error(lambda: ours[-9]) == _error(lambda: theirs[-9])
    assert _error(lambda: ConcatDataset([])) == _error(lambda: torch.utils.data.ConcatDataset([]))


def test_subset_uses_parent_getitems():
    class Batched:
        calls = 0

        def __getitem__(self, i):
            raise AssertionError("per-item path taken")

        def __getitems__(self, indices):
            Batched.calls += 1
            return [i * 10 for i in indices]

        def __len__(self):
            return 10

    assert Subset(Batched(), [4, 2, 7]).__getitems__([0, 2]) == [40, 70]
    assert Batched.calls == 1


def test_dataset_add_concatenates():
    class Letters(tinytorch.data.Dataset):
        def __init__(self, s):
            self.s = s

        def __getitem__(self, i):
            return self.s[i]

        def __len__(self):
            return len(self.s)

    both = Letters("ab") + Letters("cde")
    assert [both[i] for i in range(len(both))] == list("abcde")


def test_stack_dataset():
    ds = StackDataset(x=[1, 2], y=["a", "b"])
    assert ds[1] == {"x": 2, "y": "b"} and len(ds) == 2
    with pytest.raises(ValueError, match="Size mismatch between datasets"):
        StackDataset([1, 2], [1])


def test_tensor_dataset_size_mismatch():
    with pytest.raises(AssertionError, match="Size mismatch between tensors"):
        TensorDataset(tinytorch.zeros(3, 2), tinytorch.zeros(4))


def test_tensor_dataset_items():
    x = tinytorch.from_numpy(np.arange(12, dtype=np.float32).reshape(4, 3))
    y = tinytorch.from_numpy(np.arange(4))
    ds = TensorDataset(x, y)
    sample = ds[2]
    assert len(ds) == 4 and sample[0].tolist() == [6.0, 7.0, 8.0] and sample[1].item() == 2


@pytest.mark.parametrize("lengths", [[3, 7], [0.3, 0.7], [0.3, 0.3, 0.4], [0.5, 0.5], [1 / 3] * 3])
def test_random_split_lengths_match_torch_and_partition(torch, lengths):
    ours = random_split(range(10), lengths, generator=tinytorch.Generator().manual_seed(0))
    theirs = torch.utils.data.random_split(
        range(10), lengths, generator=torch.Generator().manual_seed(0)
    )
    assert [len(s) for s in ours] == [len(s) for s in theirs]
    everything = sorted(i for s in ours for i in s.indices)
    assert everything == list(range(10))


def test_random_split_is_a_seeded_permutation(torch):
    parts = random_split(range(10), [4, 6], generator=tinytorch.Generator().manual_seed(7))
    perm = torch.randperm(10, generator=torch.Generator().manual_seed(7)).tolist()
    assert parts[0].indices == perm[:4] and parts[1].indices == perm[4:]
    assert [parts[1][i] for i in range(6)] == perm[4:]


def test_random_split_errors_and_warning_match_torch(torch):
    assert _error(lambda: random_split(range(10), [3, 8])) == _error(
        lambda: torch.utils.data.random_split(range(10), [3, 8])
    )
    assert _error(lambda: random_split(range(10), [1.5, -0.5])) == _error(
        lambda: torch.utils.data.random_split(range(10), [1.5, -0.5])
    )
    with warnings.catch_warnings(record=True) as ours:
        warnings.simplefilter("always")
        random_split(range(1), [0.1, 0.9])
    with warnings.catch_warnings(record=True) as theirs:
        warnings.simplefilter("always")
        torch.utils.data.random_split(range(1), [0.1, 0.9])
    assert [str(w.message) for w in ours] == [str(w.message) for w in theirs]
    assert len(ours) == 1
