"""torch.export of programs that read a tensor's value into Python, against PyTorch 2.13.

``x.sum().item()`` is an unbacked symbol (``u0``, ``zuf0``; ``tinytorch/export/_unbacked.py``): the printed program
(``aten.item.default``, ``Sym(u0)`` annotations, the ``ge`` + ``aten._assert_scalar`` check of a size, the
``f32[u0]`` shapes, the range constraints, ``tolist()``'s ``unbind`` and one symbol per element), the values
``ep.module()`` computes on other inputs, the runtime check's error, and ``run_decompositions``'s
``aten._local_scalar_dense``. What PyTorch refuses is refused with its ``GuardOnDataDependentSymNode`` and text:
a branch on the data, ``int(x)``/``float(x)``, ``if n > 0``.

Where tinytorch differs (each checked below): it refuses, never freezing the example's value, a program that reads
the sizes of a tensor made from the symbol (``torch.zeros(n).shape``, where PyTorch hands back ``u0``); a slice by
it (``x[1:n]``) has no ``sym_size`` check of its size (PyTorch's ``u1``), and its size prints ``u0`` where
PyTorch's is ``Min(5, u0)``; ``torch._check(n >= 0)`` names its node ``ge`` (PyTorch ``ge_1``, after a node it
dropped); ``view(n, -1)`` gets only the ``u0 >= 0`` check (PyTorch adds ``Ne(u0, 0)`` and the divisibility; the
view itself refuses a bad size at run time); ``run_decompositions`` keeps ``aten.zeros`` (PyTorch ``aten.full``)
and numbers the ``ge`` node afresh; a size expression (``2*u0 + 1``) keeps the program's nodes where PyTorch's
graph writes it anew."""
import re

import numpy as np
import pytest

import tinytorch as tt

from _oracle import torch  # noqa: E402  (PyTorch when a test reads it)


def _branchy(lib, condition):
    class Branchy(lib.nn.Module):
        def forward(self, x):
            if condition(x):
                return x * 2
            return x - 1
    return Branchy()


@pytest.mark.parametrize("condition", [lambda x: x.sum() > 0, lambda x: x.sum(), lambda x: (x > 5).any()],
                         ids=["compare", "truth", "any"])
def test_a_branch_on_the_data_is_refused_as_pytorch(condition):
    seen = []
    for lib in (tt, torch):
        x = lib.tensor(np.array([1.0, 2.0, 3.0], dtype=np.float32))
        with pytest.raises(RuntimeError) as info:
            lib.export.export(_branchy(lib, condition), (x,))
        seen.append(info)
    ours, theirs = seen
    assert type(ours.value).__name__ == type(theirs.value).__name__ == "GuardOnDataDependentSymNode"
    assert type(ours.value).__module__.replace("tinytorch", "torch") == type(theirs.value).__module__
    head = "Could not guard on data-dependent expression Eq(u0, 1) (unhinted: Eq(u0, 1)).  (Size-like symbols: none)"
    assert str(ours.value).startswith(head) and str(theirs.value).startswith(head)
    assert "if condition(x):" in str(ours.value) and "if condition(x):" in str(theirs.value)


def test_branches_on_sizes_still_export():
    class Sized(tt.nn.Module):
        def forward(self, x):
            return x * 2 if x.shape[0] > 2 else x - 1
    x = tt.ones(3)
    assert tt.equal(tt.export.export(Sized(), (x,)).module()(x), x * 2)


# -- .item() as an unbacked symbol ----------------------------------------------------------------------------
def _scaled(lib):
    class Scaled(lib.nn.Module):
        def forward(self, x, y):
            n = x.sum().item()
            return y * n
    return Scaled()


def _int_scaled(lib):
    class IntScaled(lib.nn.Module):
        def forward(self, x):
            return x * x.sum().item()
    return IntScaled()


def _arithmetic(lib):
    class Arithmetic(lib.nn.Module):
        def forward(self, x, k):
            n = k.item()
            return x * (n * 2 + 1), x * (2 - n), x * (n / 2), x * (n - 3)
    return Arithmetic()


def _float_arithmetic(lib):
    class FloatArithmetic(lib.nn.Module):
        def forward(self, x):
            return x * (x.sum().item() * 2)
    return FloatArithmetic()


def _zeros(lib):
    class Zeros(lib.nn.Module):
        def forward(self, k):
            return lib.zeros(k.item())
    return Zeros()


def _ones(lib):
    class Ones(lib.nn.Module):
        def forward(self, k):
            return lib.ones(k.item(), 2) * 3
    return Ones()


def _full(lib):
    class Full(lib.nn.Module):
        def forward(self, k):
            return lib.full((k.item(),), 2.0)
    return Full()


def _full_of_expression(lib):
    class FullOfExpression(lib.nn.Module):
        def forward(self, k):
            return lib.full((k.item() * 2 + 1,), 2.0)
    return FullOfExpression()


def _two_items(lib):
    class TwoItems(lib.nn.Module):
        def forward(self, x, k):
            return x * k[0].item() + k[1].item()
    return TwoItems()


def _returned(lib):
    class Returned(lib.nn.Module):
        def forward(self, x):
            return x.sum().item()
    return Returned()


def _same_tensor_twice(lib):
    class Twice(lib.nn.Module):
        def forward(self, x, k):
            return x * k.item() + k.item()
    return Twice()


def _unused(lib):
    class Unused(lib.nn.Module):
        def forward(self, x, k):
            n = k.item()  # noqa: F841 - dropped, as the arithmetic below: PyTorch's graph leaves both out
            m = k.sum().item() * 2  # noqa: F841
            return x * 2
    return Unused()


def _listed(lib):
    class Listed(lib.nn.Module):
        def forward(self, x, k):
            a, b = k.tolist()[1]
            return x * x.tolist()[0] * a + b
    return Listed()


def _unbound(lib):
    class Unbound(lib.nn.Module):
        def forward(self, x):
            a, b = x.unbind(0)
            c, d = x.unbind(1)
            return a + b + c
    return Unbound()


def _alpha(lib):
    class Alpha(lib.nn.Module):
        def forward(self, x):
            return lib.add(x, 1, alpha=x.sum().item())
    return Alpha()


_f32 = np.float32
PRINTED = {  # case: (module maker, example inputs, other inputs), as numpy arrays
    "scaled": (_scaled, [np.array([1, 2], _f32), np.ones(3, _f32)], [np.array([3, 4], _f32), np.ones(3, _f32)]),
    "int_scaled": (_int_scaled, [np.array([1, 2])], [np.array([3, 4])]),
    "arithmetic": (_arithmetic, [np.arange(3, dtype=_f32), np.array(2)], [np.arange(3, dtype=_f32), np.array(5)]),
    "float_arithmetic": (_float_arithmetic, [np.arange(3, dtype=_f32)], [np.ones(3, _f32)]),
    "zeros": (_zeros, [np.array(3)], [np.array(5)]),
    "ones": (_ones, [np.array(3)], [np.array(4)]),
    "full": (_full, [np.array(3)], [np.array(0)]),
    "two_items": (_two_items, [np.arange(3, dtype=_f32), np.array([3, 4])],
                  [np.arange(3, dtype=_f32), np.array([5, -6])]),
    "returned": (_returned, [np.array([1, 2], _f32)], [np.array([3, 4.5], _f32)]),
    "unused": (_unused, [np.ones(2, _f32), np.array(3)], [np.ones(2, _f32), np.array(-4)]),
    "tolist": (_listed, [np.arange(3, dtype=_f32), np.array([[1, 2], [3, 4]])],
               [np.array([2, 3, 4], _f32), np.array([[1, 2], [5, 7]])]),
    "unbind": (_unbound, [np.ones((2, 2), _f32)], [np.arange(4, dtype=_f32).reshape(2, 2)]),
    "alpha": (_alpha, [np.arange(3, dtype=_f32)], [np.ones(3, _f32)]),
    "same_tensor_twice": (_same_tensor_twice, [np.arange(3, dtype=_f32), np.array(2)],
                          [np.arange(3, dtype=_f32), np.array(7)]),
}


def _exported(lib, case):
    make, example, _ = PRINTED[case]
    return lib.export.export(make(lib), tuple(lib.tensor(a) for a in example))


def _run(lib, ep, arrays):
    out = ep.module()(*(lib.tensor(a) for a in arrays))
    outs = out if isinstance(out, tuple) else (out,)
    return [o.numpy() if isinstance(o, lib.Tensor) else o for o in outs]


@pytest.mark.parametrize("case", sorted(PRINTED))
def test_an_item_exports_as_pytorchs_unbacked_symbol(case):
    ours, theirs = _exported(tt, case), _exported(torch, case)
    assert str(ours) == str(theirs)
    assert ours.graph_module.code == theirs.graph_module.code
    assert repr(ours.range_constraints) == repr(theirs.range_constraints)
    other = PRINTED[case][2]
    for a, b in zip(_run(tt, ours, other), _run(torch, theirs, other)):  # the new inputs' values, not the example's
        assert type(a) is type(b)
        np.testing.assert_array_equal(a, b)


@pytest.mark.parametrize("case", ["int_scaled", "returned", "scaled", "float_arithmetic"])
def test_run_decompositions_writes_local_scalar_dense(case):
    ours, theirs = _exported(tt, case).run_decompositions(), _exported(torch, case).run_decompositions()
    assert ours.graph_module.code == theirs.graph_module.code
    other = PRINTED[case][2]
    for a, b in zip(_run(tt, ours, other), _run(torch, theirs, other)):
        np.testing.assert_array_equal(a, b)


@pytest.mark.parametrize("case", ["zeros", "ones", "full"])
def test_a_negative_size_fails_the_runtime_check_as_pytorch(case):
    """The lowered program too: its ``_local_scalar_dense`` keeps the check (named after its new ``ge`` node)."""
    for lib in (tt, torch):
        ep = _exported(lib, case)
        with pytest.raises(RuntimeError, match=re.escape("Runtime assertion failed for expression u0 >= 0 on "
                                                         "node 'ge'")):
            ep.module()(lib.tensor(-2))
    with pytest.raises(RuntimeError, match="Runtime assertion failed for expression u0 >= 0 on node 'ge"):
        _exported(tt, case).run_decompositions().module()(tt.tensor(-2))
    lowered = _exported(tt, case).run_decompositions()
    assert "_local_scalar_dense" in lowered.graph_module.code
    assert lowered.module()(tt.tensor(4)).shape == _exported(torch, case).module()(torch.tensor(4)).shape


# -- what PyTorch refuses ---------------------------------------------------------------------------------------
def _converted(lib, how):
    class Converted(lib.nn.Module):
        def forward(self, x):
            return x * how(x)
    return Converted()


def _branch_on_item(lib):
    class BranchOnItem(lib.nn.Module):
        def forward(self, x):
            n = x.sum().item()
            if n > 0:
                return x
            return -x
    return BranchOnItem()


REFUSED = {  # case: (module maker, example, PyTorch's first line)
    "int_of_int": (lambda lib: _converted(lib, lambda x: int(x.sum())), np.array([1, 2]),
                   "Could not extract specialized integer from data-dependent expression u0 (unhinted: u0).  "
                   "(Size-like symbols: none)"),
    "float_of_int": (lambda lib: _converted(lib, lambda x: float(x.sum())), np.array([1, 2]),
                     "Could not extract specialized integer from data-dependent expression u0 (unhinted: u0).  "
                     "(Size-like symbols: none)"),
    "float_of_float": (lambda lib: _converted(lib, lambda x: float(x.sum())), np.array([1, 2], _f32),
                       "Could not guard on data-dependent expression zuf0 (unhinted: zuf0).  (Size-like symbols: "
                       "none)"),
    "int_of_float": (lambda lib: _converted(lib, lambda x: int(x.sum())), np.array([1, 2], _f32),
                     "Could not guard on data-dependent expression zuf0 (unhinted: zuf0).  (Size-like symbols: "
                     "none)"),
    "int_of_item": (lambda lib: _converted(lib, lambda x: int(x.sum().item())), np.array([1, 2]),
                    "Could not extract specialized integer from data-dependent expression u0 (unhinted: u0).  "
                    "(Size-like symbols: none)"),
    "range_of_tensor": (lambda lib: _converted(lib, lambda x: len(range(x.sum()))), np.array([1, 2]),
                        "Could not extract specialized integer from data-dependent expression u0 (unhinted: u0).  "
                        "(Size-like symbols: none)"),
    "branch_on_int": (_branch_on_item, np.array([1, 2]),
                      "Could not guard on data-dependent expression u0 > 0 (unhinted: u0 > 0).  (Size-like symbols: "
                      "none)"),
    "branch_on_float": (_branch_on_item, np.array([1, 2], _f32),
                        "Could not guard on data-dependent expression zuf0 > 0.0 (unhinted: zuf0 > 0.0).  (Size-like "
                        "symbols: none)"),
}


@pytest.mark.parametrize("case", sorted(REFUSED))
def test_a_value_read_as_a_python_number_is_refused_as_pytorch(case):
    make, example, head = REFUSED[case]
    seen = []
    for lib in (tt, torch):
        with pytest.raises(RuntimeError) as info:
            lib.export.export(make(lib), (lib.tensor(example),))
        seen.append(info.value)
    ours, theirs = seen
    assert type(ours).__name__ == type(theirs).__name__ == "GuardOnDataDependentSymNode"
    assert str(theirs).startswith(head)
    assert str(ours).startswith(head)
    assert str(ours).endswith("you can replace your `export()` call with `draft_export()`.")


def test_numpy_is_refused_as_pytorch():
    seen = []
    for lib in (tt, torch):
        with pytest.raises(RuntimeError) as info:
            lib.export.export(_converted(lib, lambda x: float(x.numpy()[0])), (lib.ones(2),))
        seen.append(str(info.value))
    assert seen[0] == seen[1] == ".numpy() is not supported for tensor subclasses."


# -- where tinytorch refuses what PyTorch exports (never the example's value frozen) -----------------------------
def _size_of_made(lib):
    class SizeOfMade(lib.nn.Module):
        def forward(self, x, k):
            return x * lib.zeros(k.item()).shape[0]
    return SizeOfMade()


@pytest.mark.parametrize("make, inputs", [(_size_of_made, (np.arange(3, dtype=_f32), np.array(3)))],
                         ids=["size_of_made"])
def test_what_tinytorch_cannot_hold_is_refused_where_pytorch_exports(make, inputs):
    """PyTorch exports this (``u0`` for the size); the exported program must follow a new input, so tinytorch
    refuses rather than keep the example's number."""
    theirs = torch.export.export(make(torch), tuple(torch.tensor(a) for a in inputs))
    assert theirs.module() is not None
    with pytest.raises((NotImplementedError, RuntimeError)):
        tt.export.export(make(tt), tuple(tt.tensor(a) for a in inputs))


def _checked(lib):
    class Checked(lib.nn.Module):
        def forward(self, x, k):
            n = k.item()
            lib._check(n >= 0)
            return x * n
    return Checked()


def _viewed(lib):
    class Viewed(lib.nn.Module):
        def forward(self, x, k):
            return x.view(k.item(), -1)
    return Viewed()


@pytest.mark.parametrize("make, example, others", [
    (_checked, (np.arange(3, dtype=_f32), np.array(2)), [(np.arange(3, dtype=_f32), np.array(5))]),
    (_viewed, (np.arange(6, dtype=_f32), np.array(3)), [(np.arange(6, dtype=_f32), np.array(2)),
                                                        (np.arange(6, dtype=_f32), np.array(6))]),
], ids=["check", "view"])
def test_checks_and_views_follow_new_inputs(make, example, others):
    """The graphs differ in names and checks (the module docstring says which); the values and the ranges agree,
    and a value the checks refuse raises in both."""
    ours = tt.export.export(make(tt), tuple(tt.tensor(a) for a in example))
    theirs = torch.export.export(make(torch), tuple(torch.tensor(a) for a in example))
    assert repr(ours.range_constraints) == repr(theirs.range_constraints) == "{u0: VR[0, int_oo]}"
    assert "torch.ops.aten.item.default(k)" in ours.graph_module.code
    for arrays in others:
        np.testing.assert_array_equal(_run(tt, ours, arrays)[0], _run(torch, theirs, arrays)[0])
    for lib, ep in ((tt, ours), (torch, theirs)):
        with pytest.raises(RuntimeError):
            ep.module()(lib.tensor(example[0]), lib.tensor(-1))


def _indexed(lib):
    class Indexed(lib.nn.Module):
        def forward(self, x, k):
            return x[k.item(), None] + x[1:k.item()].sum()
    return Indexed()


def test_an_index_by_an_item_as_pytorchs():
    """``select.int(x, 0, item)`` and ``slice.Tensor(x, 0, 1, item)`` as PyTorch writes them; PyTorch also
    checks the slice's size (a ``sym_size`` node, ``u1``), tinytorch does not (the module docstring)."""
    ours, theirs = (lib.export.export(_indexed(lib), (lib.arange(5.0), lib.tensor(3))) for lib in (tt, torch))
    for line in ("select = torch.ops.aten.select.int(x, 0, item)", "torch.ops.aten.slice.Tensor(x, 0, 1, item)"):
        assert line in ours.graph_module.code and line in theirs.graph_module.code
    for k in (-1, 2, 4):
        np.testing.assert_array_equal(ours.module()(tt.arange(5.0), tt.tensor(k)).numpy(),
                                      theirs.module()(torch.arange(5.0), torch.tensor(k)).numpy())


def test_symbols_are_pytorchs_classes():
    seen = []

    class Probe(tt.nn.Module):
        def forward(self, x):
            n, f = x.sum().item(), x.float().sum().item()
            seen.extend([n, f, n >= 0])
            return x * n
    tt.export.export(Probe(), (tt.tensor([1, 2]),))
    del seen[3:]  # (the capture runs again with u0 moved, to find the sizes that follow it)
    assert [type(v) for v in seen] == [tt.SymInt, tt.SymFloat, tt.SymBool]
    assert [repr(v) for v in seen] == ["u0", "zuf0", "u0 >= 0"]
    with pytest.raises(NotImplementedError):
        tt.SymInt()


def test_save_and_load_keep_the_symbols(tmp_path):
    """tinytorch's own archive (not PyTorch's .pt2): the loaded program prints and runs as the exported one."""
    class Both(tt.nn.Module):
        def forward(self, x, k):
            return tt.zeros(k.item()) + x.sum().item()
    ep = tt.export.export(Both(), (tt.ones(2), tt.tensor(3)))
    tt.export.save(ep, tmp_path / "both.pt2")
    loaded = tt.export.load(tmp_path / "both.pt2")
    assert str(loaded) == str(ep)
    assert "Range constraints: {u0: VR[0, int_oo], zuf0: VR[-oo, oo]}" in str(loaded)
    np.testing.assert_array_equal(loaded.module()(tt.ones(2), tt.tensor(4)).numpy(), np.full(4, 2, np.float32))
    with pytest.raises(RuntimeError, match="Runtime assertion failed for expression u0 >= 0 on node 'ge'"):
        loaded.module()(tt.ones(2), tt.tensor(-1))


_FOLLOWS = {  # programs of x (4 floats) and n = k.item(): exported at k=2, run at k=3
    "tensor_of_it": lambda x, n: x * tt.tensor([n]),
    "full_like": lambda x, n: tt.full_like(x, n),
    "fill_": lambda x, n: x.clone().fill_(n),
    "arange": lambda x, n: tt.arange(0, n * 2, 2),
    "pad": lambda x, n: tt.nn.functional.pad(x, [n, n]),
    "repeat": lambda x, n: x.repeat(n),
    "expand": lambda x, n: x.expand(n, 4),
    "narrow": lambda x, n: x.narrow(0, 0, n),
    "roll": lambda x, n: x.roll(n),
    "clamp": lambda x, n: tt.clamp(x, max=n),
    "topk": lambda x, n: x.topk(n).values,
    "pow": lambda x, n: x ** n + n ** x,
    "where": lambda x, n: tt.where(x > 1, x, n),
    "sum_dim": lambda x, n: x.reshape(2, 2).sum(dim=n - 2),
    "split": lambda x, n: x.split(n)[0],
    "linspace": lambda x, n: tt.linspace(0, 1, n),
    "size_tuple": lambda x, n: tt.ones((n, 2)) + tt.zeros(tt.Size([n, 1])),
    "neg_abs": lambda x, n: x * -n + abs(n),
    "python_sum": lambda x, n: x * sum([n, 1]),
    "slice_end": lambda x, n: x[:n] + x[1:n].sum(),
    "slice_start": lambda x, n: x[n:],
    "select": lambda x, n: x[n] * x[-n],
    # refused (as PyTorch refuses them; the last because tinytorch has no symbolic sizes)
    "branch": lambda x, n: x * (n if n > 0 else 0),
    "math": lambda x, n: x * __import__("math").sqrt(n),
    "dict_key": lambda x, n: x * {2: 1.0, 3: 5.0}.get(n, 0.0),
    "python_list": lambda x, n: x * len([1] * n),
    "shape_returned": lambda x, n: tt.randn(n).shape,
}


_REFUSED_HERE = ("branch", "math", "dict_key", "python_list", "shape_returned")


@pytest.mark.parametrize("case", sorted(_FOLLOWS))
def test_an_exported_item_follows_new_inputs_or_is_refused(case):
    """Never the example's number frozen: the exported program computes eager's value at another input, or the
    export raises."""
    fn = _FOLLOWS[case]

    class Program(tt.nn.Module):
        def forward(self, x, k):
            return fn(x, k.item())
    x = tt.tensor([1.0, 2.0, 3.0, 4.0])
    if case in _REFUSED_HERE:
        with pytest.raises((RuntimeError, NotImplementedError, TypeError)):
            tt.export.export(Program(), (x, tt.tensor(2)))
        return
    ep = tt.export.export(Program(), (x, tt.tensor(2)))
    got, want = ep.module()(x, tt.tensor(3)), fn(x, 3)
    assert got.shape == want.shape
    np.testing.assert_array_equal(got.numpy(), want.numpy())
