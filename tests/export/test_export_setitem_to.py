"""``x[index] = value`` and the conversions (``.float()``, ``.to(...)``, ``.type(...)``) in an exported program,
against PyTorch 2.13 in the same run: the printed graph (``graph_module.code``) of the export and of its
``run_decompositions()``, the graph signature, the lifted constants and what ``module()`` computes (issue 77).

PyTorch's indexing writes a Python number as a 0-d tensor of the written tensor's dtype (a lifted constant), then
makes the index's views (``select``, ``slice``) and writes into the last one (``copy_``, ``fill_``, or one
``index_put_`` for tensor indices); its export checks each ``to``'s input with ``_assert_tensor_metadata`` first,
which ``run_decompositions`` keeps, written with its positional ``None, None, dtype``."""
import io
import sys

import numpy as np
import pytest

sys.path.insert(0, __file__.rsplit("/tests/", 1)[0] + "/tests/fx")
from _fx_compare import load  # noqa: E402

# forward(self, x, w): x float32 [4, 3], w float64 [3]
SETITEM = {
    "int_number": "z = x.clone(); z[1] = 5.0; return z * 2",
    "int_int_number": "z = x.clone(); z[2] = 1; return z",
    "negative_int": "z = x.clone(); z[-1] = -2.5; return z",
    "slice_number": "z = x.clone(); z[1:3] = 2.0; return z + 1",
    "step_slice_number": "z = x.clone(); z[::2] = 0.5; return z",
    "two_ints_number": "z = x.clone(); z[1, 2] = -1.0; return z",
    "ellipsis_number": "z = x.clone(); z[..., 0] = 3.0; return z",
    "all_number": "z = x.clone(); z[...] = 2.0; return z",
    "full_slice_0d": "z = x.clone(); z[:] = x.sum(); return z",
    "mask_number": "z = x.clone(); z[z > 0] = 0.0; return z",
    "index_tensor_number": "z = x.clone(); z[torch.tensor([0, 2])] = 7.0; return z",
    "list_number": "z = x.clone(); z[[0, 2]] = 1.0; return z",
    "int_tensor": "z = x.clone(); z[0] = x[1] * 3; return z",
    "column_tensor": "z = x.clone(); z[:, 1] = x[:, 0]; return z",
    "broadcast_row": "z = x.clone(); z[1:3] = x[0]; return z",
    "leading_one": "z = x.clone(); z[1:3] = x[0:1]; return z",
    "other_dtype": "z = x.clone(); z[0] = w; return z",
    "int_then_list": "z = x.clone(); z[0, [0, 2]] = x[1, :2]; return z",
    "two_writes": "z = x * 2; z[0] = 1.0; z[:, 2] = z[:, 1]; return z + w",
    "write_then_read_view": "z = x.clone(); v = z[1]; z[1] = 4.0; return v * 2",
}

CONVERSIONS = {
    "float_same": "return x.float() + 1",
    "float_double": "return x.float().double() + 1",
    "to_dtype": "return x.to(torch.float64) * 2",
    "to_dtype_keyword": "return x.to(dtype=torch.float16) + 1",
    "to_same_dtype": "return x.to(torch.float32) + 1",
    "to_copy_same": "return x.to(torch.float32, copy=True) + 1",
    "to_other": "return x.to(w) - 1",
    "to_device": "return x.to('cpu') + 1",
    "to_device_dtype": "return x.to('cpu', torch.float64) + 1",
    "type_dtype": "return x.type(torch.float64) + 1",
    "type_string": "return x.type('torch.DoubleTensor') + 1",
    "long": "return x.long() + 1",
    "half_bool_int": "return x.half().float() + x.bool().int()",
    "type_as": "return x.type_as(w) + 1",
    "read_after_same": "y = x.float(); return x + y + x.double().sum()",
    "with_setitem": "z = x.float().clone(); z[1] = 5.0; z[z > 0] = 0.0; return z.double() + (x > 0).to(torch.bool)",
}

# a boolean mask's index of a tensor: PyTorch's graph checks the data-dependent size u0 with _assert_scalar
# nodes tinytorch's export does not write; the values are compared
VALUES_ONLY = {
    "mask_tensor": "z = x.clone(); m = x > 0; z[m] = x[m] * 2; return z",
}


def _module(lib, body: str):
    src = f"""
class M(nn.Module):
    def forward(self, x, w):
        {body.replace("; ", chr(10) + "        ")}
"""
    return load(src, lib.__name__)["M"]()


def _inputs(lib):
    x = np.array([[0.5, -1.25, 2.0], [1.5, 0.25, -3.0], [-0.75, 4.0, 1.0], [2.5, -0.5, 0.125]], np.float32)
    return lib.tensor(x), lib.tensor([1.0, 2.0, 3.0], dtype=lib.float64)


def _exported(lib, body: str):
    """(the program, its decomposition, the values module() of each returns, with the inputs after the call)."""
    ep = lib.export.export(_module(lib, body), _inputs(lib))
    dec = ep.run_decompositions()
    seen = []
    for prog in (ep, dec):
        args = _inputs(lib)
        out = prog.module()(*args)
        seen.append([str(out.dtype).split(".")[-1], np.asarray(out.tolist()), *(np.asarray(a.tolist()) for a in args)])
    return ep, dec, seen


def _same(ours, theirs):
    for o, t in zip(ours, theirs):
        assert o[0] == t[0]
        for a, b in zip(o[1:], t[1:]):
            np.testing.assert_array_equal(a, b)


def _same_texts(o, t):
    assert o.graph_module.code == t.graph_module.code, f"--- PyTorch\n{t.graph_module.code}\n--- tinytorch\n" \
                                                       f"{o.graph_module.code}"
    assert str(o.graph_signature) == str(t.graph_signature)
    assert list(o.constants) == list(t.constants)
    for k in t.constants:
        assert str(o.constants[k].dtype).split(".")[-1] == str(t.constants[k].dtype).split(".")[-1]
        np.testing.assert_array_equal(np.asarray(o.constants[k].tolist()), np.asarray(t.constants[k].tolist()))


@pytest.mark.parametrize("name", sorted({**SETITEM, **CONVERSIONS}))
def test_exports_and_decomposes_as_pytorchs(torch, name):
    import tinytorch
    body = {**SETITEM, **CONVERSIONS}[name]
    t_ep, t_dec, t_seen = _exported(torch, body)
    o_ep, o_dec, o_seen = _exported(tinytorch, body)
    _same_texts(o_ep, t_ep)
    _same_texts(o_dec, t_dec)
    _same(o_seen, t_seen)


@pytest.mark.parametrize("name", sorted(VALUES_ONLY))
def test_values_as_pytorchs(torch, name):
    import tinytorch
    _, _, t_seen = _exported(torch, VALUES_ONLY[name])
    o_ep, _, o_seen = _exported(tinytorch, VALUES_ONLY[name])
    assert "index_put_.default(clone, [gt], mul)" in o_ep.graph_module.code
    _same(o_seen, t_seen)


def _make_fx_program(lib):
    make_fx = __import__(lib.__name__ + ".fx.experimental.proxy_tensor", fromlist=["make_fx"]).make_fx

    def f(x):
        y, v, u = x.to("cpu", lib.float64), x.to("cpu"), x.float()
        s, r = x.type("torch.DoubleTensor"), x.to(y)
        z = x.clone()
        z[1] = 5.0
        z[z > 0] = 0.0
        z[:, 0] = x[:, 1]
        z[0:2] = x[3]
        return y + v + u + s + r + z
    g = make_fx(f)(_inputs(lib)[0])
    return g.code, g(_inputs(lib)[0]).tolist()


def test_make_fx_of_setitem_and_conversions(torch):
    import tinytorch
    assert _make_fx_program(tinytorch) == _make_fx_program(torch)


@pytest.mark.parametrize("decompose", [False, True])
def test_metadata_check_refuses_another_dtype(torch, decompose):
    import tinytorch

    def error(lib):
        ep = lib.export.export(_module(lib, "return x.float() + w"), _inputs(lib))
        prog = ep.run_decompositions() if decompose else ep
        x, w = _inputs(lib)
        with pytest.raises(RuntimeError) as info:
            prog.module()(x.double(), w)
        return str(info.value)
    assert error(tinytorch) == error(torch)


@pytest.mark.parametrize("kwargs", [{"dtype": "float64"}, {"dtype": "int64"}, {"size": [3]}, {"stride": [2]},
                                    {"device": "meta"}, {"layout": "sparse_coo"},
                                    {"dtype": "float32", "device": "cpu", "layout": "strided"}])
def test_assert_tensor_metadata_operator(torch, kwargs):
    import tinytorch

    def call(lib):
        a = lib.tensor([1.0, 2.0])
        given = {k: getattr(lib, v) if k in ("dtype", "layout") else lib.device(v) if k == "device" else v
                 for k, v in kwargs.items()}
        try:
            return lib.ops.aten._assert_tensor_metadata.default(a, **given)
        except RuntimeError as e:
            return str(e)
    assert call(tinytorch) == call(torch)


def test_saved_program_round_trips():
    import tinytorch
    ep = tinytorch.export.export(_module(tinytorch, CONVERSIONS["with_setitem"]), _inputs(tinytorch))
    buf = io.BytesIO()
    tinytorch.export.save(ep, buf)
    buf.seek(0)
    loaded = tinytorch.export.load(buf)
    assert loaded.graph_module.code == ep.graph_module.code
    assert "torch.ops.aten._assert_tensor_metadata.default(gt_1, dtype = torch.bool" in loaded.graph_module.code
    assert loaded.module()(*_inputs(tinytorch)).tolist() == ep.module()(*_inputs(tinytorch)).tolist()


STATE_WRITES = """
class M(nn.Module):
    def __init__(self):
        super().__init__()
        self.register_buffer("buf", torch.arange(6.0).reshape(2, 3))

    def forward(self, x):
        x[0] = 1.0
        self.buf[1] = x[1]
        x[:, 2] = self.buf[0].sum()
        return x[:2] + self.buf
"""


def test_setitem_into_an_input_and_a_buffer(torch):
    """Writes into the caller's input and a buffer: USER_INPUT_MUTATION and BUFFER_MUTATION outputs once
    decomposed, which ``module()`` copies back."""
    import tinytorch

    def program(lib):
        x = lib.tensor(np.arange(12, dtype=np.float32).reshape(4, 3))
        ep = lib.export.export(load(STATE_WRITES, lib.__name__)["M"](), (x.clone(),))
        dec = ep.run_decompositions()
        texts = [(p.graph_module.code, str(p.graph_signature)) for p in (ep, dec)]
        values = []
        for p in (ep, dec):
            m, a = p.module(), x.clone()
            values.append((m(a).tolist(), a.tolist(), m.buf.tolist()))
        return texts, values
    ours, theirs = program(tinytorch), program(torch)
    assert ours[0] == theirs[0]
    assert ours[1] == theirs[1]
