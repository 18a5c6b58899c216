"""Ops on meta tensors end as PyTorch's meta kernels end them: the same results' shapes and strides (and their
gradients'), or the same error type and text where PyTorch refuses (a backward with no meta kernel, a value read
through ``item()``). Each case runs one function under both libraries; the CPU results of the ops changed along
with them are compared with PyTorch's too."""
import warnings

import numpy as np
import pytest

import tinytorch as tt

torch = pytest.importorskip("torch")


def _seen(x):
    if isinstance(x, (tuple, list)):
        return [_seen(v) for v in x]
    if hasattr(x, "stride"):
        return tuple(x.shape), tuple(x.stride()), str(x.dtype).split(".")[-1], x.device.type
    return x


def _outcome(fn, lib):
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        try:
            return "ok", _seen(fn(lib))
        except Exception as e:  # noqa: BLE001 - the outcome is compared
            return type(e).__name__, str(e)


def _meta(lib, *shape, dtype=None, grad=False):
    return lib.empty(*shape, device="meta", dtype=dtype or lib.float32, requires_grad=grad)


def _grad(lib, out, inputs):
    outs = [o for o in (out if isinstance(out, (tuple, list)) else (out,)) if o.requires_grad]
    return lib.autograd.grad(outs, inputs, [lib.empty_like(o) for o in outs], allow_unused=True)


def _ctc_backward(lib):
    lp = _meta(lib, 50, 16, 20, grad=True)
    loss = lib.nn.functional.ctc_loss(lp, _meta(lib, 16, 30, dtype=lib.long), [50] * 16, [30] * 16, reduction="sum")
    return _grad(lib, loss, [lp])


def _ctc_tensor_lengths(lib):
    return lib.nn.functional.ctc_loss(_meta(lib, 50, 16, 20), _meta(lib, 16, 30, dtype=lib.long),
                                      _meta(lib, 16, dtype=lib.long), _meta(lib, 16, dtype=lib.long))


def _fractional3d_backward(lib):
    x = _meta(lib, 2, 3, 9, 9, 9, grad=True)
    y = lib.nn.functional.fractional_max_pool3d(x, 2, output_size=(4, 4, 4))
    return _grad(lib, y, [x])


def _index_put_mask(lib):
    x, v = _meta(lib, 5, 5, grad=True), _meta(lib, 1, grad=True)
    return _grad(lib, x.index_put((_meta(lib, 5, 5, dtype=lib.bool),), v), [x, v])


def _index_fill_tensor_value(lib):
    x, v = _meta(lib, 5, 5, grad=True), _meta(lib, (), grad=True)
    return _grad(lib, x.index_fill(1, _meta(lib, 3, dtype=lib.long), v), [x, v])


def _masked_scatter(lib):
    x, s = _meta(lib, 4, 5, grad=True), _meta(lib, 3, 7, grad=True)
    return _grad(lib, x.masked_scatter(_meta(lib, 4, 5, dtype=lib.bool), s), [x, s])


CASES = {
    "ctc_loss_backward": _ctc_backward,
    "ctc_loss_tensor_lengths": _ctc_tensor_lengths,
    "fractional_max_pool3d_backward": _fractional3d_backward,
    "fractional_max_pool2d_backward": lambda lib: _grad(lib, lib.nn.functional.fractional_max_pool2d(
        x := _meta(lib, 2, 3, 9, 9, grad=True), 2, output_size=(4, 4)), [x]),
    "index_put_mask_value_grad": _index_put_mask,
    "index_fill_tensor_value_grad": _index_fill_tensor_value,
    "masked_scatter_source_grad": _masked_scatter,
    "gaussian_nll_loss_tensor_var": lambda lib: lib.nn.functional.gaussian_nll_loss(
        _meta(lib, 4, 3), _meta(lib, 4, 3), _meta(lib, 4, 3)),
    "gaussian_nll_loss_float_var": lambda lib: lib.nn.functional.gaussian_nll_loss(
        _meta(lib, 4, 3), _meta(lib, 4, 3), 0.5),
    "native_batch_norm_eval": lambda lib: lib.native_batch_norm(
        _meta(lib, 3, 2, 4), None, None, _meta(lib, 2), _meta(lib, 2), False, 0.1, 1e-5),
    "native_batch_norm_train": lambda lib: lib.native_batch_norm(
        _meta(lib, 3, 2, 4), None, None, _meta(lib, 2), _meta(lib, 2), True, 0.1, 1e-5),
    "resize_": lambda lib: [(x := _meta(lib, 4, 5)).resize_(25, 5), x],
    "resize_shrink": lambda lib: _meta(lib, 4, 5).resize_(3),
    "resize_as_": lambda lib: _meta(lib, 4, 5).resize_as_(_meta(lib, 2, 3, 2)),
    "dropout": lambda lib: lib.nn.functional.dropout(_meta(lib, 3, 4), 0.5),
    "dropout_p1": lambda lib: lib.nn.functional.dropout(_meta(lib, 3, 4), 1.0),
    "dropout_backward": lambda lib: _grad(lib, lib.nn.functional.dropout(x := _meta(lib, 3, 4, grad=True), 0.2),
                                          [x]),
    "svd_lowrank": lambda lib: lib.svd_lowrank(_meta(lib, 7, 5), q=3),
    "pca_lowrank": lambda lib: lib.pca_lowrank(_meta(lib, 5, 7), q=3),
    "hfft2_backward": lambda lib: _grad(lib, lib.fft.hfft2(x := _meta(lib, 3, 4, 5, grad=True)), [x]),
    "hfftn_backward": lambda lib: _grad(lib, lib.fft.hfftn(x := _meta(lib, 3, 4, 5, grad=True)), [x]),
    "hfftn_complex_backward": lambda lib: _grad(lib, lib.fft.hfftn(
        x := _meta(lib, 3, 4, 5, dtype=lib.complex64, grad=True), dim=(0, 2)), [x]),
}


@pytest.mark.parametrize("name", list(CASES))
def test_meta_outcome_is_pytorchs(name):
    want = _outcome(CASES[name], torch)
    assert _outcome(CASES[name], tt) == want


@pytest.mark.parametrize("norm", [None, "ortho", "forward"])
@pytest.mark.parametrize("fn, kw", [("hfft2", {}), ("hfftn", {}), ("hfftn", {"dim": (0, 2)}), ("hfft2", {"s": (4, 6)})])
@pytest.mark.parametrize("dtype", ["float64", "complex128"])
def test_hfftn_values_and_gradients_on_the_cpu(fn, kw, norm, dtype):
    """hfft2/hfftn computed as PyTorch does (c2c over all but the last dim, then c2r): PyTorch's values."""
    torch.manual_seed(0)
    x = torch.randn(2, 3, 4, 5, dtype=getattr(torch, dtype))
    a, b = x.clone().requires_grad_(), tt.tensor(x.numpy()).requires_grad_()
    ya, yb = getattr(torch.fft, fn)(a, norm=norm, **kw), getattr(tt.fft, fn)(b, norm=norm, **kw)
    np.testing.assert_allclose(yb.detach().numpy(), ya.detach().numpy(), rtol=1e-12, atol=1e-12)
    ga, = torch.autograd.grad(ya, a, torch.ones_like(ya) * torch.arange(ya.shape[-1]))
    gb, = tt.autograd.grad(yb, b, tt.ones_like(yb) * tt.arange(yb.shape[-1]))
    np.testing.assert_allclose(gb.resolve_conj().numpy(), ga.resolve_conj().numpy(), rtol=1e-12, atol=1e-12)


def test_native_batch_norm_eval_statistics_stay_empty_on_the_cpu():
    x = torch.randn(3, 2, 4)
    want = torch.native_batch_norm(x, None, None, torch.zeros(2), torch.ones(2), False, 0.1, 1e-5)
    got = tt.native_batch_norm(tt.tensor(x.numpy()), None, None, tt.zeros(2), tt.ones(2), False, 0.1, 1e-5)
    assert [_seen(t)[:3] for t in got] == [_seen(t)[:3] for t in want]
    np.testing.assert_allclose(got[0].numpy(), want[0].numpy(), rtol=1e-6)


def test_dropout_on_meta_draws_nothing():
    tt.manual_seed(3)
    before = tt.random.get_rng_state()
    tt.nn.functional.dropout(_meta(tt, 30, 40), 0.5)
    assert tt.equal(tt.random.get_rng_state(), before)
