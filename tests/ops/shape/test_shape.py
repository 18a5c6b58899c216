"""The shape, joining, indexing and conversion families against PyTorch: the in-place view ops
(squeeze_, unsqueeze_, transpose_, swapaxes_, swapdims_, t_), detach as a function, memory formats,
``to``'s positional signatures, scatter's ``reduce=``, gather/scatter on 0-d tensors and int32 indices,
legacy empty tensors in cat, ``flip(dims=)``, ``x[k]`` for an int ``k`` (views, versions, errors),
index_fill's value gradient with repeated indices, byte masks, and the batching rules of these ops
under vmap."""
import warnings

import numpy as np
import pytest

import tinytorch

from _oracle import torch  # noqa: E402  (PyTorch when a test reads it)
LIBS = (tinytorch, torch)


def _np(x):
    if isinstance(x, (tuple, list)):
        return [_np(v) for v in x]
    if hasattr(x, "detach"):
        return x.detach().numpy()
    return x


def _both(fn):
    out = []
    for L in LIBS:
        with warnings.catch_warnings():
            warnings.simplefilter("ignore")
            try:
                out.append(("ok", fn(L)))
            except Exception as e:  # noqa: BLE001  the error itself is compared
                out.append((type(e).__name__, str(e)))
    return out


def _same(fn):
    (k0, a), (k1, b) = _both(fn)
    assert k0 == k1, (a, b)
    if k0 != "ok":
        assert a == b
        return
    a, b = _np(a), _np(b)
    if isinstance(a, list):
        assert len(a) == len(b)
        for x, y in zip(a, b):
            np.testing.assert_allclose(x, y)
    else:
        np.testing.assert_allclose(a, b)


INPLACE_VIEWS = [
    ("squeeze_", ()), ("squeeze_", (1,)), ("squeeze_", ((1,),)), ("unsqueeze_", (0,)), ("transpose_", (0, 2)),
    ("swapaxes_", (0, 2)), ("swapdims_", (2, 0)),
]


@pytest.mark.parametrize("name,args", INPLACE_VIEWS, ids=[f"{n}{a}" for n, a in INPLACE_VIEWS])
@pytest.mark.parametrize("on_view", [False, True])
def test_inplace_view_ops(name, args, on_view):
    got = []
    for L in LIBS:
        a = L.tensor(np.arange(6.0).reshape(2, 1, 3), requires_grad=True)
        b = a * 2
        x = b[1:] if on_view else b
        v = x._version
        res = getattr(x, name)(*args)
        assert res is x
        (x * L.arange(float(x.numel())).reshape(x.shape)).sum().backward()
        got.append((tuple(x.shape), x.grad_fn.name(), x._version - v, x._base is b, a.grad.numpy().copy()))
    assert got[0][:4] == got[1][:4]
    np.testing.assert_allclose(got[0][4], got[1][4])


def test_t_inplace_and_leaf_refusal():
    got = []
    for L in LIBS:
        m = L.ones(2, 3, requires_grad=True) * 1
        m.t_()
        leaf = L.ones(2, 1, requires_grad=True)
        with pytest.raises(RuntimeError) as e:
            leaf.squeeze_()
        got.append((tuple(m.shape), m.grad_fn.name(), str(e.value), tuple(L.ones(3).t_().shape)))
    assert got[0] == got[1]


def test_detach_functions():
    for L in LIBS:
        a = L.ones(2, requires_grad=True)
        b = a * 2
        assert not L.detach(b).requires_grad
        assert L.detach_(b) is b and not b.requires_grad and b.grad_fn is None


@pytest.mark.parametrize("fmt", ["contiguous_format", "channels_last", "preserve_format"])
def test_memory_formats(fmt):
    got = []
    for L in LIBS:
        x = L.tensor(np.arange(24.0).reshape(1, 2, 3, 4))
        f = getattr(L, fmt)
        c = x.clone(memory_format=f)
        entry = [c.stride(), c.numpy().tolist(), x.to(L.float64, memory_format=f).stride()]
        if fmt != "preserve_format":
            entry.append(x.contiguous(memory_format=f).stride())
            entry.append(x.contiguous(memory_format=f).contiguous(memory_format=f).stride())
        got.append(entry)
    assert got[0] == got[1]


def test_memory_format_errors():
    _same(lambda L: L.ones(2, 3).contiguous(memory_format=L.channels_last))
    _same(lambda L: L.ones(2, 3).clone(memory_format=L.channels_last_3d))


TO_CALLS = [
    (lambda L, x: x.to("cpu", L.float64, True, True), "device_dtype_nonblocking_copy"),
    (lambda L, x: x.to(L.float64, True, False), "dtype_positional"),
    (lambda L, x: x.to(L.ones(1, dtype=L.int64), False, True), "other"),
    (lambda L, x: x.to(dtype=L.int32, copy=True), "keywords"),
    (lambda L, x: x.to("cpu"), "device_only"),
]


@pytest.mark.parametrize("call", [c for c, _ in TO_CALLS], ids=[i for _, i in TO_CALLS])
def test_to_signatures(call):
    got = []
    for L in LIBS:
        x = L.tensor([[1.5, -2.0]])
        r = call(L, x)
        got.append((str(r.dtype).split(".")[-1], r.tolist(), r is x))
    assert got[0] == got[1]


def test_casts_take_memory_format():
    got = []
    for L in LIBS:
        x = L.tensor([1.5, -2.0])
        got.append([getattr(x, n)(memory_format=L.preserve_format).tolist() for n in
                    ("float", "double", "half", "long", "int", "short", "byte", "char", "bool")])
    assert got[0] == got[1]


@pytest.mark.parametrize("reduce", ["add", "multiply"])
@pytest.mark.parametrize("dtype", ["float32", "int64", "bool"])
def test_scatter_reduce(reduce, dtype):
    idx = [[0, 1, 2, 0], [0, 0, 0, 0]]

    def run(L):
        dt = getattr(L, dtype)
        x = L.tensor(np.arange(12).reshape(3, 4) % 2 + 1).to(dt)
        src = L.tensor(np.arange(8).reshape(2, 4) % 3 + 1).to(dt)
        return x.scatter(0, L.tensor(idx), src, reduce=reduce), x.scatter(0, L.tensor(idx), 2, reduce=reduce)
    _same(run)


def test_scatter_reduce_has_no_derivative():
    got = []
    for L in LIBS:
        x = L.zeros(3, requires_grad=True)
        r = x.scatter(0, L.tensor([0, 0]), 1.0, reduce="add")
        with pytest.raises(RuntimeError) as e:
            r.sum().backward()
        got.append((r.grad_fn.name(), str(e.value)))
    assert got[0] == got[1]
    _same(lambda L: L.zeros(3).scatter(0, L.tensor([0]), 1.0, reduce="mean"))


ZERO_D = [
    (lambda L: L.tensor(2.0).scatter(0, L.tensor([0]), L.tensor([5.0])), "scatter_0d_self"),
    (lambda L: L.zeros(3).scatter(0, L.tensor(1), L.tensor(5.0)), "scatter_0d_index"),
    (lambda L: L.tensor(1.0).scatter(0, L.tensor(0), 2.5), "scatter_0d_value"),
    (lambda L: L.zeros(4, 2).scatter(0, L.tensor([[1, 0]], dtype=L.int32), L.ones(1, 2)), "scatter_int32"),
    (lambda L: L.zeros(3).scatter(0, L.tensor([0], dtype=L.int16), 1.0), "scatter_int16"),
    (lambda L: L.zeros(3).scatter(0, L.tensor([3]), 1.0), "scatter_out_of_range"),
    (lambda L: L.zeros(3).scatter(0, L.tensor([0]), L.ones(1, dtype=L.float64)), "scatter_src_dtype"),
    (lambda L: L.gather(L.tensor(3.0), 0, L.zeros(2, dtype=L.int64)), "gather_0d_input"),
    (lambda L: L.gather(L.arange(5.0), 0, L.zeros(0, dtype=L.uint8)), "gather_empty_byte_index"),
    (lambda L: L.gather(L.arange(5.0), 0, L.ones(2, dtype=L.uint8)), "gather_byte_index"),
    (lambda L: L.gather(L.arange(5.0), 0, L.tensor([4, 1], dtype=L.int32)), "gather_int32"),
    (lambda L: L.gather(L.arange(5.0), 0, L.tensor([-1])), "gather_negative"),
    (lambda L: L.gather(L.arange(5.0), 0, L.tensor([[0]])), "gather_ndim"),
]


@pytest.mark.parametrize("call", [c for c, _ in ZERO_D], ids=[i for _, i in ZERO_D])
def test_gather_scatter_edges(call):
    _same(call)


def test_gather_scatter_0d_gradients():
    got = []
    for L in LIBS:
        x = L.tensor(3.0, requires_grad=True)
        L.gather(x, 0, L.zeros(2, dtype=L.int64)).sum().backward()
        s = L.tensor(2.0, requires_grad=True)
        L.zeros(3).scatter(0, L.tensor(1), s).sum().backward()
        got.append((x.grad.item(), s.grad.item()))
    assert got[0] == got[1]


def test_cat_skips_legacy_empty():
    got = []
    for L in LIBS:
        a = L.zeros(0, requires_grad=True)
        b = L.ones(2, 3, requires_grad=True)
        r = L.cat([a, b, a], dim=1)
        (r * L.arange(6.0).reshape(2, 3)).sum().backward()
        got.append((tuple(r.shape), tuple(a.grad.shape), b.grad.tolist()))
    assert got[0] == got[1]


def test_flip_spellings():
    for call in (lambda L: L.flip(L.arange(6.0).reshape(2, 3), dims=(0,)),
                 lambda L: L.arange(6.0).reshape(2, 3).flip(0, 1),
                 lambda L: L.arange(6.0).reshape(2, 3).flip(dims=[1]),
                 lambda L: L.flip(L.arange(6.0).reshape(2, 3), [0, 1])):
        _same(call)


@pytest.mark.parametrize("call", ["flip", "permute", "reshape", "expand", "repeat", "view"])
@pytest.mark.parametrize("ndim", [0, 2])
def test_sizes_left_out_are_pytorchs_type_error(call, ndim):
    """``x.flip()``, ``x.reshape()``...: PyTorch's parser refuses the call; a 0-d tensor took an empty shape here."""
    got = []
    for L in LIBS:
        x = L.ones((2, 3)[:ndim])
        with pytest.raises(TypeError) as err:
            getattr(x, call)()
        text = str(err.value).replace("tinytorch.", "torch.")
        if call in ("flip", "permute", "reshape"):  # the functions too
            with pytest.raises(TypeError) as again:
                getattr(L, call)(x)
            assert str(again.value).replace("tinytorch.", "torch.") == text
        got.append(text)
    assert got[0] == got[1]
    # an empty sequence is a shape (0-d): taken by both
    assert [tuple(getattr(L.ones((2, 3)[:ndim]), "reshape" if ndim == 0 else "flip")(()).shape) for L in LIBS] \
        == [(2, 3)[:ndim]] * 2


def test_index_fill_value_gradient_counts_each_slice_once():
    got = []
    for L in LIBS:
        x = L.ones(4, 5, requires_grad=True)
        v = L.tensor(2.0, requires_grad=True)
        x.index_fill(-1, L.tensor([0, 0, 1, 2, 2]), v).sum().backward()
        got.append((v.grad.item(), x.grad.tolist()))
    assert got[0] == got[1]


INDEX_DTYPES = [
    (lambda L: L.arange(6.0).reshape(2, 3)[L.tensor([1, 0], dtype=L.uint8)], "getitem_byte_mask"),
    (lambda L: L.arange(6.0).reshape(2, 3)[L.tensor([1, 0], dtype=L.int32)], "getitem_int32"),
    (lambda L: L.arange(6.0).reshape(2, 3)[L.tensor([1.0])], "getitem_float"),
    (lambda L: L.arange(6.0).reshape(2, 3).__setitem__(L.tensor([1, 0], dtype=L.uint8), 7.0), "setitem_byte"),
    (lambda L: L.arange(6.0).reshape(2, 3).index_fill(0, L.tensor([1], dtype=L.int32), 1.0), "index_fill_int32"),
    (lambda L: L.arange(6.0).reshape(2, 3).index_copy(0, L.tensor([1], dtype=L.int32), L.ones(1, 3)),
     "index_copy_int32"),
    (lambda L: L.arange(6.0).reshape(2, 3).index_add(0, L.tensor([1], dtype=L.int32), L.ones(1, 3)),
     "index_add_int32"),
    (lambda L: L.take_along_dim(L.arange(6.0).reshape(2, 3), L.tensor([[1]], dtype=L.int32), 1),
     "take_along_dim_int32"),
    (lambda L: L.arange(6.0).take(L.tensor([1], dtype=L.int32)), "take_int32"),
]


@pytest.mark.parametrize("call", [c for c, _ in INDEX_DTYPES], ids=[i for _, i in INDEX_DTYPES])
def test_index_dtypes(call):
    _same(call)


def test_equal_and_new_factories():
    got = []
    for L in LIBS:
        x = L.ones(2)
        got.append((L.equal(x, L.ones(2, dtype=L.int64)), x.equal(L.ones(3)), L.equal(x, x * float("nan")),
                    x.new_full((2, 3), 1.5).tolist(), str(x.new_zeros(2).dtype).split(".")[-1],
                    x.new_tensor([1, 2]).tolist(), tuple(x.new_empty(3, 1).shape), x.new_ones([2]).tolist()))
    assert got[0] == got[1]


@pytest.mark.parametrize("call", [lambda L: L.ones(2).new_full(2, 7), lambda L: L.expand_copy(L.ones(1), 3)],
                         ids=["new_full", "expand_copy"])
def test_a_size_taken_as_one_sequence(torch, call):
    texts = []
    for L in (torch, tinytorch):
        with pytest.raises(TypeError) as err:
            call(L)
        texts.append(str(err.value))
    assert texts[0] == texts[1]


VMAPPED = [
    (lambda L, a: a.view(3, 2).t().reshape(-1), "view_t_reshape"),
    (lambda L, a: (a.unsqueeze(0).squeeze(0).transpose(0, 1).flatten(), a.T, a.mT), "squeeze_transpose"),
    (lambda L, a: a.repeat(2, 1, 1), "repeat"),
    (lambda L, a: a.diagonal() + L.diagonal(a, 1), "diagonal"),
    (lambda L, a: (a.select(1, 0), a.narrow(0, 1, 1), a.split(1, 1), a.chunk(2, 0), a.unbind(1)), "splits"),
    (lambda L, a: (L.cat([a, a], 1), L.stack([a, a], -1), L.cat([a, L.ones(2, 3)], 0)), "join"),
    (lambda L, a: (a.gather(1, L.tensor([[0, 2], [1, 1]])), a.scatter(1, L.tensor([[0], [2]]), 9.0)), "gather"),
    (lambda L, a: (a.flip(0), a.tril(), a.triu(1), L.fliplr(a), L.movedim(a, 0, 1), a.tile(2)), "tri"),
    (lambda L, a: (a[0], a[:, 1:], a[..., None]), "getitem"),
    (lambda L, a: (a.clone(), a.contiguous(), a.float(), a.double(), a.to(L.float64), a.type_as(a)), "casts"),
    (lambda L, a: (a.expand(2, 2, 3), a.expand_as(L.ones(2, 2, 3)), a.broadcast_to((2, 2, 3))), "expand"),
    (lambda L, a: L.constant_pad_nd(a, [1, 1]), "constant_pad_nd"),
    (lambda L, a: a.index_select(1, L.tensor([2, 0])), "per_sample_fallback"),
]


@pytest.mark.parametrize("fn", [f for f, _ in VMAPPED], ids=[i for _, i in VMAPPED])
def test_vmap_rules(fn):
    x = np.arange(24.0).reshape(4, 2, 3)
    got = [L.func.vmap(lambda a, L=L: fn(L, a))(L.tensor(x)) for L in LIBS]
    a, b = _np(got[0]), _np(got[1])
    flat_a = a if isinstance(a, list) else [a]
    flat_b = b if isinstance(b, list) else [b]

    def flatten(xs):
        out = []
        for v in xs:
            out.extend(flatten(v) if isinstance(v, list) else [v])
        return out
    for p, q in zip(flatten(flat_a), flatten(flat_b), strict=True):
        np.testing.assert_allclose(p, q)


def test_vmap_refuses_setitem():
    with pytest.raises(RuntimeError, match="vmap"):
        tinytorch.func.vmap(lambda a: a.__setitem__(0, 1.0))(tinytorch.ones(2, 3))


def test_forward_ad_clone_and_t():
    import tinytorch.autograd.forward_ad as tfw
    import torch.autograd.forward_ad as fw
    got = []
    for L, F in ((tinytorch, tfw), (torch, fw)):
        with F.dual_level():
            x = F.make_dual(L.tensor([[1.0, 2.0], [3.0, 4.0]]), L.tensor([[1.0, 0.0], [0.5, 2.0]]))
            y = x.clone().t() * 3
            got.append(F.unpack_dual(y).tangent.tolist())
    assert got[0] == got[1]


def test_scatter_add_and_split_with_sizes():
    got = []
    for L in LIBS:
        x = L.ones(3, 4, requires_grad=True)
        s = L.arange(8.0).reshape(2, 4).requires_grad_()
        r = x.scatter_add(0, L.tensor([[0, 1, 2, 0], [0, 0, 0, 0]]), s)
        (r * L.arange(12.0).reshape(3, 4)).sum().backward()
        parts = L.split_with_sizes(x, [1, 2])
        got.append((r.grad_fn.name(), len(r.grad_fn.next_functions), r.tolist(), x.grad.tolist(), s.grad.tolist(),
                    [tuple(p.shape) for p in parts], parts[0].grad_fn.name(),
                    L.tensor(1.0).scatter_add(0, L.tensor(0), L.tensor(2.0)).item(),
                    L.tensor([True, False]).scatter_add(0, L.tensor([1, 1]), L.tensor([True, False])).tolist()))
    assert got[0] == got[1]


def test_unsqueeze_strides_as_pytorch():
    # every stride kept, the new dim's stride the next dim's extent (1 at the end), also for strided and
    # permuted inputs with size-1 dims, whose strides numpy's reshape would renumber; writes go through
    rng = np.random.default_rng(0)
    for _ in range(150):
        shape = tuple(int(v) for v in rng.integers(1, 5, rng.integers(1, 4)))
        steps = tuple(slice(None, None, int(rng.integers(1, 3))) for _ in shape)
        perm = [int(p) for p in rng.permutation(len(shape))]
        views = []
        for lib in (torch, tinytorch):
            base = lib.arange(float(np.prod(shape)) * 8).reshape(*[s * 2 for s in shape], -1)[..., 0]
            views.append((base, base[steps].permute(*perm)))
        (bt, vt), (bx, vx) = views
        for d in range(-vt.dim() - 1, vt.dim() + 1):
            ut, ux = vt.unsqueeze(d), vx.unsqueeze(d)
            assert ux.stride() == ut.stride(), (shape, steps, perm, d)
            ut.add_(1)
            ux.add_(1)
            assert np.array_equal(bx.numpy(), bt.numpy())


@pytest.mark.bitexact
@pytest.mark.parametrize("shape", [(8, 16), (5,), (3, 2, 2)])
def test_int_index_fast_path_values_views_and_errors_as_pytorch(shape):
    """``x[k]`` for an int ``k`` (the indexing fast path): the same view (storage, version, grad) and, for
    out-of-range keys, PyTorch's IndexError, or its ValueError beyond int64."""
    def run(lib):
        out = []
        x = lib.arange(float(np.prod(shape))).reshape(shape)
        w = x.clone().requires_grad_()
        for k in (0, 2, -1, -shape[0], shape[0], -shape[0] - 1, 2**63 - 1, -2**63, 2**63, -2**63 - 1, 2**70):
            try:
                v = x[k]
                v2 = w[k]
                out.append((v.tolist(), v._version, v._base is x, v2.grad_fn.name(), v2.requires_grad))
            except Exception as e:  # noqa: BLE001 (the error itself is compared)
                out.append((type(e).__name__, str(e)))
        v = x[1]
        x.add_(1)
        out.append((v.tolist() if v.dim() else v.item(), v._version, x._version))
        return out
    assert run(tinytorch) == run(torch)


PERMUTE_ERRORS = [(0, 0), (0, -2), (1,), (0, 1, 2), (0, 1, 5), (5,), (0, 5), (-3, 0)]


@pytest.mark.parametrize("dims", PERMUTE_ERRORS, ids=str)
def test_permute_errors_as_pytorch(dims):
    # the count is checked before each dim's range, and repeats last
    _same(lambda L: L.zeros(2, 3).permute(*dims))
    _same(lambda L: L.permute(L.zeros(2, 3), dims))


def _view_dtype_cases(L):
    x = L.arange(12.).reshape(3, 4)
    return {
        "same size": lambda: x.view(L.int32), "same size, transposed": lambda: x.t().view(L.int32),
        "down, transposed": lambda: x.t().view(L.float16), "down": lambda: x.view(L.float16),
        "up": lambda: x.view(L.float64), "up, odd size": lambda: x[:, :3].view(L.float64),
        "up, offset 2": lambda: x[:, 2:].view(L.float64), "up, offset 1": lambda: x[:, 1:3].view(L.float64),
        "up, step": lambda: x[:, ::2].view(L.float64), "0-d down": lambda: L.tensor(1.).view(L.float16),
        "0-d same": lambda: L.tensor(1.).view(L.int32), "to complex": lambda: L.ones(3, 2).view(L.complex64),
        "to bool": lambda: L.ones(3, 2).view(L.bool), "keyword": lambda: x.view(dtype=L.uint8),
        "complex up": lambda: L.ones(3, 2, dtype=L.complex64).view(L.float64),
        "empty last dim": lambda: L.ones(3, 0).view(L.float64), "size-1 last dim": lambda: L.ones(3, 1).view(L.float64),
        "up, odd row stride": lambda: L.ones(3, 4)[::2, :2].view(L.float64),
        "down, rows stepped": lambda: L.ones(3, 4)[::2].view(L.int8),
        "half to bfloat16": lambda: L.ones(2, 3, dtype=L.float16).view(L.bfloat16),
        "bytes to float": lambda: L.arange(8, dtype=L.uint8).reshape(2, 4).view(L.float32),
        "conjugated": lambda: L.ones(2, 2, dtype=L.complex64).conj().view(L.float32),
        "to complex32": lambda: L.ones(2, 2, dtype=L.complex64).view(L.complex32).view(L.float16),
    }


@pytest.mark.parametrize("case", list(_view_dtype_cases(torch)))
def test_view_dtype_as_pytorch(case):
    # the bytes read as another dtype, the last dim rescaled with PyTorch's strides, or PyTorch's refusal
    def run(L):
        r = _view_dtype_cases(L)[case]()
        return (str(r.dtype).split(".")[-1], tuple(r.shape), r.stride(), r.requires_grad, r._is_view(),
                r.to(L.complex128 if r.is_complex() else L.float64).numpy())
    (k0, a), (k1, b) = _both(run)
    assert k0 == k1, (a, b)
    if k0 != "ok":
        assert a == b
        return
    assert a[:5] == b[:5]
    np.testing.assert_array_equal(a[5], b[5])


def test_view_dtype_shares_storage_and_version_but_no_graph():
    for L in LIBS:
        y = L.randn(3, requires_grad=True)
        for dt in (L.float32, L.int32, L.float16):
            v = y.view(dt)
            assert not v.requires_grad and v.grad_fn is None and v._base is None
        z = y * 1
        w = z.view(L.int32)
        with L.no_grad():
            w.add_(1)  # writes z's bytes, bumps z's version, and leaves z's history alone
        assert z._version == w._version == 1
        assert z.grad_fn.name() == "MulBackward0"
        z.sum().backward()
        np.testing.assert_array_equal(y.grad.numpy(), np.ones(3))


@pytest.mark.parametrize("in_dims,shape,dt", [(0, (2, 2), "float16"), (0, (3,), "float16"), (1, (2, 2), "float16"),
                                              (0, (3,), "int32"), (0, (2, 4), "float64")])
def test_view_dtype_under_vmap(in_dims, shape, dt):
    _same(lambda L: L.func.vmap(lambda t: t.view(getattr(L, dt)), in_dims=in_dims)(L.ones(shape)).double())


def _index_cases(L):
    x = L.arange(120.).reshape(2, 3, 4, 5)
    m3, m4, i, i2d = L.tensor([True, False, True]), L.tensor([True, False, True, True]), L.tensor([0, 2]), \
        L.tensor([[0, 2], [1, 1]])
    return {
        "[:, mask]": lambda: x[:, m3], "[mask]": lambda: x[L.tensor([True, False])], "[:, :, mask]": lambda: x[:, :, m4],
        "[i]": lambda: x[i], "[:, i]": lambda: x[:, i], "[..., i]": lambda: x[..., i], "[i, i]": lambda: x[i[:1], i],
        "[:, i, i]": lambda: x[:, i, i], "[i, :, i]": lambda: x[i[:1], :, i], "[:, i2d]": lambda: x[:, i2d],
        "[:, i2d.t()]": lambda: x[:, i2d.t()], "[:, i2d, :, i]": lambda: x[:, i2d, :, i],
        "[0, i]": lambda: x[0, i], "[:, 0, i]": lambda: x[:, 0, i], "[None, :, i]": lambda: x[None, :, i],
        "[1:, i]": lambda: x[1:, i], "[:, ::2, i]": lambda: x[:, ::2, i], "[:, i, None]": lambda: x[:, i, None],
        "transposed[:, i]": lambda: x.transpose(0, 3)[:, i], "permuted[i]": lambda: x.permute(3, 2, 1, 0)[i],
        "permuted[:, i, :, i]": lambda: x.permute(3, 1, 2, 0)[:, i, :, i[:1]],
        "transposed[:, i2d.t()]": lambda: x.transpose(1, 2)[:, :, i2d.t()],
        "[:, 2-d mask]": lambda: x[:, L.ones(3, 4, dtype=L.bool)], "[:, [0, 1]]": lambda: x[:, [0, 1]],
        "2-d t()[:, mask]": lambda: L.arange(6.).reshape(3, 2).t()[:, m3],
    }


@pytest.mark.parametrize("case", list(_index_cases(torch)))
def test_advanced_indexing_result_strides_as_pytorch(case):
    # PyTorch's result is a fresh tensor laid out by its TensorIterator (contiguous for a contiguous input);
    # x[:, mask].view(-1) then works
    def run(L):
        r = _index_cases(L)[case]()
        flat = r.view(-1) if r.is_contiguous() else None
        return tuple(r.shape), r.stride(), r.is_contiguous(), r.numpy(), None if flat is None else flat.numpy()
    a, b = [fn for _, fn in _both(run)]
    assert a[:3] == b[:3]
    np.testing.assert_array_equal(a[3], b[3])
