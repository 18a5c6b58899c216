"""Results laid out as PyTorch's CPU kernels lay them out, compared with PyTorch (shapes, strides, values, grads):

- convolutions (conv1d/2d/3d, conv_transpose1d/2d/3d) channels-last where the input (not a 1-d one's) or the weight
  suggests it, their input and weight gradients too (oneDNN's fresh strides, the native kernels' kept ones); on
  meta tensors the output C-ordered and both gradients channels-last where either operand suggests it;
- batch_norm and the 2-d poolings in their input's memory format, their input's gradient too;
- elementwise ops over operands of different layouts in TensorIterator's order (the first operand that orders
  two dims decides), on CPU and on meta tensors."""
import numpy as np
import pytest

import tinytorch

from _paths import assert_bits

CL, CL3 = "channels_last", "channels_last_3d"


def _arr(shape, seed, dtype):
    return np.random.default_rng(seed).standard_normal(shape).astype(dtype)


def _tensor(L, shape, seed, dtype, fmt=None, view=None):
    t = L.tensor(_arr(shape, seed, dtype))
    if fmt is not None:
        t = t.contiguous(memory_format=getattr(L, fmt))
    if view is not None:
        t = view(t)
    return t.requires_grad_()


def _seen(t):
    return tuple(t.shape), tuple(t.stride())


def _check(theirs, ours, what, rtol):
    assert _seen(ours) == _seen(theirs), what
    np.testing.assert_allclose(ours.detach().numpy(), theirs.detach().numpy(), rtol=rtol, atol=rtol, err_msg=what)


# (name, fn(F, x, w), x shape, x fmt or view, w shape, w fmt or view)
_T = lambda t: t.transpose(1, 2)  # noqa: E731  (a 3-d tensor transposed back: strides like channels-last)
_CONVS = [
    ("x_cl", lambda F, x, w: F.conv2d(x, w, padding=1), (2, 3, 6, 5), CL, (4, 3, 3, 3), None),
    ("w_cl", lambda F, x, w: F.conv2d(x, w, stride=2), (2, 3, 6, 5), None, (4, 3, 3, 3), CL),
    ("both_cl_batch1_native", lambda F, x, w: F.conv2d(x, w), (1, 4, 5, 5), CL, (8, 4, 3, 3), CL),
    ("1x1_batch1_native", lambda F, x, w: F.conv2d(x, w), (1, 4, 5, 5), CL, (8, 4, 1, 1), None),
    # (strided: oneDNN whatever the threads; an unstrided 1x1 one stays native on one thread, as tests run it)
    ("1x1_onednn", lambda F, x, w: F.conv2d(x, w, stride=2), (2, 4, 5, 5), CL, (8, 4, 1, 1), None),
    ("depthwise", lambda F, x, w: F.conv2d(x, w, groups=4), (2, 4, 5, 5), CL, (8, 1, 3, 3), None),
    ("one_output_channel", lambda F, x, w: F.conv2d(x, w), (2, 4, 5, 5), CL, (1, 4, 3, 3), None),
    ("channels_1_stays_contiguous", lambda F, x, w: F.conv2d(x, w), (2, 1, 5, 5), CL, (8, 1, 3, 3), None),
    ("transposed_hw_not_cl", lambda F, x, w: F.conv2d(x, w), (2, 4, 6, 5), lambda t: t.transpose(2, 3),
     (8, 4, 3, 3), None),
    ("conv1d_input_made_contiguous", lambda F, x, w: F.conv1d(x, w), (2, 4, 7), _T, (8, 4, 3), None),
    ("conv1d_weight_decides", lambda F, x, w: F.conv1d(x, w), (2, 4, 7), None, (8, 4, 3), _T),
    ("conv_transpose2d_x_cl", lambda F, x, w: F.conv_transpose2d(x, w, stride=2, output_padding=1),
     (2, 4, 5, 5), CL, (4, 6, 3, 3), None),
    ("conv_transpose2d_w_cl_groups", lambda F, x, w: F.conv_transpose2d(x, w, groups=2), (1, 4, 5, 5), None,
     (4, 3, 3, 3), CL),
    ("conv_transpose1d_weight_decides", lambda F, x, w: F.conv_transpose1d(x, w), (2, 4, 7), _T, (4, 6, 3), _T),
    # 3-d: channels_last_3d on oneDNN (float32 here), contiguous on the native kernels (float64)
    ("conv3d_x_cl3d", lambda F, x, w: F.conv3d(x, w, padding=1), (2, 3, 4, 4, 3), CL3, (4, 3, 3, 3, 3), None),
    ("conv3d_w_cl3d", lambda F, x, w: F.conv3d(x, w, stride=2), (2, 3, 5, 4, 4), None, (4, 3, 2, 2, 2), CL3),
    ("conv_transpose3d_x_cl3d", lambda F, x, w: F.conv_transpose3d(x, w, stride=2), (2, 4, 3, 2, 3), CL3,
     (4, 2, 2, 2, 2), None),
]


@pytest.mark.parametrize("dtype,device", [("float32", "cpu"), ("float64", "cpu"), ("float32", "meta")])
def test_convolutions_lay_out_as_pytorch(torch, dtype, device):
    """On CPU as the rule above says; on meta tensors PyTorch's meta kernels' rule: the output C-ordered, both
    gradients fresh channels-last (channels_last_3d) where the input or the weight suggests it, a 1-d
    convolution's contiguous."""
    rtol = 1e-4 if dtype == "float32" else 1e-10
    for name, fn, xs, xf, ws, wf in _CONVS:
        seen = []
        for L in (torch, tinytorch):
            def build(shape, how, seed):
                if callable(how):  # a view (of a tensor made in the shape the view turns into ``shape``)
                    t = _tensor(L, shape[:1] + shape[:0:-1] if len(shape) == 3 else shape, seed, dtype, view=how)
                else:
                    t = _tensor(L, shape, seed, dtype, fmt=how)
                return t.detach().to(device).requires_grad_() if device == "meta" else t
            x, w = build(xs, xf, 1), build(ws, wf, 2)
            y = fn(L.nn.functional, x, w)
            gx, gw = L.autograd.grad(y, (x, w), L.tensor(_arr(tuple(y.shape), 3, dtype), device=device))
            seen.append((x, w, y, gx, gw))
        (tx, tw, ty, tgx, tgw), (ox, ow, oy, ogx, ogw) = seen
        assert (_seen(ox), _seen(ow)) == (_seen(tx), _seen(tw)), name  # the same operands to begin with
        for what, t, o in (("y", ty, oy), ("gx", tgx, ogx), ("gw", tgw, ogw)):
            if device == "meta":
                assert _seen(o) == _seen(t), f"{name}: {what}"
            else:
                _check(t, o, f"{name}: {what}", rtol)


def test_leaf_gradients_keep_the_leaf_layout(torch):
    """``.grad`` through AccumulateGrad has the leaf's strides (PyTorch's layout contract), whatever layout the
    convolution's gradient came in: a contiguous input's gradient of a convolution with a channels-last weight."""
    seen = []
    for L in (torch, tinytorch):
        x = _tensor(L, (2, 3, 6, 5), 1, "float32")
        w = _tensor(L, (4, 3, 3, 3), 2, "float32", fmt=CL)
        L.nn.functional.conv2d(x, w).sum().backward()
        seen.append((_seen(x.grad), _seen(w.grad)))
    assert seen[0] == seen[1]


_NCHW_OPS = {
    "batch_norm_train": lambda F, x: F.batch_norm(x, None, None, training=True),
    "batch_norm_eval": lambda F, x: F.batch_norm(x, x.new_zeros(4), x.new_ones(4) * 2, training=False),
    "max_pool2d": lambda F, x: F.max_pool2d(x, 2),
    "max_pool2d_padded": lambda F, x: F.max_pool2d(x, 3, 2, 1),
    "max_pool2d_indices": lambda F, x: F.max_pool2d(x, 2, return_indices=True)[1].double(),
    "avg_pool2d": lambda F, x: F.avg_pool2d(x, 3, 2, 1),
    "adaptive_avg_pool2d": lambda F, x: F.adaptive_avg_pool2d(x, 3),
    "adaptive_avg_pool2d_1": lambda F, x: F.adaptive_avg_pool2d(x, 1),
    "adaptive_max_pool2d": lambda F, x: F.adaptive_max_pool2d(x, 3),
    "relu": lambda F, x: F.relu(x),
    "add_bias": lambda F, x: x + x.new_ones(4, 1, 1),
}


@pytest.mark.parametrize("fmt", [CL, None])
def test_nchw_ops_keep_the_inputs_memory_format(torch, fmt):
    for name, fn in _NCHW_OPS.items():
        seen = []
        for L in (torch, tinytorch):
            x = _tensor(L, (2, 4, 6, 6), 4, "float64", fmt=fmt)
            y = fn(L.nn.functional, x)
            gx = L.autograd.grad(y, x, L.tensor(_arr(tuple(y.shape), 5, "float64")))[0] if y.requires_grad else None
            seen.append((y, gx))
        (ty, tgx), (oy, ogx) = seen
        _check(ty, oy, f"{name}: y", 1e-12)
        if tgx is not None:
            _check(tgx, ogx, f"{name}: gx", 1e-12)


def _mixed(L, device):
    def E(*shape):
        if device == "meta":
            return L.empty(*shape, device="meta")
        return L.tensor(_arr(shape, sum(shape), "float32"))

    c, t = E(3, 4), E(4, 3).t()
    x, xcl = E(2, 3, 4, 5), E(2, 3, 4, 5).contiguous(memory_format=L.channels_last)
    p = E(2, 4, 5, 3).permute(0, 3, 1, 2)
    return {
        "c+t": (c, t), "t+c": (t, c), "cl+c": (xcl, x), "c+cl": (x, xcl), "cl+bias": (xcl, E(3, 1, 1)),
        "bias+cl": (E(3, 1, 1), xcl), "row+t": (E(4), t), "col+t": (E(3, 1), t), "perm+c": (p, x), "c+perm": (x, p),
        "perm+cl": (p, xcl), "t3+c3": (E(4, 3, 2).permute(2, 1, 0), E(2, 3, 4)),
        "mixed3": (E(2, 4, 3).transpose(1, 2), E(3, 2, 4).transpose(0, 1)),
        "cl_batch1+c": (E(1, 3, 4, 5).contiguous(memory_format=L.channels_last), E(1, 3, 4, 5)),
        "gapped_t+c": (E(8, 3)[::2].t(), E(3, 4)), "expanded_t+c": (E(1, 3).expand(4, 3).t(), E(3, 4)),
    }


@pytest.mark.parametrize("device", ["cpu", "meta"])
def test_elementwise_operands_of_different_layouts(torch, device):
    """TensorIterator's order: the first operand that orders two dims decides (``t + c`` transposed, ``c + t`` not),
    a broadcast dim deciding nothing; PyTorch's CPU and meta kernels agree on all of these."""
    theirs, ours = _mixed(torch, device), _mixed(tinytorch, device)
    ops = {"add": lambda L, a, b: a + b, "sub": lambda L, a, b: a - b, "mul": lambda L, a, b: a * b,
           "div": lambda L, a, b: a / b, "lt": lambda L, a, b: a < b, "maximum": lambda L, a, b: L.maximum(a, b),
           "where": lambda L, a, b: L.where(a > b, a, b), "lerp": lambda L, a, b: L.lerp(a, b, 0.3),
           "lerp_high": lambda L, a, b: L.lerp(b, a, 0.7), "addcmul": lambda L, a, b: L.addcmul(a, b, b, value=0.5)}
    for case, (ta, tb) in theirs.items():
        oa, ob = ours[case]
        assert (_seen(oa), _seen(ob)) == (_seen(ta), _seen(tb)), case
        for name, f in ops.items():
            want, got = f(torch, ta, tb), f(tinytorch, oa, ob)
            assert _seen(got) == _seen(want), (case, name)
            if device == "cpu" and name.startswith(("lerp", "addcmul")):
                # a multiply-add: one rounding on PyTorch's FMA builds (which tinytorch follows), two on DEFAULT
                assert_bits(got.numpy(), want.numpy(), ulps=1, scale="max", what=f"{case} {name}")
            elif device == "cpu":
                np.testing.assert_array_equal(got.numpy(), want.numpy(), err_msg=f"{case} {name}")


def test_empty_tensors_keep_pytorchs_strides_through_views(torch):
    """A factory's empty tensor has PyTorch's contiguous strides (numpy keeps none for an empty array), so its
    transposes and permutations have PyTorch's too, and copies under preserve_format keep them."""
    for shape in [(0, 3), (3, 0), (0, 0), (2, 0, 3), (0, 1, 2)]:
        seen = []
        for L in (torch, tinytorch):
            for make in (L.empty, L.zeros):
                a = make(*shape)
                v = a.t() if a.ndim == 2 else a.transpose(0, 2)
                seen.append([t.stride() for t in (a, v, v.clone(), v.contiguous(), L.empty_like(v),
                                                  a.permute(*reversed(range(a.ndim))))])
        assert seen[:2] == seen[2:], shape


_LARGE = {  # above parallel.SPLIT_FROM: the paths that write a large result into an array they allocate
    "mul_0d": lambda L, x: L.tensor(2.0) * x, "mul_number": lambda L, x: x * 0.5, "rsub_number": lambda L, x: 1 - x,
    "add_self": lambda L, x: x + x, "relu": lambda L, x: x.relu(),
    "relu_grad": lambda L, x: L.autograd.grad(x.relu(), x, x.detach())[0],
    "mul_grad": lambda L, x: L.autograd.grad(x * x.detach(), x, x.detach())[0],
}


@pytest.mark.parametrize("device", ["cpu", "meta"])
@pytest.mark.parametrize("view", ["t", CL])
def test_large_elementwise_results_lay_out_as_pytorch(torch, device, view):
    """Results of 1.1M elements (threaded or compiled paths allocate them) in TensorIterator's order, as small ones:
    a transposed or channels-last operand gives a transposed or channels-last result, the same values."""
    from tinytorch._ops._kernels.parallel import SPLIT_FROM

    shape = (1100, 1000) if view == "t" else (2, 55, 100, 100)
    assert np.prod(shape) > SPLIT_FROM
    a = _arr(shape, 0, np.float32)
    for name, f in _LARGE.items():
        if device == "meta" and name.endswith("_grad"):
            continue
        seen = []
        for L in (torch, tinytorch):
            x = L.tensor(a, device=device)
            x = (x.t() if view == "t" else x.contiguous(memory_format=L.channels_last)).requires_grad_()
            seen.append(f(L, x))
        want, got = seen
        assert _seen(got) == _seen(want), (name, view)
        if device == "cpu":
            np.testing.assert_array_equal(got.detach().numpy(), want.detach().numpy(), err_msg=f"{name} {view}")


@pytest.mark.parametrize("approximate", ["none", "tanh"])
def test_gelu_lays_out_as_pytorch(torch, approximate):
    """gelu and its gradient over permuted and channels-last inputs (the formulas' numpy steps order their results
    their own way) in TensorIterator's order."""
    views = {"perm": ((4, 5, 6), lambda L, t: t.permute(1, 2, 0)), "cl": ((2, 3, 4, 5), lambda L, t: t.contiguous(
        memory_format=L.channels_last)), "t": ((7, 6), lambda L, t: t.t())}
    for name, (shape, view) in views.items():
        seen = []
        for L in (torch, tinytorch):
            x = view(L, L.tensor(_arr(shape, 1, np.float32))).requires_grad_()
            y = L.nn.functional.gelu(x, approximate=approximate)
            seen.append((y, L.autograd.grad(y, x, x.detach().contiguous())[0]))
        for want, got in zip(*seen):
            _check(want, got, (name, approximate), 1e-6)


def _laid(L, a, how):
    """A tensor of ``a``'s values (and shape) laid out as ``how`` says, its own storage (no view of another)."""
    t = L.tensor(a)
    if how == "t":  # dims 1 and 3 swapped in memory
        t = L.empty_strided(t.shape, t.transpose(1, 3).contiguous().transpose(1, 3).stride(), dtype=t.dtype).copy_(t)
    elif how == CL:
        t = t.contiguous(memory_format=L.channels_last)
    elif how == "sliced":
        t = L.cat([t, t], 3)[..., ::2]
    return t


_ACTIVATIONS = {  # fn(F, x), and whether it runs PyTorch's generator
    "logsigmoid": (lambda F, x: F.logsigmoid(x), False),
    "rrelu_eval": (lambda F, x: F.rrelu(x), False),
    "rrelu_train": (lambda F, x: F.rrelu(x, training=True), True),
    "rrelu_train_equal_bounds": (lambda F, x: F.rrelu(x, 0.2, 0.2, training=True), True),
    "rrelu_inplace_eval": (lambda F, x: F.rrelu(x * 1, inplace=True), False),
    "rrelu_inplace_train": (lambda F, x: F.rrelu(x * 1, training=True, inplace=True), True),
}


@pytest.mark.parametrize("device", ["cpu", "meta"])
def test_activations_lay_out_as_pytorch(torch, device):
    """logsigmoid's and rrelu's results C-ordered on CPU (their kernels fill a contiguous result; the in-place rrelu
    writes into its input), the input's order on meta (PyTorch's decompositions there are elementwise); the input's
    gradient ordered as PyTorch's backward kernels order it (logsigmoid's and training rrelu's by grad_output on
    meta, rrelu's eval by the input), over transposed, channels-last and gapped inputs and gradients."""
    x0, g0 = _arr((2, 4, 6, 8), 6, "float32"), _arr((2, 4, 6, 8), 7, "float32")
    for name, (fn, random) in _ACTIVATIONS.items():
        for xl, gl in (("t", None), (CL, "t"), ("sliced", CL)):
            seen = []
            for L in (torch, tinytorch):
                x = _laid(L, x0, xl).to(device).requires_grad_()
                if random:
                    L.manual_seed(3)
                y = fn(L.nn.functional, x)
                g = _laid(L, g0, gl).to(device)
                seen.append((y, L.autograd.grad(y, x, g)[0]))
            for what, want, got in zip(("y", "gx"), *seen):
                if device == "cpu":
                    _check(want, got, (name, xl, gl, what), 1e-6)
                else:
                    assert _seen(got) == _seen(want), (name, xl, gl, what)


@pytest.mark.parametrize("device", ["cpu", "meta"])
def test_cat_and_glu_lay_out_as_pytorch(torch, device):
    """cat's result in the memory format all its inputs suggest (channels-last where each does), else C order
    (numpy's follows the inputs' common order: transposed inputs gave a transposed result); glu's input gradient
    C-ordered on CPU (PyTorch's kernel), on meta the cat of halves ordered by the input (its decomposition)."""
    def cats(L):
        a = _laid(L, _arr((2, 4, 6, 8), 8, "float32"), "t").to(device)
        b = _laid(L, _arr((2, 4, 6, 8), 9, "float32"), CL).to(device)
        t = L.tensor(_arr((4, 3), 10, "float32")).to(device).t()
        return [L.cat([a, a], 1), L.cat([a, a], 3), L.cat([b, b], 1), L.cat([a, b], 1), L.cat([b, a], 0),
                L.cat([t, t]), L.cat([t, t], 1), L.cat([b, L.empty(0, device=device)], 1)]

    for want, got in zip(cats(torch), cats(tinytorch)):
        if device == "cpu":
            _check(want, got, "cat", 0)
        else:
            assert _seen(got) == _seen(want), "cat"
    for xl, gl, dim in (("t", None, 1), (CL, "t", 1), (CL, None, -1), ("sliced", CL, 1)):
        seen = []
        for L in (torch, tinytorch):
            x = _laid(L, _arr((2, 4, 6, 8), 11, "float32"), xl).to(device).requires_grad_()
            y = L.nn.functional.glu(x, dim)
            shape = (2, 2, 6, 8) if dim == 1 else (2, 4, 6, 4)
            seen.append((y, L.autograd.grad(y, x, _laid(L, _arr(shape, 12, "float32"), gl).to(device))[0]))
        for what, want, got in zip(("y", "gx"), *seen):
            if device == "cpu":
                _check(want, got, ("glu", xl, gl, dim, what), 1e-6)
            else:
                assert _seen(got) == _seen(want), ("glu", xl, gl, dim, what)
