"""The import graph of tinytorch's own modules (``tests/_import_graph.py`` reads it from the source).

Issue 18's goal: the largest import cycle, counting imports written inside functions, at most 3
modules, and at most 30 imports of tinytorch modules written inside functions. The ceilings below are
where the code stands; they only go down (lower them when a change lowers the figures)."""
import _import_graph

LARGEST_CYCLE_CEILING = 2
LOCAL_IMPORTS_CEILING = 12


def test_import_graph_figures_never_grow():
    f = _import_graph.figures()
    assert f["largest_cycle"] <= LARGEST_CYCLE_CEILING, f"largest import cycle now {f['largest_cycle']}: {f['cycle']}"
    assert f["local_imports"] <= LOCAL_IMPORTS_CEILING, f"{f['local_imports']} imports inside functions"


def test_tensor_does_not_import_the_ops():
    # the ops register themselves on Tensor; tensor.py knows nothing of them
    edges, local = _import_graph.graph()
    every = edges["tinytorch.tensor"] | {t for m, _, t in local if m == "tinytorch.tensor"}
    assert not [m for m in every if m.startswith("tinytorch._ops") or m.startswith("tinytorch.nn")], every


# what sits above autograd's core: the ops and everything built on them (docs/import-layers.md)
_ABOVE_THE_CORE = ("tinytorch._ops", "tinytorch.factory", "tinytorch._random.tensor_ops", "tinytorch.nn",
                   "tinytorch.func", "tinytorch.optim", "tinytorch.data", "tinytorch.autograd.functional",
                   "tinytorch.autograd._functional_utils")


def test_autograd_core_does_not_import_the_ops():
    # tinytorch/__init__ loads autograd first and the ops after it, so a module-level import of an op
    # here would fail at import time; what the core needs from above is handed over when that loads.
    # gradcheck (randn) and functional build on the ops: gradcheck reaches them inside a function.
    edges, _ = _import_graph.graph()
    core = [m for m in edges if m == "tinytorch.tensor" or (m.startswith("tinytorch.autograd")
                                                            and m not in ("tinytorch.autograd.functional",
                                                                          "tinytorch.autograd._functional_utils",
                                                                          "tinytorch.autograd.gradcheck"))]
    above = {m: sorted(t for t in edges[m] if t.startswith(_ABOVE_THE_CORE)) for m in core}
    assert not {m: t for m, t in above.items() if t}, above
