"""clip_grad_norm_'s total norm as PyTorch computes it: each gradient's 2-norm by PyTorch's CPU norm kernel (8
float32 or 4 float64 lanes summed sequentially, the lanes added, the tail fused), then the norm of those norms,
so a training clipped at every step (lr 20 in the word language model) prints PyTorch's numbers. Bit for bit
on PyTorch's default and AVX2/AVX512 CPU paths (the kernel's lanes are 32-byte vectors on each)."""
import numpy as np
import pytest

import tinytorch

from _oracle import torch  # noqa: E402  (PyTorch when a test reads it)


def _params(lib, grads):
    params = []
    for g in grads:
        p = lib.nn.Parameter(lib.zeros(g.shape, dtype=getattr(lib, str(g.dtype))))
        p.grad = lib.tensor(g)
        params.append(p)
    return params


def _clip(lib, grads, *args, **kwargs):
    params = _params(lib, grads)
    total = lib.nn.utils.clip_grad_norm_(params, *args, **kwargs)
    return total, [p.grad for p in params]


def _assert_same(want, got):
    (wt, wg), (gt, gg) = want, got
    assert str(gt.dtype).split(".")[-1] == str(wt.dtype).split(".")[-1]
    np.testing.assert_array_equal(gt.numpy(), wt.numpy())
    for w, g in zip(wg, gg):
        np.testing.assert_array_equal(g.numpy(), w.numpy())


@pytest.mark.parametrize("dtype", ["float32", "float64"])
@pytest.mark.parametrize("seed", range(12))
def test_total_norm_bit_for_bit(dtype, seed):
    rng = np.random.default_rng(seed)
    shapes = [tuple(int(n) for n in rng.integers(1, 300, rng.integers(1, 3))) for _ in range(rng.integers(1, 6))]
    grads = [(rng.standard_normal(s) * rng.uniform(0.1, 100)).astype(dtype) for s in shapes]
    _assert_same(_clip(torch, grads, 0.25), _clip(tinytorch, grads, 0.25))


@pytest.mark.parametrize("n", [1, 3, 7, 8, 9, 100, 1000, 4097, 65536, 650_000])
def test_gradient_sizes(n):
    rng = np.random.default_rng(n)
    grads = [rng.standard_normal(n).astype(np.float32), rng.standard_normal(3).astype(np.float32)]
    _assert_same(_clip(torch, grads, 1.0), _clip(tinytorch, grads, 1.0))


def test_transposed_gradient_in_memory_order():
    g = np.random.default_rng(0).standard_normal((300, 201)).astype(np.float32)
    want = torch.nn.utils.get_total_norm([torch.tensor(g).t()])
    got = tinytorch.nn.utils.get_total_norm([tinytorch.tensor(g).t()])
    np.testing.assert_array_equal(got.numpy(), want.numpy())


@pytest.mark.parametrize("norm_type", [1.0, 3.0, float("inf")])
def test_other_norm_types_within_rounding(norm_type):
    rng = np.random.default_rng(1)
    grads = [rng.standard_normal(s).astype(np.float32) for s in ((40, 30), (7,), (1000,))]
    (wt, wg), (gt, gg) = _clip(torch, grads, 0.5, norm_type=norm_type), _clip(tinytorch, grads, 0.5,
                                                                                norm_type=norm_type)
    np.testing.assert_allclose(gt.numpy(), wt.numpy(), rtol=1e-6)
    for w, g in zip(wg, gg):
        np.testing.assert_allclose(g.numpy(), w.numpy(), rtol=1e-6)


@pytest.mark.parametrize("foreach", [None, True, False])
def test_foreach_spellings(foreach):
    grads = [np.ones(3, np.float32), np.full(5, 2.0, np.float32)]
    _assert_same(_clip(torch, grads, 1.0, foreach=foreach), _clip(tinytorch, grads, 1.0, foreach=foreach))


@pytest.mark.parametrize("bad", [np.inf, np.nan, 3e38])
def test_nonfinite(bad):
    grads = [np.array([bad, 1.0, 2.0], np.float32)]
    with pytest.raises(RuntimeError) as want:
        _clip(torch, grads, 1.0, error_if_nonfinite=True)
    with pytest.raises(RuntimeError) as got:
        _clip(tinytorch, grads, 1.0, error_if_nonfinite=True)
    assert str(got.value) == str(want.value)
    want, got = _clip(torch, grads, 1.0), _clip(tinytorch, grads, 1.0)
    np.testing.assert_array_equal(got[0].numpy(), want[0].numpy())
    np.testing.assert_array_equal(got[1][0].numpy(), want[1][0].numpy())


@pytest.mark.parametrize("max_norm", [0.1, 0.3, 5.0])
@pytest.mark.parametrize("seed", range(4))
def test_coefficient_as_pytorch_steps(max_norm, seed):
    # max_norm / (total + 1e-6) is PyTorch's Tensor.__rtruediv__: (total + 1e-6).reciprocal() * max_norm, two
    # roundings (a max_norm of a power of two, as above, cannot tell that from one division)
    rng = np.random.default_rng(seed)
    grads = [(rng.standard_normal(n) * rng.uniform(0.1, 100)).astype(np.float32) for n in (8, 16, 64, 256)]
    _assert_same(_clip(torch, grads, max_norm), _clip(tinytorch, grads, max_norm))


@pytest.mark.parametrize("dtype", ["float16", "bfloat16"])
@pytest.mark.parametrize("scale", [1e-3, 1.0, 1000.0])
def test_half_and_bfloat16_gradients(dtype, scale):
    # each norm accumulated in float32 and rounded once, as PyTorch's kernel (squares in half overflowed to inf
    # at 1000, and bfloat16's running sum stalled); the coefficient's steps each rounded to the norm's dtype
    rng = np.random.default_rng(7)
    grads = [(rng.standard_normal(n) * scale).astype(np.float32) for n in (5, 300, 1500)]
    out = []
    for lib in (torch, tinytorch):
        params = [lib.nn.Parameter(lib.zeros(len(g), dtype=getattr(lib, dtype))) for g in grads]
        for p, g in zip(params, grads):
            p.grad = lib.tensor(g).to(getattr(lib, dtype))
        total = lib.nn.utils.clip_grad_norm_(params, 0.3)
        out.append([total.float().numpy()] + [p.grad.float().numpy() for p in params])
    for w, g in zip(*out):
        np.testing.assert_array_equal(g, w)
