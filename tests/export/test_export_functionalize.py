"""``run_decompositions()`` of programs that write in place, and of programs that make tensors from Python values,
against PyTorch 2.13 in the same run: the printed graph (``graph_module.code``), the graph signature (a written
buffer or input is a ``BUFFER_MUTATION`` / ``USER_INPUT_MUTATION`` output, returned first), the lifted constants,
and what ``module()`` computes and writes back into the buffers and the caller's inputs, call after call."""
import sys

import numpy as np
import pytest

sys.path.insert(0, __file__.rsplit("/tests/", 1)[0] + "/tests/fx")
from _fx_compare import load  # noqa: E402

# forward(self, x, y, w): x, y float32 [3], w float64 [3]
INTERMEDIATE = {
    "add_": "z = x * 2; z.add_(y); return z",
    "iadd": "z = x * 2; z += y; z += 1; return z",
    "chain": "z = x * 2; z.add_(y); z += 1; z.clamp_(0, 1); z.exp_(); z.mul_(y); return z",
    "sub_alpha": "z = x - 1; z.sub_(y, alpha=2); return z",
    "unary": "z = x - 1; z.relu_(); z.sigmoid_(); z.neg_(); z.abs_(); z.sqrt_(); return z",
    "div_modes": "z = x * 3; z.div_(y, rounding_mode='floor'); z.div_(2, rounding_mode='trunc'); z.div_(y); return z",
    "clamp_min": "z = x * 2; z.clamp_min_(0.5); z.clamp_max_(y); return z",
    "pow_": "z = x.abs() + 1; z.pow_(2); z.pow_(y); return z",
    "promoted": "z = x * 2; z.add_(w); return z",
    "broadcast": "z = x * 2; z.mul_(x[0]); return z",
    "copy_": "z = x * 2; z.copy_(y); return z + 1",
    "fill_tensor": "z = x * 2; z.fill_(y.sum()); return z",
    "fills": "z = x * 2; z.zero_(); z.add_(1); z.fill_(2.5); return z * y",
    "used_before": "z = x * 2; a = z + 1; z.add_(y); return a * z",
    # the in-place operators whose out-of-place namesakes have core ATen decompositions
    "masked_fill_": "z = x * 2; z.masked_fill_(z > 0, 3.0); return z",
    "addcmul_lerp_": "z = x * 2; z.addcmul_(x, y, value=0.5); z.lerp_(y, 0.3); return z",
    "chain_decomposed": "z = x.add(1).masked_fill_(y > 0, 1.5).addcmul_(x, y, value=3).lerp_(y, 0.6); return z",
    "addcmul_promoted": "z = w * 2; z.addcmul_(x, y); return z",
}

# the core ATen decompositions of masked_fill (where), addcmul (its formula) and lerp (its two-sided formula)
DECOMPOSED = {
    "masked_fill_number": "return x.masked_fill(x > 0, 3.0)",
    "masked_fill_int_number": "return x.masked_fill(x > 0, 2)",
    "masked_fill_0d": "return x.masked_fill(x > 0, y[0])",
    "masked_fill_0d_other_dtype": "return w.masked_fill(x > 0, x.sum())",
    "masked_fill_int": "return torch.arange(3).masked_fill(y > 0, 7)",
    "masked_fill_bool": "return (x > 0).masked_fill(y > 0, 0)",
    "addcmul": "return x.addcmul(y, y)",
    "addcmul_value": "return torch.addcmul(x, x, y, value=-0.25)",
    "addcmul_promoted": "return w.addcmul(x, y, value=2)",
    "addcmul_int": "i = torch.arange(3); return i.addcmul(i, i - 1, value=3)",
    "lerp_tensor_weight": "return x.lerp(y, x)",
    "lerp_number": "return x.lerp(y, 0.7)",
    "lerp_float64": "return torch.lerp(w, w * 3, 0.25)",
}

# inputs and buffers written (forward(self, x, y, w) of a module holding buffer ``buf``)
WRITES = {
    "input": "x.add_(y); return x * 2",
    "input_returned": "x.add_(1); return x",
    "two_inputs": "x.add_(1); y.mul_(2); x.sub_(y); return x + y",
    "copy_input": "x.copy_(y); return y + 1",
    "fill_input": "x.fill_(2.0); y.zero_(); return w * 2",
    "buffer_and_input": "self.buf.add_(x); x.mul_(2); return x + self.buf",
    "buffer_only": "self.buf.mul_(0.5); self.buf.add_(y); return self.buf * x",
}

# a buffer's copy_ of a written input, which PyTorch's graph leaves out (the input's new value is the buffer's):
# its values and output kinds are compared
VALUES_ONLY = {
    "input_then_buffer": "y.exp_(); self.buf.copy_(y); return x.clone()",
}

# a write into a view (select, slice, narrow, diagonal, one on the other) or into a base with views: PyTorch
# scatters it into the base (slice_scatter, diagonal_scatter, select_scatter as its where of an arange mask) and
# makes the other views again from the base's new value
VIEW_WRITES = {
    "view_of_intermediate": "z = x * 2; z[0].add_(1); return z",
    "negative_index": "z = x * 2; z[-1].add_(1); return z",
    "base_with_view": "z = x * 2; v = z[1:]; z.mul_(y); return v + 1",
    "view_of_input": "x[1:].mul_(3); return x + 1",
    "views_of_two_inputs": "x[0].add_(1); y[1:].mul_(2); return x + y",
    "view_of_buffer": "self.buf[1:].mul_(2); return x + self.buf",
    "view_of_view_of_buffer": "self.buf[1:][0].add_(x[0]); return self.buf * 2",
    "narrow_copy_": "z = x * 2; z.narrow(0, 1, 2).copy_(y[:2]); return z",
    "copy_promoted": "z = x * 2; z[1:].copy_(w[:2]); return z",
    "add_promoted": "z = x * 2; z[1:].add_(w[:2]); return z",
    "fill_input_row": "x[0].fill_(5.0); return x * 2",
    "diagonal_zero_": "z = x.reshape(3, 1) * w; z.diagonal().zero_(); return z",
    "diagonal_offset": "z = x * w.reshape(3, 1); z.diagonal(-1).add_(1); return z",
    "diagonal_of_slice": "z = x * w.reshape(3, 1); z[1:, :2].diagonal().mul_(2); return z",
    "column": "z = x * w.reshape(3, 1); z[:, -2].sub_(y); return z",
    "row_of_columns": "z = x * w.reshape(3, 1); z[:, 1:][0].add_(1); return z",
    "strided_rows": "z = x * w.reshape(3, 1); z[::2].mul_(2); return z",
    "written_view_used_again": "z = x * 2; v = z[2]; v.mul_(3); v.add_(1); return z + v",
    "view_then_base": "z = x * 2; z[0].add_(1); z.mul_(2); return z",
}

# writes through the other aliases (t/transpose/permute, view/flatten/unflatten, unsqueeze/squeeze, as_strided,
# detach, one on the other): PyTorch scatters each step's inverse back (the inverse permute, a view to the base's
# sizes, squeeze/unsqueeze, as_strided_scatter); and the views made again after a write, whose dropped nodes take
# names (a view made after any write into its base is made again at its first use)
ALIAS_WRITES = {
    "second_view_written": "z = x * 2; z[0].add_(1); z[2].mul_(y[1]); return z + 1",
    "views_made_again": "z = x * 2; v = z[1:]; v.mul_(3); u = z[:2]; return u + v",
    "input_view_made_again": "x[1:].add_(1); return x[1:] * 2",
    "view_after_written_view": "z = x * 2; z[1:].relu_(); z[0].neg_(); return z",
    "through_t": "z = x * w.reshape(3, 1); z.t()[1].mul_(2); return z",
    "other_alias": "z = x * w.reshape(3, 1); z[0].add_(1); a = z.t(); z[1].add_(1); return a",
    "view_alias": "z = x * 2; a = z.view(3); z[1].add_(1); return a",
    "transpose_3d": "z = (x * w.reshape(3, 1)).reshape(3, 3, 1) * 1; z.transpose(0, 2)[0].add_(1); return z",
    "permute_3d": "z = (x * w.reshape(3, 1)).reshape(1, 3, 3) + 0; z.permute(1, 2, 0).mul_(2); return z",
    "view_slice": "z = x * w.reshape(3, 1); z.view(9)[2:5].add_(1); return z",
    "unsqueeze": "z = x * 2; z.unsqueeze(0).mul_(3); return z",
    "unsqueeze_neg": "z = x * 2; z.unsqueeze(-1).mul_(3); return z",
    "none_index": "z = x * 2; z[None].add_(1); return z",
    "squeeze": "z = (x * 2).reshape(3, 1) + 0; z.squeeze(1).add_(y); return z",
    "as_strided": "z = x * w.reshape(3, 1); z.as_strided((2, 2), (1, 3), 1).mul_(2); return z",
    "as_strided_input": "x.as_strided((2,), (1,), 1).mul_(2); return x * 1",
    "flatten": "z = x * w.reshape(3, 1); z.flatten().mul_(2); return z",
    "unflatten": "z = x * w.reshape(3, 1); z.unflatten(1, (3, 1)).mul_(2); return z",
    "view_t": "z = x * 2; z.view(3, 1).t().add_(1); return z",
    "t_of_input": "x.view(3, 1).t().mul_(2); return x + 1",
    "t_copy_": "z = x * w.reshape(3, 1); z.t().copy_(w.reshape(3, 1).expand(3, 3)); return z",
    "t_fill_": "z = x * w.reshape(3, 1); z.t()[0].fill_(2.0); return z",
    "t_zero_": "z = x * w.reshape(3, 1); z.t().zero_(); return z + 1",
    "t_then_base": "z = x * w.reshape(3, 1); a = z.t(); a[0].add_(1); z.mul_(2); return a",
    "transpose_written_twice": "z = x * w.reshape(3, 1); a = z.transpose(0, 1); a.mul_(2); a[1].add_(1); return z",
    "view_of_buffer_t": "b = self.buf.view(3, 1); b.t().mul_(2); return x + self.buf",
    "view_returned": "z = x * 2; v = z.view(1, 3); z.add_(1); return v",
    "two_aliases_written": "z = x * w.reshape(3, 1); a = z.t(); b = z.view(9); a[0].mul_(2); b[1:3].add_(1); "
                           "return a + b.view(3, 3)",
    "movedim": "z = (x * w.reshape(3, 1)).reshape(3, 3, 1) * 1; z.movedim(0, 2).add_(1); return z",
    "narrow_of_t": "z = x * w.reshape(3, 1); z.t().narrow(0, 1, 2).mul_(2); return z",
    "diagonal_of_t": "z = x * w.reshape(3, 1); z.t().diagonal().add_(1); return z",
    "view_after_write": "z = x * 2; z.add_(1); v = z[0]; return v + 1",
    "input_view_after_write": "x.add_(1); v = x[0]; return v + 1",
    "view_written_after_write": "z = x * 2; z.add_(1); z[1:].mul_(2); return z",
    "alias_returned_after_write": "z = x * w.reshape(3, 1); a = z.t(); z[0].add_(1); return a * 10 + z",
    "reshape_view_written": "z = x * w.reshape(3, 1); z.reshape(9)[0].add_(1); return z",
    "views_chained": "z = x * w.reshape(3, 1); z.view(9).view(3, 3).t()[0][1:].mul_(2); return z",
    "written_twice_then_view": "z = x * 2; z[0].add_(1); z[1].add_(1); v = z[2]; v.add_(1); return z * v",
    "input_view_returned": "v = x[1:]; v.mul_(2); return v",
    "detach_written": "z = x * 2; d = z.detach(); d.add_(1); return z",
    "expand_read_after_write": "z = x * 2; e = z.expand(2, 3); z.add_(1); return e + 1",
    "ellipsis": "z = x * w.reshape(3, 1); z[..., 1].add_(1); return z",
}

# the same, whose export graphs (before run_decompositions) spell the view otherwise than PyTorch's (numpy_T,
# swapaxes, view_as recorded as they were called): the decomposed graphs are compared
ALIAS_WRITES_DECOMPOSED = {
    "T": "z = x * w.reshape(3, 1); z.T[2].mul_(2); return z",
    "mT": "z = x * w.reshape(3, 1); z.mT[2].mul_(2); return z",
    "swapaxes": "z = x * w.reshape(3, 1); z.swapaxes(0, 1)[0].add_(1); return z",
    "view_as": "z = x * w.reshape(3, 1); z.view_as(torch.ones(9)).add_(1); return z",
}

# the writes whose values are eager's but whose graphs are not PyTorch's: a write into a part of split/unbind/chunk
# stays in place (PyTorch scatters it back as slice_scatter/select_scatter)
VIEWS = {
    "split": "z = x * 2; a, b = z.split([1, 2]); b.mul_(2); return z",
    "unbind": "z = x * w.reshape(3, 1); r = z.unbind(0); r[1].add_(1); return z",
    "chunk": "z = x * 2; c = z.chunk(3); c[0].add_(1); return z + 1",
}


def _module(lib, body: str):
    src = f"""
class M(nn.Module):
    def __init__(self):
        super().__init__()
        self.register_buffer("buf", torch.arange(3.0))

    def forward(self, x, y, w):
        {body.replace("; ", chr(10) + "        ")}
"""
    return load(src, lib.__name__)["M"]()


def _inputs(lib):
    return (lib.tensor([0.5, -1.25, 2.0]), lib.tensor([1.5, 0.25, -3.0]),
            lib.tensor([1.0, 2.0, 3.0], dtype=lib.float64))


def _run(lib, body: str, decompose: bool = True):
    """(the exported program, its decomposition, what module() returned and left in the inputs and buffer)."""
    model = _module(lib, body)
    ep = lib.export.export(model, _inputs(lib))
    prog = ep.run_decompositions() if decompose else ep
    m = prog.module()
    seen = []
    for _ in range(2):
        args = _inputs(lib)
        out = m(*args)
        seen.append([np.asarray(out.tolist()), *(np.asarray(a.tolist()) for a in args),
                     np.asarray(prog.state_dict["buf"].tolist())])
    return ep, prog, seen


def _same_values(ours, theirs):
    for o, t in zip(ours, theirs):
        for a, b in zip(o, t):
            np.testing.assert_allclose(a, b, rtol=1e-6, atol=0)  # (exp's last bit: numpy's, not SLEEF's)


@pytest.mark.parametrize("name", sorted({**INTERMEDIATE, **WRITES, **DECOMPOSED, **VIEW_WRITES, **ALIAS_WRITES}))
def test_decomposition_is_functional_as_pytorchs(torch, name):
    body = {**INTERMEDIATE, **WRITES, **DECOMPOSED, **VIEW_WRITES, **ALIAS_WRITES}[name]
    t_ep, theirs, t_seen = _run(torch, body)
    import tinytorch
    o_ep, ours, o_seen = _run(tinytorch, body)
    assert o_ep.graph_module.code == t_ep.graph_module.code  # (export's own graph writes in place, as PyTorch's)
    assert ours.graph_module.code == theirs.graph_module.code, f"--- PyTorch\n{theirs.graph_module.code}\n" \
                                                               f"--- tinytorch\n{ours.graph_module.code}"
    assert str(ours.graph_signature) == str(theirs.graph_signature)
    assert [s.kind.name for s in ours.graph_signature.output_specs] == \
           [s.kind.name for s in theirs.graph_signature.output_specs]
    assert ours.graph_signature.user_outputs == theirs.graph_signature.user_outputs
    _same_values(o_seen, t_seen)


@pytest.mark.parametrize("name", sorted(ALIAS_WRITES_DECOMPOSED))
def test_decomposed_writes_through_aliases_as_pytorchs(torch, name):
    import tinytorch
    _, theirs, t_seen = _run(torch, ALIAS_WRITES_DECOMPOSED[name])
    _, ours, o_seen = _run(tinytorch, ALIAS_WRITES_DECOMPOSED[name])
    assert ours.graph_module.code == theirs.graph_module.code, f"--- PyTorch\n{theirs.graph_module.code}\n" \
                                                               f"--- tinytorch\n{ours.graph_module.code}"
    assert str(ours.graph_signature) == str(theirs.graph_signature)
    _same_values(o_seen, t_seen)


@pytest.mark.parametrize("name", sorted(VALUES_ONLY))
def test_decomposition_values_and_signature(torch, name):
    import tinytorch
    _, ours, o_seen = _run(tinytorch, VALUES_ONLY[name])
    _, theirs, t_seen = _run(torch, VALUES_ONLY[name])
    assert [(s.kind.name, s.target) for s in ours.graph_signature.output_specs] == \
           [(s.kind.name, s.target) for s in theirs.graph_signature.output_specs]
    assert ".add_" not in ours.graph_module.code and "_." not in ours.graph_module.code  # no in-place operator left
    _same_values(o_seen, t_seen)


HALF = {
    "lerp_number": "return h.lerp(h * 2, 0.3)",
    "lerp_tensor_weight": "return h.lerp(h * 2, h)",
    "addcmul": "return h.addcmul(h, h, value=0.5)",
    "masked_fill": "return h.masked_fill(h > 1, 0.5)",
    "in_place": "z = h * 2; z.lerp_(h, 0.75); z.addcmul_(h, h); return z",
}


@pytest.mark.parametrize("name", sorted(HALF))
def test_half_decompositions_compute_in_float32(torch, name):
    """PyTorch's decompositions compute a float16 op in float32 (``_to_copy`` of each operand, and of the result
    back), as its kernels do."""
    results = []
    for lib in (torch, __import__("tinytorch")):
        body = HALF[name].replace("; ", chr(10) + "        ")
        model = load(f"class M(nn.Module):\n    def forward(self, h):\n        {body}\n", lib.__name__)["M"]()
        h = lib.tensor([0.5, -1.25, 3.0], dtype=lib.float16)
        d = lib.export.export(model, (h,)).run_decompositions()
        results.append((d.graph_module.code, str(d.graph_signature), d.module()(h * 3).tolist()))
    assert results[1] == results[0]


@pytest.mark.parametrize("name", sorted(VIEWS))
def test_writes_through_views_compute_eagers_values(torch, name):
    """Values only (see ``VIEWS``)."""
    import tinytorch
    t_seen = _run(torch, VIEWS[name])[2]
    _, _, o_seen = _run(tinytorch, VIEWS[name])
    _same_values(o_seen, t_seen)
    _same_values(_run(tinytorch, VIEWS[name], decompose=False)[2], t_seen)


def test_export_writes_neither_the_module_nor_the_example(torch):
    """PyTorch's export runs on fake tensors: the module's buffer and the example inputs keep their values."""
    import tinytorch
    for lib in (torch, tinytorch):
        model = _module(lib, WRITES["buffer_and_input"])
        args = _inputs(lib)
        lib.export.export(model, args)
        assert model.buf.tolist() == [0.0, 1.0, 2.0]
        assert [a.tolist() for a in args] == [a.tolist() for a in _inputs(lib)]


def test_state_dict_is_the_modules_buffer_written_by_module(torch):
    import tinytorch
    for lib in (torch, tinytorch):
        model = _module(lib, WRITES["buffer_only"])
        d = lib.export.export(model, _inputs(lib)).run_decompositions()
        assert d.state_dict["buf"] is model.buf
        d.module()(*_inputs(lib))
        assert model.buf.tolist() == [1.5, 0.75, -2.0]


# -- tensors made of Python values ----------------------------------------------------------------------
MADE = {
    "scalar": "return x + torch.tensor(3.0)",
    "list": "return x + torch.tensor([1.0, 2.0, 3.0])",
    "dtype": "return x * torch.tensor(2, dtype=torch.float64)",
    "ints_first": "return torch.tensor([1, 2, 3]) + x",
    "fill_with_0d": "z = x.clone(); z.fill_(torch.tensor(2.0)); return z + torch.tensor(1.0)",
    "fill_input_with_0d": "x.fill_(torch.tensor(-4.5)); return y * 2",
    "as_tensor": "return x + torch.as_tensor([1.0, 2.0, 3.0])",
    "op_on_it": "return x + torch.tensor(3.0).exp()",
}


@pytest.mark.parametrize("name", sorted(MADE))
def test_tensor_of_python_values_is_a_lifted_constant(torch, name):
    import tinytorch
    t_ep, theirs, t_seen = _run(torch, MADE[name])
    o_ep, ours, o_seen = _run(tinytorch, MADE[name])
    for o, t in ((o_ep, t_ep), (ours, theirs)):
        assert o.graph_module.code == t.graph_module.code, f"--- PyTorch\n{t.graph_module.code}\n--- tinytorch\n" \
                                                           f"{o.graph_module.code}"
        assert str(o.graph_signature) == str(t.graph_signature)
        assert o.graph_signature.lifted_tensor_constants == t.graph_signature.lifted_tensor_constants
        assert list(o.constants) == list(t.constants)
        for k in t.constants:
            assert str(o.constants[k].dtype).split(".")[-1] == str(t.constants[k].dtype).split(".")[-1]
            np.testing.assert_array_equal(np.asarray(o.constants[k].tolist()), np.asarray(t.constants[k].tolist()))
    _same_values(o_seen, t_seen)
    _same_values(_run(tinytorch, MADE[name], decompose=False)[2], t_seen)


def test_make_fx_of_tensor_of_python_values(torch):
    import tinytorch

    def program(lib):
        def f(x):
            return x + lib.tensor(3.0) + lib.as_tensor([1.0, 2.0, 3.0]) + lib.tensor([1, 2, 3])
        make_fx = __import__(lib.__name__ + ".fx.experimental.proxy_tensor", fromlist=["make_fx"]).make_fx
        g = make_fx(f)(lib.ones(3))
        return g.code, g(lib.tensor([0.5, 1.0, -2.0])).tolist()

    ours, theirs = program(tinytorch), program(torch)
    assert ours == theirs


# -- the unlifted module's state ----------------------------------------------------------------------------
NESTED = """
class Sub(nn.Module):
    def __init__(self):
        super().__init__()
        self.lin = nn.Linear(3, 3)
        with torch.no_grad():
            self.lin.weight.copy_(torch.arange(9.0).reshape(3, 3) / 8 - 0.5)
            self.lin.bias.fill_(0.25)
        self.register_buffer("running_mean", torch.zeros(3))
        self.register_buffer("scratch", torch.ones(3), persistent=False)

    def forward(self, x):
        self.running_mean.add_(x.mean(0))
        return self.lin(x) + self.scratch

class M(nn.Module):
    def __init__(self):
        super().__init__()
        self.sub = Sub()
        self.register_buffer("buf", torch.arange(3.0))

    def forward(self, x):
        self.buf.mul_(2)
        return self.sub(x) + self.buf

class Flat(nn.Module):
    def __init__(self):
        super().__init__()
        self.scale = torch.tensor([2.0, 3.0, 4.0])

    def forward(self, x):
        return x * self.scale + torch.tensor(0.5)
"""


@pytest.mark.parametrize("decompose", [False, True])
def test_unlifted_module_holds_the_state_as_attributes(torch, decompose):
    """``ep.module()`` holds the parameters and buffers at their places (``m.sub.running_mean``, the module's own
    tensors), a non-persistent buffer among the buffers but not the state dict, a plain tensor attribute as an
    attribute; a call reads them from there (one set anew too) and writes the new values back there."""
    seen = []
    for lib in (torch, __import__("tinytorch")):
        ns = load(NESTED, lib.__name__)
        model = ns["M"]()
        ep = lib.export.export(model, (lib.ones(2, 3),))
        ep = ep.run_decompositions() if decompose else ep
        m = ep.module()
        structure = [str(ep.graph_signature), sorted(ep.state_dict), sorted(ep.constants),
                     [n for n, _ in m.named_buffers()], [n for n, _ in m.named_parameters()], list(m.state_dict()),
                     [n for n, _ in m.named_children() if not n.startswith("_")],
                     [n for n, _ in m.sub.named_children() if not n.startswith("_")],
                     m.buf is model.buf, m.sub.running_mean is model.sub.running_mean,
                     m.sub.lin.weight is model.sub.lin.weight, m.sub.scratch is model.sub.scratch]
        x = lib.tensor([[0.5, -1.0, 2.0], [1.5, 0.25, -3.0]])
        with lib.no_grad():
            values = [m(x).tolist(), m.buf.tolist(), model.buf.tolist(), m.sub.running_mean.tolist()]
            m.buf = lib.tensor([5.0, 6.0, 7.0])  # a new tensor in its place: read, and written
            values += [m(x).tolist(), m.buf.tolist(), model.buf.tolist(), m.sub.running_mean.tolist()]
        flat = lib.export.export(ns["Flat"](), (lib.ones(3),))
        flat = flat.run_decompositions() if decompose else flat
        f = flat.module()
        structure += [sorted(flat.constants), f.scale.tolist(), f.lifted_tensor_0.tolist(),
                      [n for n, _ in f.named_buffers()]]
        values.append(f(x[0]).tolist())
        seen.append((structure, values))
    (ours, ours_values), (theirs, theirs_values) = seen[1], seen[0]
    assert ours == theirs
    for o, t in zip(ours_values, theirs_values):
        np.testing.assert_allclose(np.asarray(o), np.asarray(t), rtol=1e-6, atol=1e-6)


# -- the order of the lifted constants ----------------------------------------------------------------------
CONSTANTS = """
class M(nn.Module):
    def __init__(self):
        super().__init__()
        self.b = torch.tensor([3.0, 4.0, 5.0])
        self.a = torch.tensor([1.0, 1.0, 2.0])
        self.register_buffer("buf", torch.ones(3))

    def forward(self, x):
        BODY
"""

CONSTANT_ORDERS = {
    "first_read": "return x * self.a + self.b",
    "one_op_reads_both": "t = torch.tensor([2.0, 2.0, 2.0]); return t * x + self.a * self.b + self.buf",
    "one_op_reads_both_swapped": "return self.b * self.a + x",
    "made_between": "return self.a + torch.tensor(1.0) * x + self.b",
}


@pytest.mark.parametrize("name", sorted(CONSTANT_ORDERS))
def test_lifted_constants_in_pytorchs_order(torch, name):
    """PyTorch lifts the constants in the order the program first reads them, by argument within one op."""
    seen = []
    for lib in (torch, __import__("tinytorch")):
        body = CONSTANT_ORDERS[name].replace("; ", chr(10) + "        ")
        ep = lib.export.export(load(CONSTANTS.replace("BODY", body), lib.__name__)["M"](), (lib.ones(3),))
        d = ep.run_decompositions()
        seen.append((str(ep.graph_signature), ep.graph_module.code, str(d.graph_signature), list(ep.constants)))
    assert seen[1] == seen[0]
