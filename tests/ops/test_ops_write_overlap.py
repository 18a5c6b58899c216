"""Writes whose source shares memory with the written-to tensor, against PyTorch: where it refuses ("some elements
of the input tensor and the written-to tensor refer to a single memory location"), tinytorch refuses with its
text; where it runs (the same elements in the same layout, disjoint views, a value read as a number), the values
agree. Cases where PyTorch reads a partly overwritten input (its result is then its kernel's order) are left out."""
import pytest

import tinytorch

CASES = {  # each writes into x = arange(6.) (m: the library)
    "setitem_idx_from_view": lambda m, x: x.__setitem__(m.tensor([3, 4]), x[:2]),
    "setitem_slice_from_view": lambda m, x: x.__setitem__(slice(2, 4), x[:2]),
    "setitem_slice_overlap_partial": lambda m, x: x.__setitem__(slice(1, 4), x[:3]),
    "setitem_slice_self_full": lambda m, x: x.__setitem__(slice(None), x),
    "setitem_mask_from_view": lambda m, x: x.__setitem__(x > 3, x[:2]),
    "setitem_bool_idx_view": lambda m, x: x.__setitem__(m.tensor([True, False, True, False, False, False]), x[1:3]),
    "index_put_": lambda m, x: x.index_put_((m.tensor([3, 4]),), x[:2]),
    "index_put_accum": lambda m, x: x.index_put_((m.tensor([3, 4]),), x[:2], accumulate=True),
    "index_add_": lambda m, x: x.index_add_(0, m.tensor([3, 4]), x[:2]),
    "index_add_self": lambda m, x: x.index_add_(0, m.arange(6), x),
    "index_copy_": lambda m, x: x.index_copy_(0, m.tensor([3, 4]), x[:2]),
    "index_fill_": lambda m, x: x.index_fill_(0, m.tensor([3, 4]), x[0]),
    "copy_partial": lambda m, x: x[1:4].copy_(x[:3]),
    "copy_full_self": lambda m, x: x.copy_(x),
    "copy_disjoint_views": lambda m, x: x[3:].copy_(x[:3]),
    "copy_reversed_view": lambda m, x: x.copy_(x.flip(0)),
    "masked_scatter_": lambda m, x: x.masked_scatter_(x > 2, x[:3]),
    "masked_fill_": lambda m, x: x.masked_fill_(x > 2, x[0]),
    "scatter_": lambda m, x: x.scatter_(0, m.tensor([3, 4]), x[:2]),
    "scatter_add_": lambda m, x: x.scatter_add_(0, m.tensor([3, 4]), x[:2]),
    "scatter_reduce_": lambda m, x: x.scatter_reduce_(0, m.tensor([3, 4]), x[:2], "sum"),
    "put_": lambda m, x: x.put_(m.tensor([3, 4]), x[:2]),
    "put_accum": lambda m, x: x.put_(m.tensor([3, 4]), x[:2], accumulate=True),
    "add_out_overlap": lambda m, x: m.add(x[:3], 1, out=x[1:4]),
    "add_out_same": lambda m, x: m.add(x, 1, out=x),
    "add_inplace_from_view": lambda m, x: x[1:4].add_(x[:3]),
    "mul_inplace_self": lambda m, x: x.mul_(x),
    "cat_out_overlap": lambda m, x: m.cat([x[:2], x[2:4]], out=x[1:5]),
    "index_select_out": lambda m, x: m.index_select(x, 0, m.tensor([0, 1]), out=x[1:3]),
    "gather_out": lambda m, x: m.gather(x, 0, m.tensor([0, 1]), out=x[1:3]),
    "clamp_out": lambda m, x: m.clamp(x[:3], 0, 1, out=x[1:4]),
    "exp_out": lambda m, x: m.exp(x[:3], out=x[1:4]),
    "neg_out_same": lambda m, x: m.neg(x, out=x),
    "take_out": lambda m, x: m.take(x, m.tensor([0, 1]), out=x[1:3]),
    "sort_out": lambda m, x: m.sort(x, out=(x, m.zeros(6, dtype=m.long))),
    "index_put_expanded_self": lambda m, x: x.index_put_((m.tensor([0, 1]),), x[2]),
    "setitem_scalar_view": lambda m, x: x.__setitem__(m.tensor([3, 4]), x[0]),
    "lerp_inplace": lambda m, x: x[1:4].lerp_(x[:3], 0.5),
    "addcmul_inplace": lambda m, x: x[1:4].addcmul_(x[:3], x[2:5]),
    "clamp_inplace_tensor_bounds": lambda m, x: x[1:4].clamp_(x[:3], x[2:5] + 10),
    "pow_inplace": lambda m, x: x[1:4].pow_(x[:3]),
    "setitem_2d_row_from_col": lambda m, x: x.view(2, 3).__setitem__((0,), x.view(2, 3)[1]),
    "setitem_2d_adv": lambda m, x: x.view(3, 2).__setitem__(m.tensor([1, 2]), x.view(3, 2)[:2]),
    "cat_out_full": lambda m, x: m.cat([x[:3]], out=x[:3]),
    "cat_out_disjoint": lambda m, x: m.cat([x[:3]], out=x[3:]),
    "index_select_out_full": lambda m, x: m.index_select(x[:2], 0, m.tensor([1, 0]), out=x[:2]),
    "gather_out_full": lambda m, x: m.gather(x[:2], 0, m.tensor([1, 0]), out=x[:2]),
    "take_out_full": lambda m, x: m.take(x[:2], m.tensor([1, 0]), out=x[:2]),
    "sqrt_out_full": lambda m, x: m.sqrt(x, out=x),
    "add_out_full_other": lambda m, x: m.add(x[:3], x[:3], out=x[:3]),
    "where_out_full": lambda m, x: m.where(x > 2, x, x, out=x),
    "clamp_out_full": lambda m, x: m.clamp(x, 0, 3, out=x),
    "cumsum_out_full": lambda m, x: m.cumsum(x, 0, out=x),
    "cumsum_out_partial": lambda m, x: m.cumsum(x[:3], 0, out=x[1:4]),
    "mul_out_partial_other": lambda m, x: m.mul(x[3:], x[:3], out=x[1:4]),
    "stack_out_partial": lambda m, x: m.stack([x[:2]], out=x[1:3].view(1, 2)),
    "index_add_disjoint_view": lambda m, x: x[3:].index_add_(0, m.tensor([0, 1]), x[:2]),
    "index_copy_full": lambda m, x: x.index_copy_(0, m.arange(6), x),
    "index_put_full_same": lambda m, x: x.index_put_((m.arange(6),), x),
    "masked_fill_view_tensor_value_partial": lambda m, x: x[1:].masked_fill_(x[1:] > 2, x[0]),
    "setitem_basic_from_0d": lambda m, x: x.__setitem__(slice(1, 4), x[0]),
    "setitem_int_from_0d": lambda m, x: x.__setitem__(2, x[0]),
    "setitem_ellipsis_self": lambda m, x: x.__setitem__(Ellipsis, x),
    "setitem_basic_from_expanded": lambda m, x: x.view(2, 3).__setitem__(slice(None), x[:3]),
    "copy_from_0d_view": lambda m, x: x.copy_(x[0]),
    "fill_from_0d_view": lambda m, x: x.fill_(x[0]),
    "add_inplace_0d_view": lambda m, x: x.add_(x[0]),
    "scatter_value_float": lambda m, x: x.scatter_(0, m.tensor([3, 4]), 1.0),
    "index_fill_tensor_value_1elem": lambda m, x: x.index_fill_(0, m.tensor([3]), x[1]),
    "masked_scatter_full": lambda m, x: x.masked_scatter_(x > -1, x),
    "ndtr_out_partial": lambda m, x: m.special.ndtr(x[:3], out=x[1:4]),  # (elementwise, but ATen checks nothing)
    "erf_out_partial": lambda m, x: m.special.erf(x[:3], out=x[1:4]),
    "t_copy_2d_overlap": lambda m, x: x.view(2, 3)[:, :2].copy_(x.view(2, 3)[:, 1:]),
}


def _outcome(m, name):
    x = m.arange(6.)
    try:
        CASES[name](m, x)
    except Exception as e:  # noqa: BLE001 - the type and the message are compared
        return type(e).__name__, str(e)
    return "ok", x.tolist()


@pytest.mark.parametrize("name", sorted(CASES))
def test_overlapping_write_as_torch(torch, name):
    assert _outcome(tinytorch, name) == _outcome(torch, name)


def test_index_put_refuses_an_index_that_aliases_the_written_to_tensor(torch):
    def outcome(m):
        x = m.tensor([1, 0, 2, 3])
        try:
            x.index_put_((x[:2],), m.tensor([7, 8]))
        except RuntimeError as e:
            return str(e)
        return x.tolist()

    assert outcome(tinytorch) == outcome(torch)
