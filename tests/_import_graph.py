"""tinytorch's own import graph, read from the source: which module imports which, at module level
or inside functions, the largest cycle, the imports written inside functions, and the writes a module
makes into another module's attributes while it loads (an import cycle in disguise: the lower module
then depends on the upper one having loaded, and no import line says so).

It also reads the package as its import picture draws it: each top-level file or folder of ``tinytorch/`` is
one room, an arrow joins two rooms when a module of one imports a module of the other (at module level, in
a function or for type checking only), and a circle is a set of files that import each other. A room stands
on a floor above everything it imports, except across the few arrows that run back up, which the house test
lists (``floors``).

``python tests/_import_graph.py [-v]`` prints the figures (``-v``: the cycle's modules, every
function-level import and every import-time write, and the room arrows that close a circle of rooms);
``tests/house/test_house_import_graph.py`` holds them to their ceilings."""
from __future__ import annotations

import ast
import functools
import os
import sys

PACKAGE = os.path.join(os.path.dirname(os.path.dirname(os.path.abspath(__file__))), "tinytorch")


@functools.lru_cache(maxsize=None)
def _modules() -> dict:
    """module name -> file path, for every .py file of the package (read once a process: the tests that ask
    share one reading of the source)."""
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


@functools.lru_cache(maxsize=None)
def _tree(path: str) -> ast.Module:
    with open(path, encoding="utf-8") as f:
        return ast.parse(f.read(), path)


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


def graph(type_checking: bool = False):
    """(edges: module -> set of modules, local: [(module, line, target)]) for imports of tinytorch
    modules; ``local`` are those written inside a function. ``if TYPE_CHECKING`` blocks are skipped unless
    ``type_checking`` (the import picture draws them: a type-only import still ties two files). A copy of
    the one walk a process makes over the source for each kind."""
    edges, local = _graph(type_checking)
    return {m: set(t) for m, t in edges.items()}, list(local)


@functools.lru_cache(maxsize=None)
def _graph(type_checking: bool):
    known = _modules()
    edges = {m: set() for m in known}
    local = []
    for module, path in known.items():
        tree = _tree(path)
        is_package = path.endswith("__init__.py")

        def visit(node, in_function):
            for child in ast.iter_child_nodes(node):
                if not type_checking and isinstance(child, ast.If) and "TYPE_CHECKING" in ast.unparse(child.test):
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


def _root(target):
    """The name an assignment target or setattr object starts from (``a`` of ``a.b.c`` or ``a.b[k]``)."""
    while isinstance(target, (ast.Attribute, ast.Subscript)):
        target = target.value
    return target.id if isinstance(target, ast.Name) else None


def _writes_in(node, foreign: set) -> list:
    """(line, text) of each write under ``node`` into an object named by ``foreign``: an assignment to
    ``name.attr``/``name.attr[k]``/``name[k]``, or ``setattr(name, ...)``/``delattr``."""
    found = []
    for sub in _walk_load_time(node):
        targets = []
        if isinstance(sub, ast.Assign):
            targets = sub.targets
        elif isinstance(sub, (ast.AugAssign, ast.AnnAssign)):
            targets = [sub.target]
        elif isinstance(sub, ast.Delete):
            targets = sub.targets
        for t in targets:
            for leaf in (t.elts if isinstance(t, (ast.Tuple, ast.List)) else [t]):
                if isinstance(leaf, (ast.Attribute, ast.Subscript)) and _root(leaf) in foreign:
                    found.append((sub.lineno, ast.unparse(leaf)))
        if (isinstance(sub, ast.Call) and isinstance(sub.func, ast.Name) and sub.func.id in ("setattr", "delattr")
                and sub.args and _root(sub.args[0]) in foreign):
            found.append((sub.lineno, ast.unparse(sub)[:80]))
    return found


def _walk_load_time(node):
    """``ast.walk`` below ``node`` without entering the bodies of functions defined there."""
    todo = [node]
    while todo:
        sub = todo.pop()
        yield sub
        todo.extend(c for c in ast.iter_child_nodes(sub)
                    if not isinstance(c, (ast.FunctionDef, ast.AsyncFunctionDef, ast.Lambda)))


def _load_time(body: list):
    """The statements of a module body that run when it loads: not those inside function bodies."""
    for stmt in body:
        if isinstance(stmt, (ast.FunctionDef, ast.AsyncFunctionDef)):
            continue
        yield stmt


def import_writes() -> list:
    """(module, line, what) for each write a module makes, while it loads, into an attribute of an
    object it imported (another module, or a class or table of another module): at module level, in a
    class body, or in a function of its own that its module level calls. A registration function of
    the lower module (``tensor.register_method``, ``_registry.bind_inplace``...) is the way instead: the
    lower module owns the hook point, and the call is an ordinary dependency on it."""
    out = []
    for module, path in _modules().items():
        tree = _tree(path)
        imported, functions = set(), {}
        for stmt in _walk_load_time(tree):
            if isinstance(stmt, (ast.Import, ast.ImportFrom)):
                for alias in stmt.names:
                    imported.add(alias.asname or alias.name.split(".")[0])
        for stmt in tree.body:
            if isinstance(stmt, (ast.FunctionDef, ast.AsyncFunctionDef)):
                functions[stmt.name] = stmt
        found = []
        for stmt in _load_time(tree.body):
            found += _writes_in(stmt, imported)
            called = {c.func.id for c in _walk_load_time(stmt)
                      if isinstance(c, ast.Call) and isinstance(c.func, ast.Name)}
            for name in called & set(functions):
                fn = functions[name]
                params = {a.arg for a in fn.args.args + fn.args.kwonlyargs + fn.args.posonlyargs}
                for sub in fn.body:
                    found += _writes_in(sub, imported - params)
        out += [(module, line, what) for line, what in sorted(set(found))]
    return out


def room_of(module: str) -> str:
    """The room a module belongs to, named as the import picture names it: ``tinytorch/_ops/`` for every
    module under that folder, ``tinytorch/tensor.py`` for a top-level file."""
    rel = os.path.relpath(_modules()[module], PACKAGE).split(os.sep)
    return f"tinytorch/{rel[0]}" + ("/" if len(rel) > 1 else "")


def rooms() -> dict:
    """room -> set of rooms it imports (every import: module level, in functions, for type checking)."""
    edges, _ = graph(type_checking=True)
    out = {room_of(m): set() for m in edges}
    for m, targets in edges.items():
        out[room_of(m)].update(room_of(t) for t in targets)
    for room, targets in out.items():
        targets.discard(room)
    return out


def circles() -> list:
    """The sets of files that import each other (every import counted, type-only ones too), largest first."""
    edges, _ = graph(type_checking=True)
    return [c for c in strongly_connected(edges) if len(c) > 1]


def reaches(edges: dict, start: str, goal: str) -> bool:
    seen, todo = {start}, [start]
    while todo:
        for nxt in edges.get(todo.pop(), ()):
            if nxt == goal:
                return True
            if nxt not in seen:
                seen.add(nxt)
                todo.append(nxt)
    return False


def floors(room_edges: dict, upward: set) -> dict:
    """room -> floor (1: imports no other room), each room one floor above the highest it imports, the arrows
    in ``upward`` (those that run back up) left out. Raises ValueError naming a circle of rooms that no arrow
    of ``upward`` breaks: such a circle has no floors."""
    down = {r: room_edges[r] - {b for a, b in upward if a == r} for r in room_edges}
    comps = [c for c in strongly_connected(down) if len(c) > 1]
    if comps:
        raise ValueError(f"a circle of rooms that no listed arrow breaks: {comps[0]}")
    floor: dict = {}
    for start in sorted(down):  # each room after every room it imports (the rooms left form no circle)
        todo = [start]
        while todo:
            room = todo[-1]
            waiting = [t for t in down[room] if t not in floor]
            if waiting:
                todo += waiting
                continue
            todo.pop()
            floor[room] = 1 + max((floor[t] for t in down[room]), default=0)
    return floor


def figures() -> dict:
    edges, local = graph()
    comps = strongly_connected(edges)
    writes = import_writes()
    room_edges = rooms()
    closing = sorted((a, b) for a in room_edges for b in room_edges[a] if reaches(room_edges, b, a))
    return {"largest_cycle": len(comps[0]) if comps else 0, "cycle": comps[0] if comps else [],
            "local_imports": len(local), "local": local, "import_writes": len(writes), "writes": writes,
            "rooms": len(room_edges), "room_arrows": sum(map(len, room_edges.values())), "circles": circles(),
            "closing": closing}


if __name__ == "__main__":
    f = figures()
    print(f"largest import cycle: {f['largest_cycle']} modules; imports of tinytorch modules inside "
          f"functions: {f['local_imports']}; writes into other modules at import: {f['import_writes']}")
    print(f"the picture: {f['rooms']} top-level files and folders (rooms), {f['room_arrows']} arrows between "
          f"them, {len(f['closing'])} of them in a circle of rooms; {len(f['circles'])} circles of files")
    if "-v" in sys.argv:
        print("cycle:", ", ".join(f["cycle"]))
        for module, line, target in f["local"]:
            print(f"  {module}:{line} -> {target}")
        print("import-time writes:")
        for module, line, what in f["writes"]:
            print(f"  {module}:{line}: {what}")
        print("circles of files:", f["circles"])
        print("room arrows in a circle of rooms (the house test lists which of them run back up):")
        for a, b in f["closing"]:
            print(f"  {a} -> {b}")
