"""Tensor.set_ and torch.utils.swap_tensors against PyTorch: shared memory and what each tensor reports
afterwards (values, shape, strides, storage offset, versions, class, requires_grad, grad, history),
and the errors (types and texts) for what PyTorch refuses."""
import weakref

import numpy as np
import pytest

import tinytorch as tt

torch = pytest.importorskip("torch")
pytest.importorskip("torch.utils")
import tinytorch.utils  # noqa: E402,F401


def _plain(x):
    """A library-neutral summary of a result: tensors by their values, dtype, shape, strides and
    requires_grad; grad_fn by its name."""
    if isinstance(x, (tt.Tensor, torch.Tensor)):
        lib = tt if isinstance(x, tt.Tensor) else torch
        v = x.detach()
        return ("tensor", str(v.dtype).split(".")[-1], tuple(v.shape),
                tuple(v.stride()) if v.numel() else None,  # numpy gives empty arrays zero strides
                v.to(lib.float64).tolist() if not v.dtype.is_complex else v.tolist(), x.requires_grad)
    if isinstance(x, (tuple, list)):
        return tuple(_plain(e) for e in x)
    if hasattr(x, "name") and callable(x.name):
        return ("node", x.name())
    if isinstance(x, type):
        return ("class", x.__name__)
    return x


def _outcome(fn, lib):
    try:
        return "ok", _plain(fn(lib))
    except Exception as e:  # noqa: BLE001 - the error is the outcome compared
        return type(e).__name__, str(e)


def _same(fn):
    ours, theirs = _outcome(fn, tt), _outcome(fn, torch)
    assert ours == theirs
    return ours


# -- set_ ----------------------------------------------------------------------------------------------
def _set_tensor(lib):
    t, s = lib.zeros(2, 3), lib.arange(6.).reshape(3, 2)
    r = t.set_(s)
    s[0, 0] = 100
    t.add_(1)
    return r is t, t, s, t._version, s._version, t.storage_offset(), t.data_ptr() == s.data_ptr()


def _set_view(lib):
    s = lib.arange(12.).reshape(3, 4)
    t = lib.empty(0)
    t.set_(s[1:, 1:3])
    t.mul_(-1)
    return (t, s, t.storage_offset(), t.is_contiguous(), t.untyped_storage().nbytes(),
            t.untyped_storage().data_ptr() == s.untyped_storage().data_ptr())


def _set_empty(lib):
    t = lib.ones(2, 3, dtype=lib.int32)
    r = t.set_()
    return r is t, t, t._version


def _set_storage_forms(lib):
    s = lib.arange(6.)
    out = []
    for args, kwargs in [((s.untyped_storage(),), {}), ((s.untyped_storage(), 1, (2, 2), (2, 1)), {}),
                         ((s.untyped_storage(), 1, (2, 2)), {}), ((s.untyped_storage(), 1, [2, 2], [1, 2]), {}),
                         ((s.untyped_storage(),), {"storage_offset": 2, "size": (2,), "stride": (2,)}),
                         ((s, 3, (3,), (1,)), {}), ((), {"source": s[2:]})]:
        t = lib.empty(0)
        t.set_(*args, **kwargs)
        out.append((t, t.storage_offset()))
    t.fill_(7)  # the last one shares s's memory
    return out, s


def _set_reinterprets_bytes(lib):
    s = lib.arange(6.)
    t = lib.empty(0, dtype=lib.float64)
    t.set_(s.untyped_storage(), 0, (3,), (1,))
    return t


def _set_typed_storage(lib):
    s = lib.arange(4.)
    t = lib.empty(0)
    # both libraries warn about TypedStorage once per process: let this test see its warning whatever
    # ran before it in this worker
    if lib.__name__ == "torch":
        lib.storage._warn_typed_storage_removal.__dict__["has_warned"] = False
    else:
        lib.storage._warned[0] = False
    with pytest.warns(UserWarning):
        t.set_(s.storage())
    return t


SET_ERRORS = {
    "double into float": lambda lib: lib.zeros(2).set_(lib.zeros(2, dtype=lib.float64)),
    "long into float": lambda lib: lib.zeros(2).set_(lib.zeros(2, dtype=lib.int64)),
    "float into long": lambda lib: lib.zeros(2, dtype=lib.int64).set_(lib.zeros(2)),
    "leaf requiring grad": lambda lib: lib.zeros(2, requires_grad=True).set_(lib.ones(2)),
    "int argument": lambda lib: lib.zeros(2).set_(5),
    "str argument": lambda lib: lib.zeros(2).set_("x"),
    "tensor and offset only": lambda lib: lib.zeros(2).set_(lib.ones(2), 1),
    "negative offset": lambda lib: lib.empty(0).set_(lib.arange(6.).untyped_storage(), -1, (2,), (1,)),
    "size and stride lengths": lambda lib: lib.empty(0).set_(lib.arange(6.).untyped_storage(), 0, (2, 3), (3,)),
    "typed storage of another dtype": lambda lib: lib.empty(0).set_(lib.arange(3, dtype=lib.float64).storage()),
    # memory from numpy cannot grow, in PyTorch as in tinytorch
    "past the end": lambda lib: lib.empty(0, dtype=lib.float64).set_(
        lib.from_numpy(np.arange(4.)).untyped_storage(), 2, (3,), (1,)),
}


@pytest.mark.parametrize("fn", [_set_tensor, _set_view, _set_empty, _set_storage_forms, _set_reinterprets_bytes],
                         ids=lambda f: f.__name__)
def test_set_matches_pytorch(fn):
    assert _same(fn)[0] == "ok"


@pytest.mark.filterwarnings("ignore:TypedStorage is deprecated")
def test_set_from_typed_storage_matches_pytorch():
    assert _same(_set_typed_storage)[0] == "ok"


@pytest.mark.filterwarnings("ignore:TypedStorage is deprecated")
@pytest.mark.parametrize("name", sorted(SET_ERRORS))
def test_set_refusals_match_pytorch(name):
    assert _same(SET_ERRORS[name])[0] != "ok"


def _set_non_leaf(lib):
    a = lib.ones(2, requires_grad=True)
    b = a * 2
    b.set_(lib.zeros(2))
    head = (b.requires_grad, b.is_leaf, b.grad_fn.name(), [n.name() if n else None for n, _ in b.grad_fn.next_functions])
    try:
        b.sum().backward()
    except RuntimeError as e:
        return head, str(e)


def _set_source_requiring_grad(lib):
    s = lib.ones(3, requires_grad=True)
    t = lib.zeros(2)
    t.set_(s)
    return t.requires_grad, t.is_leaf, t.grad_fn.name(), [n.name() if n else None for n, _ in t.grad_fn.next_functions]


def _set_under_no_grad(lib):
    a = lib.ones(2, requires_grad=True)
    s = lib.arange(3.)
    with lib.no_grad():
        a.set_(s)
    s.add_(1)
    (a * 2).sum().backward()
    return a, a.grad, a.is_leaf


def _set_from_inference_tensor(lib):
    with lib.inference_mode():
        s = lib.ones(2)
    t = lib.zeros(2)
    t.set_(s)
    return t.is_inference(), t


@pytest.mark.parametrize("fn", [_set_non_leaf, _set_source_requiring_grad, _set_under_no_grad,
                                _set_from_inference_tensor], ids=lambda f: f.__name__)
def test_set_and_autograd_match_pytorch(fn):
    assert _same(fn)[0] == "ok"


# -- swap_tensors --------------------------------------------------------------------------------------
def _swap_basic(lib):
    a, b = lib.tensor([1., 2.]), lib.tensor([[3, 4, 5]])
    ids = id(a), id(b)
    a.add_(1)
    lib.utils.swap_tensors(a, b)
    return a, b, (id(a), id(b)) == ids, a._version, b._version


def _swap_autograd_state(lib):
    a, b = lib.tensor([1., 2.], requires_grad=True), lib.tensor([3.])
    a.grad = lib.ones(2)
    a.note = "x"
    lib.utils.swap_tensors(a, b)
    return a, b, a.grad, b.grad, getattr(a, "note", None), getattr(b, "note", None)


def _swap_classes(lib):
    p, t = lib.nn.Parameter(lib.ones(2)), lib.zeros(3)
    lib.utils.swap_tensors(p, t)
    return type(p), type(t), p, t


def _swap_in_module(lib):
    m = lib.nn.Linear(2, 1)
    w = m.weight
    new = lib.nn.Parameter(lib.full((1, 2), 0.5, dtype=lib.float64))
    lib.utils.swap_tensors(m.weight, new)
    return m.weight is w, m.weight, m.weight.dtype == lib.float64, type(new)


def _swap_after_forward(lib):
    a = lib.ones(2, requires_grad=True)
    y = (a * 2).sum()
    lib.utils.swap_tensors(a, lib.zeros(2, requires_grad=True))
    y.backward()


def _swap_graph_freed(lib):
    a = lib.ones(2, requires_grad=True)
    y = (a * 2).sum()
    y.backward()
    b = lib.zeros(2, requires_grad=True)
    del y
    lib.utils.swap_tensors(a, b)
    (a * 3).sum().backward()
    (b * 5).sum().backward()
    return a.grad, b.grad


def _swap_non_leaf(lib):
    x = lib.ones(2, requires_grad=True) * 2
    b = lib.zeros(2)
    lib.utils.swap_tensors(x, b)
    return x, b, x.grad_fn, b.grad_fn, x.is_leaf, b.is_leaf


def _swap_view(lib):
    a = lib.arange(4.)
    v = a[1:3]
    b = lib.zeros(2)
    lib.utils.swap_tensors(v, b)
    b.add_(10)
    return a, v, b, v._base is None, b._base is a


def _swap_view_then_modify_base(lib):
    # the object now holding the view is the one whose history an in-place op on the base rewrites
    a = lib.ones(4, requires_grad=True)
    base = a * 1
    v = base[1:3]
    b = lib.zeros(2)
    lib.utils.swap_tensors(v, b)
    base.mul_(3)
    b.sum().backward()
    return b.grad_fn, v.grad_fn, b._base is base, a.grad


def _swap_hooks(lib):
    a, b = lib.ones(2, requires_grad=True), lib.zeros(2, requires_grad=True)
    a.register_hook(lambda g: g * 100)
    lib.utils.swap_tensors(a, b)
    (a.sum() + b.sum()).backward()
    return a.grad, b.grad


def _swap_itself(lib):
    a = lib.ones(2)
    lib.utils.swap_tensors(a, a)
    return a


SWAP_ERRORS = {
    "weakref to t1": lambda lib: lib.utils.swap_tensors(*_with_ref(lib, 0)),
    "weakref to t2": lambda lib: lib.utils.swap_tensors(*_with_ref(lib, 1)),
    "base of a live view": lambda lib: _swap_base_of_view(lib, False),
    "base of a live view, requiring grad": lambda lib: _swap_base_of_view(lib, True),
    "retain_grad": lambda lib: _swap_retained(lib),
    "not a tensor": lambda lib: lib.utils.swap_tensors(lib.ones(2), 3),
}
_refs = []


def _with_ref(lib, which):
    pair = [lib.ones(2), lib.ones(2)]
    _refs.append(weakref.ref(pair[which]))
    return pair


def _swap_base_of_view(lib, requires_grad):
    a = lib.arange(4.).requires_grad_(requires_grad)
    v = a[1:3]  # noqa: F841 - alive while swapping
    lib.utils.swap_tensors(a, lib.zeros(4))


def _swap_retained(lib):
    x = lib.ones(2, requires_grad=True) * 2
    x.retain_grad()
    lib.utils.swap_tensors(x, lib.zeros(2))


@pytest.mark.parametrize("fn", [_swap_basic, _swap_autograd_state, _swap_classes, _swap_in_module, _swap_graph_freed,
                                _swap_non_leaf, _swap_view, _swap_view_then_modify_base, _swap_hooks, _swap_itself], ids=lambda f: f.__name__)
def test_swap_tensors_matches_pytorch(fn):
    assert _same(fn)[0] == "ok"


@pytest.mark.parametrize("name", sorted(SWAP_ERRORS) + ["backward after swapping a graph's leaf"])
def test_swap_tensors_refusals_match_pytorch(name):
    fn = SWAP_ERRORS.get(name, _swap_after_forward)
    assert _same(fn)[0] != "ok"


def test_swap_tensors_lives_where_pytorchs_does():
    assert tt.utils.swap_tensors.__module__ == torch.utils.swap_tensors.__module__.replace("torch", "tinytorch")
