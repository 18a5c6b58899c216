"""The import graph of tinytorch's own modules (``tests/_import_graph.py`` reads it from the source).

The goal: no import cycle, counting imports written inside functions, and at most 30 imports of tinytorch
modules written inside functions; in the import picture (each top-level file or folder a room), no circle
of files and at most 8 arrows running from a lower floor up (issue 52). The ceilings below are where the
code stands; they only go down (lower them when a change lowers the figures)."""
import _import_graph

LARGEST_CYCLE_CEILING = 1  # modules: 1 is no cycle at all
LOCAL_IMPORTS_CEILING = 7
FILE_CIRCLES_CEILING = 0  # sets of files importing each other, type-only imports counted

# The arrows of the import picture that run back up: room -> room, where a module of the first imports
# one of the second although the second stands above it. Every other arrow runs down, so the rooms have
# floors (_import_graph.floors); a new arrow that closes a circle of rooms fails below until it is removed
# or listed here with its reason. An entry whose arrow is gone, or no longer closes a circle, must go.
UPWARD_ARROWS = {
    ("tinytorch/tensor.py", "tinytorch/autograd/"):
        "Tensor builds on the grad modes and nodes (autograd/grad_mode.py, node.py), which share autograd/ "
        "with the engine built on Tensor",
    ("tinytorch/tensor.py", "tinytorch/_tensor/"):
        "Tensor inherits _tensor/placement.py and conversion.py and prints with printing.py; _tensor/swap.py "
        "and legacy_types.py build on Tensor",
    ("tinytorch/_random/", "tinytorch/_ops/"):
        "_random/draws.py and engine.py use _ops/_kernels (parallel, compiled), and _ops/_kernels round with "
        "_random/fpmath.py",
    ("tinytorch/autograd/", "tinytorch/_ops/"):
        "autograd/functional.py and _functional_utils.py (torch.autograd.functional, built on the ops) stack "
        "Jacobian rows with stack and start from the factories' zeros",
    ("tinytorch/autograd/", "tinytorch/func/"):
        "autograd/functional.py vectorizes its Jacobians with func's vmap",
    ("tinytorch/autograd/", "tinytorch/_tensor/"):
        "autograd/forward_ad.py registers how a dual tensor prints into _tensor/printing.py (bind_dual_parts), "
        "which sits below tensor.py with the grad modes; swap.py in _tensor/ builds on autograd/node.py",
    ("tinytorch/autograd/", "tinytorch/profiler/"):
        "autograd/profiler.py (torch.autograd.profiler, PyTorch's older API) subclasses profiler's profile, whose "
        "recorder times the ops",
    ("tinytorch/nn/", "tinytorch/ao/"):
        "nn/quantized/ and nn/quantized/dynamic/ are PyTorch's older paths of ao's quantized modules, built on nn",
}
UPWARD_ARROWS_CEILING = 8
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
    assert len(f["circles"]) <= FILE_CIRCLES_CEILING, f"files importing each other: {f['circles']}"


def test_picture_has_floors_with_few_arrows_running_up():
    rooms = _import_graph.rooms()
    gone = [a for a in UPWARD_ARROWS if a[1] not in rooms.get(a[0], ())]
    assert not gone, f"listed arrows the code no longer has (delete them, lower the ceiling): {gone}"
    free = [a for a in UPWARD_ARROWS if not _import_graph.reaches(rooms, a[1], a[0])]
    assert not free, f"listed arrows that close no circle of rooms (delete them, lower the ceiling): {free}"
    floors = _import_graph.floors(rooms, set(UPWARD_ARROWS))  # raises on a circle that no listed arrow breaks
    assert all(floors[a] <= floors[b] for a, b in UPWARD_ARROWS)
    assert len(UPWARD_ARROWS) <= UPWARD_ARROWS_CEILING


def test_floors_of_a_small_picture():
    rooms = {"a": {"b"}, "b": {"c"}, "c": {"a"}, "d": {"a"}}
    assert _import_graph.floors(rooms, {("c", "a")}) == {"a": 3, "b": 2, "c": 1, "d": 4}
    try:
        _import_graph.floors(rooms, set())
    except ValueError as e:
        assert "['a', 'b', 'c']" in str(e)
    else:
        raise AssertionError("a circle with no arrow listed has no floors")


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
_ABOVE_THE_CORE = ("tinytorch._ops", "tinytorch.nn",
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


def test_op_families_stand_in_one_order():
    # the families under _ops/ (one folder each) import each other only downwards: no circle of folders,
    # so a reader can learn them bottom up (_core, creation, shape, pointwise, index, reduce, ...)
    edges, local = _import_graph.graph()

    def family(m):
        parts = m.split(".")
        return parts[2] if len(parts) > 3 and parts[1] == "_ops" else None

    arrows = {}
    for m, targets in edges.items():
        for t in set(targets) | {t for mm, _, t in local if mm == m}:
            a, b = family(m), family(t)
            if a and b and a != b:
                arrows.setdefault(a, set()).add(b)
                arrows.setdefault(b, set())
    try:
        order = _import_graph.floors(arrows, set())
    except ValueError as e:
        raise AssertionError(f"families of _ops/ importing each other in a circle: {e}") from None
    assert {"_core", "creation", "shape", "pointwise", "index", "reduce", "linalg", "nn"} <= set(order)
