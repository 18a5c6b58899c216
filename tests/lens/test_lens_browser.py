"""The lens's saved pages seen in a real browser: Debian's Chromium, headless, driven by Playwright.

``show(...).save()`` (the graph) and ``trace().save()`` (the backward pass step by step) write self-contained
HTML pages. In the browser each must load without a console error or a request for anything outside the
file, draw its nodes (SVG elements of class ``lens-node``) and not a blank picture; the step-through page
has its buttons (``#lens-prev``, ``#lens-next``), and stepping moves the highlight (``lens-current``) from
node to node.

Playwright drives the Chromium installed by the system (``apt-get install chromium``), never a browser of
its own (``playwright install`` downloads one; this project installs nothing from outside the package
registries). Without Playwright or Chromium the tests skip; CI sets ``TINYTORCH_REQUIRE_BROWSER=1``, and
there they fail instead.

The README's picture is this module's screenshot of the step-through page:
``python tests/lens/test_lens_browser.py docs/lens-trace.png`` makes it again."""
from __future__ import annotations

import importlib.util
import io
import os
import pathlib
import shutil
import sys

import pytest
from _repo import ROOT

import tinytorch
from tinytorch import lens

_REQUIRE = os.environ.get("TINYTORCH_REQUIRE_BROWSER") == "1"
# Debian names the browser chromium; other systems' packages chromium-browser
_CHROMIUM_NAMES = ("chromium", "chromium-browser")
# which node is highlighted: its index among the page's nodes, -1 for none
_CURRENT = ("() => [...document.querySelectorAll('.lens-node')]"
            ".findIndex(node => node.classList.contains('lens-current'))")
_HIGHLIGHTED = "() => document.querySelectorAll('.lens-current').length"


def _chromium() -> str | None:
    return next((path for path in map(shutil.which, _CHROMIUM_NAMES) if path), None)


def _skip_unless_browser() -> str:
    """The Chromium executable, or a skip that says what is missing (a failure under CI's switch)."""
    missing = []
    if importlib.util.find_spec("playwright") is None:
        missing.append("Playwright (pip install playwright)")
    chromium = _chromium()
    if chromium is None:
        missing.append("Chromium (apt-get install chromium)")
    if missing:
        message = f"the browser check needs {' and '.join(missing)}"
        if _REQUIRE:
            pytest.fail(f"{message} (TINYTORCH_REQUIRE_BROWSER=1)")
        pytest.skip(message)
    return chromium


@pytest.fixture(scope="module")
def browser():
    chromium = _skip_unless_browser()
    from playwright.sync_api import sync_playwright

    with sync_playwright() as playwright:
        launched = playwright.chromium.launch(executable_path=chromium)
        yield launched
        launched.close()


def _example():
    """A small graph with a few nodes of each kind: two leaves, three ops."""
    tinytorch.manual_seed(0)
    x = tinytorch.randn(3, requires_grad=True)
    w = tinytorch.randn(3, requires_grad=True)
    loss = (w * x).tanh().sum()
    return loss, {"x": x, "w": w}


class _Page:
    """A saved page opened in a new tab, with every console error, uncaught exception and request for
    something other than the page itself collected as it loads."""

    def __init__(self, browser, path: pathlib.Path, width: int = 1000, height: int = 700) -> None:
        self.problems: list[str] = []
        self.page = browser.new_page(viewport={"width": width, "height": height})
        self.page.on("console", self._console)
        self.page.on("pageerror", lambda error: self.problems.append(f"uncaught: {error}"))
        self.page.on("request", self._request)
        self.url = path.as_uri()
        self.page.goto(self.url, wait_until="load")

    def _console(self, message) -> None:
        if message.type == "error":
            self.problems.append(f"console error: {message.text}")

    def _request(self, request) -> None:
        # a self-contained page asks for nothing else (inline images are data: URLs, served without a request)
        if request.url != self.url:
            self.problems.append(f"request: {request.url}")

    def current(self) -> int:
        return self.page.evaluate(_CURRENT)

    def screenshot(self, path: str | None = None) -> bytes:
        return self.page.screenshot(path=path, full_page=True)


def _not_blank(png: bytes) -> bool:
    """More than one colour, and the colours other than the background's cover a visible share of the picture."""
    from PIL import Image

    image = Image.open(io.BytesIO(png)).convert("RGB")
    colours = image.getcolors(maxcolors=image.width * image.height)
    background = max(count for count, _ in colours)
    return len(colours) > 1 and background < 0.995 * image.width * image.height


def test_graph_page(browser, tmp_path):
    loss, params = _example()
    path = tmp_path / "graph.html"
    lens.show(loss, params=params).save(str(path))
    page = _Page(browser, path)
    # the three ops and both leaves at least (AccumulateGrad nodes, or the leaves drawn apart)
    assert page.page.locator(".lens-node").count() >= 5
    assert _not_blank(page.screenshot())
    assert page.problems == []


def test_step_through_page(browser, tmp_path):
    loss, params = _example()
    with lens.trace() as tr:
        loss.backward()
    path = tmp_path / "trace.html"
    tr.save(str(path))
    page = _Page(browser, path)
    assert page.page.locator(".lens-node").count() >= 5
    assert page.page.locator("#lens-prev").is_visible() and page.page.locator("#lens-next").is_visible()
    assert page.page.evaluate(_HIGHLIGHTED) <= 1
    # stepping on moves the highlight to another node within the steps the trace holds (two steps may stay on
    # one node: a node run, then a hook of its own), one node highlighted at a time
    start, seen = page.current(), []
    for _ in range(len(tr.steps)):
        page.page.click("#lens-next")
        assert page.page.evaluate(_HIGHLIGHTED) == 1
        seen.append(page.current())
        if seen[-1] != start:
            break
    assert seen[-1] not in (start, -1), seen
    # and stepping back returns it
    for _ in seen:
        page.page.click("#lens-prev")
    assert page.current() == start
    assert _not_blank(page.screenshot())
    assert page.problems == []


def test_readme_picture():
    """The README shows the step-through page's picture, a small file (remade by this module's main)."""
    root = pathlib.Path(ROOT)
    picture = root / "docs" / "lens-trace.png"
    assert "(docs/lens-trace.png)" in (root / "README.md").read_text()
    assert picture.stat().st_size < 100_000
    assert _not_blank(picture.read_bytes())


def _readme_picture(png: str, steps: int = 5) -> None:
    """The README's picture: the example's step-through page in the same headless Chromium, ``steps`` clicks on
    (the multiplication's node highlighted), the top of the page: the current step and the graph."""
    import tempfile

    from playwright.sync_api import sync_playwright

    loss, params = _example()
    with lens.trace(params={"loss": loss, **params}) as tr:
        loss.backward()
    with tempfile.TemporaryDirectory() as folder, sync_playwright() as playwright:
        path = pathlib.Path(folder) / "trace.html"
        tr.save(str(path))
        launched = playwright.chromium.launch(executable_path=_chromium())
        page = _Page(launched, path, width=640, height=440)
        for _ in range(steps):
            page.page.click("#lens-next")
        page.page.screenshot(path=png)
        launched.close()
        assert page.problems == [], page.problems


if __name__ == "__main__":
    _readme_picture(sys.argv[1])
