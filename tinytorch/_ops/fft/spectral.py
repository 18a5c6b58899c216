"""``stft`` and ``istft``, composed of differentiable ops as PyTorch composes them: padding, framing
(an index gather), the window, ``torch.fft``'s transforms, and overlap-add (``index_add``)."""
from __future__ import annotations

import warnings

import numpy as np

from ..._meta_array import MetaArray
from ...tensor import Tensor, _make
from . import fft as _fft
from .._core.registry import op
from ..pointwise.complex import view_as_real
from ..nn.pad import pad as _pad


def _describe(t: Tensor | None) -> str:
    if t is None:
        return "None"
    return f"torch.{t.dtype._legacy}{{[{', '.join(map(str, t.shape))}]}}"


def _padded_window(window: Tensor | None, win_length: int, n_fft: int, like: Tensor) -> Tensor | None:
    """The window centred in ``n_fft`` samples (None: rectangular over ``win_length``)."""
    if window is None:
        if win_length == n_fft:
            return None
        window = like.new_ones(win_length)
    if win_length < n_fft:
        left = (n_fft - win_length) // 2
        window = _pad(window, (left, n_fft - win_length - left))
    return window


def _frame_index(n_frames: int, n_fft: int, hop: int, meta: bool = False) -> Tensor:
    """(frames, n_fft): each frame's positions in the signal; ``meta``: for a meta signal, their shape only."""
    if meta:
        return _make(MetaArray((n_frames, n_fft), np.int64))
    return _make(np.arange(n_fft)[None, :] + hop * np.arange(n_frames)[:, None])


@op(variants="function method", batch=None, autocast="fp32", python_method=True)
def stft(input: Tensor, n_fft: int, hop_length=None, win_length=None, window=None, center: bool = True,
         pad_mode: str = "reflect", normalized: bool = False, onesided=None, return_complex=None,
         align_to_window=None) -> Tensor:
    """Short-time Fourier transform: (n_fft // 2 + 1 or n_fft) frequencies by frames."""
    is_complex = input._data.dtype.kind == "c" or (window is not None and window._data.dtype.kind == "c")
    if return_complex is None:
        if not is_complex:
            raise RuntimeError("stft requires the return_complex parameter be given for real inputs, and will "
                               "further require that return_complex=True in a future PyTorch release.")
        return_complex = True
    if window is None:
        warnings.warn("A window was not provided. A rectangular window will be applied,which is known to cause "
                      "spectral leakage. Other windows such as torch.hann_window or torch.hamming_window are "
                      "recommended to reduce spectral leakage.To suppress this warning and use a rectangular window, "
                      "explicitly set `window=torch.ones(n_fft, device=<device>)`.", UserWarning, stacklevel=2)
    if not return_complex:
        warnings.warn("stft with return_complex=False is deprecated. In a future pytorch release, stft will return "
                      "complex tensors for all inputs, and return_complex=False will raise an error.\nNote: you can "
                      "still call torch.view_as_real on the complex output to recover the old return format.",
                      UserWarning, stacklevel=2)
    hop = n_fft // 4 if hop_length is None else hop_length
    win = n_fft if win_length is None else win_length
    x = input
    if center and x._data.ndim in (1, 2):
        batched = x.reshape((1,) * (3 - x._data.ndim) + tuple(x.shape))
        half = n_fft // 2
        x = _pad(batched, (half, half), mode=pad_mode).reshape(tuple(x.shape[:-1]) + (x.shape[-1] + 2 * half,))
    elif center:
        x = _pad(x, (n_fft // 2, n_fft // 2), mode=pad_mode) if x._data.ndim == 3 else x

    def fail(why: str):
        return RuntimeError(f"stft(torch.{x.dtype._legacy}[{', '.join(map(str, x.shape))}], n_fft={n_fft}, "
                            f"hop_length={hop}, win_length={win}, window={_describe(window)}, "
                            f"normalized={int(normalized)}, onesided={'None' if onesided is None else int(onesided)}, "
                            f"return_complex={int(return_complex)}, align_to_window={align_to_window}) : {why}")

    if x._data.ndim not in (1, 2):
        raise fail("expected a 1D or 2D tensor")
    length = x._data.shape[-1]
    if n_fft <= 0 or n_fft > length:
        raise fail(f"expected 0 < n_fft < {length}, but got n_fft={n_fft}")
    if hop <= 0:
        raise fail(f"expected hop_length > 0, but got hop_length={hop}")
    if win <= 0 or win > n_fft:
        raise fail(f"expected 0 < win_length <= n_fft, but got win_length={win}")
    if window is not None and (window._data.ndim != 1 or window._data.shape[0] != win):
        raise fail(f"expected a 1D window tensor of size equal to win_length={win}, but got window with size "
                   f"[{', '.join(map(str, window.shape))}]")
    n_frames = 1 + (length - n_fft) // hop
    frames = x[..., _frame_index(n_frames, n_fft, hop, type(x._data) is MetaArray)]  # (..., frames, n_fft)
    w = _padded_window(window, win, n_fft, x)
    if w is not None:
        frames = frames * w
    norm = "ortho" if normalized else "backward"
    one = (not is_complex) if onesided is None else onesided
    spec = _fft.rfft(frames, norm=norm) if one else _fft.fft(frames, norm=norm)
    spec = spec.transpose(-1, -2)
    if not return_complex:
        return view_as_real(spec)
    return spec


@op(variants="function method", batch=None, python_method=True)
def istft(input: Tensor, n_fft: int, hop_length=None, win_length=None, window=None, center: bool = True,
          normalized: bool = False, onesided=None, length=None, return_complex: bool = False) -> Tensor:
    """The inverse of ``stft``: overlap-add of the inverse transforms, divided by the summed squared window."""
    if input._data.dtype.kind != "c":
        raise RuntimeError("istft requires a complex-valued input tensor matching the output from stft with "
                           "return_complex=True.")
    if window is None:
        warnings.warn("A window was not provided. A rectangular window will be applied.Please provide the same "
                      "window used by stft to make the inversion lossless.To suppress this warning and use a "
                      "rectangular window, explicitly set `window=torch.ones(n_fft, device=<device>)`.",
                      UserWarning, stacklevel=2)
    hop = n_fft // 4 if hop_length is None else hop_length
    win = n_fft if win_length is None else win_length
    spec = input if input._data.ndim == 3 else input.unsqueeze(0)
    n_freq, n_frames = spec._data.shape[-2], spec._data.shape[-1]
    one = (n_freq != n_fft) if onesided is None else onesided
    norm = "ortho" if normalized else "backward"
    frames = spec.transpose(-1, -2)  # (batch, frames, freq)
    if return_complex:
        if one:
            raise RuntimeError("cannot have onesided output if window or input is complex")
        frames = _fft.ifft(frames, n=n_fft, norm=norm)
    else:
        # a real signal: only the first half of a two-sided spectrum is read, as PyTorch does
        frames = _fft.irfft(frames if one else frames[..., :n_fft // 2 + 1], n=n_fft, norm=norm)
    w = _padded_window(window, win, n_fft, frames.real if frames._data.dtype.kind == "c" else frames)
    if w is None:
        w = frames.new_ones(n_fft) if frames._data.dtype.kind != "c" else frames.real.new_ones(n_fft)
    frames = frames * w
    expected = n_fft + hop * (n_frames - 1)
    index = _frame_index(n_frames, n_fft, hop).reshape(-1)
    batch = frames._data.shape[0]
    y = frames.new_zeros((batch, expected)).index_add(1, index, frames.reshape(batch, -1))
    envelope = (w * w).new_zeros(expected).index_add(0, index, (w * w).repeat(n_frames))
    start = n_fft // 2 if center else 0
    end = expected - n_fft // 2 if center else expected
    if length is not None:
        end = start + length
    y = y[:, start:min(end, expected)]
    envelope = envelope[start:min(end, expected)]
    if bool((envelope.abs() < 1e-11).any()):
        kind = "CPUComplexFloatType" if input._data.dtype == np.complex64 else "CPUComplexDoubleType"
        raise RuntimeError(f"istft({kind}[{', '.join(map(str, input.shape))}], n_fft={n_fft}, hop_length={hop}, "
                           f"win_length={win}, window={_describe(window)}, center={int(center)}, "
                           f"normalized={int(normalized)}, onesided={'None' if onesided is None else int(onesided)}, "
                           f"length={length}, return_complex={int(return_complex)}) window overlap add min: 1\n"
                           "[ CPUBoolType{} ]")
    y = y / envelope
    if end > expected:
        y = _pad(y, (0, end - expected))
    return y if input._data.ndim == 3 else y.squeeze(0)
