"""Views that add or grow dims report PyTorch's strides: ``expand`` (a kept dim keeps its stride, a size-1 one too;
a grown one gets 0; a new size-1 dim the extent of the dim after it; a 0-d tensor's all 0), indexing with None
(each new dim the extent of the input dim the key reaches next, as PyTorch's unsqueeze in key order), and both on
empty tensors, whose strides PyTorch keeps as for any other."""
import math
import random

import tinytorch


def _base(L, shape, perm):
    x = L.arange(float(max(1, math.prod(shape)))).reshape(shape) if shape and 0 not in shape else L.ones(shape)
    return x.permute(*perm) if shape else x


def _seen(f, L):
    try:
        v = f(L)
    except RuntimeError as e:
        return ("raised", str(e).replace("tinytorch.", "torch."))
    return tuple(v.shape), tuple(v.stride()), v.tolist()


def test_expand_strides_random(torch):
    rng = random.Random(79)
    for _ in range(400):
        shape = [rng.choice([1, 1, 2, 3]) for _ in range(rng.randint(0, 3))]
        perm = list(range(len(shape)))
        rng.shuffle(perm)
        lead = rng.randint(0 if shape else 1, 2)
        sizes = [rng.choice([1, 2]) for _ in range(lead)]
        for i in perm:
            n = shape[i]
            sizes.append(rng.choice([1, 3, -1]) if n == 1 else rng.choice([n, -1]))

        def f(L):
            return _base(L, shape, perm).expand(*sizes)
        assert _seen(f, tinytorch) == _seen(f, torch), (shape, perm, sizes)


def test_expand_then_index_and_clone(torch):
    """The strides an expand reports are the ones later views and copies start from."""
    def f(L):
        x = L.arange(3.0).reshape(3, 1).expand(1, 2, 3, 1)
        return x[:, None, :, ::2].clone().unsqueeze(0)
    assert _seen(f, tinytorch) == _seen(f, torch)
    seen = [(L.ones(1).expand(1, 1).stride(), L.tensor(2.0).expand(1, 2).stride(), L.ones(2).expand(1, -1).stride())
            for L in (torch, tinytorch)]
    assert seen[0] == seen[1]


def test_getitem_none_strides_random(torch):
    rng = random.Random(80)
    for _ in range(400):
        shape = [rng.choice([1, 2, 3]) for _ in range(rng.randint(0, 3))]
        key = [rng.choice([slice(None), slice(None, None, 2), 0, None, slice(1, None)]) for _ in shape]
        for _ in range(rng.randint(1, 2)):
            key.insert(rng.randint(0, len(key)), None)
        if rng.random() < 0.3:
            key.insert(rng.randint(0, len(key)), Ellipsis)
        key = tuple(key)

        def f(L):
            return _base(L, shape, list(range(len(shape))))[key]
        assert _seen(f, tinytorch) == _seen(f, torch), (shape, key)


def test_empty_tensor_new_dims(torch):
    """An empty tensor's new dims: a 0 size after the new dim makes its stride 0, as PyTorch's."""
    cases = {
        "none_front": lambda L: L.ones(0, 3)[None],
        "none_middle": lambda L: L.ones(2, 0, 3)[:, None],
        "none_twice": lambda L: L.ones(0, 3)[None, :, None],
        "none_then_empty_slice": lambda L: L.ones(2, 0, 3)[:, None, 0:0],
        "ellipsis_none": lambda L: L.ones(3, 0)[..., None],
        "unsqueeze_0": lambda L: L.ones(0, 3).unsqueeze(0),
        "unsqueeze_1": lambda L: L.ones(2, 0, 3).unsqueeze(1),
        "sliced_empty": lambda L: L.ones(3, 4)[:0, None],
        "transposed_sliced": lambda L: L.ones(3, 4).t()[:0],
        "expand_to_empty": lambda L: L.ones(2, 3).expand(0, 2, 3),
        "none_of_expanded": lambda L: L.ones(2, 3).expand(0, 2, 3)[None],
        "result_then_none": lambda L: (L.ones(0, 3) + 1)[None],
    }
    for name, f in cases.items():
        assert _seen(f, tinytorch) == _seen(f, torch), name


def test_unfold_of_a_scalar_and_size1_windows(torch):
    """A 0-d tensor's one window has stride 1, as PyTorch's (not numpy's 0), on CPU and meta tensors."""
    seen = [(L.tensor(2.0).unfold(0, 1, 1).stride(), L.empty((), device="meta").unfold(0, 1, 1).stride(),
             L.ones(3, 1).unfold(1, 1, 1).stride()) for L in (torch, tinytorch)]
    assert seen[0] == seen[1]
