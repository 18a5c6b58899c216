"""Conv and pooling layers against PyTorch: print(model), state_dict keys and shapes, loading
PyTorch's weights, padding modes, default initialisation, and the MNIST network end to end."""
import _repo
import math
import sys

import numpy as np
import pytest

import tinytorch as tt
import tinytorch.nn as nn

SPECS = ["Conv2d(1, 32, 3, 1)", "Conv2d(3, 6, (3, 5), stride=2, padding=1, dilation=2, groups=3, bias=False, "
         "padding_mode='reflect')", "Conv2d(3, 6, 3, padding='same')", "Conv2d(3, 6, 3, padding='valid')",
         "Conv1d(3, 6, 3)", "Conv1d(4, 8, 3, padding='same', padding_mode='circular', groups=4)", "Conv1d(4, 8, 2, stride=2, padding=1)",
         "ConvTranspose2d(3, 6, 3, stride=2, output_padding=1)", "ConvTranspose2d(4, 2, 2, groups=2, bias=False)",
         "MaxPool2d(2)", "MaxPool2d(3, 2, 1, ceil_mode=True, return_indices=True)", "MaxPool1d(2)",
         "MaxPool1d(3, stride=1, dilation=2)", "AvgPool2d(2)", "AvgPool2d(3, 2, 1, True, False, 2)", "AvgPool1d(2)",
         "AdaptiveAvgPool2d((None, 3))", "AdaptiveAvgPool2d(1)", "AdaptiveAvgPool1d(4)", "AdaptiveMaxPool2d((2, 3))"]


def _torch_to_tt(state):
    return {k: tt.tensor(v.detach().numpy()) for k, v in state.items()}


@pytest.mark.parametrize("spec", SPECS)
def test_repr_state_dict_and_forward_match_torch(torch, spec):
    theirs, ours = eval("torch.nn." + spec), eval("nn." + spec)
    assert repr(ours) == repr(theirs)
    tsd, osd = theirs.state_dict(), ours.state_dict()
    assert list(osd) == list(tsd)
    assert all(tuple(osd[k].shape) == tuple(tsd[k].shape) for k in tsd)
    ours.load_state_dict(_torch_to_tt(tsd))
    if "Conv1d" in spec or "Pool1d" in spec:
        shape = (2, theirs.in_channels if hasattr(theirs, "in_channels") else 3, 9)
    else:
        shape = (2, theirs.in_channels if hasattr(theirs, "in_channels") else 3, 8, 7)
    x = np.random.default_rng(0).standard_normal(shape).astype(np.float32)
    ty, y = theirs(torch.tensor(x)), ours(tt.tensor(x))
    if isinstance(ty, tuple):
        np.testing.assert_array_equal(y[1].numpy(), ty[1].numpy())
        ty, y = ty[0], y[0]
    np.testing.assert_allclose(y.detach().numpy(), ty.detach().numpy(), rtol=1e-4, atol=1e-5)


@pytest.mark.parametrize("mode", ["reflect", "replicate", "circular"])
@pytest.mark.parametrize("padding", [1, (2, 1), "same"])
def test_padding_modes_match_torch(torch, mode, padding):
    theirs = torch.nn.Conv2d(3, 4, 3, padding=padding, padding_mode=mode).double()
    ours = nn.Conv2d(3, 4, 3, padding=padding, padding_mode=mode, dtype=tt.float64)
    ours.load_state_dict(_torch_to_tt(theirs.state_dict()))
    x = np.random.default_rng(1).standard_normal((2, 3, 6, 5))
    tx, ox = torch.tensor(x, requires_grad=True), tt.tensor(x, requires_grad=True)
    ty, y = theirs(tx), ours(ox)
    np.testing.assert_allclose(y.detach().numpy(), ty.detach().numpy(), rtol=1e-12, atol=1e-12)
    assert y.grad_fn.next_functions[0][0].name() == ty.grad_fn.next_functions[0][0].name()
    g = np.random.default_rng(2).standard_normal(tuple(ty.shape))
    (tgx,) = torch.autograd.grad(ty, tx, torch.tensor(g), create_graph=True)
    (gx,) = tt.autograd.grad(y, ox, tt.tensor(g), create_graph=True)
    np.testing.assert_allclose(gx.detach().numpy(), tgx.detach().numpy(), rtol=1e-12, atol=1e-12)
    (tgg,) = torch.autograd.grad((tgx * tgx).sum(), theirs.weight)
    (gg,) = tt.autograd.grad((gx * gx).sum(), ours.weight)
    np.testing.assert_allclose(gg.numpy(), tgg.numpy(), rtol=1e-10, atol=1e-10)


def test_conv1d_padding_mode(torch):
    theirs = torch.nn.Conv1d(2, 3, 3, padding=2, padding_mode="reflect").double()
    ours = nn.Conv1d(2, 3, 3, padding=2, padding_mode="reflect", dtype=tt.float64)
    ours.load_state_dict(_torch_to_tt(theirs.state_dict()))
    x = np.random.default_rng(1).standard_normal((2, 2, 7))
    ty, y = theirs(torch.tensor(x)), ours(tt.tensor(x))
    np.testing.assert_allclose(y.detach().numpy(), ty.detach().numpy(), rtol=1e-12)


def test_conv_transpose2d_output_size(torch):
    theirs, ours = torch.nn.ConvTranspose2d(3, 2, 3, stride=2, padding=1), nn.ConvTranspose2d(3, 2, 3, stride=2,
                                                                                                padding=1)
    ours.load_state_dict(_torch_to_tt(theirs.state_dict()))
    x = np.random.default_rng(0).standard_normal((1, 3, 4, 5)).astype(np.float32)
    for size in ([8, 10], (1, 2, 7, 9)):
        ty, y = theirs(torch.tensor(x), output_size=size), ours(tt.tensor(x), output_size=size)
        assert y.shape == tuple(ty.shape)
        np.testing.assert_allclose(y.detach().numpy(), ty.detach().numpy(), rtol=1e-4, atol=1e-5)


@pytest.mark.parametrize("cls,args,fan_in", [(nn.Conv2d, (16, 32, 3), 16 * 9), (nn.Conv1d, (8, 16, 5), 8 * 5),
                                              (nn.ConvTranspose2d, (16, 8, 3), 8 * 9)])
def test_default_initialisation_bounds(cls, args, fan_in):
    # kaiming_uniform_(a=sqrt(5)) is U(-1/sqrt(fan_in), 1/sqrt(fan_in)); the bias has the same bound
    tt.manual_seed(0)
    m = cls(*args)
    bound = 1 / math.sqrt(fan_in)
    w, b = m.weight.detach().numpy(), m.bias.detach().numpy()
    assert np.abs(w).max() <= bound and np.abs(b).max() <= bound
    assert abs(w.std() - bound / math.sqrt(3)) < 0.1 * bound
    assert m.weight.requires_grad and m.weight.dtype == tt.float32


def test_mnist_net_matches_torch_end_to_end(torch):
    sys.path.insert(0, _repo.ROOT)
    from train_fashion_mnist import Net as OurNet

    class Net(torch.nn.Module):  # noqa: F811  (the same name, so print(model) can be compared)
        def __init__(self):
            super().__init__()
            self.conv1 = torch.nn.Conv2d(1, 32, 3, 1)
            self.conv2 = torch.nn.Conv2d(32, 64, 3, 1)
            self.dropout1 = torch.nn.Dropout(0.25)
            self.dropout2 = torch.nn.Dropout(0.5)
            self.fc1 = torch.nn.Linear(9216, 128)
            self.fc2 = torch.nn.Linear(128, 10)

        def forward(self, x):
            F = torch.nn.functional
            x = F.max_pool2d(F.relu(self.conv2(F.relu(self.conv1(x)))), 2)
            x = F.relu(self.fc1(torch.flatten(self.dropout1(x), 1)))
            return F.log_softmax(self.fc2(self.dropout2(x)), dim=1)

    torch.manual_seed(0)  # the same weights whatever ran before in this process
    theirs, ours = Net(), OurNet()
    assert repr(ours) == repr(theirs)
    ours.load_state_dict(_torch_to_tt(theirs.state_dict()))
    theirs.eval()
    ours.eval()  # dropout off: the two libraries draw different masks
    rng = np.random.default_rng(0)
    x, y = rng.random((4, 1, 28, 28), dtype=np.float32), rng.integers(0, 10, 4)
    tl = torch.nn.functional.nll_loss(theirs(torch.tensor(x)), torch.tensor(y))
    loss = nn.NLLLoss()(ours(tt.tensor(x)), tt.tensor(y))
    np.testing.assert_allclose(loss.item(), tl.item(), rtol=1e-5)
    tl.backward()
    loss.backward()
    for (name, p), (_, tp) in zip(ours.named_parameters(), theirs.named_parameters()):
        np.testing.assert_allclose(p.grad.numpy(), tp.grad.numpy(), rtol=1e-3, atol=1e-6, err_msg=name)
