"""numpy's spellings of PyTorch's parameter names (``axis`` for ``dim``, ``keepdims`` for ``keepdim``, ``x``/``a``/
``x1`` for ``input``, ``x2`` for ``other``), which PyTorch's argument parser takes in every ``torch.X`` function,
against PyTorch: the same values, and PyTorch's TypeError when both spellings are given."""
import numpy as np
import pytest

import tinytorch

# (function, positional arguments after the input, numpy-spelled keywords); the input is a 2x3 float tensor
CALLS = [
    ("argmax", (), {"axis": 1}), ("argmin", (), {"axis": 0, "keepdims": True}), ("sum", (), {"axis": 1}),
    ("sum", (), {"axis": 0, "keepdims": True}), ("mean", (), {"axis": 1, "keepdims": True}), ("max", (), {"axis": 1}),
    ("min", (), {"axis": 0, "keepdims": True}), ("std", (), {"axis": 1}), ("var", (), {"axis": 0}),
    ("prod", (), {"axis": 1}), ("amax", (), {"axis": 1}), ("amin", (), {"axis": 0}), ("logsumexp", (), {"axis": 1}),
    ("softmax", (), {"axis": 1}), ("log_softmax", (), {"axis": 0}), ("cumsum", (), {"axis": 1}),
    ("cumprod", (), {"axis": 0}), ("cummax", (), {"axis": 1}), ("all", (), {"axis": 1}), ("any", (), {"axis": 0}),
    ("median", (), {"axis": 1}), ("nansum", (), {"axis": 1}), ("nanmean", (), {"axis": 0}),
    ("count_nonzero", (), {"axis": 0}), ("sort", (), {"axis": 0}), ("argsort", (), {"axis": 1}),
    ("topk", (1,), {"axis": 1}), ("kthvalue", (1,), {"axis": 1}), ("mode", (), {"axis": 0}),
    ("squeeze", (), {"axis": 0}), ("unsqueeze", (), {"axis": 0}), ("flatten", (), {"start_dim": 0}),
    ("unbind", (), {"axis": 1}), ("chunk", (2,), {"axis": 1}), ("tensor_split", (2,), {"axis": 1}),
    ("diff", (), {"axis": 1}), ("narrow", (), {"axis": 1, "start": 0, "length": 2}),
    ("select", (), {"axis": 0, "index": 1}), ("roll", (1,), {"dims": 0}), ("var_mean", (), {"axis": 0}),
    ("std_mean", (), {"axis": 1, "keepdims": True}), ("aminmax", (), {"axis": 0}),
    ("repeat_interleave", (2,), {"axis": 0}), ("renorm", (2,), {"axis": 0, "maxnorm": 1.0}),
    ("quantile", (0.5,), {"axis": 0, "keepdims": True}), ("nanmedian", (), {"axis": 1}),
]


def _input(lib):
    return lib.tensor([[0.5, -1.0, 2.0], [3.0, 0.25, -2.0]])


def _plain(r):
    if isinstance(r, (tuple, list)):
        return [_plain(t) for t in r]
    return r.tolist(), str(r.dtype).rpartition(".")[2]


def _outcome(lib, fn, args, kwargs, first=None):
    try:
        if first is None:
            return _plain(getattr(lib, fn)(_input(lib), *args, **kwargs))
        return _plain(getattr(lib, fn)(**{first: _input(lib)}, **kwargs))
    except TypeError as e:
        return "TypeError", str(e)


def _same(ours, theirs):
    """Equal structure and dtypes, values to float32's last bits (softmax and std round as PyTorch's CPU paths do,
    whichever spelling named the dim)."""
    assert type(ours) is type(theirs)
    if isinstance(theirs, list):
        assert len(ours) == len(theirs)
        for a, b in zip(ours, theirs):
            _same(a, b)
    elif isinstance(theirs, tuple) and theirs[0] == "TypeError":
        assert ours == theirs
    else:
        assert ours[1] == theirs[1]
        np.testing.assert_allclose(np.array(ours[0], dtype=float), np.array(theirs[0], dtype=float), rtol=1e-6)


@pytest.mark.parametrize("fn, args, kwargs", CALLS, ids=[f"{c[0]}-{'-'.join(c[2])}" for c in CALLS])
def test_numpy_spelling_of_dim_and_keepdim(fn, args, kwargs):
    torch = pytest.importorskip("torch")
    _same(_outcome(tinytorch, fn, args, kwargs), _outcome(torch, fn, args, kwargs))


def test_cat_and_stack_take_axis():
    torch = pytest.importorskip("torch")
    for fn in ("cat", "stack"):
        got = [_plain(getattr(lib, fn)([_input(lib), _input(lib)], axis=1)) for lib in (tinytorch, torch)]
        _same(*got)


@pytest.mark.parametrize("first", ["x", "a", "x1"])
def test_numpy_spellings_of_input(first):
    torch = pytest.importorskip("torch")
    _same(_outcome(tinytorch, "sum", (), {"axis": 0}, first), _outcome(torch, "sum", (), {"axis": 0}, first))


def test_numpy_spelling_of_other():
    torch = pytest.importorskip("torch")
    _same(*[_plain(lib.add(x1=_input(lib), x2=_input(lib))) for lib in (tinytorch, torch)])


@pytest.mark.parametrize("fn, args, kwargs", [
    ("sum", (), {"dim": 1, "axis": 1}), ("sum", (1,), {"axis": 1}), ("argmax", (1,), {"axis": 1}),
    ("softmax", (1,), {"axis": 1}), ("mean", (), {"dim": 0, "keepdim": True, "keepdims": True}),
    ("sum", (), {"axis": 1, "foo": 1}),
])
def test_both_spellings_raise_pytorchs_type_error(fn, args, kwargs):
    torch = pytest.importorskip("torch")
    ours, theirs = _outcome(tinytorch, fn, args, kwargs), _outcome(torch, fn, args, kwargs)
    assert ours[0] == theirs[0] == "TypeError"
    if "foo" not in kwargs:  # (an unknown keyword: PyTorch lists its signatures, a text of its own)
        assert ours == theirs


# the functions PyTorch writes in Python (torch/functional.py, nn.functional) take no numpy spelling: refused, in
# PyTorch's words (torch.unique's named by the function PyTorch's boolean_dispatch calls, _return_output)
@pytest.mark.parametrize("fn, args, kwargs", [
    ("norm", (), {"axis": 1}), ("split", (1,), {"axis": 0}), ("unique", (), {"axis": 0}),
    ("unique_consecutive", (), {"axis": 0}), ("nn.functional.softmax", (), {"axis": 1}),
    ("nn.functional.log_softmax", (), {"axis": 1}), ("nn.functional.normalize", (), {"axis": 1}),
    ("unflatten", (), {"axis": 1, "sizes": (3, 1)}),  # (a parsed op, though Tensor.unflatten is Python)
])
def test_python_functions_refuse_numpy_spellings(fn, args, kwargs):
    torch = pytest.importorskip("torch")

    def outcome(lib):
        f = lib
        for part in fn.split("."):
            f = getattr(f, part)
        try:
            return _plain(f(_input(lib), *args, **kwargs))
        except TypeError as e:
            return "TypeError", str(e)

    _same(outcome(tinytorch), outcome(torch))


# torch.unique and torch.unique_consecutive are boolean_dispatch's in PyTorch: the Python function it calls, and so
# the name Python's argument errors give, follows return_inverse and return_counts (read by keyword or at the
# positions boolean_dispatch reads them, which for unique_consecutive are not the parameters' own)
_DISPATCHED_CALLS = [
    ((), {"return_inverse": True}), ((), {"return_counts": True}), ((), {"return_inverse": 1, "return_counts": 1}),
    ((True, True), {}), ((True, False, True), {}), ((True, True, True), {}), ((True, False, False, 0, 7), {}),
    ((True, False, False, 0), {"dim": 0}), ((), {"return_inverse": True, "return_counts": False}),
    ((), {"sorted": False}),
]


@pytest.mark.parametrize("fn", ["unique", "unique_consecutive"])
@pytest.mark.parametrize("args, kwargs", _DISPATCHED_CALLS)
def test_unique_argument_errors_name_the_dispatched_function(fn, args, kwargs):
    torch = pytest.importorskip("torch")

    def outcome(lib):
        x = lib.tensor([[1, 2], [1, 2], [3, 4]])
        try:
            getattr(lib, fn)(x, *args, **{**kwargs, "axis": 0})
        except TypeError as e:
            return str(e)
        return "no error"

    theirs = outcome(torch)
    assert theirs != "no error"
    assert outcome(tinytorch) == theirs


def test_unique_without_input_names_the_dispatched_function():
    torch = pytest.importorskip("torch")

    def outcome(lib):
        with pytest.raises(TypeError) as info:
            lib.unique()
        return str(info.value)

    assert outcome(tinytorch) == outcome(torch)


def test_a_type_error_inside_unique_keeps_its_words():
    """Only Python's refusal of the call itself is renamed: an error raised inside the implementation is not."""
    torch = pytest.importorskip("torch")
    for lib in (tinytorch, torch):
        with pytest.raises(TypeError) as info:
            lib.unique(lib.tensor([1, 2]), dim="a")
        assert not str(info.value).startswith("_return_output()")


# -- methods: PyTorch's parser reads x.X(...) as it reads torch.X(x, ...) ------------------------------------
def _method_outcome(lib, fn, args, kwargs):
    args = tuple(a(lib) if callable(a) else a for a in args)
    try:
        r = getattr(_input(lib), fn)(*args, **kwargs)
    except TypeError as e:
        return "TypeError", str(e)
    return (r, "int") if isinstance(r, int) else _plain(r)


def _other(lib):
    return lib.tensor([[1.0, 2.0, -1.0], [0.5, 4.0, 2.0]])


# (method, positional arguments, keywords): the numpy spellings of the methods with dim/keepdim (and x2 in one of
# them: max), the in-place forms (those made from the op take x2 and other too: nothing runs before the call
# fails), and the hand-written size/stride
METHOD_CALLS = [c for c in CALLS if c[0] not in ("var_mean", "std_mean")] + [
    ("max", (), {"x2": _other}), ("sum", (), {"axis": 1, "dtype": "float64"}),
    ("std", (), {"axis": 0, "correction": 0}),
    ("gather", (), {"axis": 1, "index": lambda lib: lib.tensor([[0, 2], [1, 0]])}),
    ("index_select", (), {"axis": 1, "index": lambda lib: lib.tensor([2, 0])}),
    ("flip", (), {"dims": (0,)}),
    ("cumsum_", (), {"axis": 1}), ("add_", (), {"x2": _other}), ("mul_", (), {"other": _other}),
    ("squeeze_", (), {"axis": 0}), ("unsqueeze_", (), {"axis": 0}), ("size", (), {"axis": 1}),
    ("stride", (), {"axis": 0}),
]


def _arguments(lib, kwargs):
    """The keywords for ``lib``: a callable makes its tensor, a dtype's name is ``lib``'s dtype."""
    return {k: (v(lib) if callable(v) else getattr(lib, v) if k == "dtype" else v) for k, v in kwargs.items()}


@pytest.mark.parametrize("fn, args, kwargs", METHOD_CALLS, ids=[f"{c[0]}-{'-'.join(c[2])}" for c in METHOD_CALLS])
def test_methods_take_the_spellings_their_functions_take(fn, args, kwargs):
    torch = pytest.importorskip("torch")
    theirs = _method_outcome(torch, fn, args, _arguments(torch, kwargs))
    assert theirs[0] != "TypeError", theirs  # (each line is a call PyTorch takes)
    _same(_method_outcome(tinytorch, fn, args, _arguments(tinytorch, kwargs)), theirs)


@pytest.mark.parametrize("fn, args, kwargs", [
    ("sum", (1,), {"axis": 1}), ("sum", (), {"dim": 1, "axis": 1}), ("argmax", (), {"dim": 0, "axis": 0}),
    ("cumsum", (), {"dim": 0, "axis": 0}), ("softmax", (), {"dim": 0, "axis": 0}),
    ("mean", (), {"dim": 0, "keepdim": True, "keepdims": True}), ("size", (), {"dim": 0, "axis": 0}),
    # a keyword that spells nothing, named as PyTorch names the method: its own name for one its parser reads,
    # Tensor.X for one it writes in Python (split, norm, unflatten...), a required argument missing first
    ("argmax", (), {"foo": 1}), ("add", (_other,), {"foo": 1}),
    ("size", (), {"foo": 0}), ("stride", (), {"foo": 0}), ("requires_grad_", (), {"foo": 0}),
    ("is_contiguous", (), {"foo": 0}), ("unsqueeze", (), {"foo": 1}),
    ("split", (), {"split_size": 1, "axis": 0}), ("split", (), {"split_size": 1, "foo": 0}),
    ("unflatten", (), {"axis": 0, "sizes": (1, 2)}), ("norm", (), {"axis": 0}), ("unique", (), {"axis": 0}),
    ("unique_consecutive", (), {"axis": 0}), ("is_shared", (), {"foo": 1}), ("add_", (_other,), {"foo": 1}),
    ("abs_", (), {"foo": 1}), ("cumsum_", (), {"dim": 0, "foo": 1}),
    ("unsqueeze", (), {"x1": _other}),  # (numpy's spellings of input would name self in a method: PyTorch refuses)
])
def test_method_refusals_are_pytorchs(fn, args, kwargs):
    torch = pytest.importorskip("torch")
    ours = _method_outcome(tinytorch, fn, args, _arguments(tinytorch, kwargs))
    theirs = _method_outcome(torch, fn, args, _arguments(torch, kwargs))
    assert theirs[0] == "TypeError"
    assert ours == theirs


@pytest.mark.parametrize("fn", ["abs", "exp", "numel", "dim", "item", "tolist", "retain_grad", "ndimension"])
def test_a_method_without_arguments_is_named_as_pytorch_names_it(fn):
    """PyTorch: "Tensor.abs() takes no keyword arguments"; Python's own text here, under the same name."""
    torch = pytest.importorskip("torch")
    ours = _method_outcome(tinytorch, fn, (), {"foo": 1})
    theirs = _method_outcome(torch, fn, (), {"foo": 1})
    assert theirs == ("TypeError", f"Tensor.{fn}() takes no keyword arguments")
    assert ours == ("TypeError", f"Tensor.{fn}() got an unexpected keyword argument 'foo'")


# -- known differences: a method without dim/keepdim is its implementation itself ----------------------------
# PyTorch's parser takes numpy's x2 for other in every method, and other where our implementation names its
# operands with letters (add's a, b). Those methods (add, mul, sub, div, eq, matmul...) are the ones models call
# most: here each is its implementation, with no function around it to read a spelling (x.add(y) costs what it
# did), so Python refuses the keyword it does not know: a TypeError, never a wrong value. The functions take
# them (torch.add(x1=x, x2=y): test_numpy_spelling_of_other).
BARE = [
    ("add", {"x2": _other}, "x2"), ("add", {"other": _other}, "other"), ("mul", {"x2": _other}, "x2"),
    ("sub", {"x2": _other, "alpha": 2}, "x2"), ("div", {"other": _other}, "other"), ("eq", {"x2": _other}, "x2"),
    ("matmul", {"x2": lambda lib: _other(lib).T}, "x2"), ("expand_as", {"x2": _other}, "x2"),
    ("where", {"condition": lambda lib: _other(lib) > 1, "x2": _other}, "x2"),
]


@pytest.mark.parametrize("fn, kwargs, refused", BARE, ids=[f"{c[0]}-{c[2]}" for c in BARE])
def test_known_difference_methods_without_dim_refuse_x2_and_other(fn, kwargs, refused):
    torch = pytest.importorskip("torch")
    from tinytorch._ops._core.registry import REGISTRY, method_table
    theirs = _method_outcome(torch, fn, (), _arguments(torch, kwargs))
    assert theirs[0] != "TypeError", theirs
    ours = _method_outcome(tinytorch, fn, (), _arguments(tinytorch, kwargs))
    assert ours == ("TypeError", f"{fn}() got an unexpected keyword argument '{refused}'")
    decl = REGISTRY.get(fn) or REGISTRY["Tensor." + fn]  # (a method-only op: Tensor.expand_as)
    assert method_table(decl)[fn].__code__ is (decl.method or decl.impl).__code__  # the implementation's own code


@pytest.mark.parametrize("key", ["sum", "cumsum", "unsqueeze", "std", "max"])
def test_a_method_is_made_from_its_implementations_signature(key):
    """The method made for other spellings has the implementation's parameters, kinds and defaults (the very
    default objects: a call that names none passes the implementation what it would have used), plus
    ``**spellings``; a required parameter gets a marker default, so that a spelling may name it."""
    import inspect
    from tinytorch._ops._core.arguments import written
    from tinytorch._ops._core.registry import REGISTRY, method_table
    decl = REGISTRY[key]
    method = written(method_table(decl)[key])
    assert method.__name__ == method.__qualname__ == key
    made = list(inspect.signature(method, follow_wrapped=False).parameters.values())
    own = list(inspect.signature(decl.method or decl.impl).parameters.values())
    assert made[-1].kind is inspect.Parameter.VAR_KEYWORD
    assert len(made) == len(own) + 1
    for m, o in zip(made[1:-1], own[1:]):
        assert (m.name, m.kind) == (o.name, o.kind)
        assert m.default is o.default or (o.default is o.empty and repr(m.default) == "<required>")



_FIRST_CALL = """
import json, tinytorch
from tinytorch._ops._core import arguments
made = [m for m in arguments._METHODS.values() if getattr(m, "__globals__", {}).get("method__") is m]
method, x = tinytorch.Tensor.sum, tinytorch.tensor([[1.0, 2.0], [3.0, 4.0]])
print(json.dumps({"made": len(made), "unwritten": sum(m.__code__ is arguments._first_call.__code__ for m in made),
                  "by_axis": x.sum(axis=1).tolist(), "kept": x.sum(0, keepdims=True).tolist(),
                  "same": tinytorch.Tensor.sum is method, "first": method.__code__ is arguments._first_call.__code__}))
"""


def test_a_made_method_is_written_on_its_first_call():
    """``import tinytorch`` compiles none of the made methods (all of them cost the import ~0.1 s): each is one
    function on Tensor from the start, running ``_first_call`` until a call writes its own code into it, and the
    same function after."""
    import json
    import subprocess
    import sys

    from _repo import ROOT
    torch = pytest.importorskip("torch")
    run = subprocess.run([sys.executable, "-c", _FIRST_CALL], capture_output=True, text=True, cwd=ROOT, check=True)
    got = json.loads(run.stdout)
    x = torch.tensor([[1.0, 2.0], [3.0, 4.0]])
    assert got["made"] > 50 and got["unwritten"] == got["made"]
    assert got["by_axis"] == x.sum(axis=1).tolist() and got["kept"] == x.sum(0, keepdims=True).tolist()
    assert got["same"] and not got["first"]


@pytest.mark.parametrize("dim", ["a", 1.0, [0]])
def test_unique_dim_of_another_type_is_refused_as_pytorch(dim):
    torch = pytest.importorskip("torch")

    def outcome(lib):
        with pytest.raises(TypeError) as info:
            lib.unique(lib.tensor([[1, 2], [1, 2]]), dim=dim)
        return str(info.value)

    assert outcome(tinytorch) == outcome(torch)
