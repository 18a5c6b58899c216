"""Shape and index ops lay their results out as PyTorch's do on CPU and on meta tensors, whatever the input's layout
(transposed, permuted, channels-last, gapped, expanded, size-1 dims with odd strides), so that what ``.view()``
accepts afterwards agrees: sort (and argsort, msort) and flip, nan_to_num, index_fill keep a dense input's strides
(``empty_like``); stack is cat along an existing dim split by a view; roll is cat of two pieces (channels-last
stays so); rot90 is flip's layout transposed; repeat_interleave is C-ordered; constant padding keeps the input's
suggested memory format; gather is C-ordered; clamp with tensor bounds lays out as other elementwise ops. Values
and gradient strides are compared too."""
import pytest

import tinytorch


def _layouts(L, device):
    """Inputs of every layout these ops treat differently, built the same way in both libraries."""
    def base(*shape):
        n = 1
        for s in shape:
            n *= s
        t = (L.arange(n, dtype=L.float32) * 7 % 11 - 5).reshape(*shape)  # ties, so sorts show their order
        return t.to(device) if device == "meta" else t

    x3, x4 = base(2, 3, 4), base(2, 3, 4, 5)
    return {
        "contiguous": x3,
        "transposed": base(3, 4).t(),
        "permuted": x3.permute(2, 0, 1),
        "permuted_b": x3.permute(1, 2, 0),
        "channels_last": x4.contiguous(memory_format=L.channels_last),
        "channels_last_size1": base(2, 3, 4, 1).contiguous(memory_format=L.channels_last),
        "channels_last_gapped": x4.contiguous(memory_format=L.channels_last)[:, :, ::2],
        "channels_last_3d": base(2, 3, 2, 3, 2).contiguous(memory_format=L.channels_last_3d),
        "hwc": base(4, 5, 3).permute(2, 0, 1),
        "gapped": base(5, 8)[:, ::2],
        "gapped_transposed": base(5, 8)[:, ::2].t(),
        "gapped_permuted": x3.permute(2, 0, 1)[::2],
        "expanded": base(1, 4).expand(3, 4),
        "expanded_transposed": base(3, 1).expand(3, 4),
        "size1_transposed": base(4, 1).t(),
    }


def _index(L, *values):
    return L.tensor(list(values))


_OPS = {
    "sort-1": lambda L, x: x.sort(-1)[0],
    "sort0_desc": lambda L, x: x.sort(0, descending=True)[0],
    "sort_indices": lambda L, x: x.sort(dim=-1, stable=True)[1],
    "argsort": lambda L, x: x.argsort(0),
    "msort": lambda L, x: x.msort(),
    "topk": lambda L, x: x.topk(x.shape[-1], -1)[0],
    "kthvalue": lambda L, x: x.kthvalue(1, 0, True)[0],
    "flip0": lambda L, x: x.flip(0),
    "flip_all": lambda L, x: x.flip(list(range(x.dim()))),
    "nan_to_num": lambda L, x: x.nan_to_num(),
    "nan_to_num_int": lambda L, x: x.long().nan_to_num(),
    "roll0": lambda L, x: x.roll(1, 0),
    "roll-1": lambda L, x: x.roll(1, -1),
    "roll_whole": lambda L, x: x.roll(x.shape[0], 0),
    "roll_dims": lambda L, x: x.roll((1, 2), (0, 1)),
    "roll_flat": lambda L, x: x.roll(2),
    "stack0": lambda L, x: L.stack([x, x]),
    "stack1": lambda L, x: L.stack([x, x, x], 1),
    "stack-1": lambda L, x: L.stack([x, x], -1),
    "stack-2": lambda L, x: L.stack([x, x], -2),
    "stack_one": lambda L, x: L.stack([x], 1),
    "stack_mixed": lambda L, x: L.stack([x, x.contiguous()]),
    "rot90_0": lambda L, x: x.rot90(0),
    "rot90_1": lambda L, x: x.rot90(1),
    "rot90_2": lambda L, x: x.rot90(2, (-1, 0)),
    "rot90_3": lambda L, x: x.rot90(-1),
    "repeat_interleave0": lambda L, x: x.repeat_interleave(2, 0),
    "repeat_interleave-1": lambda L, x: x.repeat_interleave(1, -1),
    "pad": lambda L, x: L.nn.functional.pad(x, (1, 2)),
    "pad_more": lambda L, x: L.nn.functional.pad(x, (1, 1, 0, 1)),
    "pad_mixed": lambda L, x: L.nn.functional.pad(x, (-1, 1)),
    "index_fill": lambda L, x: x.index_fill(0, _index(L, 0), 2.0),
    "clamp_tensors": lambda L, x: x.clamp(min=x.contiguous() - 1, max=x.contiguous() * 0 + 0.5),
    "clamp_min_broadcast": lambda L, x: x.clamp_min(L.zeros(x.shape[-1])),
    "gather_index_permuted": lambda L, x: x.gather(-1, L.zeros(tuple(reversed(x.shape)), dtype=L.int64).permute(
        *reversed(range(x.dim())))),
}


def _seen(t):
    return tuple(t.shape), tuple(t.stride()), str(t.dtype).split(".")[-1]


@pytest.mark.parametrize("device", ["cpu", "meta"])
def test_results_laid_out_as_pytorchs(torch, device):
    theirs, ours = _layouts(torch, device), _layouts(tinytorch, device)
    on_cpu = _layouts(torch, "cpu")
    for name in theirs:
        assert tuple(ours[name].stride()) == tuple(theirs[name].stride()), name  # the same input to begin with
        for op, fn in _OPS.items():
            if device == "meta" and op.startswith("roll"):
                continue  # (PyTorch's meta roll, a Python decomposition, costs seconds to load; C order always)
            # PyTorch's meta stack (a decomposition that loads torch._dynamo: seconds) lays out as its CPU stack
            oracle = on_cpu[name] if device == "meta" and op.startswith("stack") else theirs[name]
            try:
                want = fn(torch, oracle)
            except (RuntimeError, NotImplementedError):  # (an op PyTorch has no meta kernel for)
                continue
            got = fn(tinytorch, ours[name])
            assert _seen(got) == _seen(want), (op, name)
            if device == "cpu":
                assert got.tolist() == want.tolist(), (op, name)


def _leaves(L):
    """Dense leaves of each layout (a gradient keeps a dense leaf's strides), and an expanded view of one."""
    def leaf_like(x, strides):
        leaf = L.empty_strided(x.shape, strides)
        with L.no_grad():
            leaf.copy_(x)
        return leaf.requires_grad_()

    out = {}
    for name, x in _layouts(L, "cpu").items():
        if name.startswith("expanded"):
            part = x[:, :1] if name == "expanded_transposed" else x[:1]
            leaf = leaf_like(part, (1, 1) if name == "expanded_transposed" else (4, 1))
            out[name] = (leaf, leaf.expand(3, 4))
        elif "gapped" not in name and name != "size1_transposed":
            leaf = leaf_like(x, x.stride())
            out[name] = (leaf, leaf)
    return out


def test_gradients_laid_out_as_pytorchs(torch):
    theirs, ours = _leaves(torch), _leaves(tinytorch)
    for name in theirs:
        for op in ("sort-1", "flip0", "nan_to_num", "roll0", "roll_dims", "stack1", "stack-1", "rot90_1",
                   "repeat_interleave0", "pad_more", "index_fill", "clamp_tensors"):
            grads = []
            for L, (leaf, x) in ((torch, theirs[name]), (tinytorch, ours[name])):
                leaf.grad = None
                y = _OPS[op](L, x)
                y.backward(L.arange(y.numel(), dtype=y.dtype).reshape(y.shape))
                grads.append(leaf.grad)
            assert _seen(grads[1]) == _seen(grads[0]), (op, name)
            assert grads[1].tolist() == grads[0].tolist(), (op, name)


def test_results_view_as_pytorchs_do(torch):
    """The programs that motivated these rules: a view of the result works where PyTorch's does, and fails
    where it fails."""
    for L in (torch, tinytorch):
        a, b = L.arange(6.0).reshape(2, 3), L.arange(6.0, 12.0).reshape(2, 3)
        assert L.stack([a.t(), b.t()]).view(-1).tolist() == [0.0, 3.0, 1.0, 4.0, 2.0, 5.0,
                                                             6.0, 9.0, 7.0, 10.0, 8.0, 11.0]
        assert a.t().sort(-1)[0].t().view(-1).tolist() == [0.0, 1.0, 2.0, 3.0, 4.0, 5.0]
        with pytest.raises(RuntimeError, match="view size is not compatible"):
            a.t().sort(-1)[0].view(-1)


def test_gapped_leaf_gradients_as_pytorchs(torch):
    """A leaf that is not dense (a gapped view made a leaf) gets its gradient in C order, as PyTorch's AccumulateGrad
    lays one out that breaks its layout contract; a dense leaf keeps its own strides."""
    for name in ("gapped", "gapped_transposed", "gapped_permuted", "transposed"):
        for op in ("sort-1", "flip0", "roll0", "stack-1", "pad", "index_fill"):
            grads = []
            for L in (torch, tinytorch):
                leaf = _layouts(L, "cpu")[name].detach().requires_grad_()
                y = _OPS[op](L, leaf)
                y.backward(L.arange(y.numel(), dtype=y.dtype).reshape(y.shape))
                grads.append(leaf.grad)
            assert _seen(grads[1]) == _seen(grads[0]), (op, name)
            assert grads[1].tolist() == grads[0].tolist(), (op, name)


def test_copy_to_meta_laid_out_as_pytorchs(torch):
    """``t.to("meta")`` of a CPU tensor lays its copy out as preserve_format does (a gapped or expanded tensor's
    copy is dense, in the order of its strides), so meta programs start from PyTorch's layouts."""
    theirs, ours = _layouts(torch, "cpu"), _layouts(tinytorch, "cpu")
    for name in theirs:
        for dtype in (None, "float64"):
            args = ("meta",) if dtype is None else ("meta", getattr(torch, dtype))
            want = theirs[name].to(*args)
            got = ours[name].to(*(args[:1] + tuple(getattr(tinytorch, dtype) for _ in args[1:])))
            assert _seen(got) == _seen(want), (name, dtype)


def test_kron_and_flat_take_along_dim_as_pytorchs(torch):
    """kron views the product of two views, and take_along_dim without a dim gathers from views of both: strides kept
    where a view can merge them, PyTorch's view error where none can (a transposed input), and a negative flat index
    refused, as PyTorch's."""
    def cases(L):
        x, y = L.arange(12.0).reshape(3, 4), L.arange(24.0).reshape(2, 3, 4)
        return [lambda: L.kron(x.t(), L.ones(2, 1)), lambda: L.kron(L.ones(2, 1), x.t()),
                lambda: L.kron(x[:, ::2], L.ones(2, 2)), lambda: L.kron(x.t(), L.ones(1, 1)),
                lambda: L.kron(y.permute(1, 2, 0)[:, :1], L.ones(1, 2, 1)), lambda: L.kron(x, x[:2]),
                lambda: L.take_along_dim(x.t(), L.tensor([0])), lambda: L.take_along_dim(x, L.tensor([[0, 1]]).t()),
                lambda: L.take_along_dim(x, L.tensor([0, -1])), lambda: L.take_along_dim(x[:1], L.tensor([[1, 2]]))]

    for i, (want, got) in enumerate(zip(cases(torch), cases(tinytorch))):
        try:
            w = want()
        except RuntimeError as e:
            with pytest.raises(RuntimeError, match=str(e)[:30]):
                got()
            continue
        g = got()
        assert _seen(g) == _seen(w) and g.tolist() == w.tolist(), i
