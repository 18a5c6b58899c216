"""One program, traced under PyTorch and under tinytorch: the texts fx prints and the numbers the traced module
computes must be the same.

A case is Python source that names ``torch``, ``nn``, ``F``, ``fx`` and ``math``; ``load`` runs it with those bound
to one library, in a namespace called ``fx_case`` (so the user's classes and functions have one module name under
both, as fx's text names them)."""
from __future__ import annotations

import contextlib
import importlib
import io
import math
import re

import numpy as np

LIBRARIES = ("torch", "tinytorch")


def load(source: str, library: str) -> dict:
    torch = importlib.import_module(library)
    importlib.import_module(f"{library}.fx.passes.shape_prop")
    ns = {"__name__": "fx_case", "torch": torch, "nn": torch.nn, "F": torch.nn.functional, "fx": torch.fx,
          "math": math}
    exec(compile(source, "<fx case>", "exec"), ns)
    return ns


def tabular(graph) -> str:
    out = io.StringIO()
    with contextlib.redirect_stdout(out):
        graph.print_tabular()
    # object addresses differ from run to run (both libraries print 12 hex digits, so the columns line up alike)
    return re.sub(r"0x[0-9a-f]+", "0x?", out.getvalue())


def texts(gm, with_table: bool = True) -> dict:
    out = {"graph": str(gm.graph), "code": gm.code}
    if with_table:
        out["tabular"] = tabular(gm.graph)
    return out


def traced_pair(source: str, make, seed: int = 0) -> dict:
    """{library: (GraphModule, namespace)}: ``make(namespace)`` builds the module, after the same seed."""
    pairs = {}
    for library in LIBRARIES:
        ns = load(source, library)
        ns["torch"].manual_seed(seed)
        pairs[library] = (make(ns), ns)
    return pairs


def assert_same_texts(pairs: dict, with_table: bool = True) -> dict:
    theirs = texts(pairs["torch"][0], with_table)
    ours = texts(pairs["tinytorch"][0], with_table)
    for key in theirs:
        assert ours[key] == theirs[key], f"{key} differs:\n--- PyTorch\n{theirs[key]}\n--- tinytorch\n{ours[key]}"
    return ours


def _arrays(value) -> list:
    if isinstance(value, (tuple, list)):
        return [a for v in value for a in _arrays(v)]
    if isinstance(value, dict):
        return [a for v in value.values() for a in _arrays(v)]
    return [value.detach().numpy() if hasattr(value, "detach") else np.asarray(value)]


def run_both(pairs: dict, inputs: list, fn=None) -> list:
    """The outputs of each library's module (or of ``fn(module, ns, args)``) on the same inputs."""
    outs = []
    for library in LIBRARIES:
        gm, ns = pairs[library]
        torch = ns["torch"]
        args = [torch.tensor(x) if isinstance(x, np.ndarray) else x for x in inputs]
        args = [{k: torch.tensor(v) for k, v in a.items()} if isinstance(a, dict) else a for a in args]
        outs.append(fn(gm, ns, args) if fn is not None else gm(*args))
    return outs


def assert_same_numbers(theirs, ours, rtol: float = 1e-6, atol: float = 1e-6) -> None:
    a, b = _arrays(theirs), _arrays(ours)
    assert len(a) == len(b)
    for x, y in zip(a, b):
        np.testing.assert_allclose(y, x, rtol=rtol, atol=atol, equal_nan=True)
