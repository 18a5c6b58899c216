"""The op files say what an op is; what exists for speed, for PyTorch's bits on a CPU path, or for a graph capture
registers onto them from its own package (issue 79).

No module under ``tinytorch/_ops/<family>/`` should import ``_ops/_kernels``, ``_random/fpmath``, ``tinytorch/_cpu``
or the capture's machinery (``capturing``, ``CAPTURE``, the fx / export / jit / _dynamo packages), nor ask
``capturing()``: the capture registers what it shows from its side (``_ops/_core/graph_steps.py``, filled by
``fx/experimental/_graph_steps.py``), as ``_cpu`` registers its paths (``_ops/_core/paths.py``). The ceilings are
where the code stands; they only go down (lower them when a change lowers the figures)."""
from __future__ import annotations

import ast
import os

import tinytorch

PACKAGE = os.path.dirname(tinytorch.__file__)

CAPTURING_CALLS_CEILING = 0
CAPTURE_NAMES_CEILING = 0
KERNEL_IMPORTS_CEILING = 0  # names imported (from _kernels.parallel import a, b: two)

# the modules an op file leaves to the second layer and to the capture
_KERNEL_MODULES = ("tinytorch._ops._kernels", "tinytorch._random.fpmath", "tinytorch._cpu")
_CAPTURE_MODULES = ("tinytorch.fx", "tinytorch.export", "tinytorch.jit", "tinytorch._dynamo")
_CAPTURE_NAMES = ("capturing", "CAPTURE")
_NOT_FAMILIES = ("_core", "_kernels")


def _within(name: str, prefixes) -> bool:
    return any(name == p or name.startswith(p + ".") for p in prefixes)


def _imported(module: str, is_package: bool, node) -> list:
    """The dotted names an import statement of ``module`` reads (``from .._kernels import parallel``:
    ``tinytorch._ops._kernels.parallel``)."""
    if isinstance(node, ast.Import):
        return [a.name for a in node.names]
    parts = module.split(".")
    base = parts if is_package else parts[:-1]
    if node.level > 1:
        base = base[:len(base) - (node.level - 1)]
    prefix = ".".join((base if node.level else []) + ([node.module] if node.module else []))
    return [f"{prefix}.{a.name}" for a in node.names]


def count(source: str, module: str, is_package: bool = False) -> dict:
    """What one op file asks of the layers below and beside it: ``capturing()`` calls, the capture's names
    imported or read, and imports of kernel modules (each a (line, what) pair)."""
    found = {"capturing": [], "capture": [], "kernels": []}
    for node in ast.walk(ast.parse(source)):
        if isinstance(node, ast.Call):
            f = node.func
            if (isinstance(f, ast.Name) and f.id == "capturing") or (isinstance(f, ast.Attribute)
                                                                      and f.attr == "capturing"):
                found["capturing"].append((node.lineno, "capturing()"))
        elif isinstance(node, ast.Attribute) and node.attr == "CAPTURE":
            found["capture"].append((node.lineno, ast.unparse(node)))
        elif isinstance(node, (ast.Import, ast.ImportFrom)):
            for name in _imported(module, is_package, node):
                if _within(name, _KERNEL_MODULES):
                    found["kernels"].append((node.lineno, name))
                elif _within(name, _CAPTURE_MODULES) or name.rpartition(".")[2] in _CAPTURE_NAMES:
                    found["capture"].append((node.lineno, name))
    return found


def op_files(package: str = PACKAGE):
    """(path, module name, is a package) of every module of an op family."""
    ops = os.path.join(package, "_ops")
    for family in sorted(os.listdir(ops)):
        if family in _NOT_FAMILIES or not os.path.isfile(os.path.join(ops, family, "__init__.py")):
            continue
        for folder, _, files in os.walk(os.path.join(ops, family)):
            for f in sorted(files):
                if f.endswith(".py"):
                    path = os.path.join(folder, f)
                    rel = os.path.relpath(path, os.path.dirname(package))[:-3].split(os.sep)
                    if rel[-1] == "__init__":
                        yield path, ".".join(rel[:-1]), True
                    else:
                        yield path, ".".join(rel), False


def figures(package: str = PACKAGE) -> dict:
    out = {"capturing": [], "capture": [], "kernels": []}
    for path, module, is_package in op_files(package):
        with open(path, encoding="utf-8") as fh:
            found = count(fh.read(), module, is_package)
        rel = os.path.relpath(path, package)
        for k, hits in found.items():
            out[k] += [f"{rel}:{line} {what}" for line, what in hits]
    return out


def test_op_files_leave_capture_and_kernels_to_their_packages():
    f = figures()
    assert len(f["capturing"]) <= CAPTURING_CALLS_CEILING, f"capturing() asked in op files: {f['capturing']}"
    assert len(f["capture"]) <= CAPTURE_NAMES_CEILING, f"the capture's machinery in op files: {f['capture']}"
    assert len(f["kernels"]) <= KERNEL_IMPORTS_CEILING, f"kernel modules imported by op files: {f['kernels']}"


def test_the_counter_sees_what_it_counts():
    # the counter itself, on a made-up op file: each kind of hit is found, at its line; plain imports are not
    src = ("from .._core.registry import capturing, op\n"
           "from .._kernels import parallel\n"
           "from ..._random import fpmath, draws\n"
           "from .._kernels.parallel import SPLIT_FROM\n"
           "import tinytorch._cpu.conv\n"
           "from .._core import registry as _registry\n"
           "from ...fx.experimental import proxy_tensor\n"
           "from ..pointwise.compare import where\n"
           "def f(x):\n"
           "    if capturing() or _registry.capturing():\n"
           "        return _registry.CAPTURE[0]\n")
    found = count(src, "tinytorch._ops.nn.example")
    assert found["capturing"] == [(10, "capturing()"), (10, "capturing()")]
    assert found["capture"] == [(1, "tinytorch._ops._core.registry.capturing"),
                                (7, "tinytorch.fx.experimental.proxy_tensor"), (11, "_registry.CAPTURE")]
    assert found["kernels"] == [(2, "tinytorch._ops._kernels.parallel"), (3, "tinytorch._random.fpmath"),
                                (4, "tinytorch._ops._kernels.parallel.SPLIT_FROM"), (5, "tinytorch._cpu.conv")]
    # a family's __init__ imports relative to itself
    assert count("from .._kernels import select\n", "tinytorch._ops.reduce", True)["kernels"] == \
        [(1, "tinytorch._ops._kernels.select")]


def test_the_op_families_are_all_read():
    # every family folder is walked (a family the walk missed would count nothing)
    families = {m.split(".")[2] for _, m, _ in op_files()}
    assert {"pointwise", "reduce", "shape", "index", "linalg", "nn", "special", "fft", "sparse", "random",
            "creation", "masked"} <= families
    assert not families & set(_NOT_FAMILIES)
