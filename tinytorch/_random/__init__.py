"""PyTorch's CPU random streams in numpy: the engine and state, the ``Generator`` over it and
the default generator (``engine``; ``tinytorch.random`` is the public module), exact fused
multiply-adds and glibc's math (``fpmath``), the normal kernels (``normal``; PyTorch's AVX2 one is
``tinytorch/_cpu/avx2_normal.py``), the other distributions (``draws``) and the tensor functions built on them
(``tinytorch/_ops/random/sampling.py``)."""
