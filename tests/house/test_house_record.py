"""Every op records its result through one helper, ``tinytorch/_ops/_core/record.py: record``: the result
array wrapped as a tensor and, when autograd records, the node attached with its inputs' edges, attributes
and saved tensors. Read from the source: outside record.py, the tensor constructors themselves
(tensor.py) and the engine (autograd/), no code hands a node to ``_make``/``_view_of`` or numbers a
node's outputs (``_output_nr``, ``_n_outputs``), except the few places below that rewrite an existing
tensor's history rather than record a new result, each with its reason."""
import ast
import pathlib

import tinytorch

PACKAGE = pathlib.Path(tinytorch.__file__).parent
OWNERS = {"_ops/_core/record.py", "tensor.py"}  # the helper, and the constructors it calls

# (file, what the line does) -> why it is not an op recording a result
ALLOWED = {
    # an in-place op moves the tensor's old history onto a stand-in and gives the tensor the new node
    ("_ops/pointwise/inplace.py", "old._output_nr = self._output_nr"):
        "an in-place op's result is the tensor it wrote into: its old history moves to a stand-in",
    ("_ops/shape/conversions.py", "self._output_nr = 0"): "detach_ cuts the tensor's own history",
    # views' history rewritten after an in-place write through one of them (CopySlices, as PyTorch's)
    ("_ops/shape/views.py", "t._output_nr = 0"): "a view's history regenerated after its base changed",
    ("_ops/shape/views.py", "base._output_nr = 0"): "the base gets CopySlices after a write through a view",
    ("_ops/shape/views.py", "v._output_nr = 0"): "a view's history regenerated after its base changed",
    # batch_norm shows its saved mean and invstd as outputs 1 and 2 of the node that already exists
    ("_ops/nn/norm.py", "_make(value, node)"): "_saved_result1/2: saved values shown as the node's outputs",
    ("_ops/nn/norm.py", "t._output_nr = i + 1"): "_saved_result1/2: saved values shown as the node's outputs",
}


def _hand_recorded(path: pathlib.Path) -> list:
    """The lines of ``path`` that attach a node to a result or number a node's outputs."""
    found = []
    for n in ast.walk(ast.parse(path.read_text())):
        if isinstance(n, ast.Call) and isinstance(n.func, ast.Name) and n.func.id in ("_make", "_view_of"):
            at = 1 if n.func.id == "_make" else 2
            node = n.args[at] if len(n.args) > at else next((k.value for k in n.keywords if k.arg == "grad_fn"),
                                                            None)
            if node is not None and not (isinstance(node, ast.Constant) and node.value is None):
                found.append(ast.unparse(n))
        elif isinstance(n, ast.Assign):
            found += [ast.unparse(n) for t in n.targets
                      if isinstance(t, ast.Attribute) and t.attr in ("_output_nr", "_n_outputs")]
    return found


def _sites() -> set:
    sites = set()
    for path in PACKAGE.rglob("*.py"):
        rel = path.relative_to(PACKAGE).as_posix()
        if rel in OWNERS or rel.startswith("autograd/"):
            continue
        sites |= {(rel, line) for line in _hand_recorded(path)}
    return sites


def test_ops_record_through_record_only():
    sites = _sites()
    unexpected = sorted(sites - set(ALLOWED))
    assert not unexpected, f"nodes attached by hand (call _ops/_core/record.py's record instead): {unexpected}"
    stale = sorted(set(ALLOWED) - sites)
    assert not stale, f"ALLOWED lists lines that no longer exist (delete them): {stale}"


def test_the_scan_sees_hand_recording(tmp_path):
    src = ("def f(x, out, node, t):\n"
           "    a = _make(out, node)\n"
           "    b = _view_of(x, out, grad_fn=node)\n"
           "    c = _make(out)\n"
           "    d = _view_of(x, out, None)\n"
           "    t._output_nr = 1\n"
           "    node._n_outputs = 2\n")
    p = tmp_path / "m.py"
    p.write_text(src)
    assert sorted(_hand_recorded(p)) == sorted(["_make(out, node)", "_view_of(x, out, grad_fn=node)",
                                                "t._output_nr = 1", "node._n_outputs = 2"])
