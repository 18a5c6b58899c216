"""Array kernels kept apart from the op declarations: code that exists only for speed or to give
PyTorch's CPU kernels' exact floats (fused multiply-adds, BLAS calls through ctypes, im2col,
the LSTM time loops, PyTorch's selection order, oneDNN's GELU, the flash-attention kernel's steps, the
antialiased resize's window walk, mul's gradient products). The ops' formulas are the truth;
these compute the same values faster or bit for bit. ``compiled/``: the optional numba kernels (the
``[fast]`` extra), loaded on first use, each the numpy path's floats bit for bit."""
