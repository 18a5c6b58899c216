"""An op's vmap, autocast and ONNX rules live on its declaration (``docs/adding-an-op.md``): amp's
lists are read from the declarations, every ONNX rule is attached to one, and neither package keeps a
table of op names that could drift from the registry."""
import ast
import collections
import pathlib

import numpy as np
import pytest

import tinytorch as tt
from tinytorch._ops._core.registry import AUTOCAST_POLICIES, REGISTRY, bind_export, op
from tinytorch.amp import _autocast_lists

PACKAGE = pathlib.Path(tt.__file__).parent


def _name_tables(path: pathlib.Path, least: int = 2) -> list:
    """Literal collections in ``path`` holding ``least`` or more registry keys (a dict's keys, a tuple's,
    list's or set's items; ``__all__`` aside): what a table of op names looks like."""
    found = []
    tree = ast.parse(path.read_text())
    exports = {id(node.value) for node in ast.walk(tree) if isinstance(node, ast.Assign)
               and any(isinstance(t, ast.Name) and t.id == "__all__" for t in node.targets)}
    for node in ast.walk(tree):
        if id(node) in exports:
            continue
        if isinstance(node, ast.Dict):
            items = node.keys
        elif isinstance(node, (ast.Tuple, ast.List, ast.Set)):
            items = node.elts
        else:
            continue
        keys = [i.value for i in items if isinstance(i, ast.Constant) and i.value in REGISTRY]
        if len(keys) >= least:
            found.append((path.name, node.lineno, keys[:4]))
    return found


def test_autocast_lists_are_the_declarations():
    declared = {w: {k for k, d in REGISTRY.items() if d.autocast == w} for w in AUTOCAST_POLICIES if w}
    for which, keys in declared.items():
        got = _autocast_lists.policy(which)
        assert set(got) == keys and len(got) == len(keys), which
        assert all(REGISTRY[k].autocast == which for k in got)
    assert declared["lower"] >= {"matmul", "mm", "F.linear", "conv2d"}
    assert declared["fp32"] >= {"F.mse_loss", "F.cross_entropy", "prod", "fft.fft", "linalg.inv"}
    assert declared["promote"] == {"cat", "stack", "index_copy"}


def test_autocast_installs_exactly_the_declared_ops():
    with tt.autocast("cpu"):
        wrapped = {k for k, d in REGISTRY.items()
                   if _autocast_lists._impl_cell(d.public).cell_contents is not d.impl}
    assert wrapped == {k for k, d in REGISTRY.items() if d.autocast is not None}
    assert all(_autocast_lists._impl_cell(d.public).cell_contents is d.impl for d in REGISTRY.values())


def test_unknown_autocast_policy_is_refused():
    with pytest.raises(ValueError, match="autocast policy"):
        op("never_declared", autocast="bf16")


def test_no_op_name_tables_in_amp_or_onnx():
    files = sorted((PACKAGE / "amp").glob("*.py")) + sorted((PACKAGE / "onnx").glob("*.py"))
    tables = [t for f in files for t in _name_tables(f)]
    assert not tables, f"tables of op names (put the rule on the declaration instead): {tables}"


# the tables of five or more op names the package may keep: none is a table of ops (each holds PyTorch's or numpy's
# own strings that happen to spell ops), so no declaration could hold it. (file, its first three keys): why
ALLOWED_TABLES = {
    ("fx/_codegen.py", ("add", "sub", "mul")): "torch.fx.graph.reflectable_magic_methods: operator module names",
    ("fx/_codegen.py", ("eq", "ne", "lt")): "torch.fx.graph.magic_methods: operator module names",
    ("nn/init.py", ("conv1d", "conv2d", "conv3d")): "nn.init.calculate_gain's nonlinearity strings",
    ("_ops/index/scatter_reduce.py", ("sum", "prod", "mean")): "scatter_reduce's reduce= strings and their ufuncs",
    ("_ops/_core/narrow_dtypes.py", ("add", "maximum", "minimum")): "numpy ufunc names -> PyTorch's float8 kernel names",
}


def test_no_op_name_tables_in_the_package():
    assert len(ALLOWED_TABLES) <= 5
    found = collections.Counter((path.relative_to(PACKAGE).as_posix(), tuple(keys[:3]))
                                for path in sorted(PACKAGE.rglob("*.py")) for _, _, keys in _name_tables(path, 5))
    known = collections.Counter(list(ALLOWED_TABLES))
    assert not found - known, f"tables of op names (put the rule on the declaration instead): {found - known}"
    assert not known - found, f"an allowed table is gone: take it off ALLOWED_TABLES: {known - found}"


def test_name_table_scan_sees_tables(tmp_path):
    f = tmp_path / "m.py"
    f.write_text('A = {"mul": 1, "add": 2}\nB = ("matmul", "mm")\nC = export_rule("mul", "add")\n')
    assert [line for _, line, _ in _name_tables(f)] == [1, 2]


def test_every_onnx_rule_sits_on_a_declaration():
    pytest.importorskip("onnx")
    import tinytorch.onnx  # noqa: F401  (loading it attaches the rules)
    from tinytorch.onnx._rule import export_rule
    exported = {k: d.onnx for k, d in REGISTRY.items() if d.onnx is not None}
    assert {"mul", "add", "matmul", "F.linear", "conv2d", "Tensor.view", "Tensor.getitem", "softmax", "cat",
            "F.scaled_dot_product_attention", "F.multi_head_attention_forward", "Tensor.to"} <= set(exported)
    assert all(callable(r) for r in exported.values())
    with pytest.raises(KeyError, match="no op 'not_an_op'"):
        export_rule("not_an_op")(lambda tr, out, x: None)
    with pytest.raises(RuntimeError, match="has an ONNX rule already"):
        bind_export("mul", lambda tr, out, a, b: None)
    bind_export("mul", exported["mul"])  # the same rule again is harmless


@pytest.mark.parametrize("key, call", [
    ("fft.fft2", lambda T, a, b: T.fft.fft2(a.bfloat16())),
    ("linalg.inv", lambda T, a, b: T.linalg.inv(a.bfloat16() + 4 * T.eye(4).bfloat16())),
    ("F.max_unpool2d", lambda T, a, b: T.nn.functional.max_unpool2d(a[None, None, :2, :2].bfloat16(),
                                                                      T.zeros(1, 1, 2, 2, dtype=T.long), 2)),
    ("F.multilabel_soft_margin_loss",  # not on PyTorch's lists: stays in the autocast dtype
     lambda T, a, b: T.nn.functional.multilabel_soft_margin_loss(a.bfloat16(), (b > 0).bfloat16())),
    ("cat", lambda T, a, b: T.cat([a.bfloat16(), b])),
    ("stack", lambda T, a, b: T.stack([a.bfloat16(), b.bfloat16()])),
    ("index_copy", lambda T, a, b: T.index_copy(a.bfloat16(), 0, T.tensor([1]), b[:1])),
])
def test_policies_match_torch(key, call):
    torch = pytest.importorskip("torch")
    pytest.importorskip("ml_dtypes")
    g = torch.Generator().manual_seed(0)
    a, b = torch.randn(4, 4, generator=g), torch.randn(4, 4, generator=g)
    at, bt = tt.tensor(a.numpy()), tt.tensor(b.numpy())
    with torch.autocast("cpu"):
        want = call(torch, a, b)
    with tt.autocast("cpu"):
        got = call(tt, at, bt)
    assert str(got.dtype).split(".")[-1] == str(want.dtype).split(".")[-1], key


# each view op's declared inverse (``op(view_inverse=)``), run eagerly: the base with the view's elements replaced by
# ``src``, as PyTorch writes ``src`` into that view of a copy of the base; (ATen op, base shape, the view's arguments)
VIEW_INVERSES = [
    ("select", (3, 4), (1, -1)),
    ("slice", (5, 2), (0, 1, 4, 2)),
    ("diagonal", (3, 4), (1, 0, 1)),
    ("as_strided", (3, 4), ([2, 2], [1, 4], 1)),
    ("permute", (2, 3, 4), ([2, -3, 1],)),
    ("view", (3, 4), ([2, 6],)),
    ("unsqueeze", (3, 4), (-1,)),
    ("squeeze", (1, 3, 1, 4), ([0, 1, -2],)),
    ("alias", (3, 4), ()),
]


@pytest.mark.parametrize("name, shape, args", VIEW_INVERSES, ids=[c[0] for c in VIEW_INVERSES])
def test_declared_view_inverse_writes_the_view_back_as_torch(name, shape, args):
    torch = pytest.importorskip("torch")
    from tinytorch._op_namespace import ops
    from tinytorch._ops._core.registry import view_inverse

    def call(overload, *a):  # an ATen call run at once, where export records it
        packet, _, which = overload.partition(".")
        return getattr(getattr(ops.aten, packet), which)(*a)

    base = torch.arange(float(np.prod(shape))).reshape(shape)
    view = getattr(torch.ops.aten, name)(base, *args)
    src = -1 - torch.arange(float(view.numel())).reshape(view.shape)
    want = base.clone()
    getattr(torch.ops.aten, name)(want, *args).copy_(src)
    inverse = view_inverse(getattr(ops.aten, name)._fn)
    got = inverse(call, tt.tensor(base.numpy()), tt.tensor(base.numpy()), tt.tensor(src.numpy()), *args)
    assert tuple(got.shape) == tuple(want.shape)
    np.testing.assert_array_equal(got.numpy(), want.numpy())


def test_view_inverses_are_declared_where_functionalisation_reads_them():
    from tinytorch._op_namespace import ops
    from tinytorch._ops._core.registry import view_inverse
    assert isinstance(view_inverse(ops.aten.expand._fn), str)  # a view with none: a write into it stays in place
    assert view_inverse(ops.aten.add._fn) is None and view_inverse(ops.aten.t._fn) is None  # (t is lowered: permute)
    with pytest.raises(ValueError, match="view_inverse"):
        op("never_declared", view_inverse=3)
