"""The gradients of products are laid out as PyTorch's: where its matmul folds a batch into one mm, the mm's
backward keeps a column-major operand's layout (``mm_mat1_backward``/``mm_mat2_backward`` compute the transposed
product) and a batch folded transposed gets its gradient transposed back; its bmm's gradients are C-ordered
products. Each case compares the gradients' strides (and shapes) with PyTorch's, on the CPU and on meta tensors
(where nothing is computed: the layout is the formula's alone)."""
import itertools

import numpy as np
import pytest

import tinytorch as tt

torch = pytest.importorskip("torch")

# matmul's ranks, each fold and bmm path of PyTorch's matmul (a batch of one squeezed, a 2-d or 1-d operand folded)
MATMUL_SHAPES = [((5,), (5, 4)), ((2, 3, 5), (5, 4)), ((3, 5), (2, 5, 4)), ((5,), (2, 5, 4)), ((2, 3, 5), (2, 5, 4)),
                 ((1, 3, 5), (2, 5, 4)), ((2, 3, 5), (1, 5, 4)), ((3, 5), (2, 2, 5, 4))]


def _operand(lib, arr, transposed: bool, device: str):
    """A leaf holding ``arr``, C-ordered, or a transposed view of a C-ordered leaf (each matrix column-major)."""
    base = np.ascontiguousarray(np.swapaxes(arr, -1, -2)) if transposed else arr
    t = lib.tensor(base, device=device).requires_grad_(True) if device == "cpu" else \
        lib.empty(base.shape, device=device, requires_grad=True)
    return t, (t.mT if transposed else t)


def _grad_layouts(lib, fn, arrays, transposed, needs, device):
    leaves, ops = zip(*(_operand(lib, a, t, device) for a, t in zip(arrays, transposed)))
    for leaf, need in zip(leaves, needs):
        leaf.requires_grad_(need)
    out = fn(lib, *ops)
    wanted = [leaf for leaf, need in zip(leaves, needs) if need]
    cot = lib.ones_like(out) if device == "cpu" else lib.empty(out.shape, device=device)
    return [(tuple(g.shape), g.stride()) for g in lib.autograd.grad(out, wanted, cot)]


@pytest.mark.parametrize("device", ["cpu", "meta"])
def test_matmul_gradients_have_pytorchs_layout(device):
    rng = np.random.default_rng(0)
    for sa, sb in MATMUL_SHAPES:
        arrays = [rng.standard_normal(sa).astype(np.float32), rng.standard_normal(sb).astype(np.float32)]
        for ta, tb in itertools.product([False, True], repeat=2):
            if (ta and len(sa) < 2) or (tb and len(sb) < 2):
                continue
            for needs in ((True, True), (False, True)):  # (whether a needs a gradient decides some folds)
                seen = [_grad_layouts(lib, lambda L, a, b: a @ b, arrays, (ta, tb), needs, device)
                        for lib in (torch, tt)]
                assert seen[1] == seen[0], (sa, sb, ta, tb, needs)


@pytest.mark.parametrize("device", ["cpu", "meta"])
def test_addbmm_gradients_have_pytorchs_layout(device):
    """PyTorch's node (``AddbmmBackward0``): each batch's gradient a bmm with the output's gradient repeated."""
    rng = np.random.default_rng(1)
    arrays = [rng.standard_normal(s).astype(np.float32) for s in ((3, 4), (5, 3, 6), (5, 6, 4))]
    for transposed in ((False, False, False), (False, True, True)):
        seen = [_grad_layouts(lib, lambda L, i, a, b: L.addbmm(i, a, b, alpha=0.5), arrays, transposed,
                              (True, True, True), device) for lib in (torch, tt)]
        assert seen[1] == seen[0], transposed


@pytest.mark.parametrize("device", ["cpu", "meta"])
def test_bilinear_gradients_have_pytorchs_layout(device):
    """PyTorch's ``_trilinear`` gives the weight's gradient C-ordered (tinytorch's einsum would give its permute's)."""
    rng = np.random.default_rng(2)
    arrays = [rng.standard_normal(s).astype(np.float32) for s in ((4, 3), (4, 5), (6, 3, 5))]
    seen = [_grad_layouts(lib, lambda L, x, y, w: L.nn.functional.bilinear(x, y, w), arrays, (False, False, False),
                          (True, True, True), device) for lib in (torch, tt)]
    assert seen[1] == seen[0]


@pytest.mark.parametrize("device", ["cpu", "meta"])
def test_tensordot_of_one_element_has_pytorchs_layout(device):
    """A one-element tensordot of operands that reshape would copy: PyTorch multiplies the squeezed permutes and
    sums, so each gradient is laid out as the other operand's permute (a dot where both flatten as views)."""
    rng = np.random.default_rng(3)
    for sa, sb, dims in (((2, 2, 1), (2, 1, 2), ([0, 1], [2, 0])), ((2, 3), (2, 3), ([1, 0], [1, 0])),
                         ((2, 3), (3, 2), ([0, 1], [1, 0])), ((2, 3), (2, 3), ([0, 1], [0, 1]))):
        arrays = [rng.standard_normal(sa).astype(np.float32), rng.standard_normal(sb).astype(np.float32)]
        seen = [_grad_layouts(lib, lambda L, a, b: L.tensordot(a, b, dims=dims), arrays, (False, False),
                              (True, True), device) for lib in (torch, tt)]
        assert seen[1] == seen[0], (sa, sb, dims)
