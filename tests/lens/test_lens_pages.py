"""The lens's pictures and pages: an inline SVG for notebooks, self-contained HTML files, and what
the trace records around autograd.grad, retain_graph and create_graph (on PyTorch, then the same on
tinytorch). The browser check of the pages is a CI step of its own (Playwright + Chromium)."""
import re

import pytest

import tinytorch
import tinytorch.lens as lens

from _oracle import torch  # noqa: E402  (PyTorch when a test reads it)


def _mlp(lib):
    lib.manual_seed(0)
    model = lib.nn.Sequential(lib.nn.Linear(3, 4), lib.nn.Tanh(), lib.nn.Linear(4, 1))
    loss = model(lib.ones(2, 3)).pow(2).mean()
    return model, loss


def _no_external_resources(page: str) -> None:
    urls = set(re.findall(r"""(?:src|href)\s*=\s*["']([^"']+)""", page))
    assert urls <= {"url(#lens-arrow)"}, urls
    assert "http://" not in page.replace('xmlns="http://www.w3.org/2000/svg"', "") and "https://" not in page


@pytest.mark.parametrize("lib", [tinytorch, torch], ids=["tinytorch", "torch"])
def test_graph_renders_inline_and_saves_a_self_contained_page(lib, tmp_path):
    model, loss = _mlp(lib)
    graph = lens.show(loss, dict(model.named_parameters()))
    fragment = graph._repr_html_()
    assert "<svg" in fragment and fragment.count('class="lens-node') == len(graph.nodes)
    page = open(graph.save(tmp_path / "graph.html"), encoding="utf-8").read()
    assert page.startswith("<!DOCTYPE html>")
    _no_external_resources(page)
    assert "0.weight" in page and "AddmmBackward0" in page


@pytest.mark.parametrize("lib", [tinytorch, torch], ids=["tinytorch", "torch"])
def test_trace_page_steps_through_the_graph(lib, tmp_path):
    model, loss = _mlp(lib)
    with lens.trace(dict(model.named_parameters())) as tr:
        loss.backward()
    page = open(tr.save(tmp_path / "trace.html"), encoding="utf-8").read()
    _no_external_resources(page)
    assert 'id="lens-prev"' in page and 'id="lens-next"' in page and 'id="lens-steps"' in page
    assert page.count('class="lens-node') == len(tr.graph.nodes)
    ran = [s.node for s in tr.steps if s.kind == "run"]
    assert all(f'id="lens-node-{i}"' in page for i in ran)


def _grad_and_retain(lib):
    x = lib.tensor([1.0, 2.0], requires_grad=True)
    y = (x * x * x).sum()
    with lens.trace(dict(x=x, y=y)) as tr:
        (g,) = lib.autograd.grad(y, x, create_graph=True)
        g.sum().backward(retain_graph=True)
        g.sum().backward()
    return tr


def test_trace_records_grad_results_built_graphs_and_releases():
    tr = _grad_and_retain(torch)
    kinds = [s.kind for s in tr.steps]
    assert kinds.count("call") == 3 and "result" in kinds and "graph" in kinds
    graph_step = next(s for s in tr.steps if s.kind == "graph")
    assert "graph of the gradient of x (built during backward):" in graph_step.text
    # the first backward over the gradient's graph retained it: only the last one frees its nodes
    calls = [k for k, s in enumerate(tr.steps) if s.kind == "call"]
    assert "release" not in kinds[calls[1]:calls[2]] and "release" in kinds[calls[2]:]


def test_trace_of_grad_and_retain_is_the_same_on_both_libraries():
    assert str(_grad_and_retain(tinytorch)) == str(_grad_and_retain(torch))


def test_trace_costs_nothing_outside_its_block():
    before = (tinytorch.autograd.backward, tinytorch.autograd.grad, torch.autograd.backward, torch.autograd.grad)
    x = torch.tensor([1.0], requires_grad=True)
    with lens.trace():
        (x * 2).sum().backward()
    assert (tinytorch.autograd.backward, tinytorch.autograd.grad, torch.autograd.backward,
            torch.autograd.grad) == before
    t = tinytorch.tensor([1.0], requires_grad=True)
    (t * 2).sum().backward()  # no lens hook left on tinytorch's path either
    assert t.grad.tolist() == [2.0]


@pytest.mark.parametrize("lib", [tinytorch, torch], ids=["tinytorch", "torch"])
def test_trace_records_up_to_an_error_and_unwraps(lib):
    x = lib.tensor([1.0, 2.0], requires_grad=True)
    y = (x * x).sum()
    y.backward()
    with lens.trace() as tr:
        with pytest.raises(RuntimeError, match="backward through the graph a second time"):
            y.backward()
    assert [s.kind for s in tr.steps][:2] == ["call", "run"]
    assert lib.autograd.backward.__name__ == "backward" and not hasattr(lib.autograd.backward, "__wrapped__")
    assert "<svg" in tr._repr_html_()
