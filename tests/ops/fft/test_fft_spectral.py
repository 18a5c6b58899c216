"""stft/istft and the window functions (torch.*_window, torch.signal.windows) against PyTorch:
values, dtypes, gradients, errors."""
import warnings

import numpy as np
import pytest

import tinytorch as tt

from _oracle import torch  # noqa: E402  (PyTorch when a test reads it)

RNG = np.random.default_rng(0)
SIGNALS = {"real": RNG.standard_normal(40), "batch": RNG.standard_normal((2, 37)),
           "complex": RNG.standard_normal(40) + 1j * RNG.standard_normal(40)}


@pytest.fixture(autouse=True)
def _quiet():
    with warnings.catch_warnings():
        warnings.simplefilter("ignore", UserWarning)
        yield


def _window(T, name, n):
    return None if name is None else getattr(T, name)(n, dtype=T.float64)


def _weights(shape, is_complex):
    w = np.random.default_rng(1).standard_normal(shape)
    return w * (1 + 0.5j) if is_complex else w


STFT = [dict(n_fft=8, return_complex=True), dict(n_fft=8, hop_length=3, return_complex=True),
        dict(n_fft=16, win_length=10, hop_length=4, return_complex=True),
        dict(n_fft=8, center=False, return_complex=True), dict(n_fft=8, pad_mode="constant", return_complex=True),
        dict(n_fft=8, normalized=True, return_complex=True), dict(n_fft=8, onesided=False, return_complex=True),
        dict(n_fft=8, return_complex=False), dict(n_fft=9, hop_length=2, pad_mode="replicate", return_complex=True)]


@pytest.mark.parametrize("window", [None, "hann_window"])
@pytest.mark.parametrize("kw", STFT, ids=lambda kw: ",".join(f"{k}={v}" for k, v in kw.items()))
@pytest.mark.parametrize("signal", sorted(SIGNALS))
def test_stft(signal, kw, window):
    results = []
    for T in (tt, torch):
        x = T.tensor(SIGNALS[signal], requires_grad=True)
        y = T.stft(x, window=_window(T, window, kw.get("win_length") or kw["n_fft"]), **kw)
        w = T.tensor(_weights(tuple(y.shape), y.is_complex()), dtype=y.dtype)
        ((y * w).real.sum() if y.is_complex() else (y * w).sum()).backward()
        results.append((y.detach().numpy(), str(y.dtype).split(".")[-1], x.grad.resolve_conj().numpy()))
    (a, da, ga), (b, db, gb) = results
    assert a.shape == b.shape and da == db
    np.testing.assert_allclose(a, b, atol=1e-10)
    np.testing.assert_allclose(ga, gb, atol=1e-10)


ISTFT = [dict(n_fft=8), dict(n_fft=8, hop_length=3), dict(n_fft=16, win_length=10, hop_length=4),
         dict(n_fft=8, normalized=True), dict(n_fft=8, onesided=False)]


@pytest.mark.parametrize("length", [None, 30, 45])
@pytest.mark.parametrize("window", ["hann_window", None])
@pytest.mark.parametrize("kw", ISTFT, ids=lambda kw: ",".join(f"{k}={v}" for k, v in kw.items()))
@pytest.mark.parametrize("signal", sorted(SIGNALS))
def test_istft(signal, kw, window, length):
    data = SIGNALS[signal]
    is_complex = data.dtype.kind == "c"
    if is_complex:
        kw = dict(kw, onesided=False)
    results = []
    for T in (torch, tt):
        win = _window(T, window, kw.get("win_length") or kw["n_fft"])
        spec = T.stft(T.tensor(data), window=win, return_complex=True, **kw).detach().requires_grad_()
        try:
            y = T.istft(spec, window=win, length=length, return_complex=is_complex, **kw)
        except RuntimeError as e:  # a zero window envelope at the padded end: both refuse alike
            with pytest.raises(RuntimeError) as ours:
                tt.istft(tt.tensor(spec.detach().numpy()), window=_window(tt, window, kw.get("win_length") or kw["n_fft"]),
                         length=length, return_complex=is_complex, **kw)
            assert str(ours.value) == str(e)
            return
        w = T.tensor(_weights(tuple(y.shape), False))
        (y * w).real.sum().backward()
        results.append((y.detach().numpy(), str(y.dtype).split(".")[-1], spec.grad.resolve_conj().numpy()))
    (b, db, gb), (a, da, ga) = results
    assert a.shape == b.shape and da == db
    np.testing.assert_allclose(a, b, atol=1e-10)
    np.testing.assert_allclose(ga, gb, atol=1e-10)
    if length is None and window == "hann_window" and "win_length" not in kw:
        np.testing.assert_allclose(a, data[..., :a.shape[-1]], atol=1e-10)  # the round trip is lossless


@pytest.mark.parametrize("call", [
    lambda T: T.stft(T.ones(20), 8),
    lambda T: T.stft(T.ones(2, 2, 20), 8, return_complex=True),
    lambda T: T.stft(T.ones(20), 8, win_length=10, return_complex=True),
    lambda T: T.stft(T.ones(20), 8, hop_length=0, return_complex=True),
    lambda T: T.stft(T.ones(20), 8, window=T.ones(5), return_complex=True),
    lambda T: T.istft(T.ones(5, 3), 8),
    lambda T: T.istft(T.ones(5, 3, dtype=T.cfloat), 8, window=T.zeros(8)),
    lambda T: T.hann_window(5, dtype=T.int64),
    lambda T: T.hann_window(-1),
    lambda T: T.signal.windows.hann(-1),
    lambda T: T.signal.windows.hann(3, dtype=T.int64),
    lambda T: T.signal.windows.gaussian(3, std=0),
    lambda T: T.signal.windows.exponential(3, center=1.0),
    lambda T: T.signal.windows.kaiser(3, beta=-1.0),
])
def test_errors(call):
    with pytest.raises(Exception) as theirs:
        call(torch)
    with pytest.raises(type(theirs.value)) as ours:
        call(tt)
    assert str(ours.value) == str(theirs.value).replace("torch.int64", "tinytorch.int64")


@pytest.mark.parametrize("dtype", ["float32", "float64"])
@pytest.mark.parametrize("periodic", [True, False])
@pytest.mark.parametrize("n", [0, 1, 2, 5, 8])
@pytest.mark.parametrize("name", ["hann_window", "hamming_window", "blackman_window", "bartlett_window",
                                  "kaiser_window"])
def test_windows(name, n, periodic, dtype):
    ours = getattr(tt, name)(n, periodic, dtype=getattr(tt, dtype))
    theirs = getattr(torch, name)(n, periodic, dtype=getattr(torch, dtype))
    assert ours.dtype.name == dtype == str(theirs.dtype).split(".")[-1]
    np.testing.assert_allclose(ours.numpy(), theirs.numpy(), atol=1e-6)


def test_window_parameters():
    pairs = [(tt.hamming_window(7, False, 0.5, 0.4), torch.hamming_window(7, False, 0.5, 0.4)),
             (tt.kaiser_window(9, True, 5.0), torch.kaiser_window(9, True, 5.0)),
             (tt.hann_window(4, requires_grad=True), torch.hann_window(4, requires_grad=True))]
    for ours, theirs in pairs:
        np.testing.assert_allclose(ours.detach().numpy(), theirs.detach().numpy(), atol=1e-6)
        assert ours.requires_grad == theirs.requires_grad


@pytest.mark.parametrize("sym", [True, False])
@pytest.mark.parametrize("n", [0, 1, 2, 5, 8])
@pytest.mark.parametrize("name", ["cosine", "exponential", "gaussian", "hann", "hamming", "blackman", "bartlett",
                                  "kaiser", "nuttall", "general_hamming"])
def test_signal_windows(name, n, sym):
    ours = getattr(tt.signal.windows, name)(n, sym=sym)
    theirs = getattr(torch.signal.windows, name)(n, sym=sym)
    np.testing.assert_allclose(ours.numpy(), theirs.detach().numpy(), atol=1e-6)


def test_signal_window_parameters():
    calls = [lambda W, T: W.general_cosine(7, a=[0.4, 0.3, 0.3], dtype=T.float64),
             lambda W, T: W.exponential(7, center=2.0, sym=False, tau=2.0),
             lambda W, T: W.gaussian(6, std=2.5), lambda W, T: W.kaiser(6, beta=3.0, sym=False),
             lambda W, T: W.general_hamming(5, alpha=0.6)]
    for call in calls:
        ours, theirs = call(tt.signal.windows, tt), call(torch.signal.windows, torch)
        assert str(ours.dtype).split(".")[-1] == str(theirs.dtype).split(".")[-1]
        np.testing.assert_allclose(ours.numpy(), theirs.detach().numpy(), atol=1e-6)
