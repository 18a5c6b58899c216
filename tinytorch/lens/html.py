"""The lens's pictures: a hand-made SVG of the graph and HTML pages with nothing fetched from elsewhere.

The layout is the simplest that reads well for a backward graph: each node sits one layer below the
lowest node that sends it a gradient (the longest path from the root), and the nodes of a layer are
placed left to right in walk order. Each node is an SVG group of class ``lens-node`` (``id``
``lens-node-<index>``); the step-through page marks the current one with the class ``lens-current``."""
from __future__ import annotations

import html
import json

BOX_H, CHAR_W, PAD, GAP_X, GAP_Y = 34, 7.2, 10, 24, 40

STYLE = """
body { font-family: sans-serif; margin: 1em; }
.lens-node rect { fill: #eef3fb; stroke: #4a6fa5; stroke-width: 1.2; }
.lens-node.lens-leaf rect { fill: #dcefdc; stroke: #3d8a3d; }
.lens-node.lens-current rect { fill: #ffe7a8; stroke: #d9480f; stroke-width: 3; }
.lens-node text { font-family: monospace; font-size: 12px; }
.lens-edge { stroke: #777; stroke-width: 1.2; fill: none; }
pre { background: #f6f6f6; padding: 0.6em; overflow-x: auto; }
table.lens-table { border-collapse: collapse; }
table.lens-table td, table.lens-table th { border: 1px solid #bbb; padding: 2px 6px; text-align: left; }
"""


def _layers(graph) -> list:
    """Layer of each node: one below the deepest node with an edge into it (Kahn's order, no recursion)."""
    n = len(graph.nodes)
    incoming = [0] * n
    for node in graph.nodes:
        for _, j in node.edges:
            if j is not None:
                incoming[j] += 1
    layer = [0] * n
    ready = [i for i in range(n) if incoming[i] == 0]
    while ready:
        i = ready.pop(0)
        for _, j in graph.nodes[i].edges:
            if j is None:
                continue
            layer[j] = max(layer[j], layer[i] + 1)
            incoming[j] -= 1
            if incoming[j] == 0:
                ready.append(j)
    return layer


def _lines(node) -> list:
    return [node.label()] + ([", ".join(node.makes)] if node.makes else [])


def graph_svg(graph, current: int | None = None) -> str:
    """The graph as one inline ``<svg>`` element."""
    layer = _layers(graph)
    rows: dict = {}
    for node in graph.nodes:
        rows.setdefault(layer[node.index], []).append(node)
    width_of = {n.index: PAD * 2 + CHAR_W * max(len(s) for s in _lines(n)) for n in graph.nodes}
    row_width = {r: sum(width_of[n.index] for n in ns) + GAP_X * (len(ns) - 1) for r, ns in rows.items()}
    total_w = max(row_width.values(), default=100) + 2 * PAD
    pos = {}
    for r, ns in rows.items():
        x = (total_w - row_width[r]) / 2
        for n in ns:
            pos[n.index] = (x, PAD + r * (BOX_H + GAP_Y))
            x += width_of[n.index] + GAP_X
    total_h = PAD * 2 + (max(rows, default=0) + 1) * (BOX_H + GAP_Y) - GAP_Y
    parts = [f'<svg xmlns="http://www.w3.org/2000/svg" class="lens-graph" width="{total_w:.0f}" '
             f'height="{total_h:.0f}" viewBox="0 0 {total_w:.0f} {total_h:.0f}">',
             '<defs><marker id="lens-arrow" viewBox="0 0 10 10" refX="10" refY="5" markerWidth="7" '
             'markerHeight="7" orient="auto"><path d="M0,0 L10,5 L0,10 z" fill="#777"/></marker></defs>']
    for node in graph.nodes:
        x, y = pos[node.index]
        for _, j in node.edges:
            if j is None:
                continue
            x2, y2 = pos[j]
            parts.append(f'<line class="lens-edge" x1="{x + width_of[node.index] / 2:.1f}" y1="{y + BOX_H:.1f}" '
                         f'x2="{x2 + width_of[j] / 2:.1f}" y2="{y2:.1f}" marker-end="url(#lens-arrow)"/>')
    for node in graph.nodes:
        x, y = pos[node.index]
        classes = "lens-node" + (" lens-leaf" if node.name == "AccumulateGrad" else "") + \
            (" lens-current" if node.index == current else "")
        parts.append(f'<g class="{classes}" id="lens-node-{node.index}" data-index="{node.index}">'
                     f'<title>{html.escape(_tooltip(node))}</title>'
                     f'<rect x="{x:.1f}" y="{y:.1f}" rx="5" width="{width_of[node.index]:.1f}" height="{BOX_H}"/>')
        for k, text in enumerate(_lines(node)):
            parts.append(f'<text x="{x + PAD:.1f}" y="{y + 14 + 14 * k:.1f}">{html.escape(text)}</text>')
        parts.append("</g>")
    parts.append("</svg>")
    return "\n".join(parts)


def _tooltip(node) -> str:
    return "\n".join([node.label()] + [f"{a}: {t}" for a, t in node.saved])


def table_html(table) -> str:
    head = "".join(f"<th>{html.escape(h)}</th>" for h in table.HEAD)
    body = "".join("<tr>" + "".join(f"<td>{html.escape(c)}</td>" for c in row) + "</tr>" for row in table.rows())
    return f'<table class="lens-table"><tr>{head}</tr>{body}</table>'


def graph_fragment(graph) -> str:
    """What a notebook shows: the picture, the text, the table."""
    return (f"<div class=\"lens\"><style>{STYLE}</style>{graph_svg(graph)}"
            f"<pre>{html.escape(str(graph))}</pre>{table_html(graph.table())}</div>")


def _page(title: str, body: str, script: str = "") -> str:
    return ("<!DOCTYPE html>\n<html><head><meta charset=\"utf-8\">"
            f"<title>{html.escape(title)}</title><style>{STYLE}</style></head>\n"
            f"<body>\n{body}\n{script}</body></html>\n")


def graph_page(graph) -> str:
    return _page("tinytorch.lens: backward graph", "<h1>Backward graph</h1>\n" + graph_fragment(graph))


STEP_SCRIPT = """<script>
(function () {
  var steps = JSON.parse(document.getElementById("lens-steps").textContent);
  var k = 0;
  function render() {
    var s = steps[k];
    document.querySelectorAll(".lens-node").forEach(function (el) { el.classList.remove("lens-current"); });
    if (s.node !== null) {
      var el = document.getElementById("lens-node-" + s.node);
      if (el) { el.classList.add("lens-current"); }
    }
    document.getElementById("lens-step").textContent = (k + 1) + " / " + steps.length + "   " + s.text;
    document.getElementById("lens-prev").disabled = (k === 0);
    document.getElementById("lens-next").disabled = (k === steps.length - 1);
  }
  document.getElementById("lens-prev").addEventListener("click", function () { if (k > 0) { k--; render(); } });
  document.getElementById("lens-next").addEventListener("click", function () {
    if (k < steps.length - 1) { k++; render(); }
  });
  render();
})();
</script>
"""


def trace_fragment(trace) -> str:
    """What a notebook shows of a trace: the graph and the walk-through (the stepping page is ``save``'s)."""
    return (f"<div class=\"lens\"><style>{STYLE}</style>{graph_svg(trace.graph)}"
            f"<pre>{html.escape(str(trace))}</pre></div>")


def trace_page(trace) -> str:
    """A page that steps through a trace: the graph with the current node highlighted, the step's text."""
    steps = [{"node": s.node, "text": s.text} for s in trace.steps] or [{"node": None, "text": "(no steps)"}]
    data = json.dumps(steps).replace("</", "<\\/")
    body = ("<h1>Backward, step by step</h1>\n"
            '<p><button id="lens-prev">previous</button> <button id="lens-next">next</button></p>\n'
            '<pre id="lens-step"></pre>\n'
            f"{graph_svg(trace.graph)}\n"
            f"<h2>All steps</h2><pre>{html.escape(str(trace))}</pre>\n"
            f'<script type="application/json" id="lens-steps">{data}</script>\n')
    return _page("tinytorch.lens: backward step by step", body, STEP_SCRIPT)
