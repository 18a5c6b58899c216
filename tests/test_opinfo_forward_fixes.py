"""Differential tests for forward differences the OpInfo walk found (issues 20/22): each case is one
family of op_db samples that did not match PyTorch, checked here directly on generated inputs."""
import numpy as np
import pytest

torch = pytest.importorskip("torch")
import tinytorch as tt  # noqa: E402


def _tt(x):
    return tt.from_numpy(x.detach().numpy().copy())


def _same(got, expected):
    torch.testing.assert_close(torch.from_numpy(np.array(got.detach().numpy(), copy=True)), expected)


# -- unfold / fold: PyTorch's im2col and col2im take bool, integers raise ------------------------------
@pytest.mark.parametrize("shape", [(2, 3, 5, 6), (3, 5, 6)])
def test_unfold_bool(shape):
    g = torch.Generator().manual_seed(0)
    x = torch.rand(shape, generator=g) > 0.5
    kw = dict(dilation=(1, 2), padding=1, stride=(2, 1))
    _same(tt.nn.functional.unfold(_tt(x), (2, 2), **kw), torch.nn.functional.unfold(x, (2, 2), **kw))


def test_fold_bool_overlapping_blocks_or():
    g = torch.Generator().manual_seed(1)
    cols = torch.rand(2, 12, 12, generator=g) > 0.7
    _same(tt.nn.functional.fold(_tt(cols), (4, 5), 2), torch.nn.functional.fold(cols, (4, 5), 2))


@pytest.mark.parametrize("fn, args, shape", [("unfold", (2,), (1, 2, 4, 4)), ("fold", ((4, 4), 2), (1, 4, 9))])
def test_fold_integer_raises(fn, args, shape):
    x = torch.ones(shape, dtype=torch.int64)
    with pytest.raises(NotImplementedError) as want:
        getattr(torch.nn.functional, fn)(x, *args)
    with pytest.raises(NotImplementedError) as got:
        getattr(tt.nn.functional, fn)(_tt(x), *args)
    assert str(got.value) == str(want.value)
