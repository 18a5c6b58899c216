"""AdaptiveLogSoftmaxWithLoss against PyTorch: initialisation under the same seed (bit for bit),
forward output and loss, gradients, log_prob, predict, unbatched input, state_dict, repr, errors."""
import warnings

import numpy as np
import pytest

import tinytorch as tt

import _paths

from _oracle import torch  # noqa: E402  (PyTorch when a test reads it)

from _raises_same import raises_same as _raises_same  # noqa: E402


def _pair(seed, *args, **kwargs):
    torch.manual_seed(seed)
    tt.manual_seed(seed)
    with warnings.catch_warnings():
        warnings.simplefilter("ignore", UserWarning)  # zero-width clusters warn in both
        return (torch.nn.AdaptiveLogSoftmaxWithLoss(*args, **kwargs),
                tt.nn.AdaptiveLogSoftmaxWithLoss(*args, **kwargs))


@pytest.mark.parametrize("args, kwargs", [((16, 20, [4, 10]), {}),
                                          ((16, 30, (5, 12, 20)), dict(div_value=2.0, head_bias=True)),
                                          ((8, 10, [9]), dict(div_value=1.5))])
def test_matches_pytorch(args, kwargs):
    a, b = _pair(0, *args, **kwargs)
    assert repr(b) == repr(a)
    assert list(b.state_dict()) == list(a.state_dict())
    for k, v in a.state_dict().items():
        _paths.assert_drawn(b.state_dict()[k], v, what=k)
    assert (b.cutoffs, b.shortlist_size, b.n_clusters, b.head_size) == (a.cutoffs, a.shortlist_size,
                                                                          a.n_clusters, a.head_size)
    n_classes = args[1]
    x = torch.randn(12, args[0])
    target = torch.randint(0, n_classes, (12,))
    target[:2] = torch.tensor([0, n_classes - 1])
    xa, xb = x.clone().requires_grad_(), tt.tensor(x.numpy(), requires_grad=True)
    oa, ob = a(xa, target), b(xb, tt.tensor(target.numpy()))
    assert type(ob).__name__ == type(oa).__name__ == "_ASMoutput" and ob._fields == oa._fields
    np.testing.assert_allclose(ob.output.detach().numpy(), oa.output.detach().numpy(), rtol=1e-6, atol=1e-6)
    np.testing.assert_allclose(ob.loss.item(), oa.loss.item(), rtol=1e-6)
    oa.loss.backward()
    ob.loss.backward()
    np.testing.assert_allclose(xb.grad.numpy(), xa.grad.numpy(), rtol=1e-5, atol=1e-7)
    for (n, p), (m, q) in zip(a.named_parameters(), b.named_parameters()):
        assert n == m
        np.testing.assert_allclose(q.grad.numpy(), p.grad.numpy(), rtol=1e-5, atol=1e-7)
    with torch.no_grad(), tt.no_grad():
        np.testing.assert_allclose(b.log_prob(tt.tensor(x.numpy())).numpy(), a.log_prob(x).numpy(),
                                   rtol=1e-6, atol=1e-6)
        np.testing.assert_array_equal(b.predict(tt.tensor(x.numpy())).numpy(), a.predict(x).numpy())
    # unbatched: a 1-d input and a 0-d target
    oa, ob = a(x[3], target[3]), b(tt.tensor(x[3].numpy()), tt.tensor(target[3].numpy()))
    assert ob.output.shape == tuple(oa.output.shape) == ()
    np.testing.assert_allclose(ob.output.item(), oa.output.item(), rtol=1e-6)


def test_predict_paths():
    a, b = _pair(1, 4, 12, [3, 7], head_bias=True)
    with torch.no_grad():
        a.head.bias.copy_(torch.tensor([0.0, 0.0, 0.0, 50.0, 0.0]))  # every row predicts cluster 0's head entry
    b.load_state_dict({k: tt.tensor(v.numpy()) for k, v in a.state_dict().items()})
    x = torch.randn(6, 4)
    np.testing.assert_array_equal(b.predict(tt.tensor(x.numpy())).numpy(), a.predict(x).numpy())
    with torch.no_grad():
        a.head.bias.copy_(torch.tensor([0.0, 0.0, 0.0, 0.0, 0.0]))
        a.head.weight[3].fill_(0)
        a.head.weight[3, 0] = 40.0  # only rows with a large first feature leave the shortlist
    b.load_state_dict({k: tt.tensor(v.numpy()) for k, v in a.state_dict().items()})
    x[:3, 0] = 5.0
    x[3:, 0] = -5.0
    pa = a.predict(x)
    assert (pa >= 3).any() and (pa < 3).any()
    np.testing.assert_array_equal(b.predict(tt.tensor(x.numpy())).numpy(), pa.numpy())


def test_errors():
    for args in [(4, 10, []), (4, 10, [5, 3]), (4, 10, [0, 3]), (4, 10, [3, 10]), (4, 10, [3, 3]),
                 (4, 10, [2.5])]:
        _raises_same(lambda: torch.nn.AdaptiveLogSoftmaxWithLoss(*args),
                     lambda: tt.nn.AdaptiveLogSoftmaxWithLoss(*args))
    a, b = _pair(2, 4, 10, [3])
    cases = [((3, 4), [0, 1]), ((3,), [0, 1, 2]), ((4,), [[1]]), ((2, 4), 1), ((2, 4), [0, 10]),
             ((2, 4), [-1, 2])]
    for shape, target in cases:
        x = torch.randn(*shape)
        _raises_same(lambda: a(x, torch.tensor(target)), lambda: b(tt.tensor(x.numpy()), tt.tensor(target)))
