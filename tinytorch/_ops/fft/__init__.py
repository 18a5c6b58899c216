"""torch.fft's transforms, stft/istft and the window functions (torch.hann_window ..., torch.signal.windows)."""
