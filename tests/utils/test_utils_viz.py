"""tinytorch.utils.viz.make_dot: the quickstart's backward graph as torchviz's graphviz.Digraph (every node
and parameter, as PyTorch records it), rendered to SVG where Graphviz's dot is installed, the stand-in
without the graphviz package, and the script's option."""
import _repo
import importlib.util
import os
import re
import shutil
import sys
import xml.etree.ElementTree as ET

import numpy as np
import pytest

import tinytorch
from tinytorch.utils.viz import Dot, make_dot

ROOT = _repo.ROOT


def _script():
    # the script imports its sibling package fashion_mnist_job, found beside it as when it runs
    if ROOT not in sys.path:
        sys.path.insert(0, ROOT)
    spec = importlib.util.spec_from_file_location("train_fashion_mnist", os.path.join(ROOT, "train_fashion_mnist.py"))
    mod = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(mod)
    return mod


def _names(fn, out):
    """Every node name in the graph under ``fn`` (multiset as a sorted list)."""
    stack, seen = [fn], set()
    while stack:
        f = stack.pop()
        if f is None or id(f) in seen:
            continue
        seen.add(id(f))
        out.append(type(f).__name__)
        stack.extend(n for n, _ in f.next_functions)
    return sorted(out)


@pytest.fixture(scope="module")
def quickstart():
    tinytorch.manual_seed(0)
    model = _script().NeuralNetwork()
    X = tinytorch.rand(4, 1, 28, 28)
    y = tinytorch.tensor([0, 3, 9, 1])
    loss = tinytorch.nn.CrossEntropyLoss()(model(X), y)
    return model, loss


def _dot_labels(source):
    """Every label in DOT text, quoted (graphviz quotes only what needs it) or not, unescaped."""
    found = re.findall(r'label=(?:"((?:[^"\\]|\\.)*)"|([^\s\]"]+))', source)
    return [(quoted or bare).replace('\\"', '"') for quoted, bare in found]


def _node_ids(source):
    return set(re.findall(r'^\t"?([^"\s]+)"? \[label', source, re.M))


def _edges(source):
    return re.findall(r'^\t"?([^"\s]+)"? -> "?([^"\s]+)"?', source, re.M)


def test_quickstart_dot_has_every_node_and_parameter(quickstart):
    torch = pytest.importorskip("torch")
    model, loss = quickstart
    graphviz = pytest.importorskip("graphviz")
    dot = make_dot(loss, params=dict(model.named_parameters()))
    assert isinstance(dot, graphviz.Digraph)  # torchviz's return type: render/view/format/source all work
    src = dot.source
    assert src.startswith("digraph {") and src.rstrip().endswith("}")
    assert '\tgraph [size="12,12"]' in src and "shape=box" in src and "fontname=monospace" in src
    labels = _dot_labels(src)
    # one box per grad_fn, named as PyTorch names them: compare with PyTorch's own graph of the same model
    tm = torch.nn.Sequential(torch.nn.Flatten(), torch.nn.Linear(784, 512), torch.nn.ReLU(),
                             torch.nn.Linear(512, 512), torch.nn.ReLU(), torch.nn.Linear(512, 10))
    tloss = torch.nn.CrossEntropyLoss()(tm(torch.rand(4, 1, 28, 28)), torch.tensor([0, 3, 9, 1]))
    expected = _names(tloss.grad_fn, [])
    node_labels = sorted(lab for lab in labels if lab.endswith("Backward0") or lab == "AccumulateGrad")
    assert node_labels == expected
    assert node_labels == _names(loss.grad_fn, [])
    # a blue box per parameter, with its name and shape
    for name, p in model.named_parameters():
        want = f"{name}\n ({', '.join(str(d) for d in p.shape)})"  # torchviz's "name\n shape"
        assert want in labels, want
    assert "fillcolor=lightblue" in src and "fillcolor=darkolivegreen1" in src
    # every edge joins two declared nodes, each edge and node once
    declared = _node_ids(src)
    edges = _edges(src)
    assert edges and len(edges) == len(set(edges)) and len(declared) == src.count("[label=")
    for tail, head in edges:
        assert tail in declared and head in declared


def test_show_saved_and_attrs(quickstart):
    model, loss = quickstart
    src = make_dot(loss, params=dict(model.named_parameters()), show_attrs=True, show_saved=True).source
    # saved tensors under torchviz's labels (the _saved_<name> attributes), e.g. addmm's mat1
    assert re.search(r'fillcolor="?orange', src) and any(lb.startswith("mat1\n (") for lb in _dot_labels(src))
    # LogSoftmaxBackward0's saved values in torchviz's table: names padded, values right-aligned
    assert re.search(r"dim +: +1\n", src)
    assert re.search(r"result: \[saved tensor\]", src)
    # the parameters keep their own boxes even though nodes saved them
    assert "linear_relu_stack.4.weight\n (10, 512)" in _dot_labels(src)
    plain = make_dot(loss).source
    assert "linear_relu_stack" not in plain and "\n (10, 512)" in _dot_labels(plain)


def test_views_tuples_and_deep_graphs():
    x = tinytorch.ones(3, requires_grad=True)
    y = x * 2
    v = y.view(3, 1)
    src = make_dot((v, y.sum())).source
    assert re.search(r'style="?dotted', src) and "ViewBackward0" in src and "SumBackward0" in src
    z = x
    for _ in range(3000):  # iterative walk: no recursion limit
        z = z + 1
    assert make_dot(z).source.count("AddBackward0") == 3000
    with pytest.raises(TypeError, match="params must map names to Tensors"):
        make_dot(y, params={"w": 3})


def test_missing_graphviz_package_gives_the_stand_in(quickstart, monkeypatch, tmp_path):
    model, loss = quickstart
    monkeypatch.setitem(sys.modules, "graphviz", None)  # import graphviz now fails
    dot = make_dot(loss, params=dict(model.named_parameters()))
    assert isinstance(dot, Dot)
    assert "linear_relu_stack.4.weight\n (10, 512)" in _dot_labels(dot.source)
    with pytest.raises(RuntimeError, match=r"pip install .*graphviz"):
        dot.pipe("svg")
    with pytest.raises(RuntimeError, match="apt-get install graphviz"):
        dot.render(outfile=str(tmp_path / "g.svg"))
    assert dot._repr_svg_() is None
    assert dot._repr_mimebundle_() == {"text/plain": dot.source}
    p = dot.save(str(tmp_path / "g.dot"))
    assert open(p).read() == dot.source


def test_digraph_api_without_the_dot_program(quickstart, tmp_path):
    graphviz = pytest.importorskip("graphviz")
    model, loss = quickstart
    dot = make_dot(loss, params=dict(model.named_parameters()), show_attrs=True)
    dot.format = "png"
    path = dot.save(str(tmp_path / "g.gv"))
    assert open(path).read() == dot.source  # the DOT text needs no Graphviz program
    assert hasattr(dot, "view") and dot.format == "png"
    if shutil.which("dot") is None:
        with pytest.raises(graphviz.ExecutableNotFound):
            dot.render(str(tmp_path / "g"))


def _have_dot():
    try:
        import graphviz  # noqa: F401
    except ImportError:
        return False
    return shutil.which("dot") is not None


@pytest.mark.skipif(not _have_dot(), reason="needs the graphviz Python package and the Graphviz dot program")
def test_svg_renders_and_parses(quickstart, tmp_path):
    model, loss = quickstart
    dot = make_dot(loss, params=dict(model.named_parameters()))
    path = dot.render(outfile=str(tmp_path / "graph.svg"))
    root = ET.parse(path).getroot()
    assert root.tag == "{http://www.w3.org/2000/svg}svg"
    texts = [t.text for t in root.iter("{http://www.w3.org/2000/svg}text")]
    for name, _ in model.named_parameters():
        assert name in texts
    assert texts.count("AddmmBackward0") == 3 and "NllLossBackward0" in texts
    assert dot.pipe(format="svg").lstrip().startswith(b"<?xml")
    assert dot.render(str(tmp_path / "g"), format="png").endswith(".png")


def test_script_draw_graph_option(tmp_path, capsys):
    script = _script()
    assert script.parse_args(["--draw-graph", "g.dot"]).draw_graph == "g.dot"
    tinytorch.manual_seed(0)
    model = script.NeuralNetwork()
    data = tinytorch.data.TensorDataset(tinytorch.rand(8, 1, 28, 28), tinytorch.tensor(np.arange(8) % 10))
    state = tinytorch.get_rng_state()
    path = str(tmp_path / "graph.dot")
    script.draw_graph(path, model, tinytorch.nn.CrossEntropyLoss(), data, 4)
    assert "linear_relu_stack.0.weight" in open(path).read()
    assert tinytorch.equal(tinytorch.get_rng_state(), state)  # training is not disturbed
    assert all(p.grad is None for p in model.parameters())
    assert f"Wrote the backward graph to {path}" in capsys.readouterr().out
    # a picture's suffix: rendered by Graphviz, or the DOT text beside it when dot is missing
    script.draw_graph(str(tmp_path / "graph.svg"), model, tinytorch.nn.CrossEntropyLoss(), data, 4)
    out = capsys.readouterr().out
    if shutil.which("dot") is None:
        assert "wrote the DOT text instead" in out and (tmp_path / "graph.dot").exists()
    else:
        assert (tmp_path / "graph.svg").read_bytes().lstrip().startswith(b"<?xml")
