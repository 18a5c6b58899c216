"""PyTorch's CPU paths: what makes tinytorch fast, and what gives PyTorch's bits where its CPU kernels round
another way than the plain formula (fused multiply-adds, oneDNN's polynomials, BLAS orders, libm), each
registered onto an op's declaration with a guard saying when it applies (``_ops/_core/paths.py``). The op
files never import this package. ``TINYTORCH_REFERENCE=1`` leaves it unloaded: every op then runs the
reference its file declares."""
from .._ops._core.paths import REFERENCE

if not REFERENCE:
    from . import (attention, batch_norm, conv, creation, dropout, engine, gelu, grid_sample, nll_sums, norm,  # noqa: F401
                   pointwise, pool, products, random, reduce, relu, resize, rnn, select, sgd, softmax, sparse)
