"""tinytorch's own import graph, read from the source: which module imports which, at module level
or inside functions, the largest cycle, and the imports written inside functions.

``python tests/_import_graph.py [-v]`` prints the figures (``-v``: the cycle's modules and every
function-level import); ``tests/test_import_graph.py`` holds them to their ceilings."""
from __future__ import annotations

import ast
import os
import sys

PACKAGE = os.path.join(os.path.dirname(os.path.dirname(os.path.abspath(__file__))), "tinytorch")


def _modules() -> dict:
    """module name -> file path, for every .py file of the package."""
    out = {}
    root = os.path.dirname(PACKAGE)
    for folder, _, files in os.walk(PACKAGE):
        for f in files:
            if f.endswith(".py"):
                path = os.path.join(folder, f)
                rel = os.path.relpath(path, root)[:-3].split(os.sep)
                if rel[-1] == "__init__":
                    rel = rel[:-1]
                out[".".join(rel)] = path
    return out


def _resolve(module: str, is_package: bool, node: ast.ImportFrom | ast.Import, known: dict) -> list:
    """The tinytorch modules an import statement loads (a ``from pkg import name`` of a submodule counts
    as that submodule)."""
    targets = []
    if isinstance(node, ast.Import):
        for alias in node.names:
            if alias.name.split(".")[0] == "tinytorch":
                targets.append(alias.name)
        return [t for t in targets if t in known]
    if node.level:
        parts = module.split(".")
        base = parts if is_package else parts[:-1]
        base = base[:len(base) - (node.level - 1)] if node.level > 1 else base
        prefix = ".".join(base + ([node.module] if node.module else []))
    else:
        prefix = node.module or ""
    if prefix.split(".")[0] != "tinytorch":
        return []
    for alias in node.names:
        sub = f"{prefix}.{alias.name}"
        targets.append(sub if sub in known else prefix)
    return [t for t in dict.fromkeys(targets) if t in known]


def graph():
    """(edges: module -> set of modules, local: [(module, line, target)]) for imports of tinytorch
    modules; ``local`` are those written inside a function (``if TYPE_CHECKING`` blocks are skipped)."""
    known = _modules()
    edges = {m: set() for m in known}
    local = []
    for module, path in known.items():
        tree = ast.parse(open(path, encoding="utf-8").read(), path)
        is_package = path.endswith("__init__.py")

        def visit(node, in_function):
            for child in ast.iter_child_nodes(node):
                if isinstance(child, ast.If) and "TYPE_CHECKING" in ast.unparse(child.test):
                    continue
                inside = in_function or isinstance(child, (ast.FunctionDef, ast.AsyncFunctionDef, ast.Lambda))
                if isinstance(child, (ast.Import, ast.ImportFrom)):
                    for target in _resolve(module, is_package, child, known):
                        if target != module:
                            edges[module].add(target)
                            if in_function:
                                local.append((module, child.lineno, target))
                visit(child, inside)

        visit(tree, False)
    return edges, local


def strongly_connected(edges: dict) -> list:
    """Tarjan's components, iteratively (largest first)."""
    index, low, on_stack, stack, comps = {}, {}, set(), [], []
    counter = [0]
    for start in edges:
        if start in index:
            continue
        work = [(start, iter(sorted(edges[start])))]
        index[start] = low[start] = counter[0]
        counter[0] += 1
        stack.append(start)
        on_stack.add(start)
        while work:
            node, it = work[-1]
            advanced = False
            for nxt in it:
                if nxt not in index:
                    index[nxt] = low[nxt] = counter[0]
                    counter[0] += 1
                    stack.append(nxt)
                    on_stack.add(nxt)
                    work.append((nxt, iter(sorted(edges[nxt]))))
                    advanced = True
                    break
                if nxt in on_stack:
                    low[node] = min(low[node], index[nxt])
            if advanced:
                continue
            work.pop()
            if work:
                low[work[-1][0]] = min(low[work[-1][0]], low[node])
            if low[node] == index[node]:
                comp = []
                while True:
                    m = stack.pop()
                    on_stack.discard(m)
                    comp.append(m)
                    if m == node:
                        break
                comps.append(sorted(comp))
    return sorted(comps, key=len, reverse=True)


def figures() -> dict:
    edges, local = graph()
    comps = strongly_connected(edges)
    return {"largest_cycle": len(comps[0]) if comps else 0, "cycle": comps[0] if comps else [],
            "local_imports": len(local), "local": local}


if __name__ == "__main__":
    f = figures()
    print(f"largest import cycle: {f['largest_cycle']} modules; imports of tinytorch modules inside "
          f"functions: {f['local_imports']}")
    if "-v" in sys.argv:
        print("cycle:", ", ".join(f["cycle"]))
        for module, line, target in f["local"]:
            print(f"  {module}:{line} -> {target}")
