"""More products (PyTorch's Blas/LinearAlgebra composites): ``inner``, ``vdot``, ``addr``, ``addbmm``,
and the norms ``dist`` and ``renorm``. Written with matmul, broadcasting and vector_norm, so their
gradients (and second derivatives) are those ops'."""
from __future__ import annotations

from ...tensor import Tensor, _wrap_dim
from .._core.batching import composite
from .._core.record import legacy_name
from .._core.registry import op
from .._core.util import broadcast_shapes
from .norms import vector_norm


def _shape(t: Tensor) -> str:
    return "[" + ", ".join(map(str, t.shape)) + "]"


@op(variants="function method out", batch=composite)
def inner(input: Tensor, other: Tensor) -> Tensor:
    """Sum over the last dimensions of both: out[i..., j...] = sum_k input[i..., k] * other[j..., k]."""
    if input.dim() == 0 or other.dim() == 0:
        return input * other
    k = input.shape[-1]
    if other.shape[-1] != k:
        raise RuntimeError(f"inner() the last dimension must match on both input tensors but got shapes "
                           f"{_shape(input)} and {_shape(other)}")
    out = input.reshape(-1, k).matmul(other.reshape(-1, k).t())
    return out.reshape(tuple(input.shape[:-1]) + tuple(other.shape[:-1]))


@op(variants="function method out", batch=composite)
def vdot(input: Tensor, other: Tensor) -> Tensor:
    """The dot product of two 1-d tensors (the first conjugated: nothing to do for real ones)."""
    if input.dim() != 1 or other.dim() != 1:
        raise RuntimeError(f"1D tensors expected, but got {input.dim()}D and {other.dim()}D tensors")
    if input.dtype != other.dtype:
        raise RuntimeError(f"vdot : expected both vectors to have same dtype, but found "
                           f"{legacy_name(input._data.dtype)} and {legacy_name(other._data.dtype)}")
    if input.shape[0] != other.shape[0]:
        raise RuntimeError(f"inconsistent tensor size, expected tensor [{input.shape[0]}] and src [{other.shape[0]}] "
                           f"to have the same number of elements, but got {input.shape[0]} and {other.shape[0]} "
                           "elements respectively")
    return (input.conj() if input.is_complex() else input).dot(other)


def _scaled_sum(input: Tensor, product: Tensor, beta, alpha) -> Tensor:
    """beta * input + alpha * product, with input ignored (NaN included) when beta is 0."""
    if input.dtype.name == "bool" and product.dtype.name == "bool":
        prod = product if alpha else product & False
        return prod if not beta else (input | prod)
    scaled = product if alpha == 1 else product * alpha
    if scaled.dtype != product.dtype and not product.is_floating_point():
        scaled = scaled.to(product.dtype)  # an integer op keeps its dtype: alpha is cast to it
    if beta == 0:
        return scaled.expand(_broadcast(input, scaled))
    return (input if beta == 1 else input * beta) + scaled


def _broadcast(a: Tensor, b: Tensor) -> tuple:
    return broadcast_shapes(tuple(a.shape), tuple(b.shape))


@op(variants="function method inplace out", batch=composite)
def addr(input: Tensor, vec1: Tensor, vec2: Tensor, *, beta=1, alpha=1) -> Tensor:
    """beta * input + alpha * (the outer product of vec1 and vec2)."""
    if vec1.dim() != 1 or vec2.dim() != 1:
        raise RuntimeError(f"addr: Expected 1-D argument vec1, but got {vec1.dim()}-D" if vec1.dim() != 1 else
                           f"addr: Expected 1-D argument vec2, but got {vec2.dim()}-D")
    if not input.is_floating_point() and input.dtype.name != "bool":
        for name, v in (("beta", beta), ("alpha", alpha)):
            if isinstance(v, float):
                raise RuntimeError(f"For integral input tensors, argument {name} must not be a floating point number.")
    outer = vec1.unsqueeze(1) & vec2.unsqueeze(0) if vec1.dtype.name == "bool" == vec2.dtype.name else \
        vec1.unsqueeze(1) * vec2.unsqueeze(0)
    return _scaled_sum(input, outer, beta, alpha)


@op(variants="function method inplace out", batch=composite)
def addbmm(input: Tensor, batch1: Tensor, batch2: Tensor, *, beta=1, alpha=1) -> Tensor:
    """beta * input + alpha * (the sum over the batch of batch1[i] @ batch2[i])."""
    if batch1.dim() != 3 or batch2.dim() != 3:
        raise RuntimeError("batch1 must be a 3D tensor" if batch1.dim() != 3 else "batch2 must be a 3D tensor")
    if batch1.shape[0] != batch2.shape[0]:
        raise RuntimeError(f"batch1 and batch2 must have same number of batches, got {batch1.shape[0]} and "
                           f"{batch2.shape[0]}")
    if not (batch1.is_floating_point() or batch1.is_complex()):
        beta, alpha = int(beta), int(alpha)  # addbmm casts them to the integer dtype, without a word
    # one product over the batch and inner dimensions together: a single sum per element
    b, n, m = batch1.shape
    total = batch1.permute(1, 0, 2).reshape(n, b * m).matmul(batch2.reshape(b * m, batch2.shape[2]))
    return _scaled_sum(input, total, beta, alpha)


@op(variants="function method", batch=composite)
def dist(input: Tensor, other: Tensor, p=2) -> Tensor:
    """The p-norm of input - other."""
    return vector_norm(input - other, p)


@op(variants="function method inplace out", batch=composite)
def renorm(input: Tensor, p, dim: int, maxnorm) -> Tensor:
    """``input`` with each slice along ``dim`` whose p-norm exceeds ``maxnorm`` scaled down to it."""
    if input.dim() <= 1:
        raise RuntimeError(f"renorm: input needs at least 2 dimensions, got {input.dim()} dimensions")
    if p <= 0:
        raise RuntimeError("renorm: non-positive-norm not supported")
    if maxnorm < 0:
        raise RuntimeError(f"renorm: expected maxnorm to be >= 0 but got {maxnorm}")
    d = _wrap_dim(dim, input.dim())
    others = tuple(i for i in range(input.dim()) if i != d)
    norm = vector_norm(input, p, others, keepdim=True)
    factor = (maxnorm / (norm + 1e-7)).where(norm > maxnorm, norm * 0 + 1)
    return input * factor
