"""Comparing the ``_saved_<name>`` attributes of the graph nodes tinytorch and PyTorch record for the same
program: the graphs of op_db's samples are walked side by side (node for node while the names agree) and,
for every node class tinytorch also has, the set of names and each value are compared (tensors by shape,
dtype and values, None where PyTorch's is None; numbers, tuples, strings exactly). ``python
tests/_saved_compare.py`` prints the differences per node class (``released``: after a backward that freed
the graph, which read PyTorch's "freed" error, which None); ``tests/autograd/test_autograd_saved.py``
holds them to ``saved_known.py``."""
from __future__ import annotations

import math
import warnings

import numpy as np
import pytest

import tinytorch as tt
import _opinfo as O

PREFIX = "_saved_"


def saved_names(node) -> list:
    return sorted(n[len(PREFIX):] for n in dir(node) if n.startswith(PREFIX))


def _value(x, lib):
    """A comparable form of one saved value."""
    if isinstance(x, lib.Tensor):
        a = x.detach()
        if a.is_complex():
            a = lib.view_as_real(a.resolve_conj())
        dtype = str(x.dtype).split(".")[-1]
        return ("tensor", tuple(x.shape), dtype, np.array(a.double().tolist() if a.dtype != lib.bool else a.tolist(),
                                                          dtype=np.float64))
    if isinstance(x, (list, tuple)):
        return tuple(_value(v, lib) for v in x)
    if isinstance(x, float) and math.isnan(x):
        return "nan"
    return x


def same_value(a, b) -> bool:
    if isinstance(a, tuple) and a and a[0] == "tensor":
        if not (isinstance(b, tuple) and b and b[0] == "tensor"):
            return False
        return a[1] == b[1] and a[2] == b[2] and np.allclose(a[3], b[3], rtol=1e-5, atol=1e-6, equal_nan=True)
    if isinstance(a, tuple) and isinstance(b, tuple):
        return len(a) == len(b) and all(same_value(x, y) for x, y in zip(a, b))
    if isinstance(a, float) or isinstance(b, float):
        try:
            return math.isclose(float(a), float(b), rel_tol=1e-6, abs_tol=1e-9)
        except (TypeError, ValueError):
            return False
    return a == b and type(a) is type(b) if not isinstance(a, (int, bool)) else a == b and isinstance(b, type(a))


def _read(node, name, lib):
    try:
        return _value(getattr(node, PREFIX + name), lib)
    except Exception as e:  # noqa: BLE001 - reported as the value
        return ("raises", type(e).__name__)


def _walk(nt, ntt, out, seen) -> None:
    stack = [(nt, ntt)]
    while stack:
        a, b = stack.pop()
        if a is None or b is None or id(a) in seen:
            continue
        seen.add(id(a))
        out.append((a, b))
        fa, fb = a.next_functions, b.next_functions
        if type(a).__name__ != type(b).__name__ or len(fa) != len(fb):
            continue
        for (x, _), (y, _) in zip(fa, fb):
            stack.append((x, y))


def compare_sample(opinfo, tt_op, sample, torch) -> list:
    """[(node class, problem)] for one sample: 'names: ...' or 'value <name>: ...'."""
    leaves = {}
    try:
        args = O.to_tt((sample.input,) + tuple(sample.args), torch, leaves)
        kwargs = O.to_tt(dict(sample.kwargs), torch, leaves)
    except O.Unsupported:
        return []
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        try:
            torch.manual_seed(1234)
            expected = opinfo.op(sample.input, *sample.args, **sample.kwargs)
            tt.manual_seed(1234)
            got = tt_op(*args, **kwargs)
        except Exception:  # noqa: BLE001 - a sample one library refuses: the op_db walk compares that
            return []
    out_t = O._flat_tensors(expected, torch, torch.Tensor)
    out_tt = O._flat_tensors(got, torch, tt.Tensor)
    if len(out_t) != len(out_tt):
        return []
    problems = []
    for a, b in zip(out_t, out_tt):
        pairs = []
        _walk(a.grad_fn, b.grad_fn, pairs, set())
        for nt, ntt in pairs:
            name = type(nt).__name__
            if name != type(ntt).__name__ or name == "AccumulateGrad":
                continue
            want, have = saved_names(nt), saved_names(ntt)
            if want != have:
                problems.append((name, f"names: PyTorch {want}, tinytorch {have}"))
                continue
            for n in want:
                e, g = _read(nt, n, torch), _read(ntt, n, tt)
                if not same_value(e, g):
                    problems.append((name, f"value {n}: PyTorch {_short(e)}, tinytorch {_short(g)}"))
    return problems


def _released(node, name, lib):
    """What ``_saved_<name>`` reads after a backward that did not retain the graph: "freed" (PyTorch's error),
    None, another error, or the value (a tensor only as "tensor": PyTorch frees every tensor it saved)."""
    try:
        v = getattr(node, PREFIX + name)
    except RuntimeError as e:
        return "freed" if str(e).startswith("Trying to backward through the graph a second time") else (
            "raises", str(e)[:60])
    except Exception as e:  # noqa: BLE001 - reported as the value
        return ("raises", type(e).__name__)
    if isinstance(v, lib.Tensor) or (isinstance(v, (tuple, list)) and any(isinstance(t, lib.Tensor) for t in v)):
        return "tensor"
    return _value(v, lib)


def _backward_all(outs, lib) -> bool:
    """Backward from every output that requires grad, with ones, the graph not retained; False if it raised."""
    outs = [o for o in outs if o.requires_grad]
    if not outs:
        return False
    try:
        lib.autograd.backward(outs, [lib.ones_like(o) for o in outs])
    except Exception:  # noqa: BLE001 - a sample whose backward one library refuses: compared elsewhere
        return False
    return True


def compare_released(opinfo, tt_op, sample, torch) -> list:
    """[(node class, problem)] for one sample, after backward: which ``_saved_<name>`` raise PyTorch's "freed"
    error, which read None, and the non-tensor values (still readable)."""
    leaves = {}
    try:
        args = O.to_tt((sample.input,) + tuple(sample.args), torch, leaves)
        kwargs = O.to_tt(dict(sample.kwargs), torch, leaves)
    except O.Unsupported:
        return []
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        try:
            torch.manual_seed(1234)
            expected = opinfo.op(sample.input, *sample.args, **sample.kwargs)
            tt.manual_seed(1234)
            got = tt_op(*args, **kwargs)
        except Exception:  # noqa: BLE001 - a sample one library refuses: the op_db walk compares that
            return []
        out_t = O._flat_tensors(expected, torch, torch.Tensor)
        out_tt = O._flat_tensors(got, torch, tt.Tensor)
        if len(out_t) != len(out_tt):
            return []
        pairs, seen = [], set()
        for a, b in zip(out_t, out_tt):
            _walk(a.grad_fn, b.grad_fn, pairs, seen)
        if not _backward_all(out_t, torch) or not _backward_all(out_tt, tt):
            return []
    problems = []
    for nt, ntt in pairs:
        name = type(nt).__name__
        if name != type(ntt).__name__ or name == "AccumulateGrad":
            continue
        want, have = saved_names(nt), saved_names(ntt)
        if want != have:
            continue  # the names are compared before backward (compare_sample)
        for n in want:
            e, g = _released(nt, n, torch), _released(ntt, n, tt)
            if not same_value(e, g):
                problems.append((name, f"after backward {n}: PyTorch {_short(e)}, tinytorch {_short(g)}"))
    return problems


def walk_released(torch, limit: int = 3, dtypes=("float64",), only=None) -> dict:
    """{node class: {problem: first op_db entry showing it}} of ``compare_released`` over op_db's samples."""
    from torch.testing._internal.common_methods_invocations import op_db

    found: dict = {}
    for opinfo in op_db:
        tt_op = O.tinytorch_op(opinfo, torch)
        if tt_op is None or not opinfo.supports_autograd:
            continue
        if only and not any(w in O.entry_id(opinfo) for w in only):
            continue
        for dt in dtypes:
            for sample in O.samples(opinfo, torch, dt, limit):
                for cls, problem in compare_released(opinfo, tt_op, sample, torch):
                    found.setdefault(cls, {}).setdefault(problem, O.entry_id(opinfo))
    return found


def _packed(lib, fn) -> tuple:
    """What ``fn()`` hands the pack hook of ``saved_tensors_hooks``, in order: (shape, dtype) per tensor,
    with its result (None when it raises)."""
    seen = []

    def pack(t):
        seen.append((tuple(t.shape), str(t.dtype).split(".")[-1]))
        return t

    with lib.autograd.graph.saved_tensors_hooks(pack, lambda t: t):
        try:
            out = fn()
        except Exception:  # noqa: BLE001 - a sample one library refuses
            return None, None
    return tuple(seen), out


def compare_packs(opinfo, tt_op, sample, torch) -> str | None:
    """None, or how the tensors the pack hook sees (one op's nodes, in order) differ from PyTorch's."""
    leaves = {}
    try:
        args = O.to_tt((sample.input,) + tuple(sample.args), torch, leaves)
        kwargs = O.to_tt(dict(sample.kwargs), torch, leaves)
    except O.Unsupported:
        return None
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        torch.manual_seed(1234)
        want, expected = _packed(torch, lambda: opinfo.op(sample.input, *sample.args, **sample.kwargs))
        tt.manual_seed(1234)
        have, got = _packed(tt, lambda: tt_op(*args, **kwargs))
    if want is None or have is None or want == have:
        return None
    return f"PyTorch {want}, tinytorch {have}"


def _pack_orders(lib, fn) -> dict:
    """{node class: (the names of its tensor ``_saved_<name>`` in the order the pack hook saw them,)} for
    the graph ``fn()`` records (under identity hooks ``_saved_<name>`` is the tensor packed: the same
    memory, shape and strides)."""
    order = []

    def pack(t):
        order.append(t)
        return t

    with lib.autograd.graph.saved_tensors_hooks(pack, lambda t: t):
        try:
            out = fn()
        except Exception:  # noqa: BLE001
            return {}
    def key(t):
        if t.layout != lib.strided:  # a sparse tensor has no one memory: the object itself
            return id(t), tuple(t.shape), str(t.dtype).split(".")[-1]
        return t.data_ptr(), tuple(t.shape), t.stride(), str(t.dtype).split(".")[-1]

    position, clash = {}, set()
    for i, t in enumerate(order):
        k = key(t)
        if k in position or t.numel() == 0:  # the same memory packed twice, or none at all: ambiguous
            clash.add(k)
        position.setdefault(k, i)
    for k in clash:
        position.pop(k, None)
    found = {}
    stack, seen = [t.grad_fn for t in O._flat_tensors(out, None, lib.Tensor)], set()
    while stack:
        node = stack.pop()
        if node is None or id(node) in seen:
            continue
        seen.add(id(node))
        named = []
        for n in saved_names(node):
            try:
                v = getattr(node, PREFIX + n)
            except Exception:  # noqa: BLE001
                continue
            for k, t in enumerate(v if isinstance(v, (tuple, list)) else (v,)):
                if isinstance(t, lib.Tensor) and key(t) in position:
                    named.append((position[key(t)], n if k == 0 else f"{n}[{k}]"))
        found.setdefault(type(node).__name__, tuple(n for _, n in sorted(named)))
        stack.extend(f for f, _ in node.next_functions)
    return found


def walk_orders(torch, limit: int = 3, dtypes=("float64",), only=None) -> dict:
    """{node class: (PyTorch's pack order, tinytorch's)} where they differ (both orders of the same
    node class, over op_db's samples)."""
    from torch.testing._internal.common_methods_invocations import op_db

    found: dict = {}
    for opinfo in op_db:
        tt_op = O.tinytorch_op(opinfo, torch)
        if tt_op is None or not opinfo.supports_autograd:
            continue
        if only and not any(w in O.entry_id(opinfo) for w in only):
            continue
        for dt in dtypes:
            for sample in O.samples(opinfo, torch, dt, limit):
                leaves = {}
                try:
                    args = O.to_tt((sample.input,) + tuple(sample.args), torch, leaves)
                    kwargs = O.to_tt(dict(sample.kwargs), torch, leaves)
                except O.Unsupported:
                    continue
                with warnings.catch_warnings():
                    warnings.simplefilter("ignore")
                    want = _pack_orders(torch, lambda: opinfo.op(sample.input, *sample.args, **sample.kwargs))
                    have = _pack_orders(tt, lambda: tt_op(*args, **kwargs))
                for cls, w in want.items():
                    h = have.get(cls)
                    if h is not None and set(h) == set(w) and h != w:
                        found.setdefault(cls, (w, h, O.entry_id(opinfo)))
    return found


def walk_packs(torch, limit: int = 3, dtypes=("float64",), only=None) -> dict:
    """{op_db entry: first difference} of the pack hook's order over op_db's differentiable samples."""
    from torch.testing._internal.common_methods_invocations import op_db

    found: dict = {}
    for opinfo in op_db:
        tt_op = O.tinytorch_op(opinfo, torch)
        if tt_op is None or not opinfo.supports_autograd:
            continue
        if only and not any(w in O.entry_id(opinfo) for w in only):
            continue
        for dt in dtypes:
            for sample in O.samples(opinfo, torch, dt, limit):
                diff = compare_packs(opinfo, tt_op, sample, torch)
                if diff is not None:
                    found.setdefault(O.entry_id(opinfo), diff)
    return found


def _short(v) -> str:
    if isinstance(v, tuple) and v and v[0] == "tensor":
        return f"tensor{v[1]}:{v[2]}"
    if isinstance(v, tuple):
        return "(" + ", ".join(_short(x) for x in v) + ")"
    return repr(v)[:60]


def walk(torch, limit: int = 3, dtypes=("float64",), only=None) -> dict:
    """{node class: {problem: first op_db entry showing it}} over op_db's differentiable samples (those of
    the entries whose name contains one of ``only``'s strings, when given)."""
    from torch.testing._internal.common_methods_invocations import op_db

    found: dict = {}
    for opinfo in op_db:
        tt_op = O.tinytorch_op(opinfo, torch)
        if tt_op is None or not opinfo.supports_autograd:
            continue
        if only and not any(w in O.entry_id(opinfo) for w in only):
            continue
        for dt in dtypes:
            for sample in O.samples(opinfo, torch, dt, limit):
                for cls, problem in compare_sample(opinfo, tt_op, sample, torch):
                    found.setdefault(cls, {}).setdefault(problem, O.entry_id(opinfo))
    return found


if __name__ == "__main__":
    import sys

    _torch = pytest.importorskip("torch")

    if len(sys.argv) > 1 and sys.argv[1] == "orders":
        orders = walk_orders(_torch, int(sys.argv[2]) if len(sys.argv) > 2 else 3, only=sys.argv[3:] or None)
        print(len(orders), "node classes pack in another order")
        for cls, (w, h, entry) in sorted(orders.items()):
            print(f"{cls}: PyTorch {w}, tinytorch {h}   [{entry}]")
        raise SystemExit
    if len(sys.argv) > 1 and sys.argv[1] == "packs":
        packs = walk_packs(_torch, int(sys.argv[2]) if len(sys.argv) > 2 else 3, only=sys.argv[3:] or None)
        print(len(packs), "op_db entries pack differently")
        for entry, diff in sorted(packs.items()):
            print(f"{entry}: {diff}")
        raise SystemExit
    if len(sys.argv) > 1 and sys.argv[1] == "released":
        rel = walk_released(_torch, int(sys.argv[2]) if len(sys.argv) > 2 else 3, only=sys.argv[3:] or None)
        print(len(rel), "node classes read otherwise after backward")
        for cls in sorted(rel):
            for problem, entry in rel[cls].items():
                print(f"{cls}: {problem}   [{entry}]")
        raise SystemExit
    res = walk(_torch, int(sys.argv[1]) if len(sys.argv) > 1 else 3, only=sys.argv[2:] or None)
    print(len(res), "node classes differ")
    for cls in sorted(res):
        for problem, entry in res[cls].items():
            print(f"{cls}: {problem}   [{entry}]")
