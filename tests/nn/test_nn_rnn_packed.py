"""nn.utils.rnn (PackedSequence and the packing/padding helpers) and recurrent modules on packed input,
against PyTorch; packed runs also against per-sequence runs of the same module."""
import warnings

import numpy as np
import pytest

import tinytorch as tt
from tinytorch.autograd import gradcheck, gradgradcheck
from tinytorch.nn.utils import rnn as ur

from _oracle import torch  # noqa: E402  (PyTorch when a test reads it)
tur = torch.nn.utils.rnn

TOL = {np.float32: dict(rtol=1e-4, atol=2e-5), np.float64: dict(rtol=1e-10, atol=1e-11)}


def _both(a, dtype=np.float64):
    return tt.tensor(a.astype(dtype), requires_grad=True), torch.tensor(a.astype(dtype), requires_grad=True)


def _eq(t, tref, tol=None):
    assert tuple(t.shape) == tuple(tref.shape)
    assert str(t.dtype).replace("tinytorch", "torch") == str(tref.dtype)
    if tol is None:
        np.testing.assert_array_equal(t.detach().numpy(), tref.detach().numpy())
    else:
        np.testing.assert_allclose(t.detach().numpy(), tref.detach().numpy(), **tol)


def _eq_packed(p, tp, tol=None):
    _eq(p.data, tp.data, tol)
    _eq(p.batch_sizes, tp.batch_sizes)
    for a, b in ((p.sorted_indices, tp.sorted_indices), (p.unsorted_indices, tp.unsorted_indices)):
        assert (a is None) == (b is None)
        if a is not None:
            _eq(a, b)


@pytest.mark.parametrize("batch_first", [False, True])
@pytest.mark.parametrize("lengths,enforce", [([5, 3, 3, 1], True), ([3, 5, 1, 3], False), ([2, 2, 2, 2], False)])
def test_pack_pad_round_trip(lengths, enforce, batch_first):
    shape = (4, 5, 2) if batch_first else (5, 4, 2)
    x, tx = _both(np.random.default_rng(0).standard_normal(shape))
    p = ur.pack_padded_sequence(x, lengths, batch_first=batch_first, enforce_sorted=enforce)
    tp = tur.pack_padded_sequence(tx, lengths, batch_first=batch_first, enforce_sorted=enforce)
    _eq_packed(p, tp)
    assert type(p.data.grad_fn).__name__ == type(tp.data.grad_fn).__name__
    assert repr(p).replace("tinytorch", "torch") == repr(tp)
    for kw in (dict(), dict(padding_value=-1.5, total_length=7)):
        out, lens = ur.pad_packed_sequence(p, batch_first=batch_first, **kw)
        tout, tlens = tur.pad_packed_sequence(tp, batch_first=batch_first, **kw)
        _eq(out, tout)
        _eq(lens, tlens)
        g = np.random.default_rng(1).standard_normal(tuple(tout.shape))
        x.grad, tx.grad = None, None
        (out * tt.tensor(g)).sum().backward(retain_graph=True)
        (tout * torch.tensor(g)).sum().backward(retain_graph=True)
        _eq(x.grad, tx.grad, TOL[np.float64])
    assert [tuple(s.shape) for s in ur.unpack_sequence(p)] == [tuple(s.shape) for s in tur.unpack_sequence(tp)]
    for s, ts in zip(ur.unpack_sequence(p), tur.unpack_sequence(tp)):
        _eq(s, ts)
        assert type(s.grad_fn).__name__ == type(ts.grad_fn).__name__


@pytest.mark.parametrize("batch_first", [False, True])
@pytest.mark.parametrize("side", ["right", "left"])
def test_pad_sequence_and_unpad(batch_first, side):
    rng = np.random.default_rng(2)
    pairs = [_both(rng.standard_normal((n, 3))) for n in (2, 4, 1)]
    out = ur.pad_sequence([a for a, _ in pairs], batch_first=batch_first, padding_value=0.5, padding_side=side)
    tout = tur.pad_sequence([b for _, b in pairs], batch_first=batch_first, padding_value=0.5, padding_side=side)
    _eq(out, tout)
    assert type(out.grad_fn).__name__ == type(tout.grad_fn).__name__
    g = rng.standard_normal(tuple(tout.shape))
    (out * tt.tensor(g)).sum().backward()
    (tout * torch.tensor(g)).sum().backward()
    for a, b in pairs:
        _eq(a.grad, b.grad)
    if side == "right":
        lens = [2, 4, 1]
        for s, ts in zip(ur.unpad_sequence(out, tt.tensor(lens), batch_first),
                         tur.unpad_sequence(tout, torch.tensor(lens), batch_first)):
            _eq(s, ts)
            assert type(s.grad_fn).__name__ == type(ts.grad_fn).__name__
    _eq(ur.pad_sequence(tt.ones(2, 3)), tur.pad_sequence(torch.ones(2, 3)))


def test_pack_sequence_and_errors():
    rng = np.random.default_rng(3)
    seqs = [rng.standard_normal((n, 2)) for n in (1, 3, 2)]
    p = ur.pack_sequence([tt.tensor(s) for s in seqs], enforce_sorted=False)
    tp = tur.pack_sequence([torch.tensor(s) for s in seqs], enforce_sorted=False)
    _eq_packed(p, tp)
    assert p.double() is p and p.float().data.dtype == tt.float32 and not p.is_cuda

    def same_error(fn):
        with pytest.raises(Exception) as want:
            fn(tur, torch)
        with pytest.raises(type(want.value)) as got:
            fn(ur, tt)
        assert str(got.value) == str(want.value)

    same_error(lambda u, lib: u.pack_sequence([lib.zeros(1, 2), lib.zeros(3, 2)]))
    same_error(lambda u, lib: u.pack_padded_sequence(lib.zeros(4, 3, 2), [4, 2, 0]))
    same_error(lambda u, lib: u.pack_padded_sequence(lib.zeros(4, 3, 2), [4, 2]))
    same_error(lambda u, lib: u.pad_packed_sequence(u.pack_sequence([lib.zeros(3, 1)]), total_length=2))
    same_error(lambda u, lib: u.pad_sequence([lib.zeros(2, 1)], padding_side="mid"))
    same_error(lambda u, lib: u.pad_sequence([]))


def _pair(name, **kw):
    torch.manual_seed(0)
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        tm = getattr(torch.nn, name)(3, 4, **kw).double()
    m = getattr(tt.nn, name)(3, 4, **kw).double()
    m.load_state_dict({k: tt.tensor(v.numpy()) for k, v in tm.state_dict().items()})
    return m, tm


@pytest.mark.parametrize("name,kw", [("RNN", dict(num_layers=2, bidirectional=True)), ("GRU", dict(bias=False)),
                                     ("LSTM", dict(bidirectional=True, proj_size=2)), ("LSTM", dict(num_layers=2))])
@pytest.mark.parametrize("enforce", [True, False])
def test_modules_on_packed_input(name, kw, enforce):
    m, tm = _pair(name, **kw)
    rng = np.random.default_rng(4)
    lengths = [5, 3, 3, 1] if enforce else [3, 5, 1, 3]
    x, tx = _both(rng.standard_normal((5, 4, 3)))
    dirs = m.num_layers * (2 if m.bidirectional else 1)
    h, th = _both(rng.standard_normal((dirs, 4, m.proj_size or 4)))
    c, tc = _both(rng.standard_normal((dirs, 4, 4)))
    p = ur.pack_padded_sequence(x, lengths, enforce_sorted=enforce)
    tp = tur.pack_padded_sequence(tx, lengths, enforce_sorted=enforce)
    out, hid = m(p, (h, c) if name == "LSTM" else h)
    tout, thid = tm(tp, (th, tc) if name == "LSTM" else th)
    assert isinstance(out, ur.PackedSequence)
    _eq_packed(out, tout, TOL[np.float64])
    assert type(out.data.grad_fn).__name__ == type(tout.data.grad_fn).__name__
    states = list(hid) if name == "LSTM" else [hid]
    tstates = list(thid) if name == "LSTM" else [thid]
    loss, tloss = (out.data * 1.5).sum(), (tout.data * 1.5).sum()
    for s, ts in zip(states, tstates):
        _eq(s, ts, TOL[np.float64])
        assert type(s.grad_fn).__name__ == type(ts.grad_fn).__name__
        w = rng.standard_normal(tuple(ts.shape))
        loss, tloss = loss + (s * tt.tensor(w)).sum(), tloss + (ts * torch.tensor(w)).sum()
    loss.backward()
    tloss.backward()
    for a, b in ((x, tx), (h, th)) + (((c, tc),) if name == "LSTM" else ()):
        _eq(a.grad, b.grad, TOL[np.float64])
    for (n, q), (_, tq) in zip(m.named_parameters(), tm.named_parameters()):
        np.testing.assert_allclose(q.grad.numpy(), tq.grad.numpy(), err_msg=n, **TOL[np.float64])


@pytest.mark.parametrize("name", ["GRU", "LSTM"])
def test_packed_equals_each_sequence_alone(name):
    """A packed batch gives each sequence exactly what running it alone (unbatched) gives."""
    tt.manual_seed(5)
    m = getattr(tt.nn, name)(3, 4, num_layers=2, bidirectional=True)
    seqs = [tt.randn(n, 3) for n in (2, 5, 3)]
    out, hid = m(ur.pack_sequence(seqs, enforce_sorted=False))
    padded, lengths = ur.pad_packed_sequence(out, batch_first=True)
    h_n = hid[0] if name == "LSTM" else hid
    for i, s in enumerate(seqs):
        o, hs = m(s)
        hs = hs[0] if name == "LSTM" else hs
        np.testing.assert_allclose(padded[i, :len(s)].detach().numpy(), o.detach().numpy(), rtol=1e-5, atol=1e-6)
        assert np.all(padded[i, len(s):].detach().numpy() == 0)
        np.testing.assert_allclose(h_n[:, i].detach().numpy(), hs.detach().numpy(), rtol=1e-5, atol=1e-6)


def test_packed_gradcheck_and_gradgradcheck():
    tt.manual_seed(6)
    m = tt.nn.LSTM(1, 2, bidirectional=True).double()
    x = tt.randn(3, 2, 1, dtype=tt.float64, requires_grad=True)

    def f(x):
        out, (h, c) = m(ur.pack_padded_sequence(x, [3, 1]))
        return out.data, h, c

    assert gradcheck(f, (x,))
    assert gradgradcheck(f, (x,))
