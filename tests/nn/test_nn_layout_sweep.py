"""The strides of nn ops' results and input gradients against PyTorch's on CPU, for inputs and gradients that are not
C-ordered (a transposed weight or activation, channels_last, permuted dims). Programs read them: ``.view()`` refuses
a result PyTorch gives contiguous, ``is_contiguous()`` prints differently, a later in-place random fill draws in
another order. Each test loops over its cases and compares ``.stride()`` only (the values are other tests'), the
gradients taken with ``autograd.grad`` (as the kernel lays them out, before a leaf's ``.grad`` copies a gradient to
the leaf's own layout).

PyTorch's rules held here:
- an elementwise backward kernel lays out its result as its TensorIterator orders its operands: the first operand
  with two non-zero strides at a pair of dims orders them. ``threshold_backward``, ``leaky_relu_backward`` and
  ``_prelu_kernel_backward`` list ``self`` first, clamp's backward selects by a mask of ``self``; the others
  (``hardtanh_backward``, ``elu_backward``, ``softplus_backward``, ``hardswish_backward``, ``tanh_backward``,
  ``sigmoid_backward``, ``logit_backward``, shrinks, ``grad * result`` of exp) the gradient first;
- the softmaxes' backward kernels write a contiguous result, whatever the gradient's layout."""
import numpy as np

import tinytorch as tt

from _oracle import torch  # noqa: E402  (PyTorch when a test reads it)


def _leaf(T, shape: tuple, order, seed: int = 0, grad: bool = True):
    """A leaf of ``shape`` whose dims lie in memory in ``order`` (outermost first), the same values in both."""
    vals = np.random.RandomState(seed).standard_normal(int(np.prod(shape))).astype(np.float32)
    inv = [list(order).index(i) for i in range(len(shape))]
    x = T.tensor(vals.reshape([shape[d] for d in order])).permute(tuple(inv))
    return x.detach().requires_grad_(grad)


_C, _F = (0, 1), (1, 0)


def _grad_strides(T, fn, x_order, g_order, shape=(4, 6)):
    x = _leaf(T, shape, x_order)
    y = fn(T, x)
    g = _leaf(T, tuple(y.shape), g_order, seed=3, grad=False)
    (gx,) = T.autograd.grad(y, x, g)
    return tuple(y.stride()), tuple(gx.stride())


_F_ = lambda T: T.nn.functional  # noqa: E731
_ACTIVATIONS = {
    "relu": lambda T, x: T.relu(x), "leaky_relu": lambda T, x: _F_(T).leaky_relu(x, 0.2),
    "rrelu_eval": lambda T, x: _F_(T).rrelu(x), "threshold": lambda T, x: _F_(T).threshold(x, 0.1, 2.0),
    "prelu": lambda T, x: _F_(T).prelu(x, T.tensor([0.25])), "clamp": lambda T, x: x.clamp(-0.5, 0.5),
    "hardtanh": lambda T, x: _F_(T).hardtanh(x), "relu6": lambda T, x: _F_(T).relu6(x),
    "elu": lambda T, x: _F_(T).elu(x), "selu": lambda T, x: _F_(T).selu(x), "celu": lambda T, x: _F_(T).celu(x),
    "softplus": lambda T, x: _F_(T).softplus(x), "hardswish": lambda T, x: _F_(T).hardswish(x),
    "hardsigmoid": lambda T, x: _F_(T).hardsigmoid(x), "softshrink": lambda T, x: _F_(T).softshrink(x),
    "hardshrink": lambda T, x: _F_(T).hardshrink(x), "tanhshrink": lambda T, x: _F_(T).tanhshrink(x),
    "gelu": lambda T, x: _F_(T).gelu(x), "silu": lambda T, x: _F_(T).silu(x), "mish": lambda T, x: _F_(T).mish(x),
    "sigmoid": lambda T, x: x.sigmoid(), "tanh": lambda T, x: x.tanh(), "exp": lambda T, x: x.exp(),
    "logit": lambda T, x: x.sigmoid().logit(), "logsigmoid": lambda T, x: _F_(T).logsigmoid(x),
    "softmax": lambda T, x: x.softmax(-1), "softmax0": lambda T, x: x.softmax(0),
    "log_softmax": lambda T, x: x.log_softmax(-1), "log_softmax0": lambda T, x: x.log_softmax(0),
    "glu": lambda T, x: _F_(T).glu(x, -1),
}


def test_activation_backward_layout_follows_pytorchs_operand_order():
    """An input and a gradient of different layouts (transposed input, C gradient; C input, transposed gradient):
    the input's gradient laid out as PyTorch's backward kernel lays it out."""
    bad = []
    for name, fn in _ACTIVATIONS.items():
        for x_order, g_order in ((_F, _C), (_C, _F), (_F, _F)):
            want = _grad_strides(torch, fn, x_order, g_order)
            got = _grad_strides(tt, fn, x_order, g_order)
            if want != got:
                bad.append((name, x_order, g_order, want, got))
    assert not bad, bad


def test_activation_backward_layout_on_4d_and_channels_last():
    """The same with 4-d operands, one channels_last (the layout of a CNN's activations)."""
    cl, c = (0, 2, 3, 1), (0, 1, 2, 3)
    bad = []
    for name in ("relu", "leaky_relu", "hardtanh", "elu", "softplus", "hardswish", "sigmoid", "softmax"):
        fn = _ACTIVATIONS[name]
        for x_order, g_order in ((cl, c), (c, cl)):
            want = _grad_strides(torch, fn, x_order, g_order, (2, 3, 4, 5))
            got = _grad_strides(tt, fn, x_order, g_order, (2, 3, 4, 5))
            if want != got:
                bad.append((name, x_order, g_order, want, got))
    assert not bad, bad


def _sdpa_strides(T, q_order, kv_order, **kw):
    shape = (2, 3, 4, 5)
    q, k, v = (_leaf(T, shape, order, seed) for order, seed in ((q_order, 0), (kv_order, 1), (kv_order, 2)))
    if kw.pop("mask", False):
        kw["attn_mask"] = T.ones(4, 4, dtype=T.bool).tril()
    y = T.nn.functional.scaled_dot_product_attention(q, k, v, **kw)
    g = _leaf(T, tuple(y.shape), (0, 1, 2, 3), seed=3, grad=False)
    return tuple(y.stride()), tuple(tuple(t.stride()) for t in T.autograd.grad(y, (q, k, v), g))


def test_sdpa_gradients_laid_out_as_the_flash_kernels():
    """The usual ``(B, T, H, D).transpose(1, 2)`` query, key and value, or contiguous ones: PyTorch's CPU flash
    kernel hands back each gradient as the transpose of a (B, T, H, D) block, whatever the inputs' layouts; its
    output has the query's strides. The math path (dropout under autograd) keeps its own layouts."""
    att, c = (0, 2, 1, 3), (0, 1, 2, 3)
    bad = []
    for q_order, kv_order in ((att, att), (c, c), (att, c), (c, att)):
        for kw in ({}, {"is_causal": True}, {"mask": True}, {"dropout_p": 0.3}):
            torch.manual_seed(0)
            want = _sdpa_strides(torch, q_order, kv_order, **dict(kw))
            tt.manual_seed(0)
            got = _sdpa_strides(tt, q_order, kv_order, **dict(kw))
            if want != got:
                bad.append((q_order, kv_order, kw, want, got))
    assert not bad, bad


def test_sdpa_mask_that_does_not_broadcast_raises_pytorchs_error():
    q = np.zeros((2, 3, 4, 5), np.float32)
    for mask_shape in ((3, 3), (2, 4, 4), (5, 3, 4, 4)):
        msgs = []
        for T in (torch, tt):
            t = T.tensor(q)
            try:
                T.nn.functional.scaled_dot_product_attention(t, t, t, attn_mask=T.zeros(mask_shape))
            except RuntimeError as e:
                msgs.append(str(e))
        assert len(msgs) == 2 and msgs[0] == msgs[1], msgs


_CL4, _C4, _P4, _T4 = (0, 2, 3, 1), (0, 1, 2, 3), (1, 0, 2, 3), (0, 1, 3, 2)
_NORMS = {
    "batch_norm_train": (lambda T, x: T.nn.functional.batch_norm(x, None, None, T.ones(3), T.zeros(3), True), True),
    "batch_norm_eval": (lambda T, x: T.nn.functional.batch_norm(x, T.zeros(3), T.ones(3), None, None, False), True),
    "group_norm": (lambda T, x: T.nn.functional.group_norm(x, 3, T.ones(3), T.zeros(3)), True),
    "instance_norm": (lambda T, x: T.nn.functional.instance_norm(x), True),
    "layer_norm": (lambda T, x: T.nn.functional.layer_norm(x, (5,)), True),
    "rms_norm": (lambda T, x: T.nn.functional.rms_norm(x, (5,)), False),  # its gradient: see the report
}


def test_norm_results_and_gradients_in_the_inputs_suggested_format():
    """batch_norm and group_norm write their result and the input's gradient in the input's
    ``suggest_memory_format`` (channels-last kept, any other layout contiguous), whatever the gradient's layout;
    rms_norm's composite ends in ``.contiguous(suggest_memory_format)``; instance_norm and layer_norm are contiguous."""
    bad = []
    for name, (fn, check_grad) in _NORMS.items():
        for x_order in (_C4, _CL4, _P4, _T4):
            for g_order in ((_C4, _CL4) if check_grad else (_C4,)):
                want = _grad_strides(torch, fn, x_order, g_order, (2, 3, 4, 5))
                got = _grad_strides(tt, fn, x_order, g_order, (2, 3, 4, 5))
                if want != got:
                    bad.append((name, x_order, g_order, want, got))
    for x_order in ((0, 2, 1), (1, 0, 2)):  # a 3-d input: contiguous (suggest_memory_format has no 3-d format)
        fn = _NORMS["batch_norm_train"][0]
        if _grad_strides(torch, fn, x_order, (0, 1, 2), (4, 3, 5)) != _grad_strides(tt, fn, x_order, (0, 1, 2), (4, 3, 5)):
            bad.append(("batch_norm 3-d", x_order))
    cl3d = (0, 2, 3, 4, 1)
    for name in ("batch_norm_train", "group_norm"):
        fn = _NORMS[name][0]
        for x_order, g_order in ((cl3d, (0, 1, 2, 3, 4)), ((0, 1, 2, 3, 4), cl3d)):
            want = _grad_strides(torch, fn, x_order, g_order, (2, 3, 2, 3, 4))
            if want != _grad_strides(tt, fn, x_order, g_order, (2, 3, 2, 3, 4)):
                bad.append((name, "5-d", x_order, g_order))
    assert not bad, bad


def test_channels_last_results_of_resampling_padding_and_pooling():
    """interpolate, reflection/replication/constant padding, pixel_(un)shuffle and max_pool3d write their result in
    the input's suggested memory format (a channels-last input stays channels-last; any other gives a contiguous
    result). The input's gradient: upsampling's in the gradient's suggested format (contiguous from the bicubic and
    3-d nearest kernels), the padding kernels' and max_pool3d's in the input's."""
    F = lambda T: T.nn.functional  # noqa: E731
    four = {
        "nearest": lambda T, x: F(T).interpolate(x, scale_factor=2, mode="nearest"),
        "bilinear": lambda T, x: F(T).interpolate(x, scale_factor=2, mode="bilinear"),
        "bicubic": lambda T, x: F(T).interpolate(x, scale_factor=2, mode="bicubic"),
        "reflect": lambda T, x: F(T).pad(x, (1, 2, 1, 0), mode="reflect"),
        "replicate": lambda T, x: F(T).pad(x, (1, 2, 1, 0), mode="replicate"),
        "constant": lambda T, x: F(T).pad(x, (1, 2, 1, 0)),
    }
    five = {
        "nearest3d": lambda T, x: F(T).interpolate(x, scale_factor=2, mode="nearest"),
        "trilinear": lambda T, x: F(T).interpolate(x, scale_factor=2, mode="trilinear"),
        "max_pool3d": lambda T, x: F(T).max_pool3d(x, 2),
    }
    cl3d, c5 = (0, 2, 3, 4, 1), (0, 1, 2, 3, 4)
    bad = []
    for fns, shape, orders in ((four, (2, 3, 4, 5), ((_CL4, _C4), (_C4, _CL4), (_P4, _C4), (_T4, _CL4))),
                               (five, (2, 3, 4, 4, 2), ((cl3d, c5), (c5, cl3d)))):
        for name, fn in fns.items():
            for x_order, g_order in orders:
                want = _grad_strides(torch, fn, x_order, g_order, shape)
                got = _grad_strides(tt, fn, x_order, g_order, shape)
                if want != got:
                    bad.append((name, x_order, g_order, want, got))
    for name, fn, shape in (("pixel_shuffle", lambda T, x: F(T).pixel_shuffle(x, 2), (2, 8, 3, 4)),
                            ("pixel_unshuffle", lambda T, x: F(T).pixel_unshuffle(x, 2), (2, 2, 4, 6))):
        for x_order in (_CL4, _C4, _P4):  # the result only: its gradient is left (see the report)
            want = tuple(fn(torch, _leaf(torch, shape, x_order)).stride())
            if want != tuple(fn(tt, _leaf(tt, shape, x_order)).stride()):
                bad.append((name, x_order))
    assert not bad, bad


def test_dropout_masks_drawn_in_the_inputs_memory_order():
    """A fixed seed draws the same mask as PyTorch's for a non-C-ordered input: the mask is ``empty_like(input)``
    filled in its memory order (feature noise, an (N, C, 1, 1) tensor, in C order); the values show the order."""
    F = lambda T: T.nn.functional  # noqa: E731
    fns = {"dropout": lambda T, x: F(T).dropout(x, 0.3), "alpha_dropout": lambda T, x: F(T).alpha_dropout(x, 0.3, True),
           "feature_alpha_dropout": lambda T, x: F(T).feature_alpha_dropout(x, 0.3, True),
           "dropout2d": lambda T, x: F(T).dropout2d(x, 0.3)}
    bad = []
    for name, fn in fns.items():
        for order in (_CL4, _P4, _T4):
            got = []
            for T in (torch, tt):
                T.manual_seed(0)
                y = fn(T, _leaf(T, (2, 3, 4, 5), order, grad=False))
                got.append((tuple(y.stride()), y.numpy()))
            if got[0][0] != got[1][0] or not np.allclose(got[0][1], got[1][1], rtol=1e-6, atol=1e-7):
                bad.append((name, order))
    assert not bad, bad


def test_elementwise_losses_unreduced_results_and_gradients():
    """mse_loss / smooth_l1_loss / huber_loss with reduction='none' lay their result out as a TensorIterator over
    (input, target); their backward kernels write contiguous gradients (``zeros_like(input, contiguous)``);
    binary_cross_entropy_with_logits' gradients are ordered by the input (the formula's factor, then the gradient)."""
    F = lambda T: T.nn.functional  # noqa: E731
    fns = {"mse": lambda T, x, y: F(T).mse_loss(x, y, reduction="none"),
           "mse_mean": lambda T, x, y: F(T).mse_loss(x, y),
           "smooth_l1": lambda T, x, y: F(T).smooth_l1_loss(x, y, reduction="none"),
           "huber": lambda T, x, y: F(T).huber_loss(x, y, reduction="none"),
           "bce_logits": lambda T, x, y: F(T).binary_cross_entropy_with_logits(x, y.sigmoid(), reduction="none")}
    bad = []
    for name, fn in fns.items():
        for x_order, y_order, g_order in ((_CL4, _C4, _C4), (_C4, _CL4, _CL4), (_P4, _C4, _T4), (_T4, _T4, _C4)):
            got = []
            for T in (torch, tt):
                x, y = _leaf(T, (2, 3, 4, 5), x_order), _leaf(T, (2, 3, 4, 5), y_order, seed=1)
                out = fn(T, x, y)
                g = _leaf(T, tuple(out.shape), g_order[:out.dim()], seed=3, grad=False)
                got.append((tuple(out.stride()),) + tuple(tuple(t.stride()) for t in T.autograd.grad(out, (x, y), g)))
            if got[0] != got[1]:
                bad.append((name, x_order, y_order, g_order, got))
    assert not bad, bad


def test_adaptive_average_pooling_to_one_cell_as_pytorchs_shortcut():
    # ATen's shortcut: mean over the spatial dims, kept (a C-ordered result), then a channels-last input's result
    # re-strided in place to (C, 1, C, ...); any other layout keeps the mean's C order
    for shape, order in [((2, 4, 3, 5), (0, 2, 3, 1)), ((2, 4, 3, 5), (0, 1, 2, 3)), ((2, 4, 3, 5), (0, 1, 3, 2)),
                         ((2, 4, 3, 5, 6), (0, 2, 3, 4, 1)), ((2, 4, 3, 5, 6), (1, 0, 2, 3, 4))]:
        pool = "adaptive_avg_pool2d" if len(shape) == 4 else "adaptive_avg_pool3d"
        seen = [_grad_strides(T, lambda T, x: getattr(T.nn.functional, pool)(x, 1), order, order, shape)
                for T in (tt, torch)]
        assert seen[0] == seen[1], (pool, order, seen)
