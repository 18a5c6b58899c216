"""Complex tensors through nn layers against PyTorch: linear / nn.Linear (the fused addmm node and its
array fast path), the convolutions (PyTorch's three-real-convolution form), padding, embedding and
dropout. Values, dtypes, grad_fn names, gradients under PyTorch's convention for complex inputs
(conjugate Wirtinger), second derivatives, and the errors PyTorch raises."""
import numpy as np
import pytest

import tinytorch as tt

from _oracle import torch  # noqa: E402  (PyTorch when a test reads it)

RNG = np.random.default_rng(7)


def _c(*shape, dtype=np.complex64):
    return (RNG.standard_normal(shape) + 1j * RNG.standard_normal(shape)).astype(dtype)


def _close(ours, theirs, tol):
    assert str(ours.dtype).replace("tinytorch.", "") == str(theirs.dtype).replace("torch.", "")
    assert tuple(ours.shape) == tuple(theirs.shape)
    np.testing.assert_allclose(ours.detach().resolve_conj().numpy(), theirs.detach().resolve_conj().numpy(),
                               rtol=tol, atol=tol)


def _differential(fn, arrays, second=True):
    """fn(T, *leaves) in both libraries: output, grad_fn name, first gradients for a complex cotangent,
    and the gradients of |first gradients|^2 (a graph of the gradient: the conjugations compose)."""
    tol = 1e-4 if arrays[0].dtype == np.complex64 else 1e-10
    t_in = [torch.tensor(a, requires_grad=True) for a in arrays]
    o_in = [tt.tensor(a, requires_grad=True) for a in arrays]
    t_out, o_out = fn(torch, *t_in), fn(tt, *o_in)
    _close(o_out, t_out, tol)
    assert type(o_out.grad_fn).__name__ == t_out.grad_fn.name().replace("torch::autograd::", "")
    cot = _c(*t_out.shape, dtype=arrays[0].dtype)
    t_g = torch.autograd.grad(t_out, t_in, torch.tensor(cot), create_graph=second)
    o_g = tt.autograd.grad(o_out, o_in, tt.tensor(cot), create_graph=second)
    for ours, theirs in zip(o_g, t_g):
        _close(ours, theirs, tol * 10)
    second = second and any(g.requires_grad for g in t_g)  # a gradient that does not depend on the inputs
    assert second or not any(g.requires_grad for g in o_g)
    if second:
        t_gg = torch.autograd.grad(sum((g.abs() ** 2).sum() for g in t_g), t_in, allow_unused=True)
        o_gg = tt.autograd.grad(sum((g.abs() ** 2).sum() for g in o_g), o_in, allow_unused=True)
        for ours, theirs in zip(o_gg, t_gg):
            assert (ours is None) == (theirs is None)
            if theirs is not None:
                _close(ours, theirs, tol * 100)


# -- linear -------------------------------------------------------------------------------------------
@pytest.mark.parametrize("dtype", [np.complex64, np.complex128])
@pytest.mark.parametrize("shapes", [((4, 3), (5, 3), (5,)), ((4, 3), (5, 3), None), ((2, 4, 3), (5, 3), (5,)),
                                    ((2, 4, 3), (5, 3), None), ((3,), (5, 3), (5,)), ((3, 200), (130, 200), (130,))])
def test_linear(shapes, dtype):
    arrays = [_c(*s, dtype=dtype) for s in shapes if s is not None]
    has_bias = shapes[2] is not None
    _differential(lambda T, x, w, *b: T.nn.functional.linear(x, w, *b), arrays)
    # without a graph of the gradient: the fused node's array fast path
    _differential(lambda T, x, w, *b: T.nn.functional.linear(x, w, *b), arrays, second=False)
    assert has_bias or len(arrays) == 2


def test_linear_strided_input_and_weight_only():
    x = _c(3, 4, 2).transpose(1, 0, 2)
    w = _c(5, 2)
    _differential(lambda T, w: T.nn.functional.linear(T.tensor(x), w), [w])
    _differential(lambda T, w: T.nn.functional.linear(T.tensor(x), w), [w], second=False)


@pytest.mark.parametrize("dtype_name", ["cfloat", "cdouble"])
def test_nn_linear_module_training_step(dtype_name):
    """An nn.Linear with complex parameters: same parameters, a real loss, one SGD step, same weights."""
    x = _c(6, 3, dtype=np.complex64 if dtype_name == "cfloat" else np.complex128)
    results = []
    for T in (torch, tt):
        T.manual_seed(0)
        m = T.nn.Linear(3, 2, dtype=getattr(T, dtype_name))
        opt = T.optim.SGD(m.parameters(), lr=0.1)
        loss = (m(T.tensor(x)).abs() ** 2).mean()
        loss.backward()
        opt.step()
        results.append((loss.item(), m.weight.detach().numpy().copy(), m.bias.detach().numpy().copy()))
    for ours, theirs in zip(results[1], results[0]):
        np.testing.assert_allclose(ours, theirs, rtol=1e-5, atol=1e-6)


# -- convolutions -------------------------------------------------------------------------------------
CONVS = [
    ("conv1d", (2, 3, 9), (4, 3, 3), dict(padding=1)),
    ("conv1d", (3, 9), (4, 3, 3), dict(stride=2)),
    ("conv2d", (2, 4, 7, 6), (6, 2, 3, 2), dict(stride=(2, 1), padding=1, dilation=(1, 2), groups=2)),
    ("conv2d", (1, 2, 5, 5), (3, 2, 2, 2), dict(padding="same")),
    ("conv3d", (1, 2, 4, 5, 4), (3, 2, 2, 3, 2), dict(padding=1)),
    ("conv_transpose1d", (2, 3, 6), (3, 4, 3), dict(stride=2, output_padding=1)),
    ("conv_transpose2d", (2, 4, 4, 5), (4, 3, 3, 3), dict(stride=2, padding=1, groups=2)),
    ("conv_transpose3d", (1, 2, 3, 3, 3), (2, 2, 2, 2, 2), dict(stride=(2, 1, 1))),
]


@pytest.mark.parametrize("bias", [True, False])
@pytest.mark.parametrize("name,x_shape,w_shape,kwargs", CONVS)
def test_conv(name, x_shape, w_shape, kwargs, bias):
    out_c = w_shape[1] * kwargs.get("groups", 1) if "transpose" in name else w_shape[0]
    arrays = [_c(*x_shape), _c(*w_shape)] + ([_c(out_c)] if bias else [])
    # PyTorch's own padding='same' warning for even kernels is not what is compared here
    with np.errstate(all="ignore"), __import__("warnings").catch_warnings():
        __import__("warnings").simplefilter("ignore")
        _differential(lambda T, x, w, *b: getattr(T.nn.functional, name)(x, w, *b, **kwargs), arrays,
                      second=name in ("conv1d", "conv2d"))


def test_conv_complex128_and_module():
    _differential(lambda T, x, w, b: T.nn.functional.conv2d(x, w, b, padding=1),
                  [_c(1, 2, 4, 4, dtype=np.complex128), _c(3, 2, 3, 3, dtype=np.complex128),
                   _c(3, dtype=np.complex128)])
    x = _c(2, 2, 6, 6)
    grads = []
    for T in (torch, tt):
        T.manual_seed(0)
        m = T.nn.Conv2d(2, 3, 3, dtype=T.cfloat)
        (m(T.tensor(x)).abs() ** 2).sum().backward()
        grads.append((m.weight.grad.numpy(), m.bias.grad.numpy()))
    for ours, theirs in zip(grads[1], grads[0]):
        np.testing.assert_allclose(ours, theirs, rtol=1e-4, atol=1e-4)


# -- padding, embedding, dropout ----------------------------------------------------------------------
@pytest.mark.parametrize("mode,pads", [("constant", (1, 2, 0, 1)), ("reflect", (1, 2, 2, 1)),
                                       ("replicate", (2, 1, 1, 0)), ("circular", (1, 1, 2, 1))])
def test_pad(mode, pads):
    _differential(lambda T, x: T.nn.functional.pad(x, pads, mode=mode), [_c(1, 2, 4, 5)], second=False)


def test_embedding_without_grad_and_its_refusal():
    w = _c(5, 3)
    idx = [[0, 4], [2, 2]]
    for kwargs in ({}, {"padding_idx": 1}, {"max_norm": 1.0}):
        theirs = torch.nn.functional.embedding(torch.tensor(idx), torch.tensor(w), **kwargs)
        ours = tt.nn.functional.embedding(tt.tensor(idx), tt.tensor(w), **kwargs)
        _close(ours, theirs, 1e-6)
    for T in (torch, tt):  # a table that requires grad: PyTorch's embedding has real gradients only
        with pytest.raises(RuntimeError, match="^embedding does not support automatic differentiation for "
                                               "outputs with complex dtype.$"):
            T.nn.Embedding(5, 3, dtype=T.cfloat)(T.tensor(idx))
        with T.no_grad():
            assert T.nn.Embedding(5, 3, dtype=T.cfloat)(T.tensor(idx)).dtype == T.complex64


def test_bilinear_refuses_complex_gradients():
    a, b, w = _c(4, 3), _c(4, 2), _c(5, 3, 2)
    for T in (torch, tt):
        with pytest.raises(RuntimeError, match="^_trilinear does not support automatic differentiation"):
            T.nn.functional.bilinear(T.tensor(a), T.tensor(b), T.tensor(w, requires_grad=True))
    _close(tt.nn.functional.bilinear(tt.tensor(a), tt.tensor(b), tt.tensor(w)),
           torch.nn.functional.bilinear(torch.tensor(a), torch.tensor(b), torch.tensor(w)), 1e-4)


@pytest.mark.filterwarnings("ignore:dropout2d")
@pytest.mark.parametrize("fn", ["dropout", "alpha_dropout", "feature_alpha_dropout", "dropout1d", "dropout2d"])
def test_dropout(fn):
    x = _c(2, 3, 4)
    for T in (torch, tt):
        f = getattr(T.nn.functional, fn)
        t = T.tensor(x)
        with pytest.raises(NotImplementedError, match="^\"bernoulli_scalar_cpu_\" not implemented for "
                                                      "'ComplexFloat'$"):
            f(t, 0.3, training=True)
        assert f(t, 0.3, training=False) is t  # the identity outside training
        assert f(t, 0.0, training=True).dtype == T.complex64
        np.testing.assert_array_equal(f(t, 1.0, training=True).numpy(), np.zeros_like(x) if "alpha" not in fn
                                      else f(t, 1.0, training=True).numpy())


# -- errors -------------------------------------------------------------------------------------------
@pytest.mark.parametrize("call", [
    lambda T: T.nn.functional.linear(T.ones(2, 3, dtype=T.cfloat), T.ones(4, 3)),
    lambda T: T.nn.functional.linear(T.ones(2, 3, dtype=T.cfloat), T.ones(4, 3, dtype=T.cdouble)),
    lambda T: T.nn.functional.linear(T.ones(2, 3, dtype=T.cfloat), T.ones(4, 3, dtype=T.cfloat), T.ones(4)),
    lambda T: T.nn.functional.linear(T.ones(2, 5, 3), T.ones(4, 3), T.ones(4, dtype=T.float64)),
    lambda T: T.nn.functional.conv1d(T.ones(1, 3, 5, dtype=T.cfloat), T.ones(2, 3, 3)),
    lambda T: T.nn.functional.conv1d(T.ones(1, 3, 5, dtype=T.cfloat), T.ones(2, 3, 3, dtype=T.cdouble)),
    lambda T: T.nn.functional.conv2d(T.ones(1, 3, 5, 5), T.ones(2, 3, 3, 3, dtype=T.cfloat)),
    lambda T: T.nn.functional.conv2d(T.ones(2, 3, 5, 5), T.ones(2, 3, 3, 3, dtype=T.cfloat)),
    lambda T: T.nn.functional.conv2d(T.ones(3, 5, 5), T.ones(2, 3, 3, 3, dtype=T.float64)),
    lambda T: T.nn.functional.conv3d(T.ones(1, 3, 4, 5, 5), T.ones(2, 3, 3, 3, 3, dtype=T.float64)),
    lambda T: T.nn.functional.conv1d(T.ones(1, 3, 5, dtype=T.cfloat), T.ones(2, 3, 3, dtype=T.cfloat), T.ones(2)),
    lambda T: T.nn.functional.conv2d(T.ones(1, 3, 5, 5), T.ones(2, 3, 3, 3), T.ones(2, dtype=T.float64)),
    lambda T: T.nn.functional.conv_transpose1d(T.ones(1, 3, 5, dtype=T.cfloat), T.ones(3, 2, 3)),
])
def test_errors(call):
    with pytest.raises(Exception) as theirs:
        call(torch)
    with pytest.raises(type(theirs.value)) as ours:
        call(tt)
    assert str(ours.value) == str(theirs.value).replace("torch.", "tinytorch.")
