"""``clone`` (preserve_format) lays its copy out as PyTorch's does, on CPU and on meta tensors: a tensor that fills
its memory with no gap and no overlap keeps its strides (a size-1 dim's too); a gapped, overlapping or expanded
one gets dense strides in the order of its own (size-1 dims and 0 strides by PyTorch's rules)."""
import random

import pytest

import tinytorch


def _views(L, device):
    """Views of every kind clone lays out differently, built the same way in both libraries."""
    def base(*shape):
        if device == "meta":
            return L.empty(*shape, device="meta")
        return L.arange(float(_prod(shape))).reshape(*shape)

    x = base(2, 3, 4, 5)
    y = base(1, 3, 1, 5)
    return {
        "contiguous": x,
        "permuted": x.permute(2, 0, 3, 1),
        "gapped": x[:, ::2],
        "gapped_permuted": x[:, :, ::2].permute(3, 1, 0, 2),
        "size1_permuted": y.permute(3, 2, 0, 1),
        "size1_transposed": y.transpose(0, 3),
        "size1_middle": y.permute(2, 1, 0, 3),
        "narrowed_to_1_permuted": x[:, 1:2].permute(1, 0, 3, 2),
        "column_transposed": x[..., 0].transpose(0, 1),
        "size1_gapped": x[:, :1, ::2].permute(2, 1, 0, 3),
        "permuted_then_gapped": x.permute(0, 2, 1, 3)[:, ::2],
        "equal_strides": base(12).as_strided((3, 3, 2), (1, 1, 3)),
        "overlapping": base(12).as_strided((2, 3, 2), (1, 2, 4)),
        "expanded": base(3, 1).expand(3, 4),
        "expanded_transposed": base(3, 1).expand(3, 4).t(),
        "expanded_between": base(2, 1, 3).expand(2, 4, 3).permute(2, 1, 0),
        "stepped_1d": base(10)[::3],
        "diagonal": base(4, 4).diagonal(),
        "unsqueezed": x[0].unsqueeze(1),
    }


def _prod(shape):
    n = 1
    for s in shape:
        n *= s
    return n


def _seen(t, values: bool):
    out = (tuple(t.shape), tuple(t.stride()), str(t.dtype).split(".")[-1], t.device.type)
    return out + ((t.tolist(),) if values else ())


@pytest.mark.parametrize("device", ["cpu", "meta"])
def test_clone_keeps_pytorchs_layout(torch, device):
    theirs, ours = _views(torch, device), _views(tinytorch, device)
    for name in theirs:
        assert tuple(ours[name].stride()) == tuple(theirs[name].stride()), name  # the same view to begin with
        for fmt in ("preserve_format", None):
            kw = {} if fmt is None else {"memory_format": getattr(torch, fmt)}
            kw_tt = {} if fmt is None else {"memory_format": getattr(tinytorch, fmt)}
            got, want = ours[name].clone(**kw_tt), theirs[name].clone(**kw)
            assert _seen(got, device == "cpu") == _seen(want, device == "cpu"), (name, fmt)


@pytest.mark.parametrize("device", ["cpu", "meta"])
def test_clone_layout_of_random_views(torch, device):
    """Random slices, permutations and unsqueezes of small tensors with many size-1 dims."""
    rng = random.Random(77)
    checked = 0
    for _ in range(400):
        shape = [rng.choice([1, 1, 2, 3, 4]) for _ in range(rng.randint(1, 4))]
        index = tuple(slice(None, None, rng.choice([1, 2])) if n > 1 else slice(None) for n in shape)
        perm = list(range(len(shape)))
        rng.shuffle(perm)
        at = rng.randint(0, len(shape)) if rng.random() < 0.3 else None
        seen = []
        for L in (torch, tinytorch):
            x = L.empty(shape, device="meta") if device == "meta" else L.arange(float(_prod(shape))).reshape(shape)
            v = x[index].permute(*perm)
            v = v if at is None else v.unsqueeze(at)
            seen.append((tuple(v.stride()), _seen(v.clone(), device == "cpu")))
        assert seen[0] == seen[1], (shape, index, perm, at)
        checked += 1
    assert checked == 400


def test_clone_gradient_and_contiguous_input(torch):
    """The gradient flows through the strided copy; a contiguous input's copy stays C-ordered."""
    seen = []
    for L in (torch, tinytorch):
        x = L.arange(24.0).reshape(2, 3, 4).requires_grad_()
        c = x.permute(2, 0, 1)[:, :, ::2].clone()
        (c * L.arange(8.0).reshape(4, 2, 1)).sum().backward()
        seen.append((c.stride(), c.tolist(), x.grad.tolist(), x.clone().stride(), type(c.grad_fn).__name__))
    assert seen[0] == seen[1]
