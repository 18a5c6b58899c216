"""The meta device compared with PyTorch: tensors with a shape, dtype and strides but no values, made by
the factories (``device="meta"``, a meta default device), by ``to("meta")`` and ``Module.to("meta")``,
carried through ops (shapes, dtypes, strides, grad_fn names), printed as ``tensor(..., device='meta',
size=(...))``, refusing everything that would show a value, and brought back with ``Module.to_empty``."""
from __future__ import annotations

import copy

import math

import pytest

import tinytorch
from _messages import normalise


@pytest.fixture(scope="module")
def torch():
    return pytest.importorskip("torch")


def _seen(x):
    """What a user can see of a meta-device result (no values): repr, device, shape, dtype, strides."""
    if isinstance(x, (tuple, list)):
        return type(x).__name__, [_seen(v) for v in x]
    if hasattr(x, "is_meta") and hasattr(x, "stride"):
        fn = x.grad_fn
        return (normalise(repr(x)), str(x.device), x.is_meta, tuple(x.shape), str(x.dtype).split(".")[-1],
                x.stride(), x.is_contiguous(), x.requires_grad, None if fn is None else fn.name(), x.is_leaf)
    return normalise(repr(x))


def _outcome(fn, lib):
    try:
        return "ok", _seen(fn(lib))
    except Exception as e:  # noqa: BLE001 - the error is compared
        return "raised", type(e).__name__, normalise(str(e))


def _m(lib, *shape, **kw):
    return lib.empty(*shape, device="meta", **kw)


CASES = {
    # making them
    "empty": lambda lib: _m(lib, 2, 3),
    "empty_f64_rg": lambda lib: _m(lib, 2, 3, dtype=lib.float64, requires_grad=True),
    "empty_int": lambda lib: _m(lib, 2, 3, dtype=lib.int64),
    "empty_0d": lambda lib: lib.empty((), device="meta"),
    "device_object": lambda lib: lib.empty(2, device=lib.device("meta")),
    "zeros": lambda lib: lib.zeros(2, 2, device="meta"),
    "ones": lambda lib: lib.ones(3, device="meta", dtype=lib.float16),
    "full": lambda lib: lib.full((2,), 7.0, device="meta"),
    "randn": lambda lib: lib.randn(4, device="meta"),
    "randint": lambda lib: lib.randint(0, 5, (3,), device="meta"),
    "arange": lambda lib: lib.arange(5, device="meta"),
    "tensor": lambda lib: lib.tensor([1.0, 2.0], device="meta"),
    "eye": lambda lib: lib.eye(3, device="meta"),
    "zeros_like_meta": lambda lib: lib.zeros_like(_m(lib, 2, 3)),
    "empty_like_to_cpu_shape": lambda lib: tuple(lib.empty_like(_m(lib, 2, 3), device="cpu").shape),
    "new_empty": lambda lib: _m(lib, 2).new_empty(4),
    "new_zeros_dtype": lambda lib: _m(lib, 2).new_zeros((2, 2), dtype=lib.int32),
    "to_meta": lambda lib: lib.ones(2, 3).to("meta"),
    "to_meta_device": lambda lib: lib.ones(2).to(lib.device("meta")),
    "to_meta_dtype": lambda lib: lib.ones(2).to("meta", lib.float64),
    "to_meta_requires_grad": lambda lib: lib.ones(2, requires_grad=True).to("meta"),
    "to_meta_transposed_strides": lambda lib: lib.ones(2, 3).t().to("meta"),
    "with_device_block": lambda lib: _in_meta_block(lib, lambda: lib.ones(2)),
    "with_device_block_module": lambda lib: _in_meta_block(lib, lambda: lib.nn.Linear(2, 3).weight),
    "default_device": lambda lib: _with_default_meta(lib, lambda: (lib.zeros(2), lib.get_default_device())),
    "parameter": lambda lib: lib.nn.Parameter(_m(lib, 2)),
    "deepcopy": lambda lib: copy.deepcopy(_m(lib, 3, requires_grad=True)),
    "detach": lambda lib: _m(lib, 2, requires_grad=True).detach(),
    "data": lambda lib: _m(lib, 2, requires_grad=True).data,
    # ops on them
    "add_number": lambda lib: _m(lib, 2, 3) + 1,
    "add_0d_cpu": lambda lib: _m(lib, 2, 3) + lib.tensor(1.0),
    "mm": lambda lib: _m(lib, 2, 3) @ _m(lib, 3, 4),
    "matmul_T": lambda lib: _m(lib, 2, 3) @ _m(lib, 2, 3).T,
    "t_strides": lambda lib: _m(lib, 2, 3).t(),
    "sum": lambda lib: _m(lib, 2, 3).sum(),
    "sum_dim_keepdim": lambda lib: _m(lib, 2, 3).sum(1, keepdim=True),
    "grad_fn_sum": lambda lib: _m(lib, 2, 3, requires_grad=True).sum(),
    "eq": lambda lib: _m(lib, 2, 3) == 1,
    "max_dim": lambda lib: _m(lib, 2, 3, requires_grad=True).max(1),
    "softmax": lambda lib: lib.softmax(_m(lib, 2, 3, requires_grad=True), 1),
    "cat": lambda lib: lib.cat([_m(lib, 2, 3), _m(lib, 2, 3)]),
    "double": lambda lib: _m(lib, 2, 3, requires_grad=True).double(),
    "index_select": lambda lib: _m(lib, 4, 3, requires_grad=True)[0],
    "index_tensor": lambda lib: _m(lib, 4, 3, requires_grad=True)[lib.tensor([0, 2])],
    "view": lambda lib: _m(lib, 2, 3).view(3, 2),
    "permute_contiguous": lambda lib: _m(lib, 2, 3, 4).permute(2, 0, 1).contiguous(),
    "linear_meta": lambda lib: lib.nn.Linear(2, 3, device="meta")(_m(lib, 4, 2)),
    "conv_meta": lambda lib: lib.nn.Conv2d(1, 4, 3, device="meta")(_m(lib, 2, 1, 8, 8)),
    "mlp_meta": lambda lib: _in_meta_block(lib, lambda: lib.nn.Sequential(
        lib.nn.Linear(4, 8), lib.nn.ReLU(), lib.nn.Linear(8, 2))(lib.empty(5, 4))),
    "backward": lambda lib: _backward(lib),
    "in_place_writes_nothing": lambda lib: _in_place(lib),
    "uniform_under_no_grad": lambda lib: _no_grad(lib, lambda: _m(lib, 3, requires_grad=True).uniform_()),
    "len_iter": lambda lib: (len(_m(lib, 2, 3)), list(_m(lib, 2))),
    # what they refuse
    "item": lambda lib: lib.empty((), device="meta").item(),
    "tolist": lambda lib: _m(lib, 2).tolist(),
    "numpy": lambda lib: _m(lib, 2).numpy(),
    "cpu": lambda lib: _m(lib, 2).cpu(),
    "to_cpu": lambda lib: _m(lib, 2).to("cpu"),
    "bool": lambda lib: bool(lib.empty((), device="meta")),
    "float": lambda lib: float(lib.empty((), device="meta")),
    "format_spec": lambda lib: f"{lib.empty((), device='meta'):.2f}",
    "format": lambda lib: f"{_m(lib, 2)}",
    "mixed_with_cpu": lambda lib: _m(lib, 2, 3) + lib.ones(2, 3),
    "nonzero": lambda lib: _m(lib, 2).nonzero(),
    "masked_select": lambda lib: lib.masked_select(_m(lib, 2), _m(lib, 2) > 0),
    "in_place_on_leaf": lambda lib: _m(lib, 2, requires_grad=True).uniform_(),
    "data_ptr": lambda lib: _m(lib, 2).data_ptr(),
}


def _in_meta_block(lib, fn):
    with lib.device("meta"):
        return fn()


def _with_default_meta(lib, fn):
    lib.set_default_device("meta")
    try:
        return fn()
    finally:
        # None, not "cpu": PyTorch keeps a device mode for "cpu", under which its weighted l1_loss takes
        # another path (other numbers), so a later test comparing with PyTorch would see that
        lib.set_default_device(None)


def _no_grad(lib, fn):
    with lib.no_grad():
        return fn()


def _backward(lib):
    x = _m(lib, 2, 3, requires_grad=True)
    (x * 2).sum().backward()
    return x.grad


def _in_place(lib):
    x = _m(lib, 2, 3)
    x.add_(1)
    x.mul_(lib.tensor(2.0))
    return x, x._version


@pytest.mark.parametrize("case", sorted(CASES))
def test_meta_device_as_pytorch(torch, case):
    got = _outcome(CASES[case], tinytorch)
    expected = _outcome(CASES[case], torch)
    assert got == expected


def _mlp(lib):
    return lib.nn.Sequential(lib.nn.Linear(784, 128), lib.nn.ReLU(), lib.nn.Linear(128, 10))


def test_module_to_meta_and_back_with_to_empty(torch):
    def run(lib):
        lib.manual_seed(0)
        model = _mlp(lib)
        meta = copy.deepcopy(model).to("meta")
        seen = [_seen(p) for p in meta.parameters()] + [normalise(repr(meta[0].weight))]
        seen.append(sum(p.numel() for p in meta.parameters()))
        seen.append(sorted((k, _seen(v)) for k, v in meta.state_dict().items()))
        seen.append([p.is_meta for p in model.parameters()])  # the original stays where it was
        back = meta.to_empty(device="cpu")
        seen.append([(tuple(p.shape), str(p.device), p.is_meta, type(p).__name__) for p in back.parameters()])
        built = _in_meta_block(lib, lambda: _mlp(lib))
        seen.append([str(p.device) for p in built.parameters()])
        seen.append([(str(p.device), p.requires_grad) for p in built.to_empty(device="cpu").parameters()])
        return seen

    assert run(tinytorch) == run(torch)


def test_module_to_meta_of_batchnorm_buffers(torch):
    def run(lib):
        bn = lib.nn.BatchNorm1d(3).to("meta")
        return [_seen(b) for b in bn.buffers()], _seen(bn(lib.empty(4, 3, device="meta")))

    assert run(tinytorch) == run(torch)


def test_meta_tensors_cost_no_memory():
    # a 1.6 GB layer built on the meta device holds no values: the process does not grow (the initialisation's
    # in-place writes are skipped on meta tensors, as PyTorch's meta kernels do), nor does a forward
    import resource

    before = resource.getrusage(resource.RUSAGE_SELF).ru_maxrss
    layer = tinytorch.nn.Linear(20000, 20000, device="meta")
    out = layer(tinytorch.empty(2, 20000, device="meta"))
    view = layer.weight.t()
    grown_kib = resource.getrusage(resource.RUSAGE_SELF).ru_maxrss - before
    assert layer.weight.is_meta and out.is_meta and out.shape == (2, 20000) and view.stride() == (1, 20000)
    assert grown_kib < 200_000, grown_kib


def test_random_meta_factories_leave_the_generator_alone(torch):
    def run(lib):
        lib.manual_seed(3)
        lib.randn(1000, device="meta")
        lib.rand(5, device="meta")
        return lib.randn(3).tolist()

    assert run(tinytorch) == pytest.approx(run(torch))


HUGE = {  # sizes no machine holds: each result's shape, dtype and strides, as PyTorch's meta kernels give them
    "empty": lambda lib: _m(lib, 10**13),
    "view": lambda lib: _m(lib, 10**13).view(10**6, -1),
    "slice_stride": lambda lib: _m(lib, 10**13)[::2],
    "mul": lambda lib: _m(lib, 10**13) * 2,
    "sum_dim": lambda lib: _m(lib, 10**6, 10**7).sum(1),
    "mean_keepdim": lambda lib: _m(lib, 10**6, 10**7).mean(-1, keepdim=True),
    "matmul": lambda lib: _m(lib, 10**6, 10**6) @ _m(lib, 10**6, 10**5),
    "softmax": lambda lib: lib.softmax(_m(lib, 10**5, 10**6), -1),
    "transpose_contiguous": lambda lib: _m(lib, 10**5, 10**6).t().contiguous(),
    "randn": lambda lib: lib.randn(10**13, device="meta"),
    "zeros_like": lambda lib: lib.zeros_like(_m(lib, 10**13)),
    "arange": lambda lib: lib.arange(10**13, device="meta"),
    "full": lambda lib: lib.full((10**7, 10**6), 2.0, device="meta"),
    "linear": lambda lib: lib.nn.Linear(10**5, 10**5, device="meta")(_m(lib, 10**4, 10**5)),
    "to_half": lambda lib: _m(lib, 10**13).to(lib.float16),
    "cat": lambda lib: lib.cat([_m(lib, 10**12), _m(lib, 10**12)]),
    "layer_norm": lambda lib: lib.nn.functional.layer_norm(_m(lib, 10**6, 10**6), (10**6,)),
    "expand": lambda lib: _m(lib, 10**6, 1).expand(10**6, 10**7),
    "index": lambda lib: _m(lib, 10**7, 10**6)[lib.tensor([0, 5, 7])],
}


@pytest.mark.parametrize("case", sorted(HUGE))
def test_huge_meta_tensors_allocate_nothing(torch, case):
    # before, a meta tensor held zeros of its size: 10**13 elements could not even be mapped
    import tracemalloc

    expected = _outcome(HUGE[case], torch)
    tracemalloc.start()
    try:
        got = _outcome(HUGE[case], tinytorch)
        peak = tracemalloc.get_traced_memory()[1]
    finally:
        tracemalloc.stop()
    assert got == expected
    assert peak < 16 << 20, peak


SHAPE_ERRORS = {
    "mm": lambda lib: _m(lib, 2, 3) @ _m(lib, 4, 5),
    "linear": lambda lib: lib.nn.functional.linear(_m(lib, 2, 3), _m(lib, 4, 5)),
    "broadcast": lambda lib: _m(lib, 2, 3) + _m(lib, 4),
    "broadcast_second": lambda lib: _m(lib, 2, 3) * _m(lib, 3, 2),
    "cat": lambda lib: lib.cat([_m(lib, 2, 3), _m(lib, 2, 4)]),
    "cat_dim1": lambda lib: lib.cat([_m(lib, 2, 3), _m(lib, 5, 4)], 1),
    "view": lambda lib: _m(lib, 2, 3).view(4, 2),
    "view_of_transpose": lambda lib: _m(lib, 2, 3).t().view(6),
    "conv_channels": lambda lib: lib.nn.functional.conv2d(_m(lib, 1, 3, 8, 8), _m(lib, 4, 2, 3, 3)),
    "index": lambda lib: _m(lib, 2, 3)[5],
    "expand": lambda lib: _m(lib, 2, 3).expand(4, 3),
}


@pytest.mark.parametrize("case", sorted(SHAPE_ERRORS))
def test_meta_shape_errors_as_pytorch(torch, case):
    assert _outcome(SHAPE_ERRORS[case], tinytorch) == _outcome(SHAPE_ERRORS[case], torch)


def _llm(lib, layers: int, d: int = 4096, hidden: int = 11008, vocab: int = 32000, heads: int = 32):
    """A decoder-only transformer of Llama's shapes (7B at 32 layers): embedding, attention and gated MLP blocks."""
    nn, F = lib.nn, lib.nn.functional

    class Block(nn.Module):
        def __init__(self):
            super().__init__()
            self.q, self.k, self.v, self.o = (nn.Linear(d, d, bias=False) for _ in range(4))
            self.gate, self.up = nn.Linear(d, hidden, bias=False), nn.Linear(d, hidden, bias=False)
            self.down = nn.Linear(hidden, d, bias=False)
            self.n1, self.n2 = nn.RMSNorm(d), nn.RMSNorm(d)

        def forward(self, x):
            b, s, _ = x.shape
            h = self.n1(x)
            q, k, v = (f(h).view(b, s, heads, d // heads).transpose(1, 2) for f in (self.q, self.k, self.v))
            a = F.scaled_dot_product_attention(q, k, v, is_causal=True)
            x = x + self.o(a.transpose(1, 2).reshape(b, s, d))
            h = self.n2(x)
            return x + self.down(F.silu(self.gate(h)) * self.up(h))

    class LM(nn.Module):
        def __init__(self):
            super().__init__()
            self.emb = nn.Embedding(vocab, d)
            self.blocks = nn.ModuleList([Block() for _ in range(layers)])
            self.norm, self.head = nn.RMSNorm(d), nn.Linear(d, vocab, bias=False)

        def forward(self, ids):
            x = self.emb(ids)
            for block in self.blocks:
                x = block(x)
            return self.head(self.norm(x))

    return LM()


def test_a_7b_model_on_meta_holds_no_memory():
    # PyTorch's reason for meta tensors: a model far larger than the machine built, counted and run for its shapes
    import tracemalloc

    tracemalloc.start()
    try:
        with tinytorch.device("meta"):
            model = _llm(tinytorch, 32)
        built = tracemalloc.get_traced_memory()[1]
        out = model(tinytorch.zeros(1, 128, dtype=tinytorch.int64, device="meta"))
        ran = tracemalloc.get_traced_memory()[1]
    finally:
        tracemalloc.stop()
    n = sum(p.numel() for p in model.parameters())
    assert n == 32000 * 4096 * 2 + 32 * (4 * 4096 * 4096 + 3 * 4096 * 11008 + 2 * 4096) + 4096
    assert all(p.is_meta for p in model.parameters()) and out.is_meta and tuple(out.shape) == (1, 128, 32000)
    assert built < 8 << 20 and ran < 32 << 20, (built, ran)


def test_a_transformer_on_meta_as_pytorch(torch):
    def run(lib):
        with lib.device("meta"):
            model = _llm(lib, 2, d=64, hidden=160, vocab=100, heads=4)
        ids = lib.zeros(2, 7, dtype=lib.int64, device="meta")
        out = model(ids)
        return [_seen(p) for p in model.parameters()], _seen(out), _seen(model.blocks[0].q(model.emb(ids)))

    assert run(tinytorch) == run(torch)


@pytest.mark.parametrize("view", ["x[1:, 2:]", "x.t()[3]", "x.view(-1)[5:]", "x[::2, 1]", "x.unsqueeze(0)[0, 3:]"])
def test_meta_views_storage_offset_as_pytorch(torch, view):
    # a wrapper subclass on meta (PyTorch's swap_tensors recipe) asks its element's storage_offset()
    def offset(T):
        x = T.empty(4, 6, device="meta")
        y = eval(view, {"x": x})
        return y.storage_offset(), tuple(y.stride()), tuple(y.shape)
    assert offset(tinytorch) == offset(torch)


@pytest.mark.parametrize("stride", [1, 2])
def test_conv_transpose3d_on_meta_after_a_cpu_call(torch, stride):
    # its depth loop made its zero slices as CPU arrays: a meta call after any CPU call refused them as mixed devices
    shapes = []
    for L in (torch, tinytorch):
        L.nn.functional.conv_transpose3d(L.ones(1, 2, 3, 3, 3), L.ones(2, 3, 2, 2, 2), stride=stride)
        x, w = L.empty(1, 2, 3, 3, 3, device="meta"), L.empty(2, 3, 2, 2, 2, device="meta")
        out = L.nn.functional.conv_transpose3d(x, w, stride=stride, padding=1, dilation=2)
        shapes.append((tuple(out.shape), out.stride(), str(out.device)))
    assert shapes[0] == shapes[1]


def _geometry(t):
    return tuple(t.shape), tuple(t.stride()), str(t.dtype).split(".")[-1], t.device.type


@pytest.mark.parametrize("device", ["cpu", "meta"])
@pytest.mark.parametrize("case", ["dim1", "last", "transposed", "broadcast"])
def test_cross_result_strides_as_pytorch(torch, device, case):
    # numpy's cross along a dim other than the last is a view of its last-dim product; PyTorch's result is C order
    def run(L):
        a, b = L.ones(5, 3, 5, device=device), L.ones(5, 3, 5, device=device)
        if case == "dim1":
            return L.linalg.cross(a, b, dim=1), L.cross(a, b, dim=1)
        if case == "last":
            return L.linalg.cross(a[..., :3], b[..., :3]), L.cross(a[..., :3], b[..., :3], dim=-1)
        if case == "transposed":
            at, bt = a[..., :3].transpose(1, 2), b[..., :3].transpose(1, 2)
            return L.linalg.cross(at, bt, dim=1), L.cross(at, bt, dim=2)
        return L.linalg.cross(a[:1], b, dim=1), L.cross(a, b[:, :, :1], dim=1)
    got, want = run(tinytorch), run(torch)
    assert [_geometry(t) for t in got] == [_geometry(t) for t in want]
    if device == "cpu":
        x, y = torch.randn(4, 3, 2), torch.randn(4, 3, 2)
        tx, ty = tinytorch.tensor(x.numpy()), tinytorch.tensor(y.numpy())
        got = torch.tensor(tinytorch.linalg.cross(tx, ty, dim=1).tolist())
        torch.testing.assert_close(got, torch.linalg.cross(x, y, dim=1))  # (numpy's products round apart)


def _result_or_error(f):
    try:
        r = f()
    except Exception as e:  # noqa: BLE001 - the outcome is compared
        return type(e).__name__, str(e)
    return _geometry(r), r.tolist() if r.device.type == "cpu" else None


@pytest.mark.parametrize("name", ["linspace", "logspace"])
@pytest.mark.parametrize("case", ["meta_start", "meta_end", "empty", "int", "cpu_1d", "cpu_2d_end", "both_1d",
                                  "meta_1d", "cpu"])
def test_linspace_tensor_bounds_as_pytorch(torch, name, case):
    # PyTorch's tensor overloads run where their bounds are (a meta bound: a meta result, whatever device says),
    # read no value there, and take 0-d bounds only
    def run(L):
        f = getattr(L, name)
        m = L.empty((), device="meta")
        args = {"meta_start": (m, 3, 4), "meta_end": (L.tensor(1.0), m, 4), "empty": (m, -3, 0),
                "int": (m, 3, 5), "cpu_1d": (L.ones(2), 3, 4), "cpu_2d_end": (1, L.ones(1, 1), 4),
                "both_1d": (L.ones(2), L.ones(3), 4), "meta_1d": (L.empty(2, device="meta"), 3, 4),
                "cpu": (L.tensor(1.0), L.tensor(3.0), 4)}[case]
        kwargs = {"dtype": L.int64} if case == "int" else {}
        return _result_or_error(lambda: f(*args, device="cpu", **kwargs))
    assert run(tinytorch) == run(torch)


def test_tensor_split_refuses_meta_indices_as_pytorch(torch):
    def run(L):
        return [_result_or_error(lambda: L.tensor_split(L.ones(5, device="meta"), L.empty(2, 2, device="meta"))),
                _result_or_error(lambda: L.tensor_split(L.ones((), device="meta"), L.empty(2, 2, device="meta"))),
                [_geometry(t) for t in L.tensor_split(L.ones(5, device="meta"), L.tensor([1, 2]))]]
    assert run(tinytorch) == run(torch)


@pytest.mark.parametrize("view", ["x", "x.t()", "x[:, ::2]", "x[1:, 1:]", "x.expand(2, 5, 5)"])
def test_as_strided_scatter_meta_geometry_as_pytorch(torch, view):
    def run(L):
        x = L.empty(5, 5, device="meta")
        out = L.as_strided_scatter(eval(view, {"x": x}), L.empty(5, device="meta"), (5,), (1,))
        wrong = _result_or_error(lambda: L.as_strided_scatter(x, L.empty(5, device="meta"), (4,), (1,)))
        a, s = L.empty(5, 5, device="meta", requires_grad=True), L.empty(5, device="meta", requires_grad=True)
        r = L.as_strided_scatter(a, s, (5,), (1,))
        grads = L.autograd.grad(r, [a, s], L.empty(5, 5, device="meta"))
        return (_geometry(out), out.storage_offset(), wrong, type(r.grad_fn).__name__,
                [_geometry(g) for g in grads])
    assert run(tinytorch) == run(torch)


@pytest.mark.parametrize("op", ["max", "min"])
def test_full_max_min_gradient_on_meta_and_nan(torch, op):
    # the NaN elements are picked by a where (no item(): a meta result has no value to read)
    def run(L):
        x = L.empty(4, 5, device="meta", requires_grad=True)
        g, = L.autograd.grad(getattr(x, op)(), x, L.empty((), device="meta"))
        values = []
        for data in ([1.0, 3.0, 3.0, 2.0], [1.0, float("nan"), 3.0, float("nan")], [2.0, 2.0]):
            y = L.tensor(data, requires_grad=True)
            values.append(L.autograd.grad(getattr(y, op)(), y)[0].tolist())
        return _geometry(g), values
    assert run(tinytorch) == run(torch)


def test_meta_gradients_summed_stay_meta(torch):
    # the singular values get two gradients (cond's largest and smallest): their sum stays on the meta device
    def run(L):
        out = []
        for shape in [(4, 4), (3, 6, 6)]:
            x = L.empty(*shape, device="meta", requires_grad=True)
            r = L.linalg.cond(x)
            out.append(_geometry(L.autograd.grad(r, x, L.empty(r.shape, device="meta"))[0]))
            y = L.empty(*shape, device="meta", requires_grad=True)
            out.append(_geometry(L.autograd.grad((y * 2 + y * 3).sum(), y)[0]))
        return out
    assert run(tinytorch) == run(torch)


def test_rrelu_on_meta_draws_nothing(torch):
    def run(L):
        L.manual_seed(0)
        x = L.empty(3, 4, device="meta", requires_grad=True)
        r = L.nn.functional.rrelu(x, training=True)
        g, = L.autograd.grad(r, x, L.empty(3, 4, device="meta"))
        return _geometry(r), _geometry(g), L.rand(2).tolist()
    assert run(tinytorch) == run(torch)


@pytest.mark.parametrize("case", ["blocks", "grid_sampler_3d", "grid_sample_2d", "renorm"])
def test_meta_composites_stay_meta_as_pytorch(torch, case):
    # zero blocks, masks and NaN checks made from the inputs stay data-less (no CPU tensor beside meta ones)
    def run(L):
        def m(*s):
            return L.empty(*s, device="meta")
        if case == "blocks":
            return _geometry(L.block_diag(m(2, 3), m(4), m(1, 1)))
        if case == "grid_sampler_3d":
            return _geometry(L.grid_sampler_3d(m(2, 3, 12, 11, 10), m(2, 4, 5, 6, 3), 0, 0, False))
        if case == "grid_sample_2d":
            return _geometry(L.nn.functional.grid_sample(m(2, 3, 12, 11), m(2, 5, 6, 2), align_corners=False))
        return _geometry(L.renorm(m(3, 4, 5), 2, 1, 1.0))
    assert run(tinytorch) == run(torch)


def test_multi_margin_loss_backward_on_meta_refused_as_pytorch(torch):
    # PyTorch has a meta kernel for the loss and none for its backward
    def run(L):
        x = L.empty(3, 5, device="meta", requires_grad=True)
        r = L.nn.functional.multi_margin_loss(x, L.empty(3, dtype=L.int64, device="meta"))
        return _geometry(r), _result_or_error(lambda: L.autograd.grad(r, x, L.empty((), device="meta"))[0])
    assert run(tinytorch) == run(torch)


@pytest.mark.parametrize("case", ["slice", "slice_unfit", "slice_expandable", "diagonal", "diagonal_unfit", "select",
                                  "select_unfit", "diagonal_offset"])
def test_view_scatters_on_meta_as_pytorch(torch, case):
    # PyTorch's meta kernels check nothing of src: an unfit src passes the forward, and its gradient is refused
    def run(L):
        op, shape, src, args = {
            "slice": ("slice_scatter", (20, 20), (5, 20), (0, 0, 5)),
            "slice_unfit": ("slice_scatter", (20, 20), (20, 20), (0, 0, 5)),
            "slice_expandable": ("slice_scatter", (20, 20), (20,), (0, 0, 5)),
            "diagonal": ("diagonal_scatter", (20, 20), (20,), ()),
            "diagonal_unfit": ("diagonal_scatter", (20, 20), (5,), ()),
            "select": ("select_scatter", (20, 20), (20,), (0, 0)),
            "select_unfit": ("select_scatter", (20, 20), (5,), (0, 0)),
            "diagonal_offset": ("diagonal_scatter", (4, 20, 20), (4, 19), (1, 1, 2))}[case]
        a = L.empty(shape, device="meta", requires_grad=True)
        s = L.empty(src, device="meta", requires_grad=True)
        r = getattr(L, op)(a, s, *args)
        grads = _result_or_error(lambda: L.autograd.grad(r, [a, s], L.empty(r.shape, device="meta"))[1])
        return _geometry(r), type(r.grad_fn).__name__, grads
    assert run(tinytorch) == run(torch)


@pytest.mark.parametrize("device", ["cpu", "meta"])
@pytest.mark.parametrize("case", ["row", "size1_middle", "size1_two", "inner", "transposed_outer", "transposed_inner",
                                  "none", "mixed", "expanded", "permuted"])
def test_constant_pad_crop_strides_as_pytorch(torch, device, case):
    # a crop (every pad <= 0) is PyTorch's narrow then clone: a dense view's strides kept, a size-1 dim's too
    def run(L):
        x, how, pad = {"row": ((1, 8), None, [-1, -2]), "size1_middle": ((3, 1, 8), None, [-1, -2]),
                       "size1_two": ((1, 3, 8), None, [-1, -2, -1, -1]), "inner": ((4, 8), None, [-1, -2]),
                       "transposed_outer": ((8, 4), "t", [0, 0, -1, -1]), "transposed_inner": ((8, 3), "t", [-1, -2]),
                       "none": ((2, 3), None, [0, 0]), "mixed": ((4, 8), None, [1, -2]),
                       "expanded": ((1, 1, 5), "expand", [-1, -1]), "permuted": ((2, 3, 4), "permute", [-1, 0, 0, -1]),
                       }[case]
        t = L.arange(math.prod(x), dtype=L.float32).reshape(x).to(device)
        t = {"t": lambda: t.t(), "expand": lambda: t.expand(3, 1, 5), "permute": lambda: t.permute(2, 0, 1),
             None: lambda: t}[how]()
        r = L.constant_pad_nd(t, pad)
        leaf = L.ones(1, 5, device=device, requires_grad=True)
        g, = L.autograd.grad(L.constant_pad_nd(leaf, [1, 2]), leaf, L.ones(1, 8, device=device))
        return _geometry(r), r.tolist() if device == "cpu" else None, _geometry(g)
    assert run(tinytorch) == run(torch)
