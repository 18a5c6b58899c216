"""In-place rules the random view/in-place programs found, each compared with PyTorch: what a scan (and
softmax, tril, prod) returns for a transposed input (contiguous, so ``.view(-1)`` works); PyTorch
refusing an in-place op on a view whose history it has not regenerated yet (a view made before its base
got a history through an in-place op: a leaf to PyTorch's check until something looks at its
``grad_fn``); views made under no_grad of a base that gets a history later; and refusals that must come
before anything is written (the state after a refused op is compared too). The last test runs random
programs over a larger vocabulary than ``test_autograd_views_property.py`` (ops taking a second tensor,
unbind/split outputs, views made under no_grad, scans)."""
from __future__ import annotations

import numpy as np
import pytest
from hypothesis import given, settings, strategies as st

import tinytorch
import test_autograd_views_property as base_fuzz
from test_autograd_helpers import assert_same, normalise


@pytest.fixture(scope="module")
def torch():
    return pytest.importorskip("torch")


# -- scans of non-contiguous inputs ------------------------------------------------------------------
SCANS = {
    "cumsum": lambda t, d: t.cumsum(d),
    "cumprod": lambda t, d: t.cumprod(d),
    "logcumsumexp": lambda t, d: t.logcumsumexp(d),
    "cummax": lambda t, d: t.cummax(d)[0],
    "cummax_indices": lambda t, d: t.cummax(d)[1],
    "cummin": lambda t, d: t.cummin(d)[0],
    "softmax": lambda t, d: t.softmax(d),
    "log_softmax": lambda t, d: t.log_softmax(d),
    "prod_dim": lambda t, d: t.prod(d, keepdim=True),
    "tril": lambda t, d: t.tril(),
    "triu": lambda t, d: t.triu(1),
}
LAYOUTS = {
    "transposed": lambda lib: lib.arange(12.0).reshape(3, 4).t() / 7,
    "permuted_3d": lambda lib: lib.arange(24.0).reshape(2, 3, 4).permute(2, 0, 1) / 11,
    "channels_last": lambda lib: (lib.arange(120.0).reshape(2, 3, 4, 5) / 50).contiguous(
        memory_format=lib.channels_last),
    "expanded": lambda lib: (lib.arange(5.0) / 3).expand(3, 5),
    "sliced": lambda lib: (lib.arange(30.0).reshape(5, 6) / 9)[::2, 1::2],
}


@pytest.mark.parametrize("layout", sorted(LAYOUTS))
@pytest.mark.parametrize("name", sorted(SCANS))
def test_scan_results_are_contiguous_as_pytorch(torch, name, layout):
    def snippet(lib):
        x = LAYOUTS[layout](lib)
        if name in ("tril", "triu") and x.dim() < 2:
            return None
        out = SCANS[name](x, 1 if x.dim() > 1 else 0)
        return out, out.stride(), out.is_contiguous(), out.view(-1)

    assert_same(snippet, torch)


def test_cumsum_of_transposed_input_views_flat_with_gradient(torch):
    # the fuzz's program: a scan of a transposed view, then .view(-1), then a backward
    def snippet(lib):
        w = lib.tensor([[1.0, -2.0, 3.0], [4.0, 5.0, -6.0]], dtype=lib.float64, requires_grad=True)
        y = w.t().cumsum(0).view(-1)
        (y * lib.arange(6.0, dtype=lib.float64)).sum().backward()
        return y, w.grad, y.grad_fn.next_functions[0][0].name()

    assert_same(snippet, torch)


# -- a view PyTorch has not regenerated yet is a leaf to its in-place check ----------------------------
VIEW_KINDS = {
    "select": lambda t: t[0],
    "slice": lambda t: t[:, 1:],
    "view": lambda t: t.view(-1),
    "t": lambda t: t.t(),
    "diagonal": lambda t: t.diagonal(),
    "unsqueeze": lambda t: t.unsqueeze(0),
}
IN_PLACE = {
    "relu_": lambda v, lib: v.relu_(),
    "add_": lambda v, lib: v.add_(1),
    "mul_": lambda v, lib: v.mul_(2),
    "zero_": lambda v, lib: v.zero_(),
    "copy_": lambda v, lib: v.copy_(lib.ones(v.shape)),
    "clamp_": lambda v, lib: v.clamp_(-1.0, 1.0),
    "setitem": lambda v, lib: v.__setitem__(0, 5.0),
}
# what PyTorch counts as looking at the view's grad_fn (it regenerates it then, and the in-place op is
# accepted afterwards), and what it does not
TOUCHES = {
    "nothing": lambda v, lib: None,
    "grad_fn": lambda v, lib: v.grad_fn,
    "is_leaf": lambda v, lib: v.is_leaf,
    "repr": lambda v, lib: repr(v),
    "used_in_mul": lambda v, lib: v * 2,
    "used_in_view": lambda v, lib: v.view(-1),
    "used_in_sum": lambda v, lib: v.sum(),
    "used_under_no_grad": lambda v, lib: _no_grad(lib, lambda: v * 2),
    "requires_grad": lambda v, lib: v.requires_grad,
    "detach": lambda v, lib: v.detach(),
    "version": lambda v, lib: v._version,
    "tolist": lambda v, lib: v.tolist(),
    "shape": lambda v, lib: v.shape,
    "retain_grad": lambda v, lib: v.retain_grad(),
    "grad": lambda v, lib: v.grad,
    "output_nr": lambda v, lib: v.output_nr,
    "comparison": lambda v, lib: v == 1,
}


def _no_grad(lib, fn):
    with lib.no_grad():
        return fn()


def _base_gains_history(lib, view_kind, touch, op):
    w = lib.tensor([[1.0, -2.0], [3.0, 4.0]], requires_grad=True)
    p = lib.tensor([[0.5, 1.5], [-1.0, 2.0]])
    v = VIEW_KINDS[view_kind](p)
    p.sub_(w)  # p now has a history, v (made before) had none
    TOUCHES[touch](v, lib)
    try:
        IN_PLACE[op](v, lib)
        outcome = "ran"
    except RuntimeError as exc:
        outcome = normalise(str(exc))
    # looked at only now: what the refusal (or the op) left behind
    return outcome, p.detach(), p._version, v.detach(), v.requires_grad


@pytest.mark.parametrize("op", sorted(IN_PLACE))
@pytest.mark.parametrize("view_kind", sorted(VIEW_KINDS))
def test_in_place_on_view_whose_base_got_a_history_later(torch, view_kind, op):
    assert_same(lambda lib: _base_gains_history(lib, view_kind, "nothing", op), torch)


@pytest.mark.parametrize("touch", sorted(TOUCHES))
def test_what_counts_as_looking_at_a_regenerated_view(torch, touch):
    assert_same(lambda lib: _base_gains_history(lib, "select", touch, "relu_"), torch)


def test_view_of_such_a_view_and_a_sibling_view_are_leaves_too(torch):
    def nested(lib):
        w = lib.tensor([[1.0, -2.0], [3.0, 4.0]], requires_grad=True)
        p = lib.tensor([[0.5, 1.5], [-1.0, 2.0]])
        v2 = p[0][1:]
        p.sub_(w)
        return v2.relu_()

    def sibling(lib):
        w = lib.tensor([1.0, -2.0], requires_grad=True)
        p = lib.tensor([[0.5, 1.5], [-1.0, 2.0]])
        v, v2 = p[0], p[1]
        v.sub_(w)  # the view written through is looked at (PyTorch's rebase_history): its sibling is not
        try:
            v2.relu_()
        except RuntimeError as exc:
            return str(exc), v.grad_fn.name(), p.grad_fn.name()
        return "ran"

    def written_view_is_seen(lib):
        c = lib.tensor(2.0, requires_grad=True)
        z = lib.zeros(2, 3)
        zv = z[:, 1]
        zv.mul_(c)
        zv.add_(c)  # zv was the view written through: not a leaf
        (z * lib.arange(6.0).reshape(2, 3)).sum().backward()
        return z, zv, c.grad

    assert_same(nested, torch)
    assert_same(sibling, torch)
    assert_same(written_view_is_seen, torch)


def test_regenerated_view_backward_after_being_looked_at(torch):
    def snippet(lib):
        w = lib.tensor([[1.0, -2.0], [3.0, 4.0]], requires_grad=True)
        p = lib.tensor([[0.5, 1.5], [-1.0, 2.0]])
        v = p[:, 0]
        p.sub_(w)
        v.grad_fn  # noqa: B018  (the look that makes the in-place op legal)
        v.mul_(3)
        (p * lib.tensor([[1.0, 2.0], [3.0, 4.0]])).sum().backward()
        return p, v, w.grad, type(v).__name__

    assert_same(snippet, torch)


# -- views made under no_grad of a base that gets a history later ----------------------------------
def _no_grad_view_of_plain(lib, view_now: bool, derived, op):
    w = lib.tensor([[1.0, -2.0], [3.0, 4.0]], requires_grad=True)
    c = lib.tensor(1.5, requires_grad=True)
    p = lib.tensor([[0.5, 1.5], [-1.0, 2.0]])
    with lib.no_grad():
        u = p[0]
    v = derived(u) if view_now else None
    p.sub_(w)
    try:
        if v is None:
            v = derived(u)
        op(v, c, lib)
        outcome = "ran"
    except RuntimeError as exc:
        outcome = normalise(str(exc))
    return outcome, p.detach(), p._version


NO_GRAD_OPS = {
    "add_1": lambda v, c, lib: v.add_(1),
    "copy_plain": lambda v, c, lib: v.copy_(lib.tensor(3.0)),
    "relu_": lambda v, c, lib: v.relu_(),
    "copy_grad": lambda v, c, lib: v.copy_(c * 2),
    "mul_grad": lambda v, c, lib: v.mul_(c),
    "setitem_grad": lambda v, c, lib: v.__setitem__(..., c * 3),
    "used_out_of_place": lambda v, c, lib: v * 2,
}


@pytest.mark.parametrize("op", sorted(NO_GRAD_OPS))
@pytest.mark.parametrize("derived", ["self", "slice"])
@pytest.mark.parametrize("view_now", [True, False])
def test_no_grad_view_of_a_base_that_gets_a_history(torch, view_now, derived, op):
    fn = {"self": lambda u: u, "slice": lambda u: u[1:]}[derived]
    assert_same(lambda lib: _no_grad_view_of_plain(lib, view_now, fn, NO_GRAD_OPS[op]), torch)


# -- refusals come before any write -----------------------------------------------------------------
def _state_after(lib, fn):
    w = lib.tensor([[1.0, -2.0, -3.0], [4.0, 0.5, -6.0]], dtype=lib.float64, requires_grad=True)
    a = w * 1
    p = lib.tensor([[0.25, -0.75, 1.25], [2.0, 0.0, -0.5]], dtype=lib.float64)
    try:
        fn(lib, w, a, p)
        outcome = "ran"
    except RuntimeError as exc:
        outcome = normalise(str(exc))
    return outcome, w.detach(), a.detach(), p.detach(), a._version, p._version


def _stale_split_view(lib, p):
    v = p.split(1, 0)[0]        # a view of a plain tensor, output of a multi-view op
    p[p > 0.5] = lib.tensor(1.5, requires_grad=True) * 1  # the base gets a history: v is forbidden now
    return v


REFUSED_BEFORE_WRITING = {
    "copy_from_stale_split_view": lambda lib, w, a, p: a[0:1].copy_(_stale_split_view(lib, p)),
    "setitem_from_stale_split_view": lambda lib, w, a, p: a.__setitem__(
        lib.tensor([0]), _stale_split_view(lib, p)),
    "mul_by_stale_split_view": lambda lib, w, a, p: a.mul_(_stale_split_view(lib, p)),
    "copy_from_stale_no_grad_view": lambda lib, w, a, p: a.copy_(_stale_no_grad_view(lib, p)),
    "leaf_check_before_overlap_check": lambda lib, w, a, p: w.mul_(w.split(1, 0)[0]),
    "leaf_view_check_before_overlap_check": lambda lib, w, a, p: w[0].copy_(w[1]),
    "copy_into_unbind_output_view": lambda lib, w, a, p: a.unbind(0)[0][1:].copy_(lib.ones(2)),
    "write_through_no_grad_view": lambda lib, w, a, p: _no_grad(lib, lambda: a[0]).copy_(lib.ones(3) * 7),
    "write_through_no_grad_view_of_plain": lambda lib, w, a, p: _later_history_write(lib, w, p),
}


def _stale_no_grad_view(lib, p):
    with lib.no_grad():
        v = p[:]
    p.mul_(lib.tensor(2.0, dtype=lib.float64, requires_grad=True))
    return v


def _later_history_write(lib, w, p):
    with lib.no_grad():
        v = p[1]
    p.add_(w)
    v.add_(1)


@pytest.mark.parametrize("case", sorted(REFUSED_BEFORE_WRITING))
def test_refused_in_place_ops_write_nothing(torch, case):
    got = assert_same(lambda lib: _state_after(lib, REFUSED_BEFORE_WRITING[case]), torch)
    assert got[0][1][0] != "ran", got  # every row is a refusal in both


# -- random programs over a larger vocabulary --------------------------------------------------------
def _other(env, t, b):
    """A tensor of the program that broadcasts to ``t`` (else the 0-d sum of one)."""
    o = env[b % len(env)]
    try:
        if np.broadcast_shapes(tuple(o.shape), tuple(t.shape)) == tuple(t.shape):
            return o
    except ValueError:
        pass
    return o.sum()


def _no_grad_view_op(lib, t, a, b, c):
    with lib.no_grad():
        return t.view(-1) if a % 2 else t[...]


MORE_VIEWS = {
    "unbind": lambda lib, t, a, b, c: t.unbind(base_fuzz._dim(t, a))[b % t.shape[base_fuzz._dim(t, a)]],
    "split": lambda lib, t, a, b, c: t.split(1, base_fuzz._dim(t, a))[b % t.shape[base_fuzz._dim(t, a)]],
    "no_grad_view": _no_grad_view_op,
}
MORE_OUT_OF_PLACE = {
    "cumsum": lambda lib, t, a, b, c: t.cumsum(base_fuzz._dim(t, a)),
    "cumprod": lambda lib, t, a, b, c: t.cumprod(base_fuzz._dim(t, a)),
    "logcumsumexp": lambda lib, t, a, b, c: t.logcumsumexp(base_fuzz._dim(t, a)),
    "softmax": lambda lib, t, a, b, c: t.softmax(base_fuzz._dim(t, a)),
}
WITH_OTHER = {
    "sub_t": lambda lib, env, t, a, b, c: t.sub_(_other(env, t, b)),
    "mul_t": lambda lib, env, t, a, b, c: t.mul_(_other(env, t, b)),
    "copy_t": lambda lib, env, t, a, b, c: t.copy_(_other(env, t, b)),
    "add_t": lambda lib, env, t, a, b, c: t + _other(env, t, b),
}
OPS = {**base_fuzz.OPS, **MORE_VIEWS, **MORE_OUT_OF_PLACE}
NEEDS_DIMS = {**base_fuzz.NEEDS_DIMS, "unbind": 1, "split": 1, "cumsum": 1, "cumprod": 1, "logcumsumexp": 1,
              "softmax": 1}
# PyTorch leaves overlapping reads and writes undefined (the fuzz sets them aside too)
_OVERLAP = "to a single memory location"


def _values(t):
    return np.array(t.detach().tolist(), dtype=np.float64)


def run(lib, program) -> list:
    f64 = lib.float64
    w = lib.tensor(base_fuzz.W0, dtype=f64, requires_grad=True)
    c = lib.tensor(1.5, dtype=f64, requires_grad=True)
    env = [w, w * 1, lib.tensor(base_fuzz.P0, dtype=f64)]
    record = []
    for name, i, a, b in program:
        t = env[i % len(env)]
        if t.dim() < NEEDS_DIMS.get(name, 0) or 0 in t.shape:
            continue
        try:
            out = WITH_OTHER[name](lib, env, t, a, b, c) if name in WITH_OTHER else OPS[name](lib, t, a, b, c)
        except Exception as exc:  # the error and the state it left are compared
            kind, text = type(exc).__name__, normalise(str(exc))
            if _OVERLAP in text:
                return record + [("overlap",)]
            record.append((name, kind, text, [_values(x) for x in env]))
            continue
        if out is not t:
            env.append(out)
        # values, shapes, flags and versions only: nothing here looks at a grad_fn, so a view PyTorch has
        # not regenerated stays unregenerated (the base property test looks at every grad_fn)
        record.append((name, [(_values(x), tuple(x.shape), x.requires_grad, x._version) for x in env]))
    try:
        loss = base_fuzz.weighted_loss(lib, env)
        if loss is not None:
            loss.backward()
            record.append(("grads", tuple(None if g is None else _values(g) for g in (w.grad, c.grad))))
    except Exception as exc:
        text = normalise(str(exc))
        record.append(("backward", type(exc).__name__,
                       base_fuzz._MODIFIED if text.startswith(base_fuzz._MODIFIED) else text))
    return record


_step = st.tuples(st.sampled_from(sorted(OPS) + sorted(WITH_OTHER)), st.integers(0, 40), st.integers(0, 40),
                  st.integers(0, 40))


@settings(max_examples=1500, deadline=None, derandomize=True)
@given(program=st.lists(_step, min_size=1, max_size=10))
def test_random_programs_with_more_ops_match_pytorch(program):
    torch = pytest.importorskip("torch")
    import warnings

    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        expected = run(torch, program)
        got = run(tinytorch, program)
    if expected and expected[-1] == ("overlap",) or got and got[-1] == ("overlap",):
        n = min(len(expected), len(got)) - 1
        expected, got = expected[:n], got[:n]
    elif any(r[0] == "backward" and _OVERLAP in r[2] for r in expected[-1:] + got[-1:]):
        # an expanded view written through: which of two failing nodes PyTorch's engine runs first is
        # its sequence-number order (test_autograd_views_second_order.py's xfail row)
        expected, got = expected[:-1], got[:-1]
    for step, (g, e) in enumerate(zip(got, expected)):
        assert base_fuzz._same(g, e), f"program {program}\nstep {step}:\ntinytorch: {g}\npytorch:   {e}"
    assert len(got) == len(expected)


# -- a forbidden view's error comes before the op's own ------------------------------------------------
@pytest.mark.parametrize("use", ["view_that_does_not_fit", "view_of_a_wrong_size", "sum_over_a_missing_dim",
                                 "index_out_of_bounds", "function_cat", "function_view_as_wrong", "ok_under_no_grad"])
def test_a_stale_no_grad_view_fails_first_on_its_history(torch, use):
    """A view made under no_grad whose base was then modified in place: PyTorch collects an op's input edges
    before running it, so the view's error comes before the op's own complaint about its arguments."""
    def snippet(lib):
        w = lib.ones(3, 4, dtype=lib.float64, requires_grad=True)
        b = w * 1
        with lib.no_grad():
            v = b.t()
        b.add_(1)
        if use == "view_that_does_not_fit":
            return v.view(-1)
        if use == "view_of_a_wrong_size":
            return v.view(5)
        if use == "sum_over_a_missing_dim":
            return v.sum(7)
        if use == "index_out_of_bounds":
            return v[9]
        if use == "function_cat":
            return lib.cat([v, v[:1, :2]])
        if use == "function_view_as_wrong":
            return lib.reshape(v, (5,))
        with lib.no_grad():
            return v.reshape(2, 6) * 2, type(v).__name__

    assert_same(snippet, torch)
