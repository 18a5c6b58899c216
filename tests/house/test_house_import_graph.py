"""The import graph of tinytorch's own modules (``tests/_import_graph.py`` reads it from the source).

The goal: the largest import cycle, counting imports written inside functions, at most 3
modules, and at most 30 imports of tinytorch modules written inside functions. The ceilings below are
where the code stands; they only go down (lower them when a change lowers the figures)."""
import _import_graph

LARGEST_CYCLE_CEILING = 2
LOCAL_IMPORTS_CEILING = 12
# writes a module makes into another module's attributes while it loads (``othermodule.attr = ...``,
# ``setattr(ImportedClass, ...)``): a lower module offers a registration function instead
# (``tensor.register_attribute`` for Tensor's methods and properties, ``tensor.bind_backward``,
# ``_registry.bind_inplace``...). No library module writes into another; the ones left, each with its reason:
IMPORT_WRITES_ALLOWED = {
    # ``python -m tinytorch.run script.py``: the program it runs sees its own argv and folder, as
    # ``python script.py`` gives them (runpy's own contract)
    ("tinytorch.run", "sys.argv"),
    ("tinytorch.run", "sys.path[0]"),
}


def test_import_graph_figures_never_grow():
    f = _import_graph.figures()
    assert f["largest_cycle"] <= LARGEST_CYCLE_CEILING, f"largest import cycle now {f['largest_cycle']}: {f['cycle']}"
    assert f["local_imports"] <= LOCAL_IMPORTS_CEILING, f"{f['local_imports']} imports inside functions"


def test_no_module_writes_into_another_at_import():
    writes = _import_graph.import_writes()
    unexpected = [w for w in writes if (w[0], w[2]) not in IMPORT_WRITES_ALLOWED]
    assert not unexpected, f"import-time writes into other modules (use a registration function): {unexpected}"


def test_import_write_counter_sees_writes(tmp_path):
    # the counter itself: a module-level write, a setattr in a loop, one made by a function the module
    # calls as it loads, and a table entry are found; a registration call and a write inside a function
    # that only runs later are not
    import ast
    src = ("from . import lower\nfrom .tensor import Tensor\n"
           "lower.hook = 1\n"
           "for n in ('a', 'b'):\n    setattr(Tensor, n, None)\n"
           "def _install():\n    Tensor.x = property(len)\n"
           "def later():\n    lower.other = 2\n"
           "class C:\n    def m(self):\n        lower.y = 3\n"
           "lower.table['k'] = 4\n"
           "lower.register(5)\n"
           "_install()\n")
    tree = ast.parse(src)
    found = []
    for stmt in _import_graph._load_time(tree.body):
        found += _import_graph._writes_in(stmt, {"lower", "Tensor"})
    found += _import_graph._writes_in(tree.body[4].body[0], {"lower", "Tensor"})  # _install's body
    assert [w for _, w in found] == ["lower.hook", "setattr(Tensor, n, None)", "lower.table['k']", "Tensor.x"], found


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
    # functional builds on the ops; gradcheck draws its random grad_outputs through the tensors' own methods
    edges, _ = _import_graph.graph()
    core = [m for m in edges if m == "tinytorch.tensor" or (m.startswith("tinytorch.autograd")
                                                            and m not in ("tinytorch.autograd.functional",
                                                                          "tinytorch.autograd._functional_utils"))]
    above = {m: sorted(t for t in edges[m] if t.startswith(_ABOVE_THE_CORE)) for m in core}
    assert not {m: t for m, t in above.items() if t}, above
