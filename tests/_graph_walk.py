"""The nodes of a backward graph, for the tests that compare graphs between the two libraries."""


def graph_nodes(roots) -> list:
    """Every node reachable from ``roots`` (grad_fns, None skipped) through ``next_functions``, each once, depth
    first from the last root."""
    seen, out, stack = set(), [], [r for r in roots if r is not None]
    while stack:
        node = stack.pop()
        if node in seen:
            continue
        seen.add(node)
        out.append(node)
        stack.extend(n for n, _ in node.next_functions if n is not None)
    return out


def chain(fn, depth: int = 4):
    """A node's class name with its ``next_functions`` beneath it, ``depth`` levels deep (None where an edge has no
    node): the shape of a graph, to compare between the two libraries."""
    if fn is None:
        return None
    if depth == 1:
        return type(fn).__name__
    return [type(fn).__name__, [chain(n, depth - 1) for n, _ in fn.next_functions]]
