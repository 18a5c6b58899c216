"""Views and in-place ops against PyTorch: CopySlices on the base, AsStridedBackward0 for the other
views, the errors for views that may not be modified, and second derivatives through all of it.

The rows marked "found" are programs the property test (test_autograd_views_property.py) found."""

import pytest

import tinytorch
from test_autograd_helpers import assert_same, raises_same


def _names(t):
    fn = t.grad_fn
    return None if fn is None else (fn.name(), tuple(None if n is None else n.name() for n, _ in fn.next_functions))


# -- a view taken before an in-place op on its base (the examples) ---------------------
BASE_MODIFIED = {
    "issue_relu_on_base_slice_view": lambda lib, w: _relu_case(lib, w),
    "issue_mul_on_base_view": lambda lib, w: _mul_case(lib, w),
    "found_expand_then_add_c": lambda lib, w: _expand_case(lib, w),
    "unsqueeze": lambda lib, w: _generic(lib, w, lambda a: a.unsqueeze(0), lambda a: a.mul_(3)),
    "select": lambda lib, w: _generic(lib, w, lambda a: a[1], lambda a: a.sigmoid_()),
    "t": lambda lib, w: _generic(lib, w, lambda a: a.t(), lambda a: a.clamp_(-1, 2)),
    "narrow": lambda lib, w: _generic(lib, w, lambda a: a.narrow(1, 1, 2), lambda a: a.mul_(a.detach())),
    "diagonal": lambda lib, w: _generic(lib, w, lambda a: a.diagonal(), lambda a: a.exp_()),
    "view_of_view": lambda lib, w: _generic(lib, w, lambda a: a.view(-1)[2:5], lambda a: a.zero_()),
    "setitem_on_base": lambda lib, w: _generic(lib, w, lambda a: a[:, 1:], lambda a: a.__setitem__(0, 7.0)),
    "twice": lambda lib, w: _generic(lib, w, lambda a: a[0], lambda a: (a.mul_(2), a.add_(w.detach()))),
}


def _relu_case(lib, w):
    h = w * 1
    hv = h[:, :2]
    h.relu_()
    (hv * 3).sum().backward()
    return w.grad, _names(hv), hv._version


def _mul_case(lib, w):
    a = w * 1
    v = a.view(-1)
    a.mul_(2)
    v.sum().backward()
    return w.grad, _names(v), _names(a)


def _expand_case(lib, w):
    c = lib.tensor(1.5, requires_grad=True)
    a = w * 1
    e = a.unsqueeze(0).expand(2, 3, 4)
    a.add_(c)
    (e * lib.arange(24.0).reshape(2, 3, 4)).sum().backward()
    return w.grad, c.grad, _names(e)


def _generic(lib, w, make_view, modify):
    a = w * 1
    v = make_view(a)
    modify(a)
    weights = lib.arange(float(v.numel())).reshape(v.shape) + 1
    (v * weights).sum().backward()
    return w.grad, v, _names(v), v._version, v.requires_grad, v.is_leaf, v._base is a


@pytest.mark.parametrize("name", sorted(BASE_MODIFIED))
def test_views_see_in_place_ops_on_their_base(name, torch):
    def snippet(lib):
        w = lib.tensor([[-1.0, 2.0, -3.0, 4.0], [4.0, -5.0, 6.0, 0.5], [0.25, 1.5, -2.5, 3.0]], requires_grad=True)
        return BASE_MODIFIED[name](lib, w)

    assert_same(snippet, torch)


# -- in-place ops on a view: CopySlices on the base --------------------------------------------
ON_VIEW = {
    "column_imul": lambda lib, y, t: y[:, 0].__imul__(2),
    "view_add_": lambda lib, y, t: y.view(-1).add_(1),
    "slice_mul_tensor": lambda lib, y, t: y[1:3].mul_(t),
    "select_relu_": lambda lib, y, t: y[0].relu_(),
    "t_copy_": lambda lib, y, t: y.t()[1].copy_(t[0]),
    "diagonal_fill_": lambda lib, y, t: y.diagonal().fill_(t[0, 0]),
    "unsqueeze_zero_": lambda lib, y, t: y.unsqueeze(0).zero_(),
    "narrow_clamp_": lambda lib, y, t: y.narrow(1, 1, 2).clamp_(-1.0, 1.0),
    "view_of_view_iadd": lambda lib, y, t: y[1:][:, 2:].__iadd__(t[:2, :2]),
    "setitem_through_view": lambda lib, y, t: y[1:].__setitem__((0, slice(1, 3)), t[0, :2] * 2),
    "setitem_mask_on_view": lambda lib, y, t: y[1:].__setitem__(y[1:].detach() > 0, 0.0),
    "setitem_index_on_view": lambda lib, y, t: y[:, 1:].__setitem__(lib.tensor([0, 2]), t[0, :3]),
    "two_views": lambda lib, y, t: (y[0].mul_(t[0]), y[:, 1].add_(t[:, 1])),
}


@pytest.mark.parametrize("name", sorted(ON_VIEW))
def test_in_place_ops_on_views_of_non_leaves(name, torch):
    def snippet(lib):
        w = lib.tensor([[-1.0, 2.0, -3.0, 4.0], [4.0, -5.0, 6.0, 0.5], [0.25, 1.5, -2.5, 3.0]], requires_grad=True)
        t = lib.tensor([[0.5, -1.0, 2.0, 1.5], [3.0, 0.25, -0.5, 2.0], [1.0, 1.0, -1.0, 0.5]], requires_grad=True)
        y = w * 1
        other = y[2]  # a view nobody modifies directly
        ON_VIEW[name](lib, y, t)
        (y * lib.arange(12.0).reshape(3, 4)).sum().backward(retain_graph=True)
        g_first = (w.grad, t.grad)
        w.grad = t.grad = None
        (other * lib.tensor([1.0, 2.0, 3.0, 4.0])).sum().backward()
        return y, _names(y), y._version, g_first, w.grad, t.grad, _names(other), other._version

    assert_same(snippet, torch)


def test_setitem_into_a_plain_tensor_records_copy_slices(torch):
    def snippet(lib):
        src = lib.tensor([1.0, -2.0, 3.0], requires_grad=True)
        base = lib.zeros(4, 3)
        row = base[0]  # taken before the base needed grad
        base[lib.tensor([1, 3])] = src * 2
        base[2, 1:] = src[:2]
        out = (base * base).sum() + (row * 5).sum()
        out.backward()
        return base, _names(base), src.grad, _names(row), row.requires_grad, base._version

    assert_same(snippet, torch)


def test_view_of_a_plain_tensor_modified_with_grad(torch):
    def snippet(lib):
        c = lib.tensor(2.0, requires_grad=True)
        z = lib.zeros(2, 3)
        zv = z[:, 1]
        zv.mul_(c)
        zv.add_(c)
        (z * lib.arange(6.0).reshape(2, 3)).sum().backward()
        return z, _names(z), _names(zv), c.grad, z._version

    assert_same(snippet, torch)


# -- what PyTorch refuses --------------------------------------------------------------------------
REFUSED = {
    "leaf_basic_setitem": lambda lib, w: w.__setitem__(0, 5.0),
    "leaf_view_add_": lambda lib, w: w.view(-1).add_(1),
    "leaf_full_slice_setitem": lambda lib, w: w.__setitem__(slice(None), 5.0),
    "leaf_mixed_setitem": lambda lib, w: w.__setitem__((0, [1]), 5.0),
    "split_output": lambda lib, w: (w * 1).split(1)[0].mul_(2),
    "unbind_output": lambda lib, w: (w * 1).unbind()[1].add_(1),
    "chunk_output_view": lambda lib, w: (w * 1).chunk(2)[0][0].zero_(),
    "no_grad_view": lambda lib, w: _no_grad_view(lib, w * 1).mul_(2),
    "no_grad_view_of_leaf": lambda lib, w: _no_grad_view(lib, w).mul_(2),
    "view_of_no_grad_view": lambda lib, w: _no_grad_view(lib, w * 1)[:1].mul_(2),
    "no_grad_view_after_base_modified": lambda lib, w: _modified_after(lib, w, lambda a: _no_grad_view(lib, a)),
    "split_output_after_base_modified": lambda lib, w: _modified_after(lib, w, lambda a: a.split(1)[0]),
    "expanded_in_place": lambda lib, w: (w * 1)[0].expand(2, 2).add_(1),
    "unbind_of_plain_with_grad_value": lambda lib, w: lib.zeros(2, 2).unbind()[0].mul_(w[0, 0]),
    "found_setitem_number_into_expanded": lambda lib, w: (w * 1)[0].expand(2, 2).__setitem__(slice(None), 1.25),
    "fill_tensor_into_expanded": lambda lib, w: (w * 1)[0].expand(2, 2).fill_(lib.tensor(1.0)),
    "found_copy_slices_backward_of_expanded": lambda lib, w: _index_put_into_expanded(lib, w),
}


def test_found_index_put_into_an_expanded_view_of_a_plain_tensor(torch):
    # found by the property test: the overlap is refused only where the base needs a gradient
    def snippet(lib):
        c = lib.tensor(1.5, requires_grad=True)
        p = lib.zeros(3, 4)
        e = p.unsqueeze(0).expand(2, 3, 4)
        e[lib.tensor([0, 1])] = c * 2
        (e * lib.arange(24.0).reshape(2, 3, 4)).sum().backward()
        return p, _names(p), _names(e), c.grad

    assert_same(snippet, torch)


def test_found_an_empty_slice_of_an_expanded_view_can_be_written(torch):
    # found by the property test: an empty view has no overlapping elements
    def snippet(lib):
        c = lib.tensor(1.5, requires_grad=True)
        w = lib.tensor([[1.0, 2.0], [3.0, 4.0]], requires_grad=True)
        a = w * 1
        e = a.unsqueeze(0).expand(2, 2, 2)
        e[:, 2:] = c * 3
        (a * a).sum().backward()
        return a, _names(a), _names(e), w.grad, c.grad, a._version

    assert_same(snippet, torch)


def test_found_in_place_on_a_diagonal_of_an_expanded_view(torch):
    # found by the property test: that diagonal does not overlap itself, so the write goes through
    def snippet(lib):
        w = lib.arange(12.0).reshape(3, 4).requires_grad_()
        a = w * 1
        d = a.unsqueeze(0).expand(2, 3, 4).diagonal(-1, 0, 1)
        d.add_(0.5)
        (a * a).sum().backward()
        return a, _names(a), _names(d), d.stride(), w.grad, a._version

    assert_same(snippet, torch)


def _index_put_into_expanded(lib, w):
    a = w * 1
    e = a.unsqueeze(0).expand(2, 2, 2)
    e[lib.tensor([0, 1])] = -0.5  # allowed (with a deprecation warning), but its backward is refused
    a.sum().backward()


def _no_grad_view(lib, t):
    with lib.no_grad():
        return t[0]


def _modified_after(lib, w, make):
    a = w * 1
    v = make(a)
    a.mul_(2)
    return v * 1


@pytest.mark.parametrize("name", sorted(REFUSED))
def test_refusals(name, torch):
    def snippet(lib):
        w = lib.tensor([[1.0, 2.0], [3.0, 4.0]], requires_grad=True)
        REFUSED[name](lib, w)

    raises_same(snippet, torch)


def test_views_made_under_no_grad_require_grad_but_lead_nowhere(torch):
    def snippet(lib):
        w = lib.tensor([1.0, 2.0, 3.0], requires_grad=True)
        with lib.no_grad():
            v = w[:2]
        u = v * 2
        u.sum().backward()
        return v.requires_grad, v.is_leaf, v.grad_fn, _names(u), w.grad, repr(v)

    assert_same(snippet, torch)


# -- bookkeeping: retain_grad, saved results, version counters -----------------------------------
def test_retain_grad_follows_the_tensor_through_in_place_ops(torch):
    def snippet(lib):
        w = lib.tensor([1.0, 2.0, 3.0], requires_grad=True)
        y = w * 1
        y.retain_grad()
        v = y[1:]
        v.retain_grad()
        y.mul_(2)
        y[0].add_(1)
        (y * y).sum().backward()
        return y.grad, v.grad, w.grad

    assert_same(snippet, torch)


@pytest.mark.parametrize("op", ["exp_", "sigmoid_", "tanh_", "relu_"])
def test_a_saved_result_is_invalidated_by_a_later_in_place_op(op, torch):
    def snippet(lib):
        w = lib.tensor([0.5, -1.5, 2.0], requires_grad=True)
        x = w * 1
        getattr(x[1:], op)()
        x.add_(1)
        x.sum().backward()

    raises_same(snippet, torch)


def test_versions_are_shared_by_a_base_and_all_its_views(torch):
    def snippet(lib):
        w = lib.tensor([[1.0, 2.0], [3.0, 4.0]], requires_grad=True)
        a = w * 1
        v, d, t = a[0], a.diagonal(), a.t()
        v.mul_(2)
        d[1] = 0.0
        t += 1
        return [x._version for x in (a, v, d, t)], a, v, d, t

    assert_same(snippet, torch)


# -- RELIABILITY row 52: only the operand nothing saved may be modified ---------------------------
MATMULS = {
    "dot": ((3,), (3,), "dot"),
    "mv": ((2, 3), (3,), "mv"),
    "mm": ((2, 3), (3, 2), "mm"),
    "bmm": ((2, 2, 3), (2, 3, 2), "bmm"),
    "matmul_1d_3d": ((3,), (2, 3, 2), "matmul"),
    "matmul_2d_3d": ((2, 3), (2, 3, 2), "matmul"),
    "matmul_3d_2d": ((2, 2, 3), (3, 2), "matmul"),
}


@pytest.mark.parametrize("name", sorted(MATMULS))
@pytest.mark.parametrize("modified", ["needing_grad", "saved"])
def test_row52_modifying_a_matmul_operand(name, modified, torch):
    sa, sb, fn = MATMULS[name]

    def snippet(lib):
        w = lib.ones(sa, requires_grad=True)
        b = lib.arange(float(lib.ones(sb).numel())).reshape(sb)
        a = w * 1
        y = getattr(a, fn)(b) if fn != "matmul" else a @ b
        (a if modified == "needing_grad" else b).mul_(2)
        y.sum().backward()
        return w.grad, y.grad_fn.name()

    if modified == "needing_grad" or name in ("matmul_1d_3d", "matmul_2d_3d"):
        assert_same(snippet, torch)  # (PyTorch saves a folded copy of a 3-d right operand)
    else:
        raises_same(snippet, torch)


# -- second derivatives ------------------------------------------------------------------------------
SECOND_ORDER = {
    "copy_slices_mul_by_input": lambda lib, w, y: y[:, 1].mul_(w[:, 0]),
    "copy_slices_setitem": lambda lib, w, y: y.__setitem__((0, slice(1, 3)), w[1, :2] ** 2),
    "copy_slices_sigmoid": lambda lib, w, y: y[1:].sigmoid_(),
    "regenerated_view_after_base_mul": lambda lib, w, y: y.mul_(w),
    "regenerated_view_after_view_op": lambda lib, w, y: y.t()[0].mul_(w[:, 0].sin()),
    "diagonal_copy_": lambda lib, w, y: y.diagonal().copy_(w[0, :2].exp()),
}


@pytest.mark.parametrize("name", sorted(SECOND_ORDER))
def test_second_derivatives_through_copy_slices_and_regenerated_views(name, torch):
    def snippet(lib):
        w = lib.tensor([[0.5, -1.0, 1.5], [2.0, 0.25, -0.75]], dtype=lib.float64, requires_grad=True)
        y = w * w
        v = y[:, 1:]  # regenerated when y or another view of it is modified
        SECOND_ORDER[name](lib, w, y)
        out = (y ** 2).sum() + (v * v * v).sum()
        (g,) = lib.autograd.grad(out, w, create_graph=True)
        (g * g).sum().backward()
        return g, w.grad, g.requires_grad

    assert_same(snippet, torch)


def test_gradgradcheck_through_an_in_place_op_on_a_view(torch):
    def f(w):
        y = w * 1
        y[1:, :2].mul_(w[:2, 1:].sin())
        v = y.t()
        y.add_(w.exp())
        return (v * v).sum(1)

    w = tinytorch.tensor([[0.5, -1.0, 1.5], [2.0, 0.25, -0.75], [0.1, 0.2, 0.3]], dtype=tinytorch.float64,
                         requires_grad=True)
    assert tinytorch.autograd.gradcheck(f, (w,))
    assert tinytorch.autograd.gradgradcheck(f, (w,))


# -- diagonal, the view op added here ------------------------------------------------------------
@pytest.mark.parametrize("args", [(), (1,), (-1,), (1, 1, 0), (5,), (0, -1, 0), (0, 0, 0), (0, 0, 2)])
def test_diagonal(args, torch):
    def snippet(lib):
        x = lib.arange(24.0).reshape(2, 3, 4).requires_grad_()
        d = x.diagonal(*args)
        (d * lib.arange(float(d.numel())).reshape(d.shape)).sum().backward()
        return d, x.grad, d.stride(), d._base is x

    assert_same(snippet, torch)


@pytest.mark.parametrize("returns", ["a_view", "its_input"])
def test_in_place_on_a_custom_function_output_that_is_a_view(returns, torch):
    def snippet(lib):
        class F(lib.autograd.Function):
            @staticmethod
            def forward(ctx, x):
                return x[:2] if returns == "a_view" else x

            @staticmethod
            def backward(ctx, g):
                return lib.cat([g, g.new_zeros(1)]) if returns == "a_view" else g

        w = lib.tensor([1.0, 2.0, 3.0], requires_grad=True)
        F.apply(w * 1).mul_(2)

    raises_same(snippet, torch)


# -- mixed keys: PyTorch makes the view of the basic items first, then indexes it ---------------
MIXED_KEYS = {
    "int_slice_list": lambda lib: (0, slice(None), [0, 1]),
    "slice_list": lambda lib: (slice(1, None), [0, 1]),
    "list_int": lambda lib: ([0, 1], 0),
    "none_list": lambda lib: (None, [0, 1]),
    "int_mask": lambda lib: (1, lib.tensor([[True, False, True, False, True]] * 4)),
    "lists_around_a_slice": lambda lib: ([0, 1], slice(None), [1, 2]),
}


@pytest.mark.parametrize("name", sorted(MIXED_KEYS))
def test_mixed_index_keys(name, torch):
    def snippet(lib):
        x = lib.arange(60.0).reshape(3, 4, 5).requires_grad_()
        key = MIXED_KEYS[name](lib)
        y = x[key]
        (y * lib.arange(float(y.numel())).reshape(y.shape)).sum().backward()
        z = (x * 1).detach()
        z[key] = -lib.arange(float(y.numel())).reshape(y.shape)
        return y, _names(y), x.grad, z

    assert_same(snippet, torch)


def test_number_fills_write_into_expanded_tensors(torch):
    def snippet(lib):
        w = lib.tensor([1.0, 2.0], requires_grad=True)
        a = w * 1
        e = a.unsqueeze(0).expand(3, 2)
        e.zero_()
        e.fill_(0.5)
        e[1] = 2.0  # one row of an expanded tensor does not overlap itself
        (a * lib.tensor([1.0, 3.0])).sum().backward()
        return a, e, _names(a), _names(e), w.grad, a._version

    assert_same(snippet, torch)


@pytest.mark.parametrize("hold_the_first_history", [False, True])
def test_found_error_names_the_op_whose_saved_result_was_overwritten(hold_the_first_history, torch):
    # found by the property test: the error names the view's history of the moment the result was
    # saved while something still holds it, else the op that saved it
    def snippet(lib):
        w = lib.ones(2, 2, dtype=lib.float64, requires_grad=True)
        x = w * 1
        d = x.diagonal()
        d.relu_()
        held = d.grad_fn if hold_the_first_history else None  # noqa: F841
        d.add_(0.5)
        x.sum().backward()

    raises_same(snippet, torch)


@pytest.mark.parametrize("mask", [True, False])
def test_found_zero_dim_mask_makes_a_view_first(mask, torch):
    # found by the property test: a 0-d mask adds a dim (a view) before masking, so writing
    # through it records CopySlices; the repr names the class (CopySlices, as PyTorch prints it)
    def snippet(lib):
        x = lib.arange(6.0).reshape(2, 3).requires_grad_()
        s = (x * 1).sum(0).sum()
        s[s.detach() > 0.5 if mask else s.detach() < 0.5] = 0.0
        y = x[lib.tensor(mask)]
        z = x * 1
        z[lib.tensor(mask), 1] = 3.0
        (z * z).sum().backward()
        return s, repr(s), _names(s), y, _names(y), z, _names(z), x.grad

    assert_same(snippet, torch)
