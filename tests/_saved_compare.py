"""Comparing the ``_saved_<name>`` attributes of the graph nodes tinytorch and PyTorch record for the same
program: the graphs of op_db's samples are walked side by side (node for node while the names agree) and,
for every node class tinytorch also has, the set of names and each value are compared (tensors by shape,
dtype and values, None where PyTorch's is None; numbers, tuples, strings exactly). ``python
tests/_saved_compare.py`` prints the differences per node class; ``tests/test_autograd_saved.py`` holds
them to ``saved_known.py``."""
from __future__ import annotations

import math
import warnings

import numpy as np

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


def _short(v) -> str:
    if isinstance(v, tuple) and v and v[0] == "tensor":
        return f"tensor{v[1]}:{v[2]}"
    if isinstance(v, tuple):
        return "(" + ", ".join(_short(x) for x in v) + ")"
    return repr(v)[:60]


def walk(torch, limit: int = 3, dtypes=("float64",)) -> dict:
    """{node class: {problem: first op_db entry showing it}} over op_db's differentiable samples."""
    from torch.testing._internal.common_methods_invocations import op_db

    found: dict = {}
    seen_ok: set = set()
    for opinfo in op_db:
        tt_op = O.tinytorch_op(opinfo, torch)
        if tt_op is None or not opinfo.supports_autograd:
            continue
        for dt in dtypes:
            for sample in O.samples(opinfo, torch, dt, limit):
                for cls, problem in compare_sample(opinfo, tt_op, sample, torch):
                    found.setdefault(cls, {}).setdefault(problem, O.entry_id(opinfo))
    return found


if __name__ == "__main__":
    import sys

    import torch as _torch

    res = walk(_torch, int(sys.argv[1]) if len(sys.argv) > 1 else 3)
    print(len(res), "node classes differ")
    for cls in sorted(res):
        for problem, entry in res[cls].items():
            print(f"{cls}: {problem}   [{entry}]")
